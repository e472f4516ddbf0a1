//! Anthropic Messages API provider (`POST {base}/v1/messages`). No temperature is sent: current
//! Claude models with extended thinking reject it, and EvoOtter gets diversity from prompting.

use serde::Deserialize;
use serde_json::json;

use crate::llm::retry::{ErrorContext, HttpReply, RetryPolicy, preview, send_with_retry};
use crate::llm::{ApiKey, BoxFuture, LlmError, LlmReply, LlmRequest, Model, endpoint};

mod provider_batch;

pub const KEY_VAR: &str = "ANTHROPIC_API_KEY";
pub const BASE_URL_VAR: &str = "ANTHROPIC_BASE_URL";
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";
pub const API_VERSION: &str = "2023-06-01";
const PROVIDER: &str = "anthropic";

#[derive(Debug, Clone, Default)]
pub struct AnthropicConfig {
    /// `None` means [`DEFAULT_MODEL`].
    pub model: Option<String>,
    /// `None` means `ANTHROPIC_BASE_URL`, then [`DEFAULT_BASE_URL`].
    pub base_url: Option<String>,
    /// Extended-thinking budget in tokens (`--reasoning`); `None` leaves thinking off.
    pub thinking_budget: Option<u32>,
    pub retry: RetryPolicy,
}

#[derive(Debug)]
pub struct Anthropic {
    client: reqwest::Client,
    key: ApiKey,
    base_url: String,
    model: String,
    thinking_budget: Option<u32>,
    retry: RetryPolicy,
}

impl Anthropic {
    /// Reads the key and base URL from the process environment.
    pub fn new(config: AnthropicConfig) -> Result<Self, LlmError> {
        Self::with_env(config, |k| std::env::var(k).ok())
    }

    /// Like [`Anthropic::new`] with an injectable environment (tests must not mutate the real one).
    pub fn with_env(
        config: AnthropicConfig,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let key = env(KEY_VAR)
            .filter(|k| !k.trim().is_empty())
            .ok_or_else(|| LlmError::MissingKey {
                provider: PROVIDER.to_string(),
                var: KEY_VAR.to_string(),
            })?;
        let base_url = config
            .base_url
            .or_else(|| env(BASE_URL_VAR).filter(|b| !b.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        Ok(Self {
            client: crate::llm::endpoint::client(),
            key: ApiKey::new(key.trim()),
            base_url,
            model: config.model.unwrap_or_else(|| DEFAULT_MODEL.to_string()),
            thinking_budget: config.thinking_budget,
            retry: config.retry,
        })
    }

    /// The exact JSON body sent for `req`.
    pub fn body(&self, req: &LlmRequest) -> serde_json::Value {
        let mut body = json!({
            "model": self.model,
            "max_tokens": req.max_tokens,
            "messages": req.messages,
        });
        // The first message as text blocks split where the prompts' shared prefixes end, the
        // last of them marked as the cache breakpoint: Anthropic caches the prompt up to it
        // (the system text with it) and looks for a hit at the earlier block boundaries too.
        if let (Some(&last), Some(first)) = (req.cache_points.last(), req.messages.first()) {
            let text = &first.content;
            let mut blocks = vec![];
            let mut from = 0;
            for end in req.cache_points.iter().copied().chain([text.len()]) {
                let end = end.min(text.len());
                if end <= from || !text.is_char_boundary(end) {
                    continue;
                }
                let mut block = json!({"type": "text", "text": &text[from..end]});
                if end == last {
                    block["cache_control"] = json!({"type": "ephemeral"});
                }
                blocks.push(block);
                from = end;
            }
            body["messages"][0]["content"] = json!(blocks);
        }
        if let Some(system) = &req.system {
            body["system"] = json!(system);
        }
        if let Some(budget) = self.thinking_budget {
            // max_tokens must exceed the thinking budget; adding it keeps the caller's
            // max_tokens as the room left for the answer itself.
            body["max_tokens"] = json!(req.max_tokens.saturating_add(budget));
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        }
        body
    }

    async fn call(&self, req: LlmRequest) -> Result<LlmReply, LlmError> {
        let http = self
            .send(reqwest::Method::POST, "messages", Some(&self.body(&req)))
            .await?;
        self.message(&http.body, http.latency_ms)
    }

    /// One request to the API at `path` (under `/v1/`), retried as every call is; an answer
    /// other than 2xx becomes the error that says what to do.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&serde_json::Value>,
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
            |t| self.key.redact(t),
            || {
                let rb = self
                    .client
                    .request(method.clone(), &url)
                    .header("x-api-key", self.key.expose())
                    .header("anthropic-version", API_VERSION);
                match body {
                    Some(b) => rb.header("content-type", "application/json").json(b),
                    None => rb,
                }
            },
        )
        .await
    }

    /// A Messages API message (a call's answer, or one result of a batch) as a reply.
    fn message(&self, body: &str, latency_ms: u64) -> Result<LlmReply, LlmError> {
        let parsed: Response =
            serde_json::from_str(body).map_err(|e| LlmError::MalformedResponse {
                provider: PROVIDER.to_string(),
                detail: format!("{e}; body starts: {}", self.key.redact(&preview(body))),
            })?;
        let text: String = parsed
            .content
            .iter()
            .filter(|b| b.kind == "text")
            .filter_map(|b| b.text.as_deref())
            .collect::<Vec<_>>()
            .join("");
        let usage = parsed.usage.unwrap_or_default();
        Ok(LlmReply {
            text,
            input_tokens: usage.input_tokens.unwrap_or(0),
            output_tokens: usage.output_tokens.unwrap_or(0),
            cache_write_tokens: usage.cache_creation_input_tokens.unwrap_or(0),
            cache_read_tokens: usage.cache_read_input_tokens.unwrap_or(0),
            model: parsed.model.unwrap_or_else(|| self.model.clone()),
            stop_reason: parsed.stop_reason.filter(|s| !s.is_empty()),
            latency_ms,
            cached: false,
            batch: None,
        })
    }
}

impl Model for Anthropic {
    fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
        Box::pin(self.call(req))
    }

    fn model_id(&self) -> Option<String> {
        Some(self.model.clone())
    }

    fn describe(&self) -> String {
        let mut out = format!("anthropic {}", self.model);
        if self.base_url != DEFAULT_BASE_URL {
            out.push_str(&format!(" via {}", self.base_url));
        }
        if let Some(b) = self.thinking_budget {
            out.push_str(&format!(" (thinking budget {b})"));
        }
        out
    }

    fn cache_identity(&self) -> Option<String> {
        Some(format!(
            "anthropic\n{}\n{}\nthinking={:?}",
            self.model, self.base_url, self.thinking_budget
        ))
    }
}

#[derive(Deserialize)]
struct Response {
    content: Vec<Block>,
    model: Option<String>,
    stop_reason: Option<String>,
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
}

/// `input_tokens` counts only the input neither written to nor read from the prompt cache.
#[derive(Deserialize, Default)]
struct Usage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}
