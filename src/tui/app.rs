//! The workbench's screens as one [`Component`] of the terminal loop: every input becomes an
//! `Action` for the reducer (keys through the keymap, terminal events, workbench events and
//! snapshots, finished effects), and the reducer's effects are carried out here and nowhere
//! else. Besides the reducer's state, this view owns one widget's state: the editor's text,
//! which reaches the reducer when it is saved.

use super::action::{Action, Effect, Rerun};
use super::highlight::Highlighter;
use super::keymap::{KeyContext, Keymap};
use super::state::{Measure, Screen, State};
use super::terminal::{Component, Term};
use super::theme::Theme;
use super::update::{self, Store};
use super::views::{self, Ctx};
use crate::engine::{Event, SessionDoc};
use crate::workbench::{Command, Finished, PairRunner, Workbench};
use ratatui::Frame;
use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers, MouseEventKind,
};
use ratatui::layout::Size;
use std::cell::Cell;
use std::fs::File;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{mpsc, watch};

/// What the TUI drives: a live workbench, or a saved session to look at.
pub enum Source {
    Live(Box<Workbench>),
    ReadOnly(Arc<SessionDoc>),
}

/// The user's settings every screen uses: the colours (theme), the keys (keymap) and the
/// code highlighter that goes with the theme.
pub struct Settings {
    pub theme: Theme,
    pub keymap: Keymap,
    pub highlighter: Highlighter,
}

/// How the TUI ended.
pub enum Outcome {
    /// The workbench was stopped (or had finished): how it ended.
    Live(Finished),
    ReadOnly,
}

/// Runs the workbench's screens in `term` until the user quits; `back_to` names the screen
/// they were opened from (Esc on the first screen goes back to it).
pub async fn run(
    term: &mut Term,
    source: Source,
    settings: &Settings,
    back_to: Option<String>,
) -> anyhow::Result<Outcome> {
    let mut view = WorkbenchView::new(source, settings, back_to, term.size()?)?;
    term.run(&mut view).await?;
    match view.wb {
        Some(w) => {
            // Quitting saves: the step in flight is dropped, finished work kept, and
            // `evootter open` continues from here.
            w.send(Command::Cancel);
            let mut w = *w;
            while w.next_event().await.is_some() {}
            Ok(Outcome::Live(w.finish().await?))
        }
        None => Ok(Outcome::ReadOnly),
    }
}

/// The workbench's screens: the reducer's store, the workbench behind them (none for a saved
/// session), the editor's text, and where finished effects answer.
struct WorkbenchView<'a> {
    store: Store,
    settings: &'a Settings,
    wb: Option<Box<Workbench>>,
    snapshots: Option<watch::Receiver<Arc<SessionDoc>>>,
    runner: Option<PairRunner>,
    events_open: bool,
    editor: Option<ratatui_textarea::TextArea<'static>>,
    /// What finished effects answer, back into the loop as actions.
    done_tx: mpsc::UnboundedSender<Action>,
    done_rx: mpsc::UnboundedReceiver<Action>,
    sigterm: tokio::signal::unix::Signal,
    /// The terminal's input ended: the view ends as if the user quit.
    hung_up: bool,
    /// What the last frame measured of the screen's scrollable pane.
    measure: Cell<Option<(Screen, Measure)>>,
    /// EVOOTTER_RECORD_ACTIONS=FILE: every action, one JSON line each, to replay what
    /// happened through the reducer alone.
    record: Option<File>,
    /// EVOOTTER_TRACE_FRAMES=FILE: for each key, the microseconds from reading it to the end
    /// of the frame drawn after it (what the latency benchmark reads).
    trace: Option<File>,
    key_at: Option<Instant>,
}

/// What woke the view besides the terminal.
enum Wake {
    Event(Option<Event>),
    Snapshot(bool),
    Done(Action),
    Terminate,
}

fn append_to(var: &str) -> Option<File> {
    let p = std::env::var_os(var)?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .ok()
}

