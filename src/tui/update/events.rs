//! What follows from the session and the workbench: derived views (the Pair screen's diff,
//! the grid's cells) after every action, and the workbench's events.

use crate::engine::events::Resume;
use crate::engine::{Event, Phase, Target};
use crate::tui::action::Effect;
use crate::tui::log_diff::LogDiff;
use crate::tui::state::{CellView, PairDiff, Progress, Screen, State};
use std::collections::BTreeSet;

/// Lines of context around each hunk of the Pair screen's log diff.
pub(super) const DIFF_CONTEXT: usize = 3;

/// What follows from the state after any action: the focal files' sources once the session
/// names them, and the Pair screen's diff when the pair or its logs change.
pub(super) fn derive(s: &mut State, fx: &mut Vec<Effect>) {
    let mut files: BTreeSet<String> = s.doc.inputs.focal.iter().map(|f| f.file.clone()).collect();
    files.extend(
        s.doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter().map(|m| m.file.clone())),
    );
    let new: Vec<String> = files
        .into_iter()
        .filter(|f| !s.sources_asked.contains(f))
        .collect();
    if !new.is_empty() {
        s.sources_asked.extend(new.iter().cloned());
        fx.push(Effect::ReadSources {
            repo: s.doc.inputs.repo.clone(),
            files: new,
        });
    }
    if let Some((act, from)) = s.announce_act.clone()
        && s.doc.acts.get(from..).is_some_and(|new| new.contains(&act))
    {
        s.announce_act = None;
        let keys = &s.act_keys;
        let then = match &act.kind {
            crate::engine::ActKind::Pin { test } => format!(
                "; passing the gate ({}) ends the run with {test}, {} on it again takes the pin \
                 back",
                keys.proceed, keys.pin
            ),
            _ => {
                let gate = s.doc.gate(act.generation);
                match &gate.pinned {
                    Some(p) => format!("; {p} stays pinned"),
                    None => format!("; {}", gate.then_words()),
                }
            }
        };
        let redo = match act.kind {
            crate::engine::ActKind::Undo { .. } => format!("; {} gives it back", keys.redo),
            crate::engine::ActKind::Veto { .. } => format!("; {} again takes it back", keys.veto),
            _ => String::new(),
        };
        s.say(format!("you {}{then}{redo}", act.kind.describe()));
    }
    if let Some(t) = s.watch_new_test.clone()
        && let Some(old) = s.doc.execution(&t, &Target::Old)
    {
        s.watch_new_test = None;
        if old.outcome == crate::exec::Outcome::Error {
            let why = old.exception.clone().unwrap_or_else(|| "an error".into());
            s.say(format!(
                "{t} errors on c_old ({why}): it is in, but it reproduces nothing yet; e edits it"
            ));
        } else if old.outcome == crate::exec::Outcome::Passed {
            // Said after what the act did, not instead of it, on the same line (the status
            // line shows one at 80x24).
            let before = s.notice.clone().map_or(String::new(), |n| format!("{n}; "));
            s.say(format!(
                "{before}{t} passes on c_old, so it cannot reproduce the bug as written (a test \
                 that fails there can); e edits it"
            ));
        }
    }
    if s.screen == Screen::Pair {
        let logs = s.selected_pair().and_then(|(t, m)| {
            let old = s.doc.execution(&t, &Target::Old)?;
            let run = s.doc.execution(&t, &Target::Mutant(m))?;
            Some(if s.raw_log {
                (old.raw_log.clone(), run.raw_log.clone())
            } else {
                (old.normalized_log.clone(), run.normalized_log.clone())
            })
        });
        match logs {
            Some(logs) if s.pair_diff.as_ref().is_none_or(|d| d.logs != logs) => {
                let diff = LogDiff::new(s.doc.log(&logs.0), s.doc.log(&logs.1), DIFF_CONTEXT);
                s.pair_diff = Some(PairDiff { logs, diff });
            }
            Some(_) => {}
            None => s.pair_diff = None,
        }
    }
}

