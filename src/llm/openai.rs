//! OpenAI Chat Completions provider (`POST {base}/v1/chat/completions`), loose enough for
//! OpenAI-compatible servers (vLLM, llama.cpp server, Ollama, LiteLLM): `usage` may be missing,
//! `finish_reason` empty or null, `content` null, and a loopback server needs no key.

use serde::Deserialize;
use serde_json::json;

use crate::llm::retry::{ErrorContext, HttpReply, RetryPolicy, preview, send_with_retry};
use crate::llm::{ApiKey, BoxFuture, LlmError, LlmReply, LlmRequest, Model, endpoint};

mod provider_batch;

pub const KEY_VAR: &str = "OPENAI_API_KEY";
pub const BASE_URL_VAR: &str = "OPENAI_BASE_URL";
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com";
pub const DEFAULT_MODEL: &str = "gpt-5";
const PROVIDER: &str = "openai";

/// Which body field carries the output limit. OpenAI's reasoning models reject `max_tokens`,
/// while many compatible servers only know `max_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenLimitField {
    /// `max_completion_tokens` on api.openai.com, `max_tokens` elsewhere.
    #[default]
    Auto,
    MaxTokens,
    MaxCompletionTokens,
}

#[derive(Debug, Clone, Default)]
pub struct OpenAiConfig {
    /// `None` means [`DEFAULT_MODEL`].
    pub model: Option<String>,
    /// `None` means `OPENAI_BASE_URL`, then [`DEFAULT_BASE_URL`].
    pub base_url: Option<String>,
    /// `reasoning_effort` ("low", "medium", "high") for models that take it (`--reasoning`).
    pub reasoning_effort: Option<String>,
    pub token_limit_field: TokenLimitField,
    pub retry: RetryPolicy,
}

#[derive(Debug)]
pub struct OpenAi {
    client: reqwest::Client,
    key: Option<ApiKey>,
    base_url: String,
    model: String,
    reasoning_effort: Option<String>,
    limit_field: &'static str,
    retry: RetryPolicy,
}

