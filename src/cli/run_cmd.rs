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
    /// --llm-retries and --jobs may change on resume; other flags are ignored.
    #[arg(long, value_name = "SESSION")]
    resume: Option<PathBuf>,
    /// Also write every engine event as a JSON line to this file.
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
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
    let prepared = match &a.resume {
        Some(p) => workbench::resume(p, &request)?,
        None => request.prepare()?,
    };
    let mut wb = match Workbench::start(prepared, Options::default()).await {
        Ok(wb) => wb,
        Err(StartError::Model { error, session }) => bail!(
            "{}\nThe session is saved; after fixing the cause, continue with:\n  evootter run --resume {}",
            super::exit::error_text(&error.into()),
            session.display()
        ),
        Err(e) => return Err(e.into()),
    };
    for line in &wb.header {
        eprintln!("{line}");
    }
    let mut progress = Progress::new(a.events.clone())?;
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
    let session = finished.session_path.display().to_string();
    match finished.ending {
        Ending::Done { final_test } => {
            summarize(&finished.doc, final_test.as_deref(), &finished.out);
            Ok(ExitCode::SUCCESS)
        }
        Ending::Cancelled => {
            eprintln!(
                "\ninterrupted; the session is saved. Continue with:\n  evootter run --resume {session}"
            );
            Ok(ExitCode::from(super::exit::EXIT_INTERRUPTED))
        }
        Ending::Failed { error } => match error.resume() {
            Some(Resume::LargerBudget) => bail!(
                "{error}\nThe session is saved; continue with a larger budget:\n  evootter run --resume {session} --budget-usd Y"
            ),
            Some(Resume::AfterFix) => bail!(
                "{error}\nThe session is saved; after fixing the cause, continue with:\n  evootter run --resume {session}"
            ),
            None => bail!(
                "{error}\nThe session is saved in {session} (it cannot be continued; --force there starts over)"
            ),
        },
    }
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
    if !doc.llm_calls.is_empty() {
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
