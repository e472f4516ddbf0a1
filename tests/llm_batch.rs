//! `bench --llm-batch` against a simulated provider speaking each batch API: the instances'
//! calls go in lockstep as one batch per step, polled until they end, billed at half; a
//! request that errored or expired in a batch is sent again alone; a bench killed while a
//! batch runs, run again, polls that batch and pays for nothing twice.

use crate::common::bench_rows::rows_file;
use crate::common::*;
use crate::mock_http::MockServer;
use crate::mock_http::provider::{Faults, Provider};
use crate::mock_http::scripted::Wire;
use std::path::Path;

const KEY: &str = "sk-batch-NEVER-STORED";
const NAMES: [&str; 2] = ["envconf_errors", "ministats_missing"];

fn bench(server: &MockServer, wire: Wire, dir: &Path) -> std::process::Command {
    let rows = dir.join("rows.jsonl");
    if !rows.exists() {
        rows_file(dir, &dir.join("repos"), &NAMES);
    }
    let mut c = bin();
    c.args(["bench", "--parallel", "2", "--instances"])
        .arg(&rows)
        .arg("--repos")
        .arg(dir.join("repos"))
        .arg("--out")
        .arg(dir.join("batch"))
        .args([
            "--llm-batch",
            "--llm-batch-poll",
            "0.05",
            "--llm-batch-gather",
            "60",
        ]);
    wire.talk(&mut c, &server.base_url, KEY, dir);
    c
}

fn calls(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    let s = read_json(&dir.join(format!("batch/evootter__{name}-1/session.json")));
    s["llm_calls"].as_array().unwrap().clone()
}

fn examples_of(names: &[&str]) -> Vec<std::path::PathBuf> {
    names.iter().map(|n| example(n)).collect()
}

#[test]
fn instances_advance_in_lockstep_one_anthropic_batch_per_step() {
    let exs = examples_of(&NAMES);
    let exs: Vec<&Path> = exs.iter().map(|p| p.as_path()).collect();
    let rt = tokio::runtime::Runtime::new().unwrap();
    // The second request of all ends errored: it is sent again alone.
    let faults = Faults {
        polls_in_progress: 2,
        errored: vec![1],
        expire_batch: None,
    };
    let (server, provider) = rt.block_on(Provider::serve(&exs, Wire::Anthropic, faults));
    let tmp = tempfile::tempdir().unwrap();
    let o = bench(&server, Wire::Anthropic, tmp.path())
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains(KEY));
    // Each step the two runs share went as one batch of two requests, one from each
    // instance; the calls of the run with more of them after the other ended, alone.
    let batches = provider.batches();
    let (a, b) = (
        calls(tmp.path(), NAMES[0]).len(),
        calls(tmp.path(), NAMES[1]).len(),
    );
    let pairs = batches.iter().filter(|(_, r)| r.len() == 2).count();
    assert_eq!(pairs, a.min(b), "lockstep: {batches:?}");
    assert_eq!(batches.len(), a.max(b), "{batches:?}");
    assert!(t.contains("submitted 2 request(s): evootter__envconf_errors-1 localize_files, evootter__ministats_missing-1 localize_files") || t.contains("submitted 2 request(s): evootter__ministats_missing-1 localize_files, evootter__envconf_errors-1 localize_files"), "{t}");
    assert!(t.contains("llm batch msgbatch_"), "{t}");
    assert!(t.contains(": submitted 2 request(s): evootter__"), "{t}");
    assert!(
        t.contains(
            "failed in the batch (errored: api_error Internal server error); sent again alone"
        ),
        "{t}"
    );
    let singles = server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path == "/v1/messages")
        .count();
    assert_eq!(singles, 1, "only the errored request went alone");
    let (mut batched, mut alone) = (0, 0);
    for name in NAMES {
        let rec = read_json(
            &tmp.path()
                .join(format!("batch/evootter__{name}-1/instance.json")),
        );
        assert_eq!(rec["score"]["f2p"], true, "{name}: {rec:#}");
        for c in calls(tmp.path(), name) {
            let full = (c["input_tokens"].as_f64().unwrap() * 3.0
                + c["cache_write_tokens"].as_f64().unwrap_or(0.0) * 3.75
                + c["cache_read_tokens"].as_f64().unwrap_or(0.0) * 0.3
                + c["output_tokens"].as_f64().unwrap() * 15.0)
                / 1e6;
            let cost = c["cost_usd"].as_f64().unwrap();
            match c["batch"].as_str() {
                Some(b) => {
                    assert!(b.starts_with("msgbatch_"));
                    assert!((cost - full / 2.0).abs() < 1e-12, "half price: {c:#}");
                    batched += 1;
                }
                None => {
                    assert!((cost - full).abs() < 1e-12, "{c:#}");
                    alone += 1;
                }
            }
        }
    }
    assert_eq!((batched + alone, alone), (a + b, 1));
    // envconf's issue and functions pass Anthropic's minimum cacheable prefix: its later
    // steps read them from the provider's cache, as the batches' usage says.
    let envconf = calls(tmp.path(), "envconf_errors");
    let used = |k: &str| {
        envconf
            .iter()
            .filter(|c| c[k].as_u64().unwrap_or(0) > 0)
            .count()
    };
    assert!(
        used("cache_write_tokens") >= 1 && used("cache_read_tokens") >= 1,
        "{envconf:#?}"
    );
    let summary = read_json(&tmp.path().join("batch/summary.json"));
    assert_eq!(summary["calls_in_provider_batches"], batched, "{summary:#}");
    let per = summary["cost_per_instance_usd"].as_f64().unwrap();
    assert!(
        (per - summary["cost_usd"].as_f64().unwrap() / 2.0).abs() < 1e-9,
        "{summary:#}"
    );
    assert!(
        t.contains(&format!(
            "{batched} calls answered in provider batches (half price)"
        )),
        "{t}"
    );
    let show = bin()
        .arg("show")
        .arg(tmp.path().join("batch/evootter__envconf_errors-1"))
        .arg("--calls")
        .output()
        .unwrap();
    let shown = text(&show);
    assert!(
        shown.contains("  batch msgbatch_000")
            && shown.contains("of them answered in provider batches (--llm-batch), at half price"),
        "{shown}"
    );
    // Per step too: envconf's two crossovers on one line.
    assert!(
        shown.contains("\nby step:\n")
            && shown
                .lines()
                .any(|l| l.trim_start().starts_with("crossover ") && l.contains(" 2 call(s) ")),
        "{shown}"
    );
    // Every batch collected: a later bench has nothing to poll.
    let journal = std::fs::read_to_string(tmp.path().join("batch/llm_batches.jsonl")).unwrap();
    let count = |what: &str| journal.lines().filter(|l| l.contains(what)).count();
    assert_eq!(count("\"submitted\""), batches.len());
    assert_eq!(count("\"collected\""), batches.len());
    assert!(!journal.contains(KEY));
}

