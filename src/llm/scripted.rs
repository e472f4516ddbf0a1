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
        let fits = |i: &usize| {
            self.entries[*i]
                .must_contain
                .as_deref()
                .is_none_or(|needle| prompt.contains(needle))
        };
        // A curated population (an edit, an add, a veto) shows tests no recorded selection
        // saw: they are answered by the preference the recorded replies show.
        if req.step == "select"
            && !unused.iter().any(fits)
            && let Some(text) = self.by_recorded_preference(&prompt)
        {
            return Ok(scripted_reply(text));
        }
        if unused.is_empty() {
            let total = self.entries.iter().filter(|e| e.step == req.step).count();
            return Err(error(format!(
                "no scripted reply left for this step (the script has {total}, all used); \
                 the run asked for more calls than were recorded"
            )));
        }
        let Some(i) = unused.iter().copied().find(fits) else {
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
        Ok(scripted_reply(self.entries[i].reply.clone()))
    }

    /// A selection's reply for tests no recorded reply saw: every test the prompt shows,
    /// ordered by the recorded selections (a test a later one kept first, then the order
    /// within it), then the tests none of them named, in the prompt's order. The step takes
    /// as many as it asked for. `None` when the prompt shows no test.
    fn by_recorded_preference(&self, prompt: &str) -> Option<String> {
        let shown = shown_test_ids(prompt);
        if shown.is_empty() {
            return None;
        }
        let recorded: Vec<Vec<String>> = self
            .entries
            .iter()
            .filter(|e| e.step == "select")
            .map(|e| json_ids(&e.reply))
            .collect();
        let rank = |id: &String| {
            recorded
                .iter()
                .enumerate()
                .rev()
                .find_map(|(n, ids)| ids.iter().position(|x| x == id).map(|at| (n, at)))
                .map_or((1, 0, 0), |(n, at)| (0, usize::MAX - n, at))
        };
        let mut order = shown.clone();
        order.sort_by_key(|id| (rank(id), shown.iter().position(|x| x == id)));
        let list = order
            .iter()
            .map(|id| format!("\"{id}\""))
            .collect::<Vec<_>>()
            .join(", ");
        Some(format!(
            "SCRIPTED: no recorded reply shows these tests (the population was curated), so \
             they are ranked by the preference the recorded selections show: tests they kept \
             first, the others in the order shown.\n\n```json\n[{list}]\n```\n"
        ))
    }
}

/// A recorded (or derived) reply: no tokens, no latency, labelled as the scripted model.
fn scripted_reply(text: String) -> LlmReply {
    LlmReply {
        text,
        input_tokens: 0,
        cache_write_tokens: 0,
        cache_read_tokens: 0,
        output_tokens: 0,
        model: MODEL.to_string(),
        stop_reason: Some(MODEL.to_string()),
        latency_ms: 0,
        cached: false,
        batch: None,
    }
}

/// The ids of the `<test id="t3">` blocks of a prompt, in order.
fn shown_test_ids(prompt: &str) -> Vec<String> {
    let mut ids = vec![];
    for part in prompt.split("<test id=\"").skip(1) {
        if let Some((id, _)) = part.split_once('"')
            && !ids.iter().any(|x| x == id)
        {
            ids.push(id.to_string());
        }
    }
    ids
}

/// The ids of a reply's last JSON list (`["t3", "t8"]`), in order.
fn json_ids(reply: &str) -> Vec<String> {
    let Some(open) = reply.rfind('[') else {
        return vec![];
    };
    let close = reply[open..]
        .find(']')
        .map_or(reply.len(), |c| open + c + 1);
    serde_json::from_str(&reply[open..close]).unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: &str, needle: &str, reply: &str) -> ScriptEntry {
        ScriptEntry {
            step: step.into(),
            reply: reply.into(),
            must_contain: Some(needle.into()),
        }
    }

    fn select(prompt: &str) -> LlmRequest {
        LlmRequest::single("select", None, prompt, 100)
    }

    /// A curated population shows tests no recorded selection saw: the script answers with
    /// the tests shown, those a later recorded selection kept first, and says it derived it.
    #[test]
    fn a_selection_nobody_recorded_follows_the_recorded_preference() {
        let model = ScriptedModel::from_entries(
            "script.json",
            vec![
                entry(
                    "select",
                    "<test id=\"t4\">",
                    "keep\n```json\n[\"t3\", \"t8\"]\n```",
                ),
                entry(
                    "select",
                    "<test id=\"t11\">",
                    "keep\n```json\n[\"t9\"]\n```",
                ),
            ],
        );
        let prompt = "<test id=\"t8\">a</test><test id=\"t17\">b</test><test id=\"t9\">c</test>\
                      <test id=\"t3\">d</test>";
        let reply = model.reply(&select(prompt)).unwrap();
        assert!(reply.text.starts_with("SCRIPTED"), "{}", reply.text);
        assert_eq!(json_ids(&reply.text), ["t9", "t3", "t8", "t17"]);
        // A prompt a recorded entry fits still gets that entry.
        let recorded = model.reply(&select("<test id=\"t11\">x</test>")).unwrap();
        assert_eq!(json_ids(&recorded.text), ["t9"]);
        // Another step with no fitting reply is still refused, by what it expected.
        let err = model
            .reply(&LlmRequest::single("crossover", None, "x", 100))
            .unwrap_err();
        assert!(err.to_string().contains("no scripted reply left"), "{err}");
    }
}
