//! Reach-aware mutants: which mutants a population can kill at all, so that no execution is
//! spent on a mutant no test runs.
//!
//! A test that never executes a mutant's changed lines on `c_old` runs the mutant exactly as
//! it runs `c_old` (the same code up to a point the run never gets to), so that execution
//! carries no information for selection. Each test's `c_old` baseline is traced over the focal
//! files (the trace leaves its log unchanged), and a generation samples only mutants whose
//! lines some test of its population reaches.
//!
//! A test whose baseline left no trace (killed at its timeout, or run before tracing existed)
//! or whose trace holds no line of any focal file (it runs the code in a subprocess, say)
//! counts as reaching everything: reach only ever removes mutants it knows to be unreachable.

pub use super::session::{Lines, ReachCounts};
use super::session::{MutantId, SessionDoc, Target, TestId};
use crate::mutate::{Mutant, MutantKind};
use std::collections::{BTreeMap, BTreeSet};

pub use crate::mutate::POOL_CAP;

/// The lines a mutant changes, in its file: the replaced range's lines, or for a statement
/// inserted at the top of a function (force failure) the function's body, which runs exactly
/// when the function is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub file: String,
    pub first: u32,
    pub last: u32,
}

/// A focal file's `c_old` source by its repository-relative path, if it can be had: read
/// from the repository ([`from_disk`]), or what a view loaded before drawing.
pub type Source<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Reads sources from the session's repository (the commands that print, not the TUI, whose
/// drawing never reads a file).
pub fn from_disk(doc: &SessionDoc) -> impl Fn(&str) -> Option<String> + '_ {
    |f| std::fs::read_to_string(doc.inputs.repo.join(f)).ok()
}

/// Every mutant's span. A replacement's span comes from the mutant itself (its line and the
/// lines of the text it replaces); only a force-failure mutant needs its file's `c_old`
/// source (`source(file)`, read once per file) for its function's body. The why-not-killed
/// view calls this on every frame, so nothing else is read.
pub fn spans<'a>(
    mutants: impl IntoIterator<Item = &'a Mutant>,
    mut source: impl FnMut(&str) -> Option<String>,
) -> BTreeMap<MutantId, Span> {
    let mut sources: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for m in mutants {
        let (first, last) = if m.kind == MutantKind::ForceFailure {
            let src = sources
                .entry(m.file.clone())
                .or_insert_with(|| source(&m.file));
            let Some(src) = src.as_deref() else { continue };
            let line = |byte: usize| crate::python::line_of(src, byte) as u32;
            match crate::python::locate(src, &m.function) {
                Ok(site) => (
                    line(site.body_start),
                    line(site.body_end.max(site.body_start)),
                ),
                Err(_) => (m.line as u32, m.line as u32),
            }
        } else {
            let below = m.original.trim_end_matches('\n').matches('\n').count() as u32;
            (m.line as u32, m.line as u32 + below)
        };
        out.insert(
            m.id.clone(),
            Span {
                file: m.file.clone(),
                first,
                last,
            },
        );
    }
    out
}

/// Whether a run that executed `lines` executes some line of `span`.
pub fn reaches(lines: &Lines, span: &Span) -> bool {
    lines.get(&span.file).is_some_and(|ran| {
        let from = ran.partition_point(|&l| l < span.first);
        ran.get(from).is_some_and(|&l| l <= span.last)
    })
}

/// What a test's `c_old` run executed of the focal files, if that is known.
pub fn test_lines<'d>(doc: &'d SessionDoc, test: &TestId) -> Option<&'d Lines> {
    doc.execution(test, &Target::Old)?
        .lines
        .as_ref()
        .filter(|l| l.values().any(|v| !v.is_empty()))
}

/// The mutants of `order` (kept in that order) that some test of `tests` reaches, and the
/// pool's counts by kind.
pub fn reached(
    doc: &SessionDoc,
    tests: &[TestId],
    order: &[MutantId],
    spans: &BTreeMap<MutantId, Span>,
) -> (Vec<MutantId>, ReachCounts) {
    let mut counts = ReachCounts::default();
    let known: Vec<&Lines> = tests.iter().filter_map(|t| test_lines(doc, t)).collect();
    counts.unknown = tests
        .iter()
        .filter(|t| test_lines(doc, t).is_none())
        .cloned()
        .collect();
    let kinds: BTreeMap<&str, MutantKind> = doc
        .pool
        .iter()
        .flat_map(|p| p.mutants.iter().map(|m| (m.id.as_str(), m.kind)))
        .collect();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for id in order {
        if !seen.insert(id) {
            continue;
        }
        let hit = !counts.unknown.is_empty()
            || spans
                .get(id)
                .is_none_or(|span| known.iter().any(|l| reaches(l, span)));
        let kind = kinds
            .get(id.as_str())
            .copied()
            .unwrap_or(MutantKind::ForceFailure);
        let tally = if hit {
            &mut counts.reached
        } else {
            &mut counts.unreached
        };
        *tally.entry(kind).or_insert(0) += 1;
        if hit {
            out.push(id.clone());
        }
    }
    (out, counts)
}

