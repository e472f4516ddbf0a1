//! Surrogate fixes judged by the repository's own tests: a real fix keeps them passing, a
//! mutant that rescues by breaking the code elsewhere does not.
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

/// Which tests of witness module `w` run on `mutant` (covered-test selection, as mutation
/// tools do it): `Some(tests)`, the node ids after the file of its `c_old`-passing tests
/// that run the mutant's lines there (none: no run is needed, every test behaves as on
/// `c_old`); `None`: the whole module runs (it was not traced test by test, or its lines run
/// while the module is collected, outside any test).
pub fn covering(
    doc: &SessionDoc,
    w: &Witness,
    mutant: &MutantId,
    span: Option<&Span>,
) -> Option<Vec<String>> {
    let judges = doc.witnesses.as_ref()?.judges.get(&w.rel_path)?;
    let index = doc
        .pool
        .iter()
        .flat_map(|p| p.mutants.iter())
        .position(|m| &m.id == mutant)?;
    let tests: Vec<String> = judges
        .iter()
        .filter(|(_, bits)| has_bit(bits, index))
        .map(|(t, _)| t.clone())
        .collect();
    if tests.is_empty() {
        let at_collection = match (
            run(doc, w, &Target::Old).and_then(|e| e.lines.as_ref()),
            span,
        ) {
            (Some(lines), Some(span)) => reach::reaches(lines, span),
            _ => true,
        };
        if at_collection {
            return None;
        }
    }
    Some(tests)
}

/// `reached[i]` as hex digits, four mutants a digit, the first in the lowest bit.
pub fn bits(reached: &[bool]) -> String {
    reached
        .chunks(4)
        .map(|c| {
            let d = c
                .iter()
                .enumerate()
                .fold(0u32, |d, (i, r)| d | (u32::from(*r) << i));
            char::from_digit(d, 16).unwrap_or('0')
        })
        .collect()
}

fn has_bit(bits: &str, i: usize) -> bool {
    bits.chars()
        .nth(i / 4)
        .and_then(|c| c.to_digit(16))
        .is_some_and(|d| d & (1 << (i % 4)) != 0)
}

/// The verdict on `mutant` from the witnesses' runs, `None` while one that is needed has not
/// run on it. A test that does not run the mutant's lines on `c_old` (`covering`) keeps its
/// `c_old` status without being run.
pub fn verdict(doc: &SessionDoc, mutant: &MutantId, span: Option<&Span>) -> Option<Verdict> {
    let modules = doc.witnesses.as_ref().map_or(&[][..], |w| &w.modules);
    let mut v = Verdict { kept: 0, of: 0 };
    let mut reached = false;
    for w in modules {
        let old = run(doc, w, &Target::Old)?;
        let selected = covering(doc, w, mutant, span);
        let on = match &selected {
            Some(tests) if tests.is_empty() => None,
            _ => Some(run(doc, w, &Target::Mutant(mutant.clone()))?),
        };
        // An untraced run (a backend that cannot trace) may have run anything.
        reached |= match (&selected, &old.lines, span) {
            (Some(tests), ..) => !tests.is_empty(),
            (None, Some(lines), Some(span)) => reach::reaches(lines, span),
            _ => true,
        };
        let passed = |s: &String| s.eq_ignore_ascii_case("passed");
        for (id, status) in &old.status_map {
            if !passed(status) {
                continue;
            }
            v.of += 1;
            // A partial run (some of the module's tests) lists only what it ran; the others
            // kept their c_old status.
            v.kept += usize::from(on.is_none_or(|on| match on.status_map.get(id) {
                Some(s) => passed(s),
                None => on.partial,
            }));
        }
    }
    if !reached {
        v = Verdict { kept: 0, of: 0 };
    }
    Some(v)
}

/// `Class::test[param]` of `tests/test_m.py::Class::test[param]`.
pub fn after_file(node_id: &str) -> Option<&str> {
    node_id.split_once("::").map(|(_, t)| t)
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
    let (broken, stopped) = broken_by(doc, mutant);
    let head = if broken.is_empty() {
        format!(
            "the repository's tests on this mutant: {} of {} passing (a plausible fix)",
            v.kept, v.of
        )
    } else if stopped {
        // Its runs stopped at the first test it broke: the count would only be a bound.
        format!(
            "the repository's tests on this mutant: it breaks some of the {} that pass on \
             c_old (no plausible fix; a run stops at the first it breaks)",
            v.of
        )
    } else {
        format!(
            "the repository's tests on this mutant: {} of {} passing; it breaks",
            v.kept, v.of
        )
    };
    Some(
        std::iter::once(head)
            .chain(broken.iter().map(|id| format!("  {id}")))
            .collect(),
    )
}

