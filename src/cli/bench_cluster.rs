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
];

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

/// Whether an instance has a result a rerun would not change (done, unsound, or an
/// environment that cannot run its tests).
fn finished(out: &Path, id: &str) -> bool {
    std::fs::read(out.join(id).join("instance.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<summary::InstanceRecord>(&b).ok())
        .is_some_and(|r| !matches!(r.status, summary::Status::Error { .. }))
}

pub async fn run(c: &ClusterArgs, b: Batch) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        c.refused.is_empty(),
        "{} cannot go with --cluster: the instances run in separate processes on different \
         nodes, which share no model client, budget or screen; run without it (a budget per \
         instance, --budget-usd-per-instance, works on a cluster)",
        c.refused.join(", ")
    );
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
    let earlier = slurm::submissions(&out);
    let ids_of: Vec<&str> = earlier.iter().map(|s| s.job_id.as_str()).collect();
    let in_flight: BTreeSet<usize> = slurm::jobs_states(&ids_of)
        .map_err(anyhow::Error::msg)?
        .into_values()
        .flatten()
        .filter(|(_, st)| !st.ended())
        .map(|(task, _)| task)
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
        let exe = std::env::current_exe()?;
        let cwd = std::env::current_dir()?;
        let script = sdir.join("job.sh");
        std::fs::write(&script, slurm::job_script(&exe, &cwd, &task_args(), &out))?;
        let job = slurm::submit(&script, &to_run, &c.slurm).map_err(anyhow::Error::msg)?;
        slurm::record(
            &out,
            slurm::Submission {
                job_id: job.clone(),
                rows: to_run.clone(),
                submitted_unix: evootter::clock::now_unix(),
            },
        )?;
        eprintln!(
            "submitted job {job}: {} task{} ({}); the job script is {}",
            to_run.len(),
            if to_run.len() == 1 { "" } else { "s" },
            to_run
                .iter()
                .map(|i| ids[*i].as_str())
                .collect::<Vec<_>>()
                .join(", "),
            script.display()
        );
    }
    if c.detach {
        eprintln!(
            "the jobs go on: `evootter bench` on {} again follows them, `evootter bench --cancel \
             {}` stops them",
            out.display(),
            out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    tokio::select! {
        r = follow(&out, &ids) => r?,
        _ = tokio::signal::ctrl_c() => {
            eprintln!(
                "\nthe jobs go on: `evootter open {}` watches them, `evootter bench --cancel {}` \
                 stops them",
                out.display(),
                out.display()
            );
            return Ok(ExitCode::from(130));
        }
    }
    let records = bench::finish(&b)?;
    let s = summary::read(&out)?;
    print!("{}", summary::table(&s));
    let unfinished = ids.iter().filter(|id| !finished(&out, id)).count();
    if unfinished > 0 {
        eprintln!(
            "{unfinished} instance(s) ended without a result; `evootter bench` with the same \
             options submits them again (their sessions resume)"
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

/// Follows every recorded submission until each of its tasks has ended, saying each change:
/// one `squeue` call a poll, and a task that has ended is not looked at again.
async fn follow(out: &Path, ids: &[String]) -> anyhow::Result<()> {
    let submitted = slurm::submissions(out);
    let jobs: Vec<&str> = submitted.iter().map(|s| s.job_id.as_str()).collect();
    let mut said: BTreeMap<(String, usize), String> = BTreeMap::new();
    let mut ended: BTreeSet<(String, usize)> = BTreeSet::new();
    loop {
        let mut open = 0;
        let all = slurm::jobs_states(&jobs).map_err(anyhow::Error::msg)?;
        for s in &submitted {
            let Some(states) = all.get(&s.job_id) else {
                continue;
            };
            for task in &s.rows {
                let key = (s.job_id.clone(), *task);
                if ended.contains(&key) {
                    continue;
                }
                let Some(st) = states.get(task) else { continue };
                let id = ids.get(*task).map_or("?", String::as_str);
                let words = if st.ended() {
                    let result = if finished(out, id) {
                        "its result written".to_string()
                    } else {
                        "no result: the next bench submits it again".to_string()
                    };
                    ended.insert(key.clone());
                    format!("{} on {}, {result}", st.words(), st.node)
                } else {
                    open += 1;
                    st.words()
                };
                if said.get(&key) != Some(&words) {
                    eprintln!("   {id} (job {}_{task}): {words}", s.job_id);
                    said.insert(key, words);
                }
            }
        }
        if open == 0 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
