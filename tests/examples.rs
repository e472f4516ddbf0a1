//! End to end on every bundled example: real mutants, real pytest runs, real selection.

use crate::common;
use common::*;

/// The long tests that take one example each (warm against cold, the full workflow over
/// HTTP) are written per name: a new example must be added to them.
#[test]
fn every_bundled_example_is_named_for_the_per_example_tests() {
    let bundled: Vec<String> = examples()
        .iter()
        .map(|e| e.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        bundled, EXAMPLES,
        "name the new example in tests/common's EXAMPLES and give it its tests in warm.rs \
         and workflow_http.rs"
    );
}

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

/// `--start candidates`: the instance's own tests and focal functions, no model, so no
/// crossover: the survivors of each generation go on unchanged.
#[test]
fn candidates_mode_runs_without_a_model() {
    let ex = root().join("examples/pagekit_orphans");
    let inst = evootter::instance::Instance::load(&ex).unwrap();
    let before = fingerprint(&inst.repo);
    let out_dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["run", "--start", "candidates", "--instance"])
        .arg(&ex)
        .arg("--out")
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("model:"), "no model: {}", text(&out));
    assert_eq!(before, fingerprint(&inst.repo));
    let r = read_json(&out_dir.path().join("report.json"));
    let s = read_json(&out_dir.path().join("session.json"));
    assert_eq!(r["llm_calls"]["total"], 0);
    let mut names: Vec<String> = std::fs::read_dir(ex.join("candidates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".py"))
        .collect();
    names.sort();
    let population: Vec<String> = (1..=8)
        .map(|i| {
            s["tests"][format!("t{i}")]["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(population, names);
    let gens = r["generations"].as_array().unwrap();
    for w in gens.windows(2) {
        assert_eq!(w[0]["selected"], w[1]["tests"], "no crossover");
    }
    assert_eq!(
        s["inputs"]["focal"].as_array().unwrap().len(),
        inst.focal.len()
    );
    // `evootter mutants --instance` lists the pool this run drew from (its focal functions,
    // its seed), when asked for as many.
    let pool: Vec<&str> = s["pool"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let listed = bin()
        .args(["mutants", "--json", "--instance"])
        .arg(&ex)
        .args(["--count", &pool.len().to_string()])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", text(&listed));
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, pool, "mutants --instance lists the run's pool");

    // The rescues are judged by the repository's own tests: its wrong-expectation test
    // (`test_page_end_index_orphans.py`, failing before and after the fix) out-kills the
    // fail-to-pass ones, but only a mutant that breaks some of the repository's tests
    // rescues it, so it gains nothing by it, and selection keeps a fail-to-pass test.
    let witnesses: Vec<&str> = s["witnesses"]["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["rel_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        witnesses,
        ["tests/test_paginator.py", "tests/test_windows.py"]
    );
    let final_name = |r: &serde_json::Value| {
        std::path::Path::new(r["final_test"].as_str().unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    assert_eq!(r["f2p"]["f2p"], true, "{}", final_name(&r));
    let verdicts = s["witnesses"]["verdicts"].as_object().unwrap();
    let (rescuer, v) = verdicts
        .iter()
        .max_by_key(|(_, v)| v["kept"].as_u64())
        .unwrap();
    assert!(v["kept"].as_u64() < v["of"].as_u64(), "{v}");
    // The Pair of a rescued cell says what the rescuer breaks; the cut says what it weighed.
    let rescued = s["generations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["scores"].as_object().unwrap())
        .find(|(_, sc)| {
            sc["rescues"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m == rescuer)
        })
        .map(|(t, _)| t.clone())
        .unwrap();
    let shown = bin()
        .args(["show"])
        .arg(out_dir.path())
        .args(["--test", &rescued, "--mutant", rescuer])
        .output()
        .unwrap();
    let shown = text(&shown);
    // Its witness runs stop at the first test it breaks (it is no plausible fix whatever the
    // rest do), so the count is a bound and the Pair says so.
    let judged = format!(
        "the repository's tests on this mutant: it breaks some of the {} that pass on c_old \
         (no plausible fix; a run stops at the first it breaks)\n  tests/",
        v["of"]
    );
    assert!(shown.contains(&judged), "{shown}");
    let shown = bin().args(["show"]).arg(out_dir.path()).output().unwrap();
    assert!(
        text(&shown).contains("rescues judged by the repository's tests: "),
        "{}",
        text(&shown)
    );

    // Without them, the kills that change what fails still tell the focused test from the
    // wrong one (its kills only change the value its assertion prints); the previous rule,
    // every kill alike, picks the wrong test (the same executions reused).
    let without = |flags: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let out = bin()
            .args(["run", "--start", "candidates", "--no-witnesses"])
            .args(flags)
            .arg("--instance")
            .arg(&ex)
            .arg("--out")
            .arg(dir.path())
            .arg("--reuse-executions")
            .arg(out_dir.path().join("session.json"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        read_json(&dir.path().join("report.json"))
    };
    let r = without(&[]);
    assert_eq!(r["f2p"]["f2p"], true, "{}", final_name(&r));
    let r = without(&["--fitness", "brt-kills"]);
    assert_eq!(final_name(&r), "test_page_end_index_orphans.py");
    assert_eq!(r["f2p"]["f2p"], false);
}

/// The README's demo: the full workflow on the envconf example, offline, with the model's
/// replies replayed from the instance's script (and labelled as such).
#[test]
fn readme_demo_runs_the_full_workflow_offline() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(root())
        .args(["run", "--instance", "examples/envconf_errors", "--out"])
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("scripted replies"),
        "labelled as scripted: {shown}"
    );
    assert!(
        shown.contains("[model] localize_files: scripted reply"),
        "{shown}"
    );
    assert!(shown.contains("focal functions: envconf/settings.py::Settings._coerce"));
    let r = read_json(&out_dir.path().join("report.json"));
    assert_eq!(r["llm_calls"]["by_step"]["generate"], 1);
    assert_eq!(r["llm_calls"]["by_step"]["crossover"], 2);
    // No selection call: fitness decides every cut (generation 1's tests kill the same
    // mutants, and the issue's values tell them apart).
    assert!(r["llm_calls"]["by_step"].get("select").is_none(), "{r:#}");
    for g in r["generations"].as_array().unwrap() {
        assert_eq!(g["fitness_decided"], true, "{g:#}");
    }
    assert_eq!(r["cost_usd"], 0.0, "scripted replies cost nothing");
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    assert!(r["notes"].as_array().unwrap().is_empty(), "{r:#}");
    let report = std::fs::read_to_string(out_dir.path().join("session.json")).unwrap();
    assert!(
        report.contains("\"model\": \"scripted\""),
        "recorded as scripted"
    );

    // What was sent and received can be read back from the session.
    let show = |args: &[&str]| {
        let o = bin()
            .arg("show")
            .arg(out_dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let calls = show(&["--calls"]);
    // A call's row: its number, its step, its model.
    let scripted_rows = calls
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() > 2 && w[0].parse::<usize>().is_ok() && w[2] == "scripted")
        .count();
    assert_eq!(scripted_rows, 8, "{calls}");
    assert!(
        calls.contains("8 of them scripted (replies recorded in the instance, no provider called)"),
        "the zeros are explained: {calls}"
    );
    let crossover = calls
        .lines()
        .find(|l| l.contains("crossover"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_string();
    let call = show(&["--call", &crossover]);
    assert!(
        call.contains("===== system =====") && call.contains("<issue>"),
        "{call}"
    );
    let s = read_json(&out_dir.path().join("session.json"));
    let recorded = s["llm_calls"][crossover.parse::<usize>().unwrap() - 1]["reply"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(call.contains(recorded.trim()), "the reply is printed whole");

    // The session shipped in sessions/demo is what this run decides: regenerate it
    // (`evootter run --instance examples/envconf_errors --out sessions/demo --force`) when the
    // engine changes a decision.
    let fresh = evootter::engine::SessionDoc::load(&out_dir.path().join("session.json")).unwrap();
    let shipped =
        evootter::engine::SessionDoc::load(&root().join("sessions/demo/session.json")).unwrap();
    let decisions = |d: &evootter::engine::SessionDoc| {
        let gens: Vec<_> = d
            .generations
            .iter()
            .map(|g| {
                (
                    g.tests.clone(),
                    g.mutants.clone(),
                    g.selected.clone(),
                    g.selected_by,
                )
            })
            .collect();
        let location = d.base_brt.as_ref().and_then(|b| b.test_location.clone());
        (
            gens,
            d.final_test.clone(),
            location,
            d.config.reach,
            d.config.operators,
        )
    };
    assert_eq!(
        decisions(&fresh),
        decisions(&shipped),
        "sessions/demo no longer matches a fresh scripted demo; regenerate it with `evootter \
         run --instance examples/envconf_errors --out sessions/demo --force`"
    );
}

/// What the shipped sessions and examples hold is shared with everyone who clones the
/// repository: nothing in them may look like a provider's key or a token.
#[test]
fn no_shipped_file_holds_anything_like_a_key() {
    let pattern = regex::Regex::new(concat!(
        r"sk-ant-[A-Za-z0-9_-]{16,}|sk-(?:proj-)?[A-Za-z0-9]{32,}|gh[pousr]_[A-Za-z0-9]{30,}",
        r"|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}",
        r"|AIza[0-9A-Za-z_-]{35}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    ))
    .unwrap();
    let mut checked = 0;
    let mut stack = vec![root().join("sessions"), root().join("examples")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(body) = std::fs::read_to_string(&path) {
                checked += 1;
                if let Some(m) = pattern.find(&body) {
                    panic!(
                        "{} holds what looks like a key: {}",
                        path.display(),
                        m.as_str()
                    );
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} files checked");
    assert!(pattern.is_match("ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrst"));
}

/// The paper's LLM selector as a method: after BaseBRT writes the candidates, one call picks
/// one of them from their sources and c_old logs; no mutant is made or run.
#[test]
fn llm_select_picks_one_candidate_in_one_call_and_runs_no_mutant() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(root())
        .args([
            "run",
            "--instance",
            "examples/envconf_errors",
            "--start",
            "basebrt",
        ])
        .args(["--method", "llm-select", "--out"])
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let r = read_json(&out_dir.path().join("report.json"));
    assert_eq!(r["method"], "llm-select");
    assert_eq!(r["llm_calls"]["by_step"]["select"], 1, "{}", r["llm_calls"]);
    assert!(r["llm_calls"]["by_step"]["crossover"].is_null());
    assert_eq!(r["mutants_total"], 0);
    let gens = r["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 1);
    assert_eq!(gens[0]["mutants"].as_array().unwrap().len(), 0);
    assert_eq!(gens[0]["selected_by"], "llm");
    assert_eq!(gens[0]["selected"].as_array().unwrap().len(), 1);
    assert!(r["final_test"].is_string());
}
