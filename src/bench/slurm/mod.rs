//! A batch on a Slurm cluster (`bench --cluster slurm`): one job array with a task per
//! unfinished instance, each task the same evootter binary running exactly that row as a
//! local `bench` would (`--row N`: the same executor, scoring and files in the shared OUT).
//! The job script is written to `OUT/slurm/job.sh` (readable, and re-submittable by hand with
//! `sbatch --array=...`), the jobs submitted to `OUT/slurm/jobs.json`; the scheduler's view of
//! the tasks is read with `squeue` (`squeue.rs`) and kept in `OUT/slurm/tasks.json`
//! (`ledger.rs`).

pub mod ledger;
pub mod report;
pub mod squeue;
pub mod watch;

pub use squeue::{TaskState, jobs_states};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How the tasks are requested (`--slurm-*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    pub account: Option<String>,
    pub time: Option<String>,
    pub cpus_per_task: Option<u32>,
    pub mem: Option<String>,
    /// The array's `%K`: at most this many tasks at once.
    pub max_running: Option<usize>,
    /// Passed to sbatch as given.
    pub args: Vec<String>,
}

/// One submission: its job id and the rows (array task ids) it runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Submission {
    pub job_id: String,
    pub rows: Vec<usize>,
    /// The instance of each row, in the same order.
    #[serde(default)]
    pub instances: Vec<String>,
    pub submitted_unix: u64,
}

pub fn dir(out: &Path) -> PathBuf {
    out.join("slurm")
}

/// The job script: each task runs its row with `exe` and `args` (the batch's own options)
/// from `cwd`, its output in `OUT/slurm/JOB_TASK.log`.
pub fn job_script(exe: &Path, cwd: &Path, args: &[String], out: &Path) -> String {
    let quote = |s: &str| {
        if s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
        {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    let logs = dir(out).join("%A_%a.log");
    let line: Vec<String> = std::iter::once(exe.display().to_string())
        .chain(args.iter().cloned())
        .map(|a| quote(&a))
        .collect();
    format!(
        "#!/bin/sh\n\
         # evootter bench on Slurm: array task N runs row N of the batch as a local bench\n\
         # would (written by `evootter bench --cluster slurm`; submit again by hand with\n\
         # `sbatch --array=ROWS {script}`).\n\
         #SBATCH --job-name=evootter\n\
         #SBATCH --output={logs}\n\
         cd {cwd} || exit 1\n\
         exec {line} --row \"$SLURM_ARRAY_TASK_ID\"\n",
        script = dir(out).join("job.sh").display(),
        logs = logs.display(),
        cwd = quote(&cwd.display().to_string()),
        line = line.join(" "),
    )
}

/// `sbatch --parsable --array=ROWS%K ...`: the job id.
pub fn submit(script: &Path, rows: &[usize], o: &SlurmOptions) -> Result<String, String> {
    let mut array = rows
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",");
    if let Some(k) = o.max_running {
        array.push_str(&format!("%{k}"));
    }
    let mut c = Command::new("sbatch");
    c.arg("--parsable").arg(format!("--array={array}"));
    for (flag, v) in [
        ("--partition", &o.partition),
        ("--account", &o.account),
        ("--time", &o.time),
        ("--mem", &o.mem),
    ] {
        if let Some(v) = v {
            c.arg(format!("{flag}={v}"));
        }
    }
    if let Some(n) = o.cpus_per_task {
        c.arg(format!("--cpus-per-task={n}"));
    }
    c.args(&o.args).arg(script);
    let out = c.output().map_err(|e| {
        format!("cannot run sbatch ({e}): --cluster slurm needs Slurm's commands on the PATH")
    })?;
    if !out.status.success() {
        return Err(format!(
            "sbatch refused the job: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // `JOBID` or `JOBID;CLUSTER`.
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() {
        return Err("sbatch printed no job id".into());
    }
    Ok(id)
}

/// The submissions recorded in OUT.
pub fn submissions(out: &Path) -> Vec<Submission> {
    std::fs::read(dir(out).join("jobs.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Records a submission beside the earlier ones (written whole, then renamed into place).
pub fn record(out: &Path, s: Submission) -> std::io::Result<()> {
    let mut all = submissions(out);
    all.push(s);
    let tmp = dir(out).join("jobs.json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&all).unwrap_or_default())?;
    std::fs::rename(tmp, dir(out).join("jobs.json"))
}

/// What the scheduler says of each task of `job`, by array task id.
pub fn task_states(job: &str) -> Result<BTreeMap<usize, TaskState>, String> {
    Ok(jobs_states(&[job])?.remove(job).unwrap_or_default())
}

/// How many times each row was submitted.
pub fn times_submitted(out: &Path) -> BTreeMap<usize, usize> {
    let mut n = BTreeMap::new();
    for s in submissions(out) {
        for r in s.rows {
            *n.entry(r).or_default() += 1;
        }
    }
    n
}

/// `scancel` every job this batch submitted (and nothing else); the ids cancelled.
pub fn cancel(out: &Path) -> Result<Vec<String>, String> {
    let jobs: Vec<String> = submissions(out).into_iter().map(|s| s.job_id).collect();
    if jobs.is_empty() {
        return Ok(jobs);
    }
    let st = Command::new("scancel")
        .args(&jobs)
        .status()
        .map_err(|e| format!("cannot run scancel ({e})"))?;
    if !st.success() {
        return Err(format!("scancel failed for {}", jobs.join(", ")));
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_script_runs_the_task_s_row_with_the_batch_s_options() {
        let s = job_script(
            Path::new("/opt/evootter"),
            Path::new("/home/me/work dir"),
            &["bench".into(), "--out".into(), "/shared/out".into()],
            Path::new("/shared/out"),
        );
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains("#SBATCH --output=/shared/out/slurm/%A_%a.log"));
        assert!(s.contains("cd '/home/me/work dir' || exit 1"));
        assert!(
            s.contains("exec /opt/evootter bench --out /shared/out --row \"$SLURM_ARRAY_TASK_ID\"")
        );
    }
}
