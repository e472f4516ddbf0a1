//! Reach-aware mutants (`--mutant-reach reached`), end to end on the bundled examples: every
//! baseline is traced over the focal files, each generation samples only mutants some test
//! of it executes, and a mutant a test does not reach really cannot be killed by it.

use crate::common;
use common::*;
use evootter::engine::{SessionDoc, Target};
use evootter::exec::{ExecRequest, Executor, FileOverride, LocalConfig, LocalExecutor, Wanted};
use evootter::mutate::{Mutant, MutantKind};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

fn run(ex: &Path, out: &Path, reach: &str) -> SessionDoc {
    let o = bin()
        .args(["run", "--instance"])
        .arg(ex)
        .arg("--out")
        .arg(out)
        .args(["--mutant-reach", reach])
        // Samples of 1 to 6 mutants: what is checked is where they come from, not how many.
        .args(["--mutants", "6"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}: {}", ex.display(), text(&o));
    SessionDoc::load(&out.join("session.json")).unwrap()
}

/// The lines a mutant changes, worked out here from the bytes it replaces (a force-failure
/// mutant: the lines of the function it raises in, which run when the function is called).
fn changed_lines(repo: &Path, m: &Mutant) -> (u32, u32) {
    let src = std::fs::read_to_string(repo.join(&m.file)).unwrap();
    let line = |b: usize| src[..b].matches('\n').count() as u32 + 1;
    if m.kind == MutantKind::ForceFailure {
        let site = evootter::python::locate(&src, &m.function).unwrap();
        (line(site.body_start), line(site.body_end))
    } else {
        (
            line(m.start),
            line(m.start) + m.original.matches('\n').count() as u32,
        )
    }
}

fn reaches(doc: &SessionDoc, test: &String, m: &Mutant) -> Option<bool> {
    let lines = doc.execution(test, &Target::Old)?.lines.as_ref()?;
    let (first, last) = changed_lines(&doc.inputs.repo, m);
    Some(
        lines
            .get(&m.file)
            .is_some_and(|l| l.iter().any(|&n| (first..=last).contains(&n))),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reach_aware_run_spends_no_execution_on_a_mutant_no_test_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let (mut unreached_total, mut checked_pairs) = (0, 0);
    // A whole run on each layout (src/, a conftest, flat) and on the widened pool, whose
    // callers' mutants are reached through the focal function's callers; ministats is laid
    // out as pagekit is and its run proved nothing more.
    let chosen = [
        "billcycle_proration",
        "envconf_errors",
        "pagekit_orphans",
        "invoicekit_rounding",
    ];
    for ex in chosen.map(example) {
        let name = ex.file_name().unwrap().to_string_lossy().into_owned();
        let doc = run(&ex, &dir.path().join(&name), "reached");
        let pool: BTreeMap<&str, &Mutant> = doc
            .pool
            .iter()
            .flat_map(|p| p.mutants.iter().map(|m| (m.id.as_str(), m)))
            .collect();
        assert!(doc.final_test.is_some(), "{name}: the run ends with a test");
        for g in &doc.generations {
            let counts = g
                .reach
                .as_ref()
                .expect("every generation's reach is recorded");
            assert_eq!(
                counts.reached_total() + counts.unreached_total(),
                pool.len(),
                "{name}: generation {}'s counts cover the pool",
                g.index
            );
            unreached_total += counts.unreached_total();
            for t in &g.tests {
                let old = doc.execution(t, &Target::Old).unwrap();
                assert!(
                    old.lines.is_some(),
                    "{name}: {t}'s c_old run is traced (outcome {:?})",
                    old.outcome
                );
            }
            for id in &g.mutants {
                let m = pool[id.as_str()];
                assert!(
                    g.tests.iter().any(|t| reaches(&doc, t, m).unwrap_or(true)),
                    "{name}: generation {} runs {id} ({}, {}:{}), which none of {:?} executes",
                    g.index,
                    m.kind,
                    m.file,
                    m.line,
                    g.tests
                );
            }
            // Every execution of the generation is one of its baselines or sampled mutants.
            for t in &g.tests {
                let hash = &doc.tests[t].hash;
                let ran: Vec<&String> = doc
                    .executions
                    .values()
                    .filter(|e| &e.test_hash == hash)
                    .filter_map(|e| match &e.target {
                        Target::Mutant(m) => Some(m),
                        _ => None,
                    })
                    .collect();
                for m in ran {
                    assert!(
                        doc.generations
                            .iter()
                            .any(|g| g.tests.contains(t) && g.mutants.contains(m)),
                        "{name}: {t} ran on {m}, which no generation of it sampled"
                    );
                }
            }
        }

        // Soundness: pairs the trace says cannot kill, run anyway, do not kill.
        let exec = LocalExecutor::new(LocalConfig {
            repo: doc.inputs.repo.clone(),
            python: doc.config.python.clone().into(),
            pythonpath: doc.config.pythonpath.clone(),
            jobs: 1,
            isolation: Wanted::default(),
            warm: true,
            pass_env: vec![],
        })
        .unwrap();
        let mut pairs = vec![];
        for t in &doc.generations[0].tests {
            for m in pool.values() {
                if reaches(&doc, t, m) == Some(false)
                    && !pairs.iter().any(|(_, p): &(String, &Mutant)| p.id == m.id)
                {
                    pairs.push((t.clone(), *m));
                }
            }
        }
        for (t, m) in pairs.into_iter().take(4) {
            let c = &doc.tests[&t];
            let src = std::fs::read_to_string(doc.inputs.repo.join(&m.file)).unwrap();
            let r = exec
                .run(ExecRequest {
                    test: FileOverride {
                        rel_path: c.rel_path.clone(),
                        content: c.source.clone(),
                    },
                    overrides: vec![FileOverride {
                        rel_path: m.file.clone(),
                        content: m.apply(&src),
                    }],
                    removed: vec![],
                    timeout: Duration::from_secs(60),
                    trace: vec![],
                    tracer: Default::default(),
                    per_test: false,
                    select: vec![],
                    stop_at_first_failure: false,
                })
                .await
                .unwrap();
            let old = doc.execution(&t, &Target::Old).unwrap();
            assert_eq!(
                &r.normalized_log,
                doc.log(&old.normalized_log),
                "{name}: {t} does not reach {} ({}, line {}) yet its log changed on it",
                m.id,
                m.kind,
                m.line
            );
            checked_pairs += 1;
        }
    }
    assert!(
        unreached_total > 0,
        "on the bundled examples some mutants are out of every population's reach"
    );
    assert!(
        checked_pairs >= 4,
        "unreached pairs were run: {checked_pairs}"
    );
}

#[test]
fn traced_baselines_log_as_untraced_ones_and_sampling_by_reach_is_a_choice() {
    let ex = root().join("examples/envconf_errors");
    let dir = tempfile::tempdir().unwrap();
    let reached = run(&ex, &dir.path().join("reached"), "reached");
    let all = run(&ex, &dir.path().join("all"), "all");
    // The same scripted model writes the same initial population under both.
    let mut compared = 0;
    for t in &all.initial_population {
        let (a, r) = (
            all.execution(t, &Target::Old).unwrap(),
            reached.execution(t, &Target::Old).unwrap(),
        );
        assert_eq!(all.tests[t].hash, reached.tests[t].hash);
        assert!(a.lines.is_none(), "`all` traces nothing");
        assert!(r.lines.is_some());
        assert_eq!(all.log(&a.normalized_log), reached.log(&r.normalized_log));
        compared += 1;
    }
    assert_eq!(compared, 8);
    assert!(all.generations.iter().all(|g| g.reach.is_none()));
    // The report says how the pool split, and what each test reaches.
    let report = read_json(&dir.path().join("reached/report.json"));
    assert_eq!(report["mutant_reach"], "reached");
    assert!(report["generations"][0]["reach"]["reached"].is_object());
    let t = &reached.initial_population[0];
    assert!(
        report["tests"][t]["reach"]["envconf/coerce.py"].is_string()
            || report["tests"][t]["reach"]
                .as_object()
                .is_some_and(|o| !o.is_empty()),
        "{}",
        report["tests"][t]
    );

    // The why-not-killed view says what the test executes, and how the pool split.
    let g = &reached.generations[0];
    let (t, m) = g
        .tests
        .iter()
        .flat_map(|t| g.mutants.iter().map(move |m| (t, m)))
        .find(|(t, m)| !g.scores[*t].kills.contains(m))
        .expect("a survived cell");
    let pair = evootter::engine::pair::find(&reached, t, m).unwrap();
    let why = evootter::engine::kill_reasons::reasons(
        &reached,
        0,
        &pair,
        &evootter::engine::reach::from_disk(&reached),
    )
    .into_iter()
    .map(|r| r.text)
    .collect::<Vec<_>>()
    .join("\n");
    assert!(
        why.contains(&format!("{t}'s c_old run executes the mutant's"))
            || why.contains(&format!("{t}'s c_old run never executes the mutant's")),
        "{why}"
    );
    assert!(
        why.contains("generation 0's tests execute") && why.contains("of the pool's"),
        "{why}"
    );

    let o = bin()
        .args(["run", "--instance"])
        .arg(&ex)
        .args(["--mutant-reach", "some"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("expected one of: all, reached"),
        "{}",
        text(&o)
    );
}
