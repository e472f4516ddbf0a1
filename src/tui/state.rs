//! What the TUI shows: [`State`], and what can be read off it (the grid in display order, a
//! cell, the selection, the gate). Only the reducer (`update`) changes it; drawing reads it.
//! No terminal and no engine here.

use super::log_diff::LogDiff;
use crate::engine::kill::Cell;
use crate::engine::{MutantId, Phase, SessionDoc, Target, TestId};
use crate::exec::Outcome;
use crate::mutate::MutantKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
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
    Model,
}

impl Screen {
    pub const ALL: [Screen; 6] = [
        Screen::Timeline,
        Screen::Grid,
        Screen::Pair,
        Screen::Why,
        Screen::Curate,
        Screen::Model,
    ];

    /// Its place in [`Screen::ALL`].
    pub fn index(self) -> usize {
        Screen::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }

    /// The name of the action that shows this screen, as keymap files bind it.
    pub fn action_name(self) -> &'static str {
        match self {
            Screen::Timeline => "timeline",
            Screen::Grid => "grid",
            Screen::Pair => "pair",
            Screen::Why => "why",
            Screen::Curate => "curate",
            Screen::Model => "model",
        }
    }

    /// For narrow terminals.
    pub fn short_title(self) -> &'static str {
        match self {
            Screen::Timeline => "Time",
            Screen::Grid => "Grid",
            Screen::Pair => "Pair",
            Screen::Why => "Why",
            Screen::Curate => "Curate",
            Screen::Model => "Model",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Screen::Timeline => "Timeline",
            Screen::Grid => "Grid",
            Screen::Pair => "Pair",
            Screen::Why => "Why",
            Screen::Curate => "Curate",
            Screen::Model => "Model",
        }
    }
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

pub use crate::engine::cell_view::CellView;

/// The keys of the acts a message tells the user about ("p again takes the pin back"): the
/// keymap's, since a user's keymap may move them; the defaults' until the app sets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActKeys {
    pub undo: String,
    pub redo: String,
    pub proceed: String,
    pub veto: String,
    pub pin: String,
}

impl Default for ActKeys {
    fn default() -> Self {
        Self {
            undo: "u".into(),
            redo: "U".into(),
            proceed: "c".into(),
            veto: "x".into(),
            pin: "p".into(),
        }
    }
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
    /// Each shown column's number (1-based) among all of the generation's mutants in pool
    /// order, as `show` numbers them: a filter hides columns, it does not renumber them.
    pub numbers: Vec<usize>,
}

/// Every cell of one generation, worked out once per snapshot (and patched by events), so a
/// frame of a 64 x 640 grid only reads: no lookups, no allocation per cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellCache {
    pub generation: usize,
    width: usize,
    cells: Vec<CellView>,
    /// How many (non-flaky) tests kill each mutant, in the generation's mutant order.
    pub killed_by: Vec<usize>,
    /// Each mutant's kind, in the same order.
    pub kinds: Vec<MutantKind>,
    /// Whether each mutant is of a focal function's callee or caller (the widened scope),
    /// in the same order.
    pub widened: Vec<bool>,
    /// Per cell, whether its test executes the mutant's lines on `c_old` (`None`: unknown,
    /// the run was not traced or the span not found).
    reached: Vec<Option<bool>>,
    /// Each test's fate at the cut, in the generation's test order.
    fates: Vec<Fate>,
    test_index: std::collections::HashMap<TestId, usize>,
    mutant_index: std::collections::HashMap<MutantId, usize>,
}

