//! `evootter mutants`: show the mutant pool a run would use.

use anyhow::Context;
use clap::Args;
use evootter::mutate::{self, Operators};
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
}

pub fn run(a: MutantsArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.repo.is_dir(),
        "repository {} does not exist or is not a directory",
        a.repo.display()
    );
    let pool = mutate::generate(&a.repo, &a.focal, a.count, a.seed, a.operators)
        .with_context(|| format!("making mutants in {}", a.repo.display()))?;
    if a.json {
        let list: Vec<serde_json::Value> = pool
            .mutants
            .iter()
            .map(|m| {
                serde_json::json!({"id": m.id, "kind": m.kind, "file": m.file,
                    "function": m.function, "line": m.line, "diff": m.diff})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for m in &pool.mutants {
            println!(
                "{}  {:<21} {}:{} in {}  `{}` -> `{}`",
                m.id,
                m.kind.as_str(),
                m.file,
                m.line,
                m.function,
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
