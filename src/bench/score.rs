//! Scoring a final test the way the public harnesses do, from its runs on `c_old` and on
//! `c_old` plus the golden patch (junit statuses and exit codes, never the log text: a test
//! that prints "PASSED" gains nothing):
//!
//! - TDD-Bench-Verified: some test of the file fails or errors before the fix; after it at
//!   least one passes and none fails or errors. Its coverage-weighted score: that rule times
//!   the fraction of the golden patch's changed code lines the test covers, measured as its
//!   harness measures it: coverage.py with branch coverage, the deleted lines on the code
//!   before the fix and the added ones on the fixed code, a line covered unless coverage's
//!   "Missing" column lists it (so a line that is not a statement counts as covered, a range
//!   covers the lines between its statements, a partial branch marks both its ends). Where
//!   coverage.py cannot be imported, evootter's line tracer measures and the score says so.
//!   Unlike that harness, a changed file the test never imports counts as uncovered.
//! - SWT-bench: the file's fail-to-pass set (not passing before, passing after) is non-empty,
//!   and it has no pass-to-fail (passing before, not passing after).

use crate::engine::{Execution, SessionDoc, Target};
use crate::exec::ExecResult;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub final_test: Option<String>,
    /// evootter's own reading: fails (or errors) on `c_old`, passes with the fix.
    pub f2p: bool,
    pub tdd: bool,
    pub swt: bool,
    /// Fraction of the golden patch's changed code lines the final test covers (deleted ones
    /// on the code before the fix, added ones on the fixed code).
    pub coverage: Option<f64>,
    pub changed_lines: usize,
    pub covered_lines: usize,
    /// TDD-Bench-Verified's score: `tdd` weighted by `coverage` (by 1 for sympy, which it
    /// scores without coverage; by 0 when the patch changes no code line).
    #[serde(default)]
    pub tdd_score: f64,
    /// What measured the coverage: `coverage 7.6.1`, or evootter's line tracer and why.
    #[serde(default)]
    pub measured_with: Option<String>,
    pub fail_to_pass: Vec<String>,
    pub pass_to_fail: Vec<String>,
    /// `--validate`: per mutant kind of the focal pool, (mutants, killed by the developer's
    /// tests) (`golden_kills`; the paper's Sec. V-C).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub golden_kills: super::golden_kills::KindKills,
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

/// The code lines of each file of a unified diff that it deletes (`after == false`, numbered
/// as before it) or adds (`after == true`, numbered as after it). Blank lines and comment-only
/// lines are left out: they never run.
pub fn patch_lines(patch: &str, after: bool) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let (mut old_file, mut new_file): (Option<String>, Option<String>) = (None, None);
    let (mut old_line, mut new_line) = (0u32, 0u32);
    let path = |p: &str, prefix: &str| {
        p.strip_prefix(prefix)
            .map(|p| p.split('\t').next().unwrap_or(p).to_string())
            .filter(|p| p != "/dev/null" && !p.is_empty())
    };
    let mut code = |f: &Option<String>, l: u32, text: &str| {
        let text = text.trim();
        if let Some(f) = f
            && !text.is_empty()
            && !text.starts_with('#')
        {
            out.entry(f.clone()).or_default().push(l);
        }
    };
    for l in patch.lines() {
        if let Some(p) = l.strip_prefix("--- ") {
            old_file = path(p, "a/");
            continue;
        }
        if let Some(p) = l.strip_prefix("+++ ") {
            new_file = path(p, "b/");
            continue;
        }
        if let Some(h) = l.strip_prefix("@@ ") {
            // @@ -a,b +c,d @@
            let start = |sign: char| {
                h.split_whitespace()
                    .find_map(|t| t.strip_prefix(sign))
                    .and_then(|t| t.split(',').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1)
            };
            (old_line, new_line) = (start('-'), start('+'));
            continue;
        }
        if let Some(added) = l.strip_prefix('+') {
            if after {
                code(&new_file, new_line, added);
            }
            new_line += 1;
        } else if let Some(deleted) = l.strip_prefix('-') {
            if !after {
                code(&old_file, old_line, deleted);
            }
            old_line += 1;
        } else if l.starts_with(' ') || l.is_empty() {
            old_line += 1;
            new_line += 1;
        }
    }
    out
}

/// The lines of a file that coverage's "Missing" column marks as not run, read as
/// TDD-Bench-Verified's harness reads it: `7` is line 7, `7-9` every line from 7 to 9, `12->15`
/// (a branch not taken) both 12 and 15, `3->exit` line 3.
pub fn missing_lines(column: &str) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for item in column.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let n = |t: &str| t.trim().parse::<u32>().ok();
        if let Some((from, to)) = item.split_once("->") {
            out.extend(n(from));
            if to.trim() != "exit" {
                out.extend(n(to));
            }
        } else if let Some((from, to)) = item.split_once('-') {
            if let (Some(a), Some(b)) = (n(from), n(to)) {
                out.extend(a..=b);
            }
        } else {
            out.extend(n(item));
        }
    }
    out
}

