//! What the TUI shows, and how it changes: [`State`] and the reducer [`update`], which turns
//! an [`Action`] (a key's meaning, an event of the workbench, a new snapshot) into a new state
//! and the [`Effect`]s to carry out (commands for the workbench, a pair to run). No terminal
//! and no engine here: the reducer is tested on its own.

use crate::engine::kill::{self, Cell};
use crate::engine::{ActRequest, Event, MutantId, Phase, SessionDoc, Target, TestId};
use crate::mutate::MutantKind;
use crate::workbench::Command;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The screens, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Screen {
    Timeline,
    Grid,
    Pair,
    Why,
    Curate,
    Transcript,
}

impl Screen {
    pub const ALL: [Screen; 6] = [
        Screen::Timeline,
        Screen::Grid,
        Screen::Pair,
        Screen::Why,
        Screen::Curate,
        Screen::Transcript,
    ];

    /// For narrow terminals.
    pub fn short_title(self) -> &'static str {
        match self {
            Screen::Timeline => "Time",
            Screen::Grid => "Grid",
            Screen::Pair => "Pair",
            Screen::Why => "Why",
            Screen::Curate => "Curate",
            Screen::Transcript => "Model",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Screen::Timeline => "Timeline",
            Screen::Grid => "Grid",
            Screen::Pair => "Pair",
            Screen::Why => "Why not killed",
            Screen::Curate => "Curate",
            Screen::Transcript => "Model",
        }
    }
}

/// What a person (or a test) asks of the TUI: every key means one of these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum Action {
    NextScreen,
    PrevScreen,
    Go {
        screen: Screen,
    },
    Back,
    ToggleHelp,
    Quit,
    Move {
        dx: i64,
        dy: i64,
    },
    Page {
        down: bool,
    },
    First,
    Last,
    /// Enter: open the selected cell's pair (grid), the selected call (transcript).
    Open,
    WhyNotKilled,
    Transcript,
    Step,
    RunToGate,
    Continue,
    Veto,
    Edit,
    Add,
    /// Add a test from a file: the editor asks for its path first.
    AddFile,
    Pin,
    Undo,
    /// The editor's text was saved: an edit of the selected test, or a new test.
    EditorSaved {
        source: String,
    },
    EditorCancelled,
    SortRows,
    FilterColumns,
    ToggleRaw,
    ToggleSideBySide,
    NextHunk,
    PrevHunk,
    /// The terminal's size.
    Resize {
        width: u16,
        height: u16,
    },
    /// Something the workbench reported.
    Event {
        event: Box<Event>,
    },
}

/// What the app must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Send(Command),
    /// Open the editor on this text (an edit of `test`, or a new test when `None`).
    OpenEditor {
        test: Option<TestId>,
        text: String,
    },
    /// Ask for the path of a test file to add.
    AskPath,
    /// Run a (test, mutant) pair again now (why-not-killed).
    RunPair {
        test: TestId,
        mutant: MutantId,
    },
    Quit,
}

/// Which columns the grid shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ColumnFilter {
    #[default]
    All,
    /// Mutants no test of the generation kills.
    Survivors,
    Kind(MutantKind),
    File(String),
}

impl ColumnFilter {
    pub fn label(&self) -> String {
        match self {
            ColumnFilter::All => "all mutants".into(),
            ColumnFilter::Survivors => "survivors only".into(),
            ColumnFilter::Kind(k) => format!("kind {k}"),
            ColumnFilter::File(f) => format!("file {f}"),
        }
    }
}

/// One cell of the grid as drawn: the kill-matrix cell, or what the execution is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellView {
    Killed(Cell),
    /// The mutant run errored where `c_old` did not.
    Error,
    /// The test's two `c_old` logs differ: its cells prove nothing.
    Flaky,
    Running,
    Pending,
}

