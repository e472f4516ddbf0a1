//! Reach-aware mutants (issue 10): which mutants a population can kill at all.
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

/// The most mutants a reach-aware pool holds: every one the focal functions yield, up to this.
pub const POOL_CAP: usize = 5000;

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