/// The tests of `tests` competing for the kept places: under the BRT rule those that do not
/// pass on `c_old` (a test that passes there ranks below them whatever it kills), unless
/// fewer than half do, when every failing test is kept anyway and all compete for the rest.
/// A test not run on `c_old` yet competes.
pub fn competitors(doc: &SessionDoc, tests: &[TestId]) -> Vec<TestId> {
    if !doc.config.fitness.is_brt() {
        return tests.to_vec();
    }
    let failing: Vec<TestId> = tests
        .iter()
        .filter(|t| {
            doc.execution(t, &Target::Old)
                .is_none_or(|e| e.outcome != crate::exec::Outcome::Passed)
        })
        .cloned()
        .collect();
    if failing.len() * 2 < tests.len() {
        tests.to_vec()
    } else {
        failing
    }
}

/// Where `test`'s `c_old` run failed in the focal files: the lines of them its traceback
/// passes through (pytest's `--tb=short` frames, `FILE:LINE: in FUNCTION`), the line that
/// raised last. Empty for a test that passed or failed elsewhere.
pub fn failure_points(doc: &SessionDoc, test: &TestId) -> Lines {
    let mut out = Lines::new();
    let Some(e) = doc.execution(test, &Target::Old) else {
        return out;
    };
    if e.outcome == crate::exec::Outcome::Passed {
        return out;
    }
    let files: BTreeSet<&str> = doc.inputs.focal.iter().map(|f| f.file.as_str()).collect();
    for line in doc.log(&e.raw_log).lines() {
        let Some((path, rest)) = line.split_once(".py:") else {
            continue;
        };
        let Some((number, _)) = rest.split_once(": in ") else {
            continue;
        };
        let file = format!("{path}.py");
        if let (true, Ok(n)) = (files.contains(file.as_str()), number.parse::<u32>()) {
            out.entry(file).or_default().push(n);
        }
    }
    for v in out.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    out
}

/// `reached` (in sampling order) with a sample of `count` that can tell `competitors` apart
/// first, then the rest.
///
/// A competitor that fails on `c_old` is killed by most mutants it executes (whatever the
/// mutant changes, its failure usually changes), so the mutants a competitor reaches predict
/// its kills, and a sample separates two competitors when they reach different numbers of
/// it. The sample is built greedily: each next mutant is the one that leaves the most pairs
/// of competitors with different predicted kills; among equals, one at a competitor's
/// failure point (`failure_points`: changing how a test fails there may make it pass, a
/// rescue, the evidence that it fails for the reason the fix removes), then one some
/// competitors reach and others do not, then one all reach, then the earliest in the seeded
/// order. So the same seed gives the same sample. A competitor whose reach is unknown counts
/// as reaching everything.
pub fn discriminating(
    doc: &SessionDoc,
    competitors: &[TestId],
    reached: Vec<MutantId>,
    spans: &BTreeMap<MutantId, Span>,
    count: usize,
) -> Vec<MutantId> {
    let lines: Vec<Option<&Lines>> = competitors.iter().map(|t| test_lines(doc, t)).collect();
    let failures: Vec<Lines> = competitors.iter().map(|t| failure_points(doc, t)).collect();
    // Per mutant: which competitors reach it, and its rank among equals (lower first).
    let profile: Vec<(Vec<bool>, (bool, u8))> = reached
        .iter()
        .map(|id| {
            let Some(span) = spans.get(id) else {
                return (vec![true; lines.len()], (true, 1));
            };
            let reach: Vec<bool> = lines
                .iter()
                .map(|l| l.is_none_or(|l| reaches(l, span)))
                .collect();
            let n = reach.iter().filter(|r| **r).count();
            let split = match n {
                0 => 2,
                n if n == lines.len() => 1,
                _ => 0,
            };
            (reach, (!failures.iter().any(|f| reaches(f, span)), split))
        })
        .collect();
    let separated = |counts: &[usize]| -> usize {
        let mut pairs = 0;
        for i in 0..counts.len() {
            for j in i + 1..counts.len() {
                pairs += usize::from(counts[i] != counts[j]);
            }
        }
        pairs
    };
    let mut counts = vec![0usize; lines.len()];
    let mut taken = vec![false; reached.len()];
    let mut out = Vec::with_capacity(reached.len());
    for _ in 0..count.min(reached.len()) {
        let best = (0..reached.len()).filter(|&i| !taken[i]).min_by_key(|&i| {
            let with: Vec<usize> = counts
                .iter()
                .zip(&profile[i].0)
                .map(|(c, r)| c + usize::from(*r))
                .collect();
            (std::cmp::Reverse(separated(&with)), profile[i].1, i)
        });
        let Some(i) = best else { break };
        taken[i] = true;
        for (c, r) in counts.iter_mut().zip(&profile[i].0) {
            *c += usize::from(*r);
        }
        out.push(reached[i].clone());
    }
    let mut rest: Vec<(bool, u8, usize)> = (0..reached.len())
        .filter(|&i| !taken[i])
        .map(|i| (profile[i].1.0, profile[i].1.1, i))
        .collect();
    rest.sort();
    out.extend(rest.into_iter().map(|(_, _, i)| reached[i].clone()));
    out
}

