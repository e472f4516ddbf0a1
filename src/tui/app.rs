//! The TUI's loop: terminal in, workbench events and snapshots in, keys turned into actions
//! through the keymap, the reducer's effects carried out, a frame drawn when anything changed.
//! Input is read on a thread of its own (crossterm's blocking read), so the loop never blocks
//! on the terminal or on the engine.

use super::highlight::Highlighter;
use super::keymap::{KeyAction, KeyContext, Keymap};
use super::state::{Action, Effect, Screen, State, update};
use super::theme::Theme;
use super::views::{self, Ctx};
use crate::engine::{ActRequest, SessionDoc};
use crate::workbench::{Command, Finished, PairRunner, Workbench};
use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers, MouseEventKind,
};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tokio::sync::mpsc;

/// What the TUI drives: a live workbench, or a saved session to look at.
pub enum Source {
    Live(Box<Workbench>),
    ReadOnly(Arc<SessionDoc>),
}

/// The text area and what it is for.
struct Editor {
    area: ratatui_textarea::TextArea<'static>,
    purpose: Purpose,
    title: String,
}

enum Purpose {
    /// An edit of this test.
    Edit(String),
    /// A new test, under this file name.
    Add(String),
    /// The path of a test file to add (one line).
    Path,
}

pub struct Looks {
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

/// Runs the TUI until the user quits. The terminal is restored on return and on panic.
pub async fn run(source: Source, looks: Looks) -> anyhow::Result<Outcome> {
    let mut terminal = ratatui::init();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    );
    let r = run_in(&mut terminal, source, looks).await;
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
    ratatui::restore();
    r
}

/// Terminal events with the moment they were read (for the key-to-frame latency trace).
fn input_thread(stop: Arc<AtomicBool>) -> mpsc::UnboundedReceiver<(Instant, TermEvent)> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match event::poll(std::time::Duration::from_millis(100)) {
                Ok(true) => match event::read() {
                    Ok(e) => {
                        if tx.send((Instant::now(), e)).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                },
                Ok(false) => {}
                Err(_) => return,
            }
        }
    });
    rx
}

