//! What a finished (or interrupted) run hands the user: `report.json`, the final test file and
//! `final.patch`, all derived from the session document alone.

use super::session::*;
use crate::exec::Outcome;
use crate::llm::CallTotals;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The report (keys fixed by the engine issue; more may be added, none removed).
pub fn report(doc: &SessionDoc) -> Value {
    let final_path = doc.final_test.as_ref().map(|t| doc.tests[t].name.clone());
    let generations: Vec<Value> = doc.generations.iter().map(|g| generation(doc, g)).collect();
    let timeouts = doc
        .executions
        .values()
        .filter(|e| e.outcome == Outcome::Timeout)
        .count();
    let rescues: Vec<Value> = doc
        .generations
        .iter()
        .flat_map(|g| {
            g.scores.iter().flat_map(move |(t, s)| {
                s.rescues
                    .iter()
                    .map(move |m| json!({"generation": g.index, "test": t, "mutant": m}))
            })
        })
        .collect();
    let exec_secs: f64 = doc
        .executions
        .values()
        .map(|e| e.duration_ms as f64 / 1000.0)
        .sum();
    let pool = doc.pool.as_ref();
    let tests: BTreeMap<&str, Value> = doc
        .tests
        .values()
        .map(|c| (c.id.as_str(), test(doc, c)))
        .collect();
    let mut r = json!({
        "evootter_version": doc.evootter_version,
        "instance": doc.inputs.instance,
        "phase": doc.phase.to_string(),
        "final_test": final_path,
        "final_test_id": doc.final_test,
        "tests": tests,
        "generations": generations,
        "mutants_total": pool.map_or(0, |p| p.mutants.len()),
        "mutants_requested": doc.config.mutants,
        "mutant_kinds": pool.map(|p| &p.kinds),
        // Per the paper's categories (Table IX): mutants in the pool, executions on them,
        // and kills of them over the generations.
        "mutant_categories": categories(doc),
        "mutant_kinds_only": doc.config.mutant_kinds,
        "mutant_reach": doc.config.reach.to_string(),
        "settle_ties": doc.config.settle_ties,
        "witnesses": doc.config.witnesses,
        // What the run's fitness rule did count: only the BRT rule weighs these.
        "kills": if doc.config.fitness == super::config::FitnessRule::Brt {
            doc.config.kills
        } else {
            super::config::KillScope::WholeLog
        }
        .to_string(),
        "issue_focus": doc.config.issue_focus && doc.config.fitness == super::config::FitnessRule::Brt,
        // The repository's tests that judged the rescuers, their runs and verdicts.
        "witness_runs": doc.witnesses.as_ref().map(|w| json!({
            "modules": w.modules.iter().map(|m| &m.rel_path).collect::<Vec<_>>(),
            "executions": doc.executions.values().filter(|e| w.modules.iter().any(|m| m.hash == e.test_hash)).count(),
            "verdicts": &w.verdicts,
        })),
        "mutant_scope": doc.config.mutant_scope.as_str(),
        "widened": pool.map(|p| p.widened()),
        "trivially_equivalent": pool.and_then(|p| p.tce.as_ref().map(|t| (t, p.mutants.len()))).map(|(t, kept)| json!({
            "python": t.python,
            "skipped": t.skipped,
            "compared": t.compared,
            "equivalent": t.equivalent(),
            "duplicates": t.duplicates(),
            "by_kind": t.by_kind().iter().map(|(k, (e, d))| (k.to_string(), json!({"equivalent": e, "duplicates": d}))).collect::<BTreeMap<_, _>>(),
            "summary": t.summary(kept),
        })),
        "executions_total": doc.executions.len(),
        "rescues": rescues,
        "timeouts": timeouts,
        "wall_seconds": round2(doc.timings.wall_seconds),
        // The witnesses' runs, part of the execute steps' time (`--no-witnesses` saves it).
        "witness_seconds": round2(
            doc.timings
                .by_step
                .get(super::machine::WITNESS_STEP)
                .copied()
                .unwrap_or(0.0)
        ),
        "step_seconds": doc.timings.by_step.iter().map(|(k, v)| (k.clone(), round2(*v))).collect::<BTreeMap<_, _>>(),
        "execution_seconds_sum": round2(exec_secs),
        "jobs": doc.config.jobs,
        "selection": doc.config.selection,
        // As `--fitness` names it.
        "fitness": doc.config.fitness.to_string(),
        // Which of the paper's systems ran.
        "method": doc.config.method,
        // The preset the run was made with and the flags it set (the rest were given).
        "preset": doc.config.preset,
        "rescue_tiebreak": doc.config.rescue_tiebreak,
        "crossover": doc.config.crossover,
        "seed": doc.config.seed,
        "sandbox": doc.config.sandbox,
        "notes": doc.notes,
    });
    let mut step_totals: BTreeMap<&str, CallTotals> = BTreeMap::new();
    for c in &doc.llm_calls {
        step_totals.entry(c.step.as_str()).or_default().add(c);
    }
    let by_step: BTreeMap<&str, usize> = step_totals.iter().map(|(s, t)| (*s, t.calls)).collect();
    let totals = CallTotals::of(&doc.llm_calls);
    if let Some(e) = &doc.environment_error {
        r["environment_error"] = json!(e);
    }
    if !doc.repairs.is_empty() {
        r["repair_rounds"] = json!(doc.config.repair_rounds);
        r["repairs"] = doc.repairs.iter().map(|c| repair_chain(doc, c)).collect();
    }
    if !doc.acts.is_empty() {
        r["acts"] = json!(doc.acts);
        let parents: BTreeMap<usize, &Vec<TestId>> = doc
            .generations
            .iter()
            .filter_map(|g| g.parents.as_ref().map(|p| (g.index, p)))
            .collect();
        r["curated_parents"] = json!(parents);
    }
    r["llm_steps"] = json!(step_totals);
    r["llm"] = json!(doc.config.llm);
    let batched = doc.llm_calls.iter().filter(|c| c.batch.is_some()).count();
    r["llm_calls"] = json!({"total": totals.calls, "by_step": by_step, "cached": totals.cached,
        "in_provider_batches": batched});
    // Input split as the providers count it: new, written to their prompt cache, read from it.
    r["tokens"] = json!({
        "input": totals.input_tokens,
        "output": totals.output_tokens,
        "cache_write": totals.cache_write_tokens,
        "cache_read": totals.cache_read_tokens,
        "input_read_from_cache_share": (totals.cache_read_share() * 1e4).round() / 1e4,
        // What a prefix cache could read at most: the prompt bytes repeating an earlier call's
        // start. It measures the prompts' layout apart from the provider, so a template that
        // breaks the shared prefix shows here whatever the provider caches.
        "prompt_prefix_shared_share": (crate::llm::shared_prefix_share(&doc.llm_calls) * 1e4).round() / 1e4,
    });
    // `null` when a model is missing from the price table: an unknown cost is not zero.
    r["cost_usd"] = json!(totals.cost_usd.map(|c| (c * 1e6).round() / 1e6));
    // The run's own limit (`--budget-usd`), `null` without one.
    r["budget_usd"] = json!(doc.config.budget_usd);
    if let Some(f) = doc.final_test.as_ref().and_then(|t| doc.evaluation.get(t)) {
        r["f2p"] = json!(f);
        let pool_f2p = doc
            .initial_population
            .iter()
            .filter(|t| doc.evaluation.get(*t).is_some_and(|f| f.f2p))
            .count();
        r["f2p_in_initial_population"] = json!(pool_f2p);
    }
    r
}

