//! The full workflow (paper Fig. 1 and 3) end to end on every bundled example, with the model
//! behind a local HTTP server that speaks the real Anthropic or OpenAI wire format and answers
//! with the example's recorded replies: localization, contextualization, generation of the
//! initial population, mutants, real pytest runs, selection and batched crossover, then the
//! evaluation against the golden patch.

use crate::common;
use crate::mock_http;
use common::*;
use mock_http::scripted::{Wire, serve_script};
use std::path::Path;

pub const KEY: &str = "sk-e2e-NEVER-STORED";

/// `evootter run` of the example's full workflow with the model behind `server` (speaking
/// `wire`), the user's cache and config directories under `home`.
pub fn http_run(
    ex: &Path,
    wire: Wire,
    server: &mock_http::MockServer,
    out: &Path,
    home: &Path,
) -> std::process::Command {
    let mut c = bin();
    c.args(["run", "--start", "basebrt", "--instance"])
        .arg(ex)
        .arg("--out")
        .arg(out);
    wire.talk(&mut c, &server.base_url, KEY, home);
    c
}

fn run_over_http(ex: &Path, wire: Wire, out: &Path, cache: &Path) -> std::process::Output {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(serve_script(&ex.join("llm_script.json"), wire));
    let o = http_run(ex, wire, &server, out, cache).output().unwrap();
    if !o.status.success() {
        // The kill matrices say why the recorded replies no longer fit the run.
        let show = bin().arg("show").arg(out).output().unwrap();
        panic!(
            "{} over {wire:?}: {}\n--- evootter show\n{}",
            ex.display(),
            text(&o),
            String::from_utf8_lossy(&show.stdout)
        );
    }
    let session = read_json(&out.join("session.json"));
    assert_eq!(
        session["llm_calls"].as_array().unwrap().len(),
        server.count(),
        "{}: every request is recorded once",
        ex.display()
    );
    o
}

#[test]
fn full_workflow_over_http_on_billcycle_proration() {
    full_workflow_over_http(EXAMPLES[0], Wire::Anthropic);
}

#[test]
fn full_workflow_over_http_on_envconf_errors() {
    full_workflow_over_http(EXAMPLES[1], Wire::OpenAi);
}

#[test]
fn full_workflow_over_http_on_invoicekit_rounding() {
    full_workflow_over_http(EXAMPLES[2], Wire::Anthropic);
}

#[test]
fn full_workflow_over_http_on_ministats_missing() {
    full_workflow_over_http(EXAMPLES[3], Wire::OpenAi);
}

#[test]
fn full_workflow_over_http_on_pagekit_orphans() {
    full_workflow_over_http(EXAMPLES[4], Wire::Anthropic);
}

