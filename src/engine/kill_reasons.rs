//! Why a test did or did not kill a mutant, as far as the session knows: for a kill, what
//! told the runs apart; for a survivor, whether the test reaches the mutated code (its traced
//! `c_old` run, or the function's force-failure mutant), whether the raw logs were identical
//! or normalization erased their difference (and which rules did), which other tests kill the
//! mutant, and which mutants at the same line this test does kill. The Why screen and `show
//! --test --mutant` print the same reasons; each says in its own words where to look further
//! ([`Hint`]).

use super::pair::Pair;
use super::reach::Source;
use super::{SessionDoc, Target};
use crate::exec::normalize::erased_by;
use crate::mutate::MutantKind;

/// Where a reader can look further; each front end words it with its own keys or commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// The raw logs (before normalization).
    RawLogs,
    /// The whole normalized log diff.
    WholeDiff,
    /// A traced re-run of the pair.
    Trace,
}

/// One reason; `text` empty when the line is only its hint. A text starting with two spaces
/// continues the reason before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub text: String,
    pub hint: Option<Hint>,
}

impl From<String> for Reason {
    fn from(text: String) -> Self {
        Self { text, hint: None }
    }
}

/// The generation a pair is best explained in: the last one holding both the test and the
/// mutant, else the last one.
pub fn generation_of(doc: &SessionDoc, test: &str, mutant: &str) -> Option<usize> {
    doc.generations
        .iter()
        .rposition(|g| g.tests.iter().any(|t| t == test) && g.mutants.iter().any(|m| m == mutant))
        .or_else(|| doc.generations.len().checked_sub(1))
}

/// The reasons for pair `p`, with generation `g` for the sample and reach figures.
pub fn reasons(doc: &SessionDoc, g: usize, p: &Pair<'_>, source: Source<'_>) -> Vec<Reason> {
    let mut out: Vec<Reason> = vec![];
    let test = &p.test.id;
    let m = p.mutant;
    let (Some(old), Some(run)) = (p.old, p.run) else {
        out.push(p.why_not_run(doc, source).into());
        return out;
    };
    if let Some(cell) = p.cell.filter(|c| c.is_kill()) {
        out.push(format!("{test} kills {}: {}", m.id, cell.verdict()).into());
        out.extend(
            cell.uncounted(&doc.config)
                .map(|w| Reason::from(w.to_owned())),
        );
        out.extend(why_killed(doc, old, run));
        return out;
    }
    // Reach first: a test that never runs the mutated code cannot kill it, whatever its log
    // says. From the line trace of the test's c_old run where it was traced; otherwise
    // from the force-failure mutant of the same function, which raises at its top, so any
    // test that calls the function kills it.
    if let Some(r) = super::reach::describe(doc, test, m, source) {
        out.push(r.into());
    } else {
        force_failure_reach(doc, test, old, m, &mut out);
    }

    let (raw_a, raw_b) = (doc.log(&old.raw_log), doc.log(&run.raw_log));
    if raw_a == raw_b {
        out.push(
            "the raw logs are identical: on this mutant the test printed exactly what it \
             printed on c_old"
                .to_string()
                .into(),
        );
    } else {
        let rules = erased_by(raw_a, raw_b);
        out.push(Reason {
            text: format!(
                "the raw logs differ, but normalization erased the difference ({})",
                if rules.is_empty() {
                    "no single rule stands out".to_string()
                } else {
                    rules.join(", ")
                }
            ),
            hint: Some(Hint::RawLogs),
        });
    }

    let mut killers: Vec<String> = doc
        .generations
        .iter()
        .flat_map(|gen_| {
            gen_.scores
                .iter()
                .filter(|(_, s)| !s.flaky && s.kills.contains(&m.id))
                .map(|(t, _)| t.clone())
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    // In the order tests were made: t3 before t10.
    killers.sort_by_key(|t| (t.len(), t.clone()));
    out.push(
        if killers.is_empty() {
            format!(
                "no test kills {} (an equivalent mutant, or one no test reaches)",
                m.id
            )
        } else {
            format!("killed by {}", killers.join(", "))
        }
        .into(),
    );

    let same_line: Vec<String> = doc
        .pool
        .iter()
        .flat_map(|pool| pool.mutants.iter())
        .filter(|x| x.id != m.id && x.file == m.file && x.line == m.line)
        .filter(|x| {
            doc.execution(test, &Target::Mutant(x.id.clone()))
                .is_some_and(|e| super::kill::cell(old, e).is_kill())
        })
        .map(|x| format!("{} ({})", x.id, x.kind))
        .collect();
    if !same_line.is_empty() {
        out.push(format!("at the same line {test} kills {}", same_line.join(", ")).into());
    }
    let sample = &doc.generations[g].mutants;
    if !sample.contains(&m.id) {
        out.push(format!("(not in generation {g}'s sample)").into());
    } else if doc.generations[g].settling.contains(&m.id) {
        out.push(
            format!(
                "(drawn after generation {g}'s sample left its cut tied, to let mutation decide)"
            )
            .into(),
        );
    }
    if let Some(r) = &doc.generations[g].reach {
        out.push(reach_counts(g, r).into());
    }
    if let Some(pool) = &doc.pool
        && let Some(tce) = &pool.tce
    {
        out.push(tce.summary(pool.mutants.len()).into());
    }
    out
}

/// What tells the two runs apart, as the kill decision saw it: the outcome, the statuses that
/// changed, else the first lines where the normalized logs differ.
fn why_killed(doc: &SessionDoc, old: &super::Execution, run: &super::Execution) -> Vec<Reason> {
    let mut out: Vec<Reason> = vec![];
    if old.outcome != run.outcome {
        out.push(
            format!(
                "the test {:?} on c_old and {:?} on the mutant",
                old.outcome, run.outcome
            )
            .into(),
        );
    }
    let ids: std::collections::BTreeSet<&String> =
        old.status_map.keys().chain(run.status_map.keys()).collect();
    let changed: Vec<String> = ids
        .into_iter()
        .filter_map(|id| {
            let a = old.status_map.get(id).map_or("-", String::as_str);
            let b = run.status_map.get(id).map_or("-", String::as_str);
            (a != b).then(|| format!("{id}: {a} -> {b}"))
        })
        .collect();
    if !changed.is_empty() {
        out.push(format!("statuses that changed: {}", changed.join("; ")).into());
        return out;
    }
    let (a, b) = (doc.log(&old.normalized_log), doc.log(&run.normalized_log));
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let first = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i));
    if let Some(i) = first {
        let show = |l: Option<&&str>| {
            l.map_or("(the log ends here)".to_owned(), |l| {
                let l = l.trim_end();
                if l.chars().count() > 160 {
                    format!("{}...", l.chars().take(160).collect::<String>())
                } else {
                    l.to_owned()
                }
            })
        };
        out.push(
            format!(
                "the statuses are the same; the normalized logs first differ at line {}:",
                i + 1
            )
            .into(),
        );
        out.push(format!("  c_old:  {}", show(la.get(i))).into());
        out.push(format!("  mutant: {}", show(lb.get(i))).into());
        out.push(Reason {
            text: String::new(),
            hint: Some(Hint::WholeDiff),
        });
    }
    out
}

