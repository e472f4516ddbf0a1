//! The LLM steps in the loop, with recorded (scripted) replies parsed by the same code as a
//! real model's: batched crossover replaces the survivors with offspring, and the model breaks
//! a fitness tie that rescues cannot.

use crate::common;
use common::*;

const CHILD: &str = "from calc.ops import clamp\n\n\ndef test_clamp_upper_bound_is_inclusive():\n    assert clamp(15, 0, 10) == 10\n";

#[test]
fn scripted_crossover_and_llm_tie_break() {
    let tiny = Tiny::new(&[
        (
            "test_a.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
        (
            "test_b.py",
            "from calc.ops import clamp\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
        ),
        (
            "test_c.py",
            "from calc.nope import clamp\n\ndef test_x():\n    assert clamp(1, 0, 2) == 1\n",
        ),
        (
            "test_d.py",
            "from calc.ops import clamp\n\ndef test_wrong():\n    assert clamp(15, 0, 10) == 11\n",
        ),
    ]);
    let crossover_reply = format!(
        "Here are the offspring.\n\n### test_child_one.py\n```python\n{CHILD}```\n\n### test_child_two.py\n```python\n# same check, second variant\n{CHILD}```\n"
    );
    // One reply serves any select call: the ids not among the candidates are dropped.
    let select_reply = "I keep these:\n```json\n[\"t6\", \"t1\", \"t4\"]\n```\n";
    let script = serde_json::json!([
        {"step": "crossover", "reply": crossover_reply, "match": "<issue>"},
        {"step": "select", "reply": select_reply},
        {"step": "select", "reply": select_reply},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let patch = tiny.golden_patch();
    let o = tiny.run(
        "out",
        &[
            "--mutants",
            "6",
            "--crossover",
            "llm",
            "--llm",
            &format!("scripted:{}", script_path.display()),
            "--golden-patch",
            patch.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("not a real model"),
        "the demo says it is scripted"
    );
    let r = read_json(&tiny.out("out").join("report.json"));
    let gens = r["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 2);
    assert_eq!(
        gens[1]["tests"],
        serde_json::json!(["t5", "t6"]),
        "offspring replace the parents"
    );
    assert_eq!(
        r["llm_calls"]["by_step"]["crossover"], 1,
        "one batched call per generation"
    );
    assert_eq!(gens[1]["selected_by"], "llm", "{:#}", gens[1]);
    assert_eq!(r["final_test_id"], "t6");
    assert_eq!(r["f2p"]["f2p"], true);
    assert_eq!(r["tests"]["t5"]["name"], "test_child_one.py");
    let s = read_json(&tiny.out("out").join("session.json"));
    assert_eq!(s["tests"]["t6"]["origin"]["kind"], "crossover");
    assert_eq!(
        s["tests"]["t6"]["origin"]["parents"],
        serde_json::json!(gens[0]["selected"])
    );
    let calls = s["llm_calls"].as_array().unwrap();
    assert!(
        calls[0]["request"]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("clamp(15, 0, 10) returns 9")
    );
    let final_src = std::fs::read_to_string(tiny.out("out").join("test_child_two.py")).unwrap();
    assert!(final_src.contains("second variant"));
}

#[test]
fn llm_strategies_without_a_model_are_refused() {
    let tiny = Tiny::new(&[("test_a.py", "def test_a():\n    assert 0\n")]);
    let o = tiny.run("out", &["--crossover", "llm"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("need a model"), "{}", text(&o));
}

/// `--selection llm`: the model makes every cut, whatever the kills say; an id it invents is
/// dropped and the rule-based order fills the gap, with a note.
#[test]
fn the_model_selects_every_generation() {
    let tiny = Tiny::four();
    // t4 kills nothing, but the model keeps it (with t3); then it names a test that does not
    // exist, so the rule-based order decides the last cut.
    let script = serde_json::json!([
        {"step": "select", "match": "<test id=\"t4\">", "reply": "```json\n[\"t4\", \"t3\"]\n```"},
        {"step": "select", "reply": "```json\n[\"t99\"]\n```"},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let o = tiny.run(
        "out",
        &[
            "--mutants",
            "6",
            "--selection",
            "llm",
            "--crossover",
            "none",
            "--llm",
            &format!("scripted:{}", script_path.display()),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&tiny.out("out").join("report.json"));
    let gens = r["generations"].as_array().unwrap();
    assert_eq!(gens[0]["selected"], serde_json::json!(["t4", "t3"]));
    assert_eq!(gens[0]["selected_by"], "llm");
    assert_eq!(gens[1]["tests"], serde_json::json!(["t4", "t3"]));
    assert_ne!(gens[1]["selected_by"], "llm", "{:#}", gens[1]);
    assert_eq!(r["llm_calls"]["by_step"]["select"], 2);
    let notes = r["notes"].to_string();
    assert!(notes.contains("select"), "{notes}");
}

/// `--method llm-select` asks for one test; a reply naming more keeps the first and says so.
#[test]
fn a_selector_naming_more_tests_than_asked_keeps_the_first_and_says_so() {
    let tiny = Tiny::four();
    let script = serde_json::json!([
        {"step": "select", "reply": "```json\n[\"t3\", \"t1\", \"t2\"]\n```\n"},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let o = tiny.run(
        "out",
        &[
            "--method",
            "llm-select",
            "--llm",
            &format!("scripted:{}", script_path.display()),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&tiny.out("out").join("report.json"));
    assert_eq!(r["final_test_id"], "t3");
    let notes = r["notes"].to_string();
    assert!(
        notes.contains(
            "the model named 3 tests where one was asked (t3, t1, t2); the first is kept"
        ),
        "{notes}"
    );
}
