//! The reducer: `update(&mut State, Action) -> Vec<Effect>` is the only writer of [`State`].
//! Beside it, the context rules: which keymap context a key is read in ([`key_context`]), and
//! what can be done now and why not ([`refusal`]), which the footer also uses to offer only
//! keys that work. [`Store`] is how the app holds a state: it can read it and dispatch, and
//! nothing else.

mod acts;
mod context;
mod events;
mod navigate;
mod prompt;
mod writes;

pub use context::{key_context, key_contexts, refusal};

use crate::engine::ActRequest;
use crate::tui::action::{Action, Effect};
use crate::tui::state::{
    Asking, CellView, ColumnFilter, Confirm, Confirmed, Editing, Prompt, RerunState, Screen, State,
};
use crate::workbench::Command;
use acts::*;
use events::*;
use navigate::*;
use prompt::*;

/// Lines a turn of the mouse wheel scrolls.
pub const WHEEL_LINES: i64 = 3;

/// A state and the one way to change it.
pub struct Store {
    state: State,
}

impl Store {
    pub fn new(state: State) -> Self {
        Self { state }
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn dispatch(&mut self, action: Action) -> Vec<Effect> {
        update(&mut self.state, action)
    }
}

/// The reducer: applies `action` to `s` and returns what the app must do.
pub fn update(s: &mut State, action: Action) -> Vec<Effect> {
    let mut fx = vec![];
    apply(s, action, &mut fx);
    derive(s, &mut fx);
    fx
}

#[expect(
    clippy::too_many_lines,
    reason = "one short arm per action, most a line or a call: the reducer reads as a table of what each key does, and splitting it by kind of key would scatter the guards that order the arms (the help before moving, a search before the screen)"
)]
fn apply(s: &mut State, action: Action, fx: &mut Vec<Effect>) {
    // An act (anything but moving around) makes what the message line said about the last
    // one stale.
    if action.is_key_intent() && action.in_footer() {
        s.clear_notice();
    }
    match action {
        Action::NextScreen | Action::PrevScreen => {
            let i = s.screen.index();
            let n = Screen::ALL.len();
            let j = if action == Action::NextScreen {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            s.go(Screen::ALL[j]);
        }
        Action::Timeline => s.go(Screen::Timeline),
        Action::Grid => s.go(Screen::Grid),
        Action::Pair => s.go(Screen::Pair),
        Action::Why => s.go(Screen::Why),
        Action::Curate => s.go(Screen::Curate),
        Action::Model => s.go(Screen::Model),
        Action::Back => {
            if s.help {
                s.help = false;
            } else if let Some(prev) = s.history.pop() {
                s.screen = prev;
                s.clear_notice();
            } else if s.back_to.is_some() {
                // Nothing to go back to here: back to the screen this one was opened from.
                s.quit = true;
                fx.push(Effect::Quit);
            }
        }
        Action::Help => {
            s.help = !s.help;
            s.help_scroll = 0;
        }
        // While the help is open, the moving keys scroll it.
        Action::Up | Action::Left if s.help => s.scroll_help(-1),
        Action::Down | Action::Right if s.help => s.scroll_help(1),
        Action::Scroll { lines } if s.help => s.scroll_help(lines),
        Action::PageUp | Action::PageDown if s.help => {
            let page = i64::try_from(s.help_rows()).unwrap_or(1).max(1);
            s.scroll_help(if action == Action::PageDown {
                page
            } else {
                -page
            });
        }
        Action::First if s.help => s.help_scroll = 0,
        Action::Last if s.help => s.scroll_help(i64::MAX / 2),
        Action::Quit => {
            s.quit = true;
            fx.push(Effect::Quit);
        }
        Action::Left => move_by(s, -1, 0),
        Action::Right => move_by(s, 1, 0),
        Action::Up => move_by(s, 0, -1),
        Action::Down => move_by(s, 0, 1),
        // On Curate the wheel and the page keys scroll the selected test's log; the moving
        // keys choose the test.
        Action::Scroll { lines } if s.screen == Screen::Curate => {
            s.scroll_by(Screen::Curate, lines)
        }
        Action::Scroll { lines } => move_by(s, 0, lines),
        Action::PageUp | Action::PageDown => {
            // A page is what the pane shows, less one line kept for context: at 80x24 a
            // pane of 7 rows paged by the terminal's height skipped lines.
            let rows = match s.screen {
                Screen::Grid => s.grid_viewport().0,
                _ => s.measured[s.screen.index()]
                    .as_ref()
                    .map_or(usize::from(s.height.saturating_sub(8)), |m| m.rows),
            };
            let page = i64::try_from(rows.saturating_sub(1).max(1)).unwrap_or(1);
            let dy = if action == Action::PageDown {
                page
            } else {
                -page
            };
            if s.screen == Screen::Curate {
                s.scroll_by(Screen::Curate, dy);
            } else {
                move_by(s, 0, dy);
            }
        }
        Action::First | Action::Last => ends(s, action == Action::Last),
        Action::Open => match s.screen {
            Screen::Grid if s.selected_pair().is_some() => {
                s.scroll[Screen::Pair.index()] = Default::default();
                s.go(Screen::Pair);
            }
            Screen::Timeline => s.go(Screen::Grid),
            Screen::Why => {
                if s.allowed(&action)
                    && let Some((test, mutant)) = s.selected_pair()
                    && let Some(file) = s.mutant(&mutant).map(|m| m.file.clone())
                {
                    s.rerun = Some(RerunState {
                        test: test.clone(),
                        mutant: mutant.clone(),
                        result: None,
                    });
                    fx.push(Effect::RunPair { test, mutant, file });
                }
            }
            _ => {}
        },
        Action::Explain => {
            if let Some((t, m)) = s.selected_pair() {
                let g = s.shown_generation().unwrap_or(0);
                match s.cell(g, &t, &m) {
                    CellView::Killed(_)
                    | CellView::Error
                    | CellView::NotReached
                    | CellView::Flaky => {
                        s.set_top(Screen::Why, 0);
                        s.go(Screen::Why);
                    }
                    other => s.say(format!(
                        "{t} on {m} is {}: there is nothing to explain until it has run",
                        other.name()
                    )),
                }
            }
        }
        Action::Step | Action::RunToGate | Action::Continue => {
            if s.allowed(&action) {
                s.busy = true;
                s.paused_at = None;
                fx.push(Effect::Send(match action {
                    Action::Step => Command::Step,
                    Action::RunToGate => Command::RunToGate,
                    _ => Command::Continue,
                }));
            }
        }
        Action::Veto
        | Action::Pin
        | Action::Repair
        | Action::Undo
        | Action::Redo
        | Action::Edit
        | Action::Add
        | Action::AddFile => act(s, action, fx),
        Action::SortRows => {
            let pair = s.grid_selection();
            s.sort_by_fitness = !s.sort_by_fitness;
            s.reselect(pair);
            s.say(if s.sort_by_fitness {
                "rows in the order selection ranks them: fitness's order of evidence (failing on \
                 c_old, reaching the focal code, rescues, issue values, then kills; ? has the \
                 words); s again: the generation's order"
            } else {
                "rows in the generation's order"
            });
        }
        Action::FilterColumns => {
            let pair = s.grid_selection();
            s.filter = next_filter(s);
            // The selected mutant stays selected while the filter shows it.
            s.col = 0;
            s.col_scroll = 0;
            s.reselect(pair);
            if s.grid().is_some_and(|g| g.mutants.is_empty()) {
                s.say(match s.filter {
                    ColumnFilter::Survivors => {
                        "no survivors: some test kills every mutant of this generation (f: the \
                         next filter)"
                            .to_owned()
                    }
                    _ => format!("{} shows no mutant (f: the next filter)", s.filter.label()),
                });
            }
        }
        // The Batch screen's own (`tui::batch`); no session screen binds them.
        Action::ReverseSort
        | Action::FilterRows
        | Action::OpenA
        | Action::OpenB
        | Action::Figures => {}
        Action::ToggleRaw => s.raw_log = !s.raw_log,
        Action::ToggleSideBySide => s.side_by_side = !s.side_by_side,
        Action::NextHunk | Action::PrevHunk => {
            // Hunks are counted from where the log diff starts on the Pair screen.
            let (Some(m), Some(d)) = (s.measured[Screen::Pair.index()].clone(), &s.pair_diff)
            else {
                return;
            };
            let top = s.scroll_of(Screen::Pair).top;
            let rel = top.saturating_sub(m.anchor);
            let to = if action == Action::NextHunk {
                if top < m.anchor {
                    // Above the diff: its first hunk, which is its first line.
                    (!d.diff.hunks.is_empty()).then_some(0)
                } else {
                    d.diff.next_hunk(rel, s.side_by_side)
                }
            } else {
                d.diff.prev_hunk(rel, s.side_by_side)
            };
            match to {
                Some(line) => s.set_top(Screen::Pair, m.anchor + line),
                None => s.say(if action == Action::NextHunk {
                    "no hunk after this one"
                } else {
                    "no hunk before this one"
                }),
            }
        }
        Action::ScrollLeft => s.shift(Screen::Pair, -8),
        Action::ScrollRight => s.shift(Screen::Pair, 8),
        Action::Measured { screen, measure } => {
            let i = screen.index();
            s.measured[i] = Some(measure);
            // Content shrank, or the pane grew: nothing past the end.
            let pos = s.scroll_of(screen);
            s.scroll[i] = pos;
            // A search submitted on this pane jumps once its hits are measured.
            if s.search
                .as_ref()
                .is_some_and(|q| q.jump_pending && q.screen == screen)
            {
                if let Some(q) = &mut s.search {
                    q.jump_pending = false;
                }
                let top = s.scroll_of(screen).top;
                let hits = s.measured[i]
                    .as_ref()
                    .map(|m| m.hits.clone())
                    .unwrap_or_default();
                match hits.iter().find(|&&h| h >= top).or(hits.first()) {
                    Some(&h) => s.set_top(screen, h),
                    None => s.say("no match on this screen"),
                }
            }
        }
        // The editor's keys reach the reducer as EditorSaved / EditorCancelled (the app holds
        // the text). Esc closes a prompt (a search prompt drops its search), or ends a search.
        Action::Save => {}
        Action::Cancel => {
            if let Some(p) = s.prompt.take() {
                if p.purpose == Asking::Search {
                    s.search = None;
                }
            } else {
                s.search = None;
            }
        }
        Action::Search => {
            s.prompt = Some(Prompt {
                purpose: Asking::Search,
                text: String::new(),
            })
        }
        Action::Goto => {
            s.prompt = Some(Prompt {
                purpose: Asking::Goto,
                text: String::new(),
            })
        }
        Action::Type { text } => typed(s, &text, fx),
        Action::Erase => {
            if let Some(p) = &mut s.prompt {
                p.text.pop();
                if p.purpose == Asking::Search {
                    let q = p.text.clone();
                    s.set_query(q);
                }
            }
        }
        Action::Submit => submitted(s, fx),
        Action::NextHit | Action::PrevHit => jump_to_hit(s, action == Action::NextHit),
        Action::WriteTest => match selected_test(s) {
            Some(t) => {
                let name = s.doc.tests[&t].name.clone();
                s.prompt = Some(Prompt {
                    purpose: Asking::WriteTo(t),
                    text: name,
                });
            }
            None => s.say("select a test first (on the Grid or Curate), or finish the run"),
        },
        Action::CopyTest => match selected_test(s) {
            Some(t) => {
                let text = s.doc.tests[&t].source.clone();
                s.say(format!(
                    "copied {t} ({} bytes) to the clipboard by OSC 52 (your terminal must allow \
                     it; y writes it to a file instead)",
                    text.len()
                ));
                fx.push(Effect::Clipboard { text });
            }
            None => s.say("select a test first (on the Grid or Curate), or finish the run"),
        },
        Action::PrevGeneration => switch_generation(s, -1),
        Action::NextGeneration => switch_generation(s, 1),
        Action::FileWritten {
            path,
            result,
            exists,
        } => match result {
            Ok(n) => s.say(format!(
                "wrote {} ({n} bytes); Y copies it to the clipboard",
                path.display()
            )),
            Err(_) if exists => {
                let text = s.pending_write.take().unwrap_or_default();
                s.confirm = Some(Confirm {
                    question: format!("{} exists; write over it? y/n", path.display()),
                    then: Confirmed::Overwrite { path, text },
                });
            }
            Err(e) => s.say(format!("cannot write {}: {e}", path.display())),
        },
        Action::Resize { width, height } => {
            s.width = width;
            s.height = height;
            s.clamp_grid();
        }
        Action::Click { column, row } => {
            if s.screen == Screen::Grid
                && !s.help
                && s.editor.is_none()
                && let Some((r, c)) = s.cell_at(column, row)
            {
                s.row = r;
                s.col = c;
                s.clamp_grid();
            }
        }
        Action::Event { event } => on_event(s, *event),
        Action::Snapshot { doc } => s.set_doc(doc),
        Action::WorkbenchEnded {} => {
            // The workbench's task ended (the run is done or stopped): look, but nothing
            // more can run.
            s.read_only = true;
            s.busy = false;
        }
        Action::EditorSaved { source } => saved(s, source, fx),
        Action::EditorCancelled { source } => {
            let changed = s.editor.as_ref().is_some_and(|e| {
                e.purpose != Editing::Path && e.original.trim_end() != source.trim_end()
            });
            if changed {
                s.confirm = Some(Confirm {
                    question: "throw your changes away? y/n".into(),
                    then: Confirmed::DiscardEdit,
                });
            } else {
                s.editor = None;
                fx.push(Effect::CloseEditor);
            }
        }
        Action::SyntaxChecked { source, result } => checked(s, source, result, fx),
        Action::Yes => match s.confirm.take().map(|c| c.then) {
            Some(Confirmed::Pin(test)) => {
                fx.push(Effect::Send(Command::Act(ActRequest::Pin { test })))
            }
            Some(Confirmed::DiscardEdit) => {
                s.editor = None;
                fx.push(Effect::CloseEditor);
                // What the editor said (a compile error) is about text that is gone.
                s.say("your changes are thrown away");
            }
            Some(Confirmed::Overwrite { path, text }) => fx.push(Effect::WriteFile {
                path,
                text,
                overwrite: true,
            }),
            None => {}
        },
        Action::No => {
            // What was not done, said (a silent `n` reads as lost).
            if let Some(c) = s.confirm.take() {
                match c.then {
                    Confirmed::Pin(test) => s.say(format!("{test} is not pinned")),
                    Confirmed::DiscardEdit => s.say("your changes stay in the editor"),
                    _ => {}
                }
            }
        }
        Action::FileRead { path, result } => match result {
            Ok(source) => {
                let name = path
                    .file_name()
                    .map_or("test_yours.py".into(), |n| n.to_string_lossy().into_owned());
                // The file's text goes into the editor, to be read before it is added.
                open_editor(s, Editing::Add(name), source, fx);
            }
            // The prompt opens again on what was typed, to be corrected rather than retyped.
            Err(e) => {
                open_editor(s, Editing::Path, path.display().to_string(), fx);
                s.say(format!(
                    "cannot read {}: {e}; correct the path, or Esc",
                    path.display()
                ));
            }
        },
        Action::SourcesRead { sources } => {
            s.sources.extend(sources);
            // Force-failure mutants' spans need their file: the reach of their cells is known
            // now.
            s.refresh();
        }
        Action::PairRan {
            test,
            mutant,
            result,
        } => {
            if let Some(r) = &mut s.rerun
                && r.test == test
                && r.mutant == mutant
            {
                r.result = Some(result);
            }
        }
    }
}

#[cfg(test)]
mod tests;
