//! A session's kill matrix in the mutation-testing-report-schema (version 2) that Stryker's
//! mutation-testing-elements viewer and its HTML report read: every mutant of the pool with its
//! status, `killedBy` and `coveredBy` (the tests that execute its lines) over the whole
//! session, and the candidate tests as the report's tests. So people can look at a run with a
//! tool they already have.

use super::kill::{self, Cell};
use super::reach;
use super::session::{SessionDoc, Target};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// 1-based line and column of byte offset `at` in `src`.
fn position(src: &str, at: usize) -> Value {
    let at = at.min(src.len());
    let before = &src[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    json!({"line": line, "column": column})
}

/// The report. Sources come from the session's repository when it is there (a report of a
/// session from elsewhere has empty sources, which the viewer shows as such).
pub fn mutation_report(doc: &SessionDoc) -> Value {
    let mut files: BTreeMap<String, Value> = BTreeMap::new();
    let Some(pool) = &doc.pool else {
        return json!({"schemaVersion": "2", "thresholds": {"high": 80, "low": 60}, "files": {}});
    };
    // Every test that ran on each mutant, and the ones that killed it (flaky tests excluded:
    // their differences prove nothing).
    let flaky: BTreeSet<&String> = doc
        .generations
        .iter()
        .flat_map(|g| g.scores.iter().filter(|(_, s)| s.flaky).map(|(t, _)| t))
        .collect();
    // What each test's traced c_old run executed, against each mutant's lines: a test that
    // ran on a mutant without executing its lines does not cover it (as the Grid's `_`).
    let spans = reach::spans(&pool.mutants, reach::from_disk(doc));
    for m in &pool.mutants {
        let mut ran = 0;
        let mut covered = vec![];
        let mut killed = vec![];
        let mut timeouts = 0;
        for t in doc.tests.keys() {
            let (Some(old), Some(run)) = (
                doc.execution(t, &Target::Old),
                doc.execution(t, &Target::Mutant(m.id.clone())),
            ) else {
                continue;
            };
            ran += 1;
            let c = kill::cell(old, run);
            let reached = reach::test_lines(doc, t)
                .zip(spans.get(&m.id))
                .is_none_or(|(lines, span)| reach::reaches(lines, span));
            if reached || c.is_kill() {
                covered.push(t.clone());
            }
            if c.is_kill() && !flaky.contains(t) {
                killed.push(t.clone());
                timeouts += usize::from(c == Cell::TimedOut);
            }
        }
        let (status, reason) = match (ran, covered.is_empty(), killed.is_empty()) {
            (0, _, _) => ("Ignored", "in no generation's sample: no test ran on it"),
            (_, true, _) => (
                "NoCoverage",
                "no test that ran on it executes its lines on c_old",
            ),
            (_, _, false) if timeouts == killed.len() => {
                ("Timeout", "every test that killed it timed out on it")
            }
            (_, _, false) => ("Killed", "a test's normalized log differs on it"),
            (_, _, true) => ("Survived", "every test logged on it as on c_old"),
        };
        let src = std::fs::read_to_string(doc.inputs.repo.join(&m.file)).unwrap_or_default();
        let entry = files
            .entry(m.file.clone())
            .or_insert_with(|| json!({"language": "python", "source": src, "mutants": []}));
        if let Some(a) = entry["mutants"].as_array_mut() {
            let scope = m.scope.map(|s| {
                format!(
                    "a mutant of a {} of the focal functions (the pool widened)",
                    s.as_str()
                )
            });
            let mut record = json!({
                "id": m.id,
                "mutatorName": m.kind.as_str(),
                "replacement": m.replacement,
                "location": {"start": position(&src, m.start), "end": position(&src, m.end)},
                "status": status,
                "statusReason": reason,
                "killedBy": killed,
                "coveredBy": covered,
                "testsCompleted": ran,
            });
            if let Some(d) = scope {
                record["description"] = d.into();
            }
            a.push(record);
        }
    }
    let mut test_files: BTreeMap<String, Value> = BTreeMap::new();
    for c in doc.tests.values() {
        let e = test_files
            .entry(c.rel_path.clone())
            .or_insert_with(|| json!({"source": c.source, "tests": []}));
        if let Some(a) = e["tests"].as_array_mut() {
            a.push(json!({"id": c.id, "name": format!("{} ({})", c.name, c.id)}));
        }
    }
    json!({
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": doc.inputs.repo,
        "files": files,
        "testFiles": test_files,
        "framework": {"name": "evootter", "version": env!("CARGO_PKG_VERSION")},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_lines_and_columns() {
        let src = "ab\ncde\nf";
        assert_eq!(position(src, 0), json!({"line": 1, "column": 1}));
        assert_eq!(position(src, 4), json!({"line": 2, "column": 2}));
        assert_eq!(position(src, 99), json!({"line": 3, "column": 2}));
    }
}
