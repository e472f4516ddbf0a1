//! Two runs side by side (`evootter open --compare A B`): two batches instance by instance
//! (A's verdict beside B's, gained, lost or the same, the cost difference; filters on gained
//! and lost), and for one instance, or for two sessions of one instance, the two sessions
//! side by side: each one's outcome and how each cut went, then the final tests' diff. This
//! is how a user finds which instances one selection strategy won and the other lost, and why.

use super::action::Action;
use super::keymap::{KeyContext, Keymap};
use super::terminal::{Component, Term};
use super::theme::{Role, Theme};
use crate::bench::batch_dir::{BatchDir, Row, State};
use crate::engine::SessionDoc;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Size;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What became of an instance from A to B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    Gained,
    Lost,
    Both,
    Neither,
    /// In one batch only (or not finished in one).
    Unmatched,
}

impl Change {
    pub fn word(self) -> &'static str {
        match self {
            Change::Gained => "gained",
            Change::Lost => "lost",
            Change::Both => "both F2P",
            Change::Neither => "neither",
            Change::Unmatched => "unmatched",
        }
    }
}

/// One instance in both batches.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    pub id: String,
    pub a: Option<Row>,
    pub b: Option<Row>,
}

impl Pairing {
    pub fn change(&self) -> Change {
        fn done(r: &Option<Row>) -> Option<&Row> {
            r.as_ref().filter(|r| r.state == State::Done)
        }
        match (done(&self.a), done(&self.b)) {
            (Some(a), Some(b)) => match (a.f2p(), b.f2p()) {
                (false, true) => Change::Gained,
                (true, false) => Change::Lost,
                (true, true) => Change::Both,
                (false, false) => Change::Neither,
            },
            _ => Change::Unmatched,
        }
    }

    /// B's cost minus A's, when both are known.
    pub fn cost_delta(&self) -> Option<f64> {
        let c = |r: &Option<Row>| r.as_ref().and_then(|r| r.line.cost_usd);
        Some(c(&self.b)? - c(&self.a)?)
    }
}

/// The instances of two batches, by id.
pub fn pair_rows(a: Vec<Row>, b: Vec<Row>) -> Vec<Pairing> {
    let mut by: BTreeMap<String, Pairing> = BTreeMap::new();
    fn slot<'m>(by: &'m mut BTreeMap<String, Pairing>, id: &str) -> &'m mut Pairing {
        by.entry(id.to_string()).or_insert_with(|| Pairing {
            id: id.to_string(),
            a: None,
            b: None,
        })
    }
    for r in a {
        let id = r.id.clone();
        slot(&mut by, &id).a = Some(r);
    }
    for r in b {
        let id = r.id.clone();
        slot(&mut by, &id).b = Some(r);
    }
    by.into_values().collect()
}

/// Which instances show (`f` goes to the next).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFilter {
    All,
    Gained,
    Lost,
    /// Gained or lost.
    Changed,
}

impl CompareFilter {
    fn keeps(self, p: &Pairing) -> bool {
        match self {
            CompareFilter::All => true,
            CompareFilter::Gained => p.change() == Change::Gained,
            CompareFilter::Lost => p.change() == Change::Lost,
            CompareFilter::Changed => matches!(p.change(), Change::Gained | Change::Lost),
        }
    }

    fn next(self) -> Self {
        match self {
            CompareFilter::All => CompareFilter::Gained,
            CompareFilter::Gained => CompareFilter::Lost,
            CompareFilter::Lost => CompareFilter::Changed,
            CompareFilter::Changed => CompareFilter::All,
        }
    }

    fn word(self) -> &'static str {
        match self {
            CompareFilter::All => "all",
            CompareFilter::Gained => "gained by B",
            CompareFilter::Lost => "lost by B",
            CompareFilter::Changed => "gained or lost",
        }
    }
}

/// The batch comparison's state; drawing only reads it.
#[derive(Debug, Clone)]
pub struct CompareView {
    pub a: String,
    pub b: String,
    pub rows: Vec<Pairing>,
    pub filter: CompareFilter,
    pub selected: usize,
    pub quit: bool,
    /// `v`: the two batches' figures in place of the table.
    pub figures: bool,
}

impl CompareView {
    /// The two batches' paired rows, all shown, the first selected, as the table.
    pub fn new(a: String, b: String, rows: Vec<Pairing>) -> Self {
        Self {
            a,
            b,
            rows,
            filter: CompareFilter::All,
            selected: 0,
            quit: false,
            figures: false,
        }
    }

    pub fn shown(&self) -> Vec<&Pairing> {
        self.rows.iter().filter(|p| self.filter.keeps(p)).collect()
    }

