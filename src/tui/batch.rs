//! The Batch screen (`evootter open BATCH_DIR`): one row per instance of a benchmark batch,
//! live while `bench` writes the directory (read again every second, only what changed) and
//! browsable after. Sorting, filters, `/` search, totals of what is shown; Enter opens an
//! instance's session in the workbench's screens (read-only) and Esc there comes back here, to
//! the same row.

use super::action::Action;
use super::keymap::{KeyContext, Keymap};
use super::terminal::{Component, Term};
use super::theme::{Role, Theme};
use crate::bench::batch_dir::{BatchDir, Row, State};
use ratatui::Frame;
use ratatui::crossterm::event::Event;
use ratatui::layout::Size;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    fn describe(&self) -> String {
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
    pub search: super::search::Typed,
    /// The selected row, by instance id: it stays selected through sorting and refreshes.
    pub selected: Option<String>,
    pub quit: bool,
    /// What went wrong opening an instance, until the next key.
    pub notice: Option<String>,
    /// The figures of the rows shown in place of the table (`v`).
    pub figures: bool,
    /// The bench's budgets, from its manifest: (total, per instance).
    pub budgets: (Option<f64>, Option<f64>),
}

/// The figures of the shown rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub shown: usize,
    pub done: usize,
    pub running: usize,
    pub queued: usize,
    pub errors: usize,
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
            match r.state {
                State::Done => t.done += 1,
                State::Running { .. } => t.running += 1,
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
            self.selected = self.rows.first().map(|r| r.id.clone());
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

fn tokens(n: u64) -> String {
    if n >= 10_000 {
        format!("{:.0}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

fn wall(secs: f64) -> String {
    if secs >= 600.0 {
        format!("{}m", (secs / 60.0).round())
    } else if secs >= 60.0 {
        format!("{}m{:02}", (secs / 60.0) as u64, secs as u64 % 60)
    } else {
        format!("{secs:.1}s")
    }
}

/// A column of the table: its header, width, and cell.
struct Column {
    head: &'static str,
    width: usize,
    /// Shown only on a terminal at least this wide.
    min_width: u16,
    cell: fn(&Row) -> String,
}

const COLUMNS: &[Column] = &[
    Column {
        head: "state",
        width: 11,
        min_width: 0,
        cell: |r| r.state.word().to_string(),
    },
    Column {
        head: "F2P",
        width: 3,
        min_width: 0,
        cell: |r| match r.state {
            State::Done => if r.f2p() { "yes" } else { "no" }.into(),
            _ => "-".into(),
        },
    },
    Column {
        head: "TDD",
        width: 4,
        min_width: 0,
        cell: |r| match r.state {
            State::Done => format!("{:.2}", r.line.tdd_score),
            _ => "-".into(),
        },
    },
    Column {
        head: "cov",
        width: 4,
        min_width: 0,
        cell: |r| {
            r.line
                .coverage
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0))
        },
    },
    Column {
        head: "SWT",
        width: 3,
        min_width: 110,
        cell: |r| match r.state {
            State::Done => if r.line.swt { "yes" } else { "no" }.into(),
            _ => "-".into(),
        },
    },
    Column {
        head: "calls",
        width: 5,
        min_width: 100,
        cell: |r| r.line.model_calls.to_string(),
    },
    Column {
        head: "tokens",
        width: 6,
        min_width: 120,
        cell: |r| tokens(r.line.tokens_in + r.line.tokens_out),
    },
    Column {
        head: "cost",
        width: 7,
        min_width: 0,
        cell: |r| r.line.cost_usd.map_or("?".into(), |c| format!("${c:.3}")),
    },
    Column {
        head: "execs",
        width: 6,
        min_width: 0,
        cell: |r| r.line.executions.to_string(),
    },
    Column {
        head: "fit",
        width: 5,
        min_width: 0,
        cell: |r| format!("{}/{}", r.fitness_cuts, r.cuts),
    },
    Column {
        head: "wall",
        width: 6,
        min_width: 0,
        cell: |r| wall(r.line.wall_seconds),
    },
    Column {
        head: "repo",
        width: 18,
        min_width: 140,
        cell: |r| r.repo.clone(),
    },
];

/// `text` cut to `width` characters, the cut marked with `~`.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let cut: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}~")
    }
}

