//! A run whose crossover goes over real HTTP to a local server speaking the Anthropic
//! Messages wire format: an overloaded (529) answer is retried, the key never reaches the
//! session or report, and a repeated run is answered from the response cache.

use crate::common;
use crate::mock_http;
use common::*;
use mock_http::scripted::{Wire, serve_script};
use mock_http::{MockServer, json};

const SECRET: &str = "sk-ant-test-DO-NOT-STORE";

fn anthropic_text(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1200, "output_tokens": 300}
    })
}

#[test]
fn crossover_over_http_with_retry_and_cache() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start(vec![
        json(529, serde_json::json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        json(200, two_offspring()),
    ]));
    let tiny = Tiny::four();
    let cache = tiny.out("cache");
    // The user's price table overrides the built-in one.
    let config = tiny.out("config");
    std::fs::create_dir_all(config.join("evootter")).unwrap();
    std::fs::write(
        config.join("evootter/prices.toml"),
        "[models.\"claude-sonnet-4-5\"]\ninput = 1.0\noutput = 2.0\n",
    )
    .unwrap();
    let run = |out: &str| {
        tiny.command(out)
            .env("ANTHROPIC_API_KEY", SECRET)
            .env("XDG_CACHE_HOME", &cache)
            .env("XDG_CONFIG_HOME", &config)
            .args(["--reasoning", "low"])
            .args(["--focal", "calc/ops.py::clamp", "--mutants", "4"])
            .args([
                "--selection",
                "random",
                "--crossover",
                "llm",
                "--llm",
                "anthropic",
            ])
            .args(["--base-url", &server.base_url])
            .arg("--initial-tests")
            .arg(&tiny.cands)
            .output()
            .unwrap()
    };
    let o = run("first");
    assert!(o.status.success(), "{}", text(&o));
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "the 529 was retried once");
    let req = &seen[1];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(
        req.headers.get("x-api-key").map(String::as_str),
        Some(SECRET)
    );
    let body = req.json();
    // The prompt as text blocks, the issue first, the shared prefix's end the cache breakpoint.
    let blocks = body["messages"][0]["content"].as_array().unwrap();
    assert!(blocks[0]["text"].as_str().unwrap().contains("<issue>"));
    assert_eq!(
        blocks
            .iter()
            .filter(|b| b["cache_control"] == serde_json::json!({"type": "ephemeral"}))
            .count(),
        1,
        "{body}"
    );
    assert!(body.get("temperature").is_none());
    assert_eq!(body["thinking"]["budget_tokens"], 2048, "--reasoning low");

    let session = std::fs::read_to_string(tiny.out("first").join("session.json")).unwrap();
    let report_text = std::fs::read_to_string(tiny.out("first").join("report.json")).unwrap();
    assert!(
        !session.contains(SECRET) && !report_text.contains(SECRET),
        "the key is never stored"
    );
    assert!(!text(&o).contains(SECRET));
    let r: serde_json::Value = serde_json::from_str(&report_text).unwrap();
    assert_eq!(r["llm_calls"]["by_step"]["crossover"], 1);
    assert_eq!(r["tokens"]["input"], 1200);
    // 1,200 input tokens at $1/M plus 300 output tokens at $2/M, from the user's table.
    assert!(
        (r["cost_usd"].as_f64().unwrap() - 0.0018).abs() < 1e-9,
        "{r:#}"
    );
    assert_eq!(
        r["generations"][1]["tests"],
        serde_json::json!(["t5", "t6"])
    );

    // Same inputs again: the reply comes from the cache, no HTTP call, no cost.
    let o = run("second");
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.count(), 2, "no new request");
    let r = read_json(&tiny.out("second").join("report.json"));
    assert_eq!(r["llm_calls"]["cached"], 1);
    assert_eq!(r["cost_usd"], 0.0);
}

