//! Selection (paper III-C, IV-A, IV-B): keep the better half of a generation.
//!
//! Every strategy first applies the BRT rule (unless `--fitness paper`): a test that passes on
//! `c_old` cannot be fail-to-pass, so it ranks below every test that fails or errors there.
//! `mutation` then ranks by kills; when kills cannot separate the cut, rescues break the tie,
//! then the Otter rules. Every decision records which strategy made it.

use super::config::{CutRule, FitnessRule, RunConfig, SelectionStrategy};
use super::focus::IssueFocus;
use super::session::{Generation, SessionDoc, Target, TestId, TieBreak};
use crate::exec::{FailureKind, Outcome};
use crate::rng::Rng;
use std::cmp::Ordering;

/// What selection may look at for one test: its `c_old` run and its kill-matrix row. Never the
/// golden patch.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFacts {
    pub id: TestId,
    pub old_outcome: Outcome,
    pub old_failure_kind: Option<FailureKind>,
    pub kills: usize,
    /// Of the kills, those that changed a status or the outcome (`TestScore::counted_status`).
    pub status_kills: usize,
    pub rescues: usize,
    /// The share of the repository's tests its best rescuer (a mutant of a focal function)
    /// keeps passing, in thousandths (`witness::best_rescue`; 0: no rescuer the witnesses
    /// could judge, or witnesses off).
    pub surrogate: u32,
    /// Length of the test source, the Otter selector's last tie-break.
    pub source_len: usize,
    /// How many of its literal values the issue names (`engine::focus`; all zero when the
    /// run does not weigh it).
    pub focus: IssueFocus,
    /// Its `c_old` run ran a test, and executed a line some mutant of the pool changes (true
    /// when its trace is unknown): a module whose import failed, or a test that fails in its
    /// own code before it calls the focal code, cannot reproduce a bug there.
    pub reaches_focal: bool,
}

impl TestFacts {
    pub fn passes_old(&self) -> bool {
        self.old_outcome == Outcome::Passed
    }

    /// Rescued by a surrogate fix the repository's tests do not object to: its best rescuer
    /// keeps every one of their tests that passed on `c_old` passing.
    pub fn plausible_fix(&self) -> bool {
        self.surrogate == 1000
    }

    /// What its rescues say, as a rank (higher is better): 2, rescued by a surrogate fix; 0,
    /// rescued only by mutants that break at least half of the repository's tests that
    /// judge them (what makes it pass contradicts them: its expectation is likely wrong);
    /// 1, neither (no rescuer, none judged, or one that breaks a few).
    pub fn rescue_rank(&self) -> u8 {
        match self.surrogate {
            1000 => 2,
            1..500 => 0,
            _ => 1,
        }
    }

