//! Building the model a session names (`--llm`), for a new run or a resumed one.

use evootter::engine::{Event, SessionDoc};
use evootter::llm::Model;
use evootter::llm::anthropic::{Anthropic, AnthropicConfig};
use evootter::llm::cache::{CachedModel, ResponseCache};
use evootter::llm::notice::RetryObserver;
use evootter::llm::openai::{OpenAi, OpenAiConfig};
use evootter::llm::price::PriceTable;
use evootter::llm::retry::RetryPolicy;
use evootter::llm::scripted::ScriptedModel;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// `--reasoning` as an Anthropic thinking budget in tokens.
fn thinking_budget(r: &str) -> anyhow::Result<u32> {
    Ok(match r {
        "low" => 2048,
        "medium" => 8192,
        "high" => 24_000,
        n => n.parse().map_err(|_| {
            anyhow::anyhow!("--reasoning `{n}`: use low, medium, high or a number of tokens")
        })?,
    })
}

/// The user's price table (`prices.toml` in the config directory) over the built-in one.
pub fn prices() -> anyhow::Result<PriceTable> {
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
) -> anyhow::Result<Option<Arc<dyn Model>>> {
    let cfg = &doc.config;
    let Some(spec) = cfg.llm.as_deref() else {
        return Ok(None);
    };
    let cached = |m: Box<dyn Model>| -> Arc<dyn Model> {
        match ResponseCache::default_dir() {
            Some(dir) => Arc::new(CachedModel::new(m, ResponseCache::at(dir))),
            None => Arc::from(m),
        }
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
    let model: Arc<dyn Model> = match spec {
        "anthropic" => cached(Box::new(Anthropic::new(AnthropicConfig {
            model: cfg.llm_model.clone(),
            base_url: cfg.llm_base_url.clone(),
            thinking_budget: cfg
                .llm_reasoning
                .as_deref()
                .map(thinking_budget)
                .transpose()?,
            retry: retry.clone(),
        })?)),
        "openai" => cached(Box::new(OpenAi::new(OpenAiConfig {
            model: cfg.llm_model.clone(),
            base_url: cfg.llm_base_url.clone(),
            reasoning_effort: cfg.llm_reasoning.clone(),
            retry,
            ..Default::default()
        })?)),
        other => match other.strip_prefix("scripted:") {
            Some(file) => {
                let script = ScriptedModel::from_file(file)?;
                for call in &doc.llm_calls {
                    script.mark_replayed(&call.step, &call.reply);
                }
                Arc::new(script)
            }
            None => {
                anyhow::bail!("unknown --llm `{other}`; use anthropic, openai or scripted:FILE")
            }
        },
    };
    Ok(Some(model))
}

/// Checks `--llm` and `--reasoning` before anything is created: an unknown provider or a
/// missing script would otherwise fail after the session exists. (A missing API key is
/// reported later, with the session saved, so that exporting the key and resuming needs no
/// retyping of the run's flags.)
pub fn check_spec(spec: &str, reasoning: Option<&str>) -> anyhow::Result<()> {
    match spec {
        "anthropic" => {
            if let Some(r) = reasoning {
                thinking_budget(r)?;
            }
        }
        "openai" => {}
        other => match other.strip_prefix("scripted:") {
            Some(file) => anyhow::ensure!(
                std::path::Path::new(file).is_file(),
                "--llm scripted:{file}: the script file does not exist"
            ),
            None => {
                anyhow::bail!("unknown --llm `{other}`; use anthropic, openai or scripted:FILE")
            }
        },
    }
    Ok(())
}
