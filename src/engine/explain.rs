//! Why a generation's cut went as it did, in words a person can check against the kill matrix:
//! which rule decided it (fitness, rescues, the Otter rules, the model, chance), and the facts
//! that would otherwise have to be dug out of the matrix (the test with the most kills dropped
//! because it passes on `c_old`, a flaky test whose kills were not counted).
//!
//! Computed after the fact from the saved session alone, with nothing re-run, so it explains
//! old sessions too. It returns data and lines and never prints: `show` prints the lines, the
//! TUI can draw from the data.

use super::config::{CutRule, FitnessRule, SelectionStrategy};
use super::gate::{Fate, Gate};
use super::selection::{TestFacts, otter_category, otter_cmp};
use super::session::{Generation, MutantId, SessionDoc, Target, TestId, TieBreak};
use super::witness::{self, Verdict};
use crate::exec::{FailureKind, Outcome};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The rule that decided who was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Kill counts separated the cut (with the BRT rule, tests passing on `c_old` rank below
    /// the rest first).
    Fitness,
    /// Fitness tied at the cut and rescue counts separated the tied tests.
    Rescues,
    /// The Otter rules: category on `c_old`, then shorter source, then id.
    OtterRules,
    /// The model chose.
    Model,
    /// The seeded random strategy.
    Random,
}

/// A fact about one cut that the kill matrix alone does not make obvious.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// Dropped though its kills alone would have kept it: it passes on `c_old` (BRT rule).
    /// `most`: no test of the generation has more kills.
    PassesOnOld {
        test: TestId,
        kills: usize,
        most: bool,
        /// It is the only test of the generation that passes on `c_old`.
        alone: bool,
    },
    /// Tests that pass on `c_old` and were dropped under a strategy that does not count kills:
    /// the BRT rule put them below every test that fails there.
    PassingRankedLast { tests: Vec<TestId> },
    /// Kept though it passes on `c_old`, over a test that fails there: the paper's fitness rule
    /// counts kills only.
    KeptPassing { test: TestId },
    /// Its two `c_old` logs differ, so its log differences on mutants (`ignored` of them) were
    /// not counted as kills.
    Flaky { test: TestId, ignored: usize },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CutExplanation {
    pub generation: usize,
    pub strategy: SelectionStrategy,
    pub fitness: FitnessRule,
    /// How many tests the generation had before the cut.
    pub before: usize,
    /// The kept tests, in the order selection kept them.
    pub kept: Vec<TestId>,
    /// The dropped tests, best first.
    pub dropped: Vec<TestId>,
    pub decided_by: Rule,
    /// The tests tied on fitness across the cut and how many places they competed for.
    pub tie: Option<TieBreak>,
    pub facts: Vec<Fact>,
    /// A headline naming the rule that decided, then a line per tie and per fact.
    pub lines: Vec<String>,
}

/// Explain the cut of `generation`; `None` when it does not exist or has not been cut yet.
pub fn explain_cut(doc: &SessionDoc, generation: usize) -> Option<CutExplanation> {
    let g = doc.generations.get(generation)?;
    if g.selected.is_empty() {
        return None;
    }
    let cut = Cut::new(doc, g);
    let strategy = doc.config.selection;
    let (decided_by, mut lines) = match strategy {
        SelectionStrategy::Mutation => cut.by_mutation(),
        SelectionStrategy::Otter => cut.by_otter(),
        SelectionStrategy::Random => cut.by_random(),
        SelectionStrategy::Llm => cut.by_llm(),
    };
    let facts = cut.facts();
    lines.extend(facts.iter().map(|f| cut.fact_line(f)));
    lines.extend(cut.gate.curation_line());
    Some(CutExplanation {
        generation,
        strategy,
        fitness: doc.config.fitness,
        before: cut.gate.ranked,
        kept: cut.kept.clone(),
        dropped: cut.dropped.clone(),
        decided_by,
        tie: g.tie_break.clone(),
        facts,
        lines,
    })
}

