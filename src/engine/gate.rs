//! What happened at a generation's gate, derived once: the tests selection kept, the acts of
//! the user's that still count, and from them the tests that go on to crossover, the pinned
//! test, and each test's fate. Every place that tells this story (the Timeline, the Grid's
//! title and row marks, Curate, the cut's explanation, `show`, report.json) reads a
//! [`Gate`], so no two of them can tell it differently.

use super::session::*;
use std::collections::BTreeMap;

/// What became of a test at its generation's gate, as selection and then the user's acts
/// that still count decided: the one word every screen shows for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fate {
    /// The generation is not cut yet.
    Pending,
    Kept,
    Dropped,
    /// Vetoed by the user (kept by selection or not).
    Vetoed,
    /// Replaced by the user's edit of it.
    Edited,
    /// Replaced by the model's repair of it, which the user asked for.
    Repaired,
    /// The user's own test (written or edited), going on.
    Yours,
    /// The user's own test whose add or edit was undone: it ran, but it does not go on.
    Withdrawn,
    /// Pinned by the user: the run ends (or ended) with it.
    Pinned,
}

impl Fate {
    pub fn label(self) -> &'static str {
        match self {
            Fate::Pending => "",
            Fate::Kept => "kept",
            Fate::Dropped => "dropped",
            Fate::Vetoed => "vetoed (you)",
            Fate::Edited => "edited (you)",
            Fate::Repaired => "repaired (you)",
            Fate::Yours => "yours, goes on",
            Fate::Withdrawn => "undone (you)",
            Fate::Pinned => "pinned (you)",
        }
    }

    /// One character for the grid's row header, the Curate list and `show` (text only, as
    /// in a snapshot): `+` goes on, `x` vetoed, `e` edited away, `r` repaired away, `P`
    /// pinned, `u` withdrawn.
    pub fn mark(self) -> char {
        match self {
            Fate::Kept | Fate::Yours => '+',
            Fate::Vetoed => 'x',
            Fate::Edited => 'e',
            Fate::Repaired => 'r',
            Fate::Pinned => 'P',
            Fate::Withdrawn => 'u',
            Fate::Pending | Fate::Dropped => ' ',
        }
    }

    /// Whether the test goes on past the gate (to crossover, or as the final test).
    pub fn goes_on(self) -> bool {
        matches!(self, Fate::Kept | Fate::Yours | Fate::Pinned)
    }
}

/// A generation's gate as selection and the acts that count left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    pub generation: usize,
    /// Whether selection has cut the generation.
    pub cut: bool,
    /// Whether the run is past this gate (its crossover ran, or the run ended here).
    pub passed: bool,
    /// How many tests selection ranked: the generation's tests but the user's own.
    pub ranked: usize,
    /// The tests selection kept, best first.
    pub selected: Vec<TestId>,
    /// The tests going (or gone) to crossover.
    pub going_on: Vec<TestId>,
    /// The test the run ends with at this gate.
    pub pinned: Option<TestId>,
    /// The tests whose veto still counts, and that do not go on.
    pub vetoed: Vec<TestId>,
    /// (edited test, its edit), in the order done.
    pub edits: Vec<(TestId, TestId)>,
    /// The tests the user wrote at this gate that go on.
    pub added: Vec<TestId>,
    /// Every test the user wrote or edited at this gate, going on or not: selection never
    /// ranked them.
    pub yours: Vec<TestId>,
    /// The acts that count in words (`vetoed t3`), in the order done.
    pub acts: Vec<String>,
    fates: BTreeMap<TestId, Fate>,
}