    /// One key; `Some((A's session, B's session))` when it opens an instance's two sessions.
    pub fn act(&mut self, a: Action, page: usize) -> Option<(PathBuf, PathBuf)> {
        let last = self.shown().len().saturating_sub(1);
        match a {
            Action::Quit => self.quit = true,
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::PageDown => self.selected = (self.selected + page).min(last),
            Action::PageUp => self.selected = self.selected.saturating_sub(page),
            Action::First => self.selected = 0,
            Action::Last => self.selected = last,
            Action::FilterRows => {
                self.filter = self.filter.next();
                self.selected = 0;
            }
            Action::Figures => self.figures = !self.figures,
            Action::Back => {
                self.filter = CompareFilter::All;
                self.selected = 0;
            }
            Action::Open => {
                let p = self.shown().get(self.selected).copied()?;
                let session = |r: &Option<Row>| r.as_ref().and_then(|r| r.session.clone());
                return Some((session(&p.a)?, session(&p.b)?));
            }
            _ => {}
        }
        None
    }

    /// Gained, lost, and the cost difference of what is shown.
    pub fn totals(&self) -> (usize, usize, usize, f64) {
        let shown = self.shown();
        let count = |c: Change| shown.iter().filter(|p| p.change() == c).count();
        let delta = shown.iter().filter_map(|p| p.cost_delta()).sum();
        (
            shown.len(),
            count(Change::Gained),
            count(Change::Lost),
            delta,
        )
    }
}

fn verdict(r: &Option<Row>) -> String {
    match r {
        None => "absent".into(),
        Some(r) if r.state == State::Done => if r.f2p() { "F2P" } else { "not F2P" }.into(),
        Some(r) => r.state.word().into(),
    }
}

pub fn draw_batches(f: &mut Frame, v: &CompareView, theme: &Theme) {
    let [head, table, foot] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(f.area());
    let (shown, gained, lost, delta) = v.totals();
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(
                format!("Compare A {} with B {} ({})", v.a, v.b, v.filter.word()),
                theme.style(Role::Title),
            ),
            Line::styled(
                format!(
                    "{shown} instances: B gained {gained}, lost {lost}; cost B - A {delta:+.4}"
                ),
                theme.style(Role::Text),
            ),
        ])
        .wrap(Wrap { trim: false }),
        head,
    );
    let footer = if v.figures {
        " v table  q quit"
    } else {
        " Enter both sessions  f filter  v figures  Esc all  q quit"
    };
    f.render_widget(
        Paragraph::new(footer).style(theme.style(Role::Footer)),
        foot,
    );
    if v.figures {
        let facts = |side: fn(&Pairing) -> &Option<Row>, label: &str| {
            let rows: Vec<(crate::bench::figures::InstanceFacts, String)> = v
                .rows
                .iter()
                .filter_map(|p| side(p).as_ref())
                .filter_map(|r| r.facts.clone().map(|x| (x, r.settings.clone())))
                .collect();
            crate::bench::figures::batch_facts(label.to_string(), rows)
        };
        let (a, b) = (facts(|p| &p.a, &v.a), facts(|p| &p.b, &v.b));
        super::compare_figures::draw(f, table, &a, &b, theme);
        return;
    }
    let id_w = usize::from(table.width.saturating_sub(2))
        .saturating_sub(42)
        .max(10);
    let mut lines = vec![Line::styled(
        format!(
            "{:<id_w$} {:>9} {:>9} {:>9} {:>10}",
            "instance", "A", "B", "change", "cost B-A"
        ),
        theme.style(Role::Header),
    )];
    let rows_h = usize::from(table.height.saturating_sub(3));
    let top = v.selected.saturating_sub(rows_h.saturating_sub(1));
    let shown_rows = v.shown();
    for (i, p) in shown_rows.iter().enumerate().skip(top).take(rows_h) {
        let id = super::fit::cut(&p.id, id_w);
        let role = match (i == v.selected, p.change()) {
            (true, _) => Role::Selected,
            (_, Change::Lost) => Role::Error,
            (_, Change::Gained) => Role::Progress,
            _ => Role::Text,
        };
        lines.push(Line::styled(
            format!(
                "{id:<id_w$} {:>9} {:>9} {:>9} {:>10}",
                verdict(&p.a),
                verdict(&p.b),
                p.change().word(),
                p.cost_delta().map_or("-".into(), |d| format!("{d:+.4}"))
            ),
            theme.style(role),
        ));
    }
    if shown_rows.is_empty() {
        lines.push(Line::styled(
            "no instance (Esc shows all)",
            theme.style(Role::Dim),
        ));
    }
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().border_style(theme.style(Role::Border))),
        table,
    );
}

