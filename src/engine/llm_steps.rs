//! The model's part of the evolutionary loop (paper III-C last paragraph, III-D): choosing
//! tests when fitness cannot (or as the whole `llm` strategy), and batched crossover, one call
//! per generation. Every call is recorded in the session; a reply that cannot be used is
//! noted and the rule-based fallback decides, so a model's reply never stops a run.

use super::events::Event;
use super::machine::{Engine, EngineError};
use super::session::{Candidate, Origin, Target, TestId};
use crate::llm::{CallRecord, LlmRequest, Model};
use crate::prompts::{ParsedTest, PromptKind, parse_id_list, parse_tests};
use serde_json::json;
use std::collections::BTreeSet;

/// The longest `c_old` log shown to the model, per test (its tail: where pytest reports).
const MAX_LOG_CHARS: usize = 6000;
/// Room for the model's reply.
const MAX_REPLY_TOKENS: u32 = 16_000;

fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!(
        "[... {} earlier characters cut ...]\n{}",
        start,
        &s[start..]
    )
}

/// A file name a model proposed, if it is a plain `test_*.py` name.
fn usable_name(name: Option<&str>) -> Option<String> {
    let n = name?.rsplit('/').next()?.trim();
    let stem = n.strip_suffix(".py")?;
    let ok = stem.starts_with("test")
        && !stem.is_empty()
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| n.to_string())
}

impl Engine {
    /// A test the model wrote joins the session under a new id, placed in the test directory
    /// under the name the model gave it (when usable and free) or `fallback`.
    pub(super) fn add_test(&mut self, t: ParsedTest, fallback: &str, origin: Origin) -> TestId {
        let id = format!("t{}", self.doc.tests.len() + 1);
        let name = usable_name(t.name.as_deref()).unwrap_or_else(|| fallback.to_string());
        let taken: BTreeSet<String> = self
            .doc
            .tests
            .values()
            .map(|c| c.rel_path.clone())
            .collect();
        let rel_path = super::setup::place_test(
            &self.doc.inputs.repo,
            &self.doc.config.test_dir,
            &name,
            &taken,
        );
        let file_name = rel_path.rsplit('/').next().unwrap_or(&name).to_string();
        let cand = Candidate {
            id: id.clone(),
            name: file_name,
            rel_path,
            hash: crate::hash::sha256_hex(&t.source),
            source: t.source,
            origin,
        };
        self.doc.tests.insert(id.clone(), cand);
        id
    }

    /// Announce tests the model wrote (initial population or offspring).
    pub(super) fn emit_written(
        &self,
        generation: Option<usize>,
        tests: &[TestId],
        parents: &[TestId],
    ) {
        self.emit(Event::TestsWritten {
            generation,
            tests: tests.to_vec(),
            names: tests
                .iter()
                .map(|t| self.doc.tests[t].name.clone())
                .collect(),
            parents: parents.to_vec(),
        });
    }

    /// Render `kind` with `ctx`, call the model for `step`, record the call.
    pub(super) async fn ask(
        &mut self,
        step: &str,
        kind: PromptKind,
        ctx: serde_json::Value,
    ) -> Result<String, EngineError> {
        Ok(self.ask_or_rule(step, kind, ctx).await?.unwrap_or_default())
    }

