//! The context rules: which keymap contexts a key is read in, and what cannot be done now
//! and why (the footer offers only what this allows).

use crate::engine::Phase;
use crate::tui::action::Action;
use crate::tui::keymap::KeyContext;
use crate::tui::state::{Screen, State};

/// Where keys are read, first first: a question's answers while one waits, a prompt's or the
/// editor's own keys while one is open, else a search's keys (while it has a query on this
/// screen) before the screen's, which fall back to the global ones.
pub fn key_contexts(s: &State) -> Vec<KeyContext> {
    if s.confirm.is_some() {
        return vec![KeyContext::Confirm];
    }
    if s.prompt.is_some() {
        return vec![KeyContext::Prompt];
    }
    if s.editor.is_some() {
        return vec![KeyContext::Editor];
    }
    let screen = match s.screen {
        Screen::Timeline => KeyContext::Timeline,
        Screen::Grid => KeyContext::Grid,
        Screen::Pair => KeyContext::Pair,
        Screen::Why => KeyContext::Why,
        Screen::Curate => KeyContext::Curate,
        Screen::Model => KeyContext::Model,
    };
    match &s.search {
        Some(q) if q.screen == s.screen => vec![KeyContext::Search, screen],
        _ => vec![screen],
    }
}

/// The context a key is finally read in (the last of [`key_contexts`]).
pub fn key_context(s: &State) -> KeyContext {
    *key_contexts(s).last().unwrap_or(&KeyContext::Global)
}

/// Why `a` cannot be done now, or `None` when it can. The reducer says the reason when it is
/// asked anyway; the footer leaves out what it would refuse.
pub fn refusal(s: &State, a: &Action) -> Option<String> {
    let read_only = || {
        s.read_only.then(|| {
            "read-only: this session is finished or comes from elsewhere; nothing can run"
                .to_owned()
        })
    };
    match a {
        Action::Step | Action::RunToGate => read_only()
            .or_else(|| (s.doc.phase == Phase::Done).then(|| "the run is finished".to_owned()))
            .or_else(|| {
                s.at_gate().map(|_| {
                    "at the gate the run waits for you: act, or c continues past it".to_owned()
                })
            }),
        Action::PrevGeneration | Action::NextGeneration if s.doc.generations.len() <= 1 => {
            Some("there is one generation so far".to_owned())
        }
        Action::Continue => read_only().or_else(|| {
            s.at_gate()
                .is_none()
                .then(|| "not at a gate: `c` continues past the gate before a crossover".into())
        }),
        Action::Veto
        | Action::Edit
        | Action::Add
        | Action::AddFile
        | Action::Pin
        | Action::Repair
        | Action::Undo
        | Action::Redo => read_only().or_else(|| match s.at_gate() {
            None => Some("acts wait for the gate before a crossover (`r` runs to it)".into()),
            Some(g)
                if matches!(
                    a,
                    Action::Veto | Action::Edit | Action::Pin | Action::Repair
                ) && matches!(s.screen, Screen::Grid | Screen::Pair | Screen::Why)
                    && s.grid().is_some_and(|grid| grid.generation != g) =>
            {
                Some(format!(
                    "the Grid shows generation {}: acts are on generation {g}'s tests, at its \
                     gate (] shows it)",
                    s.grid().map_or(0, |grid| grid.generation)
                ))
            }
            Some(_) if *a == Action::Repair && s.doc.config.llm.is_none() => Some(
                "a repair asks the model, and this session has none (start it with --llm)".into(),
            ),
            Some(g) if *a == Action::Undo && !s.doc.can_undo(g) => {
                Some("nothing to undo at this gate".into())
            }
            Some(g) if *a == Action::Redo && !s.doc.can_redo(g) => {
                Some("nothing to redo at this gate (a new act ends what undo can give back)".into())
            }
            Some(_) => None,
        }),
        Action::Open if s.screen == Screen::Why => read_only(),
        Action::Open if s.screen == Screen::Timeline && s.doc.generations.is_empty() => {
            Some("no generation to open in the Grid".to_owned())
        }
        // Without mutants there is no cell to open, explain, sort by or filter.
        Action::Explain | Action::SortRows | Action::FilterColumns
            if !s.doc.config.method.mutates() =>
        {
            Some(format!(
                "--method {} runs no mutant: the Grid has no cells (the Timeline says how the \
                 test was picked)",
                s.doc.config.method
            ))
        }
        Action::Open if s.screen == Screen::Grid && !s.doc.config.method.mutates() => {
            Some(format!(
                "--method {} runs no mutant: there is no pair to open",
                s.doc.config.method
            ))
        }
        _ => None,
    }
}