/// One session's side: what it ended with and how each cut went, as lines of text.
pub fn session_lines(label: &str, doc: &SessionDoc) -> Vec<String> {
    let mut out = vec![format!(
        "{label}: {} ({}), selection {}",
        doc.inputs.instance.as_deref().unwrap_or("session"),
        doc.phase,
        doc.config.selection
    )];
    let final_test = doc.final_test.as_ref().and_then(|t| doc.tests.get(t));
    out.push(match final_test {
        Some(c) => {
            let f2p = doc
                .evaluation
                .get(&c.id)
                .map_or("not evaluated", |e| if e.f2p { "F2P" } else { "not F2P" });
            format!("final test {} ({}): {f2p}", c.id, c.name)
        }
        None => "no final test yet".into(),
    });
    for g in &doc.generations {
        out.push(String::new());
        out.push(format!(
            "generation {}: {} tests x {} mutants",
            g.index,
            g.tests.len(),
            g.mutants.len()
        ));
        if let Some(e) = crate::engine::explain::explain_cut(doc, g.index) {
            out.extend(e.lines);
        }
    }
    out
}

/// The final tests' unified diff, A to B.
pub fn final_diff(a: &SessionDoc, b: &SessionDoc) -> Vec<String> {
    let src = |d: &SessionDoc| {
        d.final_test
            .as_ref()
            .and_then(|t| d.tests.get(t))
            .map_or(String::new(), |c| c.source.clone())
    };
    let (sa, sb) = (src(a), src(b));
    if sa == sb {
        return vec!["the final tests are the same".into()];
    }
    similar::TextDiff::from_lines(&sa, &sb)
        .unified_diff()
        .context_radius(3)
        .header("A's final test", "B's final test")
        .to_string()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The two sessions side by side (`diff` false) or the final tests' diff across the whole
/// width (`diff` true), from line `scroll` on; how far it can scroll (its wrapped lines past
/// the first screenful).
pub fn draw_sessions(
    f: &mut Frame,
    a: &[String],
    b: &[String],
    diff: Option<&[String]>,
    scroll: usize,
    theme: &Theme,
) -> usize {
    let [body, foot] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(f.area());
    let scroll = (scroll.min(u16::MAX as usize) as u16, 0);
    let mut end = 0usize;
    // Lines past the first screenful of a bordered pane of `area`.
    let past = |p: &Paragraph, area: ratatui::layout::Rect| {
        p.line_count(area.width.saturating_sub(2))
            .saturating_sub(usize::from(area.height.saturating_sub(2)))
    };
    let footer = match diff {
        Some(diff) => {
            let lines: Vec<Line> = diff
                .iter()
                .map(|l| {
                    let role = match l.chars().next() {
                        Some('+') => Role::DiffAdd,
                        Some('-') => Role::DiffRemove,
                        Some('@') => Role::DiffHunk,
                        _ => Role::DiffContext,
                    };
                    Line::styled(l.clone(), theme.style(role))
                })
                .collect();
            let p = Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll(scroll)
                .block(
                    Block::bordered()
                        .title(" the final tests, A -> B ")
                        .border_style(theme.style(Role::Border)),
                );
            end = past(&p, body);
            f.render_widget(p, body);
            " h the two sessions  a/b open A's/B's session  j/k scroll  Esc back  q quit"
        }
        None => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(body);
            for (area, lines, title) in [(left, a, " A "), (right, b, " B ")] {
                let text: Vec<Line> = lines.iter().map(|l| Line::raw(l.clone())).collect();
                let p = Paragraph::new(text)
                    .wrap(Wrap { trim: false })
                    .scroll(scroll)
                    .block(
                        Block::bordered()
                            .title(title)
                            .border_style(theme.style(Role::Border)),
                    );
                end = end.max(past(&p, area));
                f.render_widget(p, area);
            }
            " l the final tests' diff  a/b open A's/B's session  j/k scroll  Esc back  q quit"
        }
    };
    f.render_widget(
        Paragraph::new(footer).style(theme.style(Role::Footer)),
        foot,
    );
    end
}

/// How the side-by-side view ended.
enum Leave {
    Back,
    Quit,
    /// Open this side's session in the workbench's screens (`a` or `b`).
    Open(usize),
}

/// Two sessions side by side, until Esc, q, or `a`/`b` (open one of them).
struct SessionsScreen<'a> {
    la: Vec<String>,
    lb: Vec<String>,
    diff: Vec<String>,
    scroll: usize,
    on_diff: bool,
    /// How far the panes scroll, as the last frame drew them (their wrapped lines).
    longest: Cell<usize>,
    leave: Option<Leave>,
    theme: &'a Theme,
    keymap: &'a Keymap,
}

