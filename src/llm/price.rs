//! USD prices per million input/output tokens, used to put a cost on every call. Built-in
//! prices cover a few current models; users override or extend them in a TOML file:
//!
//! ```toml
//! [models."claude-sonnet-4-5"]
//! input = 3.0
//! output = 15.0
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// USD per million input tokens.
    pub input: f64,
    /// USD per million output tokens.
    pub output: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PriceTable {
    #[serde(default)]
    pub models: BTreeMap<String, Price>,
}

#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    #[error("cannot read the price file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "the price file {path} is not valid: {source}; expected [models.\"NAME\"] with input = and output = (USD per million tokens)"
    )]
    Parse {
        path: String,
        source: toml::de::Error,
    },
}

/// List prices at the time of writing; a user file corrects them when they change.
const BUILTIN: &[(&str, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-sonnet-4-5", 3.0, 15.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-haiku-4-5", 1.0, 5.0),
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.4),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    // Recorded replies replayed by `ScriptedModel` cost nothing.
    ("scripted", 0.0, 0.0),
];

impl PriceTable {
    pub fn builtin() -> Self {
        let models = BUILTIN
            .iter()
            .map(|&(name, input, output)| (name.to_string(), Price { input, output }))
            .collect();
        Self { models }
    }

    /// Built-in prices with the user's file laid over them.
    pub fn with_overrides(path: &Path) -> Result<Self, PriceError> {
        let text = std::fs::read_to_string(path).map_err(|source| PriceError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let mut table = Self::builtin();
        table
            .merge_toml(&text)
            .map_err(|source| PriceError::Parse {
                path: path.display().to_string(),
                source,
            })?;
        Ok(table)
    }

    pub fn merge_toml(&mut self, text: &str) -> Result<(), toml::de::Error> {
        let user: PriceTable = toml::from_str(text)?;
        self.models.extend(user.models);
        Ok(())
    }

    /// The price for `model`: an exact entry, else the longest entry that `model` extends with a
    /// `-suffix` (providers report dated ids like `claude-sonnet-4-5-20250929`).
    pub fn price(&self, model: &str) -> Option<Price> {
        if let Some(p) = self.models.get(model) {
            return Some(*p);
        }
        self.models
            .iter()
            .filter(|(name, _)| {
                model
                    .strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
    }

    /// USD for one call, or `None` when the model has no price.
    pub fn cost(&self, model: &str, input_tokens: u64, output_tokens: u64) -> Option<f64> {
        let p = self.price(model)?;
        Some((input_tokens as f64 * p.input + output_tokens as f64 * p.output) / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_and_dated_ids() {
        let t = PriceTable::builtin();
        assert_eq!(t.cost("claude-sonnet-4-5", 1_000_000, 0), Some(3.0));
        assert_eq!(
            t.cost("claude-sonnet-4-5-20250929", 0, 1_000_000),
            Some(15.0)
        );
        assert_eq!(t.price("gpt-5-mini-2025-08-07"), t.price("gpt-5-mini"));
        assert_eq!(t.cost("gpt-50", 1, 1), None);
        assert_eq!(t.cost("llama-3", 1, 1), None);
    }

    #[test]
    fn user_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.toml");
        std::fs::write(
            &path,
            "[models.\"claude-sonnet-4-5\"]\ninput = 1.0\noutput = 2.0\n\n[models.\"qwen3\"]\ninput = 0.5\noutput = 0.5\n",
        )
        .unwrap();
        let t = PriceTable::with_overrides(&path).unwrap();
        assert_eq!(t.cost("claude-sonnet-4-5", 1_000_000, 1_000_000), Some(3.0));
        assert_eq!(t.cost("qwen3", 2_000_000, 0), Some(1.0));
        assert!(t.price("gpt-5").is_some());

        std::fs::write(&path, "[models.x]\ninput = \"cheap\"\n").unwrap();
        let err = PriceTable::with_overrides(&path).unwrap_err().to_string();
        assert!(err.contains("prices.toml"), "{err}");
    }
}
