//! End to end on every bundled example: real mutants, real pytest runs, real selection.

mod common;
use common::*;

#[test]
fn golden_test_is_f2p_by_eval_on_every_example() {
    let examples = examples();
    assert!(examples.len() >= 4, "expected at least 4 bundled examples");
    for ex in examples {
        let inst = evootter::instance::Instance::load(&ex).unwrap();
        let before = fingerprint(&inst.repo);
        let mut cmd = bin();
        cmd.arg("eval")
            .arg("--repo")
            .arg(&inst.repo)
            .arg("--golden-patch")
            .arg(inst.golden_patch.as_ref().unwrap())
            .arg("--test")
            .arg(inst.golden_test.as_ref().unwrap());
        if let Some(td) = &inst.test_dir {
            cmd.args(["--test-dir", td]);
        }
        for p in inst.pythonpath.iter().flatten() {
            cmd.args(["--pythonpath", p]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}: {}", ex.display(), text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("F2P: yes"),
            "{}: {}",
            ex.display(),
            text(&out)
        );
        assert_eq!(
            before,
            fingerprint(&inst.repo),
            "eval modified {}",
            inst.repo.display()
        );
    }
}

#[test]
fn a_candidate_that_passes_on_both_is_not_f2p() {
    // expected.toml marks each candidate; eval must agree for one that passes everywhere.
    let ex = &examples()[0];
    let inst = evootter::instance::Instance::load(ex).unwrap();
    let expected: toml::Table =
        toml::from_str(&std::fs::read_to_string(ex.join("candidates/expected.toml")).unwrap())
            .unwrap();
    let (name, _) = expected
        .iter()
        .find(|(_, v)| v["old"].as_str() == Some("passed"))
        .expect("a passing candidate");
    let mut cmd = bin();
    cmd.arg("eval")
        .arg("--repo")
        .arg(&inst.repo)
        .arg("--golden-patch")
        .arg(inst.golden_patch.as_ref().unwrap())
        .arg("--test")
        .arg(ex.join("candidates").join(name))
        .arg("--json");
    for p in inst.pythonpath.iter().flatten() {
        cmd.args(["--pythonpath", p]);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["f2p"], false);
    assert_eq!(v["old"], "passed");
}

#[test]
fn run_completes_on_every_example_and_reports_f2p() {
    for ex in examples() {
        let inst = evootter::instance::Instance::load(&ex).unwrap();
        let before = fingerprint(&inst.repo);
        let out_dir = tempfile::tempdir().unwrap();
        let out = bin()
            .arg("run")
            .arg("--instance")
            .arg(&ex)
            .arg("--out")
            .arg(out_dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {}", ex.display(), text(&out));
        assert_eq!(
            before,
            fingerprint(&inst.repo),
            "run modified {}",
            inst.repo.display()
        );

        let r = read_json(&out_dir.path().join("report.json"));
        for key in [
            "final_test",
            "generations",
            "mutants_total",
            "mutant_kinds",
            "executions_total",
            "rescues",
            "timeouts",
            "wall_seconds",
            "execution_seconds_sum",
            "jobs",
            "f2p",
        ] {
            assert!(r.get(key).is_some(), "{}: report lacks {key}", ex.display());
        }
        let final_test = std::path::PathBuf::from(r["final_test"].as_str().unwrap());
        assert!(final_test.is_file(), "final test file written");
        let gens = r["generations"].as_array().unwrap();
        assert_eq!(gens.len(), 3, "8 tests halve in 3 generations");
        let tests: Vec<usize> = gens
            .iter()
            .map(|g| g["tests"].as_array().unwrap().len())
            .collect();
        assert_eq!(tests, vec![8, 4, 2]);
        for g in gens {
            assert!(g["selected_by"].is_string());
            assert!(g["fitness_decided"].is_boolean());
            let scores = g["scores"].as_object().unwrap();
            assert_eq!(scores.len(), g["tests"].as_array().unwrap().len());
        }
        // Nested mutant samples double: each generation's sample contains the previous one.
        let samples: Vec<Vec<String>> = gens
            .iter()
            .map(|g| {
                g["mutants"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect()
            })
            .collect();
        for w in samples.windows(2) {
            assert!(w[0].iter().all(|m| w[1].contains(m)));
            assert!(w[1].len() >= w[0].len());
        }
        let f2p = &r["f2p"];
        assert!(f2p["f2p"].is_boolean() && f2p["old"].is_string() && f2p["new"].is_string());

        // final.patch adds exactly the final test and applies to a clean copy.
        let copy = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(format!("{}/.", inst.repo.display()))
            .arg(copy.path())
            .status()
            .unwrap();
        assert!(status.success());
        let apply = std::process::Command::new("git")
            .args(["apply", "--check", "-v"])
            .arg(out_dir.path().join("final.patch"))
            .current_dir(copy.path())
            .output()
            .unwrap();
        assert!(apply.status.success(), "final.patch: {}", text(&apply));

        // No execution ran twice within the session: one record per (test content, target).
        let s = read_json(&out_dir.path().join("session.json"));
        let execs = s["executions"].as_object().unwrap();
        let seqs: std::collections::BTreeSet<u64> =
            execs.values().map(|e| e["seq"].as_u64().unwrap()).collect();
        assert_eq!(seqs.len(), execs.len());
        assert_eq!(
            r["executions_total"].as_u64().unwrap() as usize,
            execs.len()
        );
    }
}

/// The README's demo: the envconf example with batched crossover by a scripted model.
#[test]
fn readme_demo_with_scripted_crossover_runs_offline() {
    let ex = root().join("examples/envconf_errors");
    let out_dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(root())
        .args([
            "run",
            "--instance",
            "examples/envconf_errors",
            "--crossover",
            "llm",
        ])
        .args(["--llm", "scripted:examples/envconf_errors/llm_script.json"])
        .arg("--out")
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}: {}", ex.display(), text(&out));
    assert!(
        text(&out).contains("scripted replies"),
        "labelled as scripted"
    );
    let r = read_json(&out_dir.path().join("report.json"));
    assert_eq!(r["llm_calls"]["by_step"]["crossover"], 2);
    assert_eq!(r["llm_calls"]["by_step"]["select"], 1);
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    assert!(r["notes"].as_array().unwrap().is_empty(), "{r:#}");
}
