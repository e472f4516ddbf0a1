//! Surrogate fixes judged by the repository's own tests (issue 26).
//!
//! A test that fails on `c_old` and passes on a mutant is *rescued*: the mutant behaves like a
//! fix for it, evidence that it fails for the reason a fix removes. But a mutant that rescues
//! a wrong-expectation test usually does so by breaking the code somewhere else (it stops a
//! check from raising, it changes a count), and the repository's own tests notice: a real
//! fix keeps them passing. So the repository's test modules that import a focal module are
//! the *witnesses*: each is run on `c_old` (traced, to know which mutants it can judge) and on
//! every mutant that rescues a candidate, and a rescuer is as plausible a fix as the share of
//! their `c_old`-passing tests it keeps passing. Under the BRT rule a failing test's best
//! rescuer's share ranks it before its kills (`selection::fitness_key`).
//!
//! Measured on the bundled pagekit example (examples/README.md): the two mutants that keep
//! its 18 repository tests green are on the fix's line and rescue only fail-to-pass tests,
//! and every rescuer of its wrong-expectation test breaks 3 to 8 of them.

use super::reach::{self, Span};
use super::session::{Execution, Generation, MutantId, SessionDoc, Target, TestScore, exec_key};
pub use super::session::{Verdict, Witness, Witnesses};
use crate::python::FocalFunction;
use std::collections::BTreeMap;
use std::path::Path;

/// At most this many witness modules: each rescuing mutant costs one execution per module.
pub const MAX_WITNESSES: usize = 8;

/// The repository's test modules that import a focal function's module (by its module name
/// on an `import` or `from` line), then those that import a package holding one and name a
/// focal function or its class (`from pagekit import Paginator`), each in path order; at most
/// `MAX_WITNESSES`, with their content.
pub fn find(repo: &Path, focal: &[FocalFunction]) -> Vec<(Witness, String)> {
    let modules: Vec<&str> = focal.iter().filter_map(|f| module_name(&f.file)).collect();
    let packages: Vec<&str> = focal
        .iter()
        .flat_map(|f| f.file.split('/').rev().skip(1))
        .collect();
    let names: Vec<&str> = focal
        .iter()
        .filter_map(|f| f.qualname.split('.').next())
        .collect();
    let mut found: Vec<(u8, Witness, String)> = vec![];
    for path in crate::python::files::python_files(repo) {
        if !crate::python::files::is_test_file(&path) || path.ends_with("conftest.py") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(repo.join(&path)) else {
            continue;
        };
        let rank = if imports_any(&text, &modules) {
            0
        } else if imports_any(&text, &packages) && words(&text).any(|w| names.contains(&w)) {
            1
        } else {
            continue;
        };
        let hash = crate::hash::sha256_hex(&text);
        found.push((
            rank,
            Witness {
                rel_path: path,
                hash,
            },
            text,
        ));
    }
    // Stable: path order within a rank.
    found.sort_by_key(|(rank, ..)| *rank);
    found
        .into_iter()
        .take(MAX_WITNESSES)
        .map(|(_, w, text)| (w, text))
        .collect()
}

/// `pkg/paginator.py` -> `paginator`, `pkg/__init__.py` -> `pkg`.
fn module_name(file: &str) -> Option<&str> {
    let stem = file.strip_suffix(".py")?;
    let mut parts = stem.rsplit('/');
    match parts.next()? {
        "__init__" => parts.next(),
        name => Some(name),
    }
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
}

fn imports_any(text: &str, modules: &[&str]) -> bool {
    text.lines().map(str::trim_start).any(|l| {
        (l.starts_with("import ") || l.starts_with("from "))
            && words(l).any(|w| modules.contains(&w))
    })
}

fn run<'d>(doc: &'d SessionDoc, w: &Witness, target: &Target) -> Option<&'d Execution> {
    doc.executions.get(&exec_key(&w.hash, target))
}

/// The verdict on `mutant` from the witnesses' runs, `None` while one has not run on it.
pub fn verdict(doc: &SessionDoc, mutant: &MutantId, span: Option<&Span>) -> Option<Verdict> {
    let modules = doc.witnesses.as_ref().map_or(&[][..], |w| &w.modules);
    let mut v = Verdict { kept: 0, of: 0 };
    let mut reached = false;
    for w in modules {
        let old = run(doc, w, &Target::Old)?;
        let on = run(doc, w, &Target::Mutant(mutant.clone()))?;
        // An untraced run (a backend that cannot trace) may have run anything.
        reached |= match (&old.lines, span) {
            (Some(lines), Some(span)) => reach::reaches(lines, span),
            _ => true,
        };
        let passed = |s: &String| s.eq_ignore_ascii_case("passed");
        for (id, status) in &old.status_map {
            if passed(status) {
                v.of += 1;
                v.kept += usize::from(on.status_map.get(id).is_some_and(passed));
            }
        }
    }
    if !reached {
        v = Verdict { kept: 0, of: 0 };
    }
    Some(v)
}

