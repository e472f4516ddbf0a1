//! `evootter show`: read a saved session and print what happened, with no Python needed: the
//! generations, the kill matrix of a generation, and for one (test, mutant) pair the mutant's
//! diff and how the test's log changed. For people asking "why was this mutant not killed?".
//! Also the model's calls: a list, and for one call the exact prompt sent and the reply.

use anyhow::{Context, bail};
use clap::Args;
use evootter::engine::cell_view::CellView;
use evootter::engine::{SessionDoc, pair};
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
    /// With --test and --mutant: diff the raw logs (before normalization) instead.
    #[arg(long, requires = "mutant")]
    raw: bool,
    /// List the model's calls: step, model, tokens, latency, cost.
    #[arg(long)]
    calls: bool,
    /// Print call N of --calls in full: the system prompt, the messages and the reply.
    #[arg(long, value_name = "N")]
    call: Option<usize>,
    /// Write the kill matrix as a mutation-testing-report-schema JSON file (what Stryker's
    /// mutation-testing-elements viewer reads: status, killedBy, coveredBy per mutant).
    #[arg(long, value_name = "FILE")]
    mutation_report: Option<PathBuf>,
}

pub fn run(a: ShowArgs) -> anyhow::Result<ExitCode> {
    let path = SessionDoc::file_in(&a.session);
    let doc = SessionDoc::load(&path)?;
    if let Some(file) = &a.mutation_report {
        let report = evootter::engine::export::mutation_report(&doc);
        std::fs::write(file, serde_json::to_vec_pretty(&report)?)
            .with_context(|| format!("writing {}", file.display()))?;
        eprintln!("wrote {}", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(n) = a.call {
        show_call(&doc, n)?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.calls {
        show_calls(&doc);
        return Ok(ExitCode::SUCCESS);
    }
    match (&a.test, &a.mutant) {
        (Some(t), Some(m)) => show_pair(&doc, t, m, a.raw)?,
        (None, None) => print!(
            "{}",
            evootter::engine::text::matrices(&doc, a.generation).map_err(anyhow::Error::msg)?
        ),
        _ => bail!("--test and --mutant go together: name a test id (t3) and a mutant id"),
    }
    Ok(ExitCode::SUCCESS)
}

fn show_calls(doc: &SessionDoc) {
    if doc.llm_calls.is_empty() {
        println!("this session made no model calls");
        return;
    }
    // Input as the provider counts it: new, written to its prompt cache, read from it.
    println!(
        "{:>3}  {:<20} {:<22} {:>9} {:>8} {:>8} {:>9} {:>8} {:>9}",
        "#", "step", "model", "tokens in", "cache w", "cache r", "out", "seconds", "cost"
    );
    for (i, c) in doc.llm_calls.iter().enumerate() {
        println!(
            "{:>3}  {:<20} {:<22} {:>9} {:>8} {:>8} {:>9} {:>8.1} {:>9}{}",
            i + 1,
            c.step,
            c.model,
            c.input_tokens,
            c.cache_write_tokens,
            c.cache_read_tokens,
            c.output_tokens,
            c.latency_ms as f64 / 1000.0,
            c.cost_label(),
            c.batch
                .as_deref()
                .map_or(String::new(), |b| format!("  batch {b}"))
        );
    }
    // Per step, in the order the steps first called.
    let mut steps: Vec<(&str, evootter::llm::CallTotals)> = vec![];
    for c in &doc.llm_calls {
        match steps.iter_mut().find(|(s, _)| *s == c.step) {
            Some((_, t)) => t.add(c),
            None => steps.push((&c.step, evootter::llm::CallTotals::of([c]))),
        }
    }
    println!("\nby step:");
    for (step, t) in &steps {
        println!(
            "     {:<20} {:<22} {:>9} {:>8} {:>8} {:>9} {:>8.1} {:>9}",
            step,
            format!("{} call(s)", t.calls),
            t.input_tokens,
            t.cache_write_tokens,
            t.cache_read_tokens,
            t.output_tokens,
            t.seconds,
            t.cost_label()
        );
    }
    let t = evootter::llm::CallTotals::of(&doc.llm_calls);
    println!(
        "total: {} calls, {} tokens in, {} written to and {} read from the provider's prompt \
         cache ({:.0}% of the input), {} out, {}",
        t.calls,
        t.input_tokens,
        t.cache_write_tokens,
        t.cache_read_tokens,
        t.cache_read_share() * 100.0,
        t.output_tokens,
        t.cost_label()
    );
    let scripted = doc.llm_calls.iter().filter(|c| c.is_scripted()).count();
    if scripted > 0 {
        println!(
            "{scripted} of them scripted (replies recorded in the instance, no provider called): \
             no tokens counted, nothing paid"
        );
    }
    let batched = doc.llm_calls.iter().filter(|c| c.batch.is_some()).count();
    if batched > 0 {
        println!("{batched} of them answered in provider batches (--llm-batch), at half price");
    }
    if let Some(limit) = doc.config.budget_usd {
        println!("the run's budget: ${limit:.2} (--budget-usd)");
    }
    println!(
        "the prompts' bytes that repeat the start of an earlier call's (what a prefix cache \
         could read at most): {:.0}%",
        evootter::llm::shared_prefix_share(&doc.llm_calls) * 100.0
    );
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

fn show_pair(doc: &SessionDoc, test: &str, mutant: &str, raw: bool) -> anyhow::Result<()> {
    let p = pair::find(doc, test, mutant)?;
    let m = p.mutant;
    println!(
        "mutant {} ({}) in {}::{} line {}",
        m.id, m.kind, m.file, m.function, m.line
    );
    print!("{}", m.diff);
    let source = evootter::engine::reach::from_disk(doc);
    let (Some(old), Some(run)) = (p.old, p.run) else {
        println!("\n{}", p.why_not_run(doc, &source));
        return Ok(());
    };
    // The cell as the Grid shows it in the generation that explains the pair best.
    let generation = evootter::engine::kill_reasons::generation_of(doc, &p.test.id, &m.id);
    let view = generation
        .and_then(|g| evootter::engine::cell_view::GenerationCells::new(doc, g, &source))
        .map_or(CellView::Pending, |cells| cells.row(&p.test.id)(&m.id).0);
    println!(
        "\n{} ({}): c_old {:?}, mutant {:?} -> {}",
        p.test.id,
        p.test.name,
        old.outcome,
        run.outcome,
        view.verdict()
    );
    if p.cell == Some(evootter::engine::kill::Cell::Rescued)
        && let Some(j) = evootter::engine::witness::judgement(doc, &m.id)
    {
        println!("{}", j.join("\n"));
    }
    // Why, as the Why screen says it, with this command's ways to look further.
    if let Some(g) = generation {
        println!("\nwhy (generation {g}):");
        for r in evootter::engine::kill_reasons::reasons(doc, g, &p, &source) {
            use evootter::engine::kill_reasons::Hint;
            let line = match (r.text.is_empty(), r.hint) {
                (true, Some(Hint::WholeDiff)) => "the whole diff of the logs follows".to_string(),
                (_, Some(Hint::RawLogs)) if !raw => {
                    format!("{}; `--raw` diffs the raw logs", r.text)
                }
                _ => r.text,
            };
            // A line starting with two spaces continues the reason before it.
            let bullet = if line.starts_with("  ") { "  " } else { "- " };
            println!("{bullet}{line}");
        }
    }
    if raw {
        println!("\nraw log, c_old -> mutant:");
        print!("{}", p.raw_log_diff(doc));
    } else {
        println!("\nnormalized log, c_old -> mutant:");
        print!("{}", p.log_diff(doc));
    }
    Ok(())
}