impl CellView {
    /// A glyph that tells the kinds apart without colour (ASCII only: every terminal draws
    /// it one column wide).
    pub fn glyph(self) -> char {
        match self {
            CellView::Killed(Cell::KilledStatus) => 'K',
            CellView::Killed(Cell::KilledLog) => 'k',
            CellView::Killed(Cell::Rescued) => 'R',
            CellView::Killed(Cell::TimedOut) => 'T',
            CellView::Killed(Cell::Survived) => '.',
            CellView::Error => 'E',
            CellView::Flaky => '~',
            CellView::Running => '*',
            CellView::Pending => '-',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CellView::Killed(Cell::KilledStatus) => "killed (status changed)",
            CellView::Killed(Cell::KilledLog) => "killed (log only)",
            CellView::Killed(Cell::Rescued) => "rescued",
            CellView::Killed(Cell::TimedOut) => "timed out",
            CellView::Killed(Cell::Survived) => "survived",
            CellView::Error => "error",
            CellView::Flaky => "flaky",
            CellView::Running => "running",
            CellView::Pending => "pending",
        }
    }

    pub const LEGEND: [CellView; 9] = [
        CellView::Killed(Cell::KilledStatus),
        CellView::Killed(Cell::KilledLog),
        CellView::Killed(Cell::Rescued),
        CellView::Killed(Cell::Survived),
        CellView::Error,
        CellView::Killed(Cell::TimedOut),
        CellView::Flaky,
        CellView::Pending,
        CellView::Running,
    ];
}

/// The grid of one generation as the screen shows it: rows and columns in display order.
#[derive(Debug, Clone, PartialEq)]
pub struct GridModel {
    pub generation: usize,
    pub tests: Vec<TestId>,
    pub mutants: Vec<MutantId>,
    /// For each shown row and column, its index in the generation's `tests` and `mutants`
    /// (and so in the [`CellCache`]).
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
}

/// Every cell of one generation, worked out once per snapshot (and patched by events), so a
/// frame of a 64 x 640 grid only reads: no lookups, no allocation per cell.
#[derive(Debug, Clone, Default)]
pub struct CellCache {
    pub generation: usize,
    width: usize,
    cells: Vec<CellView>,
    /// How many (non-flaky) tests kill each mutant, in the generation's mutant order.
    pub killed_by: Vec<usize>,
    /// Each mutant's kind, in the same order.
    pub kinds: Vec<MutantKind>,
    test_index: std::collections::HashMap<TestId, usize>,
    mutant_index: std::collections::HashMap<MutantId, usize>,
}

impl CellCache {
    fn build(doc: &SessionDoc, g: usize) -> Self {
        let gen_ = &doc.generations[g];
        let width = gen_.mutants.len();
        let mut cells = Vec::with_capacity(gen_.tests.len() * width);
        for t in &gen_.tests {
            let flaky = gen_.scores.get(t).is_some_and(|s| s.flaky);
            let old = doc.execution(t, &Target::Old);
            let hash = doc.tests.get(t).map(|c| c.hash.as_str()).unwrap_or("");
            for m in &gen_.mutants {
                let key = crate::engine::exec_key(hash, &Target::Mutant(m.clone()));
                cells.push(match (old, doc.executions.get(&key)) {
                    (Some(old), Some(run)) => view_of(old, run, flaky),
                    _ => CellView::Pending,
                });
            }
        }
        let mutant_index: std::collections::HashMap<MutantId, usize> = gen_
            .mutants
            .iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), i))
            .collect();
        let mut killed_by = vec![0; width];
        for sc in gen_.scores.values().filter(|s| !s.flaky) {
            for k in &sc.kills {
                if let Some(&i) = mutant_index.get(k) {
                    killed_by[i] += 1;
                }
            }
        }
        let kinds = gen_
            .mutants
            .iter()
            .map(|m| {
                doc.pool
                    .as_ref()
                    .and_then(|p| p.mutants.iter().find(|x| &x.id == m))
                    .map_or(MutantKind::ForceFailure, |x| x.kind)
            })
            .collect();
        Self {
            generation: g,
            width,
            cells,
            killed_by,
            kinds,
            test_index: gen_
                .tests
                .iter()
                .enumerate()
                .map(|(i, t)| (t.clone(), i))
                .collect(),
            mutant_index,
        }
    }

    pub fn at(&self, row: usize, col: usize) -> CellView {
        self.cells
            .get(row * self.width + col)
            .copied()
            .unwrap_or(CellView::Pending)
    }

    fn index(&self, test: &str, mutant: &str) -> Option<usize> {
        let r = *self.test_index.get(test)?;
        let c = *self.mutant_index.get(mutant)?;
        Some(r * self.width + c)
    }
}

