//! Why a test did not kill a mutant, as far as the session knows: whether the raw logs were
//! identical or normalization erased their difference (and which rules did), whether the
//! test reaches the mutated function at all (it kills that function's force-failure mutant,
//! or does not), which other tests kill the mutant, and which mutants at the same line this
//! test does kill.

use super::action::Rerun;
use crate::engine::pair::Pair;
use crate::engine::reach::Source;
use crate::engine::{SessionDoc, Target};
use crate::exec::normalize::erased_by;
use crate::mutate::MutantKind;

pub fn reasons(doc: &SessionDoc, g: usize, p: &Pair<'_>, source: Source<'_>) -> Vec<String> {
    let mut out = vec![];
    let test = &p.test.id;
    let m = p.mutant;
    let (Some(old), Some(run)) = (p.old, p.run) else {
        out.push(p.why_not_run(doc, source));
        return out;
    };
    if let Some(cell) = p.cell.filter(|c| c.is_kill()) {
        out.push(format!("{test} kills {}: {}", m.id, cell.verdict()));
        out.extend(why_killed(doc, old, run));
        return out;
    }
    // Reach first: a test that never runs the mutated code cannot kill it, whatever its log
    // says. From the line trace of the test's c_old run where it was traced; otherwise
    // from the force-failure mutant of the same function, which raises at its top, so any
    // test that calls the function kills it.
    if let Some(r) = crate::engine::reach::describe(doc, test, m, source) {
        out.push(r);
    } else {
        force_failure_reach(doc, test, old, m, &mut out);
    }

    let (raw_a, raw_b) = (doc.log(&old.raw_log), doc.log(&run.raw_log));
    if raw_a == raw_b {
        out.push(
            "the raw logs are identical: on this mutant the test printed exactly what it \
             printed on c_old"
                .into(),
        );
    } else {
        let rules = erased_by(raw_a, raw_b);
        out.push(format!(
            "the raw logs differ, but normalization erased the difference ({}); `v` on the \
             Pair screen shows the raw logs",
            if rules.is_empty() {
                "no single rule stands out".to_string()
            } else {
                rules.join(", ")
            }
        ));
    }

    let killers: Vec<String> = doc
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
    out.push(if killers.is_empty() {
        format!(
            "no test kills {} (an equivalent mutant, or one no test reaches)",
            m.id
        )
    } else {
        format!("killed by {}", killers.join(", "))
    });

    let same_line: Vec<String> = doc
        .pool
        .iter()
        .flat_map(|pool| pool.mutants.iter())
        .filter(|x| x.id != m.id && x.file == m.file && x.line == m.line)
        .filter(|x| {
            doc.execution(test, &Target::Mutant(x.id.clone()))
                .is_some_and(|e| crate::engine::kill::cell(old, e).is_kill())
        })
        .map(|x| format!("{} ({})", x.id, x.kind))
        .collect();
    if !same_line.is_empty() {
        out.push(format!(
            "at the same line {test} kills {}",
            same_line.join(", ")
        ));
    }
    let sample = &doc.generations[g].mutants;
    if !sample.contains(&m.id) {
        out.push(format!("(not in generation {g}'s sample)"));
    } else if doc.generations[g].settling.contains(&m.id) {
        out.push(format!(
            "(drawn after generation {g}'s sample left its cut tied, to let mutation decide)"
        ));
    }
    if let Some(r) = &doc.generations[g].reach {
        out.push(reach_counts(g, r));
    }
    if let Some(pool) = &doc.pool
        && let Some(tce) = &pool.tce
    {
        out.push(tce.summary(pool.mutants.len()));
    }
    out.push(
        "Enter runs the pair again now under a line tracer: which lines of the mutated file \
         the test runs"
            .into(),
    );
    out
}