/// The repository's tests `mutant` breaks, as far as its witness runs tell, and whether a
/// run stopped at the first it broke (then the tests it breaks may be more, and a verdict's
/// `kept` is a bound from above).
pub fn broken_by(doc: &SessionDoc, mutant: &MutantId) -> (Vec<String>, bool) {
    let mut broken = vec![];
    let mut stopped = false;
    for m in doc.witnesses.iter().flat_map(|w| &w.modules) {
        let (Some(old), Some(on)) = (
            run(doc, m, &Target::Old),
            run(doc, m, &Target::Mutant(mutant.clone())),
        ) else {
            continue;
        };
        let passed = |s: &String| s.eq_ignore_ascii_case("passed");
        // A run of some of the module's tests (`covering`) leaves the others out: they
        // kept their c_old status.
        let broke = |id: &String| match on.status_map.get(id) {
            Some(s) => !passed(s),
            None => !on.partial,
        };
        let before = broken.len();
        broken.extend(
            old.status_map
                .iter()
                .filter(|(id, s)| passed(s) && broke(id))
                .map(|(id, _)| id.clone()),
        );
        stopped |= on.partial && broken.len() > before;
    }
    (broken, stopped)
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

/// A test's best rescuer under the witnesses: of the rescuers that are mutants of a focal
/// function, the one keeping the largest share of their tests, with its verdict (the first
/// such in id order); `None` if no such rescuer was judged. A mutant of a callee or caller
/// (the widened pool) is no surrogate fix: the localized functions are where the fix goes,
/// and on the fresh-bug benchmark a callee's mutant that kept all 450 of a repository's tests
/// rescued a test of neighbouring behaviour, not the issue's.
pub fn best_rescue(doc: &SessionDoc, score: &TestScore) -> Option<(MutantId, Verdict)> {
    let verdicts = &doc.witnesses.as_ref()?.verdicts;
    let widened: std::collections::BTreeSet<&str> = doc
        .pool
        .iter()
        .flat_map(|p| p.mutants.iter())
        .filter(|m| m.scope.is_some())
        .map(|m| m.id.as_str())
        .collect();
    let mut best: Option<(MutantId, Verdict)> = None;
    for m in score
        .rescues
        .iter()
        .filter(|m| !widened.contains(m.as_str()))
    {
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
            judges: BTreeMap::new(),
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
    fn a_run_of_some_tests_leaves_the_others_at_their_c_old_status() {
        assert_eq!(bits(&[true, false, true, true, false]), "d0");
        assert!(has_bit("d0", 0) && !has_bit("d0", 1) && has_bit("d0", 3) && !has_bit("d0", 4));
        assert!(!has_bit("d0", 40), "past the end: not reached");
        // Only test a ran on m1 (it covers the mutant), and it broke: b kept its status.
        let mut doc = judged(["FAILED", "PASSED"]);
        let key = exec_key(&"w".repeat(64), &Target::Mutant("m1".into()));
        let on = doc.executions.get_mut(&key).unwrap();
        on.status_map.retain(|id, _| id.ends_with("test_a"));
        on.partial = true;
        let m1 = "m1".to_string();
        let v = verdict(&doc, &m1, Some(&span(2))).unwrap();
        assert_eq!((v.kept, v.of), (1, 2));
        record(&mut doc, m1.clone(), v);
        assert_eq!(
            judgement(&doc, &m1).unwrap(),
            [
                "the repository's tests on this mutant: it breaks some of the 2 that pass on \
                 c_old (no plausible fix; a run stops at the first it breaks)",
                "  tests/test_m.py::test_a"
            ]
        );
        // The same run, whole (not partial): the missing test broke too.
        doc.executions.get_mut(&key).unwrap().partial = false;
        let v = verdict(&doc, &m1, Some(&span(2))).unwrap();
        assert_eq!((v.kept, v.of), (0, 2));
    }

    #[test]
    fn covering_names_the_tests_that_run_a_mutants_lines() {
        let mut doc = judged(["PASSED", "PASSED"]);
        let pool = crate::testkit::finished_session().pool;
        doc.pool = pool;
        let ids: Vec<String> = doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter().map(|m| m.id.clone()))
            .collect();
        let w = doc.witnesses.as_ref().unwrap().modules[0].clone();
        let mut reach_a = vec![false; ids.len()];
        reach_a[0] = true;
        let judges = BTreeMap::from([
            ("test_a".to_string(), bits(&reach_a)),
            ("test_b".to_string(), bits(&vec![false; ids.len()])),
        ]);
        doc.witnesses
            .as_mut()
            .unwrap()
            .judges
            .insert(w.rel_path.clone(), judges);
        assert_eq!(
            covering(&doc, &w, &ids[0], Some(&span(2))),
            Some(vec!["test_a".to_string()])
        );
        // No test runs the second mutant, and neither does the module's collection (line 9
        // is not in its c_old trace): nothing needs to run.
        assert_eq!(covering(&doc, &w, &ids[1], Some(&span(9))), Some(vec![]));
        // Its lines run at collection (line 2 is in the trace, outside every test): all run.
        assert_eq!(covering(&doc, &w, &ids[1], Some(&span(2))), None);
    }

    #[test]
    fn known_rescuers_go_first_up_to_the_cap() {
        let order: Vec<MutantId> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let first = ["d".to_string(), "b".to_string(), "z".to_string()];
        assert_eq!(first_of(order.clone(), &first, 1), ["d", "a", "b", "c"]);
        assert_eq!(first_of(order, &first, 5), ["d", "b", "a", "c"]);
    }
}