fn two_offspring() -> serde_json::Value {
    let child =
        "from calc.ops import clamp\n\n\ndef test_child():\n    assert clamp(15, 0, 10) == 10\n";
    anthropic_text(&format!(
        "### test_child_1.py\n```python\n{child}```\n### test_child_2.py\n```python\n# variant\n{child}```\n"
    ))
}

/// `run --resume SESSION --base-url URL` with the key set, against a server that answers the
/// crossover. The runtime is returned because it drives the server.
fn resume_at_a_working_endpoint(
    session: &std::path::Path,
    cache: &std::path::Path,
) -> (tokio::runtime::Runtime, MockServer, std::process::Output) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start(vec![json(200, two_offspring())]));
    let o = bin()
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("XDG_CACHE_HOME", cache)
        .args(["run", "--resume"])
        .arg(session)
        .args(["--base-url", &server.base_url])
        .output()
        .unwrap();
    (rt, server, o)
}

/// A missing key is refused before anything is written: the same command, with the key,
/// then runs (nothing in OUT is in its way).
#[test]
fn missing_key_names_the_variable_and_the_same_command_then_runs() {
    let tiny = Tiny::four();
    let cache = tiny.out("cache");
    let o = tiny
        .command("out")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env("XDG_CACHE_HOME", &cache)
        .args(["--focal", "calc/ops.py::clamp", "--llm", "anthropic"])
        .args(["--selection", "random"])
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let msg = text(&o);
    assert!(msg.contains("ANTHROPIC_API_KEY"), "{msg}");
    assert!(!tiny.out("out").exists(), "nothing is written: {msg}");

    // The key is set now; the same command runs, at a local endpoint.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start(vec![json(200, two_offspring())]));
    let o = tiny
        .command("out")
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("XDG_CACHE_HOME", &cache)
        .args(["--focal", "calc/ops.py::clamp", "--llm", "anthropic"])
        .args(["--base-url", &server.base_url])
        .args(["--selection", "random"])
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.count(), 1, "one crossover");
    let r = read_json(&tiny.out("out").join("report.json"));
    assert_eq!(r["llm_calls"]["by_step"]["crossover"], 1);
}

#[test]
fn unreachable_endpoint_stops_with_the_step_and_resume_uses_a_new_url() {
    let tiny = Tiny::four();
    let cache = tiny.out("cache");
    // A port nobody listens on: the connection is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let o = tiny
        .command("out")
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("XDG_CACHE_HOME", &cache)
        .args(["--focal", "calc/ops.py::clamp", "--llm", "anthropic"])
        .args([
            "--base-url",
            &dead,
            "--llm-retries",
            "1",
            "--selection",
            "random",
        ])
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let msg = text(&o);
    assert!(
        msg.contains("crossover") && msg.contains(&dead) && msg.contains("--resume"),
        "{msg}"
    );
    assert!(!msg.contains(SECRET));
    let session = tiny.out("out").join("session.json");
    let s = read_json(&session);
    assert_eq!(s["phase"]["step"], "crossover");
    assert!(
        !s["executions"].as_object().unwrap().is_empty(),
        "generation 0 ran before the model was needed"
    );

    let (_rt, server, o) = resume_at_a_working_endpoint(&session, &cache);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.count(), 1);
    let after = read_json(&session);
    // Generation 0's executions were kept, not rerun.
    for (key, e) in s["executions"].as_object().unwrap() {
        assert_eq!(after["executions"][key]["seq"], e["seq"], "{key}");
    }
    let s = after;
    assert_eq!(s["config"]["llm_base_url"], server.base_url.as_str());
}