#[test]
fn a_bench_killed_while_its_batch_runs_polls_it_again_and_pays_once() {
    let exs = examples_of(&NAMES);
    let exs: Vec<&Path> = exs.iter().map(|p| p.as_path()).collect();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stuck = Faults {
        polls_in_progress: usize::MAX,
        ..Faults::default()
    };
    let (server, provider) = rt.block_on(Provider::serve(&exs, Wire::OpenAi, stuck));
    let tmp = tempfile::tempdir().unwrap();
    let mut child = bench(&server, Wire::OpenAi, tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while provider.batches().is_empty() || server.count() < 6 {
        assert!(t0.elapsed().as_secs() < 60, "no batch submitted");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The batch runs (it is being polled); the bench is killed.
    child.kill().unwrap();
    child.wait().unwrap();
    let first = provider.batches();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].1.len(), 2);
    // The Batch screen's rows say where the interrupted instances' calls are.
    let rows = evootter::bench::batch_dir::BatchDir::open(&tmp.path().join("batch")).refresh();
    assert_eq!(rows.len(), 2);
    for r in &rows {
        let detail = r.state.detail().unwrap_or_default();
        assert!(
            detail.contains(&format!(
                "its call waits in llm batch {} since ",
                first[0].0
            )),
            "{}: {detail}",
            r.id
        );
    }
    // The provider finishes it; the first batch expires after its first answer.
    provider.set_faults(Faults {
        polls_in_progress: 1,
        errored: vec![],
        expire_batch: Some(0),
    });
    let o = bench(&server, Wire::OpenAi, tmp.path()).output().unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains(&format!(
            "llm batch {}: polling again, submitted at",
            first[0].0
        )),
        "{t}"
    );
    assert!(t.contains("(batch_expired: "), "{t}");
    let batches = provider.batches();
    assert_eq!(
        batches[0], first[0],
        "the first batch was not submitted again"
    );
    // Its two requests were never sent again in another batch; the expired one alone.
    let resent: Vec<_> = batches[1..]
        .iter()
        .flat_map(|(_, r)| r.iter())
        .filter(|id| first[0].1.contains(id))
        .collect();
    assert!(resent.is_empty(), "{resent:?}");
    let singles = server
        .requests()
        .iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .count();
    assert_eq!(singles, 1, "{t}");
    for name in NAMES {
        let rec = read_json(
            &tmp.path()
                .join(format!("batch/evootter__{name}-1/instance.json")),
        );
        assert_eq!(rec["score"]["f2p"], true, "{name}: {rec:#}");
        let calls = calls(tmp.path(), name);
        assert!(
            calls[0]["batch"] == first[0].0 || calls[0]["batch"].is_null(),
            "{:#}",
            calls[0]
        );
    }
}

