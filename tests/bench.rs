//! Benchmark mode end to end: a JSONL of SWE-bench-style rows made from the bundled examples
//! (their repositories as bare git mirrors, the model's part scripted), run two at a time with
//! `--validate`; scored by the harness rules; a summary, a predictions file; a second batch
//! resumes and runs nothing again; a malformed row and a missing base commit are errors for
//! their instance only.

use crate::common;
use common::bench_rows::{git, mirror, row};
use common::*;

#[expect(
    clippy::too_many_lines,
    reason = "one batch's story, each step on what the one before left: split, the steps would hide their order"
)]
#[test]
fn a_batch_over_the_examples_is_scored_summarized_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    std::fs::create_dir_all(&repos).unwrap();
    let chosen = ["envconf_errors", "pagekit_orphans"];
    let mut lines = vec![];
    for name in chosen {
        let ex = root().join("examples").join(name);
        let commit = mirror(&ex, &repos);
        lines.push(row(&ex, &commit).to_string());
    }
    // A row that is not one, and one whose commit is not in its mirror.
    lines.push(r#"{"instance_id": "broken-1", "repo": "evootter/envconf_errors"}"#.into());
    let mut missing = row(
        &root().join("examples/envconf_errors"),
        "0000000000000000000000000000000000000000",
    );
    missing["instance_id"] = "evootter__missing-1".into();
    lines.push(missing.to_string());
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("batch");
    let run = || {
        bin()
            .args(["bench", "--parallel", "2", "--validate", "--instances"])
            .arg(&rows)
            .arg("--repos")
            .arg(&repos)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap()
    };
    let first = run();
    let err = String::from_utf8_lossy(&first.stderr);
    assert_eq!(
        first.status.code(),
        Some(1),
        "two rows are errors: {}",
        text(&first)
    );
    assert!(err.contains("broken-1: error: line 3"), "{err}");
    assert!(
        err.contains("evootter__missing-1: error: base commit 0000000000000000000000000000000000000000 is not in the mirror"),
        "{err}"
    );
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["instances"], 4, "{summary:#}");
    assert_eq!(summary["errors"], 2);
    for name in chosen {
        let id = format!("evootter__{name}-1");
        let rec = read_json(&out.join(&id).join("instance.json"));
        assert_eq!(rec["status"], "done", "{rec:#}");
        let score = &rec["score"];
        assert_eq!(score["f2p"], true, "{id}: {rec:#}");
        assert_eq!(score["tdd"], true, "{id}: {rec:#}");
        assert_eq!(score["swt"], true, "{id}: {rec:#}");
        let cov = score["coverage"].as_f64().unwrap();
        assert!(cov > 0.0 && cov <= 1.0, "{id}: coverage {cov}");
        // Measured by coverage.py (CI installs it), weighed into TDD-Bench's score.
        let with = score["measured_with"].as_str().unwrap_or_default();
        assert!(with.starts_with("coverage "), "{id}: {rec:#}");
        assert_eq!(score["tdd_score"].as_f64(), Some(cov), "{id}");
        assert!(out.join(&id).join("final.patch").is_file());
        assert!(out.join(&id).join("report.json").is_file());
        // --validate ran the developer's tests on the focal mutants: each kind's kills are
        // some of its mutants, and force-failure mutants (a raise at the function's top) are
        // killed by a test that calls the function.
        let kills = score["golden_kills"].as_object().unwrap();
        assert!(!kills.is_empty(), "{id}: {rec:#}");
        for (kind, v) in kills {
            let (n, killed) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
            assert!(n > 0 && killed <= n, "{id}: {kind} {v}");
        }
        let ff = &kills["force_failure"];
        assert_eq!(ff[0], ff[1], "{id}: every force failure killed: {kills:?}");
    }
    assert_eq!(summary["tdd"], 2);
    assert!(
        summary["golden_kills"]
            .as_object()
            .is_some_and(|k| !k.is_empty()),
        "{summary:#}"
    );
    // The predictions file, in SWT-bench's format, for the official harnesses.
    let preds = std::fs::read_to_string(out.join("predictions.jsonl")).unwrap();
    let preds: Vec<serde_json::Value> = preds
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(preds.len(), 4);
    for p in &preds {
        for k in ["instance_id", "model_name_or_path", "model_patch"] {
            assert!(p.get(k).is_some(), "{p}");
        }
    }
    let env = preds
        .iter()
        .find(|p| p["instance_id"] == "evootter__envconf_errors-1")
        .unwrap();
    assert!(
        env["model_patch"]
            .as_str()
            .unwrap()
            .starts_with("diff --git")
    );

    // Again: the finished instances are not run again (no execution is added).
    let session = out.join("evootter__envconf_errors-1/session.json");
    let before = read_json(&session)["executions"].as_object().unwrap().len();
    let second = run();
    assert_eq!(second.status.code(), Some(1));
    assert_eq!(
        read_json(&session)["executions"].as_object().unwrap().len(),
        before
    );
    let err2 = String::from_utf8_lossy(&second.stderr);
    assert!(
        err2.contains("evootter__envconf_errors-1: F2P yes, TDD-Bench yes, SWT-bench yes (0 s)"),
        "{err2}"
    );

    // The table again, and a batch compared with itself.
    let s = bin()
        .args(["bench", "--summary"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(s.status.success());
    let table = String::from_utf8_lossy(&s.stdout);
    assert!(
        table.contains("evootter__pagekit_orphans-1") && table.contains("TDD-Bench 2"),
        "{table}"
    );
    let c = bin()
        .args(["bench", "--compare"])
        .arg(&out)
        .arg(&out)
        .output()
        .unwrap();
    let cmp = String::from_utf8_lossy(&c.stdout);
    assert!(cmp.contains("0 became F2P, 0 lost"), "{cmp}");

    // The paper's figures from the batch, their data beside them, agreeing with the summary.
    let fig = dir.path().join("figures");
    let f = bin()
        .args(["bench", "--summary"])
        .arg(&out)
        .arg("--figures")
        .arg(&fig)
        .output()
        .unwrap();
    assert!(f.status.success(), "{}", text(&f));
    let csv = |name: &str| -> Vec<Vec<String>> {
        std::fs::read_to_string(fig.join(format!("{name}.csv")))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    let summary = read_json(&out.join("summary.json"));
    for row in csv("table9_cuts") {
        let in_summary = summary["cuts"][&row[1]].as_u64().unwrap_or(0);
        assert_eq!(row[2], in_summary.to_string(), "cuts by {}", row[1]);
    }
    let costs = csv("cost_per_instance");
    assert_eq!(costs.len(), 2, "the two finished instances");
    for row in &costs {
        let line = summary["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["instance_id"] == row[1].as_str())
            .unwrap();
        assert_eq!(row[2].parse::<f64>().ok(), line["cost_usd"].as_f64());
    }
    // Generation 0 is the initial populations: 8 tests each.
    assert_eq!(csv("fig6_f2p_share")[0][3], "16");
    let svg = std::fs::read_to_string(fig.join("fig6_f2p_share.svg")).unwrap();
    // One batch, one series (its line and its legend's sample in a colour of their own).
    assert_eq!(
        evootter::bench::figures::series_in_svg(&svg).unwrap(),
        1,
        "{svg}"
    );
    assert!(
        svg.contains("2 instances; selection mutation"),
        "the caption: {svg}"
    );

    // Three batches (the batch and two copies): side by side, McNemar between every pair, and
    // every figure with a series per batch.
    let mut dirs = vec![out.clone()];
    for copy in ["again", "third"] {
        let to = dir.path().join(copy);
        let cp = std::process::Command::new("cp")
            .arg("-r")
            .arg(&out)
            .arg(&to)
            .status()
            .unwrap();
        assert!(cp.success());
        dirs.push(to);
    }
    let fig3 = dir.path().join("figures3");
    let c = bin()
        .args(["bench", "--compare"])
        .args(&dirs)
        .arg("--figures")
        .arg(&fig3)
        .args(["--cutoff", "2025-09-29"])
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", text(&c));
    let cmp = String::from_utf8_lossy(&c.stdout);
    for pair in ["batch vs again", "batch vs third", "again vs third"] {
        assert!(
            cmp.contains(&format!("{pair}: 2 instances")) && cmp.contains("p = 1.0000"),
            "{pair}: {cmp}"
        );
    }
    let pairs = std::fs::read_to_string(fig3.join("mcnemar.csv")).unwrap();
    assert_eq!(pairs.lines().count(), 4, "{pairs}");
    let svg = std::fs::read_to_string(fig3.join("fig4_selection_accuracy.svg")).unwrap();
    assert_eq!(evootter::bench::figures::series_in_svg(&svg).unwrap(), 3);
    assert!(fig3.join("table8_cutoff.csv").exists());
    let bad = bin()
        .args(["bench", "--summary"])
        .arg(&out)
        .args(["--cutoff", "29/09/2025", "--figures"])
        .arg(&fig3)
        .output()
        .unwrap();
    assert!(
        !bad.status.success() && text(&bad).contains("is not a date as YYYY-MM-DD"),
        "{}",
        text(&bad)
    );

    // The mirrors were only read.
    for name in chosen {
        let bare = repos.join("evootter").join(format!("{name}.git"));
        assert_eq!(git(&bare, &["rev-parse", "HEAD"]).len(), 40);
    }
}

/// `--validate` marks an instance whose developer test does not fail before the fix as
/// unsound, and it is not counted.
#[test]
fn an_unsound_instance_is_marked_and_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    std::fs::create_dir_all(&repos).unwrap();
    let ex = root().join("examples/envconf_errors");
    let commit = mirror(&ex, &repos);
    let mut r = row(&ex, &commit);
    // A "developer test" that passes on c_old already.
    r["test_patch"] = evootter::engine::report::add_file_patch(
        "tests/test_developer.py",
        "def test_always():\n    assert True\n",
    )
    .into();
    r["FAIL_TO_PASS"] = r#"["tests/test_developer.py::test_always"]"#.into();
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, r.to_string() + "\n").unwrap();
    let out = dir.path().join("batch");
    let o = bin()
        .args(["bench", "--validate", "--instances"])
        .arg(&rows)
        .arg("--repos")
        .arg(&repos)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let s = read_json(&out.join("summary.json"));
    assert_eq!(s["unsound"], 1, "{s:#}");
    assert_eq!(s["counted"], 0);
    let rec = read_json(&out.join("evootter__envconf_errors-1/instance.json"));
    assert!(
        rec["reason"]
            .as_str()
            .unwrap()
            .contains("PASSED before the fix"),
        "{rec:#}"
    );
    assert!(
        !out.join("evootter__envconf_errors-1/session.json").exists(),
        "nothing ran for an unsound instance"
    );
}
