//! The kill decision (paper III-C): a test kills a mutant when its normalized log on the mutant
//! differs from its normalized log on `c_old`. The BRT-specific signals ride along: whether the
//! per-test statuses changed too, and whether a test failing on `c_old` passes on the mutant
//! (a rescue: the mutant behaves like a surrogate fix).

use super::session::{Execution, MutantId, TestScore};
use crate::exec::Outcome;
use serde::{Deserialize, Serialize};

/// One cell of the test x mutant grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// Same normalized log as on `c_old`.
    Survived,
    /// Only the log text changed (same statuses): a different failure message, say.
    KilledLog,
    /// The outcome or a test's status changed.
    KilledStatus,
    /// Failed or errored on `c_old`, passes on the mutant.
    Rescued,
    /// The mutant run hit its timeout (a kill: behaviour changed).
    TimedOut,
}

impl Cell {
    pub fn is_kill(self) -> bool {
        self != Cell::Survived
    }
}

pub fn cell(old: &Execution, mutant: &Execution) -> Cell {
    decide(
        old.normalized_log == mutant.normalized_log,
        old.outcome,
        mutant.outcome,
        old.status_map == mutant.status_map,
    )
}

/// The cell of two fresh results (not recorded in a session), by the same rule as `cell`.
pub fn cell_of_results(old: &crate::exec::ExecResult, mutant: &crate::exec::ExecResult) -> Cell {
    decide(
        old.normalized_log == mutant.normalized_log,
        old.outcome,
        mutant.outcome,
        old.status_map == mutant.status_map,
    )
}

fn decide(same_log: bool, old: Outcome, mutant: Outcome, same_statuses: bool) -> Cell {
    if same_log {
        return Cell::Survived;
    }
    if mutant == Outcome::Timeout && old != Outcome::Timeout {
        return Cell::TimedOut;
    }
    if old != Outcome::Passed && mutant == Outcome::Passed {
        return Cell::Rescued;
    }
    if old != mutant || !same_statuses {
        Cell::KilledStatus
    } else {
        Cell::KilledLog
    }
}

/// A test's row: its `c_old` run and its runs on the generation's mutant sample.
pub fn score<'a>(
    old: &Execution,
    runs: impl IntoIterator<Item = (&'a MutantId, &'a Execution)>,
) -> TestScore {
    let mut s = TestScore {
        old_outcome: old.outcome,
        kills: vec![],
        status_kills: vec![],
        rescues: vec![],
        timeouts: vec![],
        flaky: false,
    };
    for (id, run) in runs {
        let c = cell(old, run);
        if !c.is_kill() {
            continue;
        }
        s.kills.push(id.clone());
        match c {
            Cell::KilledStatus => s.status_kills.push(id.clone()),
            Cell::Rescued => {
                s.status_kills.push(id.clone());
                s.rescues.push(id.clone());
            }
            Cell::TimedOut => {
                s.status_kills.push(id.clone());
                s.timeouts.push(id.clone());
            }
            Cell::KilledLog | Cell::Survived => {}
        }
    }
    s
}
