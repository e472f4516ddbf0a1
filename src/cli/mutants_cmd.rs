//! `evootter mutants`: show the mutant pool a run would use.

use anyhow::Context;
use clap::Args;
use evootter::mutate::{self, MutantScope, Operators};
use evootter::python::FocalFunction;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct MutantsArgs {
    /// The repository at the buggy commit (only read).
    #[arg(long, value_name = "DIR")]
    repo: PathBuf,
    /// A focal function, FILE::QUALNAME (repeatable): where the mutants are made.
    #[arg(long = "focal", required = true, value_name = "FILE::QUALNAME")]
    focal: Vec<FocalFunction>,
    /// How many unique mutants to make (m).
    #[arg(long, default_value_t = 20, value_name = "M")]
    count: usize,
    /// Seed of the random draws: the same seed gives the same mutants (as `run --seed`).
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// The alternatives each site gets: all | table-i (as `run --operators`).
    #[arg(long, default_value = "all")]
    operators: Operators,
    /// Print a JSON list of {id, kind, file, function, line, diff}.
    #[arg(long)]
    json: bool,
    /// Also list mutants whose function compiles to the original's code or to an earlier
    /// mutant's (as `run --keep-equivalent-mutants`).
    #[arg(long)]
    keep_equivalent_mutants: bool,
    /// The interpreter that compiles the mutants for that check. Default: python3 on PATH.
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// widened: when the focal functions yield fewer than M mutants, also their callees'
    /// and callers' (in the focal files, and callers importing them elsewhere) | focal (as
    /// `run --mutant-scope`).
    #[arg(long, default_value = "widened", value_name = "widened|focal")]
    mutant_scope: MutantScope,
}

pub fn run(a: MutantsArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.repo.is_dir(),
        "repository {} does not exist or is not a directory",
        a.repo.display()
    );
    let python = a
        .python
        .clone()
        .or_else(|| evootter::exec::python_env::locate_on_path("python3"));
    let pool = mutate::make_pool(mutate::PoolSpec {
        repo: &a.repo,
        focal: &a.focal,
        mutants: a.count,
        seed: a.seed,
        operators: a.operators,
        whole: false,
        python: python.as_deref(),
        check_equivalence: !a.keep_equivalent_mutants,
        scope: a.mutant_scope,
    })
    .with_context(|| format!("making mutants in {}", a.repo.display()))?;
    if a.json {
        let list: Vec<serde_json::Value> = pool
            .mutants
            .iter()
            .map(|m| {
                serde_json::json!({"id": m.id, "kind": m.kind, "file": m.file,
                    "function": m.function, "line": m.line, "diff": m.diff, "scope": m.scope})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for m in &pool.mutants {
            println!(
                "{}  {:<21} {}:{} in {}{}  `{}` -> `{}`",
                m.id,
                m.kind.as_str(),
                m.file,
                m.line,
                m.function,
                m.scope
                    .map_or(String::new(), |s| format!(" ({})", s.as_str())),
                one_line(&m.original),
                one_line(&m.replacement)
            );
        }
    }
    let mix: Vec<String> = pool.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!(
        "{} of {} mutants ({} draws){}; kinds: {}",
        pool.mutants.len(),
        pool.requested,
        pool.attempts,
        if pool.exhausted {
            ": the focal functions yield no more unique mutants"
        } else {
            ""
        },
        mix.join(", ")
    );
    if let Some(tce) = &pool.tce {
        eprintln!("{}", tce.summary(pool.mutants.len()));
    }
    Ok(ExitCode::SUCCESS)
}

fn one_line(s: &str) -> String {
    let s = s.trim();
    let first = s.lines().next().unwrap_or("");
    if first.len() < s.len() {
        format!("{first} ...")
    } else {
        first.to_string()
    }
}