impl Gate {
    /// The gate of generation `g` (an empty one for a generation that does not exist).
    pub fn of(doc: &SessionDoc, g: usize) -> Gate {
        let Some(gen_) = doc.generations.get(g) else {
            return Gate::empty(g);
        };
        let fold = Fold::of(doc, g);
        let going_on = gen_
            .parents
            .clone()
            .unwrap_or_else(|| gen_.selected.clone());
        let yours = |t: &TestId| is_users(doc, g, t);
        let pending = gen_.selected_by.is_none() && fold.acts.is_empty();
        let fates = gen_
            .tests
            .iter()
            .map(|t| {
                let fate = if pending {
                    Fate::Pending
                } else if fold.pinned.as_ref() == Some(t) {
                    Fate::Pinned
                } else if going_on.contains(t) {
                    if yours(t) { Fate::Yours } else { Fate::Kept }
                } else if let Some(f) = fold.last.get(t) {
                    *f
                } else if yours(t) {
                    Fate::Withdrawn
                } else {
                    Fate::Dropped
                };
                (t.clone(), fate)
            })
            .collect::<BTreeMap<_, _>>();
        // In the generation's order, however often a test was vetoed and taken back.
        let vetoed = gen_
            .tests
            .iter()
            .filter(|t| fold.vetoed.contains(t) && !going_on.contains(t))
            .cloned()
            .collect();
        let added = going_on.iter().filter(|t| yours(t)).cloned().collect();
        Gate {
            generation: g,
            cut: gen_.selected_by.is_some(),
            passed: passed(doc, g),
            ranked: gen_.tests.iter().filter(|t| !yours(t)).count(),
            selected: gen_.selected.clone(),
            going_on,
            pinned: fold.pinned,
            vetoed,
            edits: fold.edits,
            added,
            yours: gen_.tests.iter().filter(|t| yours(t)).cloned().collect(),
            acts: fold.acts,
            fates,
        }
    }

    fn empty(g: usize) -> Gate {
        Gate {
            generation: g,
            cut: false,
            passed: false,
            ranked: 0,
            selected: vec![],
            going_on: vec![],
            pinned: None,
            vetoed: vec![],
            edits: vec![],
            added: vec![],
            yours: vec![],
            acts: vec![],
            fates: BTreeMap::new(),
        }
    }

    pub fn fate(&self, t: &TestId) -> Fate {
        self.fates.get(t).copied().unwrap_or(Fate::Pending)
    }

    /// Every test of the generation with its fate, in the generation's order.
    pub fn fates(&self) -> &BTreeMap<TestId, Fate> {
        &self.fates
    }

    /// Whether an act of the user's counts at this gate.
    pub fn curated(&self) -> bool {
        !self.acts.is_empty()
    }

    /// The edit `t` was replaced by, when it was.
    pub fn edited_into(&self, t: &TestId) -> Option<&TestId> {
        self.edits
            .iter()
            .rev()
            .find(|(from, _)| from == t)
            .map(|(_, into)| into)
    }

    /// `cut 8 -> 4`, and what the acts made of it (`; 5 go to crossover`, `; ends with t5`).
    pub fn cut_words(&self) -> String {
        let cut = format!("cut {} -> {}", self.ranked, self.selected.len());
        match &self.pinned {
            Some(p) => format!("{cut}; ends with {p}"),
            None if self.going_on != self.selected => {
                let n = self.going_on.len();
                let verb = if n == 1 { "goes" } else { "go" };
                format!("{cut}; {n} {verb} to crossover")
            }
            None => cut,
        }
    }

    /// What passing the gate does (or did): `going to crossover: t8, t2, t10`, `the run
    /// ends with t5 at this gate`.
    pub fn then_words(&self) -> String {
        // A cut that keeps one test ends the run with it: there is no crossover after it.
        if self.pinned.is_none() && self.cut && self.selected.len() == 1 && self.acts.is_empty() {
            return format!(
                "the run ended with {}, the one test the cut kept",
                self.selected[0]
            );
        }
        match (&self.pinned, self.passed) {
            (Some(p), false) => format!("the run ends with {p} at this gate"),
            (Some(p), true) => format!("the run ended with {p}, pinned at this gate"),
            (None, false) => format!("going to crossover: {}", self.going_on.join(", ")),
            (None, true) => format!("went to crossover: {}", self.going_on.join(", ")),
        }
    }

    /// `at the gate you vetoed t3, added t10; going to crossover: t8, t2, t10`. `None` when
    /// no act counts.
    pub fn curation_line(&self) -> Option<String> {
        if !self.curated() {
            return None;
        }
        Some(format!(
            "at the gate you {}; {}",
            self.acts.join(", "),
            self.then_words()
        ))
    }
}