fn table_line(row: &Row, cols: &[&Column], id_width: usize) -> String {
    let mut s = fit(&row.id, id_width);
    for c in cols {
        s.push(' ');
        // A queued instance has no figures yet.
        let v = if row.state == State::Queued && c.head != "state" {
            "-".to_string()
        } else {
            (c.cell)(row)
        };
        s.push_str(&format!("{:>w$}", fit(&v, c.width).trim_end(), w = c.width));
    }
    s
}

/// The screen, from `v` alone.
pub fn draw(f: &mut Frame, v: &BatchView, theme: &Theme, keymap: &Keymap) {
    let area = f.area();
    let shown = v.shown();
    // The selected row's words take the lines they wrap to (up to a third of the screen: an
    // error, such as a budget stop, runs long), so nothing is cut.
    let below = detail(v, &shown, theme);
    let most = usize::from(area.height / 3).max(5);
    let below_h = below
        .as_ref()
        .map_or(1, |p| p.line_count(area.width).clamp(1, most) as u16);
    let [head, table, detail_area, foot] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(3),
        Constraint::Length(below_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let t = v.totals(&shown);
    let rate = |n: usize, of: usize| {
        if of == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * n as f64 / of as f64)
        }
    };
    let name = crate::bench::batch_dir::label(&v.dir);
    let mut title = format!(
        "Batch {name}: {} of {} instances ({}",
        t.shown,
        v.rows.len(),
        v.filter.describe()
    );
    if !v.search.query.is_empty() {
        title.push_str(&format!(", matching \"{}\"", v.search.query));
    }
    title.push_str(&format!(
        "; sorted by {}{})",
        v.sort.name(),
        if v.reverse { ", reversed" } else { "" }
    ));
    // What was spent, and what may be (the budgets cover every instance, whatever shows).
    let budget = match v.budgets {
        (Some(total), Some(each)) => format!(" (budget ${total:.2} total, ${each:.2} each)"),
        (Some(total), None) => format!(" (budget ${total:.2} total)"),
        (None, Some(each)) => format!(" (budget ${each:.2} each)"),
        (None, None) => String::new(),
    };
    let totals = format!(
        "done {}, running {}, queued {}, errors {} | F2P {}/{} ({}) | TDD {:.2} | ${:.3}{budget} | {} execs | fitness decided {}/{} cuts",
        t.done,
        t.running,
        t.queued,
        t.errors,
        t.f2p,
        t.done,
        rate(t.f2p, t.done),
        if t.done > 0 {
            t.tdd_score / t.done as f64
        } else {
            0.0
        },
        t.cost_usd,
        t.executions,
        t.fitness_cuts,
        t.cuts
    );
    // The totals wrap rather than lose their end at 80 columns.
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(title, theme.style(Role::Title)),
            Line::styled(totals, theme.style(Role::Text)),
        ])
        .wrap(Wrap { trim: false }),
        head,
    );
    if v.figures {
        draw_figures(f, &shown, table, theme);
    } else {
        draw_table(f, v, &shown, table, theme);
    }
    if let Some(p) = below {
        f.render_widget(p, detail_area);
    }
    let footer = match v.search.prompt_line() {
        Some(line) => line,
        None => {
            let key = |name: &str| {
                keymap
                    .keys(KeyContext::Batch, name)
                    .first()
                    .cloned()
                    .unwrap_or_default()
            };
            format!(
                " {} open  {} sort  {} reverse  {} filter  {} figures  {} search  {} clear  {} quit",
                key("open"),
                key("sort_rows"),
                key("reverse_sort"),
                key("filter_rows"),
                key("figures"),
                key("search"),
                key("back"),
                key("quit")
            )
        }
    };
    f.render_widget(
        Paragraph::new(footer).style(theme.style(Role::Footer)),
        foot,
    );
}

