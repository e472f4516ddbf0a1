//! e-Otter, the paper's repair baseline (Table II; Sec. III-D; Ahmed et al.'s execution-
//! feedback repair): each test of the initial population runs on `c_old`, a critic judges
//! whether it fails for the reason the issue describes and, while it does not, the model
//! repairs it from that log. One call per round does both (`repair.j2`: a verdict, its
//! reason, the repaired test), so `--repair-rounds N` bounds the calls per test, as the paper
//! counts them ("up to 10 LLM calls to repair each test"). The loop stops when the critic
//! accepts, when a reply is unusable, or after N rounds, the last repair then standing
//! unjudged. Every round is saved as it ends, and a call answered before a crash is served
//! from the response cache on resume, so none is paid twice.
//!
//! The same call is the workbench's repair act at a gate ([`Engine::critique`]).

use super::config::DEFAULT_REPAIR_ROUNDS;
use super::events::Event;
use super::machine::{Engine, EngineError, Job, StepProgress};
use super::session::*;
use crate::prompts::{PromptKind, parse::parse_verdict};
use serde_json::json;
use std::time::Duration;

impl Engine {
    /// Runs every chain to its end, then opens generation 0 with the chains' tests (the
    /// Otter rules pick among several; one is the final test).
    pub(super) async fn step_repair(&mut self) -> Result<(), EngineError> {
        if self.doc.repairs.is_empty() {
            self.doc.repairs = self
                .doc
                .initial_population
                .iter()
                .map(|t| RepairChain {
                    start: t.clone(),
                    rounds: vec![],
                    end: None,
                })
                .collect();
            // A broken environment stops here, before a call is spent on its logs.
            let starts = self.doc.initial_population.clone();
            self.run_on_old(&starts).await?;
            self.check_environment(&starts)?;
        }
        let most = self
            .doc
            .config
            .repair_rounds
            .unwrap_or(DEFAULT_REPAIR_ROUNDS);
        for i in 0..self.doc.repairs.len() {
            while self.doc.repairs[i].end.is_none() {
                let current = self.doc.repairs[i].current().clone();
                self.run_on_old(std::slice::from_ref(&current)).await?;
                let done = self.doc.repairs[i].rounds.len();
                if done >= most {
                    self.doc.repairs[i].end = Some(RepairEnd::Exhausted);
                    break;
                }
                let round = self.critique(&current, done + 1, None).await?;
                let end = if round.accepted {
                    Some(RepairEnd::Accepted)
                } else if round.repaired.is_none() {
                    Some(RepairEnd::Unusable)
                } else {
                    None
                };
                let chain = &mut self.doc.repairs[i];
                chain.rounds.push(round);
                chain.end = end;
                self.save()?;
            }
        }
        let tests: Vec<TestId> = self
            .doc
            .repairs
            .iter()
            .map(|c| c.current().clone())
            .collect();
        self.start_generation(0, tests);
        Ok(())
    }

    /// One call of the critic on `test`'s `c_old` run (which must have run): its verdict
    /// and, after a rejection, the repaired test, added to the session as round `round` of
    /// a loop or (with `generation`) the user's act at that gate.
    pub(super) async fn critique(
        &mut self,
        test: &TestId,
        round: usize,
        generation: Option<usize>,
    ) -> Result<RepairRound, EngineError> {
        let view = self.test_views(std::slice::from_ref(test)).remove(0);
        let name = self.doc.tests[test].name.clone();
        let ctx = json!({
            "issue": self.doc.inputs.issue_text,
            "test": {"id": test, "name": name, "source": view["source"], "log": view["log"]},
        });
        let reply = self.ask("repair", PromptKind::Repair, ctx).await?;
        let call = self.doc.llm_calls.len() - 1;
        let mut out = RepairRound {
            test: test.clone(),
            accepted: false,
            reason: String::new(),
            repaired: None,
            call,
        };
        match parse_verdict(&reply) {
            Ok(v) => {
                for p in &v.problems {
                    self.note(format!("repair of {test}: {p}"));
                }
                out.accepted = v.accepted;
                out.reason = v.reason;
                if let Some(t) = v.test {
                    let same = crate::hash::sha256_hex(&t.source) == self.doc.tests[test].hash;
                    if same {
                        self.note(format!(
                            "repair of {test}: the model gave the test back unchanged"
                        ));
                    } else {
                        let origin = Origin::Repaired {
                            from: test.clone(),
                            round,
                            generation,
                        };
                        // Named for what it is (the model tends to keep the old name).
                        let t = crate::prompts::ParsedTest { name: None, ..t };
                        let file = repair_name(&name, round);
                        out.repaired = Some(self.add_test(t, &file, origin));
                    }
                }
            }
            Err(e) => {
                self.note(format!("repair of {test}: the reply cannot be used ({e})"));
                out.reason = format!("(unusable reply: {e})");
            }
        }
        self.emit(Event::Critiqued {
            test: test.clone(),
            round,
            accepted: out.accepted,
            reason: out.reason.clone(),
            repaired: out.repaired.clone(),
        });
        Ok(out)
    }

