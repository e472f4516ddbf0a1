//! The LLM provider layer: one dyn-compatible [`Model`] trait, the request and reply types every
//! EvoOtter step uses, the [`CallRecord`] stored in a session, and the error type whose messages
//! tell the user what to do. Providers are hand-written on reqwest so that token accounting and
//! the recorded prompt/reply are exact.

pub mod anthropic;
pub mod budget;
pub mod cache;
pub mod endpoint;
pub mod notice;
pub mod openai;
pub mod price;
pub mod provider_batch;
pub mod retry;
pub mod scripted;

/// The model name a scripted reply is recorded under (`--llm scripted:FILE`, the demo).
pub const SCRIPTED_MODEL: &str = "scripted";

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::llm::price::PriceTable;

/// The future returned by [`Model::complete`]; boxed so that `dyn Model` works.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who wrote a message. The system prompt travels separately in [`LlmRequest::system`]
/// because Anthropic takes it outside the message list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// One call to a model. `step` names the EvoOtter step ("generate", "select", "crossover", ...)
/// so that records, costs and scripted replays can be grouped by it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmRequest {
    pub step: String,
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub max_tokens: u32,
    /// Byte offsets in the first message where a prefix shared with the run's other prompts
    /// ends (the templates' `=== cache ===` lines): Anthropic gets its cache breakpoint there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cache_points: Vec<usize>,
}

impl LlmRequest {
    /// A single-turn request: the common case for every EvoOtter step.
    pub fn single(
        step: impl Into<String>,
        system: Option<String>,
        user: impl Into<String>,
        max_tokens: u32,
    ) -> Self {
        Self {
            step: step.into(),
            system,
            messages: vec![Message::user(user)],
            max_tokens,
            cache_points: vec![],
        }
    }

