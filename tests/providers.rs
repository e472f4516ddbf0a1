//! Provider tests against a local mock server that speaks real HTTP/1.1 and the real
//! Anthropic / OpenAI wire formats. No network.

use crate::mock_http;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use evootter::llm::anthropic::{Anthropic, AnthropicConfig};
use evootter::llm::cache::{CachedModel, ResponseCache};
use evootter::llm::notice::{RetryNotice, RetryObserver};
use evootter::llm::openai::{OpenAi, OpenAiConfig};
use evootter::llm::price::PriceTable;
use evootter::llm::retry::RetryPolicy;
use evootter::llm::scripted::ScriptedModel;
use evootter::llm::{CallRecord, LlmError, LlmRequest, Message, Model};
use mock_http::{Canned, MockServer, json, raw};
use serde_json::json;

const KEY: &str = "sk-test-SECRET-0123456789";

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_retry_after: Duration::from_secs(5),
        timeout: Duration::from_secs(5),
        notify: None,
    }
}

/// A retry policy whose observer keeps every notice it is told.
fn observed_retry() -> (RetryPolicy, Arc<Mutex<Vec<RetryNotice>>>) {
    let seen = Arc::new(Mutex::new(vec![]));
    let sink = Arc::clone(&seen);
    let policy = RetryPolicy {
        notify: Some(RetryObserver::new(move |n| {
            sink.lock().unwrap().push(n.clone())
        })),
        ..fast_retry()
    };
    (policy, seen)
}

fn env_with_key(var: &'static str) -> impl Fn(&str) -> Option<String> {
    move |k| (k == var).then(|| KEY.to_string())
}

fn anthropic(server: &MockServer) -> Anthropic {
    anthropic_with(server, None)
}

fn anthropic_with(server: &MockServer, thinking_budget: Option<u32>) -> Anthropic {
    let cfg = AnthropicConfig {
        model: Some("claude-sonnet-4-5".into()),
        base_url: Some(server.base_url.clone()),
        thinking_budget,
        retry: fast_retry(),
    };
    Anthropic::with_env(cfg, env_with_key("ANTHROPIC_API_KEY")).unwrap()
}

fn openai_at(base: &str, key: bool) -> OpenAi {
    let cfg = OpenAiConfig {
        model: Some("qwen3-coder".into()),
        base_url: Some(base.to_string()),
        retry: fast_retry(),
        ..OpenAiConfig::default()
    };
    if key {
        OpenAi::with_env(cfg, env_with_key("OPENAI_API_KEY")).unwrap()
    } else {
        OpenAi::with_env(cfg, |_| None).unwrap()
    }
}

fn request() -> LlmRequest {
    LlmRequest {
        step: "generate".into(),
        system: Some("You write pytest tests.".into()),
        messages: vec![Message::user("Issue: crash on empty list")],
        max_tokens: 1024,
        cache_points: vec![],
    }
}

fn anthropic_ok(text: &str) -> Canned {
    json(
        200,
        json!({
            "id": "msg_01", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {"type": "thinking", "thinking": "hidden reasoning", "signature": "abc"},
                {"type": "text", "text": text}
            ],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 120, "output_tokens": 45}
        }),
    )
}

fn openai_ok(text: &str) -> Canned {
    json(
        200,
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "qwen3-coder",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
        }),
    )
}

fn anthropic_error(status: u16, kind: &str, message: &str) -> Canned {
    json(
        status,
        json!({"type": "error", "error": {"type": kind, "message": message}}),
    )
}

#[tokio::test]
async fn anthropic_happy_path_sends_exact_request() {
    let server = MockServer::start(vec![anthropic_ok("def test_x(): pass")]).await;
    let model = anthropic(&server);
    let req = request();
    let reply = model.complete(req.clone()).await.unwrap();

    assert_eq!(reply.text, "def test_x(): pass");
    assert_eq!((reply.input_tokens, reply.output_tokens), (120, 45));
    assert_eq!(reply.model, "claude-sonnet-4-5-20250929");
    assert_eq!(reply.stop_reason.as_deref(), Some("end_turn"));
    assert!(!reply.cached);

    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    let r = &seen[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.headers["x-api-key"], KEY);
    assert_eq!(r.headers["anthropic-version"], "2023-06-01");
    assert_eq!(r.headers["content-type"], "application/json");
    assert!(!r.headers.contains_key("authorization"));
    assert_eq!(
        r.json(),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "system": "You write pytest tests.",
            "messages": [{"role": "user", "content": "Issue: crash on empty list"}]
        })
    );

    let record = CallRecord::new(&req, &reply, &PriceTable::builtin());
    let cost = record.cost_usd.unwrap();
    assert!((cost - (120.0 * 3.0 + 45.0 * 15.0) / 1e6).abs() < 1e-12);
    let doc = serde_json::to_string(&record).unwrap();
    assert!(doc.contains("crash on empty list") && doc.contains("\"step\":\"generate\""));
    assert!(!doc.contains(KEY));
    assert!(!model.describe().contains(KEY));
    assert!(!format!("{model:?}").contains(KEY));
    assert_eq!(
        model.describe(),
        format!("anthropic claude-sonnet-4-5 via {}", server.base_url)
    );
}

