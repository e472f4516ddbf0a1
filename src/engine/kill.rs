//! The kill decision (paper III-C): a test kills a mutant when its normalized log on the mutant
//! differs from its normalized log on `c_old`. The BRT-specific signals ride along: whether the
//! per-test statuses changed too, whether a test failing on `c_old` passes on the mutant
//! (a rescue: the mutant behaves like a surrogate fix), and whether the change is in the
//! test's *failing part* at all.
//!
//! The failing part: a test module that fails on `c_old` often holds cases that pass there
//! too (a parametrized table, a second function). Only the failing cases can reproduce the
//! bug, and a passing case's kills are those of a passing test, which the BRT rule ranks
//! last. Measured on the fresh-bug benchmark (examples/fresh), a broad module with a wrong
//! expectation in one case out-killed the focused fail-to-pass tests in most of mutation
//! selection's misses through its passing cases alone (all 18 of 18 kills in one). So each
//! execution keeps a hash of its log's failing part ([`failing_part`]), and a kill that
//! leaves it and the failing cases' statuses unchanged is [`Cell::KilledPassing`].

use super::session::{Execution, MutantId, TestScore};
use crate::exec::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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
    /// The log changed only where the test's cases pass on `c_old` (one of them fails on the
    /// mutant, say): the cases that fail there, the ones that can reproduce the bug, read the
    /// same. A kill by the paper's rule; not by the BRT rule's.
    KilledPassing,
    /// Failed or errored on `c_old`, passes on the mutant.
    Rescued,
    /// The mutant run hit its timeout (a kill: behaviour changed).
    TimedOut,
}

impl Cell {
    pub fn is_kill(self) -> bool {
        self != Cell::Survived
    }

    /// Whether the cell counts as a kill under the BRT rule: a change of the test's failing
    /// part (a test passing on `c_old` has none, and every kill of it counts).
    pub fn is_failing_kill(self) -> bool {
        self.is_kill() && self != Cell::KilledPassing
    }
}

pub fn cell(old: &Execution, mutant: &Execution) -> Cell {
    let same_part = match (&old.failing_part, &mutant.failing_part) {
        (Some(a), Some(b)) => Some(a == b),
        _ => None,
    };
    decide(Runs::of(
        (&old.normalized_log, old.outcome, &old.status_map),
        (&mutant.normalized_log, mutant.outcome, &mutant.status_map),
        same_part,
    ))
}

/// The cell of two fresh results (not recorded in a session), by the same rule as `cell`.
pub fn cell_of_results(old: &crate::exec::ExecResult, mutant: &crate::exec::ExecResult) -> Cell {
    let part = |log: &str| failing_part(log, &old.status_map);
    decide(Runs::of(
        (&old.normalized_log, old.outcome, &old.status_map),
        (&mutant.normalized_log, mutant.outcome, &mutant.status_map),
        Some(part(&old.normalized_log) == part(&mutant.normalized_log)),
    ))
}

/// A run as the kill decision reads it: its normalized log, outcome and per-test statuses.
type Side<'a> = (&'a str, Outcome, &'a BTreeMap<String, String>);

impl<'a> Runs<'a> {
    fn of(old: Side<'a>, mutant: Side<'a>, same_part: Option<bool>) -> Self {
        Runs {
            same_log: old.0 == mutant.0,
            old: old.1,
            mutant: mutant.1,
            old_statuses: old.2,
            mutant_statuses: mutant.2,
            same_part,
        }
    }
}

struct Runs<'a> {
    same_log: bool,
    old: Outcome,
    mutant: Outcome,
    old_statuses: &'a BTreeMap<String, String>,
    mutant_statuses: &'a BTreeMap<String, String>,
    /// Whether the failing parts read the same (`None`: runs recorded before it was kept).
    same_part: Option<bool>,
}

fn decide(r: Runs<'_>) -> Cell {
    if r.same_log {
        return Cell::Survived;
    }
    if r.mutant == Outcome::Timeout && r.old != Outcome::Timeout {
        return Cell::TimedOut;
    }
    if r.old != Outcome::Passed && r.mutant == Outcome::Passed {
        return Cell::Rescued;
    }
    let failing = failing_cases(r.old_statuses);
    if r.old == Outcome::Failed && !failing.is_empty() && r.mutant != Outcome::Timeout {
        let failing_changed = failing
            .iter()
            .any(|c| r.old_statuses.get(*c) != r.mutant_statuses.get(*c));
        if failing_changed {
            return Cell::KilledStatus;
        }
        if r.same_part == Some(true) {
            return Cell::KilledPassing;
        }
        return Cell::KilledLog;
    }
    if r.old != r.mutant || r.old_statuses != r.mutant_statuses {
        Cell::KilledStatus
    } else {
        Cell::KilledLog
    }
}