/// One e-Otter loop as report.json holds it: each round's verdict and what it made, how the
/// loop ended, and (after an evaluation) whether its first and last tests are F2P.
fn repair_chain(doc: &SessionDoc, c: &RepairChain) -> Value {
    let f2p = |t: &TestId| doc.evaluation.get(t).map(|f| f.f2p);
    json!({
        "start": c.start,
        "test": c.current(),
        "end": c.end,
        "calls": c.rounds.len(),
        "rounds": c.rounds.iter().map(|r| json!({
            "test": r.test,
            "accepted": r.accepted,
            "reason": r.reason,
            "repaired": r.repaired,
        })).collect::<Vec<_>>(),
        "start_f2p": f2p(&c.start),
        "f2p": f2p(c.current()),
    })
}

/// One generation as report.json holds it: its population and matrix's shape, what selection
/// weighed and decided, what the gate's acts made of the cut, and the cut's words.
fn generation(doc: &SessionDoc, g: &Generation) -> Value {
    let scores: BTreeMap<&str, usize> = g
        .scores
        .iter()
        .map(|(t, s)| (t.as_str(), s.kills.len()))
        .collect();
    let rescues: BTreeMap<&str, &Vec<MutantId>> = g
        .scores
        .iter()
        .filter(|(_, s)| !s.rescues.is_empty())
        .map(|(t, s)| (t.as_str(), &s.rescues))
        .collect();
    let flaky: Vec<&str> = g
        .scores
        .iter()
        .filter(|(_, s)| s.flaky)
        .map(|(t, _)| t.as_str())
        .collect();
    let old: BTreeMap<&str, Outcome> = g
        .scores
        .iter()
        .map(|(t, s)| (t.as_str(), s.old_outcome))
        .collect();
    // What selection weighed of each test, as it weighed it.
    let fitness: BTreeMap<String, serde_json::Value> =
        super::selection::TestFacts::of_generation(doc, g)
            .into_iter()
            .map(|f| {
                let mut e = json!({ "kills": f.kills, "status_kills": f.status_kills });
                if doc.config.issue_focus {
                    e["issue_values"] = json!([f.focus.named, f.focus.of]);
                }
                if f.surrogate > 0 {
                    e["best_rescuer_permille"] = json!(f.surrogate);
                }
                (f.id, e)
            })
            .collect();
    let mut v = json!({
        "index": g.index,
        "tests": g.tests,
        "mutants": g.mutants,
        "executions": g.executions,
        "cached": g.cached,
        "scores": scores,
        "fitness": fitness,
        "old_outcomes": old,
        "rescues": rescues,
        "flaky": flaky,
        "ranking": g.ranking,
        "selected": g.selected,
        "selected_by": g.selected_by,
        "fitness_decided": g.fitness_decided,
        "tie_break": g.tie_break,
        "offspring": g.offspring,
    });
    if !doc.evaluation.is_empty() {
        v["selection_accuracy"] = json!(selection_accuracy(doc, g));
    }
    if let Some(reach) = &g.reach {
        v["reach"] = json!(reach);
    }
    if !g.settling.is_empty() {
        v["settling"] = json!(g.settling);
    }
    // What the user's acts at the gate made of the cut, as every screen shows it.
    let gate = doc.gate(g.index);
    if gate.curated() {
        v["going_on"] = json!(gate.going_on);
        v["vetoed"] = json!(gate.vetoed);
        v["pinned"] = json!(gate.pinned);
        v["edited"] = json!(
            gate.edits
                .iter()
                .map(|(from, into)| json!({"test": from, "into": into}))
                .collect::<Vec<_>>()
        );
        v["added"] = json!(gate.added);
        v["acts"] = json!(gate.acts);
        v["fates"] = json!(
            gate.fates()
                .iter()
                .map(|(t, f)| (t.clone(), f.label()))
                .collect::<BTreeMap<_, _>>()
        );
    }
    if let Some(e) = super::explain::explain_cut(doc, g.index) {
        v["cut"] = json!(e.lines);
    }
    v
}

