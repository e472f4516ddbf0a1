//! USD prices per million input/output tokens, used to put a cost on every call. Built-in
//! prices cover a few current models; users override or extend them in a TOML file:
//!
//! ```toml
//! [models."claude-sonnet-4-5"]
//! input = 3.0
//! output = 15.0
//! cache_write = 3.75   # optional: input written to the prompt cache
//! cache_read = 0.30    # optional: input read from it
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
    /// USD per million input tokens written to the provider's prompt cache (Anthropic: 1.25
    /// times `input` for the five-minute cache). Unset: priced as `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// USD per million input tokens read from the prompt cache (Anthropic: a tenth of
    /// `input`; OpenAI: a half to a tenth by model). Unset: priced as `input`, which never
    /// under-states a cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
}

/// One call's tokens as the provider counts them: new input, input written to and read from
/// its prompt cache, output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub cache_write: u64,
    pub cache_read: u64,
    pub output: u64,
}

/// What a request answered inside a provider batch costs, as a share of the same request sent
/// alone: Anthropic's Message Batches and OpenAI's Batch API both bill half, on input, cache
/// writes and reads, and output alike.
pub const BATCH_DISCOUNT: f64 = 0.5;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PriceTable {
    #[serde(default)]
    pub models: BTreeMap<String, Price>,
    /// When each model's price was taken (`2026-04-16`), where known: list prices change, and
    /// a cost is only as good as its date. A user file sets it as `[as_of] "NAME" = "DATE"`.
    #[serde(default)]
    pub as_of: BTreeMap<String, String>,
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

/// List prices (a user file corrects them when they change): name, input, output, cache
/// write, cache read, USD per million tokens; the last column, where known, is the date the
/// price was taken from the provider's list. Anthropic's five-minute cache writes at 1.25x
/// input and reads at 0.1x; OpenAI charges no write and reads at 0.5x (GPT-4o), 0.25x (GPT-4.1)
/// or 0.1x (GPT-5). The paper's models are Claude Sonnet 4.5 and Claude Opus 4.7 (its Table V).
const BUILTIN: &[(&str, f64, f64, f64, f64, &str)] = &[
    // Opus 4.7 (released 2026-04-16) kept Opus 4.6's list price; its tokenizer counts up to
    // about a third more tokens for the same text, which the provider's counts carry.
    ("claude-opus-4-7", 5.0, 25.0, 6.25, 0.5, "2026-04-16"),
    ("claude-opus-4-6", 5.0, 25.0, 6.25, 0.5, "2026-04-16"),
    ("claude-sonnet-4-6", 3.0, 15.0, 3.75, 0.3, "2026-04-16"),
    ("claude-opus-4-5", 5.0, 25.0, 6.25, 0.5, "2025-11-24"),
    ("claude-opus-4-1", 15.0, 75.0, 18.75, 1.5, "2025-08-05"),
    ("claude-sonnet-4-5", 3.0, 15.0, 3.75, 0.3, "2025-09-29"),
    ("claude-sonnet-4", 3.0, 15.0, 3.75, 0.3, ""),
    ("claude-haiku-4-5", 1.0, 5.0, 1.25, 0.1, ""),
    ("gpt-5", 1.25, 10.0, 1.25, 0.125, ""),
    ("gpt-5-mini", 0.25, 2.0, 0.25, 0.025, ""),
    ("gpt-5-nano", 0.05, 0.4, 0.05, 0.005, ""),
    ("gpt-4.1", 2.0, 8.0, 2.0, 0.5, ""),
    ("gpt-4.1-mini", 0.4, 1.6, 0.4, 0.1, ""),
    ("gpt-4o", 2.5, 10.0, 2.5, 1.25, ""),
    ("gpt-4o-mini", 0.15, 0.6, 0.15, 0.075, ""),
    // Recorded replies replayed by `ScriptedModel` cost nothing.
    ("scripted", 0.0, 0.0, 0.0, 0.0, ""),
];

impl PriceTable {
    pub fn builtin() -> Self {
        let models = BUILTIN
            .iter()
            .map(|&(name, input, output, write, read, _)| {
                let p = Price {
                    input,
                    output,
                    cache_write: Some(write),
                    cache_read: Some(read),
                };
                (name.to_string(), p)
            })
            .collect();
        let as_of = BUILTIN
            .iter()
            .filter(|m| !m.5.is_empty())
            .map(|m| (m.0.to_string(), m.5.to_string()))
            .collect();
        Self { models, as_of }
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
        // A price the user sets without its date has none: the built-in date was another's.
        for name in user.models.keys() {
            self.as_of.remove(name);
        }
        self.models.extend(user.models);
        self.as_of.extend(user.as_of);
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
        self.cost_of(
            model,
            Tokens {
                input: input_tokens,
                output: output_tokens,
                ..Tokens::default()
            },
        )
    }

    /// A call's cost with its prompt-cache writes and reads priced as the table says.
    pub fn cost_of(&self, model: &str, t: Tokens) -> Option<f64> {
        let p = self.price(model)?;
        let usd = t.input as f64 * p.input
            + t.cache_write as f64 * p.cache_write.unwrap_or(p.input)
            + t.cache_read as f64 * p.cache_read.unwrap_or(p.input)
            + t.output as f64 * p.output;
        Some(usd / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_models_are_priced_with_the_date_taken() {
        let t = PriceTable::builtin();
        let opus = t.price("claude-opus-4-7").unwrap();
        assert_eq!((opus.input, opus.output), (5.0, 25.0));
        assert_eq!(t.as_of["claude-opus-4-7"], "2026-04-16");
        let sonnet = t.price("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!((sonnet.input, sonnet.output), (3.0, 15.0));
        assert_eq!(t.as_of["claude-sonnet-4-5"], "2025-09-29");
        // A price of the user's carries the user's date, or none.
        let mut u = PriceTable::builtin();
        u.merge_toml("[models.\"claude-opus-4-7\"]\ninput = 6.0\noutput = 30.0\n")
            .unwrap();
        assert!(!u.as_of.contains_key("claude-opus-4-7"));
        u.merge_toml("[as_of]\n\"claude-opus-4-7\" = \"2026-12-01\"\n")
            .unwrap();
        assert_eq!(u.as_of["claude-opus-4-7"], "2026-12-01");
    }

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
    fn prompt_cache_writes_and_reads_are_priced_apart() {
        let t = PriceTable::builtin();
        let call = Tokens {
            input: 1_000_000,
            cache_write: 1_000_000,
            cache_read: 10_000_000,
            output: 0,
        };
        // Sonnet 4.5: 3 + 3.75 + 10 x 0.30.
        let c = t.cost_of("claude-sonnet-4-5-20250929", call).unwrap();
        assert!((c - 9.75).abs() < 1e-9, "{c}");
        // GPT-4o: no write charge beyond input, reads at half.
        let c = t.cost_of("gpt-4o", call).unwrap();
        assert!((c - (2.5 + 2.5 + 12.5)).abs() < 1e-9, "{c}");
        // A model of yours without cache prices: reads and writes cost as input.
        let mut t = t;
        t.merge_toml("[models.\"qwen3\"]\ninput = 1.0\noutput = 2.0\n")
            .unwrap();
        assert_eq!(t.cost_of("qwen3", call), Some(12.0));
        t.merge_toml("[models.\"qwen3\"]\ninput = 1.0\noutput = 2.0\ncache_read = 0.1\n")
            .unwrap();
        assert_eq!(t.cost_of("qwen3", call), Some(3.0));
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
