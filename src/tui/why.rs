//! Why a test did not kill a mutant, as far as the session knows: whether the raw logs were
//! identical or normalization erased their difference (and which rules did), whether the
//! test reaches the mutated function at all (it kills that function's force-failure mutant,
//! or does not), which other tests kill the mutant, and which mutants at the same line this
//! test does kill.

use crate::engine::pair::Pair;
use crate::engine::{SessionDoc, Target};
use crate::exec::normalize::erased_by;
use crate::mutate::MutantKind;

pub fn reasons(doc: &SessionDoc, g: usize, p: &Pair<'_>) -> Vec<String> {
    let mut out = vec![];
    let test = &p.test.id;
    let m = p.mutant;
    let (Some(old), Some(run)) = (p.old, p.run) else {
        out.push(p.why_not_run(doc));
        return out;
    };
    if p.cell.is_some_and(|c| c.is_kill()) {
        out.push(format!(
            "{test} does kill {}: {}",
            m.id,
            p.cell.unwrap().verdict()
        ));
        return out;
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

    // Reach: the force-failure mutant of the same function raises at its top, so any test
    // that calls the function kills it.
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
            "{test} reaches {}: it kills that function's force-failure mutant {} (line tracing \
             of the mutated line itself is not done yet)",
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
    }
    out.push("Enter runs the pair again now, to see whether the result holds".into());
    out
}