#[test]
fn a_total_budget_stops_the_batch_before_it_is_crossed_and_a_larger_one_resumes_it() {
    let exs = examples_of(&NAMES);
    let exs: Vec<&Path> = exs.iter().map(|p| p.as_path()).collect();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, provider) = rt.block_on(Provider::serve(&exs, Wire::Anthropic, Faults::default()));
    let tmp = tempfile::tempdir().unwrap();
    let spent = || -> f64 {
        NAMES
            .iter()
            .flat_map(|n| calls(tmp.path(), n))
            .map(|c| c["cost_usd"].as_f64().unwrap())
            .sum()
    };
    let o = bench(&server, Wire::Anthropic, tmp.path())
        .args(["--budget-usd-total", "0.03"])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    // Each instance stopped at the call that would have crossed, the two together counted.
    for name in NAMES {
        let rec = read_json(
            &tmp.path()
                .join(format!("batch/evootter__{name}-1/instance.json")),
        );
        let error = rec["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("budget reached")
                && error.contains("would take the batch's spending from $")
                && error.contains("past --budget-usd-total 0.03")
                && error.contains("(the same bench with a larger --budget-usd-total resumes it)"),
            "{name}: {rec:#}"
        );
    }
    let first = spent();
    assert!(first > 0.015 && first <= 0.03, "{first}");
    // The Batch screen shows the budget beside what was spent: the manifest holds it.
    let manifest = read_json(&tmp.path().join("batch/batch.json"));
    assert_eq!(manifest["budget_usd_total"], 0.03, "{manifest:#}");
    let sent: usize = provider.batches().iter().map(|(_, r)| r.len()).sum();

    let o = bench(&server, Wire::Anthropic, tmp.path())
        .args(["--budget-usd-total", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // The first instance to end projects the batch's cost from what it cost.
    assert!(
        text(&o).contains("[1/2] ") && text(&o).contains("for all 2 at this rate)"),
        "{}",
        text(&o)
    );
    for name in NAMES {
        let rec = read_json(
            &tmp.path()
                .join(format!("batch/evootter__{name}-1/instance.json")),
        );
        assert_eq!(rec["score"]["f2p"], true, "{name}: {rec:#}");
    }
    // Every call was paid once: what the provider answered is what the sessions hold.
    let all: usize = provider.batches().iter().map(|(_, r)| r.len()).sum();
    let recorded: usize = NAMES.iter().map(|n| calls(tmp.path(), n).len()).sum();
    assert_eq!(all, recorded, "{} before the stop", sent);
    assert!(spent() > first);
}

/// `run --llm-batch`: a single run's calls go as the provider's batches (OpenAI's Batch
/// API here), each one batch of one request, polled until it ends, billed at half; the run
/// ends as it would without. Without an HTTP provider the flag is refused, by name.
#[test]
fn a_single_run_sends_its_calls_as_batches_at_half_price() {
    let ex = example(NAMES[0]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let faults = Faults {
        polls_in_progress: 1,
        ..Faults::default()
    };
    let (server, provider) = rt.block_on(Provider::serve(&[ex.as_path()], Wire::OpenAi, faults));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut c = bin();
    c.args(["run", "--start", "basebrt", "--instance"])
        .arg(&ex)
        .arg("--out")
        .arg(&out)
        .args(["--llm-batch", "--llm-batch-poll", "0.05"]);
    Wire::OpenAi.talk(&mut c, &server.base_url, KEY, tmp.path());
    let o = c.output().unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("submitted 1 request(s): "), "{t}");
    let s = read_json(&out.join("session.json"));
    let calls = s["llm_calls"].as_array().unwrap();
    assert!(calls.len() >= 6, "{}", calls.len());
    for c in calls {
        assert!(c["batch"].is_string(), "every call in a batch: {c:#}");
    }
    let batches = provider.batches();
    assert_eq!(
        batches.len(),
        calls.len(),
        "one batch per call: {batches:?}"
    );
    assert!(batches.iter().all(|(_, r)| r.len() == 1));
    let singles = server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path == "/v1/chat/completions")
        .count();
    assert_eq!(singles, 0, "nothing sent alone");
    assert!(
        std::fs::read_to_string(out.join("llm_batches.jsonl"))
            .unwrap()
            .contains("\"collected\""),
        "the journal is in the run's directory"
    );
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
    assert_eq!(
        r["llm_calls"]["in_provider_batches"].as_u64(),
        Some(calls.len() as u64),
        "{r:#}"
    );

    // A script answers at once: there is no batch to send.
    let o = bin()
        .args(["run", "--start", "basebrt", "--instance"])
        .arg(&ex)
        .arg("--out")
        .arg(tmp.path().join("scripted"))
        .arg("--llm-batch")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--llm-batch sends the calls as a provider's batches"),
        "{}",
        text(&o)
    );
    assert!(
        !tmp.path().join("scripted").exists(),
        "refused before anything is created"
    );
    // So is a provider without its key (Anthropic's; an OpenAI-compatible server may need none).
    let mut c = bin();
    c.args(["run", "--start", "basebrt", "--instance"])
        .arg(&ex)
        .arg("--out")
        .arg(tmp.path().join("nokey"))
        .arg("--llm-batch");
    Wire::Anthropic.talk(&mut c, &server.base_url, KEY, tmp.path());
    let o = c.env_remove("ANTHROPIC_API_KEY").output().unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("ANTHROPIC_API_KEY"), "{}", text(&o));
    assert!(
        !tmp.path().join("nokey").exists(),
        "refused before anything is created"
    );
}