    /// The full prompt text (system then messages), used for scripted `match` checks.
    pub fn prompt_text(&self) -> String {
        let mut out = String::new();
        if let Some(system) = &self.system {
            out.push_str(system);
            out.push('\n');
        }
        for m in &self.messages {
            out.push_str(&m.content);
            out.push('\n');
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmReply {
    pub text: String,
    /// Input tokens read as new (neither written to nor read from the provider's prompt cache).
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens written to the provider's prompt cache (Anthropic's
    /// `cache_creation_input_tokens`), and read from it (Anthropic's `cache_read_input_tokens`,
    /// OpenAI's `prompt_tokens_details.cached_tokens`); priced apart.
    #[serde(default)]
    pub cache_write_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// The model that answered, as the provider reports it (may carry a date suffix).
    pub model: String,
    pub stop_reason: Option<String>,
    pub latency_ms: u64,
    /// True when the reply came from the response cache and no HTTP call was made.
    pub cached: bool,
    /// The provider batch that answered it (`--llm-batch`), billed at the batch discount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
}

/// A language model. Dyn-compatible so the engine can hold a `Box<dyn Model>` chosen at runtime.
pub trait Model: Send + Sync {
    fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>>;

    /// Provider and model for display; never contains the API key.
    fn describe(&self) -> String;

    /// The model's name as the price table knows it, for estimating a call before it is
    /// made (budgets). `None` when unknown.
    fn model_id(&self) -> Option<String> {
        None
    }

    /// The share of the price table's price this model is billed (a provider batch's
    /// discount), for estimating a call before it is made.
    fn billed_share(&self) -> f64 {
        1.0
    }

    /// Everything besides the request that determines the reply (provider, model, base URL,
    /// thinking budget), used as part of the response-cache key. `None` means "do not cache"
    /// (scripted replies are already free and must stay step-ordered).
    fn cache_identity(&self) -> Option<String> {
        None
    }

    /// Drop a stored reply to `req` that proved unusable, so asking again after `--resume`
    /// reaches the model instead of replaying the same reply.
    fn forget<'a>(&'a self, _req: &'a LlmRequest) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// A boxed or shared model is a model: every method forwards, so none can be forgotten.
macro_rules! forward_model {
    ($($ptr:ident),+) => {$(
        impl<M: Model + ?Sized> Model for $ptr<M> {
            fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
                (**self).complete(req)
            }
            fn describe(&self) -> String {
                (**self).describe()
            }
            fn model_id(&self) -> Option<String> {
                (**self).model_id()
            }
            fn billed_share(&self) -> f64 {
                (**self).billed_share()
            }
            fn cache_identity(&self) -> Option<String> {
                (**self).cache_identity()
            }
            fn forget<'a>(&'a self, req: &'a LlmRequest) -> BoxFuture<'a, ()> {
                (**self).forget(req)
            }
        }
    )+};
}
forward_model!(Box, Arc);

/// Calls, tokens, time and cost added up over some call records (a run, or one step).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CallTotals {
    pub calls: usize,
    /// Of those, answered from the response cache.
    pub cached: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_write_tokens: u64,
    pub cache_read_tokens: u64,
    pub seconds: f64,
    /// `None` as soon as one call used a model missing from the price table: an unknown
    /// cost is not zero.
    pub cost_usd: Option<f64>,
}

impl CallTotals {
    pub fn of<'a>(calls: impl IntoIterator<Item = &'a CallRecord>) -> Self {
        let mut t = Self {
            cost_usd: Some(0.0),
            ..Self::default()
        };
        for c in calls {
            t.add(c);
        }
        t
    }

    pub fn add(&mut self, c: &CallRecord) {
        if self.calls == 0 {
            self.cost_usd = Some(0.0);
        }
        self.calls += 1;
        self.cached += usize::from(c.cached);
        self.input_tokens += c.input_tokens;
        self.output_tokens += c.output_tokens;
        self.cache_write_tokens += c.cache_write_tokens;
        self.cache_read_tokens += c.cache_read_tokens;
        self.seconds += c.latency_ms as f64 / 1000.0;
        self.cost_usd = self.cost_usd.zip(c.cost_usd).map(|(a, b)| a + b);
    }

    /// Of all input tokens, the share read from the provider's prompt cache.
    pub fn cache_read_share(&self) -> f64 {
        let all = self.input_tokens + self.cache_write_tokens + self.cache_read_tokens;
        if all == 0 {
            0.0
        } else {
            self.cache_read_tokens as f64 / all as f64
        }
    }

    /// The cost for people: dollars, or why it is unknown.
    pub fn cost_label(&self) -> String {
        self.cost_usd.map_or_else(
            || "unknown (a model is not in the price table)".to_string(),
            |c| format!("${c:.4}"),
        )
    }
}

/// Of the prompt bytes `calls` sent, the share that repeats, byte for byte, the start of an
/// earlier call's prompt (system text, then each message, in the order sent): what a
/// provider's prefix cache could at most read instead of processing anew. Cached replies sent
/// nothing and are left out.
pub fn shared_prefix_share(calls: &[CallRecord]) -> f64 {
    let texts: Vec<String> = calls
        .iter()
        .filter(|c| !c.cached)
        .map(|c| {
            let mut t = c.request.system.clone().unwrap_or_default();
            for m in &c.request.messages {
                t.push('\u{0}');
                t.push_str(&m.content);
            }
            t
        })
        .collect();
    let (mut shared, mut total) = (0usize, 0usize);
    for (i, t) in texts.iter().enumerate() {
        total += t.len();
        shared += texts[..i]
            .iter()
            .map(|e| e.bytes().zip(t.bytes()).take_while(|(a, b)| a == b).count())
            .max()
            .unwrap_or(0);
    }
    if total == 0 {
        0.0
    } else {
        shared as f64 / total as f64
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The prompt part of a [`CallRecord`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedPrompt {
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub max_tokens: u32,
}

/// One model call as stored in the session document. Built only from the request and the
/// reply, so no key or header can end up in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub step: String,
    pub request: RecordedPrompt,
    pub reply: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens written to and read from the provider's prompt cache (see [`LlmReply`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    pub latency_ms: u64,
    /// `None` when the model is not in the price table. A cached reply costs nothing.
    pub cost_usd: Option<f64>,
    pub cached: bool,
    pub model: String,
    /// The provider batch that answered it (`--llm-batch`); its cost is the batch price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
}

impl CallRecord {
    /// A reply recorded in the instance (the offline demo, `--llm scripted`): no provider
    /// was called, so it counts no tokens and costs nothing.
    pub fn is_scripted(&self) -> bool {
        self.model == SCRIPTED_MODEL
    }

    /// Whether every one of `calls` was scripted (and there is one).
    pub fn all_scripted(calls: &[CallRecord]) -> bool {
        !calls.is_empty() && calls.iter().all(CallRecord::is_scripted)
    }

    /// Its cost for people: dollars, `cached` (free), or `unpriced`.
    pub fn cost_label(&self) -> String {
        match (self.cached, self.cost_usd) {
            (true, _) => "cached".to_string(),
            (false, Some(usd)) => format!("${usd:.4}"),
            (false, None) => "unpriced".to_string(),
        }
    }

    pub fn new(req: &LlmRequest, reply: &LlmReply, prices: &PriceTable) -> Self {
        let cost_usd = if reply.cached {
            Some(0.0)
        } else {
            let tokens = price::Tokens {
                input: reply.input_tokens,
                cache_write: reply.cache_write_tokens,
                cache_read: reply.cache_read_tokens,
                output: reply.output_tokens,
            };
            let discount = if reply.batch.is_some() {
                price::BATCH_DISCOUNT
            } else {
                1.0
            };
            prices.cost_of(&reply.model, tokens).map(|c| c * discount)
        };
        Self {
            step: req.step.clone(),
            request: RecordedPrompt {
                system: req.system.clone(),
                messages: req.messages.clone(),
                max_tokens: req.max_tokens,
            },
            reply: reply.text.clone(),
            input_tokens: reply.input_tokens,
            output_tokens: reply.output_tokens,
            cache_write_tokens: reply.cache_write_tokens,
            cache_read_tokens: reply.cache_read_tokens,
            latency_ms: reply.latency_ms,
            cost_usd,
            cached: reply.cached,
            model: reply.model.clone(),
            batch: reply.batch.clone(),
        }
    }
}

/// An API key that never prints itself.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key, also held by `secrets` so that no text evootter writes or sends carries it.
    pub fn new(key: impl Into<String>) -> Self {
        let key = key.into();
        crate::secrets::hold(&key);
        Self(key)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Removes the key from text that came back from a server (some echo part or all of it).
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() >= 4 {
            text.replace(&self.0, "[redacted]")
        } else {
            text.to_string()
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// Everything that can go wrong talking to a model. Messages name the step-independent cause
/// and what the user should do; the caller adds the step.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("no API key for {provider}: set the {var} environment variable")]
    MissingKey { provider: String, var: String },

    #[error("{provider} rejected the API key (HTTP {status}): {message}; check the key in {var}")]
    BadKey {
        provider: String,
        status: u16,
        var: String,
        message: String,
    },

    #[error(
        "{provider} does not know the model '{model}' (HTTP {status}): {message}; pass a valid model name with --model"
    )]
    BadModel {
        provider: String,
        model: String,
        status: u16,
        message: String,
    },

    #[error(
        "the prompt does not fit the context window of '{model}' on {provider}: {message}; use a model with a larger context or shrink the prompt"
    )]
    ContextOverflow {
        provider: String,
        model: String,
        message: String,
    },

