//! One (test, mutant) pair of a session: the evidence behind one kill-matrix cell, found from
//! the session alone (no Python): the mutant, the test's runs on `c_old` and on the mutant,
//! the cell's verdict and how the normalized logs differ, or why the pair never ran.

use super::kill::{Cell, cell};
use super::session::{Candidate, Execution, Generation, MutantId, SessionDoc, Target};
use crate::mutate::Mutant;

#[derive(Debug, thiserror::Error)]
pub enum PairError {
    #[error("no test `{test}` in this session (tests: t1 .. t{count})")]
    NoTest { test: String, count: usize },
    #[error("this session has no mutants yet")]
    NoPool,
    #[error("no mutant `{0}` in this session; `evootter mutants` or `show` lists them")]
    NoMutant(String),
    #[error("`{prefix}` matches {count} mutants; give more of the id")]
    Ambiguous { prefix: String, count: usize },
    #[error("{0} has a run on the mutant but none on c_old: the session is damaged")]
    Damaged(String),
}

pub struct Pair<'a> {
    pub test: &'a Candidate,
    pub mutant: &'a Mutant,
    pub old: Option<&'a Execution>,
    pub run: Option<&'a Execution>,
    /// The cell, when the pair ran.
    pub cell: Option<Cell>,
}

/// The pair of test `test` and the mutant whose id starts with `mutant`.
pub fn find<'a>(doc: &'a SessionDoc, test: &str, mutant: &str) -> Result<Pair<'a>, PairError> {
    let cand = doc.tests.get(test).ok_or_else(|| PairError::NoTest {
        test: test.to_string(),
        count: doc.tests.len(),
    })?;
    let pool = doc.pool.as_ref().ok_or(PairError::NoPool)?;
    let matches: Vec<&Mutant> = pool
        .mutants
        .iter()
        .filter(|m| m.id.starts_with(mutant))
        .collect();
    let m = match matches.as_slice() {
        [m] => *m,
        [] => return Err(PairError::NoMutant(mutant.to_string())),
        _ => {
            return Err(PairError::Ambiguous {
                prefix: mutant.to_string(),
                count: matches.len(),
            });
        }
    };
    let run = doc.execution(&cand.id, &Target::Mutant(m.id.clone()));
    let old = doc.execution(&cand.id, &Target::Old);
    if run.is_some() && old.is_none() {
        return Err(PairError::Damaged(cand.id.clone()));
    }
    Ok(Pair {
        test: cand,
        mutant: m,
        cell: old.zip(run).map(|(o, r)| cell(o, r)),
        old,
        run,
    })
}

impl Pair<'_> {
    /// The normalized logs on `c_old` and on the mutant as a unified diff (empty when the
    /// pair has not run, or survived).
    pub fn log_diff(&self, doc: &SessionDoc) -> String {
        self.diff_of(doc, false)
    }

    /// The raw logs (before normalization) on `c_old` and on the mutant as a unified diff:
    /// what normalization erased shows here.
    pub fn raw_log_diff(&self, doc: &SessionDoc) -> String {
        self.diff_of(doc, true)
    }

    fn diff_of(&self, doc: &SessionDoc, raw: bool) -> String {
        let (Some(old), Some(run)) = (self.old, self.run) else {
            return String::new();
        };
        let log = |e: &Execution| doc.log(if raw { &e.raw_log } else { &e.normalized_log });
        similar::TextDiff::from_lines(log(old), log(run))
            .unified_diff()
            .context_radius(3)
            .header("c_old", &format!("mutant {}", self.mutant.id))
            .to_string()
    }

    /// Why the pair has no run: which generations sample the mutant, and which the test was in.
    pub fn why_not_run(&self, doc: &SessionDoc, source: super::reach::Source<'_>) -> String {
        never_ran(doc, &self.test.id, &self.mutant.id, source)
    }
}

