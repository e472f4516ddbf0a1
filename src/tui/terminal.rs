//! The one terminal loop every full-screen view runs in: the workbench's screens, the Batch
//! screen, a comparison and the session picker. The terminal is opened once per command
//! ([`with_terminal`]: raw mode, the alternate screen and ratatui's panic hook that restores
//! them) and closed however the command ends; views opened from one another (a session from
//! the Batch screen) run in the same terminal, one after the other.
//!
//! A view is a [`Component`]: it draws itself from `&self`, takes terminal events, may wait on
//! something of its own (a workbench's events, a directory to read again), and says when it
//! is done. The loop draws when anything happened, and never blocks on the terminal: input is
//! read on a thread of its own (crossterm's read blocks).

use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEvent};
use ratatui::layout::Size;
use ratatui::{DefaultTerminal, Frame};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tokio::sync::mpsc;

/// A full-screen view, as the loop drives it.
pub trait Component {
    /// What the view ends with.
    type Exit;

    /// The whole frame, from the view's state. Drawing changes nothing a view acts on;
    /// what a frame measured (how far a pane can scroll) is handed back in [`Self::drawn`].
    fn draw(&self, f: &mut Frame);

    /// After each frame: whether to draw again at once (the view moved to fit what the frame
    /// measured).
    fn drawn(&mut self) -> bool {
        false
    }

    /// A terminal event, read at `at`, with the terminal's size; `None`: the terminal's input
    /// ended. By default a key goes to [`Self::key`], the end to [`Self::hang_up`], and
    /// anything else (mouse, resize: the next frame is drawn at the new size) changes nothing.
    fn input(&mut self, event: Option<(Instant, Event)>, size: Size) {
        match event {
            None => self.hang_up(),
            Some((_, Event::Key(k))) => self.key(k, size),
            Some(_) => {}
        }
    }

    /// A key pressed.
    fn key(&mut self, _key: KeyEvent, _size: Size) {}

    /// The terminal's input ended: the view ends as if the user left it.
    fn hang_up(&mut self);

    /// What else the view waits for; returns when something changed. Dropped whenever input
    /// comes first, so it must lose nothing then (receivers that keep what they hold).
    fn wake(&mut self) -> impl Future<Output = ()> {
        std::future::pending()
    }

    /// Whether the view is done, and how (asked after each frame, so the last one shows).
    fn exit(&mut self) -> Option<Self::Exit>;

    /// Whether the view reads the mouse (capturing it takes the terminal's own selection).
    fn mouse(&self) -> bool {
        false
    }
}

/// The terminal, opened: the frame and the thread reading its input.
pub struct Term {
    terminal: DefaultTerminal,
    input: mpsc::UnboundedReceiver<(Instant, Event)>,
    stop: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
    mouse: bool,
}

/// Runs `f` with the terminal opened, and restores it however `f` ends (a panic too, by
/// ratatui's hook).
pub async fn with_terminal<T>(
    f: impl AsyncFnOnce(&mut Term) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let mut term = Term::open();
    let r = f(&mut term).await;
    term.close().await;
    r
}

impl Term {
    fn open() -> Term {
        let terminal = ratatui::init();
        let stop = Arc::new(AtomicBool::new(false));
        let (input, reader) = input_thread(stop.clone());
        Term {
            terminal,
            input,
            stop,
            reader: Some(reader),
            mouse: false,
        }
    }

    async fn close(mut self) {
        self.set_mouse(false);
        self.stop.store(true, Ordering::Relaxed);
        if let Some(reader) = self.reader.take() {
            // At most one poll's wait (100 ms).
            let _ = tokio::task::spawn_blocking(move || reader.join()).await;
        }
        ratatui::restore();
    }

    fn set_mouse(&mut self, on: bool) {
        if on != self.mouse {
            let _ = if on {
                ratatui::crossterm::execute!(std::io::stdout(), EnableMouseCapture)
            } else {
                ratatui::crossterm::execute!(std::io::stdout(), DisableMouseCapture)
            };
            self.mouse = on;
        }
    }

    /// The terminal's size now.
    pub fn size(&self) -> anyhow::Result<Size> {
        Ok(self.terminal.size()?)
    }

    /// Drives `view` until it is done.
    pub async fn run<C: Component>(&mut self, view: &mut C) -> anyhow::Result<C::Exit> {
        self.set_mouse(view.mouse());
        // A frame after anything happened: every wake is news.
        loop {
            self.terminal.draw(|f| view.draw(f))?;
            if view.drawn() {
                continue;
            }
            if let Some(exit) = view.exit() {
                return Ok(exit);
            }
            tokio::select! {
                e = self.input.recv() => {
                    let size = self.terminal.size()?;
                    view.input(e, size);
                }
                () = view.wake() => {}
            }
        }
    }
}

/// Terminal events with the moment they were read (for the key-to-frame latency trace). The
/// thread reads only while `stop` is unset.
fn input_thread(
    stop: Arc<AtomicBool>,
) -> (
    mpsc::UnboundedReceiver<(Instant, Event)>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handle = std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match event::poll(std::time::Duration::from_millis(100)) {
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
