//! Budgets in dollars: a run's (`--budget-usd`, `--budget-usd-per-instance` in a batch) and a
//! batch's (`--budget-usd-total`, shared by its instances). A call is checked before it is
//! sent, against an estimate of its cost, so a run stops *before* crossing a budget, with its
//! session saved, and `run --resume --budget-usd Y` goes on from the call it did not make.

use std::sync::{Arc, Mutex};

use crate::llm::price::Price;
use crate::llm::{CallRecord, LlmRequest};

/// Tokens per prompt byte before the run has seen a provider count any (English and code run
/// at about 4 bytes a token; a third over-estimates, which stops early rather than late).
const TOKENS_PER_BYTE: f64 = 1.0 / 3.0;
/// The reply assumed for a step's first call when nothing tells more, nor has any reply been
/// seen yet.
pub const FIRST_REPLY_TOKENS: u64 = 1024;
/// What a test file the model writes is assumed to take, for a step's first call that asks
/// for tests (the bundled examples' run about 240 tokens a test; larger repositories' more):
/// over rather than under, so a budget stops early rather than late.
pub const TOKENS_PER_TEST: u64 = 500;

/// What the next call will likely cost: its prompt's tokens (at the uncached input price, as
/// if nothing were read from the provider's cache) and a reply as long as the step's longest
/// so far; for a step's first call, `tests` test files ([`TOKENS_PER_TEST`] each) when it asks
/// for some, else the run's longest reply, at least [`FIRST_REPLY_TOKENS`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub usd: f64,
}

pub fn estimate(
    req: &LlmRequest,
    earlier: &[CallRecord],
    price: Price,
    tests: Option<u64>,
) -> Estimate {
    let sent: Vec<&CallRecord> = earlier.iter().filter(|c| !c.cached).collect();
    let bytes = |c: &CallRecord| {
        c.request.system.as_ref().map_or(0, String::len)
            + c.request
                .messages
                .iter()
                .map(|m| m.content.len())
                .sum::<usize>()
    };
    let (seen_tokens, seen_bytes) = sent.iter().fold((0u64, 0usize), |(t, b), c| {
        let tokens = c.input_tokens + c.cache_write_tokens + c.cache_read_tokens;
        // Scripted replies count no tokens: they say nothing of the tokenizer.
        if tokens == 0 {
            (t, b)
        } else {
            (t + tokens, b + bytes(c))
        }
    });
    let per_byte = if seen_bytes == 0 {
        TOKENS_PER_BYTE
    } else {
        seen_tokens as f64 / seen_bytes as f64
    };
    let prompt_bytes = req.system.as_ref().map_or(0, String::len)
        + req.messages.iter().map(|m| m.content.len()).sum::<usize>();
    let input_tokens = (prompt_bytes as f64 * per_byte).ceil() as u64;
    let longest = |step: Option<&str>| {
        sent.iter()
            .filter(|c| step.is_none_or(|s| c.step == s))
            .map(|c| c.output_tokens)
            .filter(|t| *t > 0)
            .max()
    };
    let output_tokens = longest(Some(&req.step))
        .or_else(|| tests.map(|n| n * TOKENS_PER_TEST))
        .unwrap_or_else(|| longest(None).unwrap_or(0).max(FIRST_REPLY_TOKENS))
        .min(u64::from(req.max_tokens.max(1)));
    let usd = (input_tokens as f64 * price.input + output_tokens as f64 * price.output) / 1e6;
    Estimate {
        input_tokens,
        output_tokens,
        usd,
    }
}

/// Dollars spent so far against a budget: the run's own calls, or a count shared by the runs
/// of a batch (each adds its calls as they are answered).
#[derive(Debug, Clone)]
pub enum Spent {
    Run,
    Shared(Arc<Mutex<f64>>),
}

/// A limit in dollars and the flag that set it (named when the run stops).
#[derive(Debug, Clone)]
pub struct Budget {
    pub flag: &'static str,
    pub limit_usd: f64,
    pub spent: Spent,
}

impl Budget {
    /// A run's own budget.
    pub fn run(flag: &'static str, limit_usd: f64) -> Self {
        Self {
            flag,
            limit_usd,
            spent: Spent::Run,
        }
    }

    /// A budget shared by several runs, `already` spent by them before.
    pub fn shared(flag: &'static str, limit_usd: f64, already: f64) -> Self {
        Self {
            flag,
            limit_usd,
            spent: Spent::Shared(Arc::new(Mutex::new(already))),
        }
    }