#[tokio::test]
async fn anthropic_thinking_budget_is_sent() {
    let server = MockServer::start(vec![anthropic_ok("ok")]).await;
    let model = anthropic_with(&server, Some(2000));
    model.complete(request()).await.unwrap();
    let body = server.requests()[0].json();
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 2000})
    );
    assert_eq!(body["max_tokens"], json!(3024));
    assert!(body.get("temperature").is_none());
}

#[tokio::test]
async fn openai_happy_path_sends_exact_request() {
    let server = MockServer::start(vec![openai_ok("answer")]).await;
    // A base that already ends in /v1 must not become /v1/v1.
    let model = openai_at(&format!("{}/v1/", server.base_url), true);
    let reply = model.complete(request()).await.unwrap();
    assert_eq!(reply.text, "answer");
    assert_eq!((reply.input_tokens, reply.output_tokens), (30, 7));
    assert_eq!(reply.stop_reason.as_deref(), Some("stop"));

    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(
        r.json(),
        json!({
            "model": "qwen3-coder",
            "max_tokens": 1024,
            "messages": [
                {"role": "system", "content": "You write pytest tests."},
                {"role": "user", "content": "Issue: crash on empty list"}
            ]
        })
    );
    assert!(!model.describe().contains(KEY));
}

#[tokio::test]
async fn openai_compatible_quirks_are_tolerated() {
    let server = MockServer::start(vec![
        json(
            200,
            json!({"choices": [{"message": {"role": "assistant", "content": "hi"},
                               "finish_reason": null}]}),
        ),
        json(
            200,
            json!({"model": "", "choices": [{"message": {"content": null}, "finish_reason": ""}]}),
        ),
    ])
    .await;
    let model = openai_at(&server.base_url, false);
    let a = model.complete(request()).await.unwrap();
    assert_eq!(a.text, "hi");
    assert_eq!((a.input_tokens, a.output_tokens), (0, 0));
    assert_eq!(a.stop_reason, None);
    assert_eq!(a.model, "qwen3-coder");
    let b = model.complete(request()).await.unwrap();
    assert_eq!(b.text, "");
    assert_eq!(b.stop_reason, None);
}

#[tokio::test]
async fn localhost_needs_no_key() {
    let server = MockServer::start(vec![openai_ok("x")]).await;
    let model = openai_at(&server.base_url.replace("127.0.0.1", "localhost"), false);
    model.complete(request()).await.unwrap();
    assert!(!server.requests()[0].headers.contains_key("authorization"));
}

#[tokio::test]
async fn retry_after_is_honoured_on_429() {
    let server = MockServer::start(vec![
        raw(
            429,
            &[("retry-after", "1")],
            r#"{"error":{"message":"slow down"}}"#,
        ),
        anthropic_ok("ok"),
    ])
    .await;
    let started = Instant::now();
    let reply = anthropic(&server).complete(request()).await.unwrap();
    assert_eq!(reply.text, "ok");
    assert_eq!(server.count(), 2);
    // The base delay is 10 ms, so only retry-after explains a wait of a second.
    assert!(started.elapsed() >= Duration::from_millis(950));
}

