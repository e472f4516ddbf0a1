//! `evootter bench`: a batch of SWE-bench-style instances, scored as the public harnesses
//! score; `--summary DIR` prints a batch's table again, `--compare A B` compares two batches.

use anyhow::{Context, bail};
use clap::Args;
use evootter::bench::{self, Batch, Progress, summary};
use evootter::workbench::RunOptions;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct BenchArgs {
    /// SWE-bench-style rows, one JSON object per line (instance_id, repo, base_commit,
    /// problem_statement, patch, test_patch, FAIL_TO_PASS, optional image).
    #[arg(long, value_name = "FILE.jsonl")]
    instances: Option<PathBuf>,
    /// Where the repositories are: DIR/OWNER/NAME or DIR/OWNER/NAME.git, a checkout or a bare
    /// repository (never fetched).
    #[arg(long, value_name = "DIR")]
    repos: Option<PathBuf>,
    /// Instances run at once.
    #[arg(long, value_name = "K", default_value_t = 1)]
    parallel: usize,
    /// Check each instance first (the developer's test fails before the fix and passes
    /// after); unsound instances are marked and not counted.
    #[arg(long)]
    validate: bool,
    /// Give the model each row's hints_text (the issue's discussion before the fix) after the
    /// issue. Off by default, as the paper runs.
    #[arg(long)]
    hints: bool,
    /// Print the summary of a batch directory again; given several, each one's, then the
    /// batches side by side (F2P, calls and cost per instance) with McNemar's test between
    /// every pair.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    summary: Option<Vec<PathBuf>>,
    /// Compare batch directories: with two, which instances became F2P, which were lost, the
    /// cost; with any number, the batches side by side and McNemar's test between every pair.
    #[arg(long, num_args = 2.., value_names = ["DIR_A", "DIR_B"])]
    compare: Option<Vec<PathBuf>>,
    /// With --summary or --compare: the paper's figures (F2P share per generation, F2P tests
    /// per instance, what decided the cuts, cost per instance, Tables II/III and IV, Figs. 4,
    /// 5 and 8, McNemar's test per pair; gained and lost with two batches) as SVG, each with
    /// its data as CSV, into this directory.
    #[arg(long, value_name = "OUT")]
    figures: Option<PathBuf>,
    /// With --figures: Table VIII, F2P before and after this date (YYYY-MM-DD) by the rows'
    /// created_at (the paper: Claude Sonnet 4.5's release, 2025-09-29).
    #[arg(long, value_name = "DATE", value_parser = date)]
    cutoff: Option<String>,
    /// Run the batch behind the Batch screen (evootter open OUT shows the same): live rows,
    /// Enter into an instance's session. q leaves the screen; the batch goes on, printing its
    /// progress, and Ctrl-C stops it as without the screen (a second bench resumes it).
    #[arg(long)]
    tui: bool,
    /// Each instance stops, its session saved, before a model call that would take its
    /// spending past this many dollars; a later `bench` with a larger one resumes it.
    #[arg(long, value_name = "USD")]
    budget_usd_per_instance: Option<f64>,
    /// The batch stops before a model call that would take all its instances' spending
    /// (earlier runs of this batch included) past this many dollars: running instances stop
    /// saved, queued ones do not start; a later `bench` with a larger one resumes them.
    #[arg(long, value_name = "USD")]
    budget_usd_total: Option<f64>,
    /// Send the instances' model calls as provider batches (Anthropic Message Batches, OpenAI
    /// Batch API: half the price, answers within 24 hours, usually minutes): the instances
    /// advance in lockstep, each step's calls in one batch, polled with backoff; a killed
    /// bench, run again, polls the batches it submitted (llm_batches.jsonl) instead of paying
    /// again; a request that failed in a batch is sent again alone. Needs --llm anthropic or
    /// --llm openai.
    #[arg(long)]
    llm_batch: bool,
    /// With --llm-batch: seconds before the first poll of a batch (each later poll waits twice
    /// as long, up to 300 s).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    llm_batch_poll: f64,
    /// With --llm-batch: seconds a call waits at most for the other running instances' calls
    /// before its batch goes without them (an instance may be busy running tests).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    llm_batch_gather: f64,
    /// Run the batch on a cluster: `slurm` submits one job array, a task per unfinished
    /// instance, each running that row with this same binary as a local bench would (OUT
    /// must be on a file system the nodes share); bench then follows the tasks (squeue) and
    /// writes the summary. A second bench on OUT submits only what ended without a result.
    #[arg(long, value_name = "slurm", value_parser = ["slurm"])]
    cluster: Option<String>,
    /// With --cluster slurm: sbatch's --partition.
    #[arg(long, value_name = "NAME")]
    slurm_partition: Option<String>,
    /// With --cluster slurm: sbatch's --account.
    #[arg(long, value_name = "NAME")]
    slurm_account: Option<String>,
    /// With --cluster slurm: each task's time limit, as sbatch's --time (e.g. 2:00:00).
    #[arg(long, value_name = "TIME")]
    slurm_time: Option<String>,
    /// With --cluster slurm: sbatch's --cpus-per-task.
    #[arg(long, value_name = "N")]
    slurm_cpus_per_task: Option<u32>,
    /// With --cluster slurm: sbatch's --mem (e.g. 8G).
    #[arg(long, value_name = "SIZE")]
    slurm_mem: Option<String>,
    /// With --cluster slurm: at most K tasks at once (the array's %K).
    #[arg(long, value_name = "K")]
    slurm_max_running: Option<usize>,
    /// With --cluster slurm: passed to sbatch as given (repeatable), e.g. --slurm-arg=--qos=low.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    slurm_arg: Vec<String>,
    /// With --cluster slurm: submit and return without following the tasks (`evootter bench`
    /// on OUT again follows them and writes the summary).
    #[arg(long)]
    slurm_detach: bool,
    /// With --cluster slurm: submit an instance again, up to N times, when its task ends
    /// without a result (failed, timeout, out of memory, node failure, cancelled, preempted);
    /// its session resumes. Without it, the next bench submits it again.
    #[arg(long, value_name = "N", default_value_t = 0)]
    slurm_retries: usize,
    /// Run only the row at this index (0-based) of --instances, as one cluster task does.
    #[arg(long, value_name = "N")]
    row: Option<usize>,
    /// Cancel this batch's cluster jobs (those OUT/slurm/jobs.json records), and nothing else.
    #[arg(long, value_name = "OUT")]
    cancel: Option<PathBuf>,
    /// The name in the predictions file (model_name_or_path). Default: evootter and the model.
    #[arg(long, value_name = "NAME")]
    model_name: Option<String>,
    /// Every run option applies to each instance; --out is the batch's directory.
    #[command(flatten)]
    request: super::run_args::RunArgs,
}