    /// What has been spent against it, given the run's own spending.
    pub fn spent(&self, run_usd: f64) -> f64 {
        match &self.spent {
            Spent::Run => run_usd,
            Spent::Shared(s) => *s.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// A call [`Budget::check`] let through has ended: its estimate, counted against a shared
    /// budget while it ran, is replaced by what it cost (nothing when it failed).
    pub fn settle(&self, est: &Estimate, usd: f64) {
        if let Spent::Shared(s) = &self.spent {
            *s.lock().unwrap_or_else(|e| e.into_inner()) += usd - est.usd;
        }
    }

    /// Whether nothing more can be spent at all (a batch then starts no further instance).
    pub fn exhausted(&self) -> bool {
        self.spent(0.0) >= self.limit_usd
    }

    /// `Err` with the words for the user when `step`'s call, estimated at `est`, would take
    /// the spending past the limit. A shared budget counts the estimate at once, until
    /// [`Budget::settle`]: the runs sharing it check one at a time, so two calls that each
    /// fit cannot cross it together.
    pub fn check(&self, step: &str, est: &Estimate, run_usd: f64) -> Result<(), String> {
        let spent = match &self.spent {
            Spent::Run => run_usd,
            Spent::Shared(s) => {
                let mut spent = s.lock().unwrap_or_else(|e| e.into_inner());
                if *spent + est.usd <= self.limit_usd {
                    *spent += est.usd;
                    return Ok(());
                }
                *spent
            }
        };
        if spent + est.usd <= self.limit_usd {
            return Ok(());
        }
        let whose = match self.spent {
            Spent::Run => "the run's",
            Spent::Shared(_) => "the batch's",
        };
        Err(format!(
            "the next model call ({step}, about ${:.4}: {} tokens in, up to {} out) would take \
             {whose} spending from ${spent:.4} past {} {:.2}; the call was not made{}",
            est.usd,
            est.input_tokens,
            est.output_tokens,
            self.flag,
            self.limit_usd,
            // A run's front end (run, open) says how to go on; a batch's instance has only
            // this line to say it.
            match self.flag {
                "--budget-usd" => String::new(),
                other => format!(" (the same bench with a larger {other} resumes it)"),
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::LlmReply;
    use crate::llm::price::PriceTable;

    fn record(step: &str, prompt: &str, input: u64, output: u64) -> CallRecord {
        let req = LlmRequest::single(step, None, prompt, 16_000);
        let reply = LlmReply {
            text: String::new(),
            input_tokens: input,
            output_tokens: output,
            cache_write_tokens: 0,
            cache_read_tokens: 0,
            model: "claude-sonnet-4-5".into(),
            stop_reason: None,
            latency_ms: 0,
            cached: false,
            batch: None,
        };
        CallRecord::new(&req, &reply, &PriceTable::builtin())
    }

    #[test]
    fn the_estimate_learns_the_tokenizer_and_the_steps_replies() {
        let sonnet = PriceTable::builtin().price("claude-sonnet-4-5").unwrap();
        let req = LlmRequest::single("crossover", None, "x".repeat(3000), 16_000);
        // Nothing seen: a third of a token per byte and the first-reply assumption.
        let e = estimate(&req, &[], sonnet, None);
        assert_eq!(
            (e.input_tokens, e.output_tokens),
            (1000, FIRST_REPLY_TOKENS)
        );
        assert!((e.usd - (1000.0 * 3.0 + 1024.0 * 15.0) / 1e6).abs() < 1e-12);
        // 4000 bytes counted as 1000 tokens: 4 bytes a token; the step's longest reply.
        let seen = [
            record("generate", &"y".repeat(4000), 1000, 2000),
            record("crossover", "", 0, 0),
            record("crossover", &"z".repeat(10), 0, 900),
        ];
        let e = estimate(&req, &seen, sonnet, Some(4));
        assert_eq!((e.input_tokens, e.output_tokens), (750, 900));
        // A step not seen yet takes the tests it asks for, else the run's longest reply, at
        // least the first-reply assumption.
        let select = LlmRequest::single("select", None, "", 16_000);
        assert_eq!(estimate(&select, &seen, sonnet, None).output_tokens, 2000);
        assert_eq!(
            estimate(&select, &seen[1..], sonnet, None).output_tokens,
            1024
        );
        assert_eq!(
            estimate(&select, &seen, sonnet, Some(8)).output_tokens,
            4000
        );
    }

    #[test]
    fn a_call_that_would_cross_is_refused_with_the_flag_named() {
        let est = Estimate {
            input_tokens: 1000,
            output_tokens: 500,
            usd: 0.02,
        };
        let run = Budget::run("--budget-usd", 0.10);
        assert!(
            run.check("select", &est, 0.08).is_ok(),
            "exactly at the limit"
        );
        let err = run.check("crossover", &est, 0.0801).unwrap_err();
        assert!(
            err.contains("crossover") && err.contains("--budget-usd 0.10"),
            "{err}"
        );
        assert!(err.contains("the run's spending from $0.0801"), "{err}");
        let total = Budget::shared("--budget-usd-total", 1.0, 0.5);
        assert!(total.check("select", &est, 99.0).is_ok(), "its own count");
        // Counted while it runs: a second call that fits alone would cross with it.
        let near = Estimate { usd: 0.49, ..est };
        let err = total.check("select", &near, 0.0).unwrap_err();
        assert!(
            err.contains("the batch's") && err.contains("--budget-usd-total"),
            "{err}"
        );
        assert!(err.contains("from $0.5200"), "{err}");
        // It cost less than estimated: the second fits now.
        total.settle(&est, 0.01);
        assert!(total.check("select", &near, 0.0).is_ok());
        assert!(total.exhausted(), "what runs counts: nothing more starts");
        // It failed: nothing spent on it, and room again.
        total.settle(&near, 0.0);
        assert!(!total.exhausted());
    }
}