/// The view of one finished pair.
fn view_of(
    old: &crate::engine::Execution,
    run: &crate::engine::Execution,
    flaky: bool,
) -> CellView {
    if flaky {
        return CellView::Flaky;
    }
    let cell = kill::cell(old, run);
    if cell.is_kill()
        && run.outcome == crate::exec::Outcome::Error
        && old.outcome != crate::exec::Outcome::Error
    {
        return CellView::Error;
    }
    CellView::Killed(cell)
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scroll {
    pub offset: usize,
}

/// The live progress of the step in flight.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub kills: usize,
    pub timeouts: usize,
}

/// The help overlay's share of the terminal's height, in percent.
pub const HELP_HEIGHT_PCT: u16 = 85;

pub struct State {
    pub doc: Arc<SessionDoc>,
    pub screen: Screen,
    /// Screens to go back to with Esc.
    pub history: Vec<Screen>,
    pub help: bool,
    /// The help's first line shown, and how many lines it has (the app counts them when it
    /// opens the help: they depend on the keymap).
    pub help_scroll: usize,
    pub help_len: usize,
    /// No workbench behind the view (a finished or foreign session): nothing can run.
    pub read_only: bool,
    /// The model's part is recorded replies: say so on screen.
    pub scripted: bool,
    /// The generation shown; `None` follows the newest.
    pub generation: Option<usize>,
    pub row: usize,
    pub col: usize,
    pub row_scroll: usize,
    pub col_scroll: usize,
    pub sort_by_fitness: bool,
    pub filter: ColumnFilter,
    /// Execution keys in flight.
    pub running: BTreeSet<String>,
    pub progress: Option<Progress>,
    /// The gate the workbench waits at.
    pub paused_at: Option<usize>,
    /// Whether the workbench is busy (a command sent and not yet finished).
    pub busy: bool,
    pub raw_log: bool,
    pub side_by_side: bool,
    pub pair_scroll: usize,
    pub pair_hunk: usize,
    /// The selected row of the curate list.
    pub curate_row: usize,
    pub transcript_call: usize,
    pub transcript_scroll: usize,
    /// Recent messages (events, refusals), newest last.
    pub messages: Vec<String>,
    /// The last re-run of a pair (why-not-killed), as text lines.
    pub rerun: Option<(TestId, MutantId, String)>,
    pub width: u16,
    pub height: u16,
    pub quit: bool,
    /// The shown generation's cells (see [`CellCache`]).
    pub cache: CellCache,
    /// (test, mutant) pairs running now, for the cells to show it.
    pub running_pairs: BTreeSet<(TestId, MutantId)>,
}

impl State {
    /// How many of the help's lines fit in its overlay (inside its border).
    pub fn help_rows(&self) -> usize {
        usize::from((self.height * HELP_HEIGHT_PCT / 100).saturating_sub(2))
    }

    fn scroll_help(&mut self, dy: i64) {
        let last = self.help_len.saturating_sub(self.help_rows());
        self.help_scroll = moved(self.help_scroll, dy).min(last);
    }

    pub fn new(doc: Arc<SessionDoc>, read_only: bool) -> Self {
        let scripted = doc
            .config
            .llm
            .as_deref()
            .is_some_and(|l| l.starts_with("scripted:"));
        let mut s = Self {
            doc,
            screen: Screen::Grid,
            history: vec![],
            help: false,
            help_scroll: 0,
            help_len: 0,
            read_only,
            scripted,
            generation: None,
            row: 0,
            col: 0,
            row_scroll: 0,
            col_scroll: 0,
            sort_by_fitness: false,
            filter: ColumnFilter::All,
            running: BTreeSet::new(),
            progress: None,
            paused_at: None,
            busy: false,
            raw_log: false,
            side_by_side: false,
            pair_scroll: 0,
            pair_hunk: 0,
            curate_row: 0,
            transcript_call: 0,
            transcript_scroll: 0,
            messages: vec![],
            rerun: None,
            width: 80,
            height: 24,
            quit: false,
            cache: CellCache::default(),
            running_pairs: BTreeSet::new(),
        };
        s.refresh();
        s
    }