impl BenchArgs {
    /// What `--cluster` needs of the arguments: the sbatch options, and which of the batch's
    /// own flags a task must not get (its cluster flags) or cannot honour.
    fn cluster_options(&self) -> super::bench_cluster::ClusterArgs {
        super::bench_cluster::ClusterArgs {
            slurm: bench::slurm::SlurmOptions {
                partition: self.slurm_partition.clone(),
                account: self.slurm_account.clone(),
                time: self.slurm_time.clone(),
                cpus_per_task: self.slurm_cpus_per_task,
                mem: self.slurm_mem.clone(),
                max_running: self.slurm_max_running,
                args: self.slurm_arg.clone(),
            },
            detach: self.slurm_detach,
            retries: self.slurm_retries,
            refused: [
                (self.llm_batch, "--llm-batch"),
                (self.budget_usd_total.is_some(), "--budget-usd-total"),
                (self.tui, "--tui"),
                (self.row.is_some(), "--row"),
            ]
            .into_iter()
            .filter_map(|(given, flag)| given.then_some(flag))
            .collect(),
        }
    }
}

pub async fn run(a: BenchArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.cutoff.is_none() || a.figures.is_some(),
        "--cutoff splits Table VIII of --figures: pass --figures OUT with it"
    );
    if let Some(dirs) = &a.summary {
        for (i, dir) in dirs.iter().enumerate() {
            let s = summary::read(dir)
                .with_context(|| format!("reading the batch {}", dir.display()))?;
            if dirs.len() > 1 {
                println!("{}== {}", if i > 0 { "\n" } else { "" }, dir.display());
            }
            print!("{}", summary::table(&s));
        }
        if dirs.len() > 1 {
            side_by_side(dirs)?;
        }
        figures(dirs, a.figures.as_deref(), a.cutoff.as_deref())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(dirs) = &a.compare {
        if let [da, db] = &dirs[..] {
            let sa = summary::read(da).with_context(|| da.display().to_string())?;
            let sb = summary::read(db).with_context(|| db.display().to_string())?;
            print!("{}", summary::compare(&sa, &sb));
        } else {
            side_by_side(dirs)?;
        }
        figures(dirs, a.figures.as_deref(), a.cutoff.as_deref())?;
        return Ok(ExitCode::SUCCESS);
    }
    anyhow::ensure!(
        a.figures.is_none(),
        "--figures draws finished batches: pass it with --summary DIR... or --compare DIR_A DIR_B..."
    );
    if let Some(out) = &a.cancel {
        return super::bench_cluster::cancel(out);
    }
    let slurm_flags = super::bench_cluster::slurm_flags_given();
    anyhow::ensure!(
        a.cluster.is_some() || slurm_flags.is_empty(),
        "{} {} --cluster slurm: without it the batch would run here, on this machine",
        slurm_flags.join(", "),
        if slurm_flags.len() == 1 {
            "needs"
        } else {
            "need"
        }
    );
    anyhow::ensure!(
        a.slurm_max_running != Some(0),
        "--slurm-max-running 0 would run no task: give at least 1 (or leave it out for no limit)"
    );
    if a.cluster.is_some() {
        // Before the batch's own checks: a flag a cluster cannot honour is named first.
        let c = a.cluster_options();
        super::bench_cluster::refuse(&c)?;
        let batch = batch_of(&a)?;
        return super::bench_cluster::run(&c, batch).await;
    }
    let batch = batch_of(&a)?;
    let out = batch.out.clone();
    // A cluster task runs its own row (Slurm names it); any other local bench on a batch
    // with tasks on the cluster could run one of them twice.
    if a.row.is_none() || std::env::var_os("SLURM_ARRAY_TASK_ID").is_none() {
        super::bench_cluster::refuse_local_while_on_cluster(&out)?;
    }
    if a.tui
        && let Some(code) = super::tui_cmd::need_terminal("bench --tui")
    {
        return Ok(code);
    }
    // While the screen is up, the progress lines would draw over it: the rows say the same.
    let screen_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(a.tui));
    let quiet = screen_up.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let printer = tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if quiet.load(std::sync::atomic::Ordering::Relaxed) {
                continue;
            }
            say(p);
        }
    });
    let job = tokio::spawn(bench::run(batch, tx));
    if a.tui {
        let shown = super::tui_cmd::batch(&out, &Default::default()).await;
        screen_up.store(false, std::sync::atomic::Ordering::Relaxed);
        shown?;
        if !job.is_finished() {
            eprintln!("the batch goes on (Ctrl-C stops it; `bench` again resumes it)");
        }
    }
    let records = job.await.context("the batch's task")??;
    let _ = printer.await;
    // One row of a batch (a cluster task): its line above is all; the batch's summary is
    // the submitting bench's.
    if a.row.is_none() {
        let s = summary::read(&out)?;
        print!("{}", summary::table(&s));
        println!(
            "summary: {}  predictions: {}",
            out.join("summary.json").display(),
            out.join("predictions.jsonl").display()
        );
    }
    let failed = records
        .iter()
        .filter(|r| matches!(r.status, summary::Status::Error { .. }))
        .count();
    Ok(if failed > 0 {
        eprintln!(
            "{failed} instance(s) failed; their errors are above and in INSTANCE/instance.json"
        );
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The batch the arguments describe, every batch-wide option checked (per-instance ones are
/// refused: each row gives them).
fn batch_of(a: &BenchArgs) -> anyhow::Result<Batch> {
    let Some(rows) = a.instances.clone() else {
        bail!("pass --instances FILE.jsonl (or --summary DIR, or --compare DIR_A DIR_B)");
    };
    let Some(repos) = a.repos.clone() else {
        bail!("pass --repos DIR, where DIR/OWNER/NAME or DIR/OWNER/NAME.git is each repository");
    };
    let request = RunOptions::from(a.request.clone());
    let Some(out) = request.out.clone() else {
        bail!("pass --out DIR for the batch's results");
    };
    let r = &request;
    for (given, flag) in [
        (r.repo.is_some(), "--repo"),
        (r.issue.is_some(), "--issue"),
        (!r.focal.is_empty(), "--focal"),
        (r.initial_tests.is_some(), "--initial-tests"),
        (r.instance.is_some(), "--instance"),
        (r.golden_patch.is_some(), "--golden-patch"),
    ] {
        anyhow::ensure!(
            !given,
            "{flag} is per instance; in a batch each row gives it (remove {flag})"
        );
    }
    anyhow::ensure!(a.parallel >= 1, "--parallel must be at least 1");
    anyhow::ensure!(
        r.budget_usd.is_none(),
        "in a batch, say whose budget: --budget-usd-per-instance X (each instance) or \
         --budget-usd-total X (all of them together)"
    );
    for (usd, flag) in [
        (a.budget_usd_per_instance, "--budget-usd-per-instance"),
        (a.budget_usd_total, "--budget-usd-total"),
    ] {
        anyhow::ensure!(
            usd.is_none_or(|u| u.is_finite() && u > 0.0),
            "{flag} takes a positive number of dollars, e.g. 5.00"
        );
    }
    for (s, flag) in [
        (a.llm_batch_poll, "--llm-batch-poll"),
        (a.llm_batch_gather, "--llm-batch-gather"),
    ] {
        anyhow::ensure!(
            s.is_finite() && s >= 0.0,
            "{flag} takes a number of seconds, e.g. 10"
        );
    }
    if a.llm_batch {
        evootter::workbench::model::batch_api(&r.llm_config()).map_err(anyhow::Error::msg)?;
    }
    let mut request = request;
    request.budget_usd = a.budget_usd_per_instance;
    let r = &request;
    let model_name = a.model_name.clone().unwrap_or_else(|| match &r.llm {
        Some(l) => format!(
            "evootter ({}{})",
            l,
            r.model.as_ref().map_or(String::new(), |m| format!(" {m}"))
        ),
        None => "evootter".into(),
    });
    Ok(Batch {
        rows,
        repos,
        out: out.clone(),
        parallel: a.parallel,
        validate: a.validate,
        hints: a.hints,
        template: request.clone(),
        model_name,
        budget_usd_total: a.budget_usd_total,
        only: a.row,
        llm_batch: a.llm_batch.then(|| evootter::llm::provider_batch::Pacing {
            first_poll: seconds(a.llm_batch_poll),
            max_poll: seconds(a.llm_batch_poll.max(300.0)),
            gather: seconds(a.llm_batch_gather),
            ..Default::default()
        }),
    })
}

/// A progress line of the batch, on stderr.
fn say(p: Progress) {
    match p {
        Progress::Started {
            instance,
            resumes: None,
        } => eprintln!("   started {instance}"),
        Progress::Started {
            instance,
            resumes: Some(step),
        } => eprintln!("   resumed {instance} from its session, at {step}"),
        Progress::LlmBatch { news } => eprintln!("   {news}"),
        Progress::Note { text } => eprintln!("note: {text}"),
        Progress::Finished {
            record,
            done,
            total,
            f2p,
            cost_usd,
            left,
        } => {
            let what = match (&record.status, &record.score) {
                (summary::Status::Done, Some(s)) => format!(
                    "F2P {}, TDD-Bench {}, SWT-bench {}",
                    yes(s.f2p),
                    yes(s.tdd),
                    yes(s.swt)
                ),
                (summary::Status::Done, None) => "done".into(),
                (summary::Status::Unsound { reason }, _) => format!("unsound: {reason}"),
                (summary::Status::Error { error }, _) => format!("error: {error}"),
                (summary::Status::EnvironmentError { error }, _) => {
                    format!("environment error (not counted): {error}")
                }
            };
            // What the whole batch will cost if the rest cost what these did.
            let projected = if done < total && cost_usd > 0.0 {
                format!(
                    " (about ${:.2} for all {total} at this rate)",
                    cost_usd / done as f64 * total as f64
                )
            } else {
                String::new()
            };
            eprintln!(
                "[{done}/{total}] {}: {what} ({:.0} s); {f2p} F2P so far, cost ${cost_usd:.4}{projected}{}",
                record.instance_id,
                record.seconds,
                left.map_or(String::new(), |l| format!(
                    ", about {:.0} s left",
                    l.as_secs_f64()
                ))
            );
            for n in &record.notes {
                eprintln!("  note: {n}");
            }
        }
    }
}

fn seconds(s: f64) -> std::time::Duration {
    std::time::Duration::from_secs_f64(s)
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The figures of the batches in `dirs`, into `out` when asked for.
/// The batches of `dirs` side by side (Tables II and III) and McNemar's test between every
/// pair, as text.
fn side_by_side(dirs: &[PathBuf]) -> anyhow::Result<()> {
    let batches = facts_of(dirs)?;
    print!("\n{}", summary::side_by_side(&batches));
    Ok(())
}

fn facts_of(dirs: &[PathBuf]) -> anyhow::Result<Vec<bench::figures::BatchFacts>> {
    dirs.iter()
        .map(|d| {
            bench::batch_dir::figure_facts(d)
                .with_context(|| format!("reading the batch {}", d.display()))
        })
        .collect()
}

/// `YYYY-MM-DD` (a timestamp's start compares with it as text).
fn date(text: &str) -> Result<String, String> {
    let ok = text.len() == 10
        && text.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            _ => c.is_ascii_digit(),
        });
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "`{text}` is not a date as YYYY-MM-DD (e.g. 2025-09-29)"
        ))
    }
}

fn figures(
    dirs: &[PathBuf],
    out: Option<&std::path::Path>,
    cutoff: Option<&str>,
) -> anyhow::Result<()> {
    let Some(out) = out else {
        return Ok(());
    };
    let batches = facts_of(dirs)?;
    let written = bench::figures::write(&batches, out, cutoff)?;
    println!(
        "figures: {} files in {} (each SVG with its data as CSV)",
        written.len(),
        out.display()
    );
    Ok(())
}
