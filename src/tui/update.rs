//! The reducer: `update(&mut State, Action) -> Vec<Effect>` is the only writer of [`State`].
//! Beside it, the context rules: which keymap context a key is read in ([`key_context`]), and
//! what can be done now and why not ([`refusal`]), which the footer also uses to offer only
//! keys that work. [`Store`] is how the app holds a state: it can read it and dispatch, and
//! nothing else.

use super::action::{Action, Effect};
use super::keymap::KeyContext;
use super::log_diff::LogDiff;
use super::state::{
    Asking, CellCache, CellView, ColumnFilter, Confirm, Confirmed, Editing, EditorState, PairDiff,
    Progress, Prompt, RerunState, Screen, Search, State,
};
use crate::engine::events::Resume;
use crate::engine::{ActRequest, Event, MutantId, Phase, SessionDoc, Target, TestId};
use crate::mutate::MutantKind;
use crate::workbench::Command;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Lines of context around each hunk of the Pair screen's log diff.
const DIFF_CONTEXT: usize = 3;

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
        | Action::Undo
        | Action::Redo => read_only().or_else(|| match s.at_gate() {
            None => Some("acts wait for the gate before a crossover (`r` runs to it)".into()),
            Some(g)
                if matches!(a, Action::Veto | Action::Edit | Action::Pin)
                    && matches!(s.screen, Screen::Grid | Screen::Pair | Screen::Why)
                    && s.grid().is_some_and(|grid| grid.generation != g) =>
            {
                Some(format!(
                    "the Grid shows generation {}: acts are on generation {g}'s tests, at its \
                     gate (] shows it)",
                    s.grid().map_or(0, |grid| grid.generation)
                ))
            }
            Some(g) if *a == Action::Undo && !s.doc.can_undo(g) => {
                Some("nothing to undo at this gate".into())
            }
            Some(g) if *a == Action::Redo && !s.doc.can_redo(g) => {
                Some("nothing to redo at this gate (a new act ends what undo can give back)".into())
            }
            Some(_) => None,
        }),
        Action::Open if s.screen == Screen::Why => read_only(),
        _ => None,
    }
}

fn moved(v: usize, d: i64) -> usize {
    if d < 0 {
        v.saturating_sub(d.unsigned_abs() as usize)
    } else {
        v.saturating_add(d as usize)
    }
}

impl State {
    fn say(&mut self, m: impl Into<String>) {
        let m = m.into();
        self.notice = Some(match &self.note {
            Some(note) if *note != m => format!("{note}\n{m}"),
            _ => m.clone(),
        });
        self.messages.push(m);
        if self.messages.len() > 200 {
            self.messages.remove(0);
        }
    }

    /// The user acted: what the message line said (a note too) is stale.
    fn clear_notice(&mut self) {
        self.notice = None;
        self.note = None;
    }

    /// Another screen: what the message line said belonged to the one left.
    fn go(&mut self, s: Screen) {
        if s != self.screen {
            self.history.push(self.screen);
            self.screen = s;
            self.clear_notice();
        }
    }

    fn scroll_help(&mut self, dy: i64) {
        let last = self.help_len.saturating_sub(self.help_rows());
        self.help_scroll = moved(self.help_scroll, dy).min(last);
    }

    /// Rebuilds what is derived from the document for the shown generation.
    fn refresh(&mut self) {
        let sources = &self.sources;
        let source = |f: &str| sources.get(f).cloned();
        self.cache = match self.shown_generation() {
            Some(g) => CellCache::build(&self.doc, g, &source),
            None => CellCache::default(),
        };
    }

    fn set_doc(&mut self, doc: Arc<SessionDoc>) {
        // A new generation, a new row of the user's: the selection follows its test.
        let selection = self.grid_selection();
        self.doc = doc;
        self.refresh();
        self.reselect(selection);
        self.follow_act();
        self.curate_row = self
            .curate_row
            .min(self.curate_list().len().saturating_sub(1));
    }

    /// Selects the test an act was about once the session shows the act (`curate_follow`).
    fn follow_act(&mut self) {
        let Some((test, acts)) = &self.curate_follow else {
            return;
        };
        if self.doc.acts.len() <= *acts {
            return;
        }
        if let Some(i) = self.curate_list().iter().position(|t| t == test) {
            self.curate_row = i;
            self.curate_follow = None;
        }
    }

    /// Puts the Grid's selection back on `pair` after its rows or columns changed (a sort, a
    /// filter, another generation): the selection follows the test and the mutant, not the
    /// position, so the next act lands on the test the user chose. A test or mutant no
    /// longer shown leaves its coordinate where it was.
    fn reselect(&mut self, (test, mutant): (Option<TestId>, Option<MutantId>)) {
        if let Some(grid) = self.grid() {
            if let Some(r) = test.and_then(|t| grid.tests.iter().position(|x| *x == t)) {
                self.row = r;
            }
            if let Some(c) = mutant.and_then(|m| grid.mutants.iter().position(|x| *x == m)) {
                self.col = c;
            }
        }
        self.clamp_grid();
    }

    /// Keeps the selection inside the grid and in view.
    fn clamp_grid(&mut self) {
        let Some(grid) = self.grid() else {
            return;
        };
        self.row = self.row.min(grid.tests.len().saturating_sub(1));
        self.col = self.col.min(grid.mutants.len().saturating_sub(1));
        let (rows, cols) = self.grid_viewport();
        if self.row < self.row_scroll {
            self.row_scroll = self.row;
        } else if self.row >= self.row_scroll + rows {
            self.row_scroll = self.row + 1 - rows;
        }
        if self.col < self.col_scroll {
            self.col_scroll = self.col;
        } else if self.col >= self.col_scroll + cols {
            self.col_scroll = self.col + 1 - cols;
        }
    }

    /// Scrolls `screen`'s pane by `dy` lines, from where it shows (an offset kept past the
    /// end by an old frame counts as the end), never past its last line.
    fn scroll_by(&mut self, screen: Screen, dy: i64) {
        let top = moved(self.scroll_of(screen).top, dy);
        self.set_top(screen, top);
    }

    fn set_top(&mut self, screen: Screen, top: usize) {
        let i = screen.index();
        let max = self.measured[i]
            .as_ref()
            .map_or(usize::MAX, |m| m.max_top());
        self.scroll[i].top = top.min(max);
    }

    /// Scrolls sideways by `dx` columns (panes whose lines do not wrap).
    fn shift(&mut self, screen: Screen, dx: i64) {
        let i = screen.index();
        let left = moved(self.scroll_of(screen).left, dx);
        let max = self.measured[i]
            .as_ref()
            .map_or(usize::MAX, |m| m.max_left());
        self.scroll[i].left = left.min(max);
    }

    /// The search of the current screen follows `query` (none when it is empty).
    fn set_query(&mut self, query: String) {
        self.search = (!query.is_empty()).then_some(Search {
            screen: self.screen,
            query,
            current: 0,
            jump_pending: false,
        });
    }

    /// Refuses `a` with its reason when it cannot be done now (see [`refusal`]).
    fn allowed(&mut self, a: &Action) -> bool {
        match refusal(self, a) {
            Some(reason) => {
                self.say(reason);
                false
            }
            None => true,
        }
    }
}

/// The reducer: applies `action` to `s` and returns what the app must do.
pub fn update(s: &mut State, action: Action) -> Vec<Effect> {
    let mut fx = vec![];
    apply(s, action, &mut fx);
    derive(s, &mut fx);
    fx
}

