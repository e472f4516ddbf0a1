//! The Batch screen's state: the rows read from the batch directory, how they are sorted,
//! filtered and searched, the selection (kept on its instance), and the totals of what shows.

use crate::bench::batch_dir::{Row, State};
use crate::tui::action::Action;
use std::path::{Path, PathBuf};

/// What the rows are ordered by (`s` goes to the next, `S` turns the order round).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Id,
    State,
    F2p,
    TddScore,
    Coverage,
    Cost,
    Executions,
    Fitness,
    Wall,
    Calls,
    Repo,
}

impl SortKey {
    const ALL: [SortKey; 11] = [
        SortKey::Id,
        SortKey::State,
        SortKey::F2p,
        SortKey::TddScore,
        SortKey::Coverage,
        SortKey::Cost,
        SortKey::Executions,
        SortKey::Fitness,
        SortKey::Wall,
        SortKey::Calls,
        SortKey::Repo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Id => "id",
            SortKey::State => "state",
            SortKey::F2p => "F2P",
            SortKey::TddScore => "TDD score",
            SortKey::Coverage => "coverage",
            SortKey::Cost => "cost",
            SortKey::Executions => "executions",
            // The shares of cuts decided by fitness, compared without dividing.
            SortKey::Fitness => "cuts by fitness",
            SortKey::Wall => "wall time",
            SortKey::Calls => "model calls",
            SortKey::Repo => "repo",
        }
    }

    fn next(self) -> SortKey {
        let i = SortKey::ALL.iter().position(|k| *k == self).unwrap_or(0);
        SortKey::ALL[(i + 1) % SortKey::ALL.len()]
    }

    fn cmp(self, a: &Row, b: &Row) -> std::cmp::Ordering {
        let f = |x: f64, y: f64| x.total_cmp(&y);
        match self {
            SortKey::Id => a.id.cmp(&b.id),
            SortKey::State => a.state.cmp(&b.state),
            SortKey::F2p => a.f2p().cmp(&b.f2p()),
            SortKey::TddScore => f(a.line.tdd_score, b.line.tdd_score),
            SortKey::Coverage => f(
                a.line.coverage.unwrap_or(-1.0),
                b.line.coverage.unwrap_or(-1.0),
            ),
            SortKey::Cost => f(
                a.line.cost_usd.unwrap_or(-1.0),
                b.line.cost_usd.unwrap_or(-1.0),
            ),
            SortKey::Executions => a.line.executions.cmp(&b.line.executions),
            SortKey::Fitness => {
                (a.fitness_cuts * b.cuts.max(1)).cmp(&(b.fitness_cuts * a.cuts.max(1)))
            }
            SortKey::Wall => f(a.line.wall_seconds, b.line.wall_seconds),
            SortKey::Calls => a.line.model_calls.cmp(&b.line.model_calls),
            SortKey::Repo => a.repo.cmp(&b.repo),
        }
    }
}

/// Which rows show (`f` goes to the next).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    All,
    NotF2p,
    /// Errors of the row, its repository, its run, or its environment.
    Errors,
    Running,
    Repo(String),
}

impl Filter {
    pub(super) fn describe(&self) -> String {
        match self {
            Filter::All => "all".into(),
            Filter::NotF2p => "not F2P".into(),
            Filter::Errors => "errors".into(),
            Filter::Running => "running".into(),
            Filter::Repo(r) => format!("repo {r}"),
        }
    }

    fn keeps(&self, r: &Row) -> bool {
        match self {
            Filter::All => true,
            Filter::NotF2p => r.state == State::Done && !r.f2p(),
            Filter::Errors => matches!(
                r.state,
                State::Error { .. } | State::EnvironmentError { .. }
            ),
            Filter::Running => matches!(r.state, State::Running { .. }),
            Filter::Repo(repo) => &r.repo == repo,
        }
    }
}

/// The screen's state: the rows and how they are shown. Drawing only reads it.
#[derive(Debug, Clone)]
pub struct BatchView {
    pub dir: PathBuf,
    pub rows: Vec<Row>,
    pub sort: SortKey,
    pub reverse: bool,
    pub filter: Filter,
    pub search: crate::tui::search::Typed,
    /// The selected row, by instance id: it stays selected through sorting and refreshes.
    pub selected: Option<String>,
    pub quit: bool,
    /// What went wrong opening an instance, until the next key.
    pub notice: Option<String>,
    /// The figures of the rows shown in place of the table (`v`).
    pub figures: bool,
    /// The bench's budgets, from its manifest: (total, per instance).
    pub budgets: (Option<f64>, Option<f64>),
    /// The method and preset the batch runs with (what the preset set), from its manifest.
    pub about: Option<String>,
}

/// The figures of the shown rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub shown: usize,
    pub done: usize,
    pub running: usize,
    pub queued: usize,
    pub errors: usize,
    /// Interrupted, or their cluster task ended without a result: the next bench goes on.
    pub stopped: usize,
    pub f2p: usize,
    pub tdd_score: f64,
    pub cost_usd: f64,
    pub executions: u64,
    pub cuts: u64,
    pub fitness_cuts: u64,
}