    #[error("{provider} refused the request (HTTP {status}): {message}")]
    BadRequest {
        provider: String,
        status: u16,
        message: String,
    },

    #[error("{provider} sent a response that could not be understood: {detail}")]
    MalformedResponse { provider: String, detail: String },

    #[error(
        "{provider} failed after {attempts} attempts over {seconds:.1} s at {url} (last: {last}); the service may be overloaded or unreachable: try again later, or check the URL (--base-url) and the network, then continue the run with `evootter run --resume`"
    )]
    RetriesExhausted {
        provider: String,
        /// Without credentials or query string (`endpoint::redacted`).
        url: String,
        attempts: u32,
        /// From the first attempt to the last failure, the waits included.
        seconds: f64,
        last: String,
    },

    #[error("could not send the request to {provider}: {detail}; check --base-url")]
    Transport { provider: String, detail: String },

    #[error("scripted model ({file}), step '{step}': {detail}")]
    Script {
        step: String,
        file: String,
        detail: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(model: &str, cached: bool) -> CallRecord {
        let req = LlmRequest::single("select", Some("system".into()), "user", 100);
        let reply = LlmReply {
            text: "x".into(),
            input_tokens: 1_000_000,
            output_tokens: 0,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            model: model.into(),
            stop_reason: None,
            latency_ms: 1500,
            cached,
            batch: None,
        };
        CallRecord::new(&req, &reply, &price::PriceTable::builtin())
    }

    #[test]
    fn the_shared_prefix_is_what_repeats_an_earlier_prompts_start() {
        let with = |user: &str| {
            let mut c = call("claude-sonnet-4-5", false);
            c.request.messages = vec![Message::user(user)];
            c
        };
        // "system\0" (7 bytes) + the user text; the second shares "system\0abcd".
        let calls = [with("abcdef"), with("abcdXY"), with("zzzzzz")];
        let share = shared_prefix_share(&calls);
        assert!((share - (11.0 + 7.0) / 39.0).abs() < 1e-9, "{share}");
        assert_eq!(shared_prefix_share(&calls[..1]), 0.0);
    }

    #[test]
    fn totals_add_up_and_an_unpriced_model_makes_the_cost_unknown() {
        assert_eq!(CallTotals::of(&[]).cost_usd, Some(0.0));
        let priced = [
            call("claude-sonnet-4-5", false),
            call("claude-sonnet-4-5", true),
        ];
        let t = CallTotals::of(&priced);
        assert_eq!((t.calls, t.cached, t.input_tokens), (2, 1, 2_000_000));
        assert_eq!(t.cost_usd, Some(3.0), "the cached call is free");
        assert_eq!(t.seconds, 3.0);
        assert_eq!(t.cost_label(), "$3.0000");
        let mut step = CallTotals::default();
        step.add(&priced[0]);
        assert_eq!(step.cost_usd, Some(3.0));
        step.add(&call("no-such-model", false));
        assert_eq!(step.cost_usd, None);
        assert!(step.cost_label().starts_with("unknown"));
    }
}
