//! e-Otter (`--method eotter`), the paper's repair baseline, end to end: BaseBRT writes the
//! test from the issue, it runs on c_old for real, and a critic behind a local server
//! speaking the Anthropic or OpenAI wire format judges it and repairs it, round by round.
//! The critic's replies are the bundled envconf_errors script's (which repairs twice, then
//! accepts) or ones written here for the other endings.

use crate::common::*;
use crate::mock_http::MockServer;
use crate::mock_http::scripted::{Wire, serve_script, serve_script_stalling};
use crate::workflow_http::http_run;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const EX: &str = "examples/envconf_errors";
/// A line of each test the bundled script's critic judges: the one BaseBRT wrote, its first
/// repair (which names the setting with its prefix) and its second.
const FIRST: &str = "def test_settings_from_env_file";
const SECOND: &str = "settings.get_int(\"APP_PORT\"";
const THIRD: &str = "match=\"APP_PORT\") as excinfo";

/// The example's script with its `repair` replies replaced by `repairs` (match, reply).
fn script_with(dir: &Path, repairs: &[(&str, &str)]) -> PathBuf {
    let ex = example("envconf_errors");
    let mut s = read_json(&ex.join("llm_script.json"));
    let entries = s["entries"].as_array_mut().unwrap();
    entries.retain(|e| e["step"] != "repair");
    for (m, reply) in repairs {
        entries.push(serde_json::json!({"step": "repair", "match": m, "reply": reply}));
    }
    let p = dir.join("script.json");
    std::fs::write(&p, serde_json::to_string(&s).unwrap()).unwrap();
    p
}

/// The bundled script's repairs, in order.
fn bundled_repairs() -> Vec<String> {
    let s = read_json(&example("envconf_errors").join("llm_script.json"));
    s["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["step"] == "repair")
        .map(|e| e["reply"].as_str().unwrap().to_string())
        .collect()
}

/// `run --method eotter` over `wire` against `script`, with `extra` options.
fn eotter(script: &Path, wire: Wire, dir: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(serve_script(script, wire));
    let out = dir.join("out");
    let o = http_run(&root().join(EX), wire, &server, &out, dir)
        .args(["--method", "eotter"])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let session = read_json(&out.join("session.json"));
    assert_eq!(
        session["llm_calls"].as_array().unwrap().len(),
        server.count(),
        "every request is recorded once"
    );
    (read_json(&out.join("report.json")), text(&o))
}

fn repair_calls(r: &serde_json::Value) -> u64 {
    r["llm_calls"]["by_step"]["repair"].as_u64().unwrap_or(0)
}

#[test]
fn the_critic_repairs_twice_then_accepts_and_the_repair_is_f2p() {
    let tmp = tempfile::tempdir().unwrap();
    let script = root().join(EX).join("llm_script.json");
    let (r, out) = eotter(&script, Wire::Anthropic, tmp.path(), &[]);
    assert_eq!(r["method"], "eotter");
    assert_eq!(r["repair_rounds"], 10);
    assert_eq!(r["mutants_total"], 0);
    assert_eq!(repair_calls(&r), 3, "{}", r["llm_calls"]);
    let chains = r["repairs"].as_array().unwrap();
    assert_eq!(chains.len(), 1);
    let c = &chains[0];
    assert_eq!(c["end"], "accepted");
    assert_eq!(c["calls"], 3);
    let rounds = c["rounds"].as_array().unwrap();
    assert_eq!(
        rounds
            .iter()
            .map(|r| r["accepted"].as_bool().unwrap())
            .collect::<Vec<_>>(),
        [false, false, true]
    );
    // Each round judges what the one before wrote.
    assert_eq!(rounds[1]["test"], rounds[0]["repaired"]);
    assert_eq!(rounds[2]["test"], rounds[1]["repaired"]);
    assert!(
        rounds[1]["reason"]
            .as_str()
            .unwrap()
            .contains("MissingSettingError")
    );
    // The test BaseBRT wrote passes on c_old; the accepted repair reproduces the issue.
    assert_eq!(c["start_f2p"], false);
    assert_eq!(c["f2p"], true);
    assert_eq!(r["final_test_id"], c["test"]);
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    // The loop in the run's own words, round by round.
    assert!(
        out.contains("repair round 2: the critic rejects t2"),
        "{out}"
    );
    assert!(
        out.contains("repair round 3: the critic accepts t3"),
        "{out}"
    );
}

#[test]
fn a_critic_that_never_accepts_stops_at_the_rounds_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let replies = bundled_repairs();
    // The bundled rejections, and a third that would be asked for were the rounds not spent.
    let script = script_with(
        tmp.path(),
        &[
            (FIRST, &replies[0]),
            (SECOND, &replies[1]),
            (THIRD, "VERDICT: REJECT\nREASON: never asked\n"),
        ],
    );
    let (r, _) = eotter(&script, Wire::OpenAi, tmp.path(), &["--repair-rounds", "2"]);
    assert_eq!(r["repair_rounds"], 2);
    assert_eq!(repair_calls(&r), 2, "{}", r["llm_calls"]);
    let c = &r["repairs"][0];
    assert_eq!(c["end"], "exhausted");
    assert_eq!(c["rounds"].as_array().unwrap().len(), 2);
    // The last repair stands, unjudged, as the final test (and ran on c_old like any).
    assert_eq!(r["final_test_id"], c["rounds"][1]["repaired"]);
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
}