impl CellCache {
    /// The cells of generation `g`; `source` gives the focal files' `c_old` text, which a
    /// force-failure mutant's span needs (its function's body).
    pub(super) fn build(
        doc: &SessionDoc,
        g: usize,
        source: crate::engine::reach::Source<'_>,
    ) -> Self {
        let gen_ = &doc.generations[g];
        let width = gen_.mutants.len();
        let views = crate::engine::cell_view::GenerationCells::new(doc, g, source);
        let mut cells = Vec::with_capacity(gen_.tests.len() * width);
        let mut reached = Vec::with_capacity(gen_.tests.len() * width);
        if let Some(views) = &views {
            for t in &gen_.tests {
                let row = views.row(t);
                for m in &gen_.mutants {
                    let (view, reach) = row(m);
                    cells.push(view);
                    reached.push(reach);
                }
            }
        }
        let mutant_index: std::collections::HashMap<MutantId, usize> = gen_
            .mutants
            .iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), i))
            .collect();
        // Before the generation is evaluated it has no scores: the kills so far are read
        // from its cells, as fitness will count them (a live Grid shows them as they come).
        let killed_by = if gen_.scores.is_empty() {
            (0..width)
                .map(|j| {
                    (0..gen_.tests.len())
                        .filter(|i| {
                            cells
                                .get(i * width + j)
                                .is_some_and(|v| counted_kill(v, &doc.config))
                        })
                        .count()
                })
                .collect()
        } else {
            crate::engine::cell_view::killed_by(gen_, &gen_.mutants, &doc.config)
        };
        let pooled: Vec<Option<&crate::mutate::Mutant>> = gen_
            .mutants
            .iter()
            .map(|m| {
                doc.pool
                    .as_ref()
                    .and_then(|p| p.mutants.iter().find(|x| &x.id == m))
            })
            .collect();
        let kinds = pooled
            .iter()
            .map(|x| x.map_or(MutantKind::ForceFailure, |x| x.kind))
            .collect();
        let widened = pooled
            .iter()
            .map(|x| x.is_some_and(|x| x.scope.is_some()))
            .collect();
        Self {
            generation: g,
            width,
            cells,
            killed_by,
            kinds,
            widened,
            reached,
            fates: {
                let gate = doc.gate(g);
                gen_.tests.iter().map(|t| gate.fate(t)).collect()
            },
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

    /// Patches one cell (an execution just finished).
    pub(super) fn set(&mut self, test: &str, mutant: &str, view: CellView) {
        if let Some(i) = self.index(test, mutant) {
            self.cells[i] = view.unreached(self.reached.get(i).copied().flatten());
        }
    }

    fn index(&self, test: &str, mutant: &str) -> Option<usize> {
        let r = *self.test_index.get(test)?;
        let c = *self.mutant_index.get(mutant)?;
        Some(r * self.width + c)
    }
}

pub use crate::engine::Fate;

/// How far a screen's pane is scrolled: the first line shown, and (where lines do not wrap)
/// the first column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScrollPos {
    pub top: usize,
    pub left: usize,
}

/// What a frame measured of a screen's scrollable pane: its lines (after wrapping) and the
/// rows it had, its widest line and the columns it had, and (Pair) the line where the log
/// diff starts, which hunk jumps count from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Measure {
    pub lines: usize,
    pub rows: usize,
    pub width: usize,
    pub cols: usize,
    pub anchor: usize,
    /// The display lines that hold the active search's query, first to last.
    #[serde(default)]
    pub hits: Vec<usize>,
}

impl Measure {
    /// The last first line that still fills the pane.
    pub fn max_top(&self) -> usize {
        self.lines.saturating_sub(self.rows)
    }

    pub fn max_left(&self) -> usize {
        self.width.saturating_sub(self.cols)
    }
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

/// What the editor is open for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Editing {
    /// An edit of this test.
    Edit(TestId),
    /// A new test, under this file name.
    Add(String),
    /// The path of a test file to add (one line).
    Path,
}

impl Editing {
    pub fn title(&self) -> String {
        match self {
            Editing::Edit(t) => format!("edit {t}"),
            Editing::Add(name) => format!("add {name}"),
            Editing::Path => "the path of a test file to add, then Ctrl-s".into(),
        }
    }
}

