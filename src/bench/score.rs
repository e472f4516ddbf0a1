//! Scoring a final test the way the public harnesses do, from its runs on `c_old` and on
//! `c_old` plus the golden patch (junit statuses and exit codes, never the log text: a test
//! that prints "PASSED" gains nothing):
//!
//! - TDD-Bench-Verified: some test of the file fails or errors before the fix; after it at
//!   least one passes and none fails or errors. Its coverage-weighted score: the fraction of the
//!   golden patch's changed lines the test runs on the fixed code.
//! - SWT-bench: the file's fail-to-pass set (not passing before, passing after) is non-empty,
//!   and it has no pass-to-fail (passing before, not passing after).

use crate::engine::{Execution, SessionDoc, Target};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub final_test: Option<String>,
    /// evootter's own reading: fails (or errors) on `c_old`, passes with the fix.
    pub f2p: bool,
    pub tdd: bool,
    pub swt: bool,
    /// Fraction of the golden patch's changed lines the final test runs on the fixed code.
    pub coverage: Option<f64>,
    pub changed_lines: usize,
    pub covered_lines: usize,
    pub fail_to_pass: Vec<String>,
    pub pass_to_fail: Vec<String>,
}

fn passed(s: Option<&String>) -> bool {
    s.is_some_and(|s| s == "PASSED" || s == "XPASS")
}

fn failing(s: &str) -> bool {
    s == "FAILED" || s == "ERROR"
}

/// The test nodes of a run (a module that failed to collect counts as one failing node).
fn nodes(e: &Execution) -> &BTreeMap<String, String> {
    &e.status_map
}

/// The harness rules on the final test's two runs.
pub fn rules(before: &Execution, after: &Execution) -> (bool, bool, Vec<String>, Vec<String>) {
    let (b, a) = (nodes(before), nodes(after));
    let tdd_before = b.values().any(|s| failing(s))
        || (b.is_empty() && before.outcome != crate::exec::Outcome::Passed);
    let tdd_after = a.values().any(|s| s == "PASSED") && !a.values().any(|s| failing(s));
    let tdd = tdd_before && tdd_after && after.exit_code == Some(0);
    // A node absent before (the module did not even collect) was not passing.
    let all: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut f2p = vec![];
    let mut p2f = vec![];
    for n in all {
        let (was, is) = (passed(b.get(n)), passed(a.get(n)));
        if !was && is && a.contains_key(n) {
            f2p.push(n.clone());
        }
        if was && !is {
            p2f.push(n.clone());
        }
    }
    let swt = !f2p.is_empty() && p2f.is_empty() && after.exit_code == Some(0);
    (tdd, swt, f2p, p2f)
}

/// The lines each file of a unified diff has after it, that it adds or changes (blank lines
/// and comment-only lines left out: they never run).
pub fn changed_lines(patch: &str) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut line = 0u32;
    for l in patch.lines() {
        if let Some(p) = l.strip_prefix("+++ ") {
            file = p
                .strip_prefix("b/")
                .map(str::to_string)
                .filter(|p| p != "/dev/null" && !p.is_empty());
            continue;
        }
        if l.starts_with("--- ") {
            continue;
        }
        if let Some(h) = l.strip_prefix("@@ ") {
            // @@ -a,b +c,d @@
            line = h
                .split_whitespace()
                .find_map(|t| t.strip_prefix('+'))
                .and_then(|t| t.split(',').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            continue;
        }
        let Some(f) = &file else { continue };
        if let Some(added) = l.strip_prefix('+') {
            let code = added.trim();
            if !code.is_empty() && !code.starts_with('#') {
                out.entry(f.clone()).or_default().push(line);
            }
            line += 1;
        } else if l.starts_with(' ') || l.is_empty() {
            line += 1;
        }
    }
    out.retain(|_, v| !v.is_empty());
    out
}