/// One test as report.json holds it: where it is, how it ran on c_old, and what it did
/// beyond passing or failing.
fn test(doc: &SessionDoc, c: &Candidate) -> Value {
    let old = doc.execution(&c.id, &Target::Old);
    let mut v = json!({"name": c.name, "path": c.rel_path,
               "old": old.map(|e| e.outcome),
               "f2p": doc.evaluation.get(&c.id).map(|f| f.f2p)});
    if matches!(
        c.origin,
        Origin::UserWritten { .. } | Origin::UserEdited { .. } | Origin::Repaired { .. }
    ) {
        v["origin"] = json!(c.origin);
    }
    // What a test did beyond passing or failing: it hung, changed its copy,
    // or hit the sandbox (on c_old, where every test runs).
    if let Some(e) = old {
        if e.outcome == Outcome::Timeout {
            v["hangs_on_c_old"] = json!(true);
        }
        if !e.changed.is_empty() {
            v["changed_copy"] = json!(e.changed);
        }
        if !e.changed_outside.is_empty() {
            v["changed_outside"] = json!(e.changed_outside);
        }
        if !e.denied.is_empty() {
            v["sandbox_denied"] = json!(e.denied);
        }
        // The lines of the focal files it executes on c_old (reach-aware runs).
        if let Some(lines) = &e.lines {
            let ranges: BTreeMap<&str, String> = lines
                .iter()
                .map(|(f, l)| (f.as_str(), super::reach::ranges(l)))
                .collect();
            v["reach"] = json!(ranges);
        }
    }
    v
}

