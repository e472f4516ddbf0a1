//! A simulated provider: the Anthropic or OpenAI wire format, single calls and the batch API,
//! answering each request with the next reply its example's script recorded, and counting
//! usage as the provider documents it:
//!
//! - tokens: a token per 4 bytes of the prompt text (a tokenizer's rough rate for English and
//!   code);
//! - Anthropic's prompt cache: a request's `cache_control` block ends a prefix (the system text
//!   and the blocks up to it) that is written to the cache when it is at least the model's
//!   minimum (1,024 tokens for Sonnet) and read back by a later request that has it, whole or
//!   up to one of its block boundaries; `input_tokens` is then only what follows the last
//!   breakpoint or what was neither read nor written;
//! - OpenAI's automatic prefix cache: prompts of 1,024 tokens and more read the longest prefix
//!   they share with an earlier prompt, counted in steps of 128 tokens from 1,024, reported as
//!   `prompt_tokens_details.cached_tokens` within `prompt_tokens`;
//! - batches: a batch is `in_progress` for a number of polls, then `ended` (Anthropic) or
//!   `completed` (OpenAI), its requests answered in order (so later ones may read what earlier
//!   ones wrote); chosen requests end `errored`, or the batch expires with the rest unanswered.

#![allow(dead_code)]

use super::scripted::{Wire, step_of};
use super::{Canned, MockServer, Seen, json};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use evootter::llm::LlmRequest;
use evootter::llm::scripted::ScriptedModel;

/// What the batches do besides answering.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// Polls a batch stays in progress before it ends.
    pub polls_in_progress: usize,
    /// Requests (counted over all batches, from 0) that end errored.
    pub errored: Vec<usize>,
    /// The batch with this number (from 0) expires after answering its first request.
    pub expire_batch: Option<usize>,
}

#[derive(Default)]
struct Batch {
    /// (custom id, request body)
    requests: Vec<(String, serde_json::Value)>,
    polls: usize,
    /// custom id -> result line, once ended.
    results: Option<Vec<serde_json::Value>>,
    number: usize,
}

#[derive(Default)]
struct State {
    /// Anthropic: the cached prefixes. OpenAI: every prompt seen.
    prefixes: HashSet<String>,
    prompts: Vec<String>,
    batches: HashMap<String, Batch>,
    files: HashMap<String, String>,
    batch_requests: usize,
    next: usize,
}

pub struct Provider {
    wire: Wire,
    /// (a line of the example's issue, its script)
    scripts: Vec<(String, ScriptedModel)>,
    min_cached: usize,
    faults: Mutex<Faults>,
    state: Mutex<State>,
}

pub fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

impl Provider {
    /// Serves the examples' scripts (each picked by its issue's text in the prompt).
    pub async fn serve(examples: &[&Path], wire: Wire, faults: Faults) -> (MockServer, Arc<Self>) {
        Self::serve_with_minimum(examples, wire, faults, 1024).await
    }

    /// As `serve`, with another minimum cacheable prefix (tokens).
    pub async fn serve_with_minimum(
        examples: &[&Path],
        wire: Wire,
        faults: Faults,
        min_cached: usize,
    ) -> (MockServer, Arc<Self>) {
        let scripts = examples
            .iter()
            .map(|ex| {
                let issue = std::fs::read_to_string(ex.join("issue.md")).unwrap();
                let line = issue
                    .lines()
                    .map(str::trim)
                    .find(|l| l.len() > 20)
                    .unwrap_or(issue.trim())
                    .to_string();
                (
                    line,
                    ScriptedModel::from_file(ex.join("llm_script.json")).unwrap(),
                )
            })
            .collect();
        let p = Arc::new(Provider {
            wire,
            scripts,
            min_cached,
            faults: Mutex::new(faults),
            state: Mutex::new(State::default()),
        });
        let p2 = p.clone();
        let server = MockServer::start_with(Arc::new(move |req: &Seen, _| p2.respond(req))).await;
        (server, p)
    }

    /// Changes the faults from now on (a test that killed a bench mid-batch lets it end).
    pub fn set_faults(&self, faults: Faults) {
        *self.faults.lock().unwrap() = faults;
    }