#[tokio::test]
async fn overloaded_529_is_retried() {
    let server = MockServer::start(vec![
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_ok("ok"),
    ])
    .await;
    let reply = anthropic(&server).complete(request()).await.unwrap();
    assert_eq!(reply.text, "ok");
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn each_retry_is_announced_without_the_key() {
    // The server echoes the key in its error text, as some proxies do.
    let overloaded = anthropic_error(529, "overloaded_error", &format!("Overloaded ({KEY})"));
    let server = MockServer::start(vec![overloaded.clone(), overloaded, anthropic_ok("ok")]).await;
    let (retry, seen) = observed_retry();
    let cfg = AnthropicConfig {
        base_url: Some(server.base_url.clone()),
        retry,
        ..AnthropicConfig::default()
    };
    let model = Anthropic::with_env(cfg, env_with_key("ANTHROPIC_API_KEY")).unwrap();
    let reply = model.complete(request()).await.unwrap();
    assert_eq!(reply.text, "ok");
    assert_eq!(server.count(), 3);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter().map(|n| n.attempt).collect::<Vec<_>>(),
        [1, 2],
        "{seen:?}"
    );
    let host = server.base_url.trim_start_matches("http://");
    for n in &seen {
        assert_eq!((n.provider.as_str(), n.attempts), ("anthropic", 3));
        assert_eq!(n.endpoint, host);
        assert!(n.reason.starts_with("HTTP 529: Overloaded"), "{n:?}");
        assert!(n.wait <= Duration::from_millis(50), "{n:?}");
        assert!(!format!("{n:?}").contains(KEY), "{n:?}");
    }
}

#[tokio::test]
async fn server_errors_exhaust_retries() {
    let server = MockServer::start(vec![anthropic_error(500, "api_error", "internal")]).await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    assert_eq!(server.count(), 3);
    assert!(matches!(
        err,
        LlmError::RetriesExhausted { attempts: 3, .. }
    ));
    let msg = err.to_string();
    assert!(
        msg.contains("3 attempts") && msg.contains("HTTP 500"),
        "{msg}"
    );
}

#[tokio::test]
async fn dropped_connection_is_retried() {
    let server = MockServer::start(vec![Canned::Drop, openai_ok("after drop")]).await;
    let reply = openai_at(&server.base_url, true)
        .complete(request())
        .await
        .unwrap();
    assert_eq!(reply.text, "after drop");
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn timeout_is_retried() {
    let server = MockServer::start(vec![
        Canned::Stall(Duration::from_secs(3)),
        anthropic_ok("late but fine"),
    ])
    .await;
    let cfg = AnthropicConfig {
        base_url: Some(server.base_url.clone()),
        retry: RetryPolicy {
            timeout: Duration::from_millis(300),
            ..fast_retry()
        },
        ..AnthropicConfig::default()
    };
    let model = Anthropic::with_env(cfg, env_with_key("ANTHROPIC_API_KEY")).unwrap();
    let reply = model.complete(request()).await.unwrap();
    assert_eq!(reply.text, "late but fine");
}

#[tokio::test]
async fn unreachable_server_exhausts_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (retry, seen) = observed_retry();
    let cfg = OpenAiConfig {
        base_url: Some(base.clone()),
        retry,
        ..OpenAiConfig::default()
    };
    let err = OpenAi::with_env(cfg, |_| None)
        .unwrap()
        .complete(request())
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::RetriesExhausted { attempts: 3, .. }),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("3 attempts over")
            && msg.contains(&format!("{base}/v1/chat/completions"))
            && msg.contains("connection refused")
            && msg.contains("--base-url")
            && msg.contains("evootter run --resume"),
        "{msg}"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(
        seen.iter().all(|n| n.reason == "connection refused"
            && n.endpoint == base.trim_start_matches("http://")),
        "{seen:?}"
    );
}

#[tokio::test]
async fn malformed_json_is_reported_not_retried() {
    let server = MockServer::start(vec![raw(
        200,
        &[("content-type", "application/json")],
        "{\"content\": [oops",
    )])
    .await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::MalformedResponse { .. }), "{err}");
    assert!(err.to_string().contains("could not be understood"));
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn bad_key_is_named_and_redacted() {
    let server = MockServer::start(vec![anthropic_error(
        401,
        "authentication_error",
        &format!("invalid x-api-key {KEY}"),
    )])
    .await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, LlmError::BadKey { status: 401, .. }));
    assert!(msg.contains("ANTHROPIC_API_KEY"), "{msg}");
    assert!(
        !msg.contains(KEY) && !format!("{err:?}").contains(KEY),
        "{msg}"
    );
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn unknown_model_is_named() {
    let server = MockServer::start(vec![anthropic_error(
        404,
        "not_found_error",
        "model: claude-sonnet-4-5",
    )])
    .await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::BadModel { .. }));
    assert!(err.to_string().contains("'claude-sonnet-4-5'"), "{err}");

    // OpenAI-compatible servers often say it with a 400 and a body.
    let server = MockServer::start(vec![json(
        400,
        json!({"error": {"message": "The model `qwen3-coder` does not exist", "code": "model_not_found"}}),
    )])
    .await;
    let err = openai_at(&server.base_url, false)
        .complete(request())
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::BadModel { status: 400, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("--model"));
}