/// What tells the two runs apart, as the kill decision saw it: the outcome, the statuses that
/// changed, else the first lines where the normalized logs differ.
fn why_killed(
    doc: &SessionDoc,
    old: &crate::engine::Execution,
    run: &crate::engine::Execution,
) -> Vec<String> {
    let mut out = vec![];
    if old.outcome != run.outcome {
        out.push(format!(
            "the test {:?} on c_old and {:?} on the mutant",
            old.outcome, run.outcome
        ));
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
        out.push(format!("statuses that changed: {}", changed.join("; ")));
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
        out.push(format!(
            "the statuses are the same; the normalized logs first differ at line {}:",
            i + 1
        ));
        out.push(format!("  c_old:  {}", show(la.get(i))));
        out.push(format!("  mutant: {}", show(lb.get(i))));
        out.push("the Pair screen (Enter on the Grid) shows the whole diff".into());
    }
    out
}

/// What a traced re-run of a pair showed: the verdict, then the mutated file around the
/// mutant's line (from `source`, its `c_old` text) with the lines that ran on `c_old` marked
/// `>` (and `*` where only the mutant run reached them), and the ranges that ran.
pub fn rerun_text(doc: &SessionDoc, mutant: &str, run: &Rerun, source: Source<'_>) -> String {
    let mut out = format!(
        "c_old {:?}, mutant {:?}: {}\n",
        run.old,
        run.mutant,
        run.cell.verdict()
    );
    let Some(m) = doc
        .pool
        .as_ref()
        .and_then(|p| p.mutants.iter().find(|x| x.id == mutant))
    else {
        return out;
    };
    let Some((old, new)) = &run.lines else {
        out.push_str("(this executor cannot trace lines)\n");
        return out;
    };
    let reached = old.contains(&(m.line as u32));
    out.push_str(&format!(
        "traced {}: on c_old the test {} the mutated line {}; on the mutant it {}\n",
        m.file,
        if reached { "runs" } else { "never runs" },
        m.line,
        if new.contains(&(m.line as u32)) {
            "runs it"
        } else {
            "never runs it"
        }
    ));
    out.push_str(&format!(
        "lines that ran on c_old: {}\n",
        crate::engine::reach::ranges(old)
    ));
    if let Some(src) = source(&m.file) {
        let lines: Vec<&str> = src.lines().collect();
        let from = m.line.saturating_sub(4).max(1);
        let to = (m.line + 4).min(lines.len());
        for n in from..=to {
            let mark = match (old.contains(&(n as u32)), new.contains(&(n as u32))) {
                (true, _) => '>',
                (false, true) => '*',
                _ => ' ',
            };
            let here = if n == m.line { "<- mutated" } else { "" };
            out.push_str(&format!(
                "{mark} {n:>4} | {} {here}\n",
                lines.get(n - 1).copied().unwrap_or("")
            ));
        }
    }
    out
}

/// Whether `test` reaches `m`'s function, judged by that function's force-failure mutant.
fn force_failure_reach(
    doc: &SessionDoc,
    test: &crate::engine::TestId,
    old: &crate::engine::Execution,
    m: &crate::mutate::Mutant,
    out: &mut Vec<String>,
) {
    let ff = doc.pool.as_ref().and_then(|pool| {
        pool.mutants.iter().find(|x| {
            x.kind == MutantKind::ForceFailure && x.file == m.file && x.function == m.function
        })
    });
    match ff.and_then(|ff| {
        let e = doc.execution(test, &Target::Mutant(ff.id.clone()))?;
        Some((ff, crate::engine::kill::cell(old, e)))
    }) {
        Some((ff, c)) if c.is_kill() => out.push(format!(
            "{test} reaches {}: it kills that function's force-failure mutant {} (Enter traces \
             whether it runs the mutated line itself)",
            m.function, ff.id
        )),
        Some((ff, _)) => out.push(format!(
            "{test} probably never calls {}: it does not even kill that function's \
             force-failure mutant {}",
            m.function, ff.id
        )),
        None => out.push(format!(
            "whether {test} reaches {} is unknown: it has not run on that function's \
             force-failure mutant",
            m.function
        )),
    }
}

/// How generation `g`'s tests split the pool (reach-aware sampling).
fn reach_counts(g: usize, r: &crate::engine::reach::ReachCounts) -> String {
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
