//! The TUI's loop: everything that happens becomes an `Action` for the reducer (keys through
//! the keymap, terminal events, workbench events and snapshots, finished effects), and the
//! reducer's effects are carried out here and nowhere else. A frame is drawn when anything
//! changed. Input is read on a thread of its own (crossterm's blocking read), so the loop
//! never blocks on the terminal or on the engine. Besides the terminal, this loop owns one
//! widget's state: the editor's text, which reaches the reducer when it is saved.

use super::action::{Action, Effect, Rerun};
use super::highlight::Highlighter;
use super::keymap::{KeyContext, Keymap};
use super::state::State;
use super::theme::Theme;
use super::update::{self, Store};
use super::views::{self, Ctx};
use crate::engine::SessionDoc;
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
    run_from(source, looks, None).await
}

/// [`run`], opened from another screen (`back_to` names it): Esc on the first screen ends it.
pub async fn run_from(
    source: Source,
    looks: Looks,
    back_to: Option<String>,
) -> anyhow::Result<Outcome> {
    let mut terminal = ratatui::init();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    );
    let r = run_in(&mut terminal, source, looks, back_to).await;
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
    ratatui::restore();
    r
}

/// Terminal events with the moment they were read (for the key-to-frame latency trace). The
/// thread reads only while `stop` is unset; the handle lets the app wait for it to end, so
/// that a screen the TUI was opened from (the Batch screen, a comparison) gets every key
/// pressed after it.
fn input_thread(
    stop: Arc<AtomicBool>,
) -> (
    mpsc::UnboundedReceiver<(Instant, TermEvent)>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handle = std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match event::poll(std::time::Duration::from_millis(100)) {
                // An event that arrives as the app ends is left for whoever reads next.
                Ok(true) if stop.load(Ordering::Relaxed) => return,
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
    (rx, handle)
}

async fn run_in(
    terminal: &mut ratatui::DefaultTerminal,
    source: Source,
    looks: Looks,
    back_to: Option<String>,
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
    let mut state = State::new(doc, read_only, views::help_len(&looks.keymap));
    state.back_to = back_to;
    state.act_keys = looks.keymap.act_keys();
    let mut store = Store::new(state);
    // EVOOTTER_RECORD_ACTIONS=FILE: every action, one JSON line each, to replay what
    // happened through the reducer alone.
    let mut record = std::env::var_os("EVOOTTER_RECORD_ACTIONS").and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    if let Some(f) = record.as_mut()
        && let Ok(j) = serde_json::to_string(&Action::Snapshot {
            doc: store.state().doc.clone(),
        })
    {
        // The document the state starts from, so that a recording replays on its own.
        let _ = writeln!(f, "{j}");
    }
    let mut dispatch = |store: &mut Store, a: Action| {
        if let Some(f) = record.as_mut()
            && let Ok(j) = serde_json::to_string(&a)
        {
            let _ = writeln!(f, "{j}");
        }
        store.dispatch(a)
    };
    let size = terminal.size()?;
    let mut effects = dispatch(
        &mut store,
        Action::Resize {
            width: size.width,
            height: size.height,
        },
    );
    let stop = Arc::new(AtomicBool::new(false));
    let (mut input, reader) = input_thread(stop.clone());
    // What finished effects answer, back into the loop as actions.
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Action>();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut editor: Option<ratatui_textarea::TextArea<'static>> = None;
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
        for fx in std::mem::take(&mut effects) {
            match fx {
                Effect::Send(c) => {
                    if let Some(w) = &wb {
                        w.send(c);
                    }
                }
                Effect::OpenEditor { text } => editor = Some(text_area(&text, &looks.theme)),
                Effect::CloseEditor => editor = None,
                Effect::EditorCursor { line } => {
                    if let Some(e) = editor.as_mut() {
                        let row = u16::try_from(line.saturating_sub(1)).unwrap_or(u16::MAX);
                        e.move_cursor(ratatui_textarea::CursorMove::Jump(row, 0));
                    }
                }
                Effect::WriteFile {
                    path,
                    text,
                    overwrite,
                } => {
                    let tx = done_tx.clone();
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
                    let tx = done_tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let python =
                            python.or_else(|| crate::exec::python_env::locate_on_path("python3"));
                        let result = match python {
                            Some(py) => crate::exec::python_env::syntax_errors(
                                &py,
                                &[(name, source.clone())],
                            )
                            .map_err(|e| e.to_string()),
                            None => Err("no python3 on PATH".into()),
                        };
                        let _ = tx.send(Action::SyntaxChecked { source, result });
                    });
                }
                Effect::ReadFile { path } => {
                    let tx = done_tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let result = std::fs::read_to_string(&path).map_err(|e| e.to_string());
                        let _ = tx.send(Action::FileRead { path, result });
                    });
                }
                Effect::ReadSources { repo, files } => {
                    let tx = done_tx.clone();
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
                Effect::RunPair { test, mutant, file } => {
                    let tx = done_tx.clone();
                    match runner.clone() {
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
                Effect::Quit => {}
            }
            dirty = true;
        }
        if dirty {
            let state = store.state();
            let measure = std::cell::Cell::new(None);
            terminal.draw(|f| {
                let ctx = Ctx {
                    state,
                    theme: &looks.theme,
                    hl: &looks.highlighter,
                    keymap: &looks.keymap,
                    editor: editor.as_ref(),
                    measure: &measure,
                };
                views::draw(f, &ctx);
            })?;
            dirty = false;
            // What the frame measured goes to the reducer, which keeps scrolling inside it.
            if let Some((screen, m)) = measure.take()
                && store.state().measured[screen.index()].as_ref() != Some(&m)
            {
                effects = dispatch(&mut store, Action::Measured { screen, measure: m });
                // The reducer may have moved the pane (clamped, or jumped to a hit): draw
                // again. The next frame measures the same, so this ends.
                dirty = true;
                continue;
            }
            if let (Some(t0), Some(f)) = (key_at.take(), trace.as_mut()) {
                let _ = writeln!(f, "{}", t0.elapsed().as_micros());
            }
        }
        if store.state().quit {
            break;
        }
        tokio::select! {
            e = input.recv() => {
                let Some((at, e)) = e else { break };
                if matches!(e, TermEvent::Key(_)) {
                    key_at.get_or_insert(at);
                }
                if let Some(a) = action_of(store.state(), &looks.keymap, &mut editor, e) {
                    effects = dispatch(&mut store, a);
                }
                dirty = true;
            }
            e = async { wb.as_mut().unwrap().next_event().await }, if events_open => {
                match e {
                    Some(e) => {
                        effects = dispatch(&mut store, Action::Event { event: Box::new(e) });
                        // Coalesce a burst of events (executions finishing) into one frame.
                        if let Some(w) = wb.as_mut() {
                            while let Ok(Some(e)) = tokio::time::timeout(
                                std::time::Duration::ZERO,
                                w.next_event(),
                            ).await {
                                effects.extend(dispatch(&mut store, Action::Event { event: Box::new(e) }));
                            }
                        }
                    }
                    None => {
                        events_open = false;
                        effects = dispatch(&mut store, Action::WorkbenchEnded {});
                    }
                }
                dirty = true;
            }
            changed = async { snapshots.as_mut().unwrap().changed().await }, if snapshots.is_some() => {
                match changed {
                    Ok(()) => {
                        let doc = snapshots.as_mut().unwrap().borrow_and_update().clone();
                        effects = dispatch(&mut store, Action::Snapshot { doc });
                    }
                    Err(_) => snapshots = None,
                }
                dirty = true;
            }
            Some(a) = done_rx.recv() => {
                effects = dispatch(&mut store, a);
                dirty = true;
            }
            _ = term.recv() => {
                effects = dispatch(&mut store, Action::Quit);
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    // At most one poll's wait (100 ms).
    let _ = tokio::task::spawn_blocking(move || reader.join()).await;
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
