//! `evootter run`: a headless driver of the workbench (new or resumed run) with a progress
//! display. Everything a run does is the workbench's; this only prints and handles signals.

use super::progress::Progress;
use super::run_args;
use anyhow::bail;
use clap::Args;
use evootter::engine::SessionDoc;
use evootter::engine::events::Resume;
use evootter::exec;
use evootter::workbench::{self, Command, Ending, Options, RunOptions, StartError, Workbench};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct RunCmdArgs {
    /// Resume a saved session (its directory or its session.json). Only --base-url,
    /// --llm-retries, --jobs, --budget-usd and --llm-batch may change on resume; other flags
    /// are ignored.
    #[arg(long, value_name = "SESSION")]
    resume: Option<PathBuf>,
    /// Also write every engine event as a JSON line to this file.
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
    /// Send the model calls as the provider's batches (Anthropic Message Batches, OpenAI's
    /// Batch API) at half price: each call waits for its batch, minutes and up to a day. A
    /// killed run, resumed with --llm-batch, polls the batch it was waiting on
    /// (llm_batches.jsonl in its directory) instead of paying again. Needs --llm anthropic
    /// or --llm openai.
    #[arg(long)]
    llm_batch: bool,
    /// With --llm-batch: seconds before the first poll of a batch (each later poll waits twice
    /// as long, up to 5 minutes).
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    llm_batch_poll: f64,
    #[command(flatten)]
    request: run_args::RunArgs,
}

pub async fn run(a: RunCmdArgs) -> anyhow::Result<ExitCode> {
    if let Some(events) = &a.events {
        let parent = events.parent().filter(|p| !p.as_os_str().is_empty());
        anyhow::ensure!(
            parent.is_none_or(Path::is_dir),
            "--events {}: its directory does not exist",
            events.display()
        );
    }
    // Everything that can be checked is checked before anything is created; then the output
    // directory is claimed (checked, locked) before the first byte is written into it.
    let request = RunOptions::from(a.request.clone());
    anyhow::ensure!(
        a.llm_batch_poll.is_finite() && a.llm_batch_poll >= 0.0,
        "--llm-batch-poll takes a number of seconds, e.g. 10"
    );
    // A new run's provider (a script cannot batch; its key) is checked before its directory
    // is claimed; a resumed session's once it is read (nothing is created then).
    if a.llm_batch && a.resume.is_none() {
        workbench::model::batch_api(&request.llm_config()).map_err(anyhow::Error::msg)?;
    }
    let prepared = match &a.resume {
        Some(p) => workbench::resume(p, &request)?,
        None => request.prepare()?,
    };
    workbench::recent::remember(&prepared.session_path);
    let (model, turn) = match a.llm_batch {
        true => {
            let (model, turn) = batched(&prepared, a.llm_batch_poll)?;
            (Some(model), Some(turn))
        }
        false => (None, None),
    };
    let options = Options {
        model,
        ..Options::default()
    };
    // How to go on, as this run was started: its calls in batches again if they were.
    let batch_flag = if a.llm_batch { " --llm-batch" } else { "" };
    let mut wb = match Workbench::start(prepared, options).await {
        Ok(wb) => wb,
        Err(StartError::Model { error, session }) => bail!(
            "{}\nThe session is saved; after fixing the cause, continue with:\n  evootter run --resume {}{batch_flag}",
            super::exit::error_text(&error.into()),
            session.display()
        ),
        Err(e) => return Err(e.into()),
    };
    for line in &wb.header {
        eprintln!("{line}");
    }
    let mut progress = Progress::new(a.events.clone())?;
    if !wb.snapshot().config.method.mutates() {
        progress = progress.without_mutants();
    }
    wb.send(Command::RunToEnd);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        tokio::select! {
            e = wb.next_event() => match e {
                Some(e) => progress.handle(e),
                None => break,
            },
            _ = tokio::signal::ctrl_c() => interrupt(&wb),
            _ = term.recv() => interrupt(&wb),
        }
    }
    progress.done();
    let finished = wb.finish().await?;
    drop(turn);
    let session = finished.session_path.display().to_string();
    match finished.ending {
        Ending::Done { final_test } => {
            summarize(&finished.doc, final_test.as_deref(), &finished.out);
            Ok(ExitCode::SUCCESS)
        }
        Ending::Cancelled => {
            eprintln!(
                "\ninterrupted; the session is saved. Continue with:\n  evootter run --resume {session}{batch_flag}"
            );
            Ok(ExitCode::from(super::exit::EXIT_INTERRUPTED))
        }
        Ending::Failed { error } => match error.resume() {
            Some(Resume::LargerBudget) => bail!(
                "{error}\nThe session is saved; continue with a larger budget:\n  evootter run --resume {session} --budget-usd Y{batch_flag}"
            ),
            Some(Resume::AfterFix) => bail!(
                "{error}\nThe session is saved; after fixing the cause, continue with:\n  evootter run --resume {session}{batch_flag}"
            ),
            None => bail!(
                "{error}\nThe session is saved in {session} (it cannot be continued; --force there starts over)"
            ),
        },
    }
}