/// Whether `test` reaches `m`'s function, judged by that function's force-failure mutant.
fn force_failure_reach(
    doc: &SessionDoc,
    test: &super::TestId,
    old: &super::Execution,
    m: &crate::mutate::Mutant,
    out: &mut Vec<Reason>,
) {
    let ff = doc.pool.as_ref().and_then(|pool| {
        pool.mutants.iter().find(|x| {
            x.kind == MutantKind::ForceFailure && x.file == m.file && x.function == m.function
        })
    });
    match ff.and_then(|ff| {
        let e = doc.execution(test, &Target::Mutant(ff.id.clone()))?;
        Some((ff, super::kill::cell(old, e)))
    }) {
        Some((ff, c)) if c.is_kill() => out.push(Reason {
            text: format!(
                "{test} reaches {}: it kills that function's force-failure mutant {}",
                m.function, ff.id
            ),
            hint: Some(Hint::Trace),
        }),
        Some((ff, _)) => out.push(
            format!(
                "{test} probably never calls {}: it does not even kill that function's \
                 force-failure mutant {}",
                m.function, ff.id
            )
            .into(),
        ),
        None => out.push(
            format!(
                "whether {test} reaches {} is unknown: it has not run on that function's \
                 force-failure mutant",
                m.function
            )
            .into(),
        ),
    }
}

/// How generation `g`'s tests split the pool (reach-aware sampling).
fn reach_counts(g: usize, r: &super::reach::ReachCounts) -> String {
    let kinds = |m: &std::collections::BTreeMap<MutantKind, usize>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "generation {g}'s tests execute {} of the pool's {} mutants on c_old ({}); no test of \
         it executes the other {}{}",
        r.reached_total(),
        r.reached_total() + r.unreached_total(),
        kinds(&r.reached),
        r.unreached_total(),
        if r.unreached.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds(&r.unreached))
        }
    )
}
