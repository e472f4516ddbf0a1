//! The Batch screen (`evootter open BATCH_DIR`): one row per instance of a benchmark batch,
//! live while `bench` writes the directory (read again every second, only what changed) and
//! browsable after. Sorting, filters, `/` search, totals of what is shown; Enter opens an
//! instance's session in the workbench's screens (read-only) and Esc there comes back here, to
//! the same row.

mod draw;
mod view;

pub use draw::draw;
pub use view::*;

use crate::bench::batch_dir::BatchDir;
use crate::tui::keymap::{KeyContext, Keymap};
use crate::tui::terminal::{Component, Term};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Size;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The Batch screen in the terminal loop: the view, the directory it reads again every
/// second, and how its frame is laid out for paging.
struct BatchScreen<'a> {
    v: BatchView,
    source: BatchDir,
    read_at: Instant,
    page: usize,
    /// An instance's session to open, and its id.
    open: Option<(PathBuf, String)>,
    hung_up: bool,
    theme: &'a Theme,
    keymap: &'a Keymap,
}

/// How the Batch screen left the loop.
enum BatchExit {
    Quit,
    Open(PathBuf, String),
}

impl BatchScreen<'_> {
    fn reread(&mut self) {
        self.v.replace_rows(self.source.refresh());
        let m = self.source.manifest();
        self.v.budgets = (m.budget_usd_total, m.budget_usd_per_instance);
        let about: Vec<String> = [
            m.method.map(|x| format!("method {x}")),
            m.preset.as_ref().map(|p| format!("preset {p}")),
            self.source.scheduler_caption(),
        ]
        .into_iter()
        .flatten()
        .collect();
        self.v.about = (!about.is_empty()).then(|| about.join("; "));
        self.read_at = Instant::now();
    }
}

impl Component for BatchScreen<'_> {
    type Exit = BatchExit;

    fn draw(&self, f: &mut Frame) {
        draw(f, &self.v, self.theme, self.keymap);
    }

    fn hang_up(&mut self) {
        self.hung_up = true;
    }

    fn key(&mut self, k: KeyEvent, size: Size) {
        self.page = usize::from(size.height.saturating_sub(9)).max(1);
        if self.v.search.typing.is_some() {
            self.v.type_key(
                self.keymap.action(KeyContext::Prompt, &k),
                crate::tui::search::typed_char(&k),
            );
            return;
        }
        self.v.notice = None;
        let Some(a) = self.keymap.action(KeyContext::Batch, &k) else {
            return;
        };
        if let Some(session) = self.v.act(a, self.page) {
            let id = self.v.selected.clone().unwrap_or_default();
            self.open = Some((session, id));
        }
    }

    /// Never waits on the directory for long: read again (only what changed) every second,
    /// while `bench --tui` writes it from the other threads.
    async fn wake(&mut self) {
        let next = self.read_at + Duration::from_secs(1);
        tokio::time::sleep_until(next.into()).await;
        self.reread();
    }

    fn exit(&mut self) -> Option<BatchExit> {
        if let Some((session, id)) = self.open.take() {
            return Some(BatchExit::Open(session, id));
        }
        (self.v.quit || self.hung_up).then_some(BatchExit::Quit)
    }
}