impl OpenAi {
    /// Reads the key and base URL from the process environment.
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        Self::with_env(config, |k| std::env::var(k).ok())
    }

    /// Like [`OpenAi::new`] with an injectable environment (tests must not mutate the real one).
    pub fn with_env(
        config: OpenAiConfig,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let base_url = config
            .base_url
            .or_else(|| env(BASE_URL_VAR).filter(|b| !b.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let key = env(KEY_VAR)
            .filter(|k| !k.trim().is_empty())
            .map(|k| ApiKey::new(k.trim()));
        if key.is_none() && !endpoint::is_local(&base_url) {
            return Err(LlmError::MissingKey {
                provider: PROVIDER.to_string(),
                var: KEY_VAR.to_string(),
            });
        }
        let limit_field = match config.token_limit_field {
            TokenLimitField::MaxTokens => "max_tokens",
            TokenLimitField::MaxCompletionTokens => "max_completion_tokens",
            TokenLimitField::Auto if base_url.contains("api.openai.com") => "max_completion_tokens",
            TokenLimitField::Auto => "max_tokens",
        };
        Ok(Self {
            client: crate::llm::endpoint::client(),
            key,
            base_url,
            model: config.model.unwrap_or_else(|| DEFAULT_MODEL.to_string()),
            reasoning_effort: config.reasoning_effort,
            limit_field,
            retry: config.retry,
        })
    }

    /// The exact JSON body sent for `req`.
    pub fn body(&self, req: &LlmRequest) -> serde_json::Value {
        let mut messages = Vec::with_capacity(req.messages.len() + 1);
        if let Some(system) = &req.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        for m in &req.messages {
            messages.push(json!(m));
        }
        let mut body = json!({"model": self.model, "messages": messages});
        body[self.limit_field] = json!(req.max_tokens);
        if let Some(effort) = &self.reasoning_effort {
            body["reasoning_effort"] = json!(effort);
        }
        body
    }

    fn redact(&self, text: &str) -> String {
        match &self.key {
            Some(k) => k.redact(text),
            None => text.to_string(),
        }
    }

    async fn call(&self, req: LlmRequest) -> Result<LlmReply, LlmError> {
        let body = Payload::Json(self.body(&req));
        let http = self
            .send(reqwest::Method::POST, "chat/completions", Some(&body))
            .await?;
        self.completion(&http.body, http.latency_ms)
    }

    /// One request to the API at `path` (under `/v1/`), retried as every call is; an answer
    /// other than 2xx becomes the error that says what to do.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Payload>,
    ) -> Result<HttpReply, LlmError> {
        let url = endpoint::join(&self.base_url, path);
        let ctx = ErrorContext {
            provider: PROVIDER,
            model: &self.model,
            key_var: KEY_VAR,
        };
        send_with_retry(
            &self.retry,
            ctx,
            &url,
            |t| self.redact(t),
            || {
                let rb = self.client.request(method.clone(), &url);
                let rb = match body {
                    Some(Payload::Json(b)) => rb.json(b),
                    Some(Payload::Form { boundary, bytes }) => rb
                        .header(
                            "content-type",
                            format!("multipart/form-data; boundary={boundary}"),
                        )
                        .body(bytes.clone()),
                    None => rb,
                };
                match &self.key {
                    Some(k) => rb.bearer_auth(k.expose()),
                    None => rb,
                }
            },
        )
        .await
    }

    /// A chat completion (a call's answer, or one result of a batch) as a reply.
    fn completion(&self, body: &str, latency_ms: u64) -> Result<LlmReply, LlmError> {
        let malformed = |detail: String| LlmError::MalformedResponse {
            provider: PROVIDER.to_string(),
            detail: format!("{detail}; body starts: {}", self.redact(&preview(body))),
        };
        let parsed: Response = serde_json::from_str(body).map_err(|e| malformed(e.to_string()))?;
        let choice = parsed
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| malformed("no choices in the reply".to_string()))?;
        let usage = parsed.usage.unwrap_or_default();
        // `prompt_tokens` includes the cached ones; servers that do not cache send no details.
        let cached = usage
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .unwrap_or(0);
        let prompt = usage.prompt_tokens.unwrap_or(0);
        Ok(LlmReply {
            text: choice.message.and_then(|m| m.content).unwrap_or_default(),
            input_tokens: prompt.saturating_sub(cached),
            cache_write_tokens: 0,
            cache_read_tokens: cached.min(prompt),
            output_tokens: usage.completion_tokens.unwrap_or(0),
            model: parsed
                .model
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| self.model.clone()),
            stop_reason: choice.finish_reason.filter(|s| !s.is_empty()),
            latency_ms,
            cached: false,
            batch: None,
        })
    }
}

/// A request body: JSON, or a multipart form (a batch's input file upload).
enum Payload {
    Json(serde_json::Value),
    Form { boundary: String, bytes: Vec<u8> },
}

impl Model for OpenAi {
    fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
        Box::pin(self.call(req))
    }

    fn model_id(&self) -> Option<String> {
        Some(self.model.clone())
    }

    fn describe(&self) -> String {
        let mut out = format!("openai {}", self.model);
        if self.base_url != DEFAULT_BASE_URL {
            out.push_str(&format!(" via {}", self.base_url));
        }
        if let Some(e) = &self.reasoning_effort {
            out.push_str(&format!(" (reasoning effort {e})"));
        }
        out
    }

    fn cache_identity(&self) -> Option<String> {
        Some(format!(
            "openai\n{}\n{}\nreasoning={:?}",
            self.model, self.base_url, self.reasoning_effort
        ))
    }
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    choices: Vec<Choice>,
    model: Option<String>,
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<ChoiceMessage>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    content: Option<String>,
}

#[derive(Deserialize, Default)]
struct Usage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Deserialize, Default)]
struct PromptTokensDetails {
    cached_tokens: Option<u64>,
}
