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
    /// The repository at the buggy commit (c_old); only read.
    #[arg(long, value_name = "DIR")]
    repo: PathBuf,
    /// The fix as a unified diff: the test runs on c_old and on c_old plus this patch.
    #[arg(long, value_name = "FILE")]
    golden_patch: PathBuf,
    /// The test module to evaluate (a test_*.py file).
    #[arg(long, value_name = "FILE")]
    test: PathBuf,
    /// The interpreter pytest runs with. Default: python3 from PATH if it has pytest, else
    /// a venv evootter manages.
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// A directory, relative to the repository root, put on PYTHONPATH (repeatable).
    /// Default: the root, plus src/ when it exists.
    #[arg(long = "pythonpath", value_name = "REL")]
    pythonpath: Vec<String>,
    /// Where the test is placed in the repository, relative to its root. Default: tests/,
    /// else test/, else the root.
    #[arg(long, value_name = "REL")]
    test_dir: Option<String>,
    /// Cap on each of the two executions, in seconds.
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    timeout: f64,
    /// Run the test without the sandbox (network and writes outside its copy allowed).
    #[arg(long)]
    no_sandbox: bool,
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
    anyhow::ensure!(
        a.test.extension().is_some_and(|x| x == "py"),
        "--test {} is not a Python test module; pass a test_*.py file",
        a.test.display()
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
        isolation: exec::Wanted {
            sandbox: !a.no_sandbox,
            namespaces: true,
        },
        warm: false,
        pass_env: vec![],
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
    // No test collected is an input error, not an answer: "not F2P" would blame the test's
    // content for what is its file (or its test names).
    if old.counts == exec::TestCounts::default() && old.outcome == exec::Outcome::Error {
        let hint = if old.raw_log.contains("no tests ran") {
            "pytest collected no tests from it: name the test functions test_*"
        } else {
            "pytest could not collect it"
        };
        anyhow::bail!(
            "--test {}: {hint}. Its c_old log:\n{}",
            a.test.display(),
            old.raw_log.trim_end()
        );
    }
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
        ExitCode::from(super::exit::EXIT_NOT_F2P)
    })
}