/// What the repository's tests said of a rescuing mutant, for the Pair screen and `show`: a
/// line with how many it keeps passing, then one line per test it breaks (indented), so that
/// nothing is cut at 80 columns. `None` before it was judged.
pub fn judgement(doc: &SessionDoc, mutant: &MutantId) -> Option<Vec<String>> {
    let w = doc.witnesses.as_ref()?;
    let v = w.verdicts.get(mutant)?;
    if !v.judged() {
        return Some(vec![format!(
            "the repository's tests ({} modules) never run this mutant's lines on c_old: \
             they cannot judge it",
            w.modules.len()
        )]);
    }
    let mut broken = vec![];
    for m in &w.modules {
        let (Some(old), Some(on)) = (
            run(doc, m, &Target::Old),
            run(doc, m, &Target::Mutant(mutant.clone())),
        ) else {
            continue;
        };
        let passed = |s: &String| s.eq_ignore_ascii_case("passed");
        broken.extend(
            old.status_map
                .iter()
                .filter(|(id, s)| passed(s) && !on.status_map.get(*id).is_some_and(passed))
                .map(|(id, _)| format!("  {id}")),
        );
    }
    let head = format!(
        "the repository's tests on this mutant: {} of {} passing{}",
        v.kept,
        v.of,
        if broken.is_empty() {
            " (a plausible fix)"
        } else {
            "; it breaks"
        }
    );
    Some(std::iter::once(head).chain(broken).collect())
}

/// Keeps `v` as the verdict on `mutant` (the witnesses were found before any is judged).
pub fn record(doc: &mut SessionDoc, mutant: MutantId, v: Verdict) {
    if let Some(w) = doc.witnesses.as_mut() {
        w.verdicts.insert(mutant, v);
    }
}

/// The mutants that rescue a test of `scores` and have no verdict yet.
pub fn unjudged(doc: &SessionDoc, scores: &BTreeMap<String, TestScore>) -> Vec<MutantId> {
    let judged = doc.witnesses.as_ref().map(|w| &w.verdicts);
    let mut out: Vec<MutantId> = scores
        .values()
        .filter(|s| !s.flaky)
        .flat_map(|s| s.rescues.iter())
        .filter(|m| judged.is_none_or(|j| !j.contains_key(*m)))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A test's best rescuer under the witnesses: the one keeping the largest share of their
/// tests, with its verdict (the first such in id order); `None` if no rescuer was judged.
pub fn best_rescue(doc: &SessionDoc, score: &TestScore) -> Option<(MutantId, Verdict)> {
    let verdicts = &doc.witnesses.as_ref()?.verdicts;
    let mut best: Option<(MutantId, Verdict)> = None;
    for m in &score.rescues {
        let Some(v) = verdicts.get(m).filter(|v| v.judged()) else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(_, b)| v.permille() > b.permille())
        {
            best = Some((m.clone(), *v));
        }
    }
    best
}

/// The mutants that rescued some test in `generations` (a session's so far), the most
/// plausible fixes first (by verdict, unjudged last), then in id order.
pub fn known_rescuers(doc: &SessionDoc, generations: &[Generation]) -> Vec<MutantId> {
    let mut out: Vec<MutantId> = generations
        .iter()
        .flat_map(|g| g.scores.values())
        .filter(|s| !s.flaky)
        .flat_map(|s| s.rescues.iter().cloned())
        .collect();
    out.sort();
    out.dedup();
    let verdicts = doc.witnesses.as_ref().map(|w| &w.verdicts);
    let plausibility = |m: &MutantId| verdicts.and_then(|v| v.get(m)).map_or(0, |v| v.permille());
    // Stable: id order among equals.
    out.sort_by_key(|m| std::cmp::Reverse(plausibility(m)));
    out
}

