//! `--reuse-executions`: a second strategy on the same instance runs nothing already run.

mod common;
use common::*;

#[test]
fn second_strategy_reuses_every_execution() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let cands = dir.path().join("cands");
    std::fs::create_dir(&cands).unwrap();
    std::fs::write(
        cands.join("test_a.py"),
        "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
    )
    .unwrap();
    std::fs::write(
        cands.join("test_b.py"),
        "from calc.ops import clamp\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
    )
    .unwrap();
    let run = |out: &str, extra: &[&str]| {
        let o = bin()
            .args(["run", "--focal", "calc/ops.py::clamp", "--mutants", "6"])
            .arg("--repo")
            .arg(&repo)
            .arg("--issue")
            .arg(dir.path().join("issue.md"))
            .arg("--initial-tests")
            .arg(&cands)
            .arg("--out")
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        read_json(&dir.path().join(out).join("session.json"))
    };
    let first = run("a", &[]);
    let first_session = dir.path().join("a/session.json");
    let second = run(
        "b",
        &[
            "--selection",
            "otter",
            "--reuse-executions",
            first_session.to_str().unwrap(),
        ],
    );
    assert_eq!(
        first["executions"], second["executions"],
        "nothing ran again"
    );
    assert!(!first["executions"].as_object().unwrap().is_empty());
    assert_eq!(second["generations"][0]["selected_by"], "otter");
    assert!(second["notes"].to_string().contains("reused"));

    // A changed repository refuses the reuse, naming why.
    std::fs::write(repo.join("calc/extra.py"), "X = 1\n").unwrap();
    let o = bin()
        .args(["run", "--focal", "calc/ops.py::clamp", "--reuse-executions"])
        .arg(&first_session)
        .arg("--repo")
        .arg(&repo)
        .arg("--issue")
        .arg(dir.path().join("issue.md"))
        .arg("--initial-tests")
        .arg(&cands)
        .arg("--out")
        .arg(dir.path().join("c"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("repository content"), "{}", text(&o));
}