/// The score of a finished session's final test, with `traced`: for each file the golden
/// patch changes, the lines the final test ran on the fixed code.
pub fn score(doc: &SessionDoc, traced: &BTreeMap<String, Vec<u32>>, patch: &str) -> Score {
    let Some(t) = doc.final_test.clone() else {
        return Score::default();
    };
    let mut s = Score {
        final_test: Some(t.clone()),
        f2p: doc.evaluation.get(&t).is_some_and(|e| e.f2p),
        ..Default::default()
    };
    if let (Some(b), Some(a)) = (
        doc.execution(&t, &Target::Old),
        doc.execution(&t, &Target::Golden),
    ) {
        let (tdd, swt, f2p, p2f) = rules(b, a);
        s.tdd = tdd;
        s.swt = swt;
        s.fail_to_pass = f2p;
        s.pass_to_fail = p2f;
    }
    let changed = changed_lines(patch);
    s.changed_lines = changed.values().map(Vec::len).sum();
    s.covered_lines = changed
        .iter()
        .map(|(f, lines)| {
            let ran = traced.get(f);
            lines
                .iter()
                .filter(|l| ran.is_some_and(|r| r.contains(l)))
                .count()
        })
        .sum();
    if s.changed_lines > 0 {
        s.coverage = Some(s.covered_lines as f64 / s.changed_lines as f64);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Outcome;

    fn run(statuses: &[(&str, &str)], outcome: Outcome, code: i32) -> Execution {
        let mut e = crate::engine::session::fixtures::old_run("h", outcome, None, None);
        e.exit_code = Some(code);
        e.status_map = statuses
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        e
    }

    #[test]
    fn the_harness_rules_read_statuses_not_text() {
        let before = run(
            &[("t.py::a", "FAILED"), ("t.py::b", "PASSED")],
            Outcome::Failed,
            1,
        );
        let after = run(
            &[("t.py::a", "PASSED"), ("t.py::b", "PASSED")],
            Outcome::Passed,
            0,
        );
        let (tdd, swt, f2p, p2f) = rules(&before, &after);
        assert!(tdd && swt);
        assert_eq!(f2p, ["t.py::a"]);
        assert!(p2f.is_empty());

        // A pass that turns into a failure breaks SWT-bench's rule (and TDD-Bench's).
        let after = run(
            &[("t.py::a", "PASSED"), ("t.py::b", "FAILED")],
            Outcome::Failed,
            1,
        );
        let (tdd, swt, _, p2f) = rules(&before, &after);
        assert!(!tdd && !swt);
        assert_eq!(p2f, ["t.py::b"]);

        // A collection error before counts as failing; the tests that then pass are F2P.
        let before = run(&[("t.py", "ERROR")], Outcome::Error, 2);
        let after = run(&[("t.py::a", "PASSED")], Outcome::Passed, 0);
        let (tdd, swt, f2p, _) = rules(&before, &after);
        assert!(tdd && swt, "{f2p:?}");

        // Passing on both is nothing; a non-zero exit after is nothing either.
        let both = run(&[("t.py::a", "PASSED")], Outcome::Passed, 0);
        assert!(!rules(&both, &both).0 && !rules(&both, &both).1);
        let lying = run(&[("t.py::a", "PASSED")], Outcome::Passed, 1);
        let before = run(&[("t.py::a", "FAILED")], Outcome::Failed, 1);
        assert!(!rules(&before, &lying).0 && !rules(&before, &lying).1);
    }

    #[test]
    fn changed_lines_are_the_fixed_files_added_code_lines() {
        let patch = "diff --git a/p/m.py b/p/m.py\n--- a/p/m.py\n+++ b/p/m.py\n@@ -10,4 +10,5 @@ def f():\n     x = 1\n-    y = 2\n+    y = 3\n+\n+    # why\n     return x\n";
        assert_eq!(
            changed_lines(patch),
            BTreeMap::from([("p/m.py".to_string(), vec![11])])
        );
    }
}
