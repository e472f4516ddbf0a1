//! Headless progress display: one line per step and generation, and a live counter of
//! executions and kills (redrawn in place on a terminal, every 10% otherwise).

use evootter::engine::{Event, Phase};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

pub struct Progress {
    tty: bool,
    events: Option<std::fs::File>,
    live: bool,
    /// In e-Otter's repair step, whose runs (outside any generation) are `c_old` runs.
    repairing: bool,
    /// Whether the run's method makes mutants (the paper's other systems do not: their lines
    /// say nothing of mutants, kills or fitness).
    mutants: bool,
}

impl Progress {
    pub fn new(events: Option<PathBuf>) -> anyhow::Result<Self> {
        let events = events
            .map(|p| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&p)
                    .map_err(|e| anyhow::anyhow!("cannot open events file {}: {e}", p.display()))
            })
            .transpose()?;
        Ok(Self {
            tty: std::io::stderr().is_terminal(),
            events,
            live: false,
            repairing: false,
            mutants: true,
        })
    }

    /// Lines for a method that makes no mutant (`--method` other than evootter).
    pub fn without_mutants(mut self) -> Self {
        self.mutants = false;
        self
    }

    fn line(&mut self, s: String) {
        let mut err = std::io::stderr().lock();
        if self.live {
            let _ = write!(err, "\r\x1b[2K");
            self.live = false;
        }
        let _ = writeln!(err, "{}", evootter::secrets::redact(&s));
    }

    fn live(&mut self, s: String) {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{s}");
        let _ = err.flush();
        self.live = true;
    }

    /// One event: into the events file (if any), and onto the terminal.
    pub fn handle(&mut self, e: Event) {
        if let Some(f) = &mut self.events
            && let Ok(j) = serde_json::to_string(&e)
        {
            let _ = writeln!(f, "{}", evootter::secrets::redact(&j));
        }
        self.show(e);
    }

    /// Ends the live counter line, if one is drawn.
    pub fn done(&mut self) {
        if self.live {
            self.line(String::new());
        }
    }

    #[expect(
        clippy::too_many_lines,
        reason = "one arm per engine event, each the few lines the headless run prints for it: a table of the run's words"
    )]
    fn show(&mut self, e: Event) {
        match e {
            Event::StepStarted { phase } => {
                self.repairing = phase == Phase::Repair;
                if phase == Phase::Mutate && !self.mutants {
                    return;
                }
                if matches!(
                    phase,
                    Phase::Localize
                        | Phase::Contextualize
                        | Phase::Generate
                        | Phase::Mutate
                        | Phase::Repair
                        | Phase::Evaluate
                ) {
                    self.line(format!("== {phase}"));
                }
            }
            Event::MutantsReady {
                count,
                requested,
                exhausted,
                kinds,
                operators,
            } => {
                let mix: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
                self.line(format!(
                    "   {}: {}",
                    evootter::mutate::types::pool_words(count, requested, exhausted, operators),
                    mix.join(", ")
                ));
            }
            Event::GenerationStarted {
                generation,
                tests,
                mutants,
                executions,
                cached,
                provisional,
            } => self.line(if !self.mutants {
                format!("== generation {generation}: {tests} tests, each run on c_old (no mutant)")
            } else if provisional {
                format!(
                    "== generation {generation}: {tests} tests; the mutants are sampled from \
                     what they reach once their c_old runs are traced"
                )
            } else {
                format!(
                    "== generation {generation}: {tests} tests x {mutants} mutants, {executions} \
                     executions ({cached} cached)"
                )
            }),
            Event::MutantsSampled {
                generation,
                mutants,
                reached,
                unreached,
                unreached_kinds,
                executions,
                cached,
            } => {
                let kinds: Vec<String> = unreached_kinds
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect();
                self.line(if unreached == 0 {
                    format!(
                        "   reach: generation {generation}'s tests execute every one of the \
                         pool's {reached} mutants on c_old"
                    )
                } else {
                    format!(
                        "   reach: generation {generation}'s tests execute {reached} of the \
                         pool's {} mutants on c_old; the other {unreached}{} never run",
                        reached + unreached,
                        if kinds.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", kinds.join(", "))
                        }
                    )
                });
                self.line(format!(
                    "   sample: {mutants} reached mutants, {executions} executions ({cached} cached)"
                ));
            }
            Event::TieSettling {
                generation,
                tied,
                mutants,
            } => self.line(format!(
                "   tie: {} tied across generation {generation}'s cut; {mutants} more mutants \
                 drawn to let mutation decide",
                tied.join(", ")
            )),
            // The live counter moves when executions finish.
            // The driver reports how the run ended.
            Event::ExecutionStarted { .. } | Event::Idle | Event::Stopped { .. } => {}
            Event::Acted { act } => self.line(format!(
                "   [you] at generation {}'s gate: {}",
                act.generation,
                act.kind.describe()
            )),
            Event::ActRefused { reason } => self.line(format!("   [you] refused: {reason}")),
            Event::Paused { generation } => self.line(format!(
                "   paused before generation {generation}'s crossover"
            )),
            Event::ExecutionDone {
                generation,
                done,
                total,
                kills,
                timeouts,
                ..
            } => {
                // The evaluation kills nothing: it runs each test on c_old and with the fix.
                let mut s = match generation {
                    Some(g) if !self.mutants => format!("   [gen {g}] c_old runs {done}/{total}"),
                    Some(g) => {
                        format!("   [gen {g}] executions {done}/{total}, kills so far {kills}")
                    }
                    None if self.repairing => format!("   [repair] c_old runs {done}/{total}"),
                    None => format!(
                        "   [evaluate] runs {done}/{total}: each test on c_old and with the fix"
                    ),
                };
                if timeouts > 0 {
                    s.push_str(&format!(", timeouts {timeouts}"));
                }
                if self.tty {
                    self.live(s);
                } else if total > 0
                    && (done * 10 / total != (done - 1) * 10 / total || done == total)
                {
                    self.line(s);
                }
            }
            Event::Selected {
                generation,
                selected,
                selected_by,
                fitness_decided,
            } => self.line(format!(
                "   generation {generation}: kept {} (by {selected_by}{})",
                selected.join(", "),
                if fitness_decided || !self.mutants {
                    ""
                } else {
                    ", fitness tied at the cut"
                }
            )),
            Event::Evaluated { test, f2p } => self.line(format!(
                "   {test}: c_old {:?}, with golden patch {:?} -> F2P {}",
                f2p.old,
                f2p.new,
                if f2p.f2p { "yes" } else { "no" }
            )),
            Event::Finished { final_test } => self.line(format!(
                "== done: final test {}",
                final_test.unwrap_or_default()
            )),
            Event::Note { message } => self.line(format!("note: {message}")),
            Event::LlmCalled {
                step,
                model,
                input_tokens,
                output_tokens,
                latency_ms,
                cost_usd,
                cached,
            } => {
                let how = if cached {
                    "from the response cache".to_string()
                } else if model == evootter::llm::SCRIPTED_MODEL {
                    "scripted reply".to_string()
                } else {
                    format!(
                        "{model}, {input_tokens} in / {output_tokens} out tokens, {:.1} s{}",
                        latency_ms as f64 / 1000.0,
                        cost_usd.map_or(String::new(), |c| format!(", ${c:.4}"))
                    )
                };
                self.line(format!("   [model] {step}: {how}"));
            }
            // The retry number, out of the retries `--llm-retries` allows.
            Event::LlmRetrying {
                provider,
                endpoint,
                attempt,
                attempts,
                wait_ms,
                reason,
            } => self.line(format!(
                "   [model] {provider} at {endpoint}: {reason}; retry {attempt} of {} in {:.1} s",
                attempts.saturating_sub(1),
                wait_ms as f64 / 1000.0
            )),
            Event::Localized { files, focal } => {
                self.line(format!("   files: {}", files.join(", ")));
                self.line(format!("   focal functions: {}", focal.join(", ")));
            }
            Event::Contextualized {
                imports,
                test_location,
            } => self.line(format!(
                "   {} imports; the test goes to {test_location}",
                imports.len()
            )),
            Event::TestsWritten {
                generation,
                tests,
                names,
                parents,
            } => {
                let what = match generation {
                    None => "initial population".to_string(),
                    Some(g) => format!("generation {g} crossover of {}", parents.join(", ")),
                };
                let list: Vec<String> = tests
                    .iter()
                    .zip(&names)
                    .map(|(t, n)| format!("{t} {n}"))
                    .collect();
                self.line(format!("   {what}: {}", list.join(", ")));
            }
            e @ Event::Critiqued { .. } => {
                self.line(format!("   {}", e.critique_words().unwrap_or_default()))
            }
        }
    }
}
