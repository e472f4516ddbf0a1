//! From nothing but a repository and an issue: the scripted model localizes, contextualizes
//! and writes the initial population (single prompting); the rest of the run is real.

use crate::common;
use common::*;

fn fenced(lang: &str, body: &str) -> String {
    format!("Here is my answer.\n\n```{lang}\n{body}\n```\n")
}

#[test]
fn run_from_repo_and_issue_only() {
    let tiny = Tiny::new(&[]);
    std::fs::write(
        tiny.repo.join("calc/util.py"),
        "def double(x):\n    return 2 * x\n",
    )
    .unwrap();
    let tests = [
        (
            "test_clamp_upper.py",
            "from calc.ops import clamp\n\n\ndef test_upper_bound():\n    assert clamp(15, 0, 10) == 10\n",
        ),
        (
            "test_clamp_inside.py",
            "from calc.ops import clamp\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
        ),
        (
            "test_clamp_wrong.py",
            "from calc.ops import clamp\n\n\ndef test_wrong():\n    \"\"\"Values above the range map to one past the upper bound.\"\"\"\n    assert clamp(15, 0, 10) == 11\n",
        ),
        (
            "test_clamp_import.py",
            "from calc.clamping import clamp\n\n\ndef test_x():\n    assert clamp(15, 0, 10) == 10\n",
        ),
    ];
    let generated: String = tests
        .iter()
        .map(|(n, src)| format!("### {n}\n```python\n{src}```\n\n"))
        .collect();
    let script = serde_json::json!([
        {"step": "localize_files", "match": "calc/util.py", "reply": fenced("json", "[\"calc/ops.py\", \"calc/missing.py\"]")},
        {"step": "localize_functions", "match": "clamp", "reply": fenced("text", "calc/ops.py::clamp\ncalc/ops.py::nope")},
        {"step": "localize_refine", "match": "return hi - 1", "reply": fenced("text", "calc/ops.py::clamp")},
        {"step": "context_imports", "reply": fenced("python", "from calc.ops import clamp")},
        {"step": "context_location", "reply": "tests/test_clamp_issue.py"},
        {"step": "generate", "match": "from calc.ops import clamp", "reply": generated},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let patch = tiny.golden_patch();
    let before = fingerprint(&tiny.repo);
    let out = tiny.out("out");
    let o = tiny
        .command("out")
        .args(["--tests", "4", "--mutants", "6", "--selection", "otter"])
        .args(["--crossover", "none"])
        .arg("--llm")
        .arg(format!("scripted:{}", script_path.display()))
        .arg("--golden-patch")
        .arg(&patch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(before, fingerprint(&tiny.repo));
    let r = read_json(&out.join("report.json"));
    for step in BASEBRT_STEPS {
        assert_eq!(
            r["llm_calls"]["by_step"][step], 1,
            "{step}: {:#}",
            r["llm_calls"]
        );
    }
    let s = read_json(&out.join("session.json"));
    assert_eq!(s["base_brt"]["files"], serde_json::json!(["calc/ops.py"]));
    assert_eq!(s["inputs"]["focal"][0]["qualname"], "clamp");
    assert_eq!(s["base_brt"]["test_location"], "tests/test_clamp_issue.py");
    assert_eq!(s["tests"]["t1"]["rel_path"], "tests/test_clamp_upper.py");
    assert_eq!(s["tests"]["t1"]["origin"]["kind"], "generated");
    assert_eq!(r["generations"][0]["tests"].as_array().unwrap().len(), 4);
    assert_eq!(r["f2p_in_initial_population"], 1);
    // Otter: all assertion failures, so the shorter one, the F2P test, wins.
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    assert_eq!(r["cost_usd"], 0.0, "scripted replies cost nothing");
}

#[test]
fn a_reply_naming_no_real_file_stops_with_the_step_and_resumes() {
    let tiny = Tiny::new(&[]);
    let script_path = tiny.out("script.json");
    std::fs::write(
        &script_path,
        serde_json::json!([{"step": "localize_files", "reply": "I cannot help with that."}])
            .to_string(),
    )
    .unwrap();
    let out = tiny.out("out");
    let o = tiny
        .command("out")
        .args(["--tests", "2"])
        .arg("--llm")
        .arg(format!("scripted:{}", script_path.display()))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let msg = text(&o);
    assert!(
        msg.contains("localize_files") && msg.contains("--resume"),
        "{msg}"
    );
    let s = read_json(&out.join("session.json"));
    assert_eq!(s["phase"]["step"], "localize");
    assert_eq!(
        s["llm_calls"].as_array().unwrap().len(),
        1,
        "the call is recorded"
    );
}

#[test]
fn heterogeneous_generate_prompting_morphs_the_issue_and_masks_context() {
    let tiny = Tiny::new(&[]);
    let test = |name: &str| {
        format!(
            "### {name}\n```python\nfrom calc.ops import clamp\n\n\ndef test_{}():\n    assert clamp(15, 0, 10) == 10\n```\n",
            name.trim_end_matches(".py")
        )
    };
    let script = serde_json::json!([
        {"step": "context_imports", "reply": fenced("python", "from calc.ops import clamp")},
        {"step": "context_location", "reply": "tests/test_clamp_issue.py"},
        {"step": "morph_issue", "match": "standard", "reply": "STANDARD MORPH: clamp returns hi - 1 above the range."},
        {"step": "morph_issue", "match": "simple", "reply": "SIMPLE MORPH: clamp(15, 0, 10) gives 9, not 10."},
        {"step": "generate", "reply": test("test_one.py")},
        {"step": "generate", "match": "STANDARD MORPH", "reply": test("test_two.py")},
        {"step": "generate", "match": "SIMPLE MORPH", "reply": test("test_three.py")},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let out = tiny.out("out");
    let o = tiny
        .command("out")
        .args(["--tests", "3", "--mutants", "4", "--selection", "otter"])
        .args([
            "--prompting",
            "heterogeneous-generate",
            "--focal",
            "calc/ops.py::clamp",
            "--crossover",
            "none",
        ])
        .arg("--llm")
        .arg(format!("scripted:{}", script_path.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["llm_calls"]["by_step"]["morph_issue"], 2);
    assert_eq!(r["llm_calls"]["by_step"]["generate"], 3);
    let s = read_json(&out.join("session.json"));
    assert_eq!(
        s["tests"]["t2"]["origin"]["prompting"],
        "heterogeneous-generate, variant 2 (standard, imports masked)"
    );
    let prompts: Vec<String> = s["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["step"] == "generate")
        .map(|c| {
            c["request"]["messages"][0]["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        prompts[0].contains("from calc.ops import clamp"),
        "variant 1 sees the imports"
    );
    assert!(
        !prompts[1].contains("from calc.ops import clamp"),
        "variant 2 has them masked"
    );
    assert!(prompts[1].contains("STANDARD MORPH"));
}

/// Heterogeneous prompting as published: each variant runs BaseBRT again with its morphed
/// issue (localization and contextualization), and the session keeps what each found.
#[test]
fn heterogeneous_prompting_runs_basebrt_again_for_each_variant() {
    let tiny = Tiny::new(&[]);
    std::fs::write(
        tiny.repo.join("calc/util.py"),
        "def double(x):\n    return 2 * x\n",
    )
    .unwrap();
    let test = |name: &str| {
        format!(
            "### {name}\n```python\nfrom calc.ops import clamp\n\n\ndef test_{}():\n    assert clamp(15, 0, 10) == 10\n```\n",
            name.trim_end_matches(".py")
        )
    };
    let localize = |m: &str, file: &str, f: &str| {
        serde_json::json!([
            {"step": "localize_files", "match": m, "reply": fenced("json", &format!("[\"{file}\"]"))},
            {"step": "localize_functions", "match": m, "reply": fenced("text", f)},
            {"step": "localize_refine", "match": m, "reply": fenced("text", f)},
            {"step": "context_imports", "match": m, "reply": fenced("python", &format!("from calc.{} import {}", &file[5..file.len() - 3], f.rsplit("::").next().unwrap()))},
            {"step": "context_location", "match": m, "reply": "tests/test_clamp_issue.py"},
        ])
    };
    let mut script = vec![];
    // The original issue (the run's own localization), then the two morphs' own.
    for (m, file, f) in [
        (
            "returns 9, expected 10",
            "calc/ops.py",
            "calc/ops.py::clamp",
        ),
        ("STANDARD MORPH", "calc/util.py", "calc/util.py::double"),
        ("SIMPLE MORPH", "calc/ops.py", "calc/ops.py::clamp"),
    ] {
        script.extend(localize(m, file, f).as_array().unwrap().clone());
    }
    script.extend(
        serde_json::json!([
            {"step": "morph_issue", "match": "standard", "reply": "STANDARD MORPH: clamp returns hi - 1 above the range."},
            {"step": "morph_issue", "match": "simple", "reply": "SIMPLE MORPH: clamp(15, 0, 10) gives 9, not 10."},
            {"step": "generate", "match": "returns 9, expected 10", "reply": test("test_one.py")},
            {"step": "generate", "match": "STANDARD MORPH", "reply": test("test_two.py")},
            {"step": "generate", "match": "SIMPLE MORPH", "reply": test("test_three.py")},
        ])
        .as_array()
        .unwrap()
        .clone(),
    );
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, serde_json::Value::Array(script).to_string()).unwrap();
    let out = tiny.out("out");
    let o = tiny
        .command("out")
        .args(["--tests", "3", "--mutants", "4", "--selection", "otter"])
        .args(["--prompting", "heterogeneous", "--crossover", "none"])
        .arg("--llm")
        .arg(format!("scripted:{}", script_path.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&out.join("report.json"));
    // The run's localization and contextualization, and each morph's again.
    for step in [
        "localize_files",
        "localize_functions",
        "localize_refine",
        "context_imports",
        "context_location",
        "generate",
    ] {
        assert_eq!(
            r["llm_calls"]["by_step"][step], 3,
            "{step}: {}",
            r["llm_calls"]
        );
    }
    let s = read_json(&out.join("session.json"));
    let v = s["base_brt"]["variants"].as_array().unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0]["focal"], serde_json::json!(["calc/ops.py::clamp"]));
    assert_eq!(v[1]["morph"], "standard");
    assert_eq!(v[1]["focal"], serde_json::json!(["calc/util.py::double"]));
    assert_eq!(
        v[1]["imports"],
        serde_json::json!(["from calc.util import double"])
    );
    assert_eq!(v[1]["test"], "t2");
    // The run's own localization still decides the mutants.
    assert_eq!(s["inputs"]["focal"][0]["qualname"], "clamp");
    assert_eq!(
        s["tests"]["t2"]["origin"]["prompting"],
        "heterogeneous, variant 2 (standard, imports masked)"
    );
    // Variant 2 writes from its own localization: double's body, its imports masked.
    let prompts: Vec<String> = s["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["step"] == "generate")
        .map(|c| {
            c["request"]["messages"][0]["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(prompts[1].contains("return 2 * x"), "{}", prompts[1]);
    assert!(!prompts[1].contains("from calc.util import double"));
    assert!(prompts[2].contains("from calc.ops import clamp"));
}
