//! The widened scope: a focal function too small for the pool that `m` asks for brings the
//! mutants of its callees and callers in the same file, each marked; `--mutant-scope focal`
//! and a focal function that yields enough do not.

use crate::common::*;
use std::path::{Path, PathBuf};

const NUMS: &str = "\
def parse(text):
    return [int(p) for p in text.split(',') if p.strip()]


def halve(x):
    return x // 2


def halves(text):
    total = 0
    for v in parse(text):
        total += halve(v)
    return total


def unrelated(a, b):
    return a * b + 1
";

fn nums_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("lib")).unwrap();
    std::fs::write(repo.join("lib/__init__.py"), "").unwrap();
    std::fs::write(repo.join("lib/nums.py"), NUMS).unwrap();
    repo
}

/// `evootter mutants --json` of `halve`, as (function, scope) per mutant.
fn pool(repo: &Path, extra: &[&str]) -> Vec<(String, serde_json::Value)> {
    let args: Vec<&str> = ["--focal", "lib/nums.py::halve"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    mutants_json(repo, &args)
        .iter()
        .map(|m| {
            (
                m["function"].as_str().unwrap().to_string(),
                m["scope"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_small_focal_function_brings_its_callers_mutants_marked() {
    let dir = tempfile::tempdir().unwrap();
    let repo = nums_repo(dir.path());
    let widened = pool(&repo, &[]);
    let focal = widened.iter().filter(|(f, _)| f == "halve").count();
    assert!(focal > 0 && focal < 20, "halve yields {focal}: {widened:?}");
    for (f, scope) in &widened {
        match f.as_str() {
            "halve" => assert!(scope.is_null(), "{f}: {scope}"),
            // halves calls halve: a caller. parse is only called by the caller, unrelated by
            // nobody: neither is a neighbour.
            "halves" => assert_eq!(scope, "caller"),
            other => panic!("{other} is no neighbour of halve: {widened:?}"),
        }
    }
    assert!(widened.iter().any(|(f, _)| f == "halves"), "{widened:?}");

    let paper = pool(&repo, &["--mutant-scope", "focal"]);
    assert_eq!(paper.len(), focal, "{paper:?}");
    assert!(paper.iter().all(|(f, s)| f == "halve" && s.is_null()));

    // A pool of 3 asked: halve yields it, nothing is widened.
    let small = pool(&repo, &["--count", "3"]);
    assert_eq!(small.len(), 3);
    assert!(small.iter().all(|(f, _)| f == "halve"), "{small:?}");
}

#[test]
fn a_run_says_it_widened_and_marks_the_mutants_in_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let repo = nums_repo(dir.path());
    let before = fingerprint(&repo);
    let cands = dir.path().join("cands");
    std::fs::create_dir(&cands).unwrap();
    std::fs::write(
        cands.join("test_sum.py"),
        "from lib.nums import halves\n\ndef test_sum():\n    assert halves('4,6') == 5\n",
    )
    .unwrap();
    std::fs::write(
        cands.join("test_odd.py"),
        "from lib.nums import halves\n\ndef test_odd():\n    assert halves('5,7') == 6\n",
    )
    .unwrap();
    let issue = dir.path().join("issue.md");
    std::fs::write(
        &issue,
        "halves() rounds every odd value down; 5,7 should give 6.\n",
    )
    .unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let o = bin()
            .args(["run", "--repo"])
            .arg(&repo)
            .arg("--issue")
            .arg(&issue)
            .args(["--focal", "lib/nums.py::halve", "--initial-tests"])
            .arg(&cands)
            .args(["--tests", "2", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        (
            read_json(&out.join("report.json")),
            read_json(&out.join("session.json")),
        )
    };

    let (report, session) = run("widened", &[]);
    assert_eq!(report["mutant_scope"], "widened");
    let callers = report["widened"]["caller"].as_u64().unwrap_or(0);
    assert!(callers > 0, "{:#}", report["widened"]);
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("the pool adds") && notes.contains("of callers"),
        "{notes}"
    );
    let mutants = session["pool"]["mutants"].as_array().unwrap();
    let marked = mutants.iter().filter(|m| m["scope"] == "caller").count();
    assert_eq!(marked as u64, callers);
    assert!(
        mutants
            .iter()
            .all(|m| (m["function"] == "halves") == (m["scope"] == "caller")),
        "only the caller's mutants are marked"
    );
    // The caller's mutants were sampled where the tests run them: the generation ran some.
    let sampled = session["generations"][0]["mutants"].as_array().unwrap();
    assert!(
        sampled.iter().any(|id| mutants
            .iter()
            .any(|m| &m["id"] == id && m["scope"] == "caller")),
        "{sampled:?}"
    );

    let (report, session) = run("focal", &["--mutant-scope", "focal"]);
    assert_eq!(report["mutant_scope"], "focal");
    assert_eq!(report["widened"], serde_json::json!({}));
    assert!(
        session["pool"]["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.get("scope").is_none())
    );
    assert_eq!(
        before,
        fingerprint(&repo),
        "the repository is never modified"
    );
}