    /// The batches made so far: (id, custom ids), in order.
    pub fn batches(&self) -> Vec<(String, Vec<String>)> {
        let st = self.state.lock().unwrap();
        let mut v: Vec<_> = st
            .batches
            .iter()
            .map(|(id, b)| {
                (
                    b.number,
                    id.clone(),
                    b.requests.iter().map(|r| r.0.clone()).collect(),
                )
            })
            .collect();
        v.sort();
        v.into_iter().map(|(_, id, r)| (id, r)).collect()
    }

    fn faults(&self) -> Faults {
        self.faults.lock().unwrap().clone()
    }

    fn respond(&self, req: &Seen) -> Canned {
        let path = req.path.split('?').next().unwrap_or("");
        let mut st = self.state.lock().unwrap();
        match (self.wire, req.method.as_str(), path) {
            (Wire::Anthropic, "POST", "/v1/messages")
            | (Wire::OpenAi, "POST", "/v1/chat/completions") => {
                match self.answer(&mut st, &req.json()) {
                    Ok(msg) => json(200, msg),
                    Err(e) => self.error(400, &e),
                }
            }
            (Wire::Anthropic, "POST", "/v1/messages/batches") => {
                let requests = req.json()["requests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        (
                            r["custom_id"].as_str().unwrap().to_string(),
                            r["params"].clone(),
                        )
                    })
                    .collect();
                let id = self.new_batch(&mut st, "msgbatch_", requests);
                json(200, self.batch_object(&mut st, &id, false))
            }
            (Wire::OpenAi, "POST", "/v1/files") => {
                let file = multipart_file(&req.body);
                st.next += 1;
                let id = format!("file-{}", st.next);
                st.files.insert(id.clone(), file);
                json(
                    200,
                    serde_json::json!({"id": id, "object": "file", "purpose": "batch"}),
                )
            }
            (Wire::OpenAi, "POST", "/v1/batches") => {
                let body = req.json();
                let file = st.files[body["input_file_id"].as_str().unwrap()].clone();
                let requests = file
                    .lines()
                    .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                    .map(|l| {
                        (
                            l["custom_id"].as_str().unwrap().to_string(),
                            l["body"].clone(),
                        )
                    })
                    .collect();
                let id = self.new_batch(&mut st, "batch_", requests);
                json(200, self.batch_object(&mut st, &id, false))
            }
            (_, "GET", p) if p.ends_with("/results") => {
                let id = p.trim_end_matches("/results").rsplit('/').next().unwrap();
                let lines = st.batches[id].results.clone().unwrap_or_default();
                let body: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                super::raw(
                    200,
                    &[("content-type", "application/binary")],
                    &body.join("\n"),
                )
            }
            (Wire::OpenAi, "GET", p) if p.starts_with("/v1/files/") && p.ends_with("/content") => {
                let id = p
                    .trim_start_matches("/v1/files/")
                    .trim_end_matches("/content");
                super::raw(200, &[], &st.files[id])
            }
            (_, "GET", p)
                if p.starts_with("/v1/messages/batches/") || p.starts_with("/v1/batches/") =>
            {
                let id = p.rsplit('/').next().unwrap().to_string();
                if !st.batches.contains_key(&id) {
                    return self.error(404, &format!("no batch {id}"));
                }
                json(200, self.batch_object(&mut st, &id, true))
            }
            _ => self.error(404, &format!("mock: no route {} {}", req.method, req.path)),
        }
    }

    fn error(&self, status: u16, message: &str) -> Canned {
        match self.wire {
            Wire::Anthropic => json(
                status,
                serde_json::json!({"type": "error",
                    "error": {"type": "invalid_request_error", "message": message}}),
            ),
            Wire::OpenAi => json(
                status,
                serde_json::json!({"error": {"message": message, "type": "invalid_request_error"}}),
            ),
        }
    }

    fn new_batch(
        &self,
        st: &mut State,
        prefix: &str,
        requests: Vec<(String, serde_json::Value)>,
    ) -> String {
        st.next += 1;
        let id = format!("{prefix}{:04}", st.next);
        let number = st.batches.len();
        st.batches.insert(
            id.clone(),
            Batch {
                requests,
                number,
                ..Batch::default()
            },
        );
        id
    }

    /// The batch as the provider shows it; a poll counts and may end it.
    fn batch_object(&self, st: &mut State, id: &str, poll: bool) -> serde_json::Value {
        let ended = {
            let b = st.batches.get_mut(id).unwrap();
            if poll {
                b.polls += 1;
            }
            b.results.is_some() || (poll && b.polls > self.faults().polls_in_progress)
        };
        if ended && st.batches[id].results.is_none() {
            self.end(st, id);
        }
        let b = &st.batches[id];
        let results = b.results.clone().unwrap_or_default();
        let n = b.requests.len() as u64;
        let ok = |l: &serde_json::Value| match self.wire {
            Wire::Anthropic => l["result"]["type"] == "succeeded",
            Wire::OpenAi => l["response"]["status_code"] == 200,
        };
        let succeeded = results.iter().filter(|l| ok(l)).count() as u64;
        let failed = results.len() as u64 - succeeded;
        let expired = self.faults().expire_batch == Some(b.number);
        match self.wire {
            Wire::Anthropic => serde_json::json!({
                "id": id, "type": "message_batch",
                "processing_status": if ended { "ended" } else { "in_progress" },
                "request_counts": {
                    "processing": if ended { 0 } else { n },
                    "succeeded": succeeded,
                    "errored": results.iter().filter(|l| l["result"]["type"] == "errored").count(),
                    "canceled": 0,
                    "expired": results.iter().filter(|l| l["result"]["type"] == "expired").count(),
                },
                "created_at": "2026-12-05T00:00:00Z",
                "results_url": if ended { serde_json::json!(format!("/v1/messages/batches/{id}/results")) } else { serde_json::Value::Null },
            }),
            Wire::OpenAi => {
                let mut out = serde_json::json!({
                    "id": id, "object": "batch", "endpoint": "/v1/chat/completions",
                    "status": match (ended, expired) {
                        (false, _) => "in_progress",
                        (true, true) => "expired",
                        (true, false) => "completed",
                    },
                    "request_counts": {"total": n, "completed": succeeded, "failed": failed},
                });
                if ended {
                    let (good, bad): (Vec<_>, Vec<_>) = results.iter().partition(|l| ok(l));
                    let mut file = |lines: Vec<&serde_json::Value>| {
                        st.next += 1;
                        let fid = format!("file-{}", st.next);
                        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                        st.files.insert(fid.clone(), text.join("\n"));
                        fid
                    };
                    out["output_file_id"] = file(good).into();
                    if !bad.is_empty() {
                        out["error_file_id"] = file(bad).into();
                    }
                }
                out
            }
        }
    }

    /// Answers the batch's requests in order, with its faults.
    fn end(&self, st: &mut State, id: &str) {
        let (requests, number) = {
            let b = &st.batches[id];
            (b.requests.clone(), b.number)
        };
        let mut results = vec![];
        for (i, (custom_id, body)) in requests.iter().enumerate() {
            let n = st.batch_requests;
            st.batch_requests += 1;
            let expired = self.faults().expire_batch == Some(number) && i > 0;
            let errored = self.faults().errored.contains(&n);
            let line = match self.wire {
                Wire::Anthropic => {
                    let result = if expired {
                        serde_json::json!({"type": "expired"})
                    } else if errored {
                        serde_json::json!({"type": "errored", "error": {"type": "error",
                            "error": {"type": "api_error", "message": "Internal server error"}}})
                    } else {
                        match self.answer(st, body) {
                            Ok(m) => serde_json::json!({"type": "succeeded", "message": m}),
                            Err(e) => {
                                serde_json::json!({"type": "errored", "error": {"type": "error",
                                "error": {"type": "invalid_request_error", "message": e}}})
                            }
                        }
                    };
                    serde_json::json!({"custom_id": custom_id, "result": result})
                }
                Wire::OpenAi => {
                    if expired {
                        serde_json::json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                            "response": null, "error": {"code": "batch_expired",
                            "message": "This request could not be executed before the completion window expired."}})
                    } else if errored {
                        serde_json::json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                            "response": {"status_code": 500, "request_id": "req_x",
                                "body": {"error": {"message": "The server had an error", "type": "server_error"}}},
                            "error": null})
                    } else {
                        let (status, body) = match self.answer(st, body) {
                            Ok(m) => (200, m),
                            Err(e) => (400, serde_json::json!({"error": {"message": e}})),
                        };
                        serde_json::json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                            "response": {"status_code": status, "request_id": "req_x", "body": body},
                            "error": null})
                    }
                }
            };
            results.push(line);
        }
        st.batches.get_mut(id).unwrap().results = Some(results);
    }

    /// A message (Anthropic) or chat completion (OpenAI) for `body`, with its usage.
    fn answer(
        &self,
        st: &mut State,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        let (parts, breakpoint) = prompt_parts(body);
        let prompt: String = parts.concat();
        let step = step_of(&prompt).ok_or("mock: no known step in this prompt")?;
        let (_, script) = self
            .scripts
            .iter()
            .find(|(line, _)| prompt.contains(line.as_str()))
            .ok_or("mock: the prompt is of no example served")?;
        let reply = script
            .reply(&LlmRequest::single(step, None, prompt.as_str(), 0))
            .map_err(|e| format!("mock: {e}"))?;
        let model = body["model"].as_str().unwrap_or("unknown");
        let total = tokens(&prompt);
        let output = tokens(&reply.text);
        Ok(match self.wire {
            Wire::Anthropic => {
                let (read, write) = self.anthropic_cache(st, &parts, breakpoint);
                serde_json::json!({
                    "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": reply.text}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": total - read - write, "output_tokens": output,
                              "cache_creation_input_tokens": write, "cache_read_input_tokens": read}
                })
            }
            Wire::OpenAi => {
                let cached = self.openai_cache(st, &prompt);
                serde_json::json!({
                    "id": "chatcmpl-mock", "object": "chat.completion", "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply.text}}],
                    "usage": {"prompt_tokens": total, "completion_tokens": output,
                              "total_tokens": total + output,
                              "prompt_tokens_details": {"cached_tokens": cached}}
                })
            }
        })
    }

    /// (tokens read, tokens written) for a request cut into `parts` at its block boundaries,
    /// its breakpoint after part `breakpoint`.
    fn anthropic_cache(
        &self,
        st: &mut State,
        parts: &[String],
        breakpoint: Option<usize>,
    ) -> (usize, usize) {
        let Some(bp) = breakpoint else {
            return (0, 0);
        };
        let prefix = |k: usize| parts[..=k].concat();
        // The longest prefix cached, at the breakpoint or an earlier block boundary.
        let read = (0..=bp)
            .rev()
            .map(prefix)
            .find(|p| st.prefixes.contains(p))
            .map_or(0, |p| tokens(&p));
        let whole = prefix(bp);
        let write = if st.prefixes.contains(&whole) || tokens(&whole) < self.min_cached {
            0
        } else {
            st.prefixes.insert(whole.clone());
            tokens(&whole) - read
        };
        (read, write)
    }

    fn openai_cache(&self, st: &mut State, prompt: &str) -> usize {
        let shared = st
            .prompts
            .iter()
            .map(|p| {
                p.bytes()
                    .zip(prompt.bytes())
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .max()
            .unwrap_or(0);
        st.prompts.push(prompt.to_string());
        let shared = shared / 4;
        if tokens(prompt) < self.min_cached || shared < self.min_cached {
            0
        } else {
            self.min_cached + (shared - self.min_cached) / 128 * 128
        }
    }
}

/// The prompt as the provider reads it, in pieces at the cacheable boundaries (the system
/// text, then each content block), and the index of the piece a `cache_control` ends.
fn prompt_parts(body: &serde_json::Value) -> (Vec<String>, Option<usize>) {
    let mut parts = vec![];
    let mut breakpoint = None;
    match &body["system"] {
        serde_json::Value::String(s) => parts.push(s.clone()),
        serde_json::Value::Array(blocks) => {
            for b in blocks {
                parts.push(b["text"].as_str().unwrap_or("").to_string());
            }
        }
        _ => {}
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            serde_json::Value::String(s) => parts.push(s.clone()),
            serde_json::Value::Array(blocks) => {
                for b in blocks {
                    parts.push(b["text"].as_str().unwrap_or("").to_string());
                    if !b["cache_control"].is_null() {
                        breakpoint = Some(parts.len() - 1);
                    }
                }
            }
            _ => {}
        }
    }
    (parts, breakpoint)
}

/// The file part of a multipart form.
fn multipart_file(body: &str) -> String {
    let start = body.find("filename=").expect("a file part");
    let from = start + body[start..].find("\r\n\r\n").unwrap() + 4;
    let to = from + body[from..].find("\r\n--").unwrap();
    body[from..to].to_string()
}