/// `3-5, 9`: sorted line numbers as ranges (`none` for none).
pub fn ranges(lines: &[u32]) -> String {
    let mut parts: Vec<String> = vec![];
    let mut it = lines.iter().copied().peekable();
    while let Some(start) = it.next() {
        let mut end = start;
        while it.peek() == Some(&(end + 1)) {
            end = it.next().unwrap_or(end);
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// Whether `test` executes `mutant`'s lines on `c_old`, as far as its traced baseline says,
/// in a sentence; `None` when the baseline was not traced.
pub fn describe(
    doc: &SessionDoc,
    test: &TestId,
    mutant: &Mutant,
    source: Source<'_>,
) -> Option<String> {
    let lines = test_lines(doc, test)?;
    let span = spans([mutant], source).remove(&mutant.id)?;
    let at = if span.first == span.last {
        format!("line {}", span.first)
    } else {
        format!("lines {}-{}", span.first, span.last)
    };
    let ran = lines.get(&span.file).map(Vec::as_slice).unwrap_or_default();
    Some(if reaches(lines, &span) {
        format!(
            "{test}'s c_old run executes the mutant's {at} of {}: the mutated code runs, \
             and what it changes does not show in the test's log",
            span.file
        )
    } else {
        format!(
            "{test}'s c_old run never executes the mutant's {at} of {} (it runs {}), so no \
             run of {test} can kill it",
            span.file,
            if ran.is_empty() {
                "none of that file".to_owned()
            } else {
                format!("lines {}", ranges(ran))
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The finished scripted session (t1, t2 fail on c_old; t3, t4 pass) with each test's
    /// c_old run having executed `lines[i]` of `calc/ops.py`.
    fn traced(lines: [&[u32]; 4]) -> SessionDoc {
        let mut doc = crate::testkit::finished_session();
        for (t, l) in ["t1", "t2", "t3", "t4"].iter().zip(lines) {
            let hash = doc.tests[*t].hash.clone();
            let key = crate::engine::session::exec_key(&hash, &Target::Old);
            let e = doc.executions.get_mut(&key).unwrap();
            e.lines = Some(BTreeMap::from([("calc/ops.py".to_string(), l.to_vec())]));
        }
        doc
    }

    fn at(line: u32) -> Span {
        Span {
            file: "calc/ops.py".into(),
            first: line,
            last: line,
        }
    }

    #[test]
    fn mutants_that_split_the_competitors_come_first_then_those_all_reach() {
        let doc = traced([&[1, 2, 3], &[1, 2], &[1, 2, 5, 6], &[1]]);
        let tests: Vec<TestId> = ["t1", "t2", "t3", "t4"].map(String::from).to_vec();
        // Half the tests fail on c_old: they compete; the passing ones rank below them.
        assert_eq!(competitors(&doc, &tests), ["t1", "t2"]);
        let spans = BTreeMap::from([
            ("only_passing".to_string(), at(5)),
            ("both".to_string(), at(2)),
            ("splits".to_string(), at(3)),
            ("both_too".to_string(), at(1)),
        ]);
        let order = ["only_passing", "both", "splits", "both_too"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            discriminating(&doc, &competitors(&doc, &tests), order, &spans, 2),
            ["splits", "both", "both_too", "only_passing"]
        );
        // When fewer than half fail, all compete: line 5 then splits them.
        let three: Vec<TestId> = ["t1", "t3", "t4"].map(String::from).to_vec();
        assert_eq!(competitors(&doc, &three), three);
    }

    #[test]
    fn the_sample_ranks_every_competitor_apart_when_their_reach_allows() {
        let doc = traced([&[1, 2, 3], &[1, 2], &[1], &[]]);
        let comp = ["t1", "t2", "t3"].map(String::from).to_vec();
        let spans = BTreeMap::from([
            ("all".to_string(), at(1)),
            ("t1_only".to_string(), at(3)),
            ("t1_only_too".to_string(), at(3)),
            ("t1_t2".to_string(), at(2)),
        ]);
        let order = ["all", "t1_only", "t1_only_too", "t1_t2"]
            .map(String::from)
            .to_vec();
        // Two mutants: t1 reaches both, t2 one, t3 none, a predicted 2, 1, 0 kills. The
        // seeded order alone would have taken `all` (no pair apart) and `t1_only`.
        assert_eq!(
            discriminating(&doc, &comp, order, &spans, 2),
            ["t1_only", "t1_t2", "t1_only_too", "all"]
        );
    }

    #[test]
    fn mutants_where_a_competitor_fails_come_before_all_others() {
        let mut doc = traced([&[1, 2, 3, 4], &[1, 2, 3, 4], &[1], &[1]]);
        let log = "tests/test_a.py:3: in test_a\n    clamp(15, 0, 10)\ncalc/ops.py:4: in clamp\n    \
                   return hi - 1\nE   AssertionError\nother/lib.py:9: in helper\n";
        let key = crate::engine::session::exec_key(&doc.tests["t1"].hash.clone(), &Target::Old);
        let id = doc.executions[&key].raw_log.clone();
        doc.logs.insert(id, log.into());
        let t1 = "t1".to_string();
        assert_eq!(
            failure_points(&doc, &t1),
            BTreeMap::from([("calc/ops.py".to_string(), vec![4])])
        );
        // A test that passed on c_old has none.
        assert!(failure_points(&doc, &"t3".to_string()).is_empty());
        let spans = BTreeMap::from([("at_4".to_string(), at(4)), ("at_2".to_string(), at(2))]);
        let comp = ["t1", "t2"].map(String::from).to_vec();
        // Both are reached by both competitors; the one where t1 fails goes first.
        assert_eq!(
            discriminating(&doc, &comp, vec!["at_2".into(), "at_4".into()], &spans, 1),
            ["at_4", "at_2"]
        );
    }

    #[test]
    fn a_competitor_without_a_trace_reaches_everything() {
        let mut doc = traced([&[3], &[1], &[], &[]]);
        let key = crate::engine::session::exec_key(&doc.tests["t2"].hash.clone(), &Target::Old);
        doc.executions.get_mut(&key).unwrap().lines = None;
        let comp = ["t1", "t2"].map(String::from).to_vec();
        let spans = BTreeMap::from([("a".to_string(), at(1)), ("b".to_string(), at(3))]);
        // t2 counts as reaching both: `b` (t1 reaches it too) is reached by all, `a` splits.
        assert_eq!(
            discriminating(&doc, &comp, vec!["b".into(), "a".into()], &spans, 1),
            ["a", "b"]
        );
    }

    const SRC: &str = "def f(x):\n    \"\"\"Doc.\"\"\"\n    if x > 0:\n        return x + 1\n    return (\n        -x\n    )\n";

    fn mutant(kind: MutantKind, start: usize, end: usize) -> Mutant {
        Mutant {
            id: format!("m{start}-{end}-{kind}"),
            kind,
            file: "a.py".into(),
            function: "f".into(),
            line: crate::python::line_of(SRC, start),
            start,
            end,
            original: SRC[start..end].into(),
            replacement: String::new(),
            diff: String::new(),
            scope: None,
        }
    }

    fn span_of(m: &Mutant) -> Span {
        spans([m], |_| Some(SRC.to_owned())).remove(&m.id).unwrap()
    }

    #[test]
    fn a_span_covers_the_replaced_lines_and_force_failure_the_body() {
        let plus = SRC.find('+').unwrap();
        assert_eq!(
            span_of(&mutant(MutantKind::BinaryArithmetic, plus, plus + 1)).first,
            4
        );
        let ret = SRC.find("(\n").unwrap();
        let multi = span_of(&mutant(
            MutantKind::ReturnValue,
            ret,
            SRC.rfind(')').unwrap() + 1,
        ));
        assert_eq!((multi.first, multi.last), (5, 7));
        let top = SRC.find("\n    if").unwrap();
        let ff = span_of(&mutant(MutantKind::ForceFailure, top, top));
        assert_eq!(
            (ff.first, ff.last),
            (2, 7),
            "the whole body, docstring included"
        );
    }

    #[test]
    fn reach_is_any_line_of_the_span() {
        let span = Span {
            file: "a.py".into(),
            first: 5,
            last: 7,
        };
        let lines = |v: Vec<u32>| Lines::from([("a.py".to_owned(), v)]);
        assert!(reaches(&lines(vec![1, 3, 6]), &span));
        assert!(reaches(&lines(vec![7, 9]), &span));
        assert!(!reaches(&lines(vec![1, 2, 3, 4, 8]), &span));
        assert!(!reaches(
            &Lines::from([("b.py".to_owned(), vec![6])]),
            &span
        ));
    }
}