fn draw_table(f: &mut Frame, v: &BatchView, shown: &[&Row], area: Rect, theme: &Theme) {
    let cols: Vec<&Column> = COLUMNS
        .iter()
        .filter(|c| area.width >= c.min_width)
        .collect();
    let fixed: usize = cols.iter().map(|c| c.width + 1).sum();
    let id_width = usize::from(area.width.saturating_sub(2))
        .saturating_sub(fixed)
        .max(8);
    let mut head = fit("instance", id_width);
    for c in &cols {
        head.push_str(&format!(" {:>w$}", c.head, w = c.width));
    }
    let rows_h = usize::from(area.height.saturating_sub(3));
    let at = v.cursor(shown);
    // The selected row stays in view, a page at a time.
    let top = at.saturating_sub(rows_h.saturating_sub(1));
    let mut lines = vec![Line::styled(head, theme.style(Role::Header))];
    for (i, r) in shown.iter().enumerate().skip(top).take(rows_h) {
        let role = if i == at {
            Role::Selected
        } else {
            match r.state {
                State::Error { .. } | State::EnvironmentError { .. } => Role::Error,
                State::Running { .. } => Role::Progress,
                State::Queued | State::Unsound { .. } | State::Interrupted { .. } => Role::Dim,
                State::Done => Role::Text,
            }
        };
        lines.push(Line::styled(
            table_line(r, &cols, id_width),
            theme.style(role),
        ));
    }
    if shown.is_empty() {
        lines.push(Line::styled(
            "no instance matches (Esc clears the search, then the filter)",
            theme.style(Role::Dim),
        ));
    }
    let title = format!(
        " rows {}-{} of {} ",
        (top + 1).min(shown.len()),
        (top + rows_h).min(shown.len()),
        shown.len()
    );
    f.render_widget(
        Paragraph::new(lines).block(
            Block::bordered()
                .title(title)
                .border_style(theme.style(Role::Border)),
        ),
        area,
    );
}

/// The paper's figures of the finished rows shown, as `bench --figures` draws them: the
/// share of F2P tests per generation (Fig. 6), what decided the cuts (Table IX), and on a wide
/// terminal the F2P tests per instance initially and last (Fig. 7).
fn draw_figures(f: &mut Frame, shown: &[&Row], area: Rect, theme: &Theme) {
    use crate::bench::figures;
    use ratatui::widgets::{Bar, BarChart, BarGroup};
    let facts: Vec<(figures::InstanceFacts, String)> = shown
        .iter()
        .filter_map(|r| r.facts.clone().map(|x| (x, r.settings.clone())))
        .collect();
    let block = |title: String| {
        Block::bordered()
            .title(title)
            .border_style(theme.style(Role::Border))
    };
    if facts.is_empty() {
        f.render_widget(
            Paragraph::new("no finished instance among the rows shown")
                .block(block(" figures ".into())),
            area,
        );
        return;
    }
    let n = facts.len();
    let batch = [figures::batch_facts("shown".into(), facts)];
    let wide = area.width >= 100;
    let areas = Layout::horizontal(if wide {
        vec![Constraint::Ratio(1, 3); 3]
    } else {
        vec![Constraint::Ratio(1, 2); 2]
    })
    .split(area);
    let width = |a: Rect, bars: usize| {
        let n = u16::try_from(bars.max(1)).unwrap_or(u16::MAX);
        (a.width.saturating_sub(2).saturating_sub(n) / n).clamp(1, 6)
    };
    // Fig. 6: per generation, the share of F2P tests, in percent.
    let share = figures::f2p_share(&batch);
    let bars: Vec<Bar> = share
        .rows
        .iter()
        .map(|r| {
            let pct = (r[4].parse::<f64>().unwrap_or(0.0) * 100.0).round() as u64;
            Bar::default()
                .value(pct)
                .label(Line::from(format!("g{}", r[1])))
                .text_value(format!("{pct}%"))
                .style(theme.style(Role::Kept))
        })
        .collect();
    f.render_widget(
        BarChart::default()
            .block(block(format!(" F2P tests per generation, {n} instances ")))
            .data(BarGroup::default().bars(&bars))
            .bar_width(width(areas[0], bars.len()))
            .bar_gap(1)
            .max(100)
            .value_style(theme.style(Role::Selected)),
        areas[0],
    );
    // Table IX: what decided the cuts.
    let cuts = figures::cuts(&batch);
    let bars: Vec<Bar> = cuts
        .rows
        .iter()
        .map(|r| {
            let v = r[2].parse::<u64>().unwrap_or(0);
            Bar::default()
                .value(v)
                .label(Line::from(r[1].chars().take(3).collect::<String>()))
                .text_value(v.to_string())
                .style(theme.style(Role::Header))
        })
        .collect();
    f.render_widget(
        BarChart::default()
            .block(block(" cuts decided by ".into()))
            .data(BarGroup::default().bars(&bars))
            .bar_width(width(areas[1], bars.len()))
            .bar_gap(1)
            .value_style(theme.style(Role::Selected)),
        areas[1],
    );
    if wide {
        // Fig. 7: instances with k F2P tests, initially and in the last generation.
        let per = figures::f2p_per_instance(&batch);
        let mut chart = BarChart::default()
            .block(block(" F2P tests: initial, last ".into()))
            .bar_width(1)
            .bar_gap(0)
            .group_gap(1)
            .value_style(theme.style(Role::Selected));
        for r in &per.rows {
            let v = |i: usize| r[i].parse::<u64>().unwrap_or(0);
            chart = chart.data(BarGroup::default().label(Line::from(r[1].clone())).bars(&[
                Bar::default().value(v(2)).style(theme.style(Role::Header)),
                Bar::default().value(v(3)).style(theme.style(Role::Kept)),
            ]));
        }
        f.render_widget(chart, areas[2]);
    }
}