    /// Runs `tests` on `c_old`, those that have not run there.
    pub(super) async fn run_on_old(&mut self, tests: &[TestId]) -> Result<(), EngineError> {
        let cap = Duration::from_secs_f64(self.doc.config.timeout_secs);
        let jobs: Vec<Job> = tests
            .iter()
            .filter(|t| self.doc.execution(t, &Target::Old).is_none())
            .map(|t| Job {
                test: t.clone(),
                hash: self.doc.tests[t].hash.clone(),
                target: Target::Old,
                request: crate::eval::PatchedFiles::default().request(self.test_file(t), cap),
                witness: false,
            })
            .collect();
        let mut progress = StepProgress::over(jobs.len());
        self.run_jobs(None, jobs, &mut progress).await
    }
}

/// `test_x_repair2.py`: the file of round `round`'s repair of `name` (itself perhaps an
/// earlier round's, whose suffix it replaces).
fn repair_name(name: &str, round: usize) -> String {
    let stem = name.strip_suffix(".py").unwrap_or(name);
    let stem = match stem.rsplit_once("_repair") {
        Some((base, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => base,
        _ => stem,
    };
    format!("{stem}_repair{round}.py")
}

/// How `test` ran on `c_old`, in a few words: its outcome and the last error line of its log
/// (`fails: ValueError: invalid literal ...`), or that it has not run.
pub fn old_run_words(doc: &SessionDoc, test: &TestId) -> String {
    let Some(e) = doc.execution(test, &Target::Old) else {
        return "has not run on c_old".into();
    };
    let log = crate::exec::normalize::readable_log(doc.log(&e.raw_log));
    let said = log
        .lines()
        .rev()
        .find(|l| l.starts_with("E "))
        .map(|l| l.trim_start_matches('E').trim().to_string())
        .or_else(|| e.exception.clone());
    let outcome = e.outcome.verb();
    match said {
        Some(s) if e.outcome != crate::exec::Outcome::Passed => {
            // The line, not the page: a long message is cut (the Pair screen has it whole).
            let short: String = s.chars().take(120).collect();
            let more = if short.len() < s.len() { "..." } else { "" };
            format!("{outcome} on c_old: {short}{more}")
        }
        _ => format!("{outcome} on c_old"),
    }
}

/// e-Otter's loops in words, for `show` and the Timeline: per loop a head line, then per
/// round the verdict on the test judged (and how it ran before), the critic's reason, and
/// the repaired test (and how it ran after). Continuation lines start with spaces.
pub fn chain_lines(doc: &SessionDoc) -> Vec<String> {
    let most = doc.config.repair_rounds.unwrap_or(DEFAULT_REPAIR_ROUNDS);
    let mut out = vec![];
    for c in &doc.repairs {
        let end = match c.end {
            Some(RepairEnd::Accepted) => "the critic accepted".to_string(),
            Some(RepairEnd::Exhausted) => {
                format!("all {most} rounds spent, the last repair unjudged")
            }
            Some(RepairEnd::Unusable) => "stopped at a reply it could not use".to_string(),
            None => "going on".to_string(),
        };
        out.push(format!(
            "repair of {} ({}): {} of {most} calls, {end}; its test: {}",
            c.start,
            doc.tests[&c.start].name,
            c.rounds.len(),
            c.current()
        ));
        for (i, r) in c.rounds.iter().enumerate() {
            out.push(format!(
                "  round {}: the critic {} {}, which {}",
                i + 1,
                if r.accepted { "accepts" } else { "rejects" },
                r.test,
                old_run_words(doc, &r.test)
            ));
            out.push(format!("    \"{}\"", r.reason));
            if let Some(n) = &r.repaired {
                out.push(format!(
                    "    -> {n} ({}), which {}",
                    doc.tests[n].name,
                    old_run_words(doc, n)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::repair_name;

    #[test]
    fn a_repair_is_named_for_its_round() {
        assert_eq!(repair_name("test_x.py", 1), "test_x_repair1.py");
        assert_eq!(repair_name("test_x_repair1.py", 2), "test_x_repair2.py");
        assert_eq!(
            repair_name("test_x_repairs.py", 1),
            "test_x_repairs_repair1.py"
        );
    }
}