/// The pool, the executions and the kills of each mutant category (`operators`,
/// `constant_replacement`, ...).
fn categories(doc: &SessionDoc) -> BTreeMap<&'static str, Value> {
    let Some(pool) = &doc.pool else {
        return BTreeMap::new();
    };
    let of: BTreeMap<&str, &'static str> = pool
        .mutants
        .iter()
        .map(|m| (m.id.as_str(), m.kind.category()))
        .collect();
    let mut counts: BTreeMap<&'static str, [usize; 3]> = BTreeMap::new();
    for c in of.values() {
        counts.entry(c).or_default()[0] += 1;
    }
    for e in doc.executions.values() {
        if let Target::Mutant(id) = &e.target
            && let Some(c) = of.get(id.as_str())
        {
            counts.entry(c).or_default()[1] += 1;
        }
    }
    for g in &doc.generations {
        for s in g.scores.values() {
            for id in &s.kills {
                if let Some(c) = of.get(id.as_str()) {
                    counts.entry(c).or_default()[2] += 1;
                }
            }
        }
    }
    counts
        .into_iter()
        .map(|(c, [pool, executions, kills])| {
            (
                c,
                json!({"pool": pool, "executions": executions, "kills": kills}),
            )
        })
        .collect()
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Paper IV-B: 1 when every selected test is F2P, else selected F2P / F2P in the candidates.
/// `None` when the generation had no F2P test to keep.
fn selection_accuracy(doc: &SessionDoc, g: &Generation) -> Option<f64> {
    let is_f2p = |t: &TestId| doc.evaluation.get(t).is_some_and(|f| f.f2p);
    let in_pool = g.tests.iter().filter(|t| is_f2p(t)).count();
    let kept = g.selected.iter().filter(|t| is_f2p(t)).count();
    if in_pool == 0 || g.selected.is_empty() {
        return None;
    }
    Some(if kept == g.selected.len() {
        1.0
    } else {
        kept as f64 / in_pool as f64
    })
}

/// A patch that adds `source` at `rel_path`; `git apply` takes it at the repository root.
pub fn add_file_patch(rel_path: &str, source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let mut p = format!(
        "diff --git a/{rel_path} b/{rel_path}\nnew file mode 100644\n--- /dev/null\n+++ b/{rel_path}\n@@ -0,0 +1,{} @@\n",
        lines.len()
    );
    for l in &lines {
        p.push('+');
        p.push_str(l);
        p.push('\n');
    }
    if !source.is_empty() && !source.ends_with('\n') {
        p.push_str("\\ No newline at end of file\n");
    }
    p
}

/// Write report.json, and once there is a final test, the test file and final.patch, into
/// `out`. A file of the user's is never written over: the final test takes another name if
/// its own is taken (and the report says which), `report.json` or `final.patch` that are
/// the user's stop it with an error. Returns the final test's path.
pub fn write_outputs(
    doc: &SessionDoc,
    out: &crate::outdir::OutDir,
) -> Result<Option<PathBuf>, crate::outdir::OutDirError> {
    let mut final_path = None;
    if let Some(t) = &doc.final_test {
        let c = &doc.tests[t];
        let name = out.free_name(&c.name);
        final_path = Some(out.write(&name, c.source.as_bytes())?);
        out.write(
            "final.patch",
            add_file_patch(&c.rel_path, &c.source).as_bytes(),
        )?;
    }
    let mut r = report(doc);
    if let Some(p) = &final_path {
        r["final_test"] = json!(p.display().to_string());
    }
    let text = serde_json::to_string_pretty(&r).unwrap_or_default();
    out.write("report.json", (text + "\n").as_bytes())?;
    Ok(final_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_file_patch_applies_with_git() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .output()
                .unwrap()
        };
        run(&["init", "-q"]);
        for src in [
            "def test_x():\n    assert 1\n",
            "def test_y():\n    assert 1",
        ] {
            let patch = add_file_patch("tests/test_new.py", src);
            std::fs::write(dir.path().join("p.patch"), &patch).unwrap();
            let out = run(&["apply", "p.patch"]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got = std::fs::read_to_string(dir.path().join("tests/test_new.py")).unwrap();
            assert_eq!(got, src);
            std::fs::remove_file(dir.path().join("tests/test_new.py")).unwrap();
        }
    }
}