/// One generation's cut with the facts selection saw.
struct Cut<'a> {
    doc: &'a SessionDoc,
    g: &'a Generation,
    facts: BTreeMap<TestId, TestFacts>,
    kept: Vec<TestId>,
    dropped: Vec<TestId>,
    /// What the user's acts made of the cut.
    gate: Gate,
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl<'a> Cut<'a> {
    fn new(doc: &'a SessionDoc, g: &'a Generation) -> Self {
        let facts = TestFacts::of_generation(doc, g)
            .into_iter()
            .map(|f| (f.id.clone(), f))
            .collect();
        let gate = doc.gate(g.index);
        // The stored ranking is the order selection left; a test missing from it (an older
        // session) goes last, in generation order. The user's own tests came after the cut:
        // selection dropped none of them.
        let mut order: Vec<TestId> = g.ranking.clone();
        let unranked: Vec<TestId> = g
            .tests
            .iter()
            .filter(|t| !g.ranking.contains(t) && !gate.yours.contains(t))
            .cloned()
            .collect();
        order.extend(unranked);
        let dropped = order
            .into_iter()
            .filter(|t| !g.selected.contains(t))
            .collect();
        Self {
            doc,
            g,
            facts,
            kept: g.selected.clone(),
            dropped,
            gate,
        }
    }

    fn fact(&self, t: &TestId) -> Option<&TestFacts> {
        self.facts.get(t)
    }

    fn kills(&self, t: &TestId) -> usize {
        self.fact(t).map_or(0, |f| f.kills)
    }

    fn passes(&self, t: &TestId) -> bool {
        self.fact(t).is_some_and(TestFacts::passes_old)
    }

    fn flaky(&self, t: &TestId) -> bool {
        self.g.scores.get(t).is_some_and(|s| s.flaky)
    }

    fn brt(&self) -> bool {
        self.doc.config.fitness.is_brt()
    }

    /// The test's best rescuer as selection weighed it (`witness::best_rescue`), when rescues
    /// rank tests (the BRT rule, witnesses on).
    fn surrogate(&self, t: &TestId) -> Option<(MutantId, Verdict)> {
        if !(self.brt() && self.doc.config.witnesses) {
            return None;
        }
        witness::best_rescue(self.doc, self.g.scores.get(t)?)
    }

    /// `13 of 15`: how many of the repository's tests rescuer `m` keeps passing (`at most`
    /// when a witness run stopped at the first it broke and counts the rest as kept).
    fn kept(&self, m: &MutantId, v: &Verdict) -> String {
        let bound = if witness::broken_by(self.doc, m).1 {
            "at most "
        } else {
            ""
        };
        format!("{bound}{} of {}", v.kept, v.of)
    }

    /// The fitness rule as `--fitness` names it.
    fn rule_name(&self) -> &'static str {
        match self.doc.config.fitness {
            FitnessRule::Brt => "brt",
            FitnessRule::BrtKills => "brt-kills",
            FitnessRule::Paper => "paper",
        }
    }

    /// Which tests a judged rescue ranks, by which mutant and how plausible a fix it is.
    fn surrogate_line(&self) -> Option<String> {
        let each: Vec<String> = self
            .g
            .tests
            .iter()
            .filter_map(|t| {
                let (m, v) = self.surrogate(t)?;
                Some(format!("{t} by {m} ({} kept)", self.kept(&m, &v)))
            })
            .collect();
        if each.is_empty() {
            return None;
        }
        Some(format!(
            "rescues judged by the repository's tests: {}; among the tests failing on c_old, \
             one rescued by a mutant that keeps every repository test passing ranks first, one \
             rescued only by mutants that break half or more of them last, and other rescues \
             weigh nothing",
            each.join(", ")
        ))
    }

    fn cut_words(&self) -> String {
        format!("cut {} -> {}", self.gate.ranked, self.kept.len())
    }

    /// `t1 (6 kills)` for the first of a list, `t3 (5)` after it, with what else ranks it.
    fn with_kills(&self, t: &TestId, first: bool) -> String {
        let k = self.kills(t);
        let mut notes = vec![if first {
            plural(k, "kill")
        } else {
            k.to_string()
        }];
        if self.flaky(t) {
            notes.push("flaky".into());
        }
        if self.brt() && self.passes(t) {
            notes.push("passes on c_old".into());
        }
        if let Some((m, v)) = self.surrogate(t) {
            // Rescued: the test passes on that mutant, which may be a fix; how plausible one,
            // the repository's tests say.
            notes.push(format!(
                "rescued: passes on {m}, under which {} repository tests still pass",
                self.kept(&m, &v)
            ));
        }
        if let Some(f) = self
            .fact(t)
            .filter(|f| self.doc.config.issue_focus && f.focus.of > 0)
        {
            notes.push(format!("{}/{} issue values", f.focus.named, f.focus.of));
        }
        // What the user did to a test at the gate, so the cut never reads as keeping a test
        // that does not go on.
        match self.gate.fate(t) {
            Fate::Vetoed => notes.push("vetoed by you".into()),
            Fate::Pinned => notes.push("pinned by you".into()),
            Fate::Edited => {
                if let Some(into) = self.gate.edited_into(t) {
                    notes.push(format!("edited by you into {into}"))
                }
            }
            Fate::Repaired => {
                if let Some(into) = self.gate.edited_into(t) {
                    notes.push(format!("repaired by the model into {into}, as you asked"))
                }
            }
            _ => {}
        }
        format!("{t} ({})", notes.join(", "))
    }

    fn kill_list(&self, ts: &[TestId]) -> String {
        ts.iter()
            .enumerate()
            .map(|(i, t)| self.with_kills(t, i == 0))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// How a test did on `c_old`, in the Otter selector's terms.
    fn category_words(&self, t: &TestId) -> String {
        let Some(f) = self.fact(t) else {
            return "has no c_old run".into();
        };
        let exception = self
            .doc
            .execution(t, &Target::Old)
            .and_then(|e| e.exception.clone());
        match (f.old_outcome, f.old_failure_kind, exception) {
            (Outcome::Failed, Some(FailureKind::Assertion), _) => "fails on an assertion".into(),
            (Outcome::Failed, _, Some(e)) => format!("fails with {e}"),
            (Outcome::Failed, _, None) => "fails, not on an assertion".into(),
            (Outcome::Error, _, Some(e)) => format!("errors ({e})"),
            (Outcome::Error, _, None) => "errors".into(),
            (Outcome::Timeout, _, _) => "times out".into(),
            (Outcome::Passed, _, _) => "passes".into(),
        }
    }

    /// Why the Otter rules put `a` above `b`.
    fn otter_reason(&self, a: &TestId, b: &TestId) -> String {
        let (Some(fa), Some(fb)) = (self.fact(a), self.fact(b)) else {
            return format!("{a} before {b}");
        };
        if otter_category(fa) != otter_category(fb) {
            format!(
                "{a} {}, {b} {}",
                self.category_words(a),
                self.category_words(b)
            )
        } else if fa.source_len != fb.source_len {
            format!(
                "same category: the shorter test, {a}, {} vs {} bytes",
                fa.source_len, fb.source_len
            )
        } else {
            format!("same category and length: the first id, {a}")
        }
    }

    fn kept_and_dropped(&self, best_only: bool) -> String {
        let kept = self.kept.join(", ");
        match self.dropped.first() {
            None => format!("kept {kept}"),
            Some(d) if best_only => format!("kept {kept}; best dropped {d}"),
            Some(_) => format!("kept {kept}; dropped {}", self.dropped.join(", ")),
        }
    }

    // ---- One explanation per strategy -----------------------------------------------------

    fn by_mutation(&self) -> (Rule, Vec<String>) {
        let rule = match self.g.selected_by {
            Some(CutRule::Rescues) => Rule::Rescues,
            Some(CutRule::Otter) => Rule::OtterRules,
            Some(CutRule::Llm) => Rule::Model,
            Some(CutRule::Mutation) => Rule::Fitness,
            _ if self.g.fitness_decided == Some(false) => Rule::OtterRules,
            _ => Rule::Fitness,
        };
        let how = match rule {
            Rule::Fitness => "fitness",
            Rule::Rescues => "rescues (fitness tied at the cut)",
            Rule::OtterRules => "the Otter rules (fitness tied at the cut)",
            Rule::Model => "the model (fitness tied at the cut)",
            Rule::Random => "chance",
        };
        let mut head = format!(
            "{} decided by {how}: kept {}",
            self.cut_words(),
            self.kill_list(&self.kept)
        );
        if let Some(d) = self.dropped.first() {
            head.push_str(&format!("; best dropped {}", self.with_kills(d, true)));
        }
        let mut lines = vec![head];
        if rule == Rule::Fitness {
            lines.extend(self.ground_line());
        }
        lines.extend(self.passing_kills_line());
        if let Some(tie) = self.g.tie_break.as_ref().filter(|_| rule != Rule::Fitness) {
            lines.push(self.tie_line(tie, rule));
            lines.extend(self.why_tied(tie));
        }
        lines.extend(self.settling_line());
        lines.extend(self.surrogate_line());
        (rule, lines)
    }

    /// On what ground fitness put the last kept test above the best dropped one that also
    /// fails on `c_old`, when it was not kills (the headline counts those): the dropped one
    /// never gets to the focal code, the kept one is rescued by a surrogate fix, its values
    /// are more the issue's, or more of its kills change what fails.
    fn ground_line(&self) -> Option<String> {
        if self.doc.config.fitness != FitnessRule::Brt {
            return None;
        }
        let kept = self.kept.iter().rev().find(|t| !self.passes(t))?;
        let dropped = self.dropped.iter().find(|t| !self.passes(t))?;
        let (a, b) = (self.fact(kept)?, self.fact(dropped)?);
        Some(if a.reaches_focal != b.reaches_focal {
            format!(
                "{kept} over {dropped}: {dropped}'s c_old run never gets to the focal code ({}): \
                 it cannot reproduce a bug there",
                self.category_words(dropped)
            )
        } else if a.rescue_rank() != b.rescue_rank() && a.plausible_fix() {
            format!(
                "{kept} over {dropped}: {kept} is rescued by a surrogate fix (a mutant of a \
                 focal function that keeps every repository test passing), {dropped} is not"
            )
        } else if a.rescue_rank() != b.rescue_rank() {
            format!(
                "{kept} over {dropped}: only mutants that break at least half of the \
                 repository's tests judging them make {dropped} pass, so what it expects likely \
                 contradicts them"
            )
        } else if a.focus.level() != b.focus.level() {
            format!(
                "{kept} over {dropped}: {kept}'s literal values are more the issue's ({}) than \
                 {dropped}'s ({}); a test of many cases of its own, or of neighbouring \
                 behaviour, ranks below one about the issue",
                a.focus.describe(),
                b.focus.describe()
            )
        } else if a.status_kills != b.status_kills {
            format!(
                "{kept} over {dropped}: {} of {kept}'s kills change what fails (a case's status \
                 or the outcome), {} of {dropped}'s; a kill that only changes the failure \
                 message (another value printed) ranks below",
                a.status_kills, b.status_kills
            )
        } else {
            // Kills decided: the headline's counts say so.
            return None;
        })
    }

    /// Kills that changed only cases a failing test passes on `c_old`, not counted.
    fn passing_kills_line(&self) -> Option<String> {
        if self.doc.config.fitness != FitnessRule::Brt
            || self.doc.config.kills != super::config::KillScope::FailingCases
        {
            return None;
        }
        let each: Vec<String> = self
            .g
            .tests
            .iter()
            .filter_map(|t| {
                let n = self.g.scores.get(t)?.passing_kills.len();
                (n > 0).then(|| format!("{t} {n}"))
            })
            .collect();
        if each.is_empty() {
            return None;
        }
        Some(format!(
            "not counted: kills only in cases a test passes on c_old (a passing case is a \
             passing test), {}",
            each.join(", ")
        ))
    }

    /// Why fitness could not separate the tied tests: the same kills (no mutant of the sample
    /// tells them apart), or as many different ones.
    fn why_tied(&self, tie: &TieBreak) -> Option<String> {
        // The kills fitness counted (not those it leaves out: `p` cells, rescues).
        let kills: Vec<Vec<&MutantId>> = tie
            .tied
            .iter()
            .map(|t| {
                self.g
                    .scores
                    .get(t)
                    .map(|s| s.counted_kills(&self.doc.config))
            })
            .collect::<Option<_>>()?;
        let first = kills.first()?;
        let m = self.g.mutants.len();
        let who = tie.tied.join(", ");
        Some(if kills.iter().all(|k| k == first) {
            if first.len() == m {
                format!("{who} each kill every one of the {m} mutants: none tells them apart")
            } else if first.is_empty() {
                format!("{who} kill none of the {m} mutants")
            } else {
                format!(
                    "{who} kill the same {} of the {m} mutants: no mutant tells them apart",
                    first.len()
                )
            }
        } else {
            format!("{who} kill different mutants, as many each")
        })
    }

    /// When mutants were drawn to settle a tie (`--settle-ties`): how many, and whether they
    /// did.
    fn settling_line(&self) -> Option<String> {
        let n = self.g.settling.len();
        if n == 0 {
            return None;
        }
        let sample = self.g.mutants.len().saturating_sub(n);
        let outcome = if self.g.fitness_decided == Some(true) {
            "and their kills decided it"
        } else {
            "and the tie held"
        };
        Some(format!(
            "the sample's {} left the cut tied: {} more were drawn {outcome}",
            plural(sample, "mutant"),
            n
        ))
    }

    /// The tied tests in the order selection's tie-break put them: the Otter order, then (when
    /// rescues break ties) most rescues first.
    fn tie_group(&self, tie: &TieBreak) -> Vec<&TestFacts> {
        let mut group: Vec<&TestFacts> = tie.tied.iter().filter_map(|t| self.fact(t)).collect();
        group.sort_by(|a, b| otter_cmp(a, b));
        if self.doc.config.rescue_tiebreak {
            group.sort_by_key(|f| std::cmp::Reverse(f.rescues));
        }
        group
    }

    fn tie_line(&self, tie: &TieBreak, rule: Rule) -> String {
        let first = tie.tied.first();
        let mut at = plural(first.map_or(0, |t| self.kills(t)), "kill");
        if self.brt() && first.is_some_and(|t| self.passes(t)) {
            at.push_str(" (all pass on c_old)");
        }
        let head = format!(
            "{} tied at {at} for {}",
            tie.tied.join(", "),
            plural(tie.slots, "place")
        );
        let group = self.tie_group(tie);
        let kept: Vec<&TestFacts> = group
            .iter()
            .copied()
            .filter(|f| self.kept.contains(&f.id))
            .collect();
        let dropped: Vec<&TestFacts> = group
            .iter()
            .copied()
            .filter(|f| !self.kept.contains(&f.id))
            .collect();
        let (Some(last_kept), Some(first_dropped)) = (kept.last(), dropped.first()) else {
            return head;
        };
        // Tests with more rescues than the contested place were kept before the rest competed.
        let boundary = group
            .get(tie.slots.saturating_sub(1))
            .map_or(0, |f| f.rescues);
        let above: Vec<&TestFacts> = if self.doc.config.rescue_tiebreak {
            kept.iter()
                .copied()
                .filter(|f| f.rescues > boundary)
                .collect()
        } else {
            vec![]
        };
        let above_words = match above.as_slice() {
            [] => String::new(),
            [f] => format!("{} rescues more and was kept first; ", f.id),
            many => format!(
                "{} rescue more and were kept first; ",
                many.iter()
                    .map(|f| f.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        match rule {
            Rule::Rescues => {
                let each: Vec<String> = group
                    .iter()
                    .enumerate()
                    .map(|(i, f)| match (i, f.rescues) {
                        (_, 0) => format!("{} none", f.id),
                        (0, n) => format!("{} rescues {}", f.id, plural(n, "mutant")),
                        (_, n) => format!("{} rescues {n}", f.id),
                    })
                    .collect();
                format!("{head}: rescues decided ({})", each.join(", "))
            }
            Rule::Model => {
                let chosen: Vec<&str> = kept
                    .iter()
                    .filter(|f| !above.contains(f))
                    .map(|f| f.id.as_str())
                    .collect();
                format!("{head}: {above_words}the model chose {}", chosen.join(", "))
            }
            _ => {
                let otter_top: Vec<&TestId> = group.iter().take(tie.slots).map(|f| &f.id).collect();
                let as_otter = kept.len() == otter_top.len()
                    && kept.iter().all(|f| otter_top.contains(&&f.id))
                    && otter_cmp(last_kept, first_dropped) == Ordering::Less;
                if as_otter {
                    format!(
                        "{head}: {above_words}the Otter rules decided ({})",
                        self.otter_reason(&last_kept.id, &first_dropped.id)
                    )
                } else if self.doc.config.llm.is_some() {
                    // The model named only some of the places (the notes say so) and the Otter
                    // order filled the rest.
                    format!(
                        "{head}: the model chose part of them and the Otter rules the rest \
                         (the session notes say why)"
                    )
                } else {
                    // Not the order today's rules give: a session from another version.
                    format!("{head}: the Otter rules decided")
                }
            }
        }
    }

    fn by_otter(&self) -> (Rule, Vec<String>) {
        let mut lines = vec![format!(
            "{} selected by the Otter rules (no kill counts used): {}",
            self.cut_words(),
            self.kept_and_dropped(true)
        )];
        if let (Some(a), Some(b)) = (self.kept.last(), self.dropped.first()) {
            lines.push(format!("{a} kept over {b} ({})", self.otter_reason(a, b)));
        }
        (Rule::OtterRules, lines)
    }

    fn by_random(&self) -> (Rule, Vec<String>) {
        let line = format!(
            "{} selected at random (seed {}): {}",
            self.cut_words(),
            self.doc.config.seed,
            self.kept_and_dropped(false)
        );
        (Rule::Random, vec![line])
    }

    fn by_llm(&self) -> (Rule, Vec<String>) {
        if self.g.selected_by == Some(CutRule::Llm) {
            let line = format!(
                "{} decided by the model: it chose {} (no kill counts used)",
                self.cut_words(),
                self.kept.join(", ")
            );
            return (Rule::Model, vec![line]);
        }
        let line = format!(
            "{} decided by the Otter rules: the model's reply did not name {} usable tests, so \
             the Otter order filled the places left (the session notes say why); {}",
            self.cut_words(),
            self.kept.len(),
            self.kept_and_dropped(true)
        );
        (Rule::OtterRules, vec![line])
    }

    // ---- Facts ----------------------------------------------------------------------------

    fn facts(&self) -> Vec<Fact> {
        let mut out = Vec::new();
        let strategy = self.doc.config.selection;
        let kept_min = self.kept.iter().map(|t| self.kills(t)).min().unwrap_or(0);
        let max = self.facts.values().map(|f| f.kills).max().unwrap_or(0);
        let passing = self.g.tests.iter().filter(|t| self.passes(t)).count();
        let some_fail_kept = self.kept.iter().any(|t| !self.passes(t));
        let some_fail_dropped = self.dropped.iter().any(|t| !self.passes(t));
        if strategy == SelectionStrategy::Mutation && self.brt() {
            for t in self.dropped.iter().filter(|t| self.passes(t)) {
                let kills = self.kills(t);
                if kills > kept_min {
                    out.push(Fact::PassesOnOld {
                        test: t.clone(),
                        kills,
                        most: kills >= max,
                        alone: passing == 1,
                    });
                }
            }
        }
        if strategy == SelectionStrategy::Mutation && !self.brt() && some_fail_dropped {
            for t in self.kept.iter().filter(|t| self.passes(t)) {
                out.push(Fact::KeptPassing { test: t.clone() });
            }
        }
        if strategy == SelectionStrategy::Random && self.brt() && some_fail_kept {
            let tests: Vec<TestId> = self
                .dropped
                .iter()
                .filter(|t| self.passes(t))
                .cloned()
                .collect();
            if !tests.is_empty() {
                out.push(Fact::PassingRankedLast { tests });
            }
        }
        if strategy == SelectionStrategy::Mutation {
            for t in &self.g.tests {
                if let Some(s) = self.g.scores.get(t).filter(|s| s.flaky) {
                    out.push(Fact::Flaky {
                        test: t.clone(),
                        ignored: s.kills.len(),
                    });
                }
            }
        }
        out
    }

    fn fact_line(&self, f: &Fact) -> String {
        match f {
            Fact::PassesOnOld {
                test,
                kills,
                most,
                alone,
            } => {
                let has = if *most {
                    format!("has the most kills ({kills})")
                } else {
                    let weakest = self.kept.iter().rev().min_by_key(|t| self.kills(t));
                    let than = weakest.map_or(String::new(), |w| {
                        format!(", more than kept {w} ({})", self.kills(w))
                    });
                    format!("has {}{than},", plural(*kills, "kill"))
                };
                let ranks = if *alone {
                    "ranks last"
                } else {
                    "ranks below every test that fails there"
                };
                format!(
                    "{test} {has} but passes on c_old, so it {ranks} (fitness rule {})",
                    self.rule_name()
                )
            }
            Fact::PassingRankedLast { tests } => format!(
                "{} {} on c_old, so {} below every test that fails there (fitness rule {})",
                tests.join(", "),
                if tests.len() == 1 { "passes" } else { "pass" },
                if tests.len() == 1 {
                    "it ranks"
                } else {
                    "they rank"
                },
                self.rule_name()
            ),
            Fact::KeptPassing { test } => format!(
                "{test} passes on c_old but is kept: fitness rule paper ranks by kills alone \
                 (a test passing on c_old cannot be fail-to-pass)"
            ),
            Fact::Flaky { test, ignored } => {
                let ignored = if *ignored > 0 {
                    format!(" ({} ignored)", plural(*ignored, "log difference"))
                } else {
                    String::new()
                };
                format!(
                    "{test} logs differently in two c_old runs (flaky): its kills are not \
                     counted{ignored}"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::config::*;
    use crate::engine::halving::survivors;
    use crate::engine::selection::{self, SelectionParams};
    use crate::engine::session::fixtures::{self, config};
    use crate::engine::session::*;
    use std::path::PathBuf;

    /// One test of a generation as selection would see it.
    #[derive(Clone)]
    struct Spec {
        old: Outcome,
        kind: Option<FailureKind>,
        kills: usize,
        rescues: usize,
        len: usize,
        flaky: bool,
    }

    fn spec(old: Outcome, kills: usize) -> Spec {
        Spec {
            old,
            kind: (old == Outcome::Failed).then_some(FailureKind::Assertion),
            kills,
            rescues: 0,
            len: 100,
            flaky: false,
        }
    }
    fn fails(kills: usize) -> Spec {
        spec(Outcome::Failed, kills)
    }
    fn errors(kills: usize) -> Spec {
        spec(Outcome::Error, kills)
    }
    fn passes(kills: usize) -> Spec {
        spec(Outcome::Passed, kills)
    }
    impl Spec {
        fn rescues(mut self, n: usize) -> Self {
            self.rescues = n;
            self
        }
        fn len(mut self, n: usize) -> Self {
            self.len = n;
            self
        }
        fn flaky(mut self) -> Self {
            self.flaky = true;
            self
        }
    }

    fn old_run(hash: &str, s: &Spec) -> Execution {
        let exception = match (s.old, s.kind) {
            (Outcome::Failed, Some(FailureKind::Assertion)) => Some("AssertionError"),
            (Outcome::Failed, _) => Some("TypeError"),
            (Outcome::Error, _) => Some("ImportError"),
            _ => None,
        };
        fixtures::old_run(hash, s.old, s.kind, exception)
    }

    /// A session whose generation 0 holds `specs` as t1, t2, ... and has been cut by the real
    /// `selection::select`, exactly as the engine's Select step calls it.
    fn session(specs: &[Spec], cfg: RunConfig) -> SessionDoc {
        let dir = tempfile::tempdir().unwrap();
        let sources: Vec<(PathBuf, String)> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut source = format!("# t{}\n", i + 1);
                source.push_str(&"x".repeat(s.len - source.len()));
                (PathBuf::from(format!("test_{i}.py")), source)
            })
            .collect();
        let mut doc = fixtures::session(dir.path(), cfg, sources);
        let ids = doc.initial_population.clone();
        let mut scores = BTreeMap::new();
        for (id, s) in ids.iter().zip(specs) {
            let hash = doc.tests[id].hash.clone();
            doc.executions
                .insert(exec_key(&hash, &Target::Old), old_run(&hash, s));
            // `kills` counted by fitness, and rescues beside them (rescues are kills, but
            // fitness weighs them apart).
            let kills: Vec<MutantId> = (1..=s.kills + s.rescues).map(|m| format!("m{m}")).collect();
            scores.insert(
                id.clone(),
                TestScore {
                    old_outcome: s.old,
                    rescues: kills[s.kills..].to_vec(),
                    // A rescue changes the outcome: it is a status kill too.
                    status_kills: kills[s.kills..].to_vec(),
                    passing_kills: vec![],
                    timeouts: vec![],
                    kills,
                    flaky: s.flaky,
                },
            );
        }
        let mut g = Generation {
            index: 0,
            tests: ids.clone(),
            mutants: (1..=10).map(|m| format!("m{m}")).collect(),
            executions: 0,
            cached: 0,
            scores,
            ranking: vec![],
            selected: vec![],
            selected_by: None,
            fitness_decided: None,
            tie_break: None,
            offspring: vec![],
            parents: None,
            reach: None,
            settling: vec![],
        };
        let facts = TestFacts::of_generation(&doc, &g);
        let params = SelectionParams::of(&doc.config, 0);
        let s = selection::select(&facts, survivors(ids.len()), params);
        g.ranking = s.ranking;
        g.selected = s.selected;
        g.selected_by = Some(s.selected_by);
        g.fitness_decided = Some(s.fitness_decided);
        g.tie_break = s.tie_break;
        doc.generations.push(g);
        doc
    }

    fn explain(doc: &SessionDoc) -> CutExplanation {
        explain_cut(doc, 0).expect("generation 0 was cut")
    }

    fn ids(v: &[&str]) -> Vec<TestId> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fitness_decided_names_the_kept_and_the_best_dropped() {
        let specs = [
            fails(6),
            fails(5),
            errors(5),
            fails(3),
            fails(4),
            fails(1),
            fails(0),
            fails(2),
        ];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.decided_by, Rule::Fitness);
        assert_eq!(e.kept, ids(&["t1", "t2", "t3", "t5"]));
        assert_eq!(e.dropped[0], "t4");
        assert_eq!(
            e.lines,
            vec![
                "cut 8 -> 4 decided by fitness: kept t1 (6 kills), t2 (5), t3 (5), t5 (4); \
                 best dropped t4 (3 kills)"
            ]
        );
    }

    #[test]
    fn a_passing_test_with_the_most_kills_ranks_last_under_brt_but_not_under_paper() {
        let specs = [passes(7), fails(2), fails(1), errors(0)];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t2", "t3"]));
        assert_eq!(e.decided_by, Rule::Fitness);
        assert_eq!(
            e.facts,
            vec![Fact::PassesOnOld {
                test: "t1".into(),
                kills: 7,
                most: true,
                alone: true
            }]
        );
        assert!(e.lines.contains(
            &"t1 has the most kills (7) but passes on c_old, so it ranks last (fitness rule brt)"
                .to_string()
        ));

        let mut cfg = config(SelectionStrategy::Mutation);
        cfg.fitness = FitnessRule::Paper;
        let e = explain(&session(&specs, cfg));
        assert_eq!(e.kept, ids(&["t1", "t2"]));
        assert_eq!(e.facts, vec![Fact::KeptPassing { test: "t1".into() }]);
        assert!(e.lines[1].contains("fitness rule paper ranks by kills alone"));
    }

    #[test]
    fn with_two_passing_tests_the_dropped_one_ranks_below_the_failing_ones() {
        let specs = [passes(7), fails(2), fails(1), passes(3)];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t2", "t3"]));
        assert_eq!(
            e.lines[1],
            "t1 has the most kills (7) but passes on c_old, so it ranks below every test that \
             fails there (fitness rule brt)"
        );
        assert_eq!(
            e.lines[2],
            "t4 has 3 kills, more than kept t3 (1), but passes on c_old, so it ranks below every \
             test that fails there (fitness rule brt)"
        );
        assert!(e.lines[0].contains("best dropped t1 (7 kills, passes on c_old)"));
    }

    #[test]
    fn a_flaky_test_loses_its_kills() {
        let specs = [fails(5).flaky(), fails(2), fails(1), fails(0)];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t2", "t3"]));
        assert_eq!(
            e.facts,
            vec![Fact::Flaky {
                test: "t1".into(),
                ignored: 5
            }]
        );
        assert_eq!(
            e.lines[1],
            "t1 logs differently in two c_old runs (flaky): its kills are not counted \
             (5 log differences ignored)"
        );
    }

    #[test]
    fn rescues_break_a_tie_at_the_cut() {
        let specs = [fails(6), fails(3), fails(3).rescues(1), fails(1)];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t1", "t3"]));
        assert_eq!(e.decided_by, Rule::Rescues);
        assert!(e.lines[0].starts_with("cut 4 -> 2 decided by rescues"));
        assert_eq!(
            e.lines[1],
            "t2, t3 tied at 3 kills for 1 place: rescues decided (t3 rescues 1 mutant, t2 none)"
        );
    }

    #[test]
    fn the_otter_category_breaks_a_tie() {
        let specs = [fails(6), errors(3), fails(3), fails(0)];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t1", "t3"]));
        assert_eq!(e.decided_by, Rule::OtterRules);
        assert_eq!(
            e.lines[1],
            "t2, t3 tied at 3 kills for 1 place: the Otter rules decided (t3 fails on an \
             assertion, t2 errors (ImportError))"
        );
    }

    #[test]
    fn the_shorter_test_breaks_a_tie_in_one_category() {
        let specs = [fails(6), fails(3).len(420), fails(3).len(310), fails(0)];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t1", "t3"]));
        assert_eq!(
            e.lines[1],
            "t2, t3 tied at 3 kills for 1 place: the Otter rules decided (same category: the \
             shorter test, t3, 310 vs 420 bytes)"
        );
    }

    #[test]
    fn tests_with_more_rescues_are_kept_before_the_otter_rules_decide() {
        let specs = [
            fails(3).rescues(2),
            fails(3).len(90),
            fails(3).len(80),
            fails(0),
        ];
        let e = explain(&session(&specs, config(SelectionStrategy::Mutation)));
        assert_eq!(e.kept, ids(&["t1", "t3"]));
        assert_eq!(
            e.lines[1],
            "t1, t2, t3 tied at 3 kills for 2 places: t1 rescues more and was kept first; the \
             Otter rules decided (same category: the shorter test, t3, 80 vs 90 bytes)"
        );
    }

    /// What the engine's Select step does when a model breaks an Otter-decided tie.
    fn model_picks(doc: &mut SessionDoc, pick: &str) {
        let g = &mut doc.generations[0];
        let tie = g.tie_break.as_mut().unwrap();
        let mut selected: Vec<TestId> = g
            .selected
            .iter()
            .filter(|t| !tie.tied.contains(t))
            .cloned()
            .collect();
        selected.push(pick.into());
        tie.by = CutRule::Llm;
        let mut ranking = selected.clone();
        ranking.extend(g.ranking.iter().filter(|t| !selected.contains(t)).cloned());
        g.ranking = ranking;
        g.selected = selected;
        g.selected_by = Some(CutRule::Llm);
    }

    #[test]
    fn the_model_breaks_a_tie() {
        let specs = [fails(6), fails(3).len(420), fails(3).len(310), fails(0)];
        let mut doc = session(&specs, config(SelectionStrategy::Mutation));
        model_picks(&mut doc, "t2");
        let e = explain(&doc);
        assert_eq!(e.kept, ids(&["t1", "t2"]));
        assert_eq!(e.decided_by, Rule::Model);
        assert!(e.lines[0].starts_with("cut 4 -> 2 decided by the model (fitness tied"));
        assert_eq!(
            e.lines[1],
            "t2, t3 tied at 3 kills for 1 place: the model chose t2"
        );
    }

    #[test]
    fn strategies_that_do_not_count_kills_say_so() {
        let specs = [passes(9), errors(0), fails(0).len(40), fails(0).len(20)];
        let e = explain(&session(&specs, config(SelectionStrategy::Otter)));
        assert_eq!(e.kept, ids(&["t4", "t3"]));
        assert_eq!(e.decided_by, Rule::OtterRules);
        assert_eq!(
            e.lines,
            vec![
                "cut 4 -> 2 selected by the Otter rules (no kill counts used): kept t4, t3; \
                 best dropped t2",
                "t3 kept over t2 (t3 fails on an assertion, t2 errors (ImportError))",
            ]
        );

        let doc = session(&specs, config(SelectionStrategy::Random));
        let e = explain(&doc);
        assert_eq!(e.decided_by, Rule::Random);
        assert_eq!(e.kept, doc.generations[0].selected);
        assert!(
            e.lines[0].starts_with("cut 4 -> 2 selected at random (seed 1): kept "),
            "{:?}",
            e.lines
        );
        assert_eq!(
            e.facts,
            vec![Fact::PassingRankedLast {
                tests: ids(&["t1"])
            }]
        );

        let mut doc = session(&specs, config(SelectionStrategy::Llm));
        let e = explain(&doc);
        assert_eq!(
            e.decided_by,
            Rule::OtterRules,
            "the model's reply was unusable"
        );
        doc.generations[0].selected = ids(&["t2", "t1"]);
        doc.generations[0].selected_by = Some(CutRule::Llm);
        let e = explain(&doc);
        assert_eq!(e.decided_by, Rule::Model);
        assert_eq!(
            e.lines,
            vec!["cut 4 -> 2 decided by the model: it chose t2, t1 (no kill counts used)"]
        );
    }

    #[test]
    fn nothing_to_explain_before_the_cut() {
        let mut doc = session(&[fails(1), fails(0)], config(SelectionStrategy::Mutation));
        assert!(explain_cut(&doc, 1).is_none());
        doc.generations[0].selected.clear();
        assert!(explain_cut(&doc, 0).is_none());
    }

    /// Over many generated generations, the explanation agrees with what selection did: it
    /// names the rule selection recorded, and every dropped test that passes on c_old with
    /// more kills than a kept test is called out under the BRT rule.
    #[test]
    fn explanations_agree_with_selection() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..300 {
            let n = 2 + rng.below(7);
            let specs: Vec<Spec> = (0..n)
                .map(|_| {
                    let old = [
                        Outcome::Failed,
                        Outcome::Error,
                        Outcome::Passed,
                        Outcome::Timeout,
                    ][rng.below(4)];
                    let kills = rng.below(4);
                    let mut s = spec(old, kills).len(60 + 10 * rng.below(3));
                    if old != Outcome::Passed {
                        s = s.rescues(rng.below(kills + 1));
                    }
                    if rng.below(8) == 0 {
                        s = s.flaky();
                    }
                    s
                })
                .collect();
            for strategy in [SelectionStrategy::Otter, SelectionStrategy::Random] {
                let doc = session(&specs, config(strategy));
                let e = explain(&doc);
                assert_eq!(e.kept, doc.generations[0].selected);
                let rule = if strategy == SelectionStrategy::Random {
                    Rule::Random
                } else {
                    Rule::OtterRules
                };
                assert_eq!(e.decided_by, rule);
            }
            let doc = session(&specs, config(SelectionStrategy::Mutation));
            let g = &doc.generations[0];
            let e = explain(&doc);
            let expected = match g.selected_by.unwrap() {
                CutRule::Mutation => Rule::Fitness,
                CutRule::Rescues => Rule::Rescues,
                _ => Rule::OtterRules,
            };
            assert_eq!(e.decided_by, expected, "{:?}", e.lines);
            assert_eq!(e.kept, g.selected);
            assert_eq!(e.kept.len() + e.dropped.len(), n);
            if expected != Rule::Fitness {
                assert!(e.lines[1].contains(" decided ("), "{:?}", e.lines);
            }
            let kills = |t: &TestId| {
                let s = &g.scores[t];
                if s.flaky { 0 } else { s.kills.len() }
            };
            let kept_min = e.kept.iter().map(kills).min().unwrap();
            for t in &e.dropped {
                if g.scores[t].old_outcome == Outcome::Passed && kills(t) > kept_min {
                    assert!(
                        e.lines.iter().any(|l| l.starts_with(&format!("{t} has "))
                            && l.contains("passes on c_old")),
                        "{t} not explained: {:?}",
                        e.lines
                    );
                }
            }
        }
    }
}