fn apply(s: &mut State, action: Action, fx: &mut Vec<Effect>) {
    // An act (anything but moving around) makes what the message line said about the last
    // one stale.
    if action.is_key_intent() && action.in_footer() {
        s.clear_notice();
    }
    match action {
        Action::NextScreen | Action::PrevScreen => {
            let i = Screen::ALL.iter().position(|x| *x == s.screen).unwrap_or(0);
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
        Action::First | Action::Last => {
            let last = action == Action::Last;
            match s.screen {
                Screen::Grid => {
                    s.row = if last { usize::MAX } else { 0 };
                    s.clamp_grid();
                }
                Screen::Curate => {
                    s.curate_row = if last {
                        s.curate_list().len().saturating_sub(1)
                    } else {
                        0
                    };
                    s.set_top(Screen::Curate, 0);
                }
                screen => s.set_top(screen, if last { usize::MAX } else { 0 }),
            }
        }
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

/// Arrow keys and the wheel: what moves depends on the screen.
fn move_by(s: &mut State, dx: i64, dy: i64) {
    match s.screen {
        Screen::Grid => {
            s.row = moved(s.row, dy);
            s.col = moved(s.col, dx);
            s.clamp_grid();
        }
        // Sideways: another generation; up and down: the text.
        Screen::Timeline => {
            if dx != 0 {
                switch_generation(s, dx);
            } else {
                s.scroll_by(Screen::Timeline, dy);
            }
        }
        Screen::Pair => {
            s.scroll_by(Screen::Pair, dy);
            s.shift(Screen::Pair, dx * 8);
        }
        Screen::Why => s.scroll_by(Screen::Why, dy),
        Screen::Curate => {
            let n = s.curate_list().len();
            let to = moved(s.curate_row, dy).min(n.saturating_sub(1));
            if to != s.curate_row {
                s.curate_row = to;
                s.set_top(Screen::Curate, 0);
            }
        }
        Screen::Model => {
            if dx != 0 {
                let n = s.doc.llm_calls.len();
                s.model_call = moved(s.model_call, dx).min(n.saturating_sub(1));
                s.set_top(Screen::Model, 0);
            } else {
                s.scroll_by(Screen::Model, dy);
            }
        }
    }
}

/// Text typed into the prompt: a search follows it as it is typed; `g` as the first key of a
/// go-to is `gg`, the top.
fn typed(s: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let Some(p) = &mut s.prompt else {
        return;
    };
    if p.purpose == Asking::Goto && p.text.is_empty() && text == "g" {
        s.prompt = None;
        apply(s, Action::First, fx);
        return;
    }
    p.text.push_str(text);
    if p.purpose == Asking::Search {
        let q = p.text.clone();
        s.set_query(q);
    }
}

/// Enter in a prompt: search, go to, or write, as it was opened for.
fn submitted(s: &mut State, fx: &mut Vec<Effect>) {
    let Some(p) = s.prompt.take() else {
        return;
    };
    let text = p.text.trim().to_owned();
    match p.purpose {
        Asking::Search => {
            if text.is_empty() {
                s.search = None;
                return;
            }
            s.set_query(text);
            match s.screen {
                Screen::Grid | Screen::Curate => jump_to_hit(s, true),
                // A text pane's hits come from its frames: those drawn while the query was
                // typed hold them; a replay without frames jumps at the next one.
                screen => match &s.measured[screen.index()] {
                    Some(m) => {
                        let top = s.scroll_of(screen).top;
                        match m.hits.iter().find(|&&h| h >= top).or(m.hits.first()) {
                            Some(&h) => s.set_top(screen, h),
                            None => s.say("no match on this screen"),
                        }
                    }
                    None => {
                        if let Some(q) = &mut s.search {
                            q.jump_pending = true;
                        }
                    }
                },
            }
        }
        Asking::Goto => goto(s, &text),
        Asking::WriteTo(t) => {
            if text.is_empty() {
                return;
            }
            let source = s.doc.tests[&t].source.clone();
            s.pending_write = Some(source.clone());
            fx.push(Effect::WriteFile {
                path: std::path::PathBuf::from(text),
                text: source,
                overwrite: false,
            });
        }
    }
}

/// The test `y` and `Y` act on: the selected one of Curate or the Grid, else the final test.
fn selected_test(s: &State) -> Option<crate::engine::TestId> {
    match s.screen {
        Screen::Curate => s.curate_list().get(s.curate_row).cloned(),
        Screen::Grid | Screen::Pair | Screen::Why => s.selected_pair().map(|(t, _)| t),
        _ => None,
    }
    .or_else(|| s.doc.final_test.clone())
}

/// `g` + an id: a test's row or a mutant's column on the Grid, in the shown generation when
/// it is there, else in the newest generation that has it. `12` finds `t12`.
fn goto(s: &mut State, id: &str) {
    let doc = s.doc.clone();
    let test = [id.to_owned(), format!("t{id}")]
        .into_iter()
        .find(|t| doc.tests.contains_key(t));
    let mutant = doc
        .pool
        .iter()
        .flat_map(|p| p.mutants.iter())
        .find(|m| m.id == id || m.id == format!("m{id}"))
        .map(|m| m.id.clone());
    let has = |g: usize| match (&test, &mutant) {
        (Some(t), _) => doc.generations[g].tests.contains(t),
        (None, Some(m)) => doc.generations[g].mutants.contains(m),
        _ => false,
    };
    let shown = s.shown_generation();
    let Some(g) = shown
        .filter(|&g| has(g))
        .or_else(|| (0..doc.generations.len()).rev().find(|&g| has(g)))
    else {
        s.say(match (&test, &mutant) {
            (None, None) => format!("no test or mutant {id}"),
            _ => format!("{id} is in no generation yet"),
        });
        return;
    };
    if Some(g) != shown {
        s.generation = (g + 1 < doc.generations.len()).then_some(g);
        s.refresh();
    }
    s.go(Screen::Grid);
    if let Some(grid) = s.grid() {
        if let Some(t) = &test
            && let Some(r) = grid.tests.iter().position(|x| x == t)
        {
            s.row = r;
        }
        if let Some(m) = &mutant {
            match grid.mutants.iter().position(|x| x == m) {
                Some(c) => s.col = c,
                None => s.say(format!("{m} is filtered out ({})", s.filter.label())),
            }
        }
    }
    s.clamp_grid();
}

/// n / N: the next (or previous) hit of the search, wrapping around.
fn jump_to_hit(s: &mut State, forward: bool) {
    let Some(q) = s.search.clone().filter(|q| q.screen == s.screen) else {
        return;
    };
    match s.screen {
        Screen::Grid => {
            let hits = super::search::grid_hits(s, &q.query);
            if hits.is_empty() {
                s.say(format!("no test or mutant matches `{}`", q.query));
                return;
            }
            let n = hits.len();
            let i = if forward {
                q.current % n
            } else {
                (q.current + n - 2) % n
            };
            match hits[i] {
                super::search::GridHit::Row(r) => s.row = r,
                super::search::GridHit::Col(c) => s.col = c,
            }
            s.clamp_grid();
            if let Some(q) = &mut s.search {
                q.current = i + 1;
            }
            s.say(format!("match {} of {n}", i + 1));
        }
        Screen::Curate => {
            let hits = super::search::curate_hits(s, &q.query);
            let here = s.curate_row;
            let next = if forward {
                hits.iter().find(|&&r| r > here).or(hits.first())
            } else {
                hits.iter().rev().find(|&&r| r < here).or(hits.last())
            };
            match next {
                Some(&r) => {
                    s.curate_row = r;
                    s.set_top(Screen::Curate, 0);
                }
                None => s.say(format!("no test matches `{}`", q.query)),
            }
        }
        screen => {
            let hits = s.measured[screen.index()]
                .as_ref()
                .map(|m| m.hits.clone())
                .unwrap_or_default();
            let top = s.scroll_of(screen).top;
            let next = if forward {
                hits.iter().find(|&&h| h > top).or(hits.first())
            } else {
                hits.iter().rev().find(|&&h| h < top).or(hits.last())
            };
            match next {
                Some(&h) => s.set_top(screen, h),
                None => s.say(format!("no match for `{}` on this screen", q.query)),
            }
        }
    }
}

/// Shows another generation (`None` follows the newest, which is where the arrow ends).
fn switch_generation(s: &mut State, by: i64) {
    let n = s.doc.generations.len();
    if n == 0 {
        return;
    }
    let g = s.shown_generation().unwrap_or(0);
    let to = moved(g, by).min(n - 1);
    let pair = s.grid_selection();
    s.generation = (to + 1 < n).then_some(to);
    s.refresh();
    // A test of both generations (a survivor) stays selected.
    s.reselect(pair);
}

/// An act at the gate: on the Grid, and on the Pair and Why screens that show the Grid's
/// selected pair, on the selected row's test (when the Grid shows the gate's generation);
/// elsewhere on the selected test of the Curate list.
fn act(s: &mut State, action: Action, fx: &mut Vec<Effect>) {
    if !s.allowed(&action) {
        return;
    }
    let on_a_test = matches!(action, Action::Veto | Action::Pin | Action::Edit);
    let selected = if matches!(s.screen, Screen::Grid | Screen::Pair | Screen::Why) {
        let Some(grid) = s.grid() else { return };
        match s.at_gate() {
            Some(g) if on_a_test && grid.generation != g => {
                s.say(format!(
                    "the Grid shows generation {}: acts are on generation {g}'s tests, at its \
                     gate (] shows it)",
                    grid.generation
                ));
                return;
            }
            _ => grid.tests.get(s.row).cloned(),
        }
    } else {
        s.curate_list().get(s.curate_row).cloned()
    };
    // The selection stays on this test once the act is done, wherever the act moves it.
    s.curate_follow = selected.clone().map(|t| (t, s.doc.acts.len()));
    match (&action, selected) {
        (Action::Undo, _) => fx.push(Effect::Send(Command::Act(ActRequest::Undo))),
        (Action::Redo, _) => fx.push(Effect::Send(Command::Act(ActRequest::Redo))),
        (Action::Add, _) => {
            let name = format!("test_yours_{}.py", s.doc.tests.len() + 1);
            open_editor(s, Editing::Add(name), new_test_template(&s.doc), fx);
        }
        (Action::AddFile, _) => open_editor(s, Editing::Path, String::new(), fx),
        (_, None) => s.say("no test selected"),
        // The veto key on a vetoed test takes its veto back, whatever was done since.
        (Action::Veto, Some(test)) => {
            let vetoed = s.at_gate().is_some_and(|g| s.doc.vetoed(g).contains(&test));
            let act = if vetoed {
                ActRequest::Unveto { test }
            } else {
                ActRequest::Veto { test }
            };
            fx.push(Effect::Send(Command::Act(act)))
        }
        // The pin key on the pinned test takes its pin back.
        (Action::Pin, Some(test))
            if s.at_gate()
                .is_some_and(|g| s.doc.pinned(g).as_ref() == Some(&test)) =>
        {
            fx.push(Effect::Send(Command::Act(ActRequest::Unpin { test })))
        }
        (Action::Pin, Some(test)) => {
            // A test that passes on c_old cannot reproduce the bug: the prompt says so before
            // the run ends on it.
            let passes = s
                .doc
                .execution(&test, &Target::Old)
                .is_some_and(|e| e.outcome == crate::exec::Outcome::Passed);
            let warning = if passes {
                " it passes on c_old, so it cannot reproduce the bug;"
            } else {
                ""
            };
            // Another pinned test gives way: the question says so.
            let instead = s
                .at_gate()
                .and_then(|g| s.doc.pinned(g))
                .map_or(String::new(), |p| format!(" (in place of {p})"));
            s.confirm = Some(Confirm {
                question: format!(
                    "pin {test} as the final test{instead} and end the run?{warning} y/n"
                ),
                then: Confirmed::Pin(test),
            })
        }
        (Action::Edit, Some(test)) => {
            let text = s.doc.tests[&test].source.clone();
            open_editor(s, Editing::Edit(test), text, fx);
        }
        _ => {}
    }
    // An act on the Grid stays there (its row's mark shows the act); elsewhere the Curate
    // list shows what it did.
    if s.screen != Screen::Grid {
        s.go(Screen::Curate);
    }
}

fn open_editor(s: &mut State, purpose: Editing, text: String, fx: &mut Vec<Effect>) {
    s.editor = Some(EditorState::new(purpose, &text));
    fx.push(Effect::OpenEditor { text });
}

/// The editor's text was saved: a test is compiled by the run's interpreter first (a test
/// that does not compile would only fail to collect, everywhere); a path is read.
fn saved(s: &mut State, source: String, fx: &mut Vec<Effect>) {
    let Some(editor) = s.editor.as_mut() else {
        return;
    };
    let name = match &editor.purpose {
        Editing::Path => {
            s.editor = None;
            fx.push(Effect::CloseEditor);
            fx.push(Effect::ReadFile {
                path: std::path::PathBuf::from(source.trim()),
            });
            return;
        }
        Editing::Edit(t) => s.doc.tests.get(t).map_or(t.clone(), |c| c.name.clone()),
        Editing::Add(name) => name.clone(),
    };
    if editor.checking {
        return;
    }
    // The new-test template's placeholder fails on any code, fixed or not: a test that
    // keeps it can never pass, so it goes nowhere until the user replaces it.
    if let Some(at) = source.lines().position(|l| l.trim() == PLACEHOLDER) {
        editor.error = Some((at + 1, "the template's placeholder".into()));
        fx.push(Effect::EditorCursor { line: at + 1 });
        s.say(format!(
            "not accepted: line {} is still the template's placeholder, which fails on any \
             code; write the reproduction there, or Esc",
            at + 1
        ));
        return;
    }
    editor.checking = true;
    editor.error = None;
    // A Docker run's interpreter is in its image: the check uses python3 here.
    let python = s
        .doc
        .config
        .docker
        .is_none()
        .then(|| std::path::PathBuf::from(&s.doc.config.python));
    fx.push(Effect::CheckSyntax {
        python,
        name,
        source,
    });
}

/// The compile check answered: a test that compiles becomes the act it was written for; one
/// that does not keeps the editor open with the error.
fn checked(
    s: &mut State,
    source: String,
    result: Result<Vec<String>, String>,
    fx: &mut Vec<Effect>,
) {
    if !s.editor.as_ref().is_some_and(|e| e.checking) {
        return;
    }
    let complaints = match result {
        Ok(c) => c,
        Err(why) => {
            // Nothing to compile with: the test goes in, and the user is told.
            s.say(format!(
                "could not compile the test to check it ({why}); it goes in as written"
            ));
            vec![]
        }
    };
    let Some(editor) = s.editor.as_mut() else {
        return;
    };
    editor.checking = false;
    if let Some(first) = complaints.first() {
        // `file:line:col: message`
        let mut parts = first.splitn(4, ':');
        let (_, line, _, message) = (parts.next(), parts.next(), parts.next(), parts.next());
        let line = line.and_then(|l| l.trim().parse().ok()).unwrap_or(0);
        let message = message.map_or(first.clone(), |m| m.trim().to_owned());
        editor.error = Some((line, message.clone()));
        if line > 0 {
            fx.push(Effect::EditorCursor { line });
        }
        s.say(format!(
            "not accepted: it does not compile (line {line}: {message}); fix it, or Esc"
        ));
        return;
    }
    let purpose = editor.purpose.clone();
    s.editor = None;
    fx.push(Effect::CloseEditor);
    let source = if source.ends_with('\n') {
        source
    } else {
        source + "\n"
    };
    match purpose {
        Editing::Edit(test) => fx.push(Effect::Send(Command::Act(ActRequest::Edit {
            test,
            source,
        }))),
        Editing::Add(name) => fx.push(Effect::Send(Command::Act(ActRequest::Add { name, source }))),
        Editing::Path => {}
    }
}

/// What follows from the state after any action: the focal files' sources once the session
/// names them, and the Pair screen's diff when the pair or its logs change.
fn derive(s: &mut State, fx: &mut Vec<Effect>) {
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

/// The line a new test's template asks the user to replace.
const PLACEHOLDER: &str = "assert False, \"write the reproduction here\"";

fn new_test_template(doc: &SessionDoc) -> String {
    let imports = doc
        .base_brt
        .as_ref()
        .map(|b| b.imports.join("\n"))
        .filter(|i| !i.is_empty())
        .unwrap_or_default();
    format!("{imports}\n\n\ndef test_reproduces_the_issue():\n    {PLACEHOLDER}\n")
        .trim_start()
        .to_string()
}

/// All, survivors, then each kind present, then each file present, then all again.
fn next_filter(s: &State) -> ColumnFilter {
    let mut cycle = vec![ColumnFilter::All, ColumnFilter::Survivors];
    if let (Some(pool), Some(g)) = (&s.doc.pool, s.shown_generation()) {
        let in_gen: Vec<&crate::mutate::Mutant> = pool
            .mutants
            .iter()
            .filter(|m| s.doc.generations[g].mutants.contains(&m.id))
            .collect();
        let kinds: BTreeSet<MutantKind> = in_gen.iter().map(|m| m.kind).collect();
        cycle.extend(kinds.into_iter().map(ColumnFilter::Kind));
        let files: BTreeSet<&String> = in_gen.iter().map(|m| &m.file).collect();
        if files.len() > 1 {
            cycle.extend(files.into_iter().map(|f| ColumnFilter::File(f.clone())));
        }
    }
    let i = cycle.iter().position(|f| *f == s.filter).unwrap_or(0);
    cycle[(i + 1) % cycle.len()].clone()
}

fn on_event(s: &mut State, e: Event) {
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
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::state::fixture;

    /// A finished session of the scripted engine: four tests of a small function, real
    /// mutants, scripted results (no Python).
    fn doc() -> SessionDoc {
        fixture::finished_session()
    }

    /// The finished session as if paused at generation `g`'s gate, on the Grid.
    fn paused_on_the_grid(g: usize) -> State {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: g };
        let mut s = State::new(Arc::new(d), false, 40);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Paused { generation: g }),
            },
        );
        update(&mut s, Action::Grid);
        s
    }

    fn state() -> State {
        let mut s = State::new(Arc::new(doc()), false, 40);
        update(
            &mut s,
            Action::Resize {
                width: 120,
                height: 36,
            },
        );
        s
    }

    /// At a gate, Curate lists the gate's generation, whichever one the Grid was showing.
    #[test]
    fn curate_lists_the_gates_generation() {
        let mut s = paused_on_the_grid(1);
        update(&mut s, Action::PrevGeneration);
        assert_eq!(s.grid().unwrap().generation, 0);
        update(&mut s, Action::Curate);
        let mut listed = s.curate_list();
        listed.sort();
        let mut gate = s.doc.generations[1].tests.clone();
        gate.sort();
        assert_eq!(listed, gate);
    }

    /// A page is the pane's rows less one: at 80x24 Curate's log pane has 7, and paging by
    /// the terminal's height skipped lines 8-16.
    #[test]
    fn a_page_is_what_the_pane_shows() {
        let mut s = state();
        update(
            &mut s,
            Action::Resize {
                width: 80,
                height: 24,
            },
        );
        update(&mut s, Action::Curate);
        let measure = crate::tui::state::Measure {
            lines: 62,
            rows: 7,
            ..crate::tui::state::Measure::default()
        };
        update(
            &mut s,
            Action::Measured {
                screen: Screen::Curate,
                measure,
            },
        );
        update(&mut s, Action::PageDown);
        assert_eq!(s.scroll_of(Screen::Curate).top, 6);
        update(&mut s, Action::PageDown);
        assert_eq!(s.scroll_of(Screen::Curate).top, 12);
        update(&mut s, Action::PageUp);
        assert_eq!(s.scroll_of(Screen::Curate).top, 6);
    }

    #[test]
    fn tab_cycles_screens_and_esc_goes_back() {
        let mut s = state();
        assert_eq!(s.screen, Screen::Grid);
        update(&mut s, Action::NextScreen);
        assert_eq!(s.screen, Screen::Pair);
        update(&mut s, Action::PrevScreen);
        update(&mut s, Action::PrevScreen);
        assert_eq!(s.screen, Screen::Timeline);
        update(&mut s, Action::Back);
        assert_eq!(s.screen, Screen::Grid);
        update(&mut s, Action::Help);
        update(&mut s, Action::Back);
        assert!(!s.help, "Esc closes the help first");
    }

    #[test]
    fn the_selection_stays_inside_the_grid() {
        let mut s = state();
        let g = s.grid().unwrap();
        for _ in 0..100 {
            update(&mut s, Action::Right);
            update(&mut s, Action::Down);
        }
        assert_eq!((s.row, s.col), (g.tests.len() - 1, g.mutants.len() - 1));
        for _ in 0..100 {
            update(&mut s, Action::Left);
            update(&mut s, Action::Up);
        }
        assert_eq!((s.row, s.col), (0, 0));
        update(&mut s, Action::Last);
        assert_eq!(s.row, g.tests.len() - 1);
    }

    #[test]
    fn running_and_finished_cells_follow_the_events() {
        let mut s = state();
        let (test, m) = s.selected_pair().unwrap();
        let key = crate::engine::exec_key(&s.doc.tests[&test].hash, &Target::Mutant(m.clone()));
        let g = s.shown_generation().unwrap();
        let before = s.cell(g, &test, &m);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::ExecutionStarted {
                    generation: Some(g),
                    test: test.clone(),
                    target: Target::Mutant(m.clone()),
                    key: key.clone(),
                }),
            },
        );
        assert_eq!(s.cell(g, &test, &m), CellView::Running);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::ExecutionDone {
                    generation: Some(g),
                    test: test.clone(),
                    target: Target::Mutant(m.clone()),
                    outcome: crate::exec::Outcome::Failed,
                    killed: Some(true),
                    cell: None,
                    key,
                    done: 1,
                    total: 2,
                    kills: 1,
                    timeouts: 0,
                }),
            },
        );
        assert_eq!(s.cell(g, &test, &m), before);
        assert_eq!(s.progress.unwrap().done, 1);
    }

    #[test]
    fn acts_wait_for_the_gate_and_a_read_only_session_runs_nothing() {
        let mut s = state();
        assert!(update(&mut s, Action::Veto).is_empty());
        assert!(s.messages.last().unwrap().contains("gate"));
        let mut ro = State::new(Arc::new(doc()), true, 40);
        // The first action also asks for the focal files' sources.
        assert!(matches!(
            &update(&mut ro, Action::Timeline)[..],
            [Effect::ReadSources { .. }]
        ));
        assert!(update(&mut ro, Action::Step).is_empty());
        assert!(ro.messages.last().unwrap().contains("read-only"));
        assert!(update(&mut s, Action::Step).is_empty());
        assert!(s.messages.last().unwrap().contains("finished"));
    }

    /// A note said as the session opens (a call waiting in a provider batch) is not wiped by
    /// the gate's own message that follows it; the user's next act clears both.
    #[test]
    fn a_note_at_opening_stays_above_the_gate_message() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 1 };
        let mut s = State::new(Arc::new(d), false, 40);
        for event in [
            Event::Note {
                message: "a call of this run waits in llm batch msgbatch_1".into(),
            },
            Event::Paused { generation: 1 },
        ] {
            update(
                &mut s,
                Action::Event {
                    event: Box::new(event),
                },
            );
        }
        let said = s.notice.clone().unwrap();
        assert!(said.starts_with("note: a call of this run waits"), "{said}");
        assert!(
            said.contains("\npaused before generation 1's crossover"),
            "{said}"
        );
        update(&mut s, Action::ToggleRaw);
        assert_eq!(s.notice, None);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Paused { generation: 2 }),
            },
        );
        let said = s.notice.clone().unwrap();
        assert!(said.starts_with("paused before generation 2"), "{said}");
    }

    #[test]
    fn at_the_gate_keys_become_acts() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 1 };
        let mut s = State::new(Arc::new(d), false, 40);
        // Where the last gate's list was left.
        s.curate_row = 1;
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Paused { generation: 1 }),
            },
        );
        assert_eq!(s.at_gate(), Some(1));
        assert_eq!(s.curate_row, 0, "a new gate starts at its first parent");
        let first = s.curate_list()[0].clone();
        // From a screen that is not the Grid, an act is on the Curate list's test and shows
        // that list.
        update(&mut s, Action::Timeline);
        assert_eq!(
            update(&mut s, Action::Veto),
            [Effect::Send(Command::Act(ActRequest::Veto {
                test: first.clone()
            }))]
        );
        assert_eq!(s.screen, Screen::Curate);
        match &update(&mut s, Action::Edit)[..] {
            [Effect::OpenEditor { text }] => {
                assert_eq!(
                    s.editor.as_ref().map(|e| &e.purpose),
                    Some(&Editing::Edit(first.clone()))
                );
                assert_eq!(text, &s.doc.tests[&first].source);
            }
            other => panic!("{other:?}"),
        }
        // Esc with the text unchanged closes at once.
        let unchanged = s.editor.as_ref().unwrap().original.clone();
        update(&mut s, Action::EditorCancelled { source: unchanged });
        assert_eq!(s.editor, None);
        assert_eq!(
            update(&mut s, Action::AddFile),
            [Effect::OpenEditor {
                text: String::new()
            }]
        );
        assert_eq!(s.editor.as_ref().map(|e| &e.purpose), Some(&Editing::Path));
        update(
            &mut s,
            Action::EditorCancelled {
                source: "/typed/but/not/saved".into(),
            },
        );
        assert_eq!(s.editor, None, "a path typed is no work lost");
        assert_eq!(
            update(&mut s, Action::Continue),
            [Effect::Send(Command::Continue)]
        );
    }

    #[test]
    fn filters_cycle_and_sorting_orders_rows_by_fitness() {
        let mut s = state();
        // Generation 0: four tests, one of them passing on c_old with the most kills.
        update(&mut s, Action::Timeline);
        update(&mut s, Action::Left);
        update(&mut s, Action::Grid);
        let all = s.grid().unwrap().mutants.len();
        update(&mut s, Action::FilterColumns);
        assert_eq!(s.filter, ColumnFilter::Survivors);
        assert!(s.grid().unwrap().mutants.len() <= all);
        for _ in 0..20 {
            update(&mut s, Action::FilterColumns);
            if s.filter == ColumnFilter::All {
                break;
            }
        }
        assert_eq!(s.filter, ColumnFilter::All, "the cycle comes back");
        update(&mut s, Action::SortRows);
        let g = s.grid().unwrap();
        let gen_ = &s.doc.generations[g.generation];
        // As the BRT rule ranks: every test failing on c_old above every passing one, then
        // by kills (t3 passes on c_old and kills the most, so it comes third, not first).
        let keys: Vec<(bool, usize)> = g
            .tests
            .iter()
            .map(|t| {
                let passes = s.doc.execution(t, &Target::Old).unwrap().outcome
                    == crate::exec::Outcome::Passed;
                (passes, gen_.scores[t].kills.len())
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        assert_eq!(keys, sorted);
        assert!(
            keys[0].1 < keys.iter().map(|k| k.1).max().unwrap(),
            "{keys:?}"
        );
    }

    #[test]
    fn pinning_a_test_that_passes_on_c_old_says_it_cannot_reproduce_the_bug() {
        let mut s = paused_on_the_grid(0);
        while s.grid().unwrap().generation > 0 {
            update(&mut s, Action::PrevGeneration);
        }
        let tests = s.grid().unwrap().tests;
        let passes = |t: &TestId| {
            s.doc.execution(t, &Target::Old).unwrap().outcome == crate::exec::Outcome::Passed
        };
        let (pass, fail) = (
            tests.iter().position(passes).unwrap(),
            tests.iter().position(|t| !passes(t)).unwrap(),
        );
        for (row, warned) in [(pass, true), (fail, false)] {
            s.row = row;
            update(&mut s, Action::Pin);
            let asked = s.confirm.take().unwrap().question;
            assert!(
                asked.starts_with(&format!("pin {} ", tests[row])),
                "{asked}"
            );
            assert_eq!(
                asked.contains("it passes on c_old, so it cannot reproduce the bug"),
                warned,
                "{asked}"
            );
        }
    }

    #[test]
    fn the_selection_follows_the_test_and_mutant_through_sorts_filters_and_generations() {
        // Generation order t1..t4; by fitness t3 (fails, kills the most), t1, t2, t4.
        let cands = [
            ("test_a.py", "# FAILS KILLS 01\ndef test_a(): pass\n"),
            (
                "test_b.py",
                "# KILLS 0123456789abcdef\ndef test_b(): pass\n",
            ),
            (
                "test_c.py",
                "# FAILS KILLS 0123456789abcdef\ndef test_c(): pass\n",
            ),
            ("test_d.py", "def test_d(): pass\n"),
        ];
        let cfg = crate::testkit::config(crate::engine::SelectionStrategy::Mutation);
        let mut s = State::new(
            Arc::new(crate::testkit::scripted_run(&cands, cfg)),
            false,
            40,
        );
        update(
            &mut s,
            Action::Resize {
                width: 120,
                height: 36,
            },
        );
        update(&mut s, Action::Grid);
        while s.grid().unwrap().generation > 0 {
            update(&mut s, Action::PrevGeneration);
        }
        let unsorted = s.grid().unwrap().tests;
        update(&mut s, Action::SortRows);
        let sorted = s.grid().unwrap().tests;
        update(&mut s, Action::SortRows);
        assert_ne!(
            unsorted, sorted,
            "the sort moves some test, or this proves nothing"
        );
        for r in 0..unsorted.len() {
            s.row = r;
            s.col = r % s.grid().unwrap().mutants.len();
            let chosen = s.selected_pair().unwrap();
            update(&mut s, Action::SortRows);
            assert_eq!(s.selected_pair(), Some(chosen.clone()), "row {r}, sorted");
            update(&mut s, Action::SortRows);
            assert_eq!(s.selected_pair(), Some(chosen), "row {r}, unsorted again");
        }
        // A filter keeps the selected mutant while it shows it, and the test always.
        let row_test = |s: &State| s.grid().unwrap().tests[s.row].clone();
        let test = row_test(&s);
        for _ in 0..4 {
            let before = s.selected_pair();
            update(&mut s, Action::FilterColumns);
            assert_eq!(row_test(&s), test, "filter {:?}", s.filter);
            if let Some((_, m)) = before
                && s.grid().unwrap().mutants.contains(&m)
            {
                assert_eq!(s.selected_pair(), Some((test.clone(), m)), "{:?}", s.filter);
            }
        }
        // A survivor of generation 0 stays selected on generation 1.
        let next = s.doc.generations[1].tests.clone();
        let g0 = s.grid().unwrap();
        s.row = g0.tests.iter().position(|t| next.contains(t)).unwrap();
        let (t, _) = s.selected_pair().unwrap();
        update(&mut s, Action::NextGeneration);
        assert_eq!(s.grid().unwrap().generation, 1);
        assert_eq!(s.selected_pair().unwrap().0, t);
    }

    #[test]
    fn actions_serialize_for_replay() {
        let a = Action::Pair;
        let j = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Action>(&j).unwrap(), a);
    }

    /// Replays a recorded list of actions (the serde form the app records with
    /// EVOOTTER_RECORD_ACTIONS) through the reducer.
    fn replay(s: &mut State, recorded: &str) -> Vec<Effect> {
        let actions: Vec<Action> = serde_json::from_str(recorded).unwrap();
        actions.into_iter().flat_map(|a| update(s, a)).collect()
    }

    #[test]
    fn a_recorded_walk_through_the_screens_replays_to_the_same_state() {
        let recorded = r#"[
            {"action": "resize", "width": 100, "height": 30},
            {"action": "right"}, {"action": "down"}, {"action": "open"},
            {"action": "toggle_raw"}, {"action": "next_hunk"}, {"action": "back"},
            {"action": "sort_rows"}, {"action": "help"}, {"action": "page_down"},
            {"action": "back"}, {"action": "timeline"}, {"action": "left"},
            {"action": "transcript"}, {"action": "scroll", "lines": 3},
            {"action": "grid"}, {"action": "click", "column": 15, "row": 5},
            {"action": "sources_read", "sources": {"calc/ops.py": "def clamp(): pass\n"}}
        ]"#;
        let doc = Arc::new(doc());
        let (mut a, mut b) = (
            State::new(doc.clone(), false, 40),
            State::new(doc, false, 40),
        );
        let fx = replay(&mut a, recorded);
        assert_eq!(fx, replay(&mut b, recorded), "the same effects");
        assert_eq!(a, b, "the same state");
        assert_eq!(a.screen, Screen::Grid);
        // Esc from the Pair screen went back to the Grid, which is not remembered twice.
        assert_eq!(a.history, [Screen::Grid, Screen::Timeline, Screen::Model]);
        assert!(a.raw_log && a.sort_by_fitness && !a.help);
        assert_eq!(
            a.generation,
            Some(0),
            "`left` on the timeline: the generation before"
        );
        assert_eq!(a.scroll[Screen::Model.index()].top, 3);
        // The click lands on the cell under it: row 1 (y 5 = tab line, border, 2 header lines
        // for 8 mutants: a digit and the kind; row 0), column 1 (x 15 = border, 12 header
        // columns, one 2-wide cell).
        assert_eq!((a.row, a.col), (1, 1));
        assert_eq!(a.width, 100);
        assert_eq!(
            a.source("calc/ops.py").as_deref(),
            Some("def clamp(): pass\n")
        );
        // The pair's diff was made when the Pair screen opened, of the raw logs after `v`.
        let mut at_pair = State::new(a.doc.clone(), false, 40);
        let actions: Vec<Action> = serde_json::from_str(recorded).unwrap();
        for action in actions.into_iter().take(5) {
            update(&mut at_pair, action);
        }
        assert_eq!(at_pair.screen, Screen::Pair);
        let (t, m) = at_pair.selected_pair().unwrap();
        let old = a.doc.execution(&t, &Target::Old).unwrap();
        let run = a.doc.execution(&t, &Target::Mutant(m)).unwrap();
        assert_eq!(
            a.pair_diff.as_ref().map(|d| d.logs.clone()),
            Some((old.raw_log.clone(), run.raw_log.clone()))
        );
        // Nothing was asked of the workbench or the disk but the focal sources, once.
        assert!(
            matches!(&fx[..], [Effect::ReadSources { files, .. }] if files == &["calc/ops.py"])
        );
    }

    /// Two vetoes at gate `g` of a test selection dropped, the second undone: an undo and a
    /// redo both have work there.
    fn with_undo_and_redo(d: &mut SessionDoc, g: usize) {
        let gen_ = &d.generations[g];
        let dropped = gen_
            .tests
            .iter()
            .find(|t| !gen_.selected.contains(t))
            .cloned()
            .unwrap();
        let tests = [dropped.clone(), dropped];
        for kind in [
            crate::engine::ActKind::Veto {
                test: tests[0].clone(),
            },
            crate::engine::ActKind::Veto {
                test: tests[1].clone(),
            },
            crate::engine::ActKind::Undo {
                undone: d.acts.len() + 1,
                what: None,
            },
        ] {
            d.acts.push(crate::engine::Act {
                at_unix: 0,
                generation: g,
                kind,
            });
        }
    }

    #[test]
    fn a_recorded_curation_replays_to_the_commands_the_workbench_gets() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 0 };
        d.acts.clear();
        with_undo_and_redo(&mut d, 0);
        let mut s = State::new(Arc::new(d), false, 40);
        let recorded = r#"[
            {"action": "event", "event": {"event": "paused", "generation": 0}},
            {"action": "curate"}, {"action": "down"}, {"action": "veto"},
            {"action": "edit"}, {"action": "editor_cancelled", "source": "changed"},
            {"action": "no"},
            {"action": "editor_saved", "source": "def test_x(:\n    pass"},
            {"action": "syntax_checked", "source": "def test_x(:\n    pass",
             "result": {"Ok": ["test_b.py:1:11: invalid syntax"]}},
            {"action": "editor_saved", "source": "def test_x(): pass"},
            {"action": "syntax_checked", "source": "def test_x(): pass", "result": {"Ok": []}},
            {"action": "add_file"}, {"action": "editor_saved", "source": " /no/such.py "},
            {"action": "file_read", "path": "/no/such.py", "result": {"Err": "not found"}},
            {"action": "add_file"}, {"action": "editor_saved", "source": "/tmp/test_mine.py"},
            {"action": "file_read", "path": "/tmp/test_mine.py", "result": {"Ok": "def test_m(): pass"}},
            {"action": "editor_saved", "source": "def test_m(): pass"},
            {"action": "syntax_checked", "source": "def test_m(): pass", "result": {"Err": "no python3"}},
            {"action": "pin"}, {"action": "no"}, {"action": "pin"}, {"action": "yes"},
            {"action": "undo"}, {"action": "redo"}, {"action": "continue"}
        ]"#;
        let mut effects = vec![];
        let actions: Vec<Action> = serde_json::from_str(recorded).unwrap();
        let mut editor_after_error = None;
        for a in actions {
            let was_check =
                matches!(&a, Action::SyntaxChecked { result: Ok(c), .. } if !c.is_empty());
            effects.extend(update(&mut s, a));
            if was_check {
                editor_after_error = s.editor.clone();
            }
        }
        let fx = effects;
        let second = s.curate_list()[1].clone();
        let sent: Vec<&Command> = fx
            .iter()
            .filter_map(|f| match f {
                Effect::Send(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(
            sent,
            [
                &Command::Act(ActRequest::Veto {
                    test: second.clone()
                }),
                &Command::Act(ActRequest::Edit {
                    test: second.clone(),
                    source: "def test_x(): pass\n".into()
                }),
                &Command::Act(ActRequest::Add {
                    name: "test_mine.py".into(),
                    source: "def test_m(): pass\n".into()
                }),
                &Command::Act(ActRequest::Pin {
                    test: second.clone()
                }),
                &Command::Act(ActRequest::Undo),
                &Command::Act(ActRequest::Redo),
                &Command::Continue,
            ],
            "Esc on a changed text asked first; the edit that does not compile was not sent; \
             the first pin was answered no"
        );
        // The text that did not compile kept the editor open, with its error and line.
        let ed = editor_after_error.expect("the editor stayed open");
        assert_eq!(ed.purpose, Editing::Edit(second));
        assert_eq!(ed.error, Some((1, "invalid syntax".into())));
        assert!(
            fx.contains(&Effect::EditorCursor { line: 1 }),
            "the cursor goes to the line"
        );
        // A path that cannot be read opens the prompt again on it, to be corrected.
        assert!(
            fx.contains(&Effect::OpenEditor {
                text: "/no/such.py".into()
            }),
            "{fx:?}"
        );
        // Each save of a test was compiled first, with the session's interpreter.
        let checks = fx
            .iter()
            .filter(|f| matches!(f, Effect::CheckSyntax { python: Some(p), .. } if p.as_os_str() == "python3"))
            .count();
        assert_eq!(checks, 3);
        assert!(fx.contains(&Effect::ReadFile {
            path: "/no/such.py".into()
        }));
        assert!(
            s.messages
                .iter()
                .any(|m| m.contains("cannot read /no/such.py: not found"))
        );
        assert!(
            s.messages
                .iter()
                .any(|m| m.contains("could not compile the test to check it"))
        );
        assert_eq!(s.editor, None);
        assert_eq!(s.confirm, None);
        assert!(s.busy && s.paused_at.is_none());
    }

    /// The add template saved as it is (or with its placeholder kept) would fail on any code
    /// and go to crossover: it stays in the editor with the placeholder's line marked.
    #[test]
    fn a_new_test_that_keeps_the_templates_placeholder_is_not_sent() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 0 };
        let mut s = State::new(Arc::new(d), false, 40);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Paused { generation: 0 }),
            },
        );
        let template = match &update(&mut s, Action::Add)[..] {
            [Effect::OpenEditor { text }] => text.clone(),
            other => panic!("{other:?}"),
        };
        let at = template
            .lines()
            .position(|l| l.contains("write the reproduction here"));
        let fx = update(
            &mut s,
            Action::EditorSaved {
                source: template.clone(),
            },
        );
        // Nothing checked or sent; the cursor goes to the placeholder's line.
        assert_eq!(
            fx,
            [Effect::EditorCursor {
                line: at.unwrap() + 1
            }]
        );
        let ed = s.editor.clone().expect("the editor stays open");
        assert_eq!(ed.error.map(|e| e.0), at.map(|i| i + 1));
        assert!(
            s.notice
                .as_deref()
                .unwrap_or_default()
                .contains("template's placeholder"),
            "{:?}",
            s.notice
        );
        // Replaced, it goes on to the compile check.
        let written = template.replace(
            "assert False, \"write the reproduction here\"",
            "assert 1 + 1 == 3",
        );
        let fx = update(&mut s, Action::EditorSaved { source: written });
        assert!(matches!(&fx[..], [Effect::CheckSyntax { .. }]), "{fx:?}");
    }

    #[test]
    fn a_traced_rerun_is_asked_for_and_shown_only_for_its_own_pair() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 0 };
        let mut s = State::new(Arc::new(d), false, 40);
        update(&mut s, Action::Why);
        let fx = update(&mut s, Action::Open);
        let (test, mutant) = s.selected_pair().unwrap();
        assert!(fx.contains(&Effect::RunPair {
            test: test.clone(),
            mutant: mutant.clone(),
            file: "calc/ops.py".into()
        }));
        assert_eq!(s.rerun.as_ref().unwrap().result, None, "running");
        let other = Action::PairRan {
            test: "t9".into(),
            mutant: mutant.clone(),
            result: Err("late".into()),
        };
        update(&mut s, other);
        assert_eq!(
            s.rerun.as_ref().unwrap().result,
            None,
            "a stale answer is dropped"
        );
        update(
            &mut s,
            Action::PairRan {
                test,
                mutant,
                result: Err("no executor".into()),
            },
        );
        assert_eq!(
            s.rerun.as_ref().unwrap().result,
            Some(Err("no executor".into()))
        );
        let mut ro = State::new(Arc::new(doc()), true, 40);
        update(&mut ro, Action::Why);
        assert!(update(&mut ro, Action::Open).is_empty());
    }

    /// On the Grid at a gate, the act keys act on the selected row's test, and only when the
    /// Grid shows the gate's generation: a veto of an older generation's test would be
    /// nothing the run can use.
    #[test]
    fn on_the_grid_at_a_gate_the_act_keys_act_on_the_selected_row() {
        let mut s = paused_on_the_grid(1);
        assert_eq!(s.screen, Screen::Grid);
        update(&mut s, Action::Down);
        let row_test = s.grid().unwrap().tests[s.row].clone();
        assert_eq!(
            update(&mut s, Action::Veto),
            [Effect::Send(Command::Act(ActRequest::Veto {
                test: row_test.clone()
            }))]
        );
        assert_eq!(s.screen, Screen::Grid, "the act keeps the Grid");
        assert!(s.confirm.is_none(), "a veto asks nothing");
        update(&mut s, Action::Pin);
        assert_eq!(
            s.confirm.as_ref().map(|c| c.then.clone()),
            Some(Confirmed::Pin(row_test.clone()))
        );
        update(&mut s, Action::No);
        // The generation before the gate's: refused, with the key that shows the gate's.
        update(&mut s, Action::PrevGeneration);
        assert_eq!(s.grid().unwrap().generation, 0);
        assert!(update(&mut s, Action::Veto).is_empty());
        let said = s.notice.clone().unwrap_or_default();
        assert!(said.contains("acts are on generation 1's tests"), "{said}");
        // Undo names no test: it works whatever generation the Grid shows.
        let mut d = (*s.doc).clone();
        d.acts.clear();
        with_undo_and_redo(&mut d, 1);
        update(&mut s, Action::Snapshot { doc: Arc::new(d) });
        assert_eq!(
            update(&mut s, Action::Undo),
            [Effect::Send(Command::Act(ActRequest::Undo))]
        );
    }

    /// The workbench reports an act before the snapshot that holds it arrives: the message
    /// waits for the snapshot, so what it says goes to crossover is what does.
    #[test]
    fn an_act_is_announced_with_the_snapshot_that_holds_it() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 0 };
        let before = Arc::new(d.clone());
        let mut s = State::new(before, false, 40);
        let act = crate::engine::Act {
            at_unix: 1,
            generation: 0,
            kind: crate::engine::ActKind::Veto {
                test: d.generations[0].selected[1].clone(),
            },
        };
        let acted = Event::Acted { act: act.clone() };
        update(
            &mut s,
            Action::Event {
                event: Box::new(acted),
            },
        );
        assert_eq!(
            s.notice, None,
            "not yet: the document does not hold the act"
        );
        d.acts.push(act);
        let kept = d.generations[0].selected[0].clone();
        d.generations[0].parents = Some(vec![kept.clone()]);
        update(&mut s, Action::Snapshot { doc: Arc::new(d) });
        let said = s.notice.clone().unwrap();
        assert!(
            said.ends_with(&format!(
                "going to crossover: {kept}; x again takes it back"
            )),
            "{said}"
        );
        // The next act makes it stale.
        update(&mut s, Action::ToggleRaw);
        assert_eq!(s.notice, None);
    }

    /// An act moves its test in the Curate list (a vetoed parent goes among the rest): the
    /// selection goes with it, so the same key twice falls on the same test; an edit selects
    /// the test it made.
    #[test]
    fn the_curate_selection_follows_the_test_an_act_moved() {
        let mut d = doc();
        // At generation 0's gate (the newest, which the list shows).
        let g = 0;
        d.generations.truncate(1);
        d.final_test = None;
        d.phase = Phase::Crossover { generation: g };
        let mut s = State::new(Arc::new(d.clone()), false, 40);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Paused { generation: g }),
            },
        );
        update(&mut s, Action::Curate);
        // A parent that a veto moves to another row (the rest follow the generation's order).
        let g0 = &d.generations[g];
        let list_without = |p: &crate::engine::TestId| {
            let mut l: Vec<_> = g0.selected.iter().filter(|t| *t != p).cloned().collect();
            let rest: Vec<_> = g0
                .tests
                .iter()
                .filter(|t| !l.contains(t))
                .cloned()
                .collect();
            l.extend(rest);
            l
        };
        let (row, vetoed) = g0
            .selected
            .iter()
            .enumerate()
            .find(|(i, p)| list_without(p).iter().position(|t| t == *p) != Some(*i))
            .map(|(i, p)| (i, p.clone()))
            .expect("a parent that a veto moves");
        for _ in 0..row {
            update(&mut s, Action::Down);
        }
        assert_eq!(
            update(&mut s, Action::Veto),
            [Effect::Send(Command::Act(ActRequest::Veto {
                test: vetoed.clone()
            }))]
        );
        // A snapshot from before the act changes nothing.
        update(
            &mut s,
            Action::Snapshot {
                doc: Arc::new(d.clone()),
            },
        );
        assert_eq!(s.curate_list()[s.curate_row], vetoed);
        let act = crate::engine::Act {
            at_unix: 1,
            generation: g,
            kind: crate::engine::ActKind::Veto {
                test: vetoed.clone(),
            },
        };
        d.acts.push(act);
        let parents: Vec<_> = d.generations[g]
            .selected
            .iter()
            .filter(|t| **t != vetoed)
            .cloned()
            .collect();
        d.generations[g].parents = Some(parents);
        update(
            &mut s,
            Action::Snapshot {
                doc: Arc::new(d.clone()),
            },
        );
        assert_ne!(s.curate_row, row, "the vetoed test moved in the list");
        assert_eq!(
            s.curate_list()[s.curate_row],
            vetoed,
            "and the selection with it"
        );
        // The same key again, on the vetoed test: its veto is taken back.
        assert_eq!(
            update(&mut s, Action::Veto),
            [Effect::Send(Command::Act(ActRequest::Unveto {
                test: vetoed.clone()
            }))]
        );
        // An edit: once the act is reported, its new test is selected where it is listed.
        let edited = d.parents(g)[0].clone();
        let new_test: crate::engine::TestId = d.generations[g]
            .tests
            .iter()
            .find(|t| !d.generations[g].selected.contains(t) && **t != vetoed)
            .cloned()
            .unwrap();
        let act = crate::engine::Act {
            at_unix: 2,
            generation: g,
            kind: crate::engine::ActKind::Edit {
                test: edited.clone(),
                new_test: new_test.clone(),
            },
        };
        // Reported before the snapshot that holds it, the new test listed among the rest.
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Acted { act: act.clone() }),
            },
        );
        d.acts.push(act);
        let parents = d.generations[g].parents.clone().unwrap_or_default();
        d.generations[g].parents = Some(
            parents
                .into_iter()
                .map(|t| if t == edited { new_test.clone() } else { t })
                .collect(),
        );
        update(&mut s, Action::Snapshot { doc: Arc::new(d) });
        assert_eq!(s.curate_list()[s.curate_row], new_test);
    }

    #[test]
    fn a_search_finds_tests_and_mutants_on_the_grid_and_n_moves_between_them() {
        let mut s = state();
        update(&mut s, Action::Timeline);
        update(&mut s, Action::Left);
        update(&mut s, Action::Grid);
        // Typing searches as it goes; Enter jumps to the first hit.
        let recorded = r#"[
            {"action": "search"}, {"action": "type", "text": "t"}, {"action": "type", "text": "3"},
            {"action": "submit"}
        ]"#;
        replay(&mut s, recorded);
        assert_eq!(s.prompt, None);
        let q = s.search.clone().unwrap();
        assert_eq!((q.screen, q.query.as_str()), (Screen::Grid, "t3"));
        let grid = s.grid().unwrap();
        assert_eq!(grid.tests[s.row], "t3");
        assert_eq!(
            super::super::keymap::KeyContext::Search,
            key_contexts(&s)[0],
            "n and N are the search's now"
        );
        // A kind matches columns: n walks them, N walks back, wrapping.
        update(&mut s, Action::Cancel);
        assert_eq!(s.search, None, "Esc ends the search");
        replay(
            &mut s,
            r#"[{"action": "search"}, {"action": "type", "text": "binary_arithmetic"}, {"action": "submit"}]"#,
        );
        let hits = super::super::search::grid_hits(&s, "binary_arithmetic");
        assert!(hits.len() >= 2, "{hits:?}");
        let first = s.col;
        update(&mut s, Action::NextHit);
        assert_ne!(s.col, first);
        update(&mut s, Action::PrevHit);
        assert_eq!(s.col, first);
        let mutant = &grid.mutants[s.col];
        assert_eq!(s.mutant(mutant).unwrap().kind.as_str(), "binary_arithmetic");
        // Nothing found says so.
        replay(
            &mut s,
            r#"[{"action": "search"}, {"action": "type", "text": "zzz"}, {"action": "submit"}]"#,
        );
        assert!(
            s.notice
                .as_deref()
                .unwrap()
                .contains("no test or mutant matches `zzz`")
        );
    }

    #[test]
    fn go_to_an_id_from_anywhere_and_gg_is_the_top() {
        let mut s = state();
        update(&mut s, Action::Model);
        let t4 = "t4";
        replay(
            &mut s,
            r#"[{"action": "goto"}, {"action": "type", "text": "4"}, {"action": "submit"}]"#,
        );
        // t4 is in generation 0 only: the grid shows it there, its row selected.
        assert_eq!(s.screen, Screen::Grid);
        assert_eq!(s.shown_generation(), Some(0));
        assert_eq!(s.grid().unwrap().tests[s.row], t4);
        let m = s.doc.generations[0].mutants[2].clone();
        replay(
            &mut s,
            &format!(
                r#"[{{"action": "goto"}}, {{"action": "type", "text": "{m}"}}, {{"action": "submit"}}]"#
            ),
        );
        assert_eq!(s.grid().unwrap().mutants[s.col], m);
        update(&mut s, Action::Down);
        replay(
            &mut s,
            r#"[{"action": "goto"}, {"action": "type", "text": "g"}]"#,
        );
        assert_eq!((s.row, s.prompt.clone()), (0, None), "gg: the top");
        replay(
            &mut s,
            r#"[{"action": "goto"}, {"action": "type", "text": "t99"}, {"action": "submit"}]"#,
        );
        assert!(
            s.notice
                .as_deref()
                .unwrap()
                .contains("no test or mutant t99")
        );
    }

    #[test]
    fn a_test_is_written_to_a_named_file_asking_before_it_writes_over_one() {
        let mut s = state();
        update(&mut s, Action::WriteTest);
        let (t, _) = s.selected_pair().unwrap();
        let name = s.doc.tests[&t].name.clone();
        assert_eq!(
            s.prompt,
            Some(Prompt {
                purpose: Asking::WriteTo(t.clone()),
                text: name.clone(),
            }),
            "the prompt offers the test's own file name"
        );
        let fx = replay(
            &mut s,
            r#"[{"action": "erase"}, {"action": "type", "text": "y"}, {"action": "submit"}]"#,
        );
        let path = std::path::PathBuf::from(format!("{}y", &name[..name.len() - 1]));
        let source = s.doc.tests[&t].source.clone();
        assert_eq!(
            fx,
            [Effect::WriteFile {
                path: path.clone(),
                text: source.clone(),
                overwrite: false
            }]
        );
        update(
            &mut s,
            Action::FileWritten {
                path: path.clone(),
                result: Err("exists".into()),
                exists: true,
            },
        );
        assert!(
            s.confirm
                .as_ref()
                .unwrap()
                .question
                .contains("write over it? y/n")
        );
        assert_eq!(
            update(&mut s, Action::Yes),
            [Effect::WriteFile {
                path: path.clone(),
                text: source.clone(),
                overwrite: true
            }]
        );
        update(
            &mut s,
            Action::FileWritten {
                path,
                result: Ok(source.len()),
                exists: false,
            },
        );
        assert!(s.notice.as_deref().unwrap().starts_with("wrote "));
        // Y: the clipboard.
        assert_eq!(
            update(&mut s, Action::CopyTest),
            [Effect::Clipboard { text: source }]
        );
    }

    #[test]
    fn brackets_switch_the_grids_generation_and_its_cells() {
        let mut s = state();
        let newest = s.shown_generation().unwrap();
        update(&mut s, Action::PrevGeneration);
        assert_eq!(s.shown_generation(), Some(newest - 1));
        assert_eq!(s.cache.generation, newest - 1, "the cells follow");
        update(&mut s, Action::NextGeneration);
        assert_eq!(s.generation, None, "back at the newest, it follows again");
    }
}
