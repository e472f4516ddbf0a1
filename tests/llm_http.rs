//! A run whose crossover goes over real HTTP to a local server speaking the Anthropic
//! Messages wire format: an overloaded (529) answer is retried, the key never reaches the
//! session or report, and a repeated run is answered from the response cache.

mod common;
mod mock_http;
use common::*;
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
    let child = "from calc.ops import clamp\n\n\ndef test_upper_inclusive():\n    assert clamp(15, 0, 10) == 10\n";
    let reply = format!(
        "### test_off_1.py\n```python\n{child}```\n### test_off_2.py\n```python\n# variant\n{child}```\n"
    );
    let server = rt.block_on(MockServer::start(vec![
        json(529, serde_json::json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
        json(200, anthropic_text(&reply)),
    ]));
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
            "from calc.ops import clamp\n\ndef test_wrong():\n    assert clamp(15, 0, 10) == 11\n",
        ),
        ("test_d.py", "def test_nothing():\n    assert 1\n"),
    ]);
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
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("<issue>")
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

#[test]
fn missing_key_names_the_variable() {
    let tiny = Tiny::new(&[("test_a.py", "def test_a():\n    assert 0\n")]);
    let o = tiny
        .command("out")
        .env_remove("ANTHROPIC_API_KEY")
        .args(["--focal", "calc/ops.py::clamp", "--llm", "anthropic"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("ANTHROPIC_API_KEY"), "{}", text(&o));
}