impl BatchView {
    pub fn new(dir: &Path, rows: Vec<Row>) -> Self {
        let selected = rows.first().map(|r| r.id.clone());
        Self {
            dir: dir.to_path_buf(),
            rows,
            sort: SortKey::Id,
            reverse: false,
            filter: Filter::All,
            search: Default::default(),
            selected,
            quit: false,
            notice: None,
            figures: false,
            budgets: (None, None),
            about: None,
        }
    }

    /// The rows shown: filtered, searched (id or repo, ignoring case), sorted (ties by id).
    pub fn shown(&self) -> Vec<&Row> {
        let q = self.search.query.to_lowercase();
        let mut v: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| self.filter.keeps(r))
            .filter(|r| {
                q.is_empty()
                    || r.id.to_lowercase().contains(&q)
                    || r.repo.to_lowercase().contains(&q)
            })
            .collect();
        v.sort_by(|a, b| {
            let o = self.sort.cmp(a, b);
            let o = if self.reverse { o.reverse() } else { o };
            o.then_with(|| a.id.cmp(&b.id))
        });
        v
    }

    /// Where the selected row is among the shown ones (the first when it is not shown).
    pub fn cursor(&self, shown: &[&Row]) -> usize {
        self.selected
            .as_ref()
            .and_then(|id| shown.iter().position(|r| &r.id == id))
            .unwrap_or(0)
    }

    pub fn totals(&self, shown: &[&Row]) -> Totals {
        let mut t = Totals {
            shown: shown.len(),
            ..Default::default()
        };
        for r in shown {
            let task_over = r.task.as_ref().is_some_and(|t| t.state.ended());
            match r.state {
                State::Done => t.done += 1,
                State::Running { .. } => t.running += 1,
                State::Interrupted { .. } => t.stopped += 1,
                State::Queued if task_over => t.stopped += 1,
                State::Queued => t.queued += 1,
                State::Error { .. } | State::EnvironmentError { .. } => t.errors += 1,
                _ => {}
            }
            t.f2p += usize::from(r.f2p());
            t.tdd_score += r.line.tdd_score;
            t.cost_usd += r.line.cost_usd.unwrap_or(0.0);
            t.executions += r.line.executions;
            t.cuts += r.cuts;
            t.fitness_cuts += r.fitness_cuts;
        }
        t
    }

    /// Fresh rows from the directory; the selection stays on its instance.
    pub fn replace_rows(&mut self, rows: Vec<Row>) {
        self.rows = rows;
        if self.selected.is_none() {
            // The first row shown (in the sort's order).
            self.selected = self.shown().first().map(|r| r.id.clone());
        }
    }

    fn select_at(&mut self, i: usize) {
        let shown = self.shown();
        if let Some(r) = shown.get(i.min(shown.len().saturating_sub(1))) {
            self.selected = Some(r.id.clone());
        }
    }

    /// One key's action; `Some(session)` when it opens an instance's session.
    pub fn act(&mut self, a: Action, page: usize) -> Option<PathBuf> {
        let shown_len = self.shown().len();
        let at = {
            let shown = self.shown();
            self.cursor(&shown)
        };
        match a {
            Action::Quit => self.quit = true,
            Action::Down => self.select_at(at + 1),
            Action::Up => self.select_at(at.saturating_sub(1)),
            Action::PageDown => self.select_at(at + page.max(1)),
            Action::PageUp => self.select_at(at.saturating_sub(page.max(1))),
            Action::First => self.select_at(0),
            Action::Last => self.select_at(shown_len.saturating_sub(1)),
            Action::SortRows => self.sort = self.sort.next(),
            Action::ReverseSort => self.reverse = !self.reverse,
            Action::Figures => self.figures = !self.figures,
            Action::FilterRows => {
                let repo = self
                    .selected
                    .as_ref()
                    .and_then(|id| self.rows.iter().find(|r| &r.id == id))
                    .map(|r| r.repo.clone())
                    .filter(|r| !r.is_empty());
                self.filter = match (&self.filter, repo) {
                    (Filter::All, _) => Filter::NotF2p,
                    (Filter::NotF2p, _) => Filter::Errors,
                    (Filter::Errors, _) => Filter::Running,
                    (Filter::Running, Some(repo)) => Filter::Repo(repo),
                    _ => Filter::All,
                };
            }
            Action::Search => self.search.start(),
            // Esc: a search, then a filter, is taken back.
            Action::Back if !self.search.query.is_empty() => self.search.query.clear(),
            Action::Back => self.filter = Filter::All,
            Action::Open => {
                let shown = self.shown();
                return shown.get(at).and_then(|r| r.session.clone());
            }
            _ => {}
        }
        None
    }

    /// A key while a search is being typed: the prompt's keys, else the character typed.
    pub fn type_key(&mut self, a: Option<Action>, ch: Option<char>) {
        if self.search.key(a, ch) {
            // The selection moves to the first match if its own row is not one.
            let shown = self.shown();
            if !shown.iter().any(|r| Some(&r.id) == self.selected.as_ref()) {
                self.selected = shown.first().map(|r| r.id.clone());
            }
        }
    }
}