    /// A new snapshot of the session.
    pub fn set_doc(&mut self, doc: Arc<SessionDoc>) {
        self.doc = doc;
        self.refresh();
    }

    /// Rebuilds what is derived from the document for the shown generation.
    fn refresh(&mut self) {
        self.cache = match self.shown_generation() {
            Some(g) => CellCache::build(&self.doc, g),
            None => CellCache::default(),
        };
    }

    /// The generation on screen.
    pub fn shown_generation(&self) -> Option<usize> {
        let n = self.doc.generations.len();
        match self.generation {
            Some(g) if g < n => Some(g),
            _ => n.checked_sub(1),
        }
    }

    /// The grid's rows and columns, after sorting and filtering.
    pub fn grid(&self) -> Option<GridModel> {
        let g = self.shown_generation()?;
        let gen_ = &self.doc.generations[g];
        let mut rows: Vec<usize> = (0..gen_.tests.len()).collect();
        if self.sort_by_fitness {
            let kills = |i: &usize| {
                gen_.scores
                    .get(&gen_.tests[*i])
                    .map_or(0, |s| s.kills.len())
            };
            // Stable: equal fitness keeps the generation's order.
            rows.sort_by_key(|i| std::cmp::Reverse(kills(i)));
        }
        // Pool order, the order of `evootter mutants` and `show`.
        let in_gen: std::collections::HashMap<&MutantId, usize> = gen_
            .mutants
            .iter()
            .enumerate()
            .map(|(i, m)| (m, i))
            .collect();
        let fresh = self.cache.generation == g && self.cache.killed_by.len() == gen_.mutants.len();
        let cols: Vec<usize> = self
            .doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter())
            .filter_map(|m| in_gen.get(&m.id).map(|&i| (m, i)))
            .filter(|(m, i)| match &self.filter {
                ColumnFilter::All => true,
                ColumnFilter::Survivors => {
                    if fresh {
                        self.cache.killed_by[*i] == 0
                    } else {
                        !gen_
                            .scores
                            .values()
                            .any(|s| !s.flaky && s.kills.contains(&m.id))
                    }
                }
                ColumnFilter::Kind(k) => m.kind == *k,
                ColumnFilter::File(f) => &m.file == f,
            })
            .map(|(_, i)| i)
            .collect();
        Some(GridModel {
            generation: g,
            tests: rows.iter().map(|&i| gen_.tests[i].clone()).collect(),
            mutants: cols.iter().map(|&i| gen_.mutants[i].clone()).collect(),
            rows,
            cols,
        })
    }

    /// How the cell of `test` on `mutant` looks now.
    pub fn cell(&self, g: usize, test: &TestId, mutant: &MutantId) -> CellView {
        if !self.running_pairs.is_empty()
            && self.running_pairs.contains(&(test.clone(), mutant.clone()))
        {
            return CellView::Running;
        }
        if self.cache.generation == g
            && let Some(i) = self.cache.index(test, mutant)
        {
            return self.cache.cells[i];
        }
        let doc = &self.doc;
        let target = Target::Mutant(mutant.clone());
        let Some(c) = doc.tests.get(test) else {
            return CellView::Pending;
        };
        let key = crate::engine::exec_key(&c.hash, &target);
        if self.running.contains(&key) {
            return CellView::Running;
        }
        let (Some(old), Some(run)) = (doc.execution(test, &Target::Old), doc.executions.get(&key))
        else {
            return CellView::Pending;
        };
        if doc.generations[g].scores.get(test).is_some_and(|s| s.flaky) {
            return CellView::Flaky;
        }
        let cell = kill::cell(old, run);
        if cell.is_kill()
            && run.outcome == crate::exec::Outcome::Error
            && old.outcome != crate::exec::Outcome::Error
        {
            return CellView::Error;
        }
        CellView::Killed(cell)
    }

    /// The selected (test, mutant) of the grid.
    pub fn selected_pair(&self) -> Option<(TestId, MutantId)> {
        let grid = self.grid()?;
        let t = grid.tests.get(self.row)?.clone();
        let m = grid.mutants.get(self.col)?.clone();
        Some((t, m))
    }

    /// The tests of the curate list: the gate's parents first, then the rest of the generation.
    pub fn curate_list(&self) -> Vec<TestId> {
        let Some(g) = self.shown_generation() else {
            return vec![];
        };
        let parents = self.doc.parents(g);
        let mut list = parents.clone();
        list.extend(
            self.doc.generations[g]
                .tests
                .iter()
                .filter(|t| !parents.contains(t))
                .cloned(),
        );
        list
    }

    pub fn at_gate(&self) -> Option<usize> {
        match self.doc.phase {
            Phase::Crossover { generation } if self.paused_at == Some(generation) => {
                Some(generation)
            }
            _ => None,
        }
    }

    fn say(&mut self, m: impl Into<String>) {
        self.messages.push(m.into());
        if self.messages.len() > 200 {
            self.messages.remove(0);
        }
    }

    fn go(&mut self, s: Screen) {
        if s != self.screen {
            self.history.push(self.screen);
            self.screen = s;
        }
    }

    /// Rows and columns of grid cells the viewport holds (the frozen headers excluded).
    pub fn grid_viewport(&self) -> (usize, usize) {
        // Tab line, status and footer; the block's borders; the cell detail (2 lines); the
        // column header (4) and the totals line. Columns: borders and the row header.
        let rows = usize::from(self.height).saturating_sub(13).max(1);
        let cols = usize::from(self.width).saturating_sub(14) / 2;
        (rows, cols.max(1))
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

    fn needs_workbench(&mut self) -> bool {
        if self.read_only {
            self.say(
                "read-only: this session is finished or comes from elsewhere; nothing can run",
            );
            return false;
        }
        true
    }
}