/// Shows the batch in `dir` until the user quits; Enter opens an instance's session
/// (read-only) in the same terminal with `open_session`, which returns when the user comes
/// back.
pub async fn browse(
    term: &mut Term,
    dir: &Path,
    theme: &Theme,
    keymap: &Keymap,
    mut open_session: impl AsyncFnMut(&mut Term, PathBuf, String) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let source = BatchDir::open(dir);
    let mut screen = BatchScreen {
        v: BatchView::new(dir, vec![]),
        source,
        read_at: Instant::now(),
        page: 10,
        open: None,
        hung_up: false,
        theme,
        keymap,
    };
    screen.reread();
    loop {
        match term.run(&mut screen).await? {
            BatchExit::Quit => return Ok(()),
            BatchExit::Open(session, id) => {
                if let Err(e) = open_session(term, session, id.clone()).await {
                    screen.v.notice = Some(format!("cannot open {id}'s session: {e:#}"));
                }
                screen.reread();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::batch_dir::{Row, State};
    use crate::tui::action::Action;
    use crate::tui::keymap::Keymap;
    use crate::tui::theme::Theme;
    use std::path::Path;

    fn row(id: &str, repo: &str, state: State, f2p: bool, cost: f64) -> Row {
        Row::fixture(id, repo, state, f2p, cost)
    }

    fn view() -> BatchView {
        BatchView::new(
            Path::new("/b"),
            vec![
                row("a-1", "o/a", State::Done, true, 0.5),
                row("b-2", "o/b", State::Done, false, 0.25),
                row(
                    "c-3",
                    "o/a",
                    State::Running {
                        step: "execute (generation 1)".into(),
                    },
                    false,
                    0.1,
                ),
                row(
                    "d-4",
                    "o/b",
                    State::EnvironmentError {
                        error: "no pytest".into(),
                    },
                    false,
                    0.0,
                ),
            ],
        )
    }

    fn ids(v: &BatchView) -> Vec<String> {
        v.shown().iter().map(|r| r.id.clone()).collect()
    }

    #[test]
    fn filters_cycle_and_totals_follow_what_is_shown() {
        let mut v = view();
        assert_eq!(v.totals(&v.shown()).f2p, 1);
        v.act(Action::FilterRows, 10);
        assert_eq!(ids(&v), ["b-2"], "not F2P: done and not F2P");
        v.act(Action::FilterRows, 10);
        assert_eq!(ids(&v), ["d-4"], "errors");
        v.act(Action::FilterRows, 10);
        assert_eq!(ids(&v), ["c-3"], "running");
        v.act(Action::FilterRows, 10);
        // The selected row's repository (a-1's: the selection stayed on it).
        assert_eq!(ids(&v), ["a-1", "c-3"]);
        let t = v.totals(&v.shown());
        assert_eq!((t.shown, t.done, t.running, t.f2p), (2, 1, 1, 1));
        assert!((t.cost_usd - 0.6).abs() < 1e-9);
        v.act(Action::Back, 10);
        assert_eq!(ids(&v).len(), 4, "Esc takes the filter back");
    }

    #[test]
    fn the_selection_stays_on_its_instance_through_sorting_and_search() {
        let mut v = view();
        v.act(Action::Down, 10);
        assert_eq!(v.selected.as_deref(), Some("b-2"));
        // By cost, most expensive first: b-2 moves, and stays selected.
        while v.sort != SortKey::Cost {
            v.act(Action::SortRows, 10);
        }
        v.act(Action::ReverseSort, 10);
        assert_eq!(ids(&v), ["a-1", "b-2", "c-3", "d-4"]);
        assert_eq!(v.cursor(&v.shown()), 1);
        // A search for a repository; the selection moves to the first match when its own
        // row does not match.
        v.act(Action::Search, 10);
        for c in "O/A".chars() {
            v.type_key(None, Some(c));
        }
        v.type_key(Some(Action::Submit), None);
        assert_eq!(ids(&v), ["a-1", "c-3"]);
        assert_eq!(v.selected.as_deref(), Some("a-1"));
        assert_eq!(
            v.act(Action::Open, 10),
            Some(PathBuf::from("/b/a-1/session.json"))
        );
        v.act(Action::Back, 10);
        assert!(v.search.query.is_empty(), "Esc takes the search back first");
    }

    #[test]
    fn a_long_error_is_read_whole_at_80x24() {
        let error = "budget reached: the next model call (localize_functions, about $0.0181: \
                     914 tokens in, up to 1024 out) would take the run's spending from $0.0051 \
                     past --budget-usd-per-instance 0.02; the call was not made (the same bench \
                     with a larger --budget-usd-per-instance resumes it)";
        let v = BatchView::new(
            Path::new("/b"),
            vec![row(
                "e-5",
                "o/e",
                State::Error {
                    error: error.into(),
                },
                false,
                0.01,
            )],
        );
        let theme = Theme::load(None, None, true).unwrap();
        let keymap = Keymap::load(None).unwrap();
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
        term.draw(|f| draw(f, &v, &theme, &keymap)).unwrap();
        let text = format!("{}", term.backend());
        // The detail's last words, after the error: nothing cut.
        assert!(text.contains("resumes it)"), "{text}");
        assert!(text.contains("opens its session"), "{text}");
    }

    /// The batch's method and preset, as its manifest records them, are under the title.
    #[test]
    fn the_caption_names_the_method_and_preset_from_the_manifest() {
        let d = tempfile::tempdir().unwrap();
        let manifest = crate::bench::batch_dir::Manifest {
            method: Some(crate::engine::Method::RuleSelect),
            preset: Some(crate::engine::PresetUse {
                name: crate::engine::Preset::Paper,
                set: vec!["--fitness paper".into()],
            }),
            ..Default::default()
        };
        crate::bench::batch_dir::write_manifest(d.path(), &manifest);
        let (theme, keymap) = (
            Theme::load(None, None, true).unwrap(),
            Keymap::load(None).unwrap(),
        );
        let mut screen = BatchScreen {
            v: BatchView::new(d.path(), vec![]),
            source: BatchDir::open(d.path()),
            read_at: Instant::now(),
            page: 10,
            open: None,
            hung_up: false,
            theme: &theme,
            keymap: &keymap,
        };
        screen.reread();
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 30)).unwrap();
        term.draw(|f| screen.draw(f)).unwrap();
        let text = format!("{}", term.backend());
        assert!(
            text.contains("method rule-select; preset paper (--fitness paper)"),
            "{text}"
        );
    }

    /// The bench's budgets are shown beside what was spent; at 80 columns the totals wrap
    /// and keep their end.
    #[test]
    fn the_totals_name_the_budgets() {
        let mut v = view();
        v.budgets = (Some(1.0), Some(0.05));
        let theme = Theme::load(None, None, true).unwrap();
        let keymap = Keymap::load(None).unwrap();
        for (w, h) in [(200, 30), (80, 24)] {
            let mut term =
                ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
            term.draw(|f| draw(f, &v, &theme, &keymap)).unwrap();
            let text = format!("{}", term.backend());
            if w == 200 {
                assert!(text.contains("(budget $1.00 total, $0.05 each)"), "{text}");
            }
            assert!(text.contains("cuts"), "{w}x{h}: {text}");
        }
        v.budgets = (None, None);
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 30)).unwrap();
        term.draw(|f| draw(f, &v, &theme, &keymap)).unwrap();
        assert!(!format!("{}", term.backend()).contains("budget"));
    }

    #[test]
    fn the_table_fits_80_columns_and_names_the_state() {
        let v = view();
        let theme = Theme::load(None, None, true).unwrap();
        let keymap = Keymap::load(None).unwrap();
        let backend = ratatui::backend::TestBackend::new(80, 24);
        let mut term = ratatui::Terminal::new(backend).unwrap();
        term.draw(|f| draw(f, &v, &theme, &keymap)).unwrap();
        let screen: Vec<String> = term
            .backend()
            .buffer()
            .content
            .chunks(80)
            .map(|c| c.iter().map(|x| x.symbol()).collect())
            .collect();
        let text = screen.join("\n");
        assert!(text.contains("F2P 1/2 (50%)"), "{text}");
        assert!(text.contains("env error"), "{text}");
        assert!(text.contains("running"), "{text}");
        // The selected row's detail, whole: state, repository.
        assert!(text.contains("a-1 (o/a): done"), "{text}");
        for line in &screen {
            assert!(line.chars().count() <= 80);
        }

        // `v`: the figures of the finished rows shown in place of the table.
        let mut v = view();
        v.rows[0].facts = Some(crate::bench::figures::InstanceFacts {
            id: "a-1".into(),
            generations: vec![(2, 8), (2, 4), (1, 2)],
            final_f2p: true,
            cuts: vec!["mutation".into(), "llm".into(), "mutation".into()],
            cost_usd: Some(0.5),
            coverage: vec![],
            ..Default::default()
        });
        v.act(Action::Figures, 10);
        term.draw(|f| draw(f, &v, &theme, &keymap)).unwrap();
        let text: String = term
            .backend()
            .buffer()
            .content
            .iter()
            .map(|x| x.symbol())
            .collect();
        assert!(
            text.contains("F2P tests per generation, 1 instances"),
            "{text}"
        );
        // Generation 0: 2 of 8 F2P; generation 2: 1 of 2.
        assert!(text.contains("25%") && text.contains("50%"), "{text}");
        assert!(text.contains("cuts decided by"), "{text}");
    }
}
