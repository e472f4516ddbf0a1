//! `evootter mutants`: show the mutant pool a run would use.

use anyhow::Context;
use clap::Args;
use evootter::mutate::{self, MutantScope, Operators};
use evootter::python::FocalFunction;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["instance", "repo"])))]
pub struct MutantsArgs {
    /// An instance directory (instance.toml): its repository, its focal functions, and its
    /// `[run]` mutants and seed, each unless given here.
    #[arg(long, value_name = "DIR", conflicts_with = "repo")]
    instance: Option<PathBuf>,
    /// The repository at the buggy commit (only read).
    #[arg(long, value_name = "DIR")]
    repo: Option<PathBuf>,
    /// A focal function, FILE::QUALNAME (repeatable): where the mutants are made.
    #[arg(
        long = "focal",
        required_unless_present = "instance",
        value_name = "FILE::QUALNAME"
    )]
    focal: Vec<FocalFunction>,
    /// How many unique mutants to make (m) [default: 20, or the instance's].
    #[arg(long, value_name = "M")]
    count: Option<usize>,
    /// Seed of the random draws: the same seed gives the same mutants (as `run --seed`)
    /// [default: 1, or the instance's].
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
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
    /// Only mutants of these kinds (as `run --mutant-kinds`).
    #[arg(long, value_name = "LIST")]
    mutant_kinds: Option<mutate::KindList>,
}

pub fn run(a: MutantsArgs) -> anyhow::Result<ExitCode> {
    let inst = a
        .instance
        .as_deref()
        .map(evootter::instance::Instance::load)
        .transpose()?;
    let (repo, focal) = match (&inst, a.repo.clone()) {
        (Some(i), _) => (
            i.repo.clone(),
            if a.focal.is_empty() {
                i.focal.clone()
            } else {
                a.focal.clone()
            },
        ),
        (None, Some(r)) => (r, a.focal.clone()),
        // The argument group asks for one of them.
        (None, None) => {
            anyhow::bail!("name an instance (--instance DIR) or a repository (--repo DIR)")
        }
    };
    anyhow::ensure!(
        !focal.is_empty(),
        "{} names no focal functions; give them with --focal FILE::QUALNAME",
        a.instance.as_deref().unwrap_or(&repo).display()
    );
    let count = a
        .count
        .or_else(|| inst.as_ref().and_then(|i| i.run.mutants))
        .unwrap_or(20);
    let seed = a
        .seed
        .or_else(|| inst.as_ref().and_then(|i| i.run.seed))
        .unwrap_or(1);
    anyhow::ensure!(
        repo.is_dir(),
        "repository {} does not exist or is not a directory",
        repo.display()
    );
    let python = a
        .python
        .clone()
        .or_else(|| evootter::exec::python_env::locate_on_path("python3"));
    let pool = mutate::make_pool(mutate::PoolSpec {
        repo: &repo,
        focal: &focal,
        mutants: count,
        seed,
        operators: a.operators,
        whole: false,
        python: python.as_deref(),
        check_equivalence: !a.keep_equivalent_mutants,
        scope: a.mutant_scope,
        kinds: a.mutant_kinds.as_ref().map(|k| &k.0[..]),
    })
    .with_context(|| format!("making mutants in {}", repo.display()))?;
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
                first_line_and_more(&m.original),
                first_line_and_more(&m.replacement)
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

/// The first line, and ` ...` when there is more.
fn first_line_and_more(s: &str) -> String {
    let s = s.trim();
    let first = s.lines().next().unwrap_or("");
    if first.len() < s.len() {
        format!("{first} ...")
    } else {
        first.to_string()
    }
}