/// Retries against an endpoint nobody listens on are announced as they happen, one line
/// each naming the endpoint, and the final error says how long it tried and what to do.
/// `--llm-retries 2` with the default 1 s base delay: the run waits 1.5 to 3 s in all.
#[test]
fn retries_are_announced_as_they_happen() {
    let tiny = Tiny::new(&[]);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host = closed.local_addr().unwrap().to_string();
    drop(closed);
    let events = tiny.out("events.jsonl");
    // No initial tests: the first step (localize) needs the model before any execution.
    let o = tiny
        .command("out")
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("XDG_CACHE_HOME", tiny.out("cache"))
        .args(["--llm", "anthropic", "--llm-retries", "2"])
        .args(["--base-url", &format!("http://{host}")])
        .arg("--events")
        .arg(&events)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    let retries: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("[model] anthropic at"))
        .collect();
    assert_eq!(retries.len(), 2, "{}", text(&o));
    for (n, line) in retries.iter().enumerate() {
        let expected = format!(
            "   [model] anthropic at {host}: connection refused; retry {} of 2 in ",
            n + 1
        );
        assert!(line.starts_with(&expected), "{line:?}\n{}", text(&o));
        assert!(line.ends_with(" s"), "{line:?}");
    }
    assert!(
        stderr.contains("failed after 3 attempts over")
            && stderr.contains("--base-url")
            && stderr.contains("--resume"),
        "{}",
        text(&o)
    );
    let logged = std::fs::read_to_string(&events).unwrap();
    let retrying: Vec<serde_json::Value> = logged
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &serde_json::Value| e["event"] == "llm_retrying")
        .collect();
    assert_eq!(retrying.len(), 2, "{logged}");
    assert_eq!(retrying[1]["attempt"], 2);
    assert_eq!(retrying[1]["attempts"], 3);
    assert_eq!(retrying[1]["endpoint"], host.as_str());
    let session = std::fs::read_to_string(tiny.out("out").join("session.json")).unwrap();
    for (what, t) in [
        ("output", text(&o)),
        ("events", logged),
        ("session", session),
    ] {
        assert!(!t.contains(SECRET), "the key is in the {what}");
    }
}

/// A reply with nothing usable stops the run naming the step; it is not kept in the response
/// cache, so the resumed run asks the model again (and here gets a usable answer).
#[test]
fn an_unusable_reply_is_asked_again_on_resume() {
    let tiny = Tiny::new(&[]);
    let fenced = |lang: &str, body: &str| format!("```{lang}\n{body}\n```\n");
    let test =
        "from calc.ops import clamp\n\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n";
    let script = serde_json::json!([
        {"step": "localize_files", "reply": "I could not find anything relevant."},
        {"step": "localize_files", "reply": fenced("json", "[\"calc/ops.py\"]")},
        {"step": "localize_functions", "reply": fenced("text", "calc/ops.py::clamp")},
        {"step": "localize_refine", "reply": fenced("text", "calc/ops.py::clamp")},
        {"step": "context_imports", "reply": fenced("python", "from calc.ops import clamp")},
        {"step": "context_location", "reply": "tests/test_clamp_issue.py"},
        {"step": "generate", "reply": format!("### test_a.py\n```python\n{test}```\n### test_b.py\n```python\n# b\n{test}```\n")},
    ]);
    let script_path = tiny.out("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(serve_script(&script_path, Wire::Anthropic));
    let cache = tiny.out("cache");
    let o = tiny
        .command("out")
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("XDG_CACHE_HOME", &cache)
        .args(["--llm", "anthropic", "--base-url", &server.base_url])
        .args([
            "--tests",
            "2",
            "--mutants",
            "4",
            "--crossover",
            "none",
            "--selection",
            "otter",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let msg = text(&o);
    assert!(
        msg.contains("localize_files") && msg.contains("--resume"),
        "{msg}"
    );
    let session = tiny.out("out").join("session.json");
    let o = bin()
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("XDG_CACHE_HOME", &cache)
        .args(["run", "--resume"])
        .arg(&session)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        server.count(),
        7,
        "the unusable reply was not replayed from the cache"
    );
    let s = read_json(&session);
    assert_eq!(s["inputs"]["focal"][0]["qualname"], "clamp");
    let steps: Vec<&str> = s["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        &steps[..2],
        ["localize_files", "localize_files"],
        "both calls recorded"
    );
}