/// Whether `t` is the user's own test, written or edited at generation `g`'s gate.
fn is_users(doc: &SessionDoc, g: usize, t: &TestId) -> bool {
    matches!(
        doc.tests.get(t).map(|c| &c.origin),
        Some(Origin::UserWritten { generation } | Origin::UserEdited { generation, .. })
            if *generation == g
    ) || matches!(
        doc.tests.get(t).map(|c| &c.origin),
        Some(Origin::Repaired { generation: Some(generation), .. }) if *generation == g
    )
}

/// Whether the run went past generation `g`'s gate.
fn passed(doc: &SessionDoc, g: usize) -> bool {
    if matches!(doc.phase, Phase::Crossover { generation } if generation == g) {
        return false;
    }
    doc.final_test.is_some()
        || doc.generations.len() > g + 1
        || matches!(doc.phase, Phase::Evaluate | Phase::Done)
}

/// The acts that count at one gate, read once in order.
struct Fold {
    going_on: Vec<TestId>,
    vetoed: Vec<TestId>,
    edits: Vec<(TestId, TestId)>,
    pinned: Option<TestId>,
    /// The fate the last act on a test gave it (vetoed, or edited away).
    last: BTreeMap<TestId, Fate>,
    acts: Vec<String>,
}

impl Fold {
    fn of(doc: &SessionDoc, g: usize) -> Fold {
        let selected = doc
            .generations
            .get(g)
            .map(|gen_| gen_.selected.clone())
            .unwrap_or_default();
        // Where selection ranked a test (the user's own after every selected one).
        let rank = |t: &TestId| selected.iter().position(|s| s == t).unwrap_or(usize::MAX);
        let mut f = Fold {
            going_on: selected.clone(),
            vetoed: vec![],
            edits: vec![],
            pinned: None,
            last: BTreeMap::new(),
            acts: vec![],
        };
        for a in doc.counting_acts(g) {
            match &a.kind {
                ActKind::Veto { test } => {
                    f.going_on.retain(|t| t != test);
                    if !f.vetoed.contains(test) {
                        f.vetoed.push(test.clone());
                    }
                    f.last.insert(test.clone(), Fate::Vetoed);
                }
                ActKind::Unveto { test } => {
                    f.vetoed.retain(|t| t != test);
                    f.last.remove(test);
                    // Back where selection ranked it, as if never vetoed.
                    if !f.going_on.contains(test) {
                        let at = f.going_on.iter().position(|p| rank(p) > rank(test));
                        f.going_on
                            .insert(at.unwrap_or(f.going_on.len()), test.clone());
                    }
                }
                // A parent's edit takes its place; a dropped or vetoed test's edit goes on
                // beside the parents (the user rescued it).
                ActKind::Edit { test, new_test } | ActKind::Repair { test, new_test, .. } => {
                    match f.going_on.iter().position(|t| t == test) {
                        Some(i) => f.going_on[i] = new_test.clone(),
                        None if !f.going_on.contains(new_test) => f.going_on.push(new_test.clone()),
                        None => {}
                    }
                    f.edits.push((test.clone(), new_test.clone()));
                    f.last.insert(
                        test.clone(),
                        if matches!(a.kind, ActKind::Repair { .. }) {
                            Fate::Repaired
                        } else {
                            Fate::Edited
                        },
                    );
                }
                ActKind::Add { new_test } => {
                    if !f.going_on.contains(new_test) {
                        f.going_on.push(new_test.clone())
                    }
                }
                ActKind::Pin { test } => f.pinned = Some(test.clone()),
                ActKind::Unpin { test } => {
                    if f.pinned.as_ref() == Some(test) {
                        f.pinned = None;
                    }
                }
                ActKind::Continue | ActKind::Undo { .. } | ActKind::Redo { .. } => continue,
            }
            f.acts.push(a.kind.describe());
        }
        f
    }
}

impl SessionDoc {
    /// What happened at generation `g`'s gate (see [`Gate`]).
    pub fn gate(&self, g: usize) -> Gate {
        Gate::of(self, g)
    }

    /// The tests going to generation `g`'s crossover as the acts that count leave them:
    /// what `Engine::record_act` stores as the generation's parents.
    pub(super) fn curated_parents(&self, g: usize) -> Vec<TestId> {
        Fold::of(self, g).going_on
    }
}