    /// What selection sees of each test of generation `g`, in the generation's test order,
    /// from the session alone: so an explanation computed later from a saved session works
    /// from the very facts the cut was made on.
    pub fn of_generation(doc: &SessionDoc, g: &Generation) -> Vec<TestFacts> {
        // The mutants' lines, as far as the mutants themselves tell (a force-failure mutant's
        // span needs its file: drawing reads none, and the others suffice).
        let spans: Vec<super::reach::Span> =
            super::reach::spans(doc.pool.iter().flat_map(|p| p.mutants.iter()), |_| None)
                .into_values()
                .collect();
        // A module whose collection failed ran no test: what its import ran is not a test of
        // the focal code. Otherwise its trace says (unknown: it may reach anything).
        let reaches_focal = |t: &TestId| match doc.execution(t, &Target::Old) {
            Some(e) if !e.status_map.keys().any(|id| id.contains("::")) => {
                e.outcome == Outcome::Passed
            }
            Some(e) => match &e.lines {
                Some(lines) if !spans.is_empty() => {
                    spans.iter().any(|s| super::reach::reaches(lines, s))
                }
                _ => true,
            },
            None => true,
        };
        g.tests
            .iter()
            .map(|t| {
                let old = doc.execution(t, &Target::Old);
                // A flaky test's log differences are noise, not kills.
                let score = g.scores.get(t).filter(|s| !s.flaky);
                TestFacts {
                    id: t.clone(),
                    old_outcome: old.map_or(Outcome::Error, |e| e.outcome),
                    old_failure_kind: old.and_then(|e| e.failure_kind),
                    // Under the BRT rule a failing test's passing cases are passing tests:
                    // their kills do not count (`kill::Cell::KilledPassing`).
                    kills: score.map_or(0, |s| s.counted(&doc.config)),
                    status_kills: score.map_or(0, |s| s.counted_status(&doc.config)),
                    rescues: score.map_or(0, |s| s.rescues.len()),
                    surrogate: score
                        .filter(|_| doc.config.witnesses)
                        .and_then(|s| super::witness::best_rescue(doc, s))
                        .map_or(0, |(_, v)| v.permille()),
                    source_len: doc.tests.get(t).map_or(0, |c| c.source.len()),
                    reaches_focal: reaches_focal(t),
                    focus: match doc.tests.get(t) {
                        Some(c)
                            if doc.config.issue_focus && doc.config.fitness == FitnessRule::Brt =>
                        {
                            IssueFocus::of(&doc.inputs.issue_text, &c.source)
                        }
                        _ => IssueFocus::default(),
                    },
                }
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// All tests, best first.
    pub ranking: Vec<TestId>,
    pub selected: Vec<TestId>,
    pub selected_by: CutRule,
    pub fitness_decided: bool,
    pub tie_break: Option<TieBreak>,
}

#[derive(Debug, Clone, Copy)]
pub struct SelectionParams {
    pub strategy: SelectionStrategy,
    pub fitness: FitnessRule,
    pub rescue_tiebreak: bool,
    pub seed: u64,
    pub generation: usize,
}

impl SelectionParams {
    /// The parameters a run's configuration gives generation `generation`'s cut.
    pub fn of(cfg: &RunConfig, generation: usize) -> Self {
        Self {
            strategy: cfg.selection,
            fitness: cfg.fitness,
            rescue_tiebreak: cfg.rescue_tiebreak,
            seed: cfg.seed,
            generation,
        }
    }
}

/// The Otter selector's category (paper IV-A): assertion failures first, then other
/// failures, then errors (timeouts count as errors), then passes.
pub(crate) fn otter_category(f: &TestFacts) -> u8 {
    match (f.old_outcome, f.old_failure_kind) {
        (Outcome::Failed, Some(FailureKind::Assertion)) => 0,
        (Outcome::Failed, _) => 1,
        (Outcome::Error, _) | (Outcome::Timeout, _) => 2,
        (Outcome::Passed, _) => 3,
    }
}

pub(crate) fn otter_cmp(a: &TestFacts, b: &TestFacts) -> Ordering {
    otter_category(a)
        .cmp(&otter_category(b))
        .then(a.source_len.cmp(&b.source_len))
        .then(a.id.cmp(&b.id))
}

/// The BRT rule as a sort key: tests that fail or error on `c_old` first.
fn brt_rank(f: &TestFacts, rule: FitnessRule) -> u8 {
    match rule {
        FitnessRule::Brt | FitnessRule::BrtKills if f.passes_old() => 1,
        _ => 0,
    }
}

/// Fitness under `rule` as a sort key, higher is better. Under the BRT rule, in this order:
/// a test that passes on `c_old` ranks below every test that fails or errors there, whatever
/// it kills (it cannot be fail-to-pass); a failing test that never runs a line of the focal
/// code ranks below those that do; then a test rescued by a surrogate fix (a mutant of a
/// focal function under which every repository test that passed on `c_old` still passes,
/// `engine::witness`) ranks first; then a test whose literal values are more the issue's
/// (`engine::focus`, in quarters); then kills that change a status or the outcome; then
/// kills. The paper's rule is kills alone.
pub fn fitness_key(f: &TestFacts, rule: FitnessRule) -> Fitness {
    match rule {
        FitnessRule::Brt => (
            std::cmp::Reverse(brt_rank(f, rule)),
            f.reaches_focal,
            f.rescue_rank(),
            f.focus.level(),
            f.status_kills,
            f.kills,
        ),
        // The surrogate's share as it was ranked before (any judged rescuer above none), in
        // the place of the evidence that came after it.
        FitnessRule::BrtKills => (
            std::cmp::Reverse(brt_rank(f, rule)),
            true,
            0,
            0,
            0,
            f.surrogate as usize * 1_000_000 + f.kills,
        ),
        FitnessRule::Paper => (std::cmp::Reverse(0), true, 1, 0, 0, f.kills),
    }
}

/// A test's fitness as a sort key (`fitness_key`), higher is better.
pub type Fitness = (std::cmp::Reverse<u8>, bool, u8, u8, usize, usize);

/// Keep `keep` of `tests`.
pub fn select(tests: &[TestFacts], keep: usize, p: SelectionParams) -> Selection {
    let keep = keep.min(tests.len());
    match p.strategy {
        SelectionStrategy::Mutation => select_by_mutation(tests, keep, p),
        SelectionStrategy::Otter => {
            let mut v: Vec<&TestFacts> = tests.iter().collect();
            v.sort_by(|a, b| {
                brt_rank(a, p.fitness)
                    .cmp(&brt_rank(b, p.fitness))
                    .then(otter_cmp(a, b))
            });
            finish(v, keep, CutRule::Otter, false, None)
        }
        // The model's choice is made by the engine (it needs the logs); this ranking is what
        // stands when the model's reply cannot be used.
        SelectionStrategy::Llm => {
            let mut v: Vec<&TestFacts> = tests.iter().collect();
            v.sort_by(|a, b| otter_cmp(a, b));
            finish(v, keep, CutRule::Otter, false, None)
        }
        SelectionStrategy::Random => {
            let mut v: Vec<&TestFacts> = tests.iter().collect();
            v.sort_by(|a, b| a.id.cmp(&b.id));
            Rng::derived(p.seed, &format!("select-{}", p.generation)).shuffle(&mut v);
            // Stable: the shuffle order survives inside each BRT class.
            v.sort_by_key(|f| brt_rank(f, p.fitness));
            finish(v, keep, CutRule::Random, false, None)
        }
    }
}

fn finish(
    ranked: Vec<&TestFacts>,
    keep: usize,
    by: CutRule,
    fitness_decided: bool,
    tie_break: Option<TieBreak>,
) -> Selection {
    let ranking: Vec<TestId> = ranked.iter().map(|f| f.id.clone()).collect();
    Selection {
        selected: ranking[..keep].to_vec(),
        ranking,
        selected_by: by,
        fitness_decided,
        tie_break,
    }
}

fn select_by_mutation(tests: &[TestFacts], keep: usize, p: SelectionParams) -> Selection {
    let fitness = |f: &TestFacts| fitness_key(f, p.fitness);
    let mut v: Vec<&TestFacts> = tests.iter().collect();
    v.sort_by(|a, b| fitness(b).cmp(&fitness(a)).then(a.id.cmp(&b.id)));

    if keep == 0 || keep == v.len() || fitness(v[keep - 1]) != fitness(v[keep]) {
        return finish(v, keep, CutRule::Mutation, true, None);
    }

    // A tie across the cut: the tests sharing the boundary fitness compete for the slots left.
    let boundary = fitness(v[keep - 1]);
    let first = v.iter().position(|f| fitness(f) == boundary).unwrap_or(0);
    let last = v
        .iter()
        .rposition(|f| fitness(f) == boundary)
        .unwrap_or(v.len() - 1);
    let slots = keep - first;
    let tied: Vec<TestId> = v[first..=last].iter().map(|f| f.id.clone()).collect();

    let group = &mut v[first..=last];
    group.sort_by(|a, b| otter_cmp(a, b));
    let mut by = CutRule::Otter;
    if p.rescue_tiebreak {
        // Stable sort: Otter order survives among equal rescue counts.
        group.sort_by_key(|f| std::cmp::Reverse(f.rescues));
        if group[slots - 1].rescues != group[slots].rescues {
            by = CutRule::Rescues;
        }
    }
    let tie = TieBreak { tied, slots, by };
    finish(v, keep, by, false, Some(tie))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: &str, old: Outcome, kills: usize, rescues: usize, len: usize) -> TestFacts {
        TestFacts {
            id: id.into(),
            old_outcome: old,
            old_failure_kind: (old == Outcome::Failed).then_some(FailureKind::Assertion),
            kills,
            status_kills: 0,
            rescues,
            surrogate: 0,
            source_len: len,
            focus: IssueFocus::default(),
            reaches_focal: true,
        }
    }

    fn params(strategy: SelectionStrategy, fitness: FitnessRule) -> SelectionParams {
        SelectionParams {
            strategy,
            fitness,
            rescue_tiebreak: true,
            seed: 1,
            generation: 0,
        }
    }

    use Outcome::*;

    #[test]
    fn mutation_keeps_most_kills_when_fitness_separates() {
        let tests = vec![
            t("a", Failed, 1, 0, 10),
            t("b", Failed, 4, 0, 10),
            t("c", Error, 3, 0, 10),
            t("d", Failed, 0, 0, 10),
        ];
        let s = select(
            &tests,
            2,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["b", "c"]);
        assert_eq!(s.selected_by, CutRule::Mutation);
        assert!(s.fitness_decided);
        assert!(s.tie_break.is_none());
    }

    #[test]
    fn brt_rule_puts_passing_tests_last_but_paper_rule_does_not() {
        let tests = vec![
            t("pass_many", Passed, 5, 0, 10),
            t("fail_few", Failed, 1, 0, 10),
            t("fail_none", Error, 0, 0, 10),
            t("pass_few", Passed, 2, 0, 10),
        ];
        let brt = select(
            &tests,
            2,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(brt.selected, vec!["fail_few", "fail_none"]);
        let paper = select(
            &tests,
            2,
            params(SelectionStrategy::Mutation, FitnessRule::Paper),
        );
        assert_eq!(paper.selected, vec!["pass_many", "pass_few"]);
    }

    #[test]
    fn a_surrogate_fix_that_keeps_every_repository_test_ranks_a_failing_test_before_kills() {
        // pagekit's last cut: the wrong-expectation test kills one mutant more; the F2P one
        // is rescued by a mutant keeping all of the repository's tests, the wrong one only by
        // mutants breaking some of them.
        let mut f2p = t("f2p", Failed, 25, 1, 10);
        f2p.surrogate = 1000;
        let mut wrong = t("wrong", Failed, 26, 2, 10);
        wrong.surrogate = 555;
        let passing = t("pass", Passed, 40, 0, 10);
        let tests = vec![wrong.clone(), f2p.clone(), passing];
        let s = select(
            &tests,
            1,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["f2p"]);
        assert!(s.fitness_decided);
        // A rescuer that breaks a repository test is no surrogate fix: the kills decide.
        let (mut f2p0, wrong0) = (f2p, wrong);
        f2p0.surrogate = 944;
        let s = select(
            &[wrong0, f2p0],
            1,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["wrong"]);
        // The paper's fitness is kills alone.
        let s = select(
            &tests,
            1,
            params(SelectionStrategy::Mutation, FitnessRule::Paper),
        );
        assert_eq!(s.selected, vec!["pass"]);
    }

    #[test]
    fn the_issues_values_rank_before_kills_and_a_test_that_never_gets_to_the_focal_code_last() {
        let mut broad = t("broad", Failed, 18, 0, 10);
        broad.focus = IssueFocus { named: 4, of: 13 };
        let mut focused = t("focused", Failed, 9, 0, 10);
        focused.focus = IssueFocus { named: 3, of: 3 };
        let mut import_error = t("import_error", Error, 0, 0, 10);
        import_error.focus = IssueFocus { named: 2, of: 2 };
        import_error.reaches_focal = false;
        let s = select(
            &[broad.clone(), focused.clone(), import_error],
            2,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.ranking, vec!["focused", "broad", "import_error"]);
        assert!(s.fitness_decided);
        // Of one level (three quarters and more), kills decide.
        broad.focus = IssueFocus { named: 10, of: 13 };
        let s = select(
            &[broad, focused],
            1,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["broad"]);
    }

    #[test]
    fn kills_that_change_what_fails_rank_before_kills_that_only_change_the_message() {
        // A broad test with a wrong expectation prints another value under each of its 12
        // mutants; the focused one's failure turns into another under 4 of its 5.
        let broad = t("broad", Failed, 12, 0, 10);
        let mut focused = t("focused", Failed, 5, 0, 10);
        focused.status_kills = 4;
        let s = select(
            &[broad.clone(), focused.clone()],
            1,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["focused"]);
        assert!(s.fitness_decided);
        // The paper's rule counts every kill alike.
        let s = select(
            &[broad, focused],
            1,
            params(SelectionStrategy::Mutation, FitnessRule::Paper),
        );
        assert_eq!(s.selected, vec!["broad"]);
    }

    #[test]
    fn tie_across_cut_goes_to_rescues_then_otter() {
        let tests = vec![
            t("a", Failed, 2, 0, 50),
            t("b", Failed, 2, 1, 90),
            t("c", Failed, 2, 0, 20),
            t("d", Failed, 5, 0, 10),
        ];
        let s = select(
            &tests,
            2,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["d", "b"]);
        assert_eq!(s.selected_by, CutRule::Rescues);
        assert!(!s.fitness_decided);
        let tie = s.tie_break.unwrap();
        assert_eq!(tie.slots, 1);
        assert_eq!(tie.tied.len(), 3);

        let mut p = params(SelectionStrategy::Mutation, FitnessRule::Brt);
        p.rescue_tiebreak = false;
        let s = select(&tests, 2, p);
        // Otter: all assertion failures, so the shorter test wins.
        assert_eq!(s.selected, vec!["d", "c"]);
        assert_eq!(s.selected_by, CutRule::Otter);
    }

    #[test]
    fn all_equal_fitness_falls_back_to_otter_categories() {
        let mut crash = t("crash", Failed, 0, 0, 10);
        crash.old_failure_kind = Some(FailureKind::Other);
        let tests = vec![
            crash,
            t("err", Error, 0, 0, 5),
            t("assert", Failed, 0, 0, 30),
            t("pass", Passed, 0, 0, 1),
        ];
        let s = select(
            &tests,
            2,
            params(SelectionStrategy::Mutation, FitnessRule::Brt),
        );
        assert_eq!(s.selected, vec!["assert", "crash"]);
        assert_eq!(s.selected_by, CutRule::Otter);
        assert!(!s.fitness_decided);
    }

    #[test]
    fn otter_and_random_strategies() {
        let tests = vec![
            t("p", Passed, 9, 0, 1),
            t("e", Error, 0, 0, 1),
            t("f1", Failed, 0, 0, 40),
            t("f2", Failed, 0, 0, 20),
        ];
        let s = select(
            &tests,
            2,
            params(SelectionStrategy::Otter, FitnessRule::Brt),
        );
        assert_eq!(s.ranking, vec!["f2", "f1", "e", "p"]);
        assert_eq!(s.selected_by, CutRule::Otter);

        let r1 = select(
            &tests,
            2,
            params(SelectionStrategy::Random, FitnessRule::Brt),
        );
        let r2 = select(
            &tests,
            2,
            params(SelectionStrategy::Random, FitnessRule::Brt),
        );
        assert_eq!(r1, r2, "random selection is seeded");
        assert_eq!(r1.ranking.last().unwrap(), "p", "passing test ranks last");
        let seeds: std::collections::BTreeSet<Vec<TestId>> = (0..20)
            .map(|seed| {
                let mut p = params(SelectionStrategy::Random, FitnessRule::Brt);
                p.seed = seed;
                select(&tests, 2, p).selected
            })
            .collect();
        assert!(seeds.len() > 1, "different seeds choose differently");
    }
}