/// The node ids of the cases a run failed or errored.
pub fn failing_cases(statuses: &BTreeMap<String, String>) -> BTreeSet<&str> {
    statuses
        .iter()
        .filter(|(_, s)| is_failing(s))
        .map(|(id, _)| id.as_str())
        .collect()
}

/// The part of a normalized pytest log (`--tb=short -rA`) that is not about the cases that
/// pass on `c_old` (`old`: the test's statuses there): everything but those cases' sections
/// and short-summary lines, the PASSES and warnings sections, the progress line and the final
/// counts (statuses are compared on their own). Only what is known to belong to a passing
/// case is left out: a section no case of `old` owns stays.
pub fn failing_part(log: &str, old: &BTreeMap<String, String>) -> String {
    // A section's title is the node id after the file: `Class.test[param]`; pytest names
    // setup and teardown errors `ERROR at setup of NAME`. The log is normalized (numbers
    // folded), so the ids are folded too.
    let passing: Vec<&str> = old
        .iter()
        .filter(|(_, s)| !is_failing(s))
        .map(|(id, _)| id.as_str())
        .collect();
    let titles: BTreeSet<String> = passing
        .iter()
        .map(|c| fold(&c.split_once("::").map_or(*c, |(_, t)| t).replace("::", ".")))
        .collect();
    let ids: BTreeSet<String> = passing.iter().map(|c| fold(c)).collect();
    let passing_case = |title: &str| {
        let name = title
            .strip_prefix("ERROR at setup of ")
            .or_else(|| title.strip_prefix("ERROR at teardown of "))
            .unwrap_or(title);
        titles.contains(name)
    };
    let mut out = String::new();
    // Whether the lines being read are kept: a top section's, then a case's.
    let mut keep = true;
    for line in log.lines() {
        let kept = if let Some(title) = top_section(line) {
            keep = !matches!(title, "PASSES" | "warnings summary")
                && !title.ends_with(" in <DUR>")
                && !title.starts_with("no tests ran");
            keep
        } else if let Some(title) = case_section(line) {
            keep = !passing_case(title);
            keep
        } else if let Some(rest) = summary_line(line) {
            !ids.contains(rest.split(" - ").next().unwrap_or(rest))
        } else {
            keep && !is_progress(line)
        };
        if kept {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn is_failing(status: &str) -> bool {
    status.eq_ignore_ascii_case("failed") || status.eq_ignore_ascii_case("error")
}

/// The failing part's hash, as an execution keeps it.
pub fn failing_part_hash(log: &str, old: &BTreeMap<String, String>) -> String {
    crate::hash::sha256_hex(failing_part(log, old))[..20].to_string()
}

fn fold(s: &str) -> String {
    crate::exec::normalize::normalize_log(s, &[])
        .trim_end()
        .to_string()
}

/// `=== TITLE ===` (normalized: the padding folded to three characters).
fn top_section(line: &str) -> Option<&str> {
    line.strip_prefix("=== ")?.strip_suffix(" ===")
}

/// `___ TITLE ___`.
fn case_section(line: &str) -> Option<&str> {
    line.strip_prefix("___ ")?.strip_suffix(" ___")
}

/// `STATUS NODE_ID[ - message]`: what follows the status.
fn summary_line(line: &str) -> Option<&str> {
    let (status, rest) = line.split_once(' ')?;
    matches!(
        status,
        "PASSED" | "FAILED" | "ERROR" | "SKIPPED" | "XFAIL" | "XPASS"
    )
    .then_some(rest)
}

/// `tests/test_x.py ..F. [<N>%]`: pytest's progress, one character per case.
fn is_progress(line: &str) -> bool {
    line.ends_with("%]") && line.contains(" [")
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
        passing_kills: vec![],
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
            Cell::KilledPassing => s.passing_kills.push(id.clone()),
            Cell::KilledLog | Cell::Survived => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parametrized module's normalized log on c_old: case [a] passes, [b] fails.
    const OLD: &str = "=== test session starts ===\ncollected <N> items\n\
        tests/test_t.py .F [<N>%]\n=== FAILURES ===\n___ test_t[b] ___\n\
        tests/test_t.py:<N>: in test_t\n assert f(x) == e\nE AssertionError: assert 'B' == 'b'\n\
        === PASSES ===\n=== short test summary info ===\nPASSED tests/test_t.py::test_t[a]\n\
        FAILED tests/test_t.py::test_t[b] - AssertionError: assert 'B' == 'b'\n\
        === <N> failed, <N> passed in <DUR> ===\n";

    fn statuses(a: &str, b: &str) -> BTreeMap<String, String> {
        [("a", a), ("b", b)]
            .into_iter()
            .map(|(c, s)| (format!("tests/test_t.py::test_t[{c}]"), s.to_string()))
            .collect()
    }

    fn runs<'a>(
        old: &'a BTreeMap<String, String>,
        on: &'a BTreeMap<String, String>,
        old_log: &str,
        on_log: &str,
        outcome: Outcome,
    ) -> Runs<'a> {
        Runs {
            same_log: old_log == on_log,
            old: Outcome::Failed,
            mutant: outcome,
            old_statuses: old,
            mutant_statuses: on,
            same_part: Some(failing_part(old_log, old) == failing_part(on_log, old)),
        }
    }

    #[test]
    fn a_change_only_in_a_case_that_passes_on_c_old_is_not_a_kill_of_the_failing_part() {
        let old = statuses("PASSED", "FAILED");
        // The mutant breaks case [a] too: a new section, a new summary line, other counts.
        let on_log = OLD
            .replace(
                "=== FAILURES ===\n",
                "=== FAILURES ===\n___ test_t[a] ___\nE AssertionError: assert 'X' == 'a'\n",
            )
            .replace(
                "PASSED tests/test_t.py::test_t[a]",
                "FAILED tests/test_t.py::test_t[a] - Ass...",
            )
            .replace(" .F ", " FF ");
        let on = statuses("FAILED", "FAILED");
        let cell = decide(runs(&old, &on, OLD, &on_log, Outcome::Failed));
        assert_eq!(cell, Cell::KilledPassing);
        assert!(cell.is_kill(), "the paper's rule: the log differs");
        assert!(!cell.is_failing_kill());
    }

    #[test]
    fn a_change_of_the_failing_case_is_a_kill_and_its_status_a_status_kill() {
        let old = statuses("PASSED", "FAILED");
        let on_log = OLD.replace("'B' == 'b'", "'C' == 'b'");
        let cell = decide(runs(&old, &old, OLD, &on_log, Outcome::Failed));
        assert_eq!(cell, Cell::KilledLog);
        assert!(cell.is_failing_kill());
        // The failing case errors on the mutant: its status changed.
        let on = statuses("PASSED", "ERROR");
        let cell = decide(runs(&old, &on, OLD, &on_log, Outcome::Error));
        assert_eq!(cell, Cell::KilledStatus);
        // It passes: a rescue, though [a] breaks.
        let on = statuses("FAILED", "PASSED");
        assert_eq!(
            decide(runs(&old, &on, OLD, &on_log, Outcome::Failed)),
            Cell::KilledStatus,
            "the module still fails: a status kill, not a rescue"
        );
    }

    #[test]
    fn a_section_no_passing_case_owns_stays_in_the_failing_part() {
        let old = statuses("PASSED", "FAILED");
        let part = failing_part(OLD, &old);
        assert!(part.contains("___ test_t[b] ___"), "{part}");
        assert!(part.contains("FAILED tests/test_t.py::test_t[b]"), "{part}");
        assert!(
            !part.contains("PASSED tests/test_t.py::test_t[a]"),
            "{part}"
        );
        assert!(!part.contains("[<N>%]"), "no progress line: {part}");
        // A collection error's section belongs to no case: it stays.
        let log = "=== ERRORS ===\n___ ERROR collecting tests/test_t.py ___\nE ImportError\n";
        assert!(failing_part(log, &old).contains("E ImportError"));
        // Numbers are folded in a log: a parametrized id with digits still matches.
        let digits: BTreeMap<String, String> = [(
            "tests/test_t.py::test_t[1-2]".to_string(),
            "PASSED".to_string(),
        )]
        .into();
        let log = "=== FAILURES ===\n___ test_t[<N>-<N>] ___\nE boom\n";
        assert_eq!(failing_part(log, &digits), "=== FAILURES ===\n");
    }
}
