//! Bad input gets a clear error that names what is wrong and what to do, and loses nothing.

mod common;
use common::*;

fn stderr_of(args: &[&str]) -> (Option<i32>, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn unknown_focal_function_lists_what_the_file_defines() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let (code, err) = stderr_of(&[
        "mutants",
        "--repo",
        repo.to_str().unwrap(),
        "--focal",
        "calc/ops.py::clmp",
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("clmp") && err.contains("clamp"), "{err}");

    let (code, err) = stderr_of(&[
        "mutants",
        "--repo",
        repo.to_str().unwrap(),
        "--focal",
        "calc/ops.py",
    ]);
    assert_eq!(code, Some(2), "clap usage error");
    assert!(err.contains("FILE::QUALNAME"), "{err}");

    let (_, err) = stderr_of(&[
        "mutants",
        "--repo",
        repo.to_str().unwrap(),
        "--focal",
        "calc/nope.py::f",
    ]);
    assert!(err.contains("calc/nope.py"), "{err}");
}

#[test]
fn mutants_json_lists_stable_ids() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let args = [
        "mutants",
        "--repo",
        repo.to_str().unwrap(),
        "--focal",
        "calc/ops.py::clamp",
        "--json",
    ];
    let a = bin().args(args).output().unwrap();
    let b = bin().args(args).output().unwrap();
    assert!(a.status.success(), "{}", text(&a));
    assert_eq!(a.stdout, b.stdout, "same seed, same mutants");
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert!(!list.is_empty());
    for m in list {
        for k in ["id", "kind", "file", "function", "line", "diff"] {
            assert!(m.get(k).is_some(), "mutant lacks {k}");
        }
    }
    assert!(list.iter().any(|m| m["kind"] == "force_failure"));
    assert!(list.iter().any(|m| m["kind"] == "binary_relational"));
}

#[test]
fn corrupt_or_newer_session_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("session.json");
    std::fs::write(&p, "{ not json").unwrap();
    let (code, err) = stderr_of(&["run", "--resume", p.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("not a valid evootter session"), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "{ not json");

    let newer = r#"{"schema_version": 999, "phase": {"step": "done"}}"#;
    std::fs::write(&p, newer).unwrap();
    let (code, err) = stderr_of(&["run", "--resume", p.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("newer than this evootter"), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), newer);
}

#[test]
fn missing_inputs_name_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let (code, err) = stderr_of(&["run", "--repo", repo.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--issue"), "{err}");

    let (_, err) = stderr_of(&["run", "--repo", "/definitely/not/here"]);
    assert!(err.contains("/definitely/not/here"), "{err}");

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let issue = dir.path().join("issue.md");
    let (_, err) = stderr_of(&[
        "run",
        "--repo",
        repo.to_str().unwrap(),
        "--issue",
        issue.to_str().unwrap(),
        "--focal",
        "calc/ops.py::clamp",
        "--initial-tests",
        empty.to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert!(err.contains("holds no *.py files"), "{err}");
    assert!(
        !dir.path().join("o").exists(),
        "nothing written on bad input"
    );
}