impl Component for SessionsScreen<'_> {
    type Exit = Leave;

    fn draw(&self, f: &mut Frame) {
        let diff = self.on_diff.then_some(&self.diff[..]);
        let longest = draw_sessions(f, &self.la, &self.lb, diff, self.scroll, self.theme);
        self.longest.set(longest);
    }

    fn hang_up(&mut self) {
        self.leave = Some(Leave::Quit);
    }

    fn key(&mut self, k: KeyEvent, _: Size) {
        let longest = self.longest.get();
        let scroll = &mut self.scroll;
        match self.keymap.action(KeyContext::Batch, &k) {
            Some(Action::Quit) => self.leave = Some(Leave::Quit),
            Some(Action::Back) => self.leave = Some(Leave::Back),
            Some(Action::OpenA) => self.leave = Some(Leave::Open(0)),
            Some(Action::OpenB) => self.leave = Some(Leave::Open(1)),
            Some(Action::Right) if !self.on_diff => (self.on_diff, *scroll) = (true, 0),
            Some(Action::Left) if self.on_diff => (self.on_diff, *scroll) = (false, 0),
            Some(Action::Down) => *scroll = (*scroll + 1).min(longest),
            Some(Action::Up) => *scroll = scroll.saturating_sub(1),
            Some(Action::PageDown) => *scroll = (*scroll + 10).min(longest),
            Some(Action::PageUp) => *scroll = scroll.saturating_sub(10),
            Some(Action::First) => *scroll = 0,
            Some(Action::Last) => *scroll = longest,
            _ => {}
        }
    }

    fn exit(&mut self) -> Option<Leave> {
        self.leave.take()
    }
}

/// Two sessions side by side until Esc (`Ok(false)`) or q (`Ok(true)`); `a`/`b` open one in
/// the workbench's screens with `open_session` and come back here.
async fn side_by_side(
    term: &mut Term,
    paths: [PathBuf; 2],
    theme: &Theme,
    keymap: &Keymap,
    open_session: &mut impl AsyncFnMut(&mut Term, PathBuf, String) -> anyhow::Result<()>,
) -> anyhow::Result<bool> {
    let docs = [
        SessionDoc::load(&SessionDoc::file_in(&paths[0]))?,
        SessionDoc::load(&SessionDoc::file_in(&paths[1]))?,
    ];
    let mut screen = SessionsScreen {
        la: session_lines("A", &docs[0]),
        lb: session_lines("B", &docs[1]),
        diff: final_diff(&docs[0], &docs[1]),
        scroll: 0,
        on_diff: false,
        longest: Cell::new(0),
        leave: None,
        theme,
        keymap,
    };
    loop {
        match term.run(&mut screen).await? {
            Leave::Back => return Ok(false),
            Leave::Quit => return Ok(true),
            Leave::Open(i) => {
                let side = if i == 0 { "A" } else { "B" };
                open_session(term, SessionDoc::file_in(&paths[i]), side.to_string()).await?;
            }
        }
    }
}

/// `open --compare A B`: two batch directories (the comparison, Enter on an instance shows its
/// two sessions) or two sessions (shown side by side at once). In the side-by-side view `a`
/// and `b` open A's or B's session in the workbench's screens with `open_session`.
pub async fn browse(
    term: &mut Term,
    a: &Path,
    b: &Path,
    theme: &Theme,
    keymap: &Keymap,
    mut open_session: impl AsyncFnMut(&mut Term, PathBuf, String) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if !crate::bench::batch_dir::is_batch(a) {
        let paths = [a.to_path_buf(), b.to_path_buf()];
        return side_by_side(term, paths, theme, keymap, &mut open_session)
            .await
            .map(|_| ());
    }
    let name = crate::bench::batch_dir::label;
    let mut screen = CompareScreen {
        v: CompareView::new(
            name(a),
            name(b),
            pair_rows(BatchDir::open(a).refresh(), BatchDir::open(b).refresh()),
        ),
        open: None,
        hung_up: false,
        theme,
        keymap,
    };
    loop {
        match term.run(&mut screen).await? {
            None => return Ok(()),
            Some((sa, sb)) => {
                if side_by_side(term, [sa, sb], theme, keymap, &mut open_session).await? {
                    return Ok(());
                }
            }
        }
    }
}