/// How many of `lines` (of `file`) the run covers: not in coverage's Missing column where
/// coverage.py measured the file, else among the lines the line tracer saw run. A run that
/// did not measure the file covers none of them.
fn covered(run: Option<&ExecResult>, file: &str, lines: &[u32]) -> usize {
    let Some(run) = run else { return 0 };
    if let Some(f) = run.coverage.as_ref().and_then(|c| c.files.get(file)) {
        let missing = missing_lines(&f.missing);
        return lines.iter().filter(|l| !missing.contains(l)).count();
    }
    let ran = run.lines_of(file).unwrap_or_default();
    lines.iter().filter(|l| ran.contains(l)).count()
}

/// What measured a run's coverage, for the score.
fn measured_with(run: &ExecResult) -> Option<String> {
    let c = run.coverage.as_ref()?;
    Some(match &c.why {
        Some(why) => format!("{} ({why})", c.tool),
        None => c.tool.clone(),
    })
}

/// The score of a finished session's final test. `before` and `after` are its coverage runs
/// on the code before the fix and on the fixed code (`None` when there were none to make);
/// `weigh_coverage` is false for a repository TDD-Bench scores without coverage (sympy).
pub fn score(
    doc: &SessionDoc,
    before: Option<&ExecResult>,
    after: Option<&ExecResult>,
    patch: &str,
    weigh_coverage: bool,
) -> Score {
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
    for (run, after_fix) in [(before, false), (after, true)] {
        for (f, lines) in patch_lines(patch, after_fix) {
            s.changed_lines += lines.len();
            s.covered_lines += covered(run, &f, &lines);
        }
    }
    s.measured_with = after.or(before).and_then(measured_with);
    if s.changed_lines > 0 {
        s.coverage = Some(s.covered_lines as f64 / s.changed_lines as f64);
    }
    let weight = if weigh_coverage {
        s.coverage.unwrap_or(0.0)
    } else {
        1.0
    };
    s.tdd_score = if s.tdd { weight } else { 0.0 };
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
    fn patch_lines_are_deleted_code_lines_before_and_added_ones_after() {
        let patch = "diff --git a/p/m.py b/p/m.py\n--- a/p/m.py\n+++ b/p/m.py\n@@ -10,5 +10,6 @@ def f():\n     x = 1\n-    y = 2\n-    # old\n+    y = 3\n+\n+    # why\n+    z = y\n     return x\ndiff --git a/p/new.py b/p/new.py\n--- /dev/null\n+++ b/p/new.py\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n";
        assert_eq!(
            patch_lines(patch, true),
            BTreeMap::from([
                ("p/m.py".to_string(), vec![11, 14]),
                ("p/new.py".to_string(), vec![1, 2])
            ])
        );
        assert_eq!(
            patch_lines(patch, false),
            BTreeMap::from([("p/m.py".to_string(), vec![11])])
        );
    }

    #[test]
    fn the_missing_column_reads_as_tdd_bench_reads_it() {
        let m = missing_lines("3, 7-9, 12->15, 20->exit, 31");
        assert_eq!(
            m.into_iter().collect::<Vec<_>>(),
            [3, 7, 8, 9, 12, 15, 20, 31]
        );
        assert!(missing_lines("").is_empty());
    }

    fn measured(file: &str, missing: &str, ran: &[u32]) -> ExecResult {
        let mut r = crate::exec::scripted::result(Outcome::Passed, "");
        r.trace = Some(BTreeMap::from([(file.to_string(), ran.to_vec())]));
        r.coverage = Some(crate::exec::Coverage {
            tool: "coverage 7.0".into(),
            why: None,
            files: BTreeMap::from([(
                file.to_string(),
                crate::exec::FileCoverage {
                    statements: vec![],
                    missing: missing.into(),
                },
            )]),
        });
        r
    }

    #[test]
    fn coverage_weighs_both_sides_of_the_patch() {
        use crate::engine::session::fixtures;
        let dir = tempfile::tempdir().unwrap();
        let config = fixtures::config(crate::engine::SelectionStrategy::Llm);
        let cand = ("tests/test_t.py".into(), "def test_t():\n    pass\n".into());
        let mut doc = fixtures::session(dir.path(), config, vec![cand]);
        doc.final_test = Some("t".into());
        let patch = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f(x):\n-    return x\n+    return -x\n x = 1\n";
        // Before the fix line 2 is missing, after it line 2 ran: half of the changed lines.
        let before = measured("m.py", "2", &[1, 3]);
        let after = measured("m.py", "", &[1, 2, 3]);
        let s = score(&doc, Some(&before), Some(&after), patch, true);
        assert_eq!((s.changed_lines, s.covered_lines), (2, 1));
        assert_eq!(s.coverage, Some(0.5));
        assert_eq!(s.measured_with.as_deref(), Some("coverage 7.0"));
        // Without coverage.py the line tracer's lines decide; a run that is missing covers
        // nothing.
        let mut lines = after.clone();
        lines.coverage = None;
        let s = score(&doc, None, Some(&lines), patch, true);
        assert_eq!((s.changed_lines, s.covered_lines), (2, 1));
        assert_eq!(s.measured_with, None);
        // Not TDD: a score of 0 whatever the coverage.
        assert_eq!(s.tdd_score, 0.0);
    }
}
