//! A model server for end-to-end runs: it speaks the Anthropic Messages or OpenAI Chat
//! Completions wire format and answers each request with the next reply a script (the same
//! file `--llm scripted:FILE` replays) recorded for that request's step. The step is
//! recognised from the prompt text, as a real model would only see the text.

#![allow(dead_code)]

use super::{Canned, MockServer, Seen, json};
use std::path::Path;
use std::sync::Arc;

use evootter::llm::LlmRequest;
use evootter::llm::scripted::ScriptedModel;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wire {
    Anthropic,
    OpenAi,
}

impl Wire {
    /// `cmd` (an `evootter run` or `bench`) talking to the server at `base_url` in this wire
    /// format: `--llm`, `--model` and `--base-url`, `key` in the provider's variable, and the
    /// user's cache and config directories under `home` (no response cache of the user's).
    pub fn talk<'c>(
        self,
        cmd: &'c mut std::process::Command,
        base_url: &str,
        key: &str,
        home: &Path,
    ) -> &'c mut std::process::Command {
        let (provider, var, model) = match self {
            Wire::Anthropic => ("anthropic", "ANTHROPIC_API_KEY", "claude-sonnet-4-5"),
            Wire::OpenAi => ("openai", "OPENAI_API_KEY", "gpt-4.1"),
        };
        cmd.env(var, key)
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .args(["--llm", provider, "--model", model, "--base-url", base_url])
    }
}

/// A phrase of each prompt template that only that step's prompt contains.
const MARKERS: &[(&str, &str)] = &[
    ("Your task is to find the source files", "localize_files"),
    (
        "each with the qualified names of the functions",
        "localize_functions",
    ),
    (
        "Below are candidate functions with their",
        "localize_refine",
    ),
    ("First, decide which imports", "context_imports"),
    ("We are writing a new pytest file", "context_location"),
    ("Rewrite the issue report below", "morph_issue"),
    (
        "different pytest test files that each reproduce",
        "generate",
    ),
    ("Write a pytest test file that reproduces", "generate"),
    ("parent tests meant to reproduce it", "crossover"),
    ("candidate tests meant to reproduce it", "select"),
    ("First judge the test as a critic would", "repair"),
];

pub fn step_of(prompt: &str) -> Option<&'static str> {
    MARKERS
        .iter()
        .find(|(m, _)| prompt.contains(m))
        .map(|(_, s)| *s)
}

/// All the text of a request: system prompt and messages, in either wire format.
fn prompt_text(body: &serde_json::Value) -> String {
    let mut out = String::new();
    if let Some(s) = body["system"].as_str() {
        out.push_str(s);
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            serde_json::Value::String(s) => out.push_str(s),
            serde_json::Value::Array(parts) => {
                for p in parts {
                    out.push_str(p["text"].as_str().unwrap_or(""));
                }
            }
            _ => {}
        }
        out.push('\n');
    }
    out
}

fn error(wire: Wire, message: String) -> Canned {
    match wire {
        Wire::Anthropic => json(
            400,
            serde_json::json!({"type": "error",
                "error": {"type": "invalid_request_error", "message": message}}),
        ),
        Wire::OpenAi => json(
            400,
            serde_json::json!({"error": {"message": message, "type": "invalid_request_error"}}),
        ),
    }
}

pub fn reply(wire: Wire, body: &serde_json::Value, text: &str, prompt_chars: usize) -> Canned {
    // Token counts as a real tokenizer would roughly give them, so cost accounting has work.
    let (input, output) = (prompt_chars as u64 / 4 + 1, text.len() as u64 / 4 + 1);
    let model = body["model"].as_str().unwrap_or("unknown");
    match wire {
        Wire::Anthropic => json(
            200,
            serde_json::json!({
                "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": input, "output_tokens": output}
            }),
        ),
        Wire::OpenAi => json(
            200,
            serde_json::json!({
                "id": "chatcmpl-mock", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": input, "completion_tokens": output,
                          "total_tokens": input + output}
            }),
        ),
    }
}

/// Serve `script` over `wire`. A request whose step has no reply left, or whose prompt lacks
/// the entry's `match`, gets a 400 that says so (the run then stops naming the step).
pub async fn serve_script(script: &Path, wire: Wire) -> MockServer {
    serve_script_stalling(script, wire, None).await
}

/// As [`serve_script`], but a request whose prompt contains `stall` is never answered (the
/// client waits, as on a slow provider, until it is killed).
pub async fn serve_script_stalling(
    script: &Path,
    wire: Wire,
    stall: Option<&'static str>,
) -> MockServer {
    serve_script_stalling_times(script, wire, stall, usize::MAX).await
}

/// As [`serve_script_stalling`], but only the first `times` such requests stall; later ones
/// are answered (a provider slow once).
pub async fn serve_script_stalling_times(
    script: &Path,
    wire: Wire,
    stall: Option<&'static str>,
    times: usize,
) -> MockServer {
    // The very replay rule of `--llm scripted:`: the first unused reply of the step whose
    // `match` fits the prompt.
    let model = ScriptedModel::from_file(script).unwrap();
    let stalled = std::sync::atomic::AtomicUsize::new(0);
    MockServer::start_with(Arc::new(move |req: &Seen, _| {
        let body = req.json();
        let prompt = prompt_text(&body);
        if stall.is_some_and(|s| prompt.contains(s))
            && stalled.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < times
        {
            return super::Canned::Stall(std::time::Duration::from_secs(600));
        }
        let Some(step) = step_of(&prompt) else {
            return error(wire, "mock: no known step in this prompt".into());
        };
        match model.reply(&LlmRequest::single(step, None, prompt.as_str(), 0)) {
            Ok(r) => reply(wire, &body, &r.text, prompt.len()),
            Err(e) => error(wire, format!("mock: {e}")),
        }
    }))
    .await
}
