//! A stand-in model that replays recorded replies from a JSON script, for offline demos and
//! tests. Each request takes the first unused entry for its step whose `match` (if any) occurs
//! in the prompt, so the engine parses these replies with exactly the code it uses for a real
//! model. It never pretends to be one. Entries with different `match`es are alternatives: a
//! script can answer a selection that real executions may or may not call for.
//!
//! Script format: either a bare list or `{"entries": [...]}` of
//! `{"step": "generate", "reply": "...", "match": "optional substring of the prompt"}`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;

use crate::llm::SCRIPTED_MODEL as MODEL;
use crate::llm::{BoxFuture, LlmError, LlmReply, LlmRequest, Model};

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ScriptEntry {
    pub step: String,
    pub reply: String,
    #[serde(default, rename = "match")]
    pub must_contain: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScriptFile {
    List(Vec<ScriptEntry>),
    Object { entries: Vec<ScriptEntry> },
}

#[derive(Debug)]
pub struct ScriptedModel {
    file: PathBuf,
    entries: Vec<ScriptEntry>,
    /// Indices of the entries already replied.
    used: Mutex<HashSet<usize>>,
}

impl ScriptedModel {
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, LlmError> {
        let path = path.as_ref();
        let error = |detail: String| LlmError::Script {
            step: "(loading)".to_string(),
            file: path.display().to_string(),
            detail,
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| error(format!("cannot read the script: {e}")))?;
        let parsed: ScriptFile = serde_json::from_str(&text).map_err(|e| {
            error(format!(
                "not a valid script ({e}); expected a list of {{\"step\", \"reply\", \"match\"?}}"
            ))
        })?;
        let entries = match parsed {
            ScriptFile::List(e) | ScriptFile::Object { entries: e } => e,
        };
        Ok(Self::from_entries(path, entries))
    }

    /// A script built in memory; `file` is only used to label errors and `describe()`.
    pub fn from_entries(file: impl Into<PathBuf>, entries: Vec<ScriptEntry>) -> Self {
        Self {
            file: file.into(),
            entries,
            used: Mutex::new(HashSet::new()),
        }
    }

    /// Mark the entry that gave `reply` for `step` as used: a resumed session has already
    /// received it and must get the next ones.
    pub fn mark_replayed(&self, step: &str, reply: &str) {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = (0..self.entries.len()).find(|i| {
            let e = &self.entries[*i];
            e.step == step && e.reply == reply && !used.contains(i)
        }) {
            used.insert(i);
        }
    }

    /// The reply to `req`, synchronously (a script needs no waiting); `complete` wraps it.
    pub fn reply(&self, req: &LlmRequest) -> Result<LlmReply, LlmError> {
        let error = |detail: String| LlmError::Script {
            step: req.step.clone(),
            file: self.file.display().to_string(),
            detail,
        };
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        let prompt = req.prompt_text();
        let unused: Vec<usize> = (0..self.entries.len())
            .filter(|i| self.entries[*i].step == req.step && !used.contains(i))
            .collect();
        if unused.is_empty() {
            let total = self.entries.iter().filter(|e| e.step == req.step).count();
            return Err(error(format!(
                "no scripted reply left for this step (the script has {total}, all used); \
                 the run asked for more calls than were recorded"
            )));
        }
        let Some(i) = unused.iter().copied().find(|i| {
            self.entries[*i]
                .must_contain
                .as_deref()
                .is_none_or(|needle| prompt.contains(needle))
        }) else {
            let needles: Vec<String> = unused
                .iter()
                .filter_map(|i| self.entries[*i].must_contain.as_deref())
                .map(|n| format!("{n:?}"))
                .collect();
            return Err(error(format!(
                "none of the {} unused replies fits this prompt (each expects the prompt to \
                 contain one of: {}); the script was recorded for a different run",
                unused.len(),
                needles.join(", ")
            )));
        };
        used.insert(i);
        let entry = &self.entries[i];
        Ok(LlmReply {
            text: entry.reply.clone(),
            input_tokens: 0,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            output_tokens: 0,
            model: MODEL.to_string(),
            stop_reason: Some(MODEL.to_string()),
            latency_ms: 0,
            cached: false,
            batch: None,
        })
    }
}

impl Model for ScriptedModel {
    fn complete(&self, req: LlmRequest) -> BoxFuture<'_, Result<LlmReply, LlmError>> {
        let result = self.reply(&req);
        Box::pin(async move { result })
    }

    fn model_id(&self) -> Option<String> {
        Some(MODEL.to_string())
    }

    fn describe(&self) -> String {
        format!(
            "scripted replies from {} (not a real model)",
            self.file.display()
        )
    }
}
