//! What one cell of the test x mutant grid shows, decided once for every form that shows it:
//! the TUI's Grid, Pair and Why screens, `show`'s matrices and pairs, and the mutation report.
//! The kill decision ([`Cell`]) is what selection counts; the view adds what a reader needs
//! to trust it: a flaky test's cells prove nothing, a kill by an error is not a behaviour
//! change, and a survivor whose test never runs the mutated lines could not have been killed.
//! [`KillMatrix`] is one generation's grid of them, as `show` prints it.

use super::kill::{self, Cell};
use super::reach::{self, Source, Span};
use super::session::{Execution, Generation, MutantId, SessionDoc, Target, TestId};
use crate::exec::Outcome;
use std::collections::{BTreeMap, HashMap, HashSet};

/// One cell of the grid as shown: the kill-matrix cell, or what the pair's execution is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellView {
    Killed(Cell),
    /// The mutant run errored where `c_old` did not.
    Error,
    /// The test's two `c_old` logs differ: its cells prove nothing.
    Flaky,
    /// Survived, and the test never executes the mutant's lines on `c_old` (its traced run):
    /// no run of it could kill the mutant (Stryker's NoCoverage).
    NotReached,
    Running,
    Pending,
}

impl CellView {
    /// The view of a pair that ran: `flaky` when the test's `c_old` logs differ, `reached`
    /// whether its `c_old` run executes the mutant's lines (`None`: not known).
    pub fn of(old: &Execution, run: &Execution, flaky: bool, reached: Option<bool>) -> Self {
        if flaky {
            return CellView::Flaky;
        }
        let cell = kill::cell(old, run);
        if cell.is_kill() && run.outcome == Outcome::Error && old.outcome != Outcome::Error {
            return CellView::Error;
        }
        CellView::Killed(cell).unreached(reached)
    }

    /// A survivor whose test is known not to run the mutant's lines is shown as not reached.
    pub fn unreached(self, reached: Option<bool>) -> Self {
        match (self, reached) {
            (CellView::Killed(Cell::Survived), Some(false)) => CellView::NotReached,
            _ => self,
        }
    }

    /// A glyph that tells the kinds apart without colour (ASCII only: every terminal draws
    /// it one column wide).
    pub fn glyph(self) -> char {
        match self {
            CellView::Killed(Cell::KilledStatus) => 'K',
            CellView::Killed(Cell::KilledLog) => 'k',
            CellView::Killed(Cell::KilledPassing) => 'p',
            CellView::Killed(Cell::Rescued) => 'R',
            CellView::Killed(Cell::TimedOut) => 'T',
            CellView::Killed(Cell::Survived) => '.',
            CellView::Error => 'E',
            CellView::Flaky => '~',
            CellView::NotReached => '_',
            CellView::Running => '*',
            CellView::Pending => '-',
        }
    }

    /// The view in a few words (legends, the Grid's cell line).
    pub fn name(self) -> &'static str {
        match self {
            CellView::Killed(Cell::KilledStatus) => "killed (status changed)",
            CellView::Killed(Cell::KilledLog) => "killed (log only)",
            CellView::Killed(Cell::KilledPassing) => "killed in passing cases only (not counted)",
            CellView::Killed(Cell::Rescued) => "rescued (passes on the mutant)",
            CellView::Killed(Cell::TimedOut) => "timed out",
            CellView::Killed(Cell::Survived) => "survived",
            CellView::Error => "error",
            CellView::Flaky => "flaky",
            CellView::NotReached => "not reached (survived: never runs the mutated lines)",
            CellView::Running => "running",
            CellView::Pending => "pending",
        }
    }

    /// What the view means, in a few words after the outcomes on the pair's verdict line
    /// (`c_old Failed, mutant Passed: ...`), short enough for 80 columns: the Why screen and
    /// `show`'s reasons say more.
    pub fn verdict(self) -> &'static str {
        match self {
            CellView::Killed(c) => c.verdict(),
            CellView::Error => "killed by an error (c_old did not error)",
            CellView::Flaky => "flaky: two c_old logs differ, kills don't count",
            CellView::NotReached => "not reached: the mutated lines never run",
            CellView::Running => "running now",
            CellView::Pending => "not run yet",
        }
    }

    /// Every view, in the order legends list them.
    pub const LEGEND: [CellView; 11] = [
        CellView::Killed(Cell::KilledStatus),
        CellView::Killed(Cell::KilledLog),
        CellView::Killed(Cell::KilledPassing),
        CellView::Killed(Cell::Rescued),
        CellView::Killed(Cell::Survived),
        CellView::NotReached,
        CellView::Error,
        CellView::Killed(Cell::TimedOut),
        CellView::Flaky,
        CellView::Pending,
        CellView::Running,
    ];
}

