//! How well the developer's own test kills the run's focal mutants (`bench --validate`; the
//! paper's Sec. V-C: the golden tests kill 72-89% of each kind). The developer's test files
//! (from the row's `test_patch`) run on `c_old`, traced over the mutated files, and then on
//! every mutant of the session's pool in the focal functions (not the widened callees and
//! callers) whose lines that run executed (a mutant the test never reaches cannot be
//! killed, and says nothing of the test); a mutant is killed when the normalized log differs
//! from the one on `c_old`, as for any test of a run.

use crate::engine::SessionDoc;
use crate::exec::{ExecRequest, Executor, FileOverride};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Per mutant kind: (mutants run, killed by the developer's tests).
pub type KindKills = BTreeMap<String, (usize, usize)>;

/// Runs the developer's `tests` (each file of FAIL_TO_PASS's, with the rest of the test
/// patch beside it) on `c_old` and on each focal mutant of `doc`'s pool. `files`: the
/// FAIL_TO_PASS files; `removed`: the files the test patch deletes.
pub async fn measure(
    ex: Arc<dyn Executor>,
    doc: &SessionDoc,
    tests: &[FileOverride],
    files: &[&str],
    removed: &[String],
) -> Result<KindKills, String> {
    let mutants: Vec<_> = doc
        .pool
        .iter()
        .flat_map(|p| &p.mutants)
        .filter(|m| m.scope.is_none())
        .cloned()
        .collect();
    let mut out = KindKills::new();
    if mutants.is_empty() {
        return Ok(out);
    }
    let mut sources = BTreeMap::new();
    for m in &mutants {
        if !sources.contains_key(&m.file) {
            let text = std::fs::read_to_string(doc.inputs.repo.join(&m.file))
                .map_err(|e| format!("cannot read {}: {e}", m.file))?;
            sources.insert(m.file.clone(), text);
        }
    }
    let base_timeout = Duration::from_secs(120);
    for file in files {
        let Some(test) = tests.iter().find(|f| f.rel_path == *file) else {
            continue;
        };
        let others: Vec<FileOverride> = tests
            .iter()
            .filter(|f| f.rel_path != *file)
            .cloned()
            .collect();
        let request = |overrides: Vec<FileOverride>, timeout, trace| ExecRequest {
            test: test.clone(),
            overrides,
            removed: removed.to_vec(),
            timeout,
            trace,
            tracer: Default::default(),
            per_test: false,
            select: vec![],
            stop_at_first_failure: false,
        };
        let traced: Vec<String> = sources.keys().cloned().collect();
        let old = ex
            .run(request(others.clone(), base_timeout, traced))
            .await
            .map_err(|e| e.to_string())?;
        // The mutants whose lines the c_old run executed (all of them when it has no trace).
        let spans = crate::engine::reach::spans(&mutants, |f| sources.get(f).cloned());
        let reached: Vec<&crate::mutate::Mutant> = match &old.trace {
            Some(trace) => {
                let mut lines = trace.clone();
                lines.values_mut().for_each(|v| v.sort_unstable());
                mutants
                    .iter()
                    .filter(|m| {
                        spans
                            .get(&m.id)
                            .is_some_and(|s| crate::engine::reach::reaches(&lines, s))
                    })
                    .collect()
            }
            None => mutants.iter().collect(),
        };
        // A mutant that hangs is a kill; waiting the whole cap for it is not needed.
        let timeout = (old.duration * 3 + Duration::from_secs(5)).min(base_timeout);
        let mut set = tokio::task::JoinSet::new();
        let width = ex.parallelism().max(1);
        let mut pending = reached.into_iter();
        let mut running = 0;
        loop {
            while running < width {
                let Some(m) = pending.next() else { break };
                let mut overrides = others.clone();
                overrides.push(FileOverride {
                    rel_path: m.file.clone(),
                    content: m.apply(&sources[&m.file]),
                });
                let req = request(overrides, timeout, vec![]);
                let ex = Arc::clone(&ex);
                let kind = m.kind.as_str().to_string();
                set.spawn(async move { (kind, ex.run(req).await) });
                running += 1;
            }
            let Some(done) = set.join_next().await else {
                break;
            };
            running -= 1;
            let (kind, result) = done.map_err(|e| e.to_string())?;
            let r = result.map_err(|e| e.to_string())?;
            let e = out.entry(kind).or_default();
            e.0 += 1;
            e.1 += usize::from(r.normalized_log != old.normalized_log);
        }
    }
    Ok(out)
}

/// The kinds grouped by the paper's categories (the five operator kinds as `operators`).
pub fn by_category(k: &KindKills) -> KindKills {
    let mut out = KindKills::new();
    for (kind, (n, killed)) in k {
        let cat = crate::mutate::MutantKind::ALL
            .into_iter()
            .find(|m| m.as_str() == kind)
            .map_or(kind.as_str(), |m| m.category());
        let e = out.entry(cat.to_string()).or_default();
        e.0 += n;
        e.1 += killed;
    }
    out
}

/// `constant_replacement 8/10 (80%), ...`: the rate of each kind, in words.
pub fn words(k: &KindKills) -> String {
    k.iter()
        .map(|(kind, (n, killed))| {
            format!(
                "{kind} {killed}/{n} ({:.0}%)",
                100.0 * *killed as f64 / (*n).max(1) as f64
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_in_words() {
        let k = KindKills::from([
            ("arithmetic_operator".to_string(), (4, 3)),
            ("force_failure".to_string(), (2, 2)),
        ]);
        assert_eq!(
            words(&k),
            "arithmetic_operator 3/4 (75%), force_failure 2/2 (100%)"
        );
        let k = KindKills::from([
            ("binary_arithmetic".to_string(), (4, 3)),
            ("unary_logical".to_string(), (1, 0)),
            ("return_value".to_string(), (2, 2)),
        ]);
        assert_eq!(
            words(&by_category(&k)),
            "operators 3/5 (60%), return_value 2/2 (100%)"
        );
    }
}