/// `order` with the mutants of `first` it holds moved to its front, in `first`'s order, at
/// most `cap` of them.
pub fn first_of(order: Vec<MutantId>, first: &[MutantId], cap: usize) -> Vec<MutantId> {
    let front: Vec<MutantId> = first
        .iter()
        .filter(|m| order.contains(m))
        .take(cap)
        .cloned()
        .collect();
    let mut out = front.clone();
    out.extend(order.into_iter().filter(|m| !front.contains(m)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witnesses_are_the_test_modules_importing_a_focal_module() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, s: &str| {
            let path = d.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, s).unwrap();
        };
        w("pkg/paginator.py", "def page(): pass\n");
        w("pkg/other.py", "def x(): pass\n");
        w(
            "tests/test_pages.py",
            "from pkg.paginator import Paginator\n",
        );
        w("tests/test_rel.py", "import pkg.paginator as p\n");
        w(
            "tests/test_other.py",
            "from pkg import other\n# paginator\n",
        );
        w("tests/test_pkg.py", "from pkg import Paginator\n");
        w("tests/conftest.py", "from pkg.paginator import page\n");
        w("tests/helpers.py", "from pkg.paginator import page\n");
        let focal = vec![FocalFunction {
            file: "pkg/paginator.py".into(),
            qualname: "Paginator.page".into(),
        }];
        let found: Vec<String> = find(d.path(), &focal)
            .into_iter()
            .map(|(w, _)| w.rel_path)
            .collect();
        // By the module first, then by the package and a focal name.
        assert_eq!(
            found,
            [
                "tests/test_pages.py",
                "tests/test_rel.py",
                "tests/test_pkg.py"
            ]
        );
        assert_eq!(module_name("pkg/__init__.py"), Some("pkg"));
    }

    /// A session whose one witness module ran on `c_old` (tests a, b and c; c fails there,
    /// tracing lines 1-3 of pkg/m.py) and on mutant m1 (`on`: what a and b did).
    fn judged(on: [&str; 2]) -> SessionDoc {
        use crate::engine::session::fixtures;
        let dir = tempfile::tempdir().unwrap();
        let cfg = fixtures::config(crate::engine::config::SelectionStrategy::Mutation);
        let cand = (
            "test_x.py".into(),
            "def test_x():\n    assert 0\n".to_string(),
        );
        let mut doc = fixtures::session(dir.path(), cfg, vec![cand]);
        let w = Witness {
            rel_path: "tests/test_m.py".into(),
            hash: "w".repeat(64),
        };
        let status = |a: &str, b: &str, c: &str| {
            [("a", a), ("b", b), ("c", c)]
                .into_iter()
                .map(|(id, s)| (format!("tests/test_m.py::test_{id}"), s.to_string()))
                .collect()
        };
        let mut old = fixtures::old_run(&w.hash, crate::exec::Outcome::Failed, None, None);
        old.status_map = status("PASSED", "PASSED", "FAILED");
        old.lines = Some(BTreeMap::from([("pkg/m.py".to_string(), vec![1, 2, 3])]));
        let mut mutant = old.clone();
        mutant.target = Target::Mutant("m1".into());
        mutant.status_map = status(on[0], on[1], "PASSED");
        mutant.lines = None;
        doc.executions.insert(exec_key(&w.hash, &Target::Old), old);
        doc.executions
            .insert(exec_key(&w.hash, &Target::Mutant("m1".into())), mutant);
        doc.witnesses = Some(Witnesses {
            modules: vec![w],
            verdicts: BTreeMap::new(),
        });
        doc
    }

    fn span(first: u32) -> Span {
        Span {
            file: "pkg/m.py".into(),
            first,
            last: first,
        }
    }

    #[test]
    fn a_verdict_counts_the_tests_passing_on_c_old_that_still_pass() {
        let doc = judged(["PASSED", "FAILED"]);
        let m1 = "m1".to_string();
        // c fails on c_old: that it passes on the mutant counts for nothing.
        let v = verdict(&doc, &m1, Some(&span(2))).unwrap();
        assert_eq!((v.kept, v.of, v.permille()), (1, 2, 500));
        // A mutant on a line no witness runs on c_old cannot be judged by them.
        let v = verdict(&doc, &m1, Some(&span(9))).unwrap();
        assert!(!v.judged());
        // Not run under the witnesses yet: no verdict.
        assert_eq!(verdict(&doc, &"m2".to_string(), Some(&span(2))), None);
    }

    #[test]
    fn the_judgement_names_what_the_rescuer_breaks() {
        let mut doc = judged(["FAILED", "ERROR"]);
        let m1 = "m1".to_string();
        assert_eq!(judgement(&doc, &m1), None, "not judged yet");
        let v = verdict(&doc, &m1, Some(&span(1))).unwrap();
        record(&mut doc, m1.clone(), v);
        assert_eq!(
            judgement(&doc, &m1).unwrap(),
            [
                "the repository's tests on this mutant: 0 of 2 passing; it breaks",
                "  tests/test_m.py::test_a",
                "  tests/test_m.py::test_b"
            ]
        );
        let mut doc = judged(["PASSED", "passed"]);
        let v = verdict(&doc, &m1, Some(&span(1))).unwrap();
        record(&mut doc, m1.clone(), v);
        assert_eq!(
            judgement(&doc, &m1).unwrap(),
            ["the repository's tests on this mutant: 2 of 2 passing (a plausible fix)"]
        );
    }

    #[test]
    fn known_rescuers_go_first_up_to_the_cap() {
        let order: Vec<MutantId> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let first = ["d".to_string(), "b".to_string(), "z".to_string()];
        assert_eq!(first_of(order.clone(), &first, 1), ["d", "a", "b", "c"]);
        assert_eq!(first_of(order, &first, 5), ["d", "b", "a", "c"]);
    }
}
