//! Building the model a session names (`--llm`), for a new run or a resumed one.

use evootter::engine::SessionDoc;
use evootter::llm::Model;
use evootter::llm::anthropic::{Anthropic, AnthropicConfig};
use evootter::llm::cache::{CachedModel, ResponseCache};
use evootter::llm::openai::{OpenAi, OpenAiConfig};
use evootter::llm::scripted::ScriptedModel;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The session's model, or `None` when it runs without one. Real providers answer through
/// the response cache, so a resumed or repeated run never pays for the same call twice; a
/// script skips the replies the session has already received.
pub fn build(doc: &SessionDoc) -> anyhow::Result<Option<Arc<dyn Model>>> {
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
    let model: Arc<dyn Model> = match spec {
        "anthropic" => cached(Box::new(Anthropic::new(AnthropicConfig {
            model: cfg.llm_model.clone(),
            base_url: cfg.llm_base_url.clone(),
            ..Default::default()
        })?)),
        "openai" => cached(Box::new(OpenAi::new(OpenAiConfig {
            model: cfg.llm_model.clone(),
            base_url: cfg.llm_base_url.clone(),
            ..Default::default()
        })?)),
        other => match other.strip_prefix("scripted:") {
            Some(file) => {
                let script = ScriptedModel::from_file(file)?;
                let mut used: BTreeMap<&str, usize> = BTreeMap::new();
                for call in &doc.llm_calls {
                    *used.entry(call.step.as_str()).or_default() += 1;
                }
                for (step, n) in used {
                    script.skip_used(step, n);
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
