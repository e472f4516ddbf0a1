//! A candidate that never returns is killed at the timeout, counted, and leaves no process.

mod common;
use common::*;

#[test]
fn sleeping_candidate_is_killed_at_timeout_and_leaves_no_process() {
    let marker = format!("sleeper_{}", std::process::id());
    let tiny = Tiny::new(&[
        (
            &format!("test_a_{marker}.py"),
            "import time\nfrom calc.ops import clamp\n\ndef test_hangs():\n    clamp(1, 0, 10)\n    time.sleep(100000)\n",
        ),
        (
            "test_b_clamp.py",
            "from calc.ops import clamp\n\ndef test_upper_bound():\n    assert clamp(15, 0, 10) == 10\n",
        ),
    ]);
    let before = fingerprint(&tiny.repo);
    let started = std::time::Instant::now();
    let out = tiny.run("out", &["--mutants", "2", "--timeout", "3"]);
    assert!(out.status.success(), "{}", text(&out));
    // At most 4 runs of the sleeper at 3 s each: far below the default 60 s cap, so the
    // --timeout was honoured.
    assert!(
        started.elapsed().as_secs() < 40,
        "took {:?}",
        started.elapsed()
    );
    let r = read_json(&tiny.out("out").join("report.json"));
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
    assert_eq!(before, fingerprint(&tiny.repo));
}