#[tokio::test]
async fn context_overflow_is_recognised() {
    let server = MockServer::start(vec![anthropic_error(
        400,
        "invalid_request_error",
        "prompt is too long: 250000 tokens > 200000 maximum",
    )])
    .await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }), "{err}");
    assert!(err.to_string().contains("250000 tokens"));

    let server = MockServer::start(vec![json(
        400,
        json!({"error": {"message": "This model's maximum context length is 8192 tokens.",
                         "code": "context_length_exceeded"}}),
    )])
    .await;
    let err = openai_at(&server.base_url, false)
        .complete(request())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }), "{err}");
}

#[tokio::test]
async fn other_client_errors_carry_provider_message() {
    let server = MockServer::start(vec![anthropic_error(
        400,
        "invalid_request_error",
        "messages: roles must alternate",
    )])
    .await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::BadRequest { status: 400, .. }));
    assert!(err.to_string().contains("roles must alternate"), "{err}");
}

#[test]
fn missing_key_names_the_variable() {
    let err = Anthropic::with_env(AnthropicConfig::default(), |_| None).unwrap_err();
    assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
    let err = OpenAi::with_env(OpenAiConfig::default(), |_| None).unwrap_err();
    assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
    // The base URL may also come from the environment.
    let env = |k: &str| (k == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:9/v1".to_string());
    assert!(OpenAi::with_env(OpenAiConfig::default(), env).is_ok());
}

#[tokio::test]
async fn cache_hit_avoids_second_call() {
    let server = MockServer::start(vec![anthropic_ok("cached text")]).await;
    let dir = tempfile::tempdir().unwrap();
    let model = CachedModel::new(anthropic(&server), ResponseCache::at(dir.path()));

    let first = model.complete(request()).await.unwrap();
    assert!(!first.cached);
    let second = model.complete(request()).await.unwrap();
    assert!(second.cached);
    assert_eq!(second.text, "cached text");
    assert_eq!(second.input_tokens, 120);
    assert_eq!(server.count(), 1);

    let record = CallRecord::new(&request(), &second, &PriceTable::builtin());
    assert_eq!(record.cost_usd, Some(0.0));
    assert!(record.cached);

    // Anything that changes what the model sees is a different entry.
    let mut other = request();
    other.max_tokens = 10;
    assert!(!model.complete(other).await.unwrap().cached);
    assert_eq!(server.count(), 2);

    // A second process (a re-run) sees the same cache.
    let again = CachedModel::new(anthropic(&server), ResponseCache::at(dir.path()));
    assert!(again.complete(request()).await.unwrap().cached);
    assert_eq!(server.count(), 2);

    // A reply the engine could not use is forgotten: the next ask reaches the model.
    again.forget(&request()).await;
    assert!(!again.complete(request()).await.unwrap().cached);
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn scripted_model_replays_and_reports_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.json");
    std::fs::write(
        &path,
        json!([
            {"step": "generate", "reply": "gen 1"},
            {"step": "select", "reply": "keep 1, 3", "match": "c_old"},
            {"step": "generate", "reply": "gen 2", "match": "empty list"}
        ])
        .to_string(),
    )
    .unwrap();
    let model = ScriptedModel::from_file(&path).unwrap();
    assert_eq!(
        model.describe(),
        format!(
            "scripted replies from {} (not a real model)",
            path.display()
        )
    );

    assert_eq!(model.complete(request()).await.unwrap().text, "gen 1");
    assert_eq!(model.complete(request()).await.unwrap().text, "gen 2");
    let err = model.complete(request()).await.unwrap_err().to_string();
    assert!(
        err.contains("'generate'") && err.contains("demo.json"),
        "{err}"
    );
    assert!(err.contains("no scripted reply left"), "{err}");

    let mut select = request();
    select.step = "select".into();
    let err = model
        .complete(select.clone())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("'select'") && err.contains("c_old"), "{err}");
    select.messages.push(Message::user("logs of c_old: ..."));
    assert_eq!(model.complete(select).await.unwrap().text, "keep 1, 3");

    // Entries with different `match`es are alternatives: the one that fits the prompt
    // answers, whatever its place; a resumed run skips the replies it already received.
    // (A selection's prompt no entry fits is answered from the recorded preference instead:
    // `llm::scripted`'s tests.)
    let alternatives = json!([
        {"step": "crossover", "reply": "for generation 1", "match": "<test id=\"t12\">"},
        {"step": "crossover", "reply": "for generation 2", "match": "<test id=\"t14\">"},
    ]);
    std::fs::write(&path, alternatives.to_string()).unwrap();
    let mut last = request();
    last.step = "crossover".into();
    last.messages.push(Message::user("<test id=\"t14\">"));
    let model = ScriptedModel::from_file(&path).unwrap();
    assert_eq!(
        model.complete(last.clone()).await.unwrap().text,
        "for generation 2"
    );
    let resumed = ScriptedModel::from_file(&path).unwrap();
    resumed.mark_replayed("crossover", "for generation 2");
    let err = resumed.complete(last).await.unwrap_err().to_string();
    assert!(err.contains("none of the 1 unused replies fits"), "{err}");

    // The object form and a clear error for a broken file.
    std::fs::write(
        &path,
        r#"{"entries": [{"step": "crossover", "reply": "x"}]}"#,
    )
    .unwrap();
    assert!(ScriptedModel::from_file(&path).is_ok());
    std::fs::write(&path, "[{\"step\": 1}]").unwrap();
    let err = ScriptedModel::from_file(&path).unwrap_err().to_string();
    assert!(
        err.contains("demo.json") && err.contains("not a valid script"),
        "{err}"
    );
}