impl<'a> WorkbenchView<'a> {
    fn new(
        source: Source,
        settings: &'a Settings,
        back_to: Option<String>,
        size: Size,
    ) -> anyhow::Result<Self> {
        let (wb, doc, read_only) = match source {
            Source::Live(wb) => {
                let doc = wb.snapshot();
                (Some(wb), doc, false)
            }
            Source::ReadOnly(doc) => (None, doc, true),
        };
        let mut state = State::new(doc, read_only, views::help_len(&settings.keymap));
        state.back_to = back_to;
        state.act_keys = settings.keymap.act_keys();
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let mut view = WorkbenchView {
            store: Store::new(state),
            settings,
            snapshots: wb.as_ref().map(|w| w.snapshots()),
            runner: wb.as_ref().map(|w| w.pair_runner()),
            events_open: wb.is_some(),
            wb,
            editor: None,
            done_tx,
            done_rx,
            sigterm: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?,
            hung_up: false,
            measure: Cell::new(None),
            record: append_to("EVOOTTER_RECORD_ACTIONS"),
            trace: append_to("EVOOTTER_TRACE_FRAMES"),
            key_at: None,
        };
        if let Some(f) = view.record.as_mut()
            && let Ok(j) = serde_json::to_string(&Action::Snapshot {
                doc: view.store.state().doc.clone(),
            })
        {
            // The document the state starts from, so that a recording replays on its own.
            let _ = writeln!(f, "{j}");
        }
        view.dispatch(Action::Resize {
            width: size.width,
            height: size.height,
        });
        Ok(view)
    }

    /// The reducer on `a` (recorded), then its effects carried out.
    fn dispatch(&mut self, a: Action) {
        if let Some(f) = self.record.as_mut()
            && let Ok(j) = serde_json::to_string(&a)
        {
            let _ = writeln!(f, "{j}");
        }
        for fx in self.store.dispatch(a) {
            self.carry_out(fx);
        }
    }

    /// One effect: the only place the TUI writes a file, runs a process or talks to the
    /// workbench. What takes time runs off the loop and answers as an action.
    fn carry_out(&mut self, fx: Effect) {
        match fx {
            Effect::Send(c) => {
                if let Some(w) = &self.wb {
                    w.send(c);
                }
            }
            Effect::OpenEditor { text } => {
                self.editor = Some(text_area(&text, &self.settings.theme));
            }
            Effect::CloseEditor => self.editor = None,
            Effect::EditorCursor { line } => {
                if let Some(e) = self.editor.as_mut() {
                    let row = u16::try_from(line.saturating_sub(1)).unwrap_or(u16::MAX);
                    e.move_cursor(ratatui_textarea::CursorMove::Jump(row, 0));
                }
            }
            Effect::WriteFile {
                path,
                text,
                overwrite,
            } => {
                let tx = self.done_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let exists = path.exists();
                    let result = if exists && !overwrite {
                        Err("exists".to_owned())
                    } else {
                        std::fs::write(&path, &text)
                            .map(|()| text.len())
                            .map_err(|e| e.to_string())
                    };
                    let exists = exists && !overwrite;
                    let _ = tx.send(Action::FileWritten {
                        path,
                        result,
                        exists,
                    });
                });
            }
            Effect::Clipboard { text } => {
                let mut out = std::io::stdout();
                let _ = out.write_all(osc52(&text).as_bytes());
                let _ = out.flush();
            }
            Effect::CheckSyntax {
                python,
                name,
                source,
            } => {
                let tx = self.done_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let python =
                        python.or_else(|| crate::exec::python_env::locate_on_path("python3"));
                    let result = match python {
                        Some(py) => {
                            crate::exec::python_env::syntax_errors(&py, &[(name, source.clone())])
                                .map_err(|e| e.to_string())
                        }
                        None => Err("no python3 on PATH".into()),
                    };
                    let _ = tx.send(Action::SyntaxChecked { source, result });
                });
            }
            Effect::ReadFile { path } => {
                let tx = self.done_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let result = std::fs::read_to_string(&path).map_err(|e| e.to_string());
                    let _ = tx.send(Action::FileRead { path, result });
                });
            }
            Effect::ReadSources { repo, files } => {
                let tx = self.done_tx.clone();
                tokio::task::spawn_blocking(move || {
                    let sources = files
                        .into_iter()
                        .filter_map(|f| {
                            let text = std::fs::read_to_string(repo.join(&f)).ok()?;
                            Some((f, text))
                        })
                        .collect();
                    let _ = tx.send(Action::SourcesRead { sources });
                });
            }
            Effect::RunPair { test, mutant, file } => self.run_pair(test, mutant, file),
            Effect::Quit => {}
        }
    }

    /// The Why screen's traced re-run of a pair, on the workbench's runner.
    fn run_pair(&self, test: crate::engine::TestId, mutant: crate::engine::MutantId, file: String) {
        let tx = self.done_tx.clone();
        match self.runner.clone() {
            Some(r) => {
                tokio::spawn(async move {
                    let result = match r.run(&test, &mutant, true).await {
                        Ok(p) => Ok(rerun_of(&p, &file)),
                        Err(e) => Err(e.to_string()),
                    };
                    let _ = tx.send(Action::PairRan {
                        test,
                        mutant,
                        result,
                    });
                });
            }
            None => {
                let _ = tx.send(Action::PairRan {
                    test,
                    mutant,
                    result: Err("no workbench behind this view".into()),
                });
            }
        }
    }

    /// The next thing besides the terminal: the workbench's events and snapshots, a finished
    /// effect, SIGTERM. Each receiver keeps what it holds if this is dropped.
    async fn next_wake(&mut self) -> Wake {
        let Self {
            wb,
            snapshots,
            done_rx,
            sigterm,
            events_open,
            ..
        } = self;
        tokio::select! {
            e = async { wb.as_mut().unwrap().next_event().await }, if *events_open => Wake::Event(e),
            changed = async { snapshots.as_mut().unwrap().changed().await }, if snapshots.is_some() => {
                Wake::Snapshot(changed.is_ok())
            }
            Some(a) = done_rx.recv() => Wake::Done(a),
            _ = sigterm.recv() => Wake::Terminate,
        }
    }
}

