//! A batch on a Slurm cluster (`bench --cluster slurm`): one job array with a task per
//! unfinished instance, each task the same evootter binary running exactly that row as a
//! local `bench` would (`--row N`: the same executor, scoring and files in the shared OUT).
//! The job script is written to `OUT/slurm/job.sh` (readable, and re-submittable by hand with
//! `sbatch --array=...`), the jobs submitted to `OUT/slurm/jobs.json`; the scheduler's view of
//! the tasks is read with `squeue --json`.

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
    pub submitted_unix: u64,
}

/// What the scheduler says of one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    /// Slurm's word: PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL,
    /// CANCELLED, PREEMPTED.
    pub state: String,
    /// Why it waits (for PENDING), as Slurm says (`Resources`, `Priority`).
    pub reason: String,
    pub node: String,
    pub start_unix: Option<u64>,
}

impl TaskState {
    /// Whether the task has ended, well or not.
    pub fn ended(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED" | "REQUEUED"
        )
    }

    /// The state in a person's words: `pending (Resources)`, `running on n2`, `completed`.
    pub fn words(&self) -> String {
        match self.state.as_str() {
            "PENDING" if !self.reason.is_empty() && self.reason != "None" => {
                format!("pending ({})", self.reason)
            }
            "RUNNING" => format!("running on {}", self.node),
            s => s.to_ascii_lowercase().replace('_', " "),
        }
    }
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

/// What the scheduler says of each task of `job` (`squeue --json -t all`), by array task id.
/// A task Slurm no longer lists (pending when cancelled, or finished longer ago than
/// `MinJobAge`) is absent.
pub fn task_states(job: &str) -> Result<BTreeMap<usize, TaskState>, String> {
    Ok(jobs_states(&[job])?.remove(job).unwrap_or_default())
}

/// The tasks of each of `jobs`, from one `squeue` call (one per poll, however many
/// submissions a batch has: a cluster's controller answers every user's).
pub fn jobs_states(jobs: &[&str]) -> Result<BTreeMap<String, BTreeMap<usize, TaskState>>, String> {
    if jobs.is_empty() {
        return Ok(BTreeMap::new());
    }
    let out = Command::new("squeue")
        .args(["--json", "-t", "all", "-j", &jobs.join(",")])
        .output()
        .map_err(|e| format!("cannot run squeue ({e})"))?;
    if !out.status.success() {
        // Jobs Slurm has forgotten are not an error: their tasks are simply not listed.
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("Invalid job id") {
            return Ok(BTreeMap::new());
        }
        return Err(format!("squeue failed: {}", err.trim()));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("squeue's JSON does not parse: {e}"))?;
    Ok(jobs
        .iter()
        .map(|j| (j.to_string(), parse_jobs(&v, j)))
        .collect())
}

/// The array tasks of `job` in squeue's JSON (data v0.0.38 and later; Slurm 22.05 lists
/// every job whatever `-j` says, so the job is picked out here).
fn parse_jobs(v: &serde_json::Value, job: &str) -> BTreeMap<usize, TaskState> {
    let mut out = BTreeMap::new();
    for j in v["jobs"].as_array().into_iter().flatten() {
        let array = j["array_job_id"]
            .as_u64()
            .or_else(|| j["array_job_id"]["number"].as_u64());
        if array.map(|a| a.to_string()).as_deref() != Some(job) {
            continue;
        }
        let state = match &j["job_state"] {
            serde_json::Value::Array(a) => a.first().and_then(|s| s.as_str()).unwrap_or(""),
            s => s.as_str().unwrap_or(""),
        };
        let st = TaskState {
            state: state.to_string(),
            reason: j["state_reason"].as_str().unwrap_or("").to_string(),
            node: j["nodes"].as_str().unwrap_or("").to_string(),
            start_unix: j["start_time"]
                .as_u64()
                .or_else(|| j["start_time"]["number"].as_u64())
                .filter(|t| *t > 0),
        };
        // Tasks not started yet are one record of the array (`array_task_string`: `2-4,7%2`).
        let tasks: Vec<usize> = match j["array_task_id"]
            .as_u64()
            .or_else(|| j["array_task_id"]["number"].as_u64())
        {
            Some(t) => vec![t as usize],
            None => task_list(j["array_task_string"].as_str().unwrap_or("")),
        };
        for t in tasks {
            out.insert(t, st.clone());
        }
    }
    out
}

/// The tasks of an array's `2-4,7%2`.
fn task_list(s: &str) -> Vec<usize> {
    let s = s.split('%').next().unwrap_or("");
    let mut out = vec![];
    for part in s.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<usize>().ok()),
        }
    }
    out
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
    fn squeue_json_reads_as_task_states() {
        let v = serde_json::json!({"jobs": [
            {"job_id": 7, "array_job_id": 5, "array_task_id": 0, "job_state": "RUNNING",
             "state_reason": "None", "nodes": "n2", "start_time": 100},
            {"job_id": 5, "array_job_id": 5, "array_task_id": 1, "job_state": "PENDING",
             "state_reason": "Resources", "nodes": "", "start_time": 0},
            {"job_id": 9, "array_job_id": 8, "array_task_id": 0, "job_state": "RUNNING"},
            {"job_id": 5, "array_job_id": 5, "array_task_id": null, "array_task_string": "2-3,5%2",
             "job_state": "PENDING", "state_reason": "JobArrayTaskLimit"},
        ]});
        let t = parse_jobs(&v, "5");
        assert_eq!(
            t.len(),
            5,
            "job 8's task is another batch's; 2, 3 and 5 wait"
        );
        assert_eq!(t[&5].words(), "pending (JobArrayTaskLimit)");
        assert_eq!(t[&0].words(), "running on n2");
        assert_eq!(t[&1].words(), "pending (Resources)");
        assert!(!t[&1].ended());
        let done = TaskState {
            state: "NODE_FAIL".into(),
            reason: String::new(),
            node: "n1".into(),
            start_unix: None,
        };
        assert!(done.ended());
        assert_eq!(done.words(), "node fail");
    }

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