/// The editor while it is open: what for, the text it opened with (to know whether Esc
/// throws changes away), and what the compile check of the last save said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorState {
    pub purpose: Editing,
    pub original: String,
    /// The saved text is being compiled by the run's interpreter.
    pub checking: bool,
    /// Why the last save was not accepted: the line (1-based; 0 when unknown) and the
    /// interpreter's message.
    pub error: Option<(usize, String)>,
}

impl EditorState {
    pub fn new(purpose: Editing, original: &str) -> Self {
        Self {
            purpose,
            original: original.to_owned(),
            checking: false,
            error: None,
        }
    }
}

/// A question the user answers with y or n before something that cannot be taken back
/// lightly happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub question: String,
    pub then: Confirmed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmed {
    /// Pin this test: the run ends with it when the gate is passed.
    Pin(TestId),
    /// Close the editor, throwing its changes away.
    DiscardEdit,
    /// Write over a file that exists.
    Overwrite {
        path: std::path::PathBuf,
        text: String,
    },
}

/// A one-line prompt at the bottom of the screen, and what its text is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub purpose: Asking,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asking {
    /// A search of the current screen (`/`).
    Search,
    /// A test or mutant to jump to (`g`; `gg` is the top).
    Goto,
    /// The file to write a test to (`y`).
    WriteTo(TestId),
}

impl Asking {
    pub fn label(&self) -> String {
        match self {
            Asking::Search => "/".into(),
            Asking::Goto => "go to (a test or mutant id; g again: the top): ".into(),
            Asking::WriteTo(t) => format!("write {t} to: "),
        }
    }
}

/// The active search of a screen: its query, and which hit was jumped to last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub screen: Screen,
    pub query: String,
    pub current: usize,
    /// Submitted on a text pane whose hits the next frame measures: jump to the first then.
    pub jump_pending: bool,
}

/// What a traced re-run of a pair showed: its outcomes and verdict, and which lines of the
/// mutated file ran on `c_old` and on the mutant (`None`: the executor cannot trace).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rerun {
    pub old: Outcome,
    pub mutant: Outcome,
    pub cell: Cell,
    pub lines: Option<(Vec<u32>, Vec<u32>)>,
}

/// A traced re-run of a pair: running (`None`), or what it showed.
#[derive(Debug, Clone, PartialEq)]
pub struct RerunState {
    pub test: TestId,
    pub mutant: MutantId,
    pub result: Option<Result<Rerun, String>>,
}