pub(super) fn on_event(s: &mut State, e: Event) {
    match e {
        Event::ExecutionStarted {
            key, test, target, ..
        } => {
            s.running.insert(key);
            if let Target::Mutant(m) = target {
                s.running_pairs.insert((test, m));
            }
        }
        Event::ExecutionDone {
            key,
            done,
            total,
            kills,
            timeouts,
            test,
            target,
            cell,
            ..
        } => {
            s.running.remove(&key);
            if let Target::Mutant(m) = target {
                // The cell shows at once; the next snapshot brings the rest (flaky, totals).
                if let Some(c) = cell {
                    s.cache.set(&test, &m, CellView::Killed(c));
                }
                s.running_pairs.remove(&(test, m));
            }
            s.progress = Some(Progress {
                done,
                total,
                kills,
                timeouts,
            });
        }
        Event::StepStarted { phase } => {
            s.progress = None;
            if phase != Phase::Done {
                s.busy = true;
            }
        }
        Event::Paused { generation } => {
            // A new gate's list starts at its first parent, not at the last gate's row.
            if s.paused_at != Some(generation) {
                s.curate_row = 0;
                s.curate_follow = None;
            }
            s.paused_at = Some(generation);
            s.busy = false;
            s.running.clear();
            s.running_pairs.clear();
            // The key is the user's (a keymap may move it); one line at 80 columns.
            s.say(format!(
                "paused before generation {generation}'s crossover: curate, then continue ({})",
                s.act_keys.proceed
            ));
        }
        Event::Finished { final_test } => {
            s.busy = false;
            s.running.clear();
            s.say(format!(
                "done: final test {}",
                final_test.unwrap_or_else(|| "none".into())
            ));
        }
        Event::Idle => s.busy = false,
        Event::Stopped { reason, resume } => {
            s.busy = false;
            s.running.clear();
            s.say(format!(
                "the run stopped: {reason}{}",
                match resume {
                    Some(Resume::LargerBudget) => {
                        " (saved; `evootter open DIR --budget-usd Y` continues it with a larger budget)"
                    }
                    Some(Resume::AfterFix) => " (saved; `evootter open` continues it)",
                    None => "",
                }
            ));
        }
        Event::Acted { act } => {
            // The snapshot holding the act may come before this report or after it.
            let from = match s.doc.acts.last() {
                Some(last) if *last == act => s.doc.acts.len() - 1,
                _ => s.doc.acts.len(),
            };
            match &act.kind {
                crate::engine::ActKind::Edit { new_test, .. }
                | crate::engine::ActKind::Repair { new_test, .. }
                | crate::engine::ActKind::Add { new_test } => {
                    s.watch_new_test = Some(new_test.clone());
                    // Once the session holds the act (this report may come before the
                    // snapshot that does, and the new test is listed among the rest then).
                    s.curate_follow = Some((new_test.clone(), from));
                    s.follow_act();
                }
                _ => {}
            }
            s.announce_act = Some((act, from));
        }
        Event::ActRefused { reason } => {
            s.curate_follow = None;
            s.say(format!("refused: {reason}"))
        }
        Event::Note { message } => {
            let note = format!("note: {message}");
            s.note = None;
            s.say(note.clone());
            s.note = Some(note);
        }
        Event::Selected {
            generation,
            selected,
            selected_by,
            ..
        } => s.say(format!(
            "generation {generation}: kept {} (by {selected_by})",
            selected.join(", ")
        )),
        Event::LlmCalled { step, cached, .. } => s.say(format!(
            "model: {step}{}",
            if s.scripted {
                " (scripted reply)"
            } else if cached {
                " (from the cache)"
            } else {
                ""
            }
        )),
        Event::LlmRetrying {
            endpoint, reason, ..
        } => s.say(format!("model at {endpoint}: {reason}; retrying")),
        // e-Otter's loop, a round at a time (the Timeline lists every round with its reason).
        e @ Event::Critiqued { .. } => s.say(e.critique_words().unwrap_or_default()),
        _ => {}
    }
}
