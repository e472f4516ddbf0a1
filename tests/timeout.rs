//! A candidate that never returns is killed at the timeout, counted, and leaves no process.

mod common;
use common::*;

#[test]
fn sleeping_candidate_is_killed_at_timeout_and_leaves_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let cands = dir.path().join("cands");
    std::fs::create_dir(&cands).unwrap();
    let marker = format!("sleeper_{}", std::process::id());
    std::fs::write(
        cands.join(format!("test_a_{marker}.py")),
        "import time\nfrom calc.ops import clamp\n\ndef test_hangs():\n    clamp(1, 0, 10)\n    time.sleep(100000)\n",
    )
    .unwrap();
    std::fs::write(
        cands.join("test_b_clamp.py"),
        "from calc.ops import clamp\n\ndef test_upper_bound():\n    assert clamp(15, 0, 10) == 10\n",
    )
    .unwrap();
    let before = fingerprint(&repo);
    let out_dir = dir.path().join("out");
    let started = std::time::Instant::now();
    let out = bin()
        .args([
            "run",
            "--focal",
            "calc/ops.py::clamp",
            "--mutants",
            "2",
            "--timeout",
            "3",
        ])
        .arg("--repo")
        .arg(&repo)
        .arg("--issue")
        .arg(dir.path().join("issue.md"))
        .arg("--initial-tests")
        .arg(&cands)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // At most 4 runs of the sleeper at 3 s each: far below the default 60 s cap, so the
    // --timeout was honoured.
    assert!(
        started.elapsed().as_secs() < 40,
        "took {:?}",
        started.elapsed()
    );
    let r = read_json(&out_dir.join("report.json"));
    // The sleeper times out on both c_old runs and on the return-value mutant; the
    // force-failure mutant raises before the sleep, which is a kill.
    assert_eq!(r["timeouts"], 3, "{r:#}");
    assert_eq!(r["mutant_kinds"]["return_value"], 1);
    assert_eq!(r["mutant_kinds"]["force_failure"], 1);
    let g = &r["generations"][0];
    assert_eq!(g["old_outcomes"]["t1"], "timeout");
    // The hanging test cannot be a reproduction test; the real one wins.
    assert_eq!(g["selected"][0], "t2");
    assert!(
        processes_mentioning(&marker).is_empty(),
        "{:?}",
        processes_mentioning(&marker)
    );
    assert_eq!(before, fingerprint(&repo));
}
