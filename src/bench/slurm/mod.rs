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

/// A word as the shell reads it: as is when plain, else in single quotes.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// sbatch's options for `o` (without the array): `--partition=ci`, `--time=2:00:00`, ...
fn sbatch_options(o: &SlurmOptions) -> Vec<String> {
    let mut v = vec![];
    for (flag, value) in [
        ("--partition", &o.partition),
        ("--account", &o.account),
        ("--time", &o.time),
        ("--mem", &o.mem),
    ] {
        if let Some(value) = value {
            v.push(format!("{flag}={value}"));
        }
    }
    if let Some(n) = o.cpus_per_task {
        v.push(format!("--cpus-per-task={n}"));
    }
    v.extend(o.args.iter().cloned());
    v
}

/// The job script: each task runs its row with `exe` and `args` (the batch's own options)
/// from `cwd`, its output in `OUT/slurm/JOB_TASK.log`. The batch's sbatch options are its
/// `#SBATCH` lines, so that a submission by hand asks the cluster for the same.
pub fn job_script(exe: &Path, cwd: &Path, args: &[String], out: &Path, o: &SlurmOptions) -> String {
    let logs = dir(out).join("%A_%a.log");
    let line: Vec<String> = std::iter::once(exe.display().to_string())
        .chain(args.iter().cloned())
        .map(|a| quote(&a))
        .collect();
    let job_name = format!(
        "evootter-{}",
        out.file_name()
            .map_or("batch".into(), |n| n.to_string_lossy())
            .replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_',
                "-"
            )
    );
    let options: String = sbatch_options(o)
        .iter()
        .map(|a| format!("#SBATCH {a}\n"))
        .collect();
    format!(
        "#!/bin/sh\n\
         # evootter bench on Slurm: array task N runs row N of the batch as a local bench\n\
         # would (written by `evootter bench --cluster slurm`). Submitted by hand\n\
         # (`sbatch --array=ROWS {script}`), a job is not in OUT/slurm/jobs.json: a following\n\
         # bench neither waits for it nor cancels it, so submit by hand only while none runs.\n\
         #SBATCH --job-name={job_name}\n\
         #SBATCH --output={logs}\n\
         {options}\
         cd {cwd} || exit 1\n\
         exec {line} --row \"$SLURM_ARRAY_TASK_ID\"\n",
        script = dir(out).join("job.sh").display(),
        logs = logs.display(),
        cwd = quote(&cwd.display().to_string()),
        line = line.join(" "),
    )
}

/// `sbatch --parsable --array=ROWS%K ...`: the job id. With a limit K and earlier jobs of
/// the batch still open (`after`), the new array waits for them (`--dependency=afterany`),
/// so that the batch never has more than K tasks at once: `%K` holds within one array only.
pub fn submit(
    script: &Path,
    rows: &[usize],
    o: &SlurmOptions,
    after: &[String],
) -> Result<String, String> {
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
    if o.max_running.is_some() && !after.is_empty() {
        c.arg(format!("--dependency=afterany:{}", after.join(":")));
    }
    c.args(sbatch_options(o)).arg(script);
    let out = c.output().map_err(|e| {
        format!("cannot run sbatch ({e}): --cluster slurm needs Slurm's commands on the PATH")
    })?;
    if !out.status.success() {
        let asked = sbatch_options(o);
        return Err(format!(
            "sbatch refused the job: {}{}",
            String::from_utf8_lossy(&out.stderr).trim(),
            if asked.is_empty() {
                String::new()
            } else {
                format!(
                    " (asked with {}: check the --slurm-* options that gave them)",
                    asked.join(" ")
                )
            }
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
pub fn times_submitted(subs: &[Submission]) -> BTreeMap<usize, usize> {
    let mut n = BTreeMap::new();
    for s in subs {
        for &r in &s.rows {
            *n.entry(r).or_default() += 1;
        }
    }
    n
}

/// `scancel` these jobs (a batch's own, from its records).
pub fn cancel(jobs: &[String]) -> Result<(), String> {
    let st = Command::new("scancel")
        .args(jobs)
        .status()
        .map_err(|e| format!("cannot run scancel ({e})"))?;
    if !st.success() {
        return Err(format!("scancel failed for {}", jobs.join(", ")));
    }
    Ok(())
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
            &SlurmOptions {
                account: Some("lab".into()),
                time: Some("2:00:00".into()),
                args: vec!["--qos=low".into()],
                ..Default::default()
            },
        );
        for line in [
            "#SBATCH --job-name=evootter-out",
            "#SBATCH --account=lab",
            "#SBATCH --time=2:00:00",
            "#SBATCH --qos=low",
        ] {
            assert!(s.contains(line), "{line} in {s}");
        }
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains("#SBATCH --output=/shared/out/slurm/%A_%a.log"));
        assert!(s.contains("cd '/home/me/work dir' || exit 1"));
        assert!(
            s.contains("exec /opt/evootter bench --out /shared/out --row \"$SLURM_ARRAY_TASK_ID\"")
        );
    }
}
