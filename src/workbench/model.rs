//! Building the model a session names (`--llm`), for a new run or a resumed one.

use crate::engine::{Event, RunConfig, SessionDoc};
use crate::llm::anthropic::{Anthropic, AnthropicConfig};
use crate::llm::cache::{CachedModel, ResponseCache};
use crate::llm::notice::RetryObserver;
use crate::llm::openai::{OpenAi, OpenAiConfig};
use crate::llm::price::{PriceError, PriceTable};
use crate::llm::provider_batch::BatchApi;
use crate::llm::retry::RetryPolicy;
use crate::llm::scripted::ScriptedModel;
use crate::llm::{LlmError, Model};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("--reasoning `{0}`: use low, medium, high or a number of tokens")]
    Reasoning(String),
    #[error("unknown --llm `{0}`; use anthropic, openai or scripted:FILE")]
    Unknown(String),
    #[error("--llm scripted:{0}: the script file does not exist")]
    NoScript(String),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Prices(#[from] PriceError),
}

/// `--reasoning` as an Anthropic thinking budget in tokens.
fn thinking_budget(r: &str) -> Result<u32, ModelError> {
    Ok(match r {
        "low" => 2048,
        "medium" => 8192,
        "high" => 24_000,
        n => n
            .parse()
            .map_err(|_| ModelError::Reasoning(n.to_string()))?,
    })
}

/// The user's price table (`prices.toml` in the config directory) over the built-in one.
pub fn prices() -> Result<PriceTable, ModelError> {
    let file = directories::ProjectDirs::from("", "", "evootter")
        .map(|d| d.config_dir().join("prices.toml"))
        .filter(|p| p.is_file());
    Ok(match file {
        Some(p) => PriceTable::with_overrides(&p)?,
        None => PriceTable::builtin(),
    })
}

/// The session's model, or `None` when it runs without one. Real providers answer through
/// the response cache, so a resumed or repeated run never pays for the same call twice; a
/// script skips the replies the session has already received. Retries of HTTP calls are
/// reported on `events` as they happen.
pub fn build(
    doc: &SessionDoc,
    events: Option<UnboundedSender<Event>>,
) -> Result<Option<Arc<dyn Model>>, ModelError> {
    let cfg = &doc.config;
    let Some(spec) = cfg.llm.as_deref() else {
        return Ok(None);
    };
    let retry = {
        let mut r = RetryPolicy::default();
        if let Some(n) = cfg.llm_retries {
            r.max_attempts = n + 1;
        }
        r.notify = events.map(|tx| {
            RetryObserver::new(move |n| {
                // A closed channel means nobody is watching any more; the retry goes on.
                let _ = tx.send(Event::from(n));
            })
        });
        r
    };
    if let Some(provider) = http_provider(cfg, retry)? {
        return Ok(Some(cached(Box::new(provider))));
    }
    match spec.strip_prefix("scripted:") {
        Some(file) => {
            let script = ScriptedModel::from_file(file)?;
            for call in &doc.llm_calls {
                script.mark_replayed(&call.step, &call.reply);
            }
            Ok(Some(Arc::new(script)))
        }
        None => Err(ModelError::Unknown(spec.to_string())),
    }
}

/// `m` answering through the user's response cache (when the platform has a cache directory).
pub fn cached(m: Box<dyn Model>) -> Arc<dyn Model> {
    match ResponseCache::default_dir() {
        Some(dir) => Arc::new(CachedModel::new(m, ResponseCache::at(dir))),
        None => Arc::from(m),
    }
}

/// The HTTP provider `cfg` names (anthropic, openai), as it is: no response cache. `None` for
/// a script or no model. It is a [`BatchApi`] too (`bench --llm-batch`).
pub fn http_provider(
    cfg: &RunConfig,
    retry: RetryPolicy,
) -> Result<Option<Arc<dyn BatchApi>>, ModelError> {
    Ok(match cfg.llm.as_deref() {
        Some("anthropic") => Some(Arc::new(Anthropic::new(AnthropicConfig {
            model: cfg.llm_model.clone(),
            base_url: cfg.llm_base_url.clone(),
            thinking_budget: cfg
                .llm_reasoning
                .as_deref()
                .map(thinking_budget)
                .transpose()?,
            retry,
        })?)),
        Some("openai") => Some(Arc::new(OpenAi::new(OpenAiConfig {
            model: cfg.llm_model.clone(),
            base_url: cfg.llm_base_url.clone(),
            reasoning_effort: cfg.llm_reasoning.clone(),
            retry,
            ..Default::default()
        })?)),
        _ => None,
    })
}

/// Checks `--llm` and `--reasoning` before anything is created: an unknown provider or a
/// missing script would otherwise fail after the session exists. (A missing API key is
/// reported later, with the session saved, so that exporting the key and resuming needs no
/// retyping of the run's flags.)
pub fn check_spec(spec: &str, reasoning: Option<&str>) -> Result<(), ModelError> {
    match spec {
        "anthropic" => {
            if let Some(r) = reasoning {
                thinking_budget(r)?;
            }
        }
        "openai" => {}
        other => match other.strip_prefix("scripted:") {
            Some(file) if std::path::Path::new(file).is_file() => {}
            Some(file) => return Err(ModelError::NoScript(file.to_string())),
            None => return Err(ModelError::Unknown(other.to_string())),
        },
    }
    Ok(())
}

/// The provider `cfg` names as a batch API (`--llm-batch`), or why it cannot be one (a
/// script, a missing key): checked before anything is created, and used by [`batcher`].
pub fn batch_api(cfg: &RunConfig) -> Result<Arc<dyn BatchApi>, String> {
    let mut retry = RetryPolicy::default();
    if let Some(n) = cfg.llm_retries {
        retry.max_attempts = n + 1;
    }
    http_provider(cfg, retry)
        .map_err(|e| format!("--llm-batch: {e}"))?
        .ok_or_else(|| {
            "--llm-batch sends the calls as a provider's batches: pass --llm anthropic or --llm \
             openai (a script answers at once)"
                .to_string()
        })
}

/// The provider `cfg` names as a [`Batcher`] (`--llm-batch`) whose journal is in `dir`, its
/// news sent to `news`: the calls of the runs that hold its participants go as the
/// provider's batches, at half price.
pub fn batcher(
    cfg: &RunConfig,
    dir: &std::path::Path,
    pacing: crate::llm::provider_batch::Pacing,
    news: Option<UnboundedSender<crate::llm::provider_batch::BatchNews>>,
) -> Result<crate::llm::provider_batch::Batcher, String> {
    Ok(crate::llm::provider_batch::Batcher::new(
        batch_api(cfg)?,
        dir,
        news,
        pacing,
    ))
}