impl Cell {
    /// What the cell means, in a sentence.
    pub fn verdict(self) -> &'static str {
        match self {
            Cell::Survived => "survived: the normalized logs are identical",
            Cell::KilledLog => "killed: the log changed, the statuses did not",
            Cell::KilledPassing => {
                "killed only where the test passes on c_old: its failing cases read the same"
            }
            Cell::KilledStatus => "killed: a test status changed",
            Cell::Rescued => "rescued: fails on c_old, passes on the mutant",
            Cell::TimedOut => "killed: timed out on the mutant",
        }
    }

    /// Why this kill does not count toward the test's fitness under `config`, when it does
    /// not: the BRT rule counts only changes where the test fails on `c_old`.
    pub fn uncounted(self, config: &super::config::RunConfig) -> Option<&'static str> {
        let failing_only = config.counts_failing_cases_only();
        match self {
            Cell::KilledPassing if failing_only => Some(
                "not counted: under the fitness rule brt only changes in the cases that fail \
                 on c_old count (`--kills whole-log` counts every change)",
            ),
            Cell::Rescued if failing_only => Some(
                "not counted as a kill: a mutant that makes the test pass is a possible fix, \
                 judged by the repository's tests (rescues rank tests apart from kills)",
            ),
            _ => None,
        }
    }
}

fn generations_words(gens: &[usize]) -> String {
    let list: Vec<String> = gens.iter().map(usize::to_string).collect();
    match list.len() {
        1 => format!("generation {}", list[0]),
        _ => format!("generations {}", list.join(", ")),
    }
}

/// Why `test` has no run on `mutant`: which generations' samples hold the mutant and which
/// generations the test was in, so the user can pick a pair that did run.
fn never_ran(
    doc: &SessionDoc,
    test: &str,
    mutant: &MutantId,
    source: super::reach::Source<'_>,
) -> String {
    let with_test: Vec<usize> = doc
        .generations
        .iter()
        .filter(|g| g.tests.iter().any(|t| t == test))
        .map(|g| g.index)
        .collect();
    let with_mutant: Vec<&Generation> = doc
        .generations
        .iter()
        .filter(|g| g.mutants.contains(mutant))
        .collect();
    let both: Vec<usize> = with_mutant
        .iter()
        .map(|g| g.index)
        .filter(|g| with_test.contains(g))
        .collect();
    if !both.is_empty() {
        return format!(
            "{test} has not run on this mutant yet: {} samples it with {test}, and the run \
             stopped before that execution (`evootter run --resume` finishes it)",
            generations_words(&both)
        );
    }
    let mutant_part = match with_mutant.as_slice() {
        [] => "no generation's sample contains the mutant".to_string(),
        [g] => format!(
            "the mutant is in generation {}'s sample (tests {})",
            g.index,
            g.tests.join(", ")
        ),
        gens => {
            let idx: Vec<usize> = gens.iter().map(|g| g.index).collect();
            format!(
                "the mutant is in the samples of {} (generation {}'s tests: {})",
                generations_words(&idx),
                gens[0].index,
                gens[0].tests.join(", ")
            )
        }
    };
    let mutant_part = match (with_mutant.is_empty(), doc.config.reach) {
        (true, r) if r.traced() => {
            let reach = doc
                .pool
                .iter()
                .flat_map(|p| p.mutants.iter())
                .find(|m| m.id == *mutant)
                .and_then(|m| super::reach::describe(doc, &test.to_owned(), m, source));
            format!(
                "{mutant_part}: reach-aware sampling leaves out mutants no test of the \
                 population executes on c_old{}",
                reach.map(|r| format!(" ({r})")).unwrap_or_default()
            )
        }
        _ => mutant_part,
    };
    let test_part = if with_test.is_empty() {
        format!("{test} was in no generation")
    } else {
        format!("{test} was in {}", generations_words(&with_test))
    };
    format!(
        "{test} never ran on this mutant, because no generation had both: {mutant_part}; \
         {test_part}"
    )
}