/// The log diff the Pair screen shows, and which logs it is of (`c_old`'s and the mutant's
/// log ids): made by the reducer when they change, never while drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct PairDiff {
    pub logs: (String, String),
    pub diff: LogDiff,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub doc: Arc<SessionDoc>,
    pub screen: Screen,
    /// Screens to go back to with Esc.
    pub history: Vec<Screen>,
    pub help: bool,
    /// The help's first line shown, and how many lines it has (they depend on the keymap).
    pub help_scroll: usize,
    pub help_len: usize,
    /// The user's keys for the acts a message points to.
    pub act_keys: ActKeys,
    /// No workbench behind the view (a finished or foreign session): nothing can run.
    pub read_only: bool,
    /// Opened from another screen (`the batch`, `the comparison (A)`): Esc on the first screen
    /// goes back to it.
    pub back_to: Option<String>,
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
    /// Where each screen's scrollable pane is scrolled to, and what the last frame measured
    /// of it (the reducer clamps to that: no screen scrolls past its end).
    pub scroll: [ScrollPos; 6],
    pub measured: [Option<Measure>; 6],
    /// The Pair screen's log diff.
    pub pair_diff: Option<PairDiff>,
    /// The selected row of the curate list.
    pub curate_row: usize,
    /// The test the Curate list's selection moves to once the session has recorded more
    /// than this many acts and lists it: the one acted on (an act moves tests between the
    /// gate's parents and the rest, and the next key must fall on the same test), or the one
    /// an edit or an add made.
    pub curate_follow: Option<(TestId, usize)>,
    pub model_call: usize,
    /// Recent messages (events, refusals), newest last.
    pub messages: Vec<String>,
    /// The message line: the newest message while it applies (on the screen it was said on,
    /// until the next act).
    pub notice: Option<String>,
    /// The last note the workbench sent (a call waiting in a provider batch, a resumed
    /// setting): it stays above later messages until the user's next act, so the gate's own
    /// message does not wipe what was said as the session opened.
    pub note: Option<String>,
    /// The last traced re-run of a pair (Why screen, Enter).
    pub rerun: Option<RerunState>,
    /// The editor, while it is open (its text is the app's widget).
    pub editor: Option<EditorState>,
    /// A question waiting for y or n.
    pub confirm: Option<Confirm>,
    /// A one-line prompt being typed (search, go to, write to).
    pub prompt: Option<Prompt>,
    /// The search the screen shows hits of.
    pub search: Option<Search>,
    /// The text of a test being written to a file, kept for an overwrite the user confirms.
    pub pending_write: Option<String>,
    /// A test of the user's just accepted: once its `c_old` run is in a snapshot, an error
    /// there is said.
    pub watch_new_test: Option<TestId>,
    /// An act the workbench reported, said once a snapshot holds it (so that what it says
    /// goes to crossover is what does), with the index in `SessionDoc::acts` from which it
    /// is looked for: an undo can equal an earlier one (same act undone in the same second),
    /// and that earlier one is not this act.
    pub announce_act: Option<(crate::engine::Act, usize)>,
    /// The `c_old` sources of the focal files, by repository-relative path, as read by an
    /// effect (drawing never reads a file); and which were asked for.
    pub sources: BTreeMap<String, String>,
    pub sources_asked: BTreeSet<String>,
    pub width: u16,
    pub height: u16,
    pub quit: bool,
    /// The shown generation's cells (see [`CellCache`]).
    pub cache: CellCache,
    /// (test, mutant) pairs running now, for the cells to show it.
    pub running_pairs: BTreeSet<(TestId, MutantId)>,
}

impl State {
    /// A state for `doc`; `help_len` is how many lines the help has (its keys come from the
    /// keymap).
    pub fn new(doc: Arc<SessionDoc>, read_only: bool, help_len: usize) -> Self {
        let scripted = doc
            .config
            .llm
            .as_deref()
            .is_some_and(|l| l.starts_with("scripted:"));
        // Nothing to see on the grid before generation 0: the timeline says what comes.
        let screen = if doc.generations.is_empty() {
            Screen::Timeline
        } else {
            Screen::Grid
        };
        let cache = match doc.generations.len().checked_sub(1) {
            Some(g) => CellCache::build(&doc, g, &|_| None),
            None => CellCache::default(),
        };
        Self {
            doc,
            screen,
            history: vec![],
            help: false,
            help_scroll: 0,
            help_len,
            act_keys: ActKeys::default(),
            read_only,
            back_to: None,
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
            scroll: Default::default(),
            measured: Default::default(),
            pair_diff: None,
            curate_row: 0,
            curate_follow: None,
            note: None,
            model_call: 0,
            messages: vec![],
            notice: None,
            rerun: None,
            editor: None,
            confirm: None,
            prompt: None,
            search: None,
            pending_write: None,
            watch_new_test: None,
            announce_act: None,
            sources: BTreeMap::new(),
            sources_asked: BTreeSet::new(),
            width: 80,
            height: 24,
            quit: false,
            cache,
            running_pairs: BTreeSet::new(),
        }
    }

    /// Where `screen`'s pane shows from, kept inside what the last frame measured.
    pub fn scroll_of(&self, screen: Screen) -> ScrollPos {
        let i = screen.index();
        let pos = self.scroll[i];
        match &self.measured[i] {
            Some(m) => ScrollPos {
                top: pos.top.min(m.max_top()),
                left: pos.left.min(m.max_left()),
            },
            None => pos,
        }
    }

    /// How many of the help's lines fit in its overlay (inside its border).
    pub fn help_rows(&self) -> usize {
        usize::from((self.height * HELP_HEIGHT_PCT / 100).saturating_sub(2))
    }