#[test]
fn critics_that_accept_at_once_leave_the_otter_rules_to_pick_among_the_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let accept = "VERDICT: ACCEPT\nREASON: looks right to me.\n";
    let script = script_with(
        tmp.path(),
        &[
            (FIRST, accept),
            ("def test_get_int_rejects_padded_values", accept),
        ],
    );
    let (r, _) = eotter(&script, Wire::Anthropic, tmp.path(), &["--tests", "2"]);
    assert_eq!(repair_calls(&r), 2, "one call per test: {}", r["llm_calls"]);
    let chains = r["repairs"].as_array().unwrap();
    assert_eq!(chains.len(), 2);
    for c in chains {
        assert_eq!(c["end"], "accepted");
        assert_eq!(c["calls"], 1);
        assert!(c["rounds"][0]["repaired"].is_null());
        assert_eq!(c["test"], c["start"]);
    }
    // No mutant: one generation of the two tests, cut to one by the rules.
    let gens = r["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 1);
    assert_eq!(gens[0]["tests"].as_array().unwrap().len(), 2);
    assert_eq!(gens[0]["mutants"].as_array().unwrap().len(), 0);
    assert_eq!(gens[0]["selected_by"], "otter");
    assert!(r["final_test_id"].is_string());
}

#[test]
fn a_run_killed_in_the_middle_of_a_repair_resumes_without_paying_a_call_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let script = root().join(EX).join("llm_script.json");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let out = tmp.path().join("out");
    // The first process: its second round's call never comes back; it is killed waiting.
    let first = rt.block_on(serve_script_stalling(
        &script,
        Wire::Anthropic,
        Some("APP_APP_PORT is not set"),
    ));
    let mut child = http_run(&root().join(EX), Wire::Anthropic, &first, &out, tmp.path())
        .args(["--method", "eotter"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let waiting = |s: &MockServer| {
        s.requests()
            .iter()
            .any(|r| r.body.contains("APP_APP_PORT is not set"))
    };
    while !waiting(&first) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "round 2 never asked"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let paid_before = first.count() - 1;
    let saved = read_json(&out.join("session.json"));
    assert_eq!(
        saved["phase"]["step"], "repair",
        "stopped in the repair step"
    );
    assert_eq!(saved["repairs"][0]["rounds"].as_array().unwrap().len(), 1);

    // The resume: only the call that never came back and the ones after it are asked.
    let second = rt.block_on(serve_script(&script, Wire::Anthropic));
    let mut c = bin();
    c.arg("run").arg("--resume").arg(out.join("session.json"));
    Wire::Anthropic.talk(
        &mut c,
        &second.base_url,
        crate::workflow_http::KEY,
        tmp.path(),
    );
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let asked: Vec<String> = second.requests().iter().map(|r| r.body.clone()).collect();
    assert_eq!(asked.len(), 2, "rounds 2 and 3 only");
    assert!(
        asked.iter().all(|b| !b.contains(FIRST)),
        "round 1 asked again"
    );
    let s = read_json(&out.join("session.json"));
    assert_eq!(s["llm_calls"].as_array().unwrap().len(), paid_before + 2);
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["repairs"][0]["end"], "accepted");
    assert_eq!(repair_calls(&r), 3);
    assert_eq!(r["f2p"]["f2p"], true);
}