    /// As `ask`, for a step a rule can decide without the model (selection, crossover):
    /// `None` when a script has no reply for this prompt (a note says so).
    pub(super) async fn ask_or_rule(
        &mut self,
        step: &str,
        kind: PromptKind,
        ctx: serde_json::Value,
    ) -> Result<Option<String>, EngineError> {
        let llm_err = |detail: String| EngineError::Llm {
            step: step.to_string(),
            detail,
        };
        let (Some(model), Some(prompts)) = (self.model.clone(), self.prompts.clone()) else {
            return Err(llm_err(
                "no model is configured; pass --llm anthropic|openai|scripted:FILE".into(),
            ));
        };
        let rendered = prompts
            .render(kind, &ctx)
            .map_err(|e| llm_err(e.to_string()))?;
        // Logs are redacted as they are made; this covers what else a prompt carries (a log
        // of a session made before, the issue) on its way to the model and into the record.
        let redact = |t: String| crate::secrets::redact(&t).into_owned();
        // Each part between cache points redacted on its own, so the points stay where the
        // shared prefixes end.
        let (mut user, mut points, mut from) = (String::new(), vec![], 0);
        for end in rendered
            .cache_points
            .iter()
            .copied()
            .chain([rendered.user.len()])
        {
            if from > 0 {
                points.push(user.len());
            }
            user.push_str(&redact(rendered.user[from..end].to_string()));
            from = end;
        }
        let mut req = LlmRequest::single(step, rendered.system.map(redact), user, MAX_REPLY_TOKENS);
        req.cache_points = points;
        // The steps that write tests say how many (they decide a reply's length).
        let tests = match kind {
            PromptKind::GenerateMany | PromptKind::Crossover => ctx["n"].as_u64(),
            PromptKind::GenerateOne => Some(1),
            _ => None,
        };
        let est = self.within_budgets(&req, model.as_ref(), tests)?;
        let reply = model.complete(req.clone()).await;
        let record = reply
            .as_ref()
            .ok()
            .map(|r| CallRecord::new(&req, r, &self.prices));
        if let Some(est) = &est {
            let usd = record.as_ref().and_then(|r| r.cost_usd).unwrap_or(0.0);
            for b in &self.budgets {
                b.settle(est, usd);
            }
        }
        let reply = match reply {
            Ok(r) => r,
            // A script recorded for another run (the user curated the population, say) has no
            // reply that fits: where a rule decides without the model (selection, crossover),
            // it does, as for any reply that cannot be used. Real providers' errors still stop
            // the run, resumably.
            Err(e @ crate::llm::LlmError::Script { .. })
                if matches!(step, "select" | "crossover") =>
            {
                let instead = if step == "crossover" {
                    "the parents go on unchanged"
                } else {
                    "the rule-based order decides"
                };
                self.note(format!(
                    "{step}: the recorded replies have no answer for this prompt (the \
                     population was curated, say), so {instead} ({e})"
                ));
                return Ok(None);
            }
            Err(e) => return Err(llm_err(e.to_string())),
        };
        let record = record.unwrap_or_else(|| CallRecord::new(&req, &reply, &self.prices));
        self.last_request = Some(req);
        self.emit(Event::LlmCalled {
            step: record.step.clone(),
            model: record.model.clone(),
            input_tokens: record.input_tokens,
            output_tokens: record.output_tokens,
            latency_ms: record.latency_ms,
            cost_usd: record.cost_usd,
            cached: record.cached,
        });
        self.doc.llm_calls.push(record);
        Ok(Some(reply.text))
    }

    /// Refuses `req` when its estimated cost would take a budget's spending past it. The run
    /// then stops as for any resumable error, its session saved.
    /// Returns the estimate the budgets count until the call is settled.
    fn within_budgets(
        &self,
        req: &LlmRequest,
        model: &dyn Model,
        tests: Option<u64>,
    ) -> Result<Option<crate::llm::budget::Estimate>, EngineError> {
        if self.budgets.is_empty() {
            return Ok(None);
        }
        let name = model.model_id().unwrap_or_else(|| model.describe());
        let Some(price) = self.prices.price(&name) else {
            return Err(EngineError::Budget(format!(
                "a budget needs the model's price, and `{name}` is not in the price table; add \
                 it to ~/.config/evootter/prices.toml ([models.\"{name}\"] input = and output =, \
                 USD per million tokens)"
            )));
        };
        let mut est = crate::llm::budget::estimate(req, &self.doc.llm_calls, price, tests);
        // A provider batch bills half (a request failing in it and sent alone costs the
        // whole, which the next estimate's spending counts).
        est.usd *= model.billed_share();
        let run_usd = self
            .doc
            .llm_calls
            .iter()
            .filter_map(|c| c.cost_usd)
            .fold(0.0, |a, c| a + c);
        for (i, b) in self.budgets.iter().enumerate() {
            if let Err(e) = b.check(&req.step, &est, run_usd) {
                // The ones that counted it give it back.
                for earlier in &self.budgets[..i] {
                    earlier.settle(&est, 0.0);
                }
                return Err(EngineError::Budget(e));
            }
        }
        Ok(Some(est))
    }

    /// What the model sees of each test: its source and its output on `c_old`.
    pub(super) fn test_views(&self, ids: &[TestId]) -> Vec<serde_json::Value> {
        ids.iter()
            .map(|t| {
                let log = self
                    .doc
                    .execution(t, &Target::Old)
                    .map(|e| {
                        let log = crate::exec::normalize::readable_log(self.doc.log(&e.raw_log));
                        tail(&log, MAX_LOG_CHARS)
                    })
                    .unwrap_or_default();
                json!({"id": t, "source": self.doc.tests[t].source, "log": log})
            })
            .collect()
    }