/// What is said below the table: a failure to open an instance, or the selected row in words.
fn detail<'a>(v: &BatchView, shown: &[&Row], theme: &Theme) -> Option<Paragraph<'a>> {
    if let Some(n) = &v.notice {
        return Some(
            Paragraph::new(n.clone())
                .wrap(Wrap { trim: false })
                .style(theme.style(Role::Error)),
        );
    }
    let r = shown.get(v.cursor(shown))?;
    let mut text = format!(
        "{} ({}): {}",
        r.id,
        if r.repo.is_empty() { "-" } else { &r.repo },
        r.state.word()
    );
    if let Some(d) = r.state.detail() {
        text.push_str(&format!(" ({d})"));
    }
    text.push_str(&format!(
        // Every column of the table in words (a narrow table leaves some out).
        "; F2P {}, TDD-Bench score {:.2}, SWT-bench {}, coverage of the golden lines {}, {} of {} \
         cuts decided by fitness, {} model calls, {} tokens in / {} out, {} executions, wall {}",
        if r.f2p() { "yes" } else { "no" },
        r.line.tdd_score,
        if r.line.swt { "yes" } else { "no" },
        r.line
            .coverage
            .map_or("-".into(), |c| format!("{:.0}%", c * 100.0)),
        r.fitness_cuts,
        r.cuts,
        r.line.model_calls,
        r.line.tokens_in,
        r.line.tokens_out,
        r.line.executions,
        wall(r.line.wall_seconds)
    ));
    text.push_str(match (&r.session, &r.state) {
        (None, _) => "; no session yet",
        (Some(_), State::Running { .. }) => "; Enter shows its session as it stands",
        (Some(_), _) => "; Enter opens its session",
    });
    Some(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .style(theme.style(Role::Dim)),
    )
}

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
        self.read_at = Instant::now();
    }
}

impl Component for BatchScreen<'_> {
    type Exit = BatchExit;

    fn draw(&self, f: &mut Frame) {
        draw(f, &self.v, self.theme, self.keymap);
    }

    fn input(&mut self, event: Option<(Instant, Event)>, size: Size) {
        let Some((_, e)) = event else {
            self.hung_up = true;
            return;
        };
        let Event::Key(k) = e else {
            return;
        };
        self.page = usize::from(size.height.saturating_sub(9)).max(1);
        if self.v.search.typing.is_some() {
            self.v.type_key(
                self.keymap.action(KeyContext::Prompt, &k),
                super::search::typed_char(&k),
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