impl Component for WorkbenchView<'_> {
    type Exit = ();

    fn draw(&self, f: &mut Frame) {
        let ctx = Ctx {
            state: self.store.state(),
            theme: &self.settings.theme,
            hl: &self.settings.highlighter,
            keymap: &self.settings.keymap,
            editor: self.editor.as_ref(),
            measure: &self.measure,
        };
        views::draw(f, &ctx);
    }

    fn drawn(&mut self) -> bool {
        // What the frame measured goes to the reducer, which keeps scrolling inside it; the
        // reducer may move the pane (clamped, or jumped to a hit), so draw again. The next
        // frame measures the same, so this ends.
        if let Some((screen, m)) = self.measure.take()
            && self.store.state().measured[screen.index()].as_ref() != Some(&m)
        {
            self.dispatch(Action::Measured { screen, measure: m });
            return true;
        }
        if let (Some(t0), Some(f)) = (self.key_at.take(), self.trace.as_mut()) {
            let _ = writeln!(f, "{}", t0.elapsed().as_micros());
        }
        false
    }

    fn hang_up(&mut self) {
        self.hung_up = true;
    }

    fn input(&mut self, event: Option<(Instant, TermEvent)>, _: Size) {
        let Some((at, e)) = event else {
            self.hang_up();
            return;
        };
        if matches!(e, TermEvent::Key(_)) {
            self.key_at.get_or_insert(at);
        }
        let keymap = &self.settings.keymap;
        if let Some(a) = action_of(self.store.state(), keymap, &mut self.editor, e) {
            self.dispatch(a);
        }
    }

    async fn wake(&mut self) {
        match self.next_wake().await {
            Wake::Event(Some(e)) => {
                self.dispatch(Action::Event { event: Box::new(e) });
                // Coalesce a burst of events (executions finishing) into one frame.
                while let Some(w) = self.wb.as_mut()
                    && let Ok(Some(e)) =
                        tokio::time::timeout(std::time::Duration::ZERO, w.next_event()).await
                {
                    self.dispatch(Action::Event { event: Box::new(e) });
                }
            }
            Wake::Event(None) => {
                self.events_open = false;
                self.dispatch(Action::WorkbenchEnded {});
            }
            Wake::Snapshot(true) => {
                if let Some(s) = self.snapshots.as_mut() {
                    let doc = s.borrow_and_update().clone();
                    self.dispatch(Action::Snapshot { doc });
                }
            }
            Wake::Snapshot(false) => self.snapshots = None,
            Wake::Done(a) => self.dispatch(a),
            Wake::Terminate => self.dispatch(Action::Quit),
        }
    }

    fn exit(&mut self) -> Option<()> {
        (self.store.state().quit || self.hung_up).then_some(())
    }

    fn mouse(&self) -> bool {
        true
    }
}