fn moved(v: usize, d: i64) -> usize {
    if d < 0 {
        v.saturating_sub(d.unsigned_abs() as usize)
    } else {
        v.saturating_add(d as usize)
    }
}

/// The reducer: applies `action` to `s` and returns what the app must do.
pub fn update(s: &mut State, action: Action) -> Vec<Effect> {
    let mut fx = vec![];
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
        Action::Go { screen } => s.go(screen),
        Action::Back => {
            if s.help {
                s.help = false;
            } else if let Some(prev) = s.history.pop() {
                s.screen = prev;
            }
        }
        Action::ToggleHelp => {
            s.help = !s.help;
            s.help_scroll = 0;
        }
        // While the help is open, the moving keys scroll it.
        Action::Move { dy, .. } if s.help => s.scroll_help(dy),
        Action::Page { down } if s.help => {
            let page = i64::try_from(s.help_rows()).unwrap_or(1).max(1);
            s.scroll_help(if down { page } else { -page });
        }
        Action::First if s.help => s.help_scroll = 0,
        Action::Last if s.help => s.scroll_help(i64::MAX / 2),
        Action::Quit => {
            s.quit = true;
            fx.push(Effect::Quit);
        }
        Action::Move { dx, dy } => match s.screen {
            Screen::Grid => {
                s.row = moved(s.row, dy);
                s.col = moved(s.col, dx);
                s.clamp_grid();
            }
            Screen::Timeline => {
                let n = s.doc.generations.len();
                if n > 0 {
                    let g = s.shown_generation().unwrap_or(0);
                    let to = moved(g, dy + dx).min(n - 1);
                    // Back at the newest generation, follow it again.
                    s.generation = (to + 1 < n).then_some(to);
                    s.refresh();
                }
            }
            Screen::Pair | Screen::Why => s.pair_scroll = moved(s.pair_scroll, dy),
            Screen::Curate => {
                let n = s.curate_list().len();
                s.curate_row = moved(s.curate_row, dy).min(n.saturating_sub(1));
            }
            Screen::Transcript => {
                if dx != 0 {
                    let n = s.doc.llm_calls.len();
                    s.transcript_call = moved(s.transcript_call, dx).min(n.saturating_sub(1));
                    s.transcript_scroll = 0;
                } else {
                    s.transcript_scroll = moved(s.transcript_scroll, dy);
                }
            }
        },
        Action::Page { down } => {
            let page = i64::from(s.height.saturating_sub(6).max(1));
            let dy = if down { page } else { -page };
            return update(s, Action::Move { dx: 0, dy });
        }
        Action::First | Action::Last => {
            let last = action == Action::Last;
            match s.screen {
                Screen::Grid => {
                    s.row = if last { usize::MAX } else { 0 };
                    s.clamp_grid();
                }
                Screen::Pair | Screen::Why => {
                    s.pair_scroll = if last { usize::MAX / 2 } else { 0 };
                }
                Screen::Transcript => s.transcript_scroll = 0,
                Screen::Curate => {
                    s.curate_row = if last {
                        s.curate_list().len().saturating_sub(1)
                    } else {
                        0
                    };
                }
                Screen::Timeline => {
                    s.generation = if last { None } else { Some(0) };
                    s.refresh();
                }
            }
        }
        Action::Open => match s.screen {
            Screen::Grid if s.selected_pair().is_some() => {
                s.pair_scroll = 0;
                s.pair_hunk = 0;
                s.go(Screen::Pair);
            }
            Screen::Timeline => s.go(Screen::Grid),
            Screen::Transcript => s.transcript_scroll = 0,
            _ => {}
        },
        Action::WhyNotKilled => {
            if let Some((t, m)) = s.selected_pair() {
                let g = s.shown_generation().unwrap_or(0);
                match s.cell(g, &t, &m) {
                    CellView::Killed(Cell::Survived) => {
                        s.pair_scroll = 0;
                        s.go(Screen::Why);
                    }
                    other => s.say(format!(
                        "{t} on {m} is {}: why-not-killed is for survived cells",
                        other.name()
                    )),
                }
            }
        }
        Action::Transcript => s.go(Screen::Transcript),
        Action::Step | Action::RunToGate | Action::Continue => {
            if s.needs_workbench() {
                if action == Action::Continue && s.at_gate().is_none() {
                    s.say("not at a gate: `c` continues past the gate before a crossover");
                } else {
                    s.busy = true;
                    s.paused_at = None;
                    fx.push(Effect::Send(match action {
                        Action::Step => Command::Step,
                        Action::RunToGate => Command::RunToGate,
                        _ => Command::Continue,
                    }));
                }
            }
        }
        Action::Veto
        | Action::Pin
        | Action::Undo
        | Action::Edit
        | Action::Add
        | Action::AddFile => {
            if !s.needs_workbench() {
                return fx;
            }
            if s.at_gate().is_none() {
                s.say("acts wait for the gate before a crossover (`r` runs to it)");
                return fx;
            }
            let list = s.curate_list();
            let selected = list.get(s.curate_row).cloned();
            match (&action, selected) {
                (Action::Undo, _) => fx.push(Effect::Send(Command::Act(ActRequest::Undo))),
                (Action::Add, _) => fx.push(Effect::OpenEditor {
                    test: None,
                    text: new_test_template(&s.doc),
                }),
                (Action::AddFile, _) => fx.push(Effect::AskPath),
                (_, None) => s.say("no test selected"),
                (Action::Veto, Some(test)) => {
                    fx.push(Effect::Send(Command::Act(ActRequest::Veto { test })))
                }
                (Action::Pin, Some(test)) => {
                    fx.push(Effect::Send(Command::Act(ActRequest::Pin { test })))
                }
                (Action::Edit, Some(test)) => {
                    let text = s.doc.tests[&test].source.clone();
                    fx.push(Effect::OpenEditor {
                        test: Some(test),
                        text,
                    });
                }
                _ => {}
            }
            if s.screen != Screen::Curate {
                s.go(Screen::Curate);
            }
        }
        Action::EditorSaved { .. } | Action::EditorCancelled => {
            // The app knows which test the editor was opened for and sends the act itself.
        }
        Action::SortRows => {
            s.sort_by_fitness = !s.sort_by_fitness;
            s.clamp_grid();
        }
        Action::FilterColumns => {
            s.filter = next_filter(s);
            s.col = 0;
            s.col_scroll = 0;
        }
        Action::ToggleRaw => s.raw_log = !s.raw_log,
        Action::ToggleSideBySide => s.side_by_side = !s.side_by_side,
        Action::NextHunk => s.pair_hunk = s.pair_hunk.saturating_add(1),
        Action::PrevHunk => s.pair_hunk = s.pair_hunk.saturating_sub(1),
        Action::Resize { width, height } => {
            s.width = width;
            s.height = height;
            s.clamp_grid();
        }
        Action::Event { event } => on_event(s, *event),
    }
    fx
}