/// How many of generation `gen_`'s tests kill each of `mutants` by the kills fitness counts
/// (flaky tests' kills, `p` cells and rescues under the BRT rule do not count): the Grid's
/// `killed by` row and `show`'s.
pub fn killed_by(
    gen_: &Generation,
    mutants: &[MutantId],
    config: &super::config::RunConfig,
) -> Vec<usize> {
    let index: HashMap<&MutantId, usize> =
        mutants.iter().enumerate().map(|(i, m)| (m, i)).collect();
    let mut counts = vec![0; mutants.len()];
    for sc in gen_.scores.values().filter(|s| !s.flaky) {
        for k in sc.counted_kills(config) {
            if let Some(&i) = index.get(k) {
                counts[i] += 1;
            }
        }
    }
    counts
}

/// Whether generation `g` found `test` flaky (its two `c_old` logs differ).
pub fn flaky_in(doc: &SessionDoc, g: usize, test: &TestId) -> bool {
    doc.generations
        .get(g)
        .and_then(|gen_| gen_.scores.get(test))
        .is_some_and(|s| s.flaky)
}

/// The cells of one generation as every view shows them: its mutants' spans found once, then
/// a row per test. The Grid's cell cache, [`KillMatrix`] and `show`'s pair read cells here.
pub struct GenerationCells<'d> {
    doc: &'d SessionDoc,
    generation: usize,
    spans: BTreeMap<MutantId, Span>,
}

impl<'d> GenerationCells<'d> {
    /// Generation `generation`'s cells; `source` gives the focal files' `c_old` text (a
    /// force-failure mutant's span is its function's body).
    pub fn new(doc: &'d SessionDoc, generation: usize, source: Source<'_>) -> Option<Self> {
        let sample: HashSet<&MutantId> = doc.generations.get(generation)?.mutants.iter().collect();
        let spans = reach::spans(
            doc.pool
                .iter()
                .flat_map(|p| p.mutants.iter())
                .filter(|m| sample.contains(&m.id)),
            source,
        );
        Some(Self {
            doc,
            generation,
            spans,
        })
    }

    /// Test `t`'s row: for a mutant, what its cell shows (`Pending` where the pair has not
    /// run) and whether the test's `c_old` run executes the mutant's lines (`None`: unknown).
    pub fn row(&self, t: &TestId) -> impl Fn(&MutantId) -> (CellView, Option<bool>) + '_ {
        let doc = self.doc;
        let old = doc.execution(t, &Target::Old);
        let flaky = flaky_in(doc, self.generation, t);
        let lines = reach::test_lines(doc, t);
        let hash = doc.tests.get(t).map_or("", |c| c.hash.as_str());
        move |m| {
            let reached = lines
                .zip(self.spans.get(m))
                .map(|(l, span)| reach::reaches(l, span));
            let run = doc
                .executions
                .get(&super::exec_key(hash, &Target::Mutant(m.clone())));
            let view = match old.zip(run) {
                Some((old, run)) => CellView::of(old, run, flaky, reached),
                None => CellView::Pending,
            };
            (view, reached)
        }
    }
}

/// One generation's test x mutant grid, as `show` prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct KillMatrix {
    pub generation: usize,
    pub tests: Vec<TestId>,
    /// The generation's sample in pool order (the order `evootter mutants` lists the pool),
    /// not sampling order: a mutant keeps its place relative to the others in every
    /// generation, and a reader can find it in that list.
    pub mutants: Vec<MutantId>,
    /// `cells[i][j]`: test i on mutant j, as every view shows it (`Pending` where the
    /// execution has not run yet).
    pub cells: Vec<Vec<CellView>>,
    /// How many tests kill each mutant ([`killed_by`]).
    pub killed_by: Vec<usize>,
}