    /// The model keeps `k` of `candidates`. Ids it invents are dropped; when it names fewer
    /// than `k`, the rest come from `fallback` order. Returns the choice and whether the model
    /// made all of it.
    pub(super) async fn llm_choose(
        &mut self,
        candidates: &[TestId],
        k: usize,
        fallback: &[TestId],
    ) -> Result<(Vec<TestId>, bool), EngineError> {
        let ctx = json!({
            "issue": self.doc.inputs.issue_text,
            "tests": self.test_views(candidates),
            "k": k,
        });
        let text = self
            .ask_or_rule("select", PromptKind::SelectHalf, ctx)
            .await?;
        let mut chosen: Vec<TestId> = Vec::new();
        match text.as_deref().map(|t| parse_id_list(t, candidates)) {
            // The note of `ask_or_rule` said why.
            None => {}
            Some(Ok(p)) => {
                for n in p.notes {
                    self.note(format!("select: {n}"));
                }
                let mut named: Vec<TestId> = vec![];
                for id in p.ids {
                    if candidates.contains(&id) && !named.contains(&id) {
                        named.push(id);
                    }
                }
                if named.len() > k {
                    let (asked, kept) = if k == 1 {
                        ("one was".to_string(), "the first is".to_string())
                    } else {
                        (format!("{k} were"), format!("the first {k} are"))
                    };
                    self.note(format!(
                        "select: the model named {} tests where {asked} asked ({}); {kept} kept",
                        named.len(),
                        named.join(", ")
                    ));
                }
                chosen.extend(named.into_iter().take(k));
            }
            Some(Err(e)) => self.note(format!(
                "select: the model's reply held no usable test ids ({e}); the rule-based order decides"
            )),
        }
        let by_model = chosen.len() == k;
        if !by_model && !chosen.is_empty() {
            self.note(format!(
                "select: the model chose {} of {k} tests; the rule-based order chose the rest",
                chosen.len()
            ));
        }
        for id in fallback {
            if chosen.len() == k {
                break;
            }
            if candidates.contains(id) && !chosen.contains(id) {
                chosen.push(id.clone());
            }
        }
        Ok((chosen, by_model))
    }

    /// Batched crossover: one call turns the parents into the next generation. Offspring that
    /// parse join the session as new tests; if none does, the parents go on unchanged.
    pub(super) async fn llm_crossover(
        &mut self,
        generation: usize,
        parents: &[TestId],
    ) -> Result<Vec<TestId>, EngineError> {
        let n = parents.len();
        let ctx = json!({
            "issue": self.doc.inputs.issue_text,
            "tests": self.test_views(parents),
            "n": n,
        });
        let Some(text) = self
            .ask_or_rule("crossover", PromptKind::Crossover, ctx)
            .await?
        else {
            return Ok(parents.to_vec());
        };
        let parsed = parse_tests(&text, n);
        for p in &parsed.problems {
            self.note(format!("crossover (generation {generation}): {p}"));
        }
        if parsed.tests.is_empty() {
            self.note(format!(
                "crossover (generation {generation}): no usable offspring in the model's reply; \
                 the parents go on unchanged"
            ));
            return Ok(parents.to_vec());
        }
        let mut offspring = Vec::new();
        for (i, t) in parsed.tests.into_iter().enumerate() {
            let fallback = format!("test_gen{}_{}.py", generation + 1, i + 1);
            let origin = Origin::Crossover {
                generation,
                parents: parents.to_vec(),
            };
            offspring.push(self.add_test(t, &fallback, origin));
        }
        self.emit_written(Some(generation), &offspring, parents);
        Ok(offspring)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_tails() {
        assert_eq!(usable_name(Some("test_a.py")).as_deref(), Some("test_a.py"));
        assert_eq!(
            usable_name(Some("tests/test_b.py")).as_deref(),
            Some("test_b.py")
        );
        assert_eq!(usable_name(Some("../x.py")), None);
        assert_eq!(usable_name(Some("test a.py")), None);
        assert_eq!(usable_name(None), None);
        assert_eq!(tail("abc", 10), "abc");
        assert!(tail(&"é".repeat(10), 5).ends_with("éé"));
    }
}
