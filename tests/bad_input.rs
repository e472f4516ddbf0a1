//! Bad input gets a clear error that names what is wrong and what to do, and loses nothing.

use crate::common;
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

/// `mutants` needs somewhere to look: an instance or a repository, and focal functions.
#[test]
fn mutants_without_a_repository_or_focal_functions_says_what_to_give() {
    let (code, err) = stderr_of(&["mutants"]);
    assert_eq!(code, Some(2), "clap usage error: {err}");
    assert!(
        err.contains("--instance") && err.contains("--repo"),
        "{err}"
    );
    // An instance without `focal` (its model localizes): the flag to give is named.
    let dir = tempfile::tempdir().unwrap();
    tiny_repo(dir.path());
    std::fs::write(dir.path().join("issue.md"), "clamp is off by one\n").unwrap();
    std::fs::write(
        dir.path().join("instance.toml"),
        "name = \"nofocal\"\nrepo = \"repo\"\nissue = \"issue.md\"\n",
    )
    .unwrap();
    let (code, err) = stderr_of(&["mutants", "--instance", dir.path().to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("names no focal functions") && err.contains("--focal FILE::QUALNAME"),
        "{err}"
    );
    let (code, err) = stderr_of(&[
        "mutants",
        "--instance",
        dir.path().to_str().unwrap(),
        "--focal",
        "calc/ops.py::clamp",
    ]);
    assert_eq!(code, Some(0), "{err}");
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

    // What the options alone get wrong is said first; then the files they name.
    let (_, err) = stderr_of(&[
        "run",
        "--repo",
        "/definitely/not/here",
        "--issue",
        "/i.md",
        "--initial-tests",
        "/c",
        "--out",
        "/o",
    ]);
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

/// `--operators table-i` is Table I's pool: a part of the default one, under the same ids.
#[test]
fn table_i_mutants_are_a_subset_of_all_with_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let ids = |ops: &str| -> Vec<(String, String)> {
        let args = [
            "--focal",
            "calc/ops.py::clamp",
            "--count",
            "1000",
            "--operators",
            ops,
        ];
        mutants_json(&repo, &args)
            .iter()
            .map(|m| (m["id"].to_string(), m["diff"].to_string()))
            .collect()
    };
    let (table_i, all) = (ids("table-i"), ids("all"));
    assert!(all.len() > table_i.len(), "{} {}", all.len(), table_i.len());
    assert!(table_i.iter().all(|m| all.contains(m)));
}

#[test]
fn an_unknown_operator_set_is_refused_by_name() {
    let tiny = Tiny::four();
    let o = tiny
        .command("out")
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .args(["--focal", "calc/ops.py::clamp", "--operators", "tablei"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        err.contains("unknown operator set `tablei`; expected one of: all, table-i"),
        "{err}"
    );
    assert!(!tiny.out("out").exists());
}

/// Every input that can be checked up front is refused before anything exists: no session,
/// no output directory, and no advice to resume what cannot be resumed.
#[test]
fn bad_flags_are_refused_before_a_session_exists() {
    let tiny = Tiny::four();
    let cases: &[(&[&str], &str)] = &[
        (&["--mutants", "0"], "--mutants must be at least 1"),
        (&["--tests", "0"], "--tests must be at least 1"),
        (&["--tests", "-1"], "--tests must be at least 1"),
        (&["--mutants", "-3"], "--mutants must be at least 1"),
        (&["--jobs", "0"], "--jobs must be at least 1"),
        (&["--jobs", "1000"], "pass at most --jobs"),
        (&["--timeout", "0"], "--timeout must be a positive number"),
        (&["--timeout", "nan"], "--timeout must be a positive number"),
        (&["--focal", "calc/ops.py::nope"], "clamp"),
        (&["--focal", "calc/missing.py::f"], "calc/missing.py"),
        (
            &["--pythonpath", "nowhere"],
            "--pythonpath nowhere is not a directory",
        ),
        (&["--llm", "gpt"], "unknown --llm `gpt`"),
        // Without its key: nothing written, so the same command runs once the key is set.
        (&["--llm", "anthropic"], "ANTHROPIC_API_KEY"),
        (
            &["--llm", "scripted:/no/such/script.json"],
            "the script file does not exist",
        ),
        (
            &["--golden-patch", "/no/such.patch"],
            "golden patch /no/such.patch does not exist",
        ),
    ];
    for (i, (args, want)) in cases.iter().enumerate() {
        let name = format!("out{i}");
        let mut cmd = tiny.command(&name);
        cmd.arg("--initial-tests").arg(&tiny.cands);
        if !args.contains(&"--focal") {
            cmd.args(["--focal", "calc/ops.py::clamp"]);
        }
        let o = cmd
            .args(*args)
            .env_remove("ANTHROPIC_API_KEY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o));
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            !err.contains("--resume"),
            "{args:?}: resume cannot help: {err}"
        );
        assert!(!tiny.out(&name).exists(), "{args:?} created its --out");
    }
}

/// An OS error is said once, with the file it is about.
#[test]
fn an_os_error_is_printed_once() {
    let tiny = Tiny::four();
    let o = bin()
        .args(["run", "--repo"])
        .arg(&tiny.repo)
        .args(["--issue", "/no/such/issue.md", "--out"])
        .arg(tiny.out("o"))
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert!(err.contains("/no/such/issue.md"), "{err}");
}

/// Syntax errors in a focal file or a candidate are reported with file and line (by the
/// run's own interpreter); the run goes on.
#[test]
fn syntax_errors_are_reported_with_file_and_line() {
    let tiny = Tiny::new(&[
        (
            "test_a.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
        ("test_b.py", "def test_broken(:\n    pass\n"),
    ]);
    std::fs::write(
        tiny.repo.join("calc/extra.py"),
        "def helper(x):\n    return x + 1\n\n\ndef broken(:\n    pass\n",
    )
    .unwrap();
    let o = tiny.run(
        "out",
        &["--focal", "calc/extra.py::helper", "--mutants", "2"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("syntax error in the candidate") && err.contains("test_b.py:1:"),
        "{err}"
    );
    assert!(
        err.contains("syntax error in the focal file calc/extra.py:5:"),
        "{err}"
    );
}

#[test]
fn eval_refuses_a_file_that_is_not_a_test_module() {
    let ex = root().join("examples/envconf_errors");
    let inst = evootter::instance::Instance::load(&ex).unwrap();
    let eval = |test: &std::path::Path| {
        bin()
            .args(["eval", "--repo"])
            .arg(&inst.repo)
            .arg("--golden-patch")
            .arg(inst.golden_patch.as_ref().unwrap())
            .arg("--test")
            .arg(test)
            .output()
            .unwrap()
    };
    let o = eval(&ex.join("candidates/expected.toml"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is not a Python test module"),
        "{}",
        text(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let no_tests = dir.path().join("test_nothing.py");
    std::fs::write(&no_tests, "def helper():\n    return 1\n").unwrap();
    let o = eval(&no_tests);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("collected no tests"),
        "{}",
        text(&o)
    );
}

/// The workbench needs a terminal: without one it says so, exits 2 and creates nothing.
#[test]
fn the_workbench_without_a_terminal_says_so_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    for args in [
        vec!["demo", "--out", out.to_str().unwrap()],
        vec!["open", out.to_str().unwrap()],
        vec![
            "tui",
            "--instance",
            "examples/envconf_errors",
            "--out",
            out.to_str().unwrap(),
        ],
    ] {
        let o = bin()
            .args(&args)
            .current_dir(root())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("needs a terminal") && err.contains("evootter run"),
            "{err}"
        );
        assert!(!out.exists(), "{args:?} created {}", out.display());
    }
}

/// An empty issue is refused before anything is created, unless the user says so.
#[test]
fn an_empty_issue_is_refused_unless_allowed() {
    let tiny = Tiny::four();
    std::fs::write(tiny.dir.path().join("issue.md"), " \n\n").unwrap();
    let o = tiny.run("empty", &[]);
    assert!(!o.status.success());
    assert!(text(&o).contains("is empty"), "{}", text(&o));
    assert!(text(&o).contains("--allow-empty-issue"), "{}", text(&o));
    assert!(!tiny.out("empty").exists());
    let o = tiny.run("allowed", &["--allow-empty-issue", "--mutants", "4"]);
    assert!(o.status.success(), "{}", text(&o));
    let doc =
        evootter::engine::SessionDoc::load(&tiny.out("allowed").join("session.json")).unwrap();
    assert!(
        doc.notes.iter().any(|n| n.contains("the issue is empty")),
        "{:?}",
        doc.notes
    );
}

/// A repository whose pytest configuration asks for a plugin the interpreter lacks: every
/// test errors on c_old the same way. The run says so within its first execution step,
/// names the option and its file, and stops with the session saved; `--keep-going` runs on
/// and the report says it.
#[test]
fn an_environment_that_cannot_run_the_tests_is_named_not_scored() {
    let tiny = Tiny::four();
    std::fs::write(
        tiny.repo.join("setup.cfg"),
        "[tool:pytest]\naddopts = --no-such-plugin-option=calc\n",
    )
    .unwrap();
    let o = tiny.run("broken", &["--mutants", "4"]);
    assert!(!o.status.success());
    let out = text(&o);
    assert!(
        out.contains("every test errors on c_old: pytest: unrecognized arguments: --no-such-plugin-option=calc"),
        "{out}"
    );
    assert!(
        out.contains("--no-such-plugin-option (from setup.cfg)"),
        "{out}"
    );
    let doc = evootter::engine::SessionDoc::load(&tiny.out("broken").join("session.json")).unwrap();
    assert_eq!(
        doc.phase,
        evootter::engine::Phase::Execute { generation: 0 },
        "stopped in the first execution step"
    );
    assert!(
        !doc.executions.keys().any(|k| k.ends_with("@old")),
        "the c_old runs that measured the environment are not kept"
    );
    let o = tiny.run("going", &["--mutants", "4", "--keep-going"]);
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&tiny.out("going").join("report.json"));
    assert!(
        r["environment_error"]
            .as_str()
            .is_some_and(|e| e.contains("unrecognized arguments")),
        "{r:#}"
    );
}