#[expect(
    clippy::too_many_lines,
    reason = "the whole workflow against one mock server, each call checked where it happens"
)]
fn full_workflow_over_http(name: &str, wire: Wire) {
    let ex = &example(name);
    let inst = evootter::instance::Instance::load(ex).unwrap();
    let before = fingerprint(&inst.repo);
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let o = run_over_http(ex, wire, &out_dir, &tmp.path().join("cache"));
    let name = ex.display();
    assert_eq!(before, fingerprint(&inst.repo), "run modified {name}");
    assert!(!text(&o).contains(KEY));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("model calls: ") && stdout.contains("cost $"),
        "{stdout}"
    );
    // Each progress line reads as a sentence: no gap inside it (what a string continued
    // over two source lines without its `\` leaves).
    let stderr = String::from_utf8_lossy(&o.stderr);
    for line in stderr.lines() {
        assert!(
            !line.trim_start().contains("    "),
            "{name}: a gap inside a progress line: {line:?}"
        );
    }

    let r = read_json(&out_dir.join("report.json"));
    let s = read_json(&out_dir.join("session.json"));
    for key in [
        "final_test",
        "generations",
        "mutants_total",
        "mutant_kinds",
        "executions_total",
        "rescues",
        "timeouts",
        "wall_seconds",
        "execution_seconds_sum",
        "jobs",
        "f2p",
        "llm_calls",
        "tokens",
        "cost_usd",
    ] {
        assert!(r.get(key).is_some(), "{name}: report lacks {key}");
    }
    assert_eq!(r["f2p"]["f2p"], true, "{name}: {r:#}");
    // Nothing to say, but for a focal function too small for the pool, widened (and said).
    let notes = r["notes"].as_array().unwrap();
    let small = name.to_string().ends_with("invoicekit_rounding");
    assert!(
        notes.is_empty()
            || (small && notes.len() == 1 && notes[0].as_str().unwrap().contains("the pool adds")),
        "{name}: {r:#}"
    );
    assert_eq!(
        small,
        r["widened"] != serde_json::json!({}),
        "{name}: {:#}",
        r["widened"]
    );

    // BaseBRT: one call per step; the localized functions became the focal functions.
    let by_step = &r["llm_calls"]["by_step"];
    for step in BASEBRT_STEPS {
        assert_eq!(by_step[step], 1, "{name} {step}: {by_step:#}");
    }
    let focal: Vec<String> = s["inputs"]["focal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}::{}",
                f["file"].as_str().unwrap(),
                f["qualname"].as_str().unwrap()
            )
        })
        .collect();
    let expected: Vec<String> = inst.focal.iter().map(|f| f.to_string()).collect();
    assert_eq!(focal, expected, "{name}");
    assert_eq!(s["tests"]["t1"]["origin"]["kind"], "generated");

    // The evolution's budget (paper III-D): with n = 8, two crossovers and at most five
    // calls for selection and crossover together.
    assert_eq!(by_step["crossover"], 2, "{name}");
    let select = by_step["select"].as_u64().unwrap_or(0);
    assert!(select <= 3, "{name}");
    // Real token counts from the wire, priced from the built-in table.
    assert!(r["tokens"]["input"].as_u64().unwrap() > 1000, "{name}");
    assert!(r["cost_usd"].as_f64().unwrap() > 0.0, "{name}");
    // Per step: calls, tokens and cost add up to the run's totals.
    let steps = r["llm_steps"].as_object().unwrap();
    let sum = |k: &str| -> f64 { steps.values().map(|v| v[k].as_f64().unwrap()).sum() };
    assert_eq!(sum("calls"), r["llm_calls"]["total"].as_f64().unwrap());
    assert_eq!(sum("input_tokens"), r["tokens"]["input"].as_f64().unwrap());
    assert!((sum("cost_usd") - r["cost_usd"].as_f64().unwrap()).abs() < 1e-5);

    let gens = r["generations"].as_array().unwrap();
    let sizes: Vec<usize> = gens
        .iter()
        .map(|g| g["tests"].as_array().unwrap().len())
        .collect();
    assert_eq!(
        sizes,
        vec![8, 4, 2],
        "{name}: 8 tests halve in 3 generations"
    );
    // The offspring of generation g are the population of generation g + 1.
    for w in gens.windows(2) {
        assert_eq!(w[0]["offspring"], w[1]["tests"], "{name}");
    }
    for g in gens {
        assert!(g["selected_by"].is_string());
        assert!(g["fitness_decided"].is_boolean());
        let scores = g["scores"].as_object().unwrap();
        assert_eq!(scores.len(), g["tests"].as_array().unwrap().len());
    }
    // Mutant samples double, and are discriminating (the default): each generation runs
    // `mutants_for(..)` of the mutants its own tests execute on c_old, those that tell its
    // competing tests apart first. Its tests are the offspring, which may reach other lines than
    // their parents, so a sample need not contain the previous one.
    let samples: Vec<Vec<String>> = gens
        .iter()
        .map(|g| {
            g["mutants"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    for w in samples.windows(2) {
        assert!(w[1].len() >= w[0].len(), "{name}");
    }
    let doc = evootter::engine::SessionDoc::load(&out_dir.join("session.json")).unwrap();
    assert_eq!(
        doc.config.reach,
        evootter::engine::MutantReach::Discriminate
    );
    let pool: Vec<&evootter::mutate::Mutant> =
        doc.pool.iter().flat_map(|p| p.mutants.iter()).collect();
    let mut order: Vec<String> = pool.iter().map(|m| m.id.clone()).collect();
    evootter::rng::Rng::derived(doc.config.seed, "mutant-sample").shuffle(&mut order);
    let spans = evootter::engine::reach::spans(pool.iter().copied(), |f| {
        std::fs::read_to_string(doc.inputs.repo.join(f)).ok()
    });
    for (g, sample) in doc.generations.iter().zip(&samples) {
        let (reached, _) = evootter::engine::reach::reached(&doc, &g.tests, &order, &spans);
        let k = evootter::engine::halving::mutants_for(
            g.tests.len(),
            doc.config.mutants,
            reached.len(),
        );
        // Discriminating: of those, the mutants that best tell the competitors apart.
        let competitors = evootter::engine::reach::competitors(&doc, &g.tests);
        let drawn = evootter::engine::reach::discriminating(&doc, &competitors, reached, &spans, k);
        // Mutants that rescued a test of an earlier generation first, up to half the sample.
        let known = evootter::engine::witness::known_rescuers(&doc, &doc.generations[..g.index]);
        let drawn = evootter::engine::witness::first_of(drawn, &known, k / 2);
        assert_eq!(
            sample[..k],
            drawn[..k],
            "{name}: generation {}'s sample",
            g.index
        );
        // Then the mutants drawn to settle a tie at its cut, if any: none of the sample.
        assert_eq!(
            sample[k..],
            g.settling[..],
            "{name}: generation {}",
            g.index
        );
        assert!(g.settling.iter().all(|m| !sample[..k].contains(m)));
    }

    // final.patch adds exactly the final test and applies to a clean copy.
    let final_test = std::path::PathBuf::from(r["final_test"].as_str().unwrap());
    assert!(final_test.is_file(), "final test file written");
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(format!("{}/.", inst.repo.display()))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(status.success());
    let apply = std::process::Command::new("git")
        .args(["apply", "--check", "-v"])
        .arg(out_dir.join("final.patch"))
        .current_dir(copy.path())
        .output()
        .unwrap();
    assert!(apply.status.success(), "final.patch: {}", text(&apply));

    // No execution ran twice: one record per (test content, target).
    let execs = s["executions"].as_object().unwrap();
    let seqs: std::collections::BTreeSet<u64> =
        execs.values().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs.len(), execs.len());
    assert_eq!(
        r["executions_total"].as_u64().unwrap() as usize,
        execs.len()
    );

    let stored = std::fs::read_to_string(out_dir.join("session.json")).unwrap()
        + &std::fs::read_to_string(out_dir.join("report.json")).unwrap();
    assert!(!stored.contains(KEY), "{name}: the key is never stored");
}

/// A model-written test that prints its environment and a key it finds in a file of the
/// repository, then fails: its log goes into the session and, through crossover and
/// selection, to the model. No key, token or their values may reach the test's environment,
/// a file evootter writes or a request to the model server; a variable the user names with
/// `--pass-env` does reach the test. Cold and warm executors both.
#[test]
fn no_secret_reaches_a_test_a_stored_file_or_the_model() {
    const ANTHROPIC: &str = "sk-ant-api03-SECRET-abcdefghijklmnop";
    const OPENAI: &str = "sk-proj-SECRET-qrstuvwxyz0123456789";
    const GITHUB: &str = "ghp_SECRETabcdefghijklmnopqrstuvwxyz01";
    let tiny = Tiny::four();
    std::fs::write(tiny.repo.join("secret.txt"), format!("{ANTHROPIC}\n")).unwrap();
    std::fs::write(
        tiny.cands.join("test_e.py"),
        "import os, pathlib\n\ndef test_leaks():\n    key = (pathlib.Path(__file__).parent.parent / 'secret.txt').read_text().strip()\n    print('FOUND', key)\n    for k, v in sorted(os.environ.items()):\n        print('ENV', k, '=', v)\n    assert False, key\n",
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Any reply the steps cannot use: selection and crossover fall back to their rules, and
    // every prompt they would send is still sent.
    let server = rt.block_on(mock_http::MockServer::start_with(std::sync::Arc::new(
        |req: &mock_http::Seen, _| {
            mock_http::scripted::reply(Wire::Anthropic, &req.json(), "no usable answer", 100)
        },
    )));
    for executor in ["cold", "warm"] {
        let out = tiny.out(executor);
        let events = tiny.out(&format!("{executor}.jsonl"));
        let o = tiny
            .command(executor)
            .env("ANTHROPIC_API_KEY", ANTHROPIC)
            .env("OPENAI_API_KEY", OPENAI)
            .env("GITHUB_TOKEN", GITHUB)
            .env("EVOOTTER_PASSED", "passed-by-name")
            .env("XDG_CACHE_HOME", tiny.out("cache"))
            .args(["--focal", "calc/ops.py::clamp", "--initial-tests"])
            .arg(&tiny.cands)
            .args(["--tests", "5", "--llm", "anthropic", "--base-url"])
            .arg(&server.base_url)
            .args(["--executor", executor, "--pass-env", "EVOOTTER_PASSED"])
            .arg("--events")
            .arg(&events)
            .output()
            .unwrap();
        assert!(o.status.success(), "{executor}: {}", text(&o));
        assert!(
            text(&o).contains("passed by you: EVOOTTER_PASSED"),
            "{executor}: the header names what was passed: {}",
            text(&o)
        );
        let doc = evootter::engine::SessionDoc::load(&out.join("session.json")).unwrap();
        let leak = doc
            .tests
            .iter()
            .find(|(_, c)| c.source.contains("def test_leaks"))
            .map(|(id, _)| id.clone())
            .unwrap();
        let log = doc
            .log(
                &doc.execution(&leak, &evootter::engine::Target::Old)
                    .unwrap()
                    .raw_log,
            )
            .to_owned();
        assert!(log.contains("FOUND [redacted]"), "{executor}: {log}");
        assert!(log.contains("ENV PATH ="), "{executor}: {log}");
        assert!(
            log.contains("ENV EVOOTTER_PASSED = passed-by-name"),
            "{executor}: {log}"
        );
        for name in ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN"] {
            assert!(
                !log.contains(name),
                "{executor}: {name} reached the test: {log}"
            );
        }
        assert_eq!(doc.config.pass_env, vec!["EVOOTTER_PASSED".to_owned()]);

        let sent: Vec<String> = server.requests().into_iter().map(|r| r.body).collect();
        assert!(
            sent.iter().any(|b| b.contains("FOUND [redacted]")),
            "{executor}: the leaking test's log went to the model, redacted"
        );
        let mut written = vec![];
        for f in [out.join("session.json"), out.join("report.json"), events] {
            written.push((
                f.display().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
        for (what, body) in written
            .iter()
            .cloned()
            .chain(
                sent.into_iter()
                    .map(|b| ("a request to the model".to_owned(), b)),
            )
            .chain([("evootter's output".to_owned(), text(&o))])
        {
            for secret in [ANTHROPIC, OPENAI, GITHUB] {
                assert!(!body.contains(secret), "{executor}: {what} holds {secret}");
            }
        }
    }
}