impl KillMatrix {
    /// Generation `generation`'s grid; `source` as for [`GenerationCells::new`].
    pub fn of(doc: &SessionDoc, generation: usize, source: Source<'_>) -> Option<Self> {
        let g = doc.generations.get(generation)?;
        let sample: HashSet<&MutantId> = g.mutants.iter().collect();
        let in_pool: Vec<&MutantId> = doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter().map(|m| &m.id))
            .collect();
        let mut mutants: Vec<MutantId> = in_pool
            .iter()
            .filter(|id| sample.contains(*id))
            .map(|id| (*id).clone())
            .collect();
        // A sampled id missing from the pool would be a damaged session; show it anyway.
        mutants.extend(g.mutants.iter().filter(|m| !in_pool.contains(m)).cloned());
        let cells = GenerationCells::new(doc, generation, source)?;
        let rows = g
            .tests
            .iter()
            .map(|t| {
                let row = cells.row(t);
                mutants.iter().map(|m| row(m).0).collect()
            })
            .collect();
        Some(Self {
            generation,
            tests: g.tests.clone(),
            killed_by: killed_by(g, &mutants, &doc.config),
            mutants,
            cells: rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outcome: Outcome, log: &str) -> Execution {
        let mut e = crate::engine::session::fixtures::old_run("h", outcome, None, None);
        e.normalized_log = log.into();
        e
    }

    /// The `killed by` row counts what fitness counts: a kill in passing cases only (a `p`
    /// cell) counts under the paper's rule, not under the BRT rule.
    #[test]
    fn killed_by_counts_the_kills_fitness_counts() {
        let (a, b) = ("ma".to_string(), "mb".to_string());
        let score = crate::engine::TestScore {
            old_outcome: Outcome::Failed,
            kills: vec![a.clone(), b.clone()],
            status_kills: vec![],
            passing_kills: vec![b.clone()],
            rescues: vec![],
            timeouts: vec![],
            flaky: false,
        };
        let mut g = crate::testkit::finished_session().generations[0].clone();
        g.scores = [("t1".to_string(), score)].into();
        let mutants = [a, b];
        let brt = crate::testkit::config(crate::engine::SelectionStrategy::Mutation);
        assert_eq!(killed_by(&g, &mutants, &brt), [1, 0]);
        assert!(Cell::KilledPassing.uncounted(&brt).is_some());
        let paper = crate::engine::RunConfig {
            fitness: crate::engine::FitnessRule::Paper,
            ..brt
        };
        assert_eq!(killed_by(&g, &mutants, &paper), [1, 1]);
        assert_eq!(Cell::KilledPassing.uncounted(&paper), None);
    }

    #[test]
    fn a_survivor_is_not_reached_only_when_the_trace_says_so() {
        let old = run(Outcome::Failed, "a");
        let same = run(Outcome::Failed, "a");
        let survived = CellView::Killed(Cell::Survived);
        assert_eq!(CellView::of(&old, &same, false, None), survived);
        assert_eq!(CellView::of(&old, &same, false, Some(true)), survived);
        assert_eq!(
            CellView::of(&old, &same, false, Some(false)),
            CellView::NotReached
        );
        // A kill stays a kill whatever the trace says: the logs differ.
        let other = run(Outcome::Failed, "b");
        assert_eq!(
            CellView::of(&old, &other, false, Some(false)),
            CellView::Killed(Cell::KilledLog)
        );
    }

    #[test]
    fn flaky_wins_and_an_error_kill_is_an_error() {
        let old = run(Outcome::Failed, "a");
        let errored = run(Outcome::Error, "b");
        assert_eq!(CellView::of(&old, &errored, false, None), CellView::Error);
        assert_eq!(CellView::of(&old, &errored, true, None), CellView::Flaky);
        let old_error = run(Outcome::Error, "a");
        assert_eq!(
            CellView::of(&old_error, &errored, false, None),
            CellView::Killed(Cell::KilledLog)
        );
    }

    #[test]
    fn every_view_has_its_own_glyph() {
        let glyphs: std::collections::BTreeSet<char> =
            CellView::LEGEND.iter().map(|v| v.glyph()).collect();
        assert_eq!(glyphs.len(), CellView::LEGEND.len());
    }
}
