//! `bench --cluster slurm`: submit the batch's unfinished instances as one job array, follow
//! the scheduler's view of each task beside evootter's own records, and write the summary as
//! a local bench does. Nothing pending or running is submitted twice; an instance that ended
//! without a result (failed, timed out, cancelled, its node lost) is submitted again by the
//! next bench, and its session resumes.

use evootter::bench::{self, Batch, slurm, summary};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

pub struct ClusterArgs {
    pub slurm: slurm::SlurmOptions,
    pub detach: bool,
    /// Submit an instance again, up to this many times, when its task ends without a result.
    pub retries: usize,
    /// Flags given that a batch spread over processes cannot honour (named in the refusal).
    pub refused: Vec<&'static str>,
}

/// The flags of this command line that are the submitting bench's alone: a task gets the
/// rest, and `--row N`.
const CLUSTER_FLAGS: &[&str] = &[
    "--cluster",
    "--slurm-partition",
    "--slurm-account",
    "--slurm-time",
    "--slurm-cpus-per-task",
    "--slurm-mem",
    "--slurm-max-running",
    "--slurm-arg",
    "--slurm-retries",
];

/// The `--slurm-*` flags this command line gives, each named once.
pub fn slurm_flags_given() -> Vec<&'static str> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    CLUSTER_FLAGS
        .iter()
        .chain(["--slurm-detach"].iter())
        .filter(|f| f.starts_with("--slurm-"))
        .filter(|f| {
            args.iter()
                .any(|a| a == *f || a.starts_with(&format!("{f}=")))
        })
        .copied()
        .collect()
}

/// This command line without its cluster flags (with their values) and `--slurm-detach`.
fn task_args() -> Vec<String> {
    let mut out = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--slurm-detach" {
            continue;
        }
        if CLUSTER_FLAGS.contains(&a.as_str()) {
            args.next();
            continue;
        }
        if CLUSTER_FLAGS
            .iter()
            .any(|f| a.starts_with(&format!("{f}=")))
        {
            continue;
        }
        out.push(a);
    }
    out
}

/// This command line without `--slurm-detach`, from the directory it ran in and with this
/// binary's path: the bench that follows the batch's jobs (and submits again what ended
/// without a result).
fn follow_command() -> String {
    let here = std::env::current_dir().map_or(String::new(), |d| {
        format!("cd {} && ", slurm::quote(&d.display().to_string()))
    });
    let exe = std::env::current_exe().map_or("evootter".into(), |e| e.display().to_string());
    let line = std::iter::once(slurm::quote(&exe))
        .chain(
            std::env::args()
                .skip(1)
                .filter(|a| a != "--slurm-detach")
                .map(|a| slurm::quote(&a)),
        )
        .collect::<Vec<_>>()
        .join(" ");
    format!("{here}{line}")
}

/// Whether an instance has a result a rerun would not change (done, unsound, or an
/// environment that cannot run its tests).
fn finished(out: &Path, id: &str) -> bool {
    result(out, id).is_some()
}