/// Usage as the providers document it when their prompt cache is at work: Anthropic counts the
/// input written to and read from the cache apart from `input_tokens`; OpenAI counts the cached
/// part inside `prompt_tokens` and names it in `prompt_tokens_details.cached_tokens`. Each is
/// recorded as new, written and read input, and priced with the table's cache prices.
#[tokio::test]
async fn prompt_cache_usage_is_recorded_and_priced_apart() {
    let server = MockServer::start(vec![json(
        200,
        json!({
            "id": "msg_02", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1000, "output_tokens": 1000,
                      "cache_creation_input_tokens": 100000,
                      "cache_read_input_tokens": 1000000}
        }),
    )])
    .await;
    let reply = anthropic(&server).complete(request()).await.unwrap();
    assert_eq!(
        (
            reply.input_tokens,
            reply.cache_write_tokens,
            reply.cache_read_tokens
        ),
        (1000, 100000, 1000000)
    );
    let record = CallRecord::new(&request(), &reply, &PriceTable::builtin());
    // Sonnet 4.5: 1k x $3 + 100k x $3.75 + 1M x $0.30 + 1k x $15 (per million).
    let expected = (1000.0 * 3.0 + 100_000.0 * 3.75 + 1_000_000.0 * 0.3 + 1000.0 * 15.0) / 1e6;
    assert!((record.cost_usd.unwrap() - expected).abs() < 1e-9);
    let stored = serde_json::to_value(&record).unwrap();
    assert_eq!(stored["cache_read_tokens"], 1000000);

    let server = MockServer::start(vec![
        json(
            200,
            json!({
                "id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-4o-2024-08-06",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 2048, "completion_tokens": 10, "total_tokens": 2058,
                          "prompt_tokens_details": {"cached_tokens": 1920}}
            }),
        ),
        // A server that does not cache: no details, all of it new input.
        openai_ok("plain"),
    ])
    .await;
    let model = openai_at(&server.base_url, true);
    let reply = model.complete(request()).await.unwrap();
    assert_eq!(
        (
            reply.input_tokens,
            reply.cache_write_tokens,
            reply.cache_read_tokens
        ),
        (128, 0, 1920)
    );
    let record = CallRecord::new(&request(), &reply, &PriceTable::builtin());
    // GPT-4o: 128 x $2.50 + 1920 x $1.25 + 10 x $10 (per million).
    let expected = (128.0 * 2.5 + 1920.0 * 1.25 + 10.0 * 10.0) / 1e6;
    assert!((record.cost_usd.unwrap() - expected).abs() < 1e-12);
    let plain = model.complete(request()).await.unwrap();
    assert_eq!((plain.input_tokens, plain.cache_read_tokens), (30, 0));
}

/// A prompt with shared prefixes (the issue, then the localized functions) goes to Anthropic as
/// text blocks split where they end, the last one the cache breakpoint.
#[tokio::test]
async fn anthropic_gets_a_cache_breakpoint_where_the_shared_prefix_ends() {
    let server = MockServer::start(vec![anthropic_ok("ok")]).await;
    let mut req = request();
    req.messages = vec![Message::user(
        "<issue>x</issue>\n<functions>f</functions>\nWrite a test.",
    )];
    req.cache_points = vec![17, 42];
    anthropic(&server).complete(req).await.unwrap();
    let body = server.requests()[0].json();
    assert_eq!(
        body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "<issue>x</issue>\n"},
            {"type": "text", "text": "<functions>f</functions>\n",
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Write a test."}
        ])
    );
    assert_eq!(body["system"], "You write pytest tests.");
}