/// A single run stopped while its call waits in a batch: resumed without --llm-batch it says
/// where that call is and how to collect it; with it, it polls that batch rather than
/// paying for the call again.
#[test]
fn a_killed_single_run_collects_its_batch_on_resume() {
    let ex = example(NAMES[1]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stuck = Faults {
        polls_in_progress: usize::MAX,
        ..Faults::default()
    };
    let (server, provider) = rt.block_on(Provider::serve(&[ex.as_path()], Wire::OpenAi, stuck));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = |args: &[&str]| {
        let mut c = bin();
        c.args(args);
        Wire::OpenAi.talk(&mut c, &server.base_url, KEY, tmp.path());
        c
    };
    let out_s = out.to_str().unwrap();
    let ex_s = ex.to_str().unwrap();
    let child = run(&[
        "run",
        "--start",
        "basebrt",
        "--instance",
        ex_s,
        "--out",
        out_s,
        "--llm-batch",
        "--llm-batch-poll",
        "0.05",
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let t0 = std::time::Instant::now();
    while provider.batches().is_empty() {
        assert!(t0.elapsed().as_secs() < 60, "no batch submitted");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Stopped as Ctrl-C stops it: it says how to go on, its calls in batches again.
    // SAFETY: kill has no memory-safety preconditions; the pid is our unreaped child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    assert!(
        text(&o).contains(&format!(
            "evootter run --resume {}/session.json --llm-batch",
            out_s
        )),
        "{}",
        text(&o)
    );
    let first = provider.batches();
    assert_eq!(first.len(), 1);

    // Without the flag (and here against a closed port, so that it goes no further): the
    // note.
    let o = bin()
        .args(["run", "--resume", out_s, "--llm-retries", "0"])
        .args(["--base-url", "http://127.0.0.1:9"])
        .env("OPENAI_API_KEY", KEY)
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .env("XDG_CONFIG_HOME", tmp.path().join("config"))
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "note: a call of this run waits in llm batch {}; `evootter run --resume ",
            first[0].0
        )) && text(&o).contains("--llm-batch` collects it instead of paying for it again"),
        "{}",
        text(&o)
    );
    provider.set_faults(Faults {
        polls_in_progress: 1,
        ..Faults::default()
    });
    let o = run(&[
        "run",
        "--resume",
        out_s,
        "--llm-batch",
        "--llm-batch-poll",
        "0.05",
    ])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let batches = provider.batches();
    assert_eq!(batches[0], first[0], "not submitted again");
    assert!(
        batches[1..]
            .iter()
            .all(|(_, r)| r.iter().all(|id| !first[0].1.contains(id))),
        "{batches:?}"
    );
    let s = read_json(&out.join("session.json"));
    let calls = s["llm_calls"].as_array().unwrap();
    let singles = server
        .requests()
        .iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .count();
    assert_eq!(singles, 0, "{batches:?} {}", text(&o));
    assert_eq!(calls[0]["batch"], first[0].0.as_str(), "{:#}", calls[0]);
    assert_eq!(batches.len(), calls.len(), "every call paid once");
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["f2p"]["f2p"], true, "{r:#}");
}