/// The instance's result in a few words (`F2P yes`, `unsound`), once it has one.
fn result(out: &Path, id: &str) -> Option<String> {
    let r = std::fs::read(out.join(id).join("instance.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<summary::InstanceRecord>(&b).ok())?;
    match (&r.status, &r.score) {
        (summary::Status::Error { .. }, _) => None,
        (summary::Status::Done, Some(s)) => {
            Some(format!("F2P {}", if s.f2p { "yes" } else { "no" }))
        }
        (s, _) => Some(summary::status_name(s).replace('_', " ")),
    }
}

/// The flags a batch spread over processes on different nodes cannot honour, each with why.
pub fn refuse(c: &ClusterArgs) -> anyhow::Result<()> {
    let Some(flag) = c.refused.first() else {
        return Ok(());
    };
    let why = match *flag {
        "--llm-batch" => {
            "a provider batch gathers the calls of instances in one process, and on a cluster \
             each instance is a process of its own on its node; run without it"
        }
        "--budget-usd-total" => {
            "a total budget is kept by one process over every instance, and on a cluster each \
             instance is a process of its own on its node; --budget-usd-per-instance works there"
        }
        "--tui" => {
            "the instances run on the cluster's nodes, not behind this screen; `evootter open \
             OUT` shows the batch and its tasks live"
        }
        _ => "each cluster task gets its own --row; run without it",
    };
    anyhow::bail!("{flag} cannot go with --cluster: {why}")
}

/// `bench --cancel OUT`: cancels this batch's jobs that still have a task pending or running,
/// and nothing else.
pub fn cancel(out: &Path) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        out.is_dir(),
        "{} is not a directory: --cancel takes a batch's --out",
        out.display()
    );
    let subs = slurm::submissions(out);
    if subs.is_empty() {
        println!(
            "{} was never submitted to a cluster: nothing to cancel",
            out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let seen = slurm::ledger::look(out).map_err(anyhow::Error::msg)?;
    // A task completing is ending already: cancelling it again would say nothing new.
    let open: std::collections::BTreeSet<&str> = seen
        .values()
        .filter(|s| !s.state.ended() && s.state.state != "COMPLETING")
        .map(|s| s.job_id.as_str())
        .collect();
    let jobs: Vec<String> = subs
        .into_iter()
        .map(|s| s.job_id)
        .filter(|j| open.contains(j.as_str()))
        .collect();
    if jobs.is_empty() {
        println!("none of this batch's tasks is pending or running: nothing to cancel");
        return Ok(ExitCode::SUCCESS);
    }
    slurm::cancel(&jobs).map_err(anyhow::Error::msg)?;
    println!("cancelled this batch's jobs: {}", jobs.join(", "));
    Ok(ExitCode::SUCCESS)
}

pub async fn run(c: &ClusterArgs, b: Batch) -> anyhow::Result<ExitCode> {
    let out = b.out.clone();
    let sdir = slurm::dir(&out);
    std::fs::create_dir_all(&sdir).map_err(|e| {
        anyhow::anyhow!(
            "cannot write in {}: {e}; --cluster needs OUT on a file system the nodes share, \
             writable from here",
            out.display()
        )
    })?;
    let probe = sdir.join(".probe");
    std::fs::write(&probe, b"evootter").map_err(|e| {
        anyhow::anyhow!(
            "cannot write in {}: {e}; --cluster needs OUT on a file system the nodes share",
            sdir.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    bench::announce(&b)?;
    let rows = bench::instances::read(&b.rows)?;
    let ids: Vec<String> = rows
        .iter()
        .map(|r| match r {
            Ok(r) => r.instance_id.clone(),
            Err(bad) => bad.name(),
        })
        .collect();
    // What the scheduler still has of earlier submissions.
    let seen = slurm::ledger::look(&out).map_err(anyhow::Error::msg)?;
    let latest = slurm::ledger::latest(&seen);
    let in_flight: BTreeSet<usize> = latest
        .iter()
        .filter(|(_, s)| !s.state.ended())
        .map(|(row, _)| *row)
        .collect();
    let to_run: Vec<usize> = (0..ids.len())
        .filter(|i| !in_flight.contains(i) && !finished(&out, &ids[*i]))
        .collect();
    if !in_flight.is_empty() {
        let names: Vec<&str> = in_flight.iter().map(|i| ids[*i].as_str()).collect();
        eprintln!(
            "already pending or running on the cluster (not submitted again): {}",
            names.join(", ")
        );
    }
    if to_run.is_empty() {
        eprintln!("nothing to submit: every instance has a result or is on the cluster");
    } else {
        let why: Vec<String> = to_run
            .iter()
            .filter_map(|r| latest.get(r))
            .map(|s| {
                format!(
                    "{}'s task {} ended {}",
                    s.instance_id,
                    s.task(),
                    s.state.words()
                )
            })
            .collect();
        if !why.is_empty() {
            eprintln!("submitted again, without a result: {}", why.join("; "));
        }
        submit(c, &out, &ids, &to_run)?;
    }
    if c.detach {
        if !in_flight.is_empty() || !to_run.is_empty() {
            eprintln!(
                "the jobs go on: `evootter open {out}` watches them; `{}` follows them and writes \
                 the summary when they end; `evootter bench --cancel {out}` stops them",
                follow_command(),
                out = out.display(),
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    tokio::select! {
        r = follow(c, &out, &ids) => r?,
        _ = tokio::signal::ctrl_c() => {
            eprintln!(
                "\nthe jobs go on: `evootter open {out}` watches them; `{}` follows them again and \
                 writes the summary when they end; `evootter bench --cancel {out}` stops them",
                follow_command(),
                out = out.display(),
            );
            return Ok(ExitCode::from(130));
        }
    }
    // The summary as finish wrote it (read once: for a cluster batch it asks the scheduler).
    let (records, s) = bench::finish(&b)?;
    print!("{}", summary::table(&s));
    let unfinished: Vec<&str> = ids
        .iter()
        .filter(|id| !finished(&out, id))
        .map(String::as_str)
        .collect();
    if !unfinished.is_empty() {
        eprintln!(
            "ended without a result: {}; `{}` submits them again (their sessions resume)",
            unfinished.join(", "),
            follow_command()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(
        if records
            .iter()
            .any(|r| matches!(r.status, summary::Status::Error { .. }))
        {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        },
    )
}

/// A local bench on a batch with tasks still pending or running on the cluster would run
/// their instances twice: refused, saying what to do instead.
pub fn refuse_local_while_on_cluster(out: &Path) -> anyhow::Result<()> {
    if slurm::submissions(out).is_empty() {
        return Ok(());
    }
    let seen = slurm::ledger::look(out).map_err(|e| {
        anyhow::anyhow!(
            "{} was submitted to a cluster and its tasks cannot be asked about ({e}): run this bench where squeue works, or with --cluster slurm",
            out.display()
        )
    })?;
    let open: Vec<String> = slurm::ledger::latest(&seen)
        .into_values()
        .filter(|s| !s.state.ended())
        .map(|s| format!("{} ({})", s.instance_id, s.state.words()))
        .collect();
    anyhow::ensure!(
        open.is_empty(),
        "{} has tasks on the cluster: {}; a local bench would run them twice. Follow them with the same bench and --cluster slurm, or stop them with `evootter bench --cancel {}`",
        out.display(),
        open.join(", "),
        out.display()
    );
    Ok(())
}

/// How long following waits on a scheduler that does not answer before it gives up.
const SILENCE: Duration = Duration::from_secs(120);

/// Writes the job script and submits `rows` as one array, recorded in OUT.
fn submit(c: &ClusterArgs, out: &Path, ids: &[String], rows: &[usize]) -> anyhow::Result<()> {
    let exe = std::env::current_exe()?;
    let cwd = std::env::current_dir()?;
    let script = slurm::dir(out).join("job.sh");
    std::fs::write(
        &script,
        slurm::job_script(&exe, &cwd, &task_args(), out, &c.slurm),
    )?;
    // The batch's jobs with a task still open (a resubmission waits for them under a limit).
    let open: Vec<String> = slurm::ledger::latest(&slurm::ledger::read(out))
        .into_values()
        .filter(|s| !s.state.ended())
        .map(|s| s.job_id.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let job = slurm::submit(&script, rows, &c.slurm, &open).map_err(anyhow::Error::msg)?;
    let names: Vec<String> = rows.iter().map(|i| ids[*i].clone()).collect();
    slurm::record(
        out,
        slurm::Submission {
            job_id: job.clone(),
            rows: rows.to_vec(),
            instances: names.clone(),
            submitted_unix: evootter::clock::now_unix(),
        },
    )?;
    // On stdout: a script that submits can read the job id.
    println!(
        "submitted job {job}: {} task{} ({}); the job script is {}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        names.join(", "),
        script.display()
    );
    Ok(())
}

/// Follows each instance's latest task until every one has ended, saying each change (one
/// `squeue` call a poll; a task seen to end is not asked about again). A task that ends
/// without a result is submitted again while `--slurm-retries` allows.
async fn follow(c: &ClusterArgs, out: &Path, ids: &[String]) -> anyhow::Result<()> {
    let mut said: BTreeMap<String, String> = BTreeMap::new();
    // Tasks that ended before this bench began are the summary's to tell.
    let mut over: BTreeSet<String> = slurm::ledger::read(out)
        .into_iter()
        .filter(|(_, s)| s.state.ended())
        .map(|(key, _)| key)
        .collect();
    let mut retried: BTreeMap<usize, usize> = BTreeMap::new();
    // Since when the scheduler has not answered (a controller restarting is not the end).
    let mut silent: Option<std::time::Instant> = None;
    loop {
        let all = match slurm::ledger::look(out) {
            Ok(all) => {
                silent = None;
                all
            }
            Err(e) => {
                let since = *silent.get_or_insert_with(|| {
                    eprintln!("   {e}; asking again");
                    std::time::Instant::now()
                });
                anyhow::ensure!(
                    since.elapsed() < SILENCE,
                    "the scheduler has not answered for {} s ({e}); the jobs go on: `evootter \
                     bench` with --cluster slurm on {} follows them again",
                    SILENCE.as_secs(),
                    out.display()
                );
                tokio::time::sleep(Duration::from_secs(2)).await;
                continue;
            }
        };
        let mut open = 0;
        let mut again = vec![];
        for (row, s) in slurm::ledger::latest(&all) {
            let id = ids.get(row).map_or("?", String::as_str);
            let key = s.task();
            let ended = s.state.ended();
            if !ended {
                open += 1;
            }
            if over.contains(&key) {
                continue;
            }
            if ended {
                over.insert(key.clone());
            }
            let words = if !ended {
                match s.state.start_unix {
                    Some(t) if s.state.state == "RUNNING" => {
                        format!(
                            "{} since {}",
                            s.state.words(),
                            evootter::clock::utc_label(t)
                        )
                    }
                    _ => s.state.words(),
                }
            } else if let Some(r) = result(out, id) {
                format!("{}, its result written ({r})", ended_words(&s.state))
            } else if retried.get(&row).copied().unwrap_or(0) < c.retries {
                let n = retried.entry(row).or_default();
                *n += 1;
                again.push(row);
                format!(
                    "{}, no result: submitted again (retry {n} of {})",
                    ended_words(&s.state),
                    c.retries
                )
            } else {
                format!(
                    "{}, no result: the next bench submits it again",
                    ended_words(&s.state)
                )
            };
            // Slurm names why a task waits a moment after it is submitted: said then.
            let no_reason_yet = s.state.state == "PENDING" && words == "pending";
            if said.get(&key) != Some(&words) && !no_reason_yet {
                eprintln!("   {id} (job {key}): {words}");
                said.insert(key, words);
            }
        }
        if !again.is_empty() {
            submit(c, out, ids, &again)?;
            continue;
        }
        if open == 0 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// How a task ended, with its node when it had one.
fn ended_words(s: &slurm::TaskState) -> String {
    if s.node.is_empty() {
        s.words()
    } else {
        format!("{} on {}", s.words(), s.node)
    }
}
