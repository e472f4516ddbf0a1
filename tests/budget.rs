//! Budgets: a run stops before the model call that would take its spending past
//! `--budget-usd`, its session saved and nothing sent that the budget did not allow; the
//! limit is kept on resume, and `run --resume --budget-usd Y` goes on without paying for any
//! call twice.

use crate::common::*;
use crate::mock_http::scripted::{Wire, serve_script};
use crate::workflow_http::{KEY, http_run};

#[test]
fn a_run_stops_before_its_budget_and_resumes_with_a_larger_one() {
    let ex = example(EXAMPLES[0]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(serve_script(&ex.join("llm_script.json"), Wire::Anthropic));
    let tmp = tempfile::tempdir().unwrap();
    let (out, home) = (tmp.path().join("out"), tmp.path().join("home"));
    let o = http_run(&ex, Wire::Anthropic, &server, &out, &home)
        .args(["--budget-usd", "0.05"])
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    let t = text(&o);
    // The mock counts a token per 4 bytes: the five localization and context calls cost
    // about $0.027 (each estimated with a reply of 1,024 tokens or the step's longest), and
    // generating the population (its prompt and 8 tests of 500 tokens) would cross $0.05.
    assert!(
        t.contains("budget reached: the next model call (generate, about $0.06")
            && t.contains("up to 4000 out) would take the run's spending from $0.02")
            && t.contains("past --budget-usd 0.05; the call was not made")
            && t.contains("evootter run --resume")
            && t.contains("--budget-usd Y"),
        "{t}"
    );
    let calls = |out: &std::path::Path| {
        read_json(&out.join("session.json"))["llm_calls"]
            .as_array()
            .unwrap()
            .clone()
    };
    let made = calls(&out);
    let spent: f64 = made.iter().map(|c| c["cost_usd"].as_f64().unwrap()).sum();
    assert_eq!(made.len(), 5, "{t}");
    assert!(spent > 0.02 && spent <= 0.05, "{spent}");
    assert_eq!(server.count(), 5, "the refused call was never sent");

    let resume = |extra: &[&str]| {
        bin()
            .env("ANTHROPIC_API_KEY", KEY)
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .args(["run", "--resume"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    // The limit is the session's: resuming without a new one stops at the same call.
    let o = resume(&[]);
    assert!(!o.status.success());
    assert!(text(&o).contains("(generate, about $"), "{}", text(&o));
    assert_eq!(server.count(), 5);

    let o = resume(&["--budget-usd", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let all = calls(&out);
    assert_eq!(all.len(), 9);
    assert_eq!(server.count(), 9, "no call was made twice");
    assert_eq!(
        all[..5],
        made[..],
        "the calls before the stop are kept as they were"
    );
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    assert_eq!(
        r["budget_usd"], 1.0,
        "the report says what was allowed beside what was spent"
    );
    let s = read_json(&out.join("session.json"));
    assert_eq!(s["config"]["budget_usd"], 1.0);
    let show = bin().args(["show", "--calls"]).arg(&out).output().unwrap();
    assert!(
        text(&show).contains("the run's budget: $1.00 (--budget-usd)"),
        "{}",
        text(&show)
    );
    assert!(
        s["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "resumed with --budget-usd 1"),
        "{:#}",
        s["notes"]
    );
}

#[test]
fn a_budget_is_a_positive_amount_and_a_batch_says_whose() {
    let o = bin()
        .args(["run", "--instance"])
        .arg(example(EXAMPLES[0]))
        .args(["--budget-usd", "0"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("pass a positive number of dollars"),
        "{}",
        text(&o)
    );
    let o = bin()
        .args([
            "bench",
            "--instances",
            "x.jsonl",
            "--repos",
            ".",
            "--out",
            "o",
        ])
        .args(["--budget-usd", "1"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--budget-usd-per-instance X (each instance) or --budget-usd-total"),
        "{}",
        text(&o)
    );
}