async fn run_in(
    terminal: &mut ratatui::DefaultTerminal,
    source: Source,
    looks: Looks,
) -> anyhow::Result<Outcome> {
    let (mut wb, doc, read_only) = match source {
        Source::Live(wb) => {
            let doc = wb.snapshot();
            (Some(wb), doc, false)
        }
        Source::ReadOnly(doc) => (None, doc, true),
    };
    let mut snapshots = wb.as_ref().map(|w| w.snapshots());
    let runner: Option<PairRunner> = wb.as_ref().map(|w| w.pair_runner());
    let mut state = State::new(doc, read_only);
    let size = terminal.size()?;
    update(
        &mut state,
        Action::Resize {
            width: size.width,
            height: size.height,
        },
    );
    if state.doc.generations.is_empty() {
        state.screen = Screen::Timeline;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut input = input_thread(stop.clone());
    let (rerun_tx, mut rerun_rx) = mpsc::unbounded_channel::<(String, String, String)>();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut editor: Option<Editor> = None;
    let mut events_open = wb.is_some();
    let mut dirty = true;
    // EVOOTTER_TRACE_FRAMES=FILE: for each key, the microseconds from reading it to the end
    // of the frame drawn after it (what the latency benchmark reads).
    let mut trace = std::env::var_os("EVOOTTER_TRACE_FRAMES").and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let mut key_at: Option<Instant> = None;
    loop {
        if dirty {
            terminal.draw(|f| {
                let ctx = Ctx {
                    state: &state,
                    theme: &looks.theme,
                    hl: &looks.highlighter,
                    keymap: &looks.keymap,
                    editor: editor.as_ref().map(|e| &e.area),
                    editor_title: editor.as_ref().map_or("", |e| e.title.as_str()),
                };
                views::draw(f, &ctx);
            })?;
            dirty = false;
            if let (Some(t0), Some(f)) = (key_at.take(), trace.as_mut()) {
                let _ = writeln!(f, "{}", t0.elapsed().as_micros());
            }
        }
        if state.quit {
            break;
        }
        let mut effects = vec![];
        tokio::select! {
            e = input.recv() => {
                let Some((at, e)) = e else { break };
                if matches!(e, TermEvent::Key(_)) {
                    key_at.get_or_insert(at);
                }
                effects = on_terminal(&mut state, &looks.keymap, &mut editor, e);
                dirty = true;
            }
            e = async { wb.as_mut().unwrap().next_event().await }, if events_open => {
                match e {
                    Some(e) => {
                        effects = update(&mut state, Action::Event { event: Box::new(e) });
                        // Coalesce a burst of events (executions finishing) into one frame.
                        if let Some(w) = wb.as_mut() {
                            while let Ok(Some(e)) = tokio::time::timeout(
                                std::time::Duration::ZERO,
                                w.next_event(),
                            ).await {
                                effects.extend(update(&mut state, Action::Event { event: Box::new(e) }));
                            }
                        }
                    }
                    None => {
                        // The workbench's task ended (the run is done): look, but nothing
                        // more can run.
                        events_open = false;
                        state.read_only = true;
                        state.busy = false;
                    }
                }
                dirty = true;
            }
            changed = async { snapshots.as_mut().unwrap().changed().await }, if snapshots.is_some() => {
                match changed {
                    Ok(()) => {
                        let doc = snapshots.as_mut().unwrap().borrow_and_update().clone();
                        state.set_doc(doc);
                    }
                    Err(_) => snapshots = None,
                }
                dirty = true;
            }
            r = rerun_rx.recv() => {
                if let Some((t, m, text)) = r {
                    state.rerun = Some((t, m, text));
                    dirty = true;
                }
            }
            _ = term.recv() => {
                effects.push(Effect::Quit);
                state.quit = true;
            }
        }
        for fx in effects {
            match fx {
                Effect::Send(c) => {
                    if let Some(w) = &wb {
                        w.send(c);
                    }
                }
                Effect::OpenEditor { test, text } => {
                    let (purpose, title) = match test {
                        Some(t) => (Purpose::Edit(t.clone()), format!("edit {t}")),
                        None => (
                            Purpose::Add(format!("test_yours_{}.py", state.doc.tests.len() + 1)),
                            "your own test".to_string(),
                        ),
                    };
                    editor = Some(open_editor(&text, purpose, title));
                }
                Effect::AskPath => {
                    editor = Some(open_editor(
                        "",
                        Purpose::Path,
                        "the path of a test file to add, then Ctrl-s".into(),
                    ));
                }
                Effect::RunPair { test, mutant } => {
                    if let Some(r) = runner.clone() {
                        let tx = rerun_tx.clone();
                        state.rerun = Some((test.clone(), mutant.clone(), "running...".into()));
                        let doc = state.doc.clone();
                        tokio::spawn(async move {
                            let text = match r.run(&test, &mutant, true).await {
                                Ok(p) => super::why::rerun_text(&doc, &mutant, &p),
                                Err(e) => format!("could not run it: {e}"),
                            };
                            let _ = tx.send((test, mutant, text));
                        });
                    }
                }
                Effect::Quit => state.quit = true,
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    match wb {
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

fn open_editor(text: &str, purpose: Purpose, title: String) -> Editor {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut area = ratatui_textarea::TextArea::new(lines);
    area.set_cursor_line_style(ratatui::style::Style::default());
    Editor {
        area,
        purpose,
        title,
    }
}

fn context(s: &State) -> KeyContext {
    views::key_context(s.screen)
}

/// A key's meaning on the current screen.
pub fn action_of(k: KeyAction, screen: Screen) -> Option<Action> {
    Some(match k {
        KeyAction::Help => Action::ToggleHelp,
        KeyAction::Quit => Action::Quit,
        KeyAction::Step => Action::Step,
        KeyAction::RunToGate => Action::RunToGate,
        KeyAction::NextScreen => Action::NextScreen,
        KeyAction::PrevScreen => Action::PrevScreen,
        KeyAction::Left => Action::Move { dx: -1, dy: 0 },
        KeyAction::Right => Action::Move { dx: 1, dy: 0 },
        KeyAction::Up => Action::Move { dx: 0, dy: -1 },
        KeyAction::Down => Action::Move { dx: 0, dy: 1 },
        KeyAction::Open if screen == Screen::Why => return None,
        KeyAction::Open => Action::Open,
        KeyAction::Back => Action::Back,
        KeyAction::Veto => Action::Veto,
        KeyAction::Edit => Action::Edit,
        KeyAction::Add => Action::Add,
        KeyAction::AddFile => Action::AddFile,
        KeyAction::Pin => Action::Pin,
        KeyAction::Undo => Action::Undo,
        KeyAction::Continue => Action::Continue,
        KeyAction::Transcript => Action::Transcript,
        KeyAction::WhyNotKilled => Action::WhyNotKilled,
        KeyAction::First => Action::First,
        KeyAction::Last => Action::Last,
        KeyAction::PageUp => Action::Page { down: false },
        KeyAction::PageDown => Action::Page { down: true },
        KeyAction::NextHunk => Action::NextHunk,
        KeyAction::PrevHunk => Action::PrevHunk,
        KeyAction::SortRows => Action::SortRows,
        KeyAction::FilterColumns => Action::FilterColumns,
        KeyAction::ToggleRaw => Action::ToggleRaw,
        KeyAction::ToggleSideBySide => Action::ToggleSideBySide,
        KeyAction::Screen1 => Action::Go {
            screen: Screen::ALL[0],
        },
        KeyAction::Screen2 => Action::Go {
            screen: Screen::ALL[1],
        },
        KeyAction::Screen3 => Action::Go {
            screen: Screen::ALL[2],
        },
        KeyAction::Screen4 => Action::Go {
            screen: Screen::ALL[3],
        },
        KeyAction::Screen5 => Action::Go {
            screen: Screen::ALL[4],
        },
        KeyAction::Screen6 => Action::Go {
            screen: Screen::ALL[5],
        },
        KeyAction::Save | KeyAction::Cancel => return None,
    })
}

fn on_terminal(
    s: &mut State,
    keymap: &Keymap,
    editor: &mut Option<Editor>,
    e: TermEvent,
) -> Vec<Effect> {
    match e {
        TermEvent::Key(k) => on_key(s, keymap, editor, k),
        TermEvent::Resize(width, height) => update(s, Action::Resize { width, height }),
        TermEvent::Mouse(m) if editor.is_none() => match m.kind {
            MouseEventKind::ScrollDown => update(s, Action::Move { dx: 0, dy: 3 }),
            MouseEventKind::ScrollUp => update(s, Action::Move { dx: 0, dy: -3 }),
            MouseEventKind::Down(_) if s.screen == Screen::Grid => {
                if let Some((row, col)) = views::grid_cell_at(s, m.column, m.row) {
                    s.row = row;
                    s.col = col;
                }
                vec![]
            }
            _ => vec![],
        },
        _ => vec![],
    }
}

fn on_key(s: &mut State, keymap: &Keymap, editor: &mut Option<Editor>, k: KeyEvent) -> Vec<Effect> {
    if k.kind == event::KeyEventKind::Release {
        return vec![];
    }
    // Ctrl-C in raw mode is a key, not a signal: it quits (and saves) like `q`.
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        return update(s, Action::Quit);
    }
    if let Some(ed) = editor {
        match keymap.action(KeyContext::Editor, &k) {
            Some(KeyAction::Save) => {
                let text = ed.area.lines().join("\n");
                let req = match &ed.purpose {
                    Purpose::Edit(test) => ActRequest::Edit {
                        test: test.clone(),
                        source: text + "\n",
                    },
                    Purpose::Add(name) => ActRequest::Add {
                        name: name.clone(),
                        source: text + "\n",
                    },
                    Purpose::Path => {
                        // The file's text goes into the editor, to be read before it is added.
                        let path = std::path::PathBuf::from(text.trim());
                        match std::fs::read_to_string(&path) {
                            Ok(source) => {
                                let name = path.file_name().map_or("test_yours.py".into(), |n| {
                                    n.to_string_lossy().into_owned()
                                });
                                *editor = Some(open_editor(
                                    &source,
                                    Purpose::Add(name.clone()),
                                    format!("add {name}"),
                                ));
                            }
                            Err(e) => {
                                *editor = None;
                                s.messages
                                    .push(format!("cannot read {}: {e}", path.display()));
                            }
                        }
                        return vec![];
                    }
                };
                *editor = None;
                return vec![Effect::Send(Command::Act(req))];
            }
            Some(KeyAction::Cancel) | Some(KeyAction::Back) => {
                *editor = None;
                return vec![];
            }
            _ => {
                ed.area.input(k);
                return vec![];
            }
        }
    }
    let Some(ka) = keymap.action(context(s), &k) else {
        return vec![];
    };
    if s.screen == Screen::Why && ka == KeyAction::Open {
        return match s.selected_pair() {
            Some((test, mutant)) if !s.read_only => vec![Effect::RunPair { test, mutant }],
            _ => vec![],
        };
    }
    if ka == KeyAction::Help {
        s.help_len = views::help_len(keymap);
    }
    match action_of(ka, s.screen) {
        Some(a) => update(s, a),
        None => vec![],
    }
}