/// The session's provider behind a batcher of one participant, its news printed as lines;
/// the batches' journal is the run's directory.
fn batched(
    prepared: &workbench::Prepared,
    poll: f64,
) -> anyhow::Result<(
    std::sync::Arc<dyn evootter::llm::Model>,
    evootter::llm::provider_batch::Participant,
)> {
    let cfg = &prepared.doc.config;
    let pacing = evootter::llm::provider_batch::Pacing {
        first_poll: std::time::Duration::from_secs_f64(poll),
        max_poll: std::time::Duration::from_secs_f64(poll.max(300.0)),
        // One run: its call is the batch, nothing to wait for.
        gather: std::time::Duration::ZERO,
        ..Default::default()
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(news) = rx.recv().await {
            eprintln!("   {news}");
        }
    });
    let batcher = workbench::model::batcher(cfg, prepared.out.path(), pacing, Some(tx))
        .map_err(anyhow::Error::msg)?;
    let turn = batcher.participant();
    let name = prepared.doc.inputs.instance.as_deref().unwrap_or("run");
    let model = workbench::model::cached(Box::new(batcher.client(name)));
    Ok((model, turn))
}

/// Ctrl-C or SIGTERM: end every running execution at once (their supervisors kill what the
/// tests started), and have the workbench save and stop.
fn interrupt(wb: &Workbench) {
    exec::kill_all_running();
    wb.send(Command::Cancel);
}

fn summarize(doc: &SessionDoc, final_path: Option<&Path>, out: &Path) {
    let Some(t) = &doc.final_test else {
        println!("no final test (the population was empty)");
        return;
    };
    let c = &doc.tests[t];
    println!(
        "final test: {} ({t})",
        final_path.map_or(c.name.clone(), |p| p.display().to_string())
    );
    if let Some(f) = doc.evaluation.get(t) {
        println!(
            "F2P against the golden patch: {} (c_old: {:?}, fixed: {:?})",
            if f.f2p { "yes" } else { "no" },
            f.old,
            f.new
        );
    }
    if evootter::llm::CallRecord::all_scripted(&doc.llm_calls) {
        println!(
            "model calls: {}, scripted replies (no provider called): no tokens, no cost",
            doc.llm_calls.len()
        );
    } else if !doc.llm_calls.is_empty() {
        let t = evootter::llm::CallTotals::of(&doc.llm_calls);
        println!(
            "model calls: {} ({} from the cache), tokens {} in / {} out, cost {}",
            t.calls,
            t.cached,
            t.input_tokens,
            t.output_tokens,
            t.cost_label()
        );
    }
    println!(
        "report: {}  patch: {}",
        out.join("report.json").display(),
        out.join("final.patch").display()
    );
}