/// What the Why screen needs of a traced pair run: outcomes, verdict, and the lines of the
/// mutated file that ran on each side.
fn rerun_of(p: &crate::workbench::PairRun, file: &str) -> Rerun {
    let lines = (|| {
        Some((
            p.old.lines_of(file)?.to_vec(),
            p.mutant.lines_of(file)?.to_vec(),
        ))
    })();
    Rerun {
        old: p.old.outcome,
        mutant: p.mutant.outcome,
        cell: p.cell,
        lines,
    }
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard; inside tmux, wrapped so
/// that tmux passes it on to the terminal (tmux needs `set-clipboard on` or `allow-passthrough`).
fn osc52(text: &str) -> String {
    let seq = format!("\x1b]52;c;{}\x07", base64(text.as_bytes()));
    if std::env::var_os("TMUX").is_some() {
        format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b"))
    } else {
        seq
    }
}

/// Standard base64 with padding (OSC 52's encoding), written here rather than pulled in.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn text_area(text: &str, theme: &Theme) -> ratatui_textarea::TextArea<'static> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut area = ratatui_textarea::TextArea::new(lines);
    area.set_cursor_line_style(ratatui::style::Style::default());
    area.set_line_number_style(theme.style(super::theme::Role::Dim));
    // Long lines wrap: scrolled sideways, the line numbers went out of view with the text.
    area.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    area
}

/// The action a terminal event means, if any. Keys go through the keymap in the state's
/// context; while the editor is open, its own keys save (with the text) or cancel, and every
/// other key edits the text.
fn action_of(
    s: &State,
    keymap: &Keymap,
    editor: &mut Option<ratatui_textarea::TextArea<'static>>,
    e: TermEvent,
) -> Option<Action> {
    match e {
        TermEvent::Key(k) => key_action(s, keymap, editor, k),
        TermEvent::Resize(width, height) => Some(Action::Resize { width, height }),
        TermEvent::Mouse(m) if editor.is_none() => match m.kind {
            MouseEventKind::ScrollDown => Some(Action::Scroll {
                lines: update::WHEEL_LINES,
            }),
            MouseEventKind::ScrollUp => Some(Action::Scroll {
                lines: -update::WHEEL_LINES,
            }),
            MouseEventKind::Down(_) => Some(Action::Click {
                column: m.column,
                row: m.row,
            }),
            _ => None,
        },
        _ => None,
    }
}

fn key_action(
    s: &State,
    keymap: &Keymap,
    editor: &mut Option<ratatui_textarea::TextArea<'static>>,
    k: KeyEvent,
) -> Option<Action> {
    if k.kind == event::KeyEventKind::Release {
        return None;
    }
    // Ctrl-C in raw mode is a key, not a signal: it quits (and saves) like `q`, everywhere.
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        return Some(Action::Quit);
    }
    let contexts = update::key_contexts(s);
    let action = keymap.action_in(&contexts, &k);
    // In a prompt, a key without a binding there types itself.
    if contexts == [KeyContext::Prompt] {
        return action.or_else(|| match k.code {
            KeyCode::Char(c)
                if !k
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(Action::Type {
                    text: c.to_string(),
                })
            }
            _ => None,
        });
    }
    if let Some(area) = editor.as_mut().filter(|_| contexts == [KeyContext::Editor]) {
        return match action {
            Some(Action::Save) => Some(Action::EditorSaved {
                source: area.lines().join("\n"),
            }),
            Some(Action::Cancel | Action::Back) => Some(Action::EditorCancelled {
                source: area.lines().join("\n"),
            }),
            _ => {
                area.input(k);
                None
            }
        };
    }
    action
}