/// Whether `--compare`'s two paths are of one kind (two batches or two sessions), said
/// before any terminal is opened.
pub fn check_pair(a: &Path, b: &Path) -> anyhow::Result<()> {
    use crate::bench::batch_dir::is_batch;
    let batches = (is_batch(a), is_batch(b));
    if batches.0 != batches.1 {
        anyhow::bail!(
            "--compare takes two batch directories or two sessions; {} is a {} and {} a {}",
            a.display(),
            if batches.0 { "batch" } else { "session" },
            b.display(),
            if batches.1 { "batch" } else { "session" }
        );
    }
    Ok(())
}

/// Two batches instance by instance, in the terminal loop; it ends with the two sessions to
/// show side by side, or `None` to leave.
struct CompareScreen<'a> {
    v: CompareView,
    open: Option<(PathBuf, PathBuf)>,
    hung_up: bool,
    theme: &'a Theme,
    keymap: &'a Keymap,
}

impl Component for CompareScreen<'_> {
    type Exit = Option<(PathBuf, PathBuf)>;

    fn draw(&self, f: &mut Frame) {
        draw_batches(f, &self.v, self.theme);
    }

    fn hang_up(&mut self) {
        self.hung_up = true;
    }

    fn key(&mut self, k: KeyEvent, size: Size) {
        let Some(action) = self.keymap.action(KeyContext::Batch, &k) else {
            return;
        };
        let page = usize::from(size.height.saturating_sub(6)).max(1);
        self.open = self.v.act(action, page);
    }

    fn exit(&mut self) -> Option<Self::Exit> {
        if let Some(pair) = self.open.take() {
            return Some(Some(pair));
        }
        (self.v.quit || self.hung_up).then_some(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, state: State, f2p: bool, cost: f64) -> Row {
        Row::fixture(id, "o/r", state, f2p, cost)
    }

    #[test]
    fn instances_pair_up_as_gained_lost_or_the_same() {
        let a = vec![
            row("x-1", State::Done, false, 0.5),
            row("y-2", State::Done, true, 0.5),
            row("z-3", State::Done, true, 0.5),
            row("w-4", State::Queued, false, 0.0),
        ];
        let b = vec![
            row("x-1", State::Done, true, 0.25),
            row("y-2", State::Done, false, 0.75),
            row("z-3", State::Done, true, 0.5),
        ];
        let mut v = CompareView::new("A".into(), "B".into(), pair_rows(a, b));
        let changes: Vec<Change> = v.rows.iter().map(Pairing::change).collect();
        // Sorted by id: w, x, y, z.
        assert_eq!(
            changes,
            [
                Change::Unmatched,
                Change::Gained,
                Change::Lost,
                Change::Both
            ]
        );
        assert_eq!(v.totals(), (4, 1, 1, 0.0));
        v.act(Action::FilterRows, 10);
        assert_eq!(v.shown().len(), 1);
        assert_eq!(
            v.act(Action::Open, 10),
            Some((
                PathBuf::from("/b/x-1/session.json"),
                PathBuf::from("/b/x-1/session.json")
            ))
        );
        v.act(Action::FilterRows, 10);
        assert_eq!(v.shown()[0].id, "y-2");
        assert_eq!(v.shown()[0].cost_delta(), Some(0.25));
        v.act(Action::Back, 10);
        assert_eq!(v.shown().len(), 4);
    }

    #[test]
    fn the_figures_show_both_batches_with_their_test_of_significance() {
        let with_facts = |id: &str, f2p: bool| {
            let mut r = row(id, State::Done, f2p, 0.5);
            r.facts = Some(crate::bench::figures::InstanceFacts {
                id: id.into(),
                generations: vec![(1, 8), (usize::from(f2p), 4)],
                final_f2p: f2p,
                accuracy: vec![Some(0.5)],
                ..Default::default()
            });
            r
        };
        let a = vec![with_facts("x-1", false), with_facts("y-2", true)];
        let b = vec![with_facts("x-1", true), with_facts("y-2", true)];
        let mut v = CompareView::new("A".into(), "B".into(), pair_rows(a, b));
        v.act(Action::Figures, 10);
        let theme = Theme::load(None, None, true).unwrap();
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(170, 30)).unwrap();
        term.draw(|f| draw_batches(f, &v, &theme)).unwrap();
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        for text in [
            "Tables II/III",
            "F2P 1 of 2 (50%)",
            "F2P 2 of 2 (100%)",
            "McNemar's exact test on the 2 instances both ran: F2P in A only 0, in B only 1",
            "F2P share per generation",
            "selection accuracy per phase",
            "v table",
        ] {
            assert!(screen.contains(text), "{text}: {screen}");
        }
        v.act(Action::Figures, 10);
        assert!(!v.figures, "v again shows the table");
    }
}