    /// A mutant of the pool.
    pub fn mutant(&self, id: &str) -> Option<&crate::mutate::Mutant> {
        self.doc.pool.as_ref()?.mutants.iter().find(|m| m.id == id)
    }

    /// The `c_old` source of a repository file, if an effect has read it.
    pub fn source(&self, file: &str) -> Option<String> {
        self.sources.get(file).cloned()
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
            // As selection ranks: the fitness rule's key (a test passing on c_old below
            // every failing one under the BRT rule), then kills. Stable: equal fitness keeps
            // the generation's order.
            let facts = crate::engine::selection::TestFacts::of_generation(&self.doc, gen_);
            let rule = self.doc.config.fitness;
            rows.sort_by_key(|&i| {
                std::cmp::Reverse(crate::engine::selection::fitness_key(&facts[i], rule))
            });
        }
        // Pool order, the order of `evootter mutants` and `show`.
        let in_gen: std::collections::HashMap<&MutantId, usize> = gen_
            .mutants
            .iter()
            .enumerate()
            .map(|(i, m)| (m, i))
            .collect();
        let fresh = self.cache.generation == g && self.cache.killed_by.len() == gen_.mutants.len();
        let (numbers, cols): (Vec<usize>, Vec<usize>) =
            self.doc
                .pool
                .iter()
                .flat_map(|p| p.mutants.iter())
                .filter_map(|m| in_gen.get(&m.id).map(|&i| (m, i)))
                .enumerate()
                .filter(|(_, (m, i))| match &self.filter {
                    ColumnFilter::All => true,
                    ColumnFilter::Survivors => {
                        if fresh {
                            self.cache.killed_by[*i] == 0
                        } else {
                            !gen_.scores.values().any(|s| {
                                !s.flaky && s.counted_kills(&self.doc.config).contains(&&m.id)
                            })
                        }
                    }
                    ColumnFilter::Kind(k) => m.kind == *k,
                    ColumnFilter::File(f) => &m.file == f,
                })
                .map(|(number, (_, i))| (number + 1, i))
                .unzip();
        Some(GridModel {
            generation: g,
            tests: rows.iter().map(|&i| gen_.tests[i].clone()).collect(),
            mutants: cols.iter().map(|&i| gen_.mutants[i].clone()).collect(),
            rows,
            cols,
            numbers,
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
        let flaky = crate::engine::cell_view::flaky_in(doc, g, test);
        CellView::of(old, run, flaky, None)
    }

    /// The Grid's selected test and mutant, each when there is one (a filter may show no
    /// column, and the rows are still there).
    pub fn grid_selection(&self) -> (Option<TestId>, Option<MutantId>) {
        let Some(grid) = self.grid() else {
            return (None, None);
        };
        (
            grid.tests.get(self.row).cloned(),
            grid.mutants.get(self.col).cloned(),
        )
    }

    /// The selected (test, mutant) of the grid.
    pub fn selected_pair(&self) -> Option<(TestId, MutantId)> {
        let grid = self.grid()?;
        let t = grid.tests.get(self.row)?.clone();
        let m = grid.mutants.get(self.col)?.clone();
        Some((t, m))
    }

    /// What became of `test` at generation `g`'s cut (read from the cell cache for the
    /// shown generation: the grid asks for every row of every frame).
    pub fn fate(&self, g: usize, test: &TestId) -> Fate {
        if self.cache.generation == g
            && let Some(&i) = self.cache.test_index.get(test)
            && let Some(f) = self.cache.fates.get(i)
        {
            return *f;
        }
        self.doc.gate(g).fate(test)
    }

    /// The generation Curate lists: the gate's while the run waits at one (the one its acts
    /// are on, whichever generation the Grid shows), else the shown one.
    pub fn curate_generation(&self) -> Option<usize> {
        self.at_gate().or_else(|| self.shown_generation())
    }

    /// The tests of the curate list: the gate's parents first, then the rest of the generation.
    pub fn curate_list(&self) -> Vec<TestId> {
        let Some(g) = self.curate_generation() else {
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

    /// The shown grid's column header height (`grid_col_header`), from the generation's
    /// mutants: a filter that shows fewer columns keeps the header as it was.
    pub fn grid_col_header(&self) -> u16 {
        let mutants = self
            .shown_generation()
            .map_or(0, |g| self.doc.generations[g].mutants.len());
        grid_col_header(mutants)
    }

    /// Rows and columns of grid cells the viewport holds (the frozen headers excluded).
    pub fn grid_viewport(&self) -> (usize, usize) {
        // Tab line, status and footer; the block's borders; the cell detail (2 lines); the
        // column header and the totals line. Columns: borders and the row header.
        let rows = usize::from(self.height)
            .saturating_sub(9 + usize::from(self.grid_col_header()))
            .max(1);
        let cols = usize::from(self.width).saturating_sub(14) / 2;
        (rows, cols.max(1))
    }

    /// The grid cell (row, column of the shown grid) under terminal column `x`, line `y`,
    /// if any: the layout of the Grid screen (tab line, the block's border, the column
    /// header above the cells, the row header left of them).
    pub fn cell_at(&self, x: u16, y: u16) -> Option<(usize, usize)> {
        let cx = x.checked_sub(1 + GRID_ROW_HEADER)?;
        let cy = y.checked_sub(2 + self.grid_col_header())?;
        let g = self.grid()?;
        let row = self.row_scroll + usize::from(cy);
        let col = self.col_scroll + usize::from(cx / GRID_CELL_WIDTH);
        (row < g.tests.len() && col < g.mutants.len()).then_some((row, col))
    }
}

/// Width of the grid's frozen row header: `t12 F  5 `.
pub const GRID_ROW_HEADER: u16 = 12;
/// Lines above the cells: the column number's digits, as many as the largest number has
/// (a 5-mutant grid has no blank rows for tens and hundreds), and the kind.
pub fn grid_col_header(columns: usize) -> u16 {
    let digits = match columns {
        0..10 => 1,
        10..100 => 2,
        _ => 3,
    };
    digits + 1
}
/// Whether a cell is a kill fitness counts under `config` (a flaky test's cells are not).
fn counted_kill(v: &CellView, config: &crate::engine::RunConfig) -> bool {
    match v {
        CellView::Killed(c) => c.is_kill() && c.uncounted(config).is_none(),
        CellView::Error => true,
        _ => false,
    }
}

/// Each cell is a glyph and a space.
pub const GRID_CELL_WIDTH: u16 = 2;

#[cfg(test)]
mod grid_header_tests {
    #[test]
    fn the_grid_header_has_a_row_per_digit_of_the_largest_column_number() {
        use super::grid_col_header;
        assert_eq!(grid_col_header(5), 2, "a digit and the kind");
        assert_eq!(grid_col_header(9), 2);
        assert_eq!(grid_col_header(10), 3);
        assert_eq!(grid_col_header(99), 3);
        assert_eq!(grid_col_header(640), 4);
        assert_eq!(
            grid_col_header(5000),
            4,
            "columns stop at 999 in the header"
        );
    }
}

#[cfg(test)]
mod killed_by_tests {
    /// A generation not evaluated yet counts its kills from its cells as fitness will: the
    /// same counts as its scores give once evaluated.
    #[test]
    fn kills_so_far_count_as_the_evaluated_ones() {
        let doc = crate::testkit::finished_session();
        for g in 0..doc.generations.len() {
            let evaluated = super::CellCache::build(&doc, g, &|_| None).killed_by;
            let mut live = doc.clone();
            live.generations[g].scores.clear();
            let so_far = super::CellCache::build(&live, g, &|_| None).killed_by;
            assert_eq!(so_far, evaluated, "generation {g}");
            assert!(evaluated.iter().any(|n| *n > 0), "the fixture kills");
        }
    }
}

#[cfg(test)]
pub(crate) mod fixture {
    pub use crate::testkit::finished_session;
}
