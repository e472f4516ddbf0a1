//! `evootter eval`: is a test fail-to-pass against a golden patch?

use anyhow::Context;
use clap::Args;
use evootter::engine::setup;
use evootter::exec::{self, FileOverride};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct EvalArgs {
    #[arg(long)]
    repo: PathBuf,
    #[arg(long)]
    golden_patch: PathBuf,
    /// The test module to evaluate.
    #[arg(long)]
    test: PathBuf,
    #[arg(long)]
    python: Option<PathBuf>,
    #[arg(long = "pythonpath")]
    pythonpath: Vec<String>,
    /// Repo-relative directory the test is placed in (default: tests/ if present).
    #[arg(long)]
    test_dir: Option<String>,
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Print {old, new, f2p} as JSON.
    #[arg(long)]
    json: bool,
    /// Also print both pytest logs.
    #[arg(long)]
    logs: bool,
}

pub async fn run(a: EvalArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.repo.is_dir(),
        "repository {} does not exist",
        a.repo.display()
    );
    let source = std::fs::read_to_string(&a.test)
        .with_context(|| format!("cannot read test {}", a.test.display()))?;
    let golden = evootter::eval::golden_files(&a.repo, &a.golden_patch)?;
    let pyenv = exec::resolve_python(a.python.as_deref())?;
    if let Some(n) = &pyenv.note {
        eprintln!("note: {n}");
    }
    let pythonpath = if a.pythonpath.is_empty() {
        setup::default_pythonpath(&a.repo)
    } else {
        a.pythonpath.clone()
    };
    let test_dir = a
        .test_dir
        .clone()
        .unwrap_or_else(|| setup::default_test_dir(&a.repo));
    let name = a
        .test
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "test_repro.py".into());
    let rel_path = setup::place_test(&a.repo, &test_dir, &name, &BTreeSet::new());
    let executor = exec::LocalExecutor::new(exec::LocalConfig {
        repo: a.repo.clone(),
        python: pyenv.path.clone(),
        pythonpath,
        jobs: 2,
    })?;
    let (f2p, old, new) = evootter::eval::evaluate(
        &executor,
        FileOverride {
            rel_path,
            content: source,
        },
        &golden,
        Duration::from_secs_f64(a.timeout),
    )
    .await?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&f2p)?);
    } else {
        if a.logs {
            println!(
                "--- c_old log ---\n{}\n--- fixed log ---\n{}",
                old.raw_log, new.raw_log
            );
        }
        let why = |r: &exec::ExecResult| {
            r.exception
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        };
        println!("c_old: {:?}{}", old.outcome, why(&old));
        println!("fixed: {:?}{}", new.outcome, why(&new));
        println!("F2P: {}", if f2p.f2p { "yes" } else { "no" });
    }
    Ok(if f2p.f2p {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_NOT_F2P)
    })
}
