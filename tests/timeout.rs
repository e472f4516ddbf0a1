//! A candidate that never returns is killed at the timeout, counted, and leaves no process.

use crate::common;
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
    // Without settling: the sleeper and the real test tie at 0 kills, and drawing more
    // mutants would only add sleeper runs to count.
    let out = tiny.run(
        "out",
        &["--mutants", "2", "--timeout", "3", "--no-settle-ties"],
    );
    assert!(out.status.success(), "{}", text(&out));
    // At most 4 runs of the sleeper at 3 s each: far below the default 60 s cap, so the
    // --timeout was honoured.
    assert!(
        started.elapsed().as_secs() < 40,
        "took {:?}",
        started.elapsed()
    );
    let r = read_json(&tiny.out("out").join("report.json"));
    let g = &r["generations"][0];
    assert_eq!(g["old_outcomes"]["t1"], "timeout");
    // The sleeper's c_old runs were killed at the timeout, so they left no trace: its reach
    // is unknown and it counts as reaching every mutant (reach-aware sampling, the default).
    assert_eq!(g["reach"]["unknown"], serde_json::json!(["t1"]), "{r:#}");
    // Seed 1 samples two return-value mutants of `clamp` (at the real test's failure point,
    // the discriminating sample's first choice): they change what it returns, not that the
    // sleeper sleeps after calling it, so it times out on both c_old runs and on both.
    let s = read_json(&tiny.out("out").join("session.json"));
    let kind = |id: &serde_json::Value| {
        s["pool"]["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == *id)
            .map(|m| m["kind"].as_str().unwrap().to_string())
            .unwrap()
    };
    let kinds: Vec<String> = g["mutants"].as_array().unwrap().iter().map(kind).collect();
    assert_eq!(kinds, ["return_value", "return_value"], "{r:#}");
    assert_eq!(r["timeouts"], 4, "{r:#}");
    // The hanging test cannot be a reproduction test; the real one wins.
    assert_eq!(g["selected"][0], "t2");
    assert!(
        processes_mentioning(&marker).is_empty(),
        "{:?}",
        processes_mentioning(&marker)
    );
    assert_eq!(before, fingerprint(&tiny.repo));

    // Table I's pool, every mutant eligible: `--mutants 2` is then exactly a return-value and a
    // force-failure mutant of `clamp`. The sleeper times out on both c_old runs and on the
    // return-value mutant; the force-failure mutant raises before the sleep: a fast failure
    // instead of a timeout, which is a kill.
    let out = tiny.run(
        "table-i",
        &[
            "--mutants",
            "2",
            "--timeout",
            "3",
            "--operators",
            "table-i",
            "--mutant-reach",
            "all",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let r = read_json(&tiny.out("table-i").join("report.json"));
    assert_eq!(r["timeouts"], 3, "{r:#}");
    assert_eq!(r["mutant_kinds"]["return_value"], 1, "{r:#}");
    assert_eq!(r["mutant_kinds"]["force_failure"], 1, "{r:#}");
    let s = read_json(&tiny.out("table-i").join("session.json"));
    let forced = s["pool"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "force_failure")
        .map(|m| m["id"].clone())
        .unwrap();
    let killed_by_sleeper = &s["generations"][0]["scores"]["t1"]["kills"];
    assert!(
        killed_by_sleeper
            .as_array()
            .is_some_and(|k| k.contains(&forced)),
        "the sleeper should kill {forced}: {r:#}"
    );
    assert!(
        processes_mentioning(&marker).is_empty(),
        "{:?}",
        processes_mentioning(&marker)
    );
    assert_eq!(before, fingerprint(&tiny.repo));
}

/// A candidate that hangs on c_old is reported at once, and its other runs do not each wait
/// the full cap again: they are bounded by what the tests that finish need.
#[test]
fn a_hanging_candidate_is_reported_at_once_and_bounded_after() {
    let tiny = Tiny::four();
    std::fs::write(
        tiny.cands.join("test_0_spin.py"),
        "from calc.ops import clamp\n\ndef test_spins():\n    clamp(1, 0, 10)\n    while True:\n        pass\n",
    )
    .unwrap();
    // The spinning test burns a core for as long as it is let run: a short cap and small
    // samples keep it to about ten seconds of CPU.
    let out = tiny.run("out", &["--mutants", "4", "--timeout", "4", "--tests", "5"]);
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let note = err
        .find("note: t1 (test_0_spin.py) timed out on c_old after 4 s: it hangs")
        .unwrap_or_else(|| panic!("no note: {err}"));
    let kept = err.find("generation 0: kept").unwrap();
    assert!(note < kept, "reported only after the generation: {err}");
    assert!(err.contains(", timeouts "), "timeouts not counted: {err}");
    let r = read_json(&tiny.out("out").join("report.json"));
    assert_eq!(r["tests"]["t1"]["hangs_on_c_old"], true, "{r:#}");
    assert_ne!(r["final_test_id"], "t1");

    let s = read_json(&tiny.out("out").join("session.json"));
    let hash = s["tests"]["t1"]["hash"].as_str().unwrap()[..16].to_string();
    let slowest_other_ms = s["tests"]
        .as_object()
        .unwrap()
        .values()
        .filter(|t| t["id"] != "t1")
        .filter_map(|t| {
            let key = format!("{}@old", &t["hash"].as_str().unwrap()[..16]);
            s["executions"][&key]["duration_ms"].as_u64()
        })
        .max()
        .unwrap();
    let bound_ms = ((slowest_other_ms + 1000) * 2).max(2000);
    let mut bounded = 0;
    for (key, e) in s["executions"].as_object().unwrap() {
        if !key.starts_with(&hash) || key.ends_with("@old") {
            continue;
        }
        let t = e["timeout_ms"].as_u64().unwrap();
        assert!(
            t <= bound_ms && t < 4000,
            "{key} waited {t} ms (bound {bound_ms} ms, cap 4000)"
        );
        bounded += 1;
    }
    assert!(bounded >= 3, "the repeat and the mutant runs: {bounded}");
}