fn new_test_template(doc: &SessionDoc) -> String {
    let imports = doc
        .base_brt
        .as_ref()
        .map(|b| b.imports.join("\n"))
        .filter(|i| !i.is_empty())
        .unwrap_or_default();
    format!("{imports}\n\n\ndef test_reproduces_the_issue():\n    assert False, \"write the reproduction here\"\n")
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
                if let (Some(c), Some(i)) = (cell, s.cache.index(&test, &m)) {
                    s.cache.cells[i] = CellView::Killed(c);
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
            s.paused_at = Some(generation);
            s.busy = false;
            s.running.clear();
            s.running_pairs.clear();
            s.say(format!(
                "paused at the gate before generation {generation}'s crossover: curate (x e a p u), then `c`"
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
        Event::Stopped { reason, resumable } => {
            s.busy = false;
            s.running.clear();
            s.say(format!(
                "the run stopped: {reason}{}",
                if resumable {
                    " (saved; `evootter open` continues it)"
                } else {
                    ""
                }
            ));
        }
        Event::Acted { act } => s.say(format!("you {}", act.kind.describe())),
        Event::ActRefused { reason } => s.say(format!("refused: {reason}")),
        Event::Note { message } => s.say(format!("note: {message}")),
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

    /// A finished session of the scripted engine: four tests of a small function, real
    /// mutants, scripted results (no Python).
    fn doc() -> SessionDoc {
        fixture::finished_session()
    }

    fn state() -> State {
        let mut s = State::new(Arc::new(doc()), false);
        update(
            &mut s,
            Action::Resize {
                width: 120,
                height: 36,
            },
        );
        s
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
        update(&mut s, Action::ToggleHelp);
        update(&mut s, Action::Back);
        assert!(!s.help, "Esc closes the help first");
    }

    #[test]
    fn the_selection_stays_inside_the_grid() {
        let mut s = state();
        let g = s.grid().unwrap();
        update(&mut s, Action::Move { dx: 100, dy: 100 });
        assert_eq!((s.row, s.col), (g.tests.len() - 1, g.mutants.len() - 1));
        update(&mut s, Action::Move { dx: -100, dy: -100 });
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
        let mut ro = State::new(Arc::new(doc()), true);
        assert!(update(&mut ro, Action::Step).is_empty());
        assert!(ro.messages.last().unwrap().contains("read-only"));
        assert_eq!(update(&mut s, Action::Step), [Effect::Send(Command::Step)]);
    }

    #[test]
    fn at_the_gate_keys_become_acts() {
        let mut d = doc();
        d.phase = Phase::Crossover { generation: 1 };
        let mut s = State::new(Arc::new(d), false);
        update(
            &mut s,
            Action::Event {
                event: Box::new(Event::Paused { generation: 1 }),
            },
        );
        assert_eq!(s.at_gate(), Some(1));
        let first = s.curate_list()[0].clone();
        assert_eq!(
            update(&mut s, Action::Veto),
            [Effect::Send(Command::Act(ActRequest::Veto {
                test: first.clone()
            }))]
        );
        assert_eq!(s.screen, Screen::Curate);
        match &update(&mut s, Action::Edit)[..] {
            [
                Effect::OpenEditor {
                    test: Some(t),
                    text,
                },
            ] => {
                assert_eq!(t, &first);
                assert_eq!(text, &s.doc.tests[&first].source);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(update(&mut s, Action::AddFile), [Effect::AskPath]);
        assert_eq!(
            update(&mut s, Action::Continue),
            [Effect::Send(Command::Continue)]
        );
    }

    #[test]
    fn filters_cycle_and_sorting_orders_rows_by_fitness() {
        let mut s = state();
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
        let kills: Vec<usize> = g.tests.iter().map(|t| gen_.scores[t].kills.len()).collect();
        let mut sorted = kills.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(kills, sorted);
    }

    #[test]
    fn actions_serialize_for_replay() {
        let a = Action::Go {
            screen: Screen::Pair,
        };
        let j = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Action>(&j).unwrap(), a);
    }
}

/// A finished session for the TUI's tests (reducer and drawing), made by the real engine over
/// a small repository with the scripted executor: no Python, same result every time.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::engine::{Engine, Inputs, RunConfig, SessionDoc, setup};
    use crate::exec::scripted::{self, ScriptedExecutor};
    use crate::exec::{ExecRequest, Outcome};
    use std::sync::Arc;

    fn answer(req: &ExecRequest) -> crate::exec::ExecResult {
        let src = &req.test.content;
        let outcome = if src.contains("FAILS") {
            Outcome::Failed
        } else {
            Outcome::Passed
        };
        let log = match req.overrides.first() {
            // Each KILLS test kills the mutants whose content hash starts with one of its
            // hex digits: a varied matrix.
            Some(m) if src.contains("KILLS") => {
                let h = crate::hash::sha256_hex(&m.content);
                let digits = src.split("KILLS ").nth(1).unwrap_or("");
                if digits
                    .chars()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .any(|d| h.starts_with(d))
                {
                    format!("mutant {h}\n")
                } else {
                    "same\n".into()
                }
            }
            _ => "same\n".into(),
        };
        scripted::result(outcome, &log)
    }

    pub fn finished_session() -> SessionDoc {
        let dir = tempfile::tempdir().unwrap().keep();
        let repo = dir.join("repo");
        std::fs::create_dir_all(repo.join("calc")).unwrap();
        std::fs::write(
            repo.join("calc/ops.py"),
            "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi - 1\n    return x + 0\n",
        )
        .unwrap();
        let cands = [
            (
                "test_a.py",
                "# FAILS KILLS 0123456789ab\ndef test_a(): pass\n",
            ),
            ("test_b.py", "# FAILS KILLS 01234\ndef test_b(): pass\n"),
            (
                "test_c.py",
                "# KILLS 0123456789abcdef\ndef test_c(): pass\n",
            ),
            ("test_d.py", "def test_d(): pass\n"),
        ]
        .into_iter()
        .map(|(n, s)| (dir.join(n), s.to_string()))
        .collect();
        let config = RunConfig {
            tests: 4,
            mutants: 8,
            ..crate::engine::session::fixtures::config(crate::engine::SelectionStrategy::Mutation)
        };
        let inputs = Inputs {
            repo,
            issue_path: None,
            issue_text: "clamp".into(),
            focal: vec!["calc/ops.py::clamp".parse().unwrap()],
            initial_tests_dir: None,
            golden_patch: None,
            instance: Some("fixture".into()),
            repo_fingerprint: String::new(),
        };
        let doc = setup::new_session(inputs, config, cands).unwrap();
        let exec = Arc::new(ScriptedExecutor::new(answer));
        let mut engine = Engine::new(doc, dir.join("session.json"), exec, None);
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(engine.run_to_end())
            .unwrap();
        engine.doc
    }
}
