//! `evootter show`: read a saved session and print what happened, with no Python needed: the
//! generations, the kill matrix of a generation, and for one (test, mutant) pair the mutant's
//! diff and how the test's log changed. For people asking "why was this mutant not killed?".
//! Also the model's calls: a list, and for one call the exact prompt sent and the reply.

use anyhow::{Context, bail};
use clap::Args;
use evootter::engine::kill::{Cell, KillMatrix};
use evootter::engine::{SessionDoc, Target};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ShowArgs {
    /// A session directory or its session.json.
    session: PathBuf,
    /// Which generation's kill matrix to print (default: all).
    #[arg(long)]
    generation: Option<usize>,
    /// With --mutant: show this test's logs on c_old and on the mutant.
    #[arg(long)]
    test: Option<String>,
    /// A mutant id (or a unique prefix of one).
    #[arg(long)]
    mutant: Option<String>,
    /// List the model's calls: step, model, tokens, latency, cost.
    #[arg(long)]
    calls: bool,
    /// Print call N of --calls in full: the system prompt, the messages and the reply.
    #[arg(long, value_name = "N")]
    call: Option<usize>,
}

pub fn run(a: ShowArgs) -> anyhow::Result<ExitCode> {
    let path = if a.session.is_dir() {
        a.session.join("session.json")
    } else {
        a.session.clone()
    };
    let doc = SessionDoc::load(&path)?;
    if let Some(n) = a.call {
        show_call(&doc, n)?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.calls {
        show_calls(&doc);
        return Ok(ExitCode::SUCCESS);
    }
    match (&a.test, &a.mutant) {
        (Some(t), Some(m)) => show_pair(&doc, t, m)?,
        (None, None) => show_matrices(&doc, a.generation)?,
        _ => bail!("--test and --mutant go together: name a test id (t3) and a mutant id"),
    }
    Ok(ExitCode::SUCCESS)
}

fn symbol(c: Option<Cell>) -> char {
    match c {
        None => ' ',
        Some(Cell::Survived) => '.',
        Some(Cell::KilledLog) => 'k',
        Some(Cell::KilledStatus) => 'K',
        Some(Cell::Rescued) => 'R',
        Some(Cell::TimedOut) => 'T',
    }
}

fn show_matrices(doc: &SessionDoc, only: Option<usize>) -> anyhow::Result<()> {
    println!(
        "session of {} ({}), phase: {}",
        doc.inputs.instance.as_deref().unwrap_or("a repository"),
        doc.inputs.repo.display(),
        doc.phase
    );
    if let Some(pool) = &doc.pool {
        println!(
            "mutant pool: {} of {} asked",
            pool.mutants.len(),
            pool.requested
        );
    }
    let gens: Vec<usize> = match only {
        Some(g) if g >= doc.generations.len() => {
            bail!(
                "generation {g} does not exist (the session has {})",
                doc.generations.len()
            )
        }
        Some(g) => vec![g],
        None => (0..doc.generations.len()).collect(),
    };
    for g in gens {
        let m = KillMatrix::of(doc, g).context("generation")?;
        let gen_ = &doc.generations[g];
        println!(
            "\ngeneration {g}: {} tests x {} mutants  (K kill, status changed; k kill, log only; R rescue; T timeout; . survived)",
            m.tests.len(),
            m.mutants.len()
        );
        for (i, t) in m.tests.iter().enumerate() {
            let row: String = m.cells[i].iter().map(|c| symbol(*c)).collect();
            let score = gen_.scores.get(t);
            let kept = if gen_.selected.contains(t) {
                "kept"
            } else {
                ""
            };
            println!(
                "  {t:>4} {row}  kills {:>2}  c_old {:<8} {:<4} {}{}",
                score.map_or(0, |s| s.kills.len()),
                score.map_or("-".into(), |s| format!("{:?}", s.old_outcome)
                    .to_lowercase()),
                kept,
                doc.tests[t].name,
                if score.is_some_and(|s| s.flaky) {
                    "  (flaky)"
                } else {
                    ""
                }
            );
        }
        if let Some(by) = &gen_.selected_by {
            println!(
                "  selected by {by}{}",
                if gen_.fitness_decided == Some(false) {
                    " (fitness tied at the cut)"
                } else {
                    ""
                }
            );
        }
    }
    if let Some(t) = &doc.final_test {
        println!("\nfinal test: {t} ({})", doc.tests[t].name);
    }
    if let Some(llm) = &doc.config.llm {
        let t = evootter::llm::CallTotals::of(&doc.llm_calls);
        println!(
            "model: {llm}, {} calls, cost {} (`--calls` lists them)",
            t.calls,
            t.cost_label()
        );
    }
    Ok(())
}

fn show_calls(doc: &SessionDoc) {
    if doc.llm_calls.is_empty() {
        println!("this session made no model calls");
        return;
    }
    println!(
        "{:>3}  {:<20} {:<22} {:>9} {:>9} {:>8} {:>9}",
        "#", "step", "model", "tokens in", "out", "seconds", "cost"
    );
    for (i, c) in doc.llm_calls.iter().enumerate() {
        println!(
            "{:>3}  {:<20} {:<22} {:>9} {:>9} {:>8.1} {:>9}",
            i + 1,
            c.step,
            c.model,
            c.input_tokens,
            c.output_tokens,
            c.latency_ms as f64 / 1000.0,
            match (c.cached, c.cost_usd) {
                (true, _) => "cached".to_string(),
                (false, Some(usd)) => format!("${usd:.4}"),
                (false, None) => "unpriced".to_string(),
            }
        );
    }
    println!("`--call N` prints one call's prompt and reply");
}

fn show_call(doc: &SessionDoc, n: usize) -> anyhow::Result<()> {
    let Some(c) = n.checked_sub(1).and_then(|i| doc.llm_calls.get(i)) else {
        bail!(
            "no call #{n}: this session has {} (numbered from 1, as `--calls` lists them)",
            doc.llm_calls.len()
        );
    };
    println!("call #{n}: {} ({})", c.step, c.model);
    if let Some(system) = &c.request.system {
        println!("\n===== system =====\n{system}");
    }
    for m in &c.request.messages {
        println!("\n===== {:?} =====\n{}", m.role, m.content);
    }
    println!("\n===== reply =====\n{}", c.reply);
    Ok(())
}

fn show_pair(doc: &SessionDoc, test: &str, mutant: &str) -> anyhow::Result<()> {
    let cand = doc.tests.get(test).with_context(|| {
        format!(
            "no test `{test}` in this session (tests: t1 .. t{})",
            doc.tests.len()
        )
    })?;
    let pool = doc
        .pool
        .as_ref()
        .context("this session has no mutants yet")?;
    let matches: Vec<_> = pool
        .mutants
        .iter()
        .filter(|m| m.id.starts_with(mutant))
        .collect();
    let m = match matches.as_slice() {
        [m] => *m,
        [] => {
            bail!("no mutant `{mutant}` in this session; `evootter mutants` or `show` lists them")
        }
        _ => bail!(
            "`{mutant}` matches {} mutants; give more of the id",
            matches.len()
        ),
    };
    println!(
        "mutant {} ({}) in {}::{} line {}",
        m.id, m.kind, m.file, m.function, m.line
    );
    print!("{}", m.diff);
    let old = doc
        .execution(&cand.id, &Target::Old)
        .context("the test has not run on c_old yet")?;
    let Some(run) = doc.execution(&cand.id, &Target::Mutant(m.id.clone())) else {
        println!(
            "\n{test} has not run on this mutant (it was not in a generation's sample with it)"
        );
        return Ok(());
    };
    let c = evootter::engine::kill::cell(old, run);
    println!(
        "\n{test} ({}): c_old {:?}, mutant {:?} -> {}",
        cand.name,
        old.outcome,
        run.outcome,
        match c {
            Cell::Survived => "survived: the normalized logs are identical",
            Cell::KilledLog => "killed: the log changed, the statuses did not",
            Cell::KilledStatus => "killed: a test status changed",
            Cell::Rescued => "rescued: fails on c_old, passes on the mutant",
            Cell::TimedOut => "killed: timed out on the mutant",
        }
    );
    let diff =
        similar::TextDiff::from_lines(doc.log(&old.normalized_log), doc.log(&run.normalized_log));
    println!("\nnormalized log, c_old -> mutant:");
    print!(
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header("c_old", &format!("mutant {}", m.id))
    );
    Ok(())
}
