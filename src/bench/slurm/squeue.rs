//! The scheduler's view of a batch's tasks, from one `squeue` call: `squeue --json` where the
//! cluster has it (Slurm 21.08 and later with its JSON plugin), else the text form
//! (`squeue -h -r -o ...`, times as Unix seconds through `SLURM_TIME_FORMAT`).
//! `EVOOTTER_SQUEUE=text` or `=json` chooses one; by default JSON is tried first and the text
//! form is kept for the rest of the process once JSON fails.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the scheduler says of one task.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct TaskState {
    /// Slurm's word: PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL,
    /// CANCELLED, PREEMPTED (and GONE: no longer listed, its end unknown).
    pub state: String,
    /// Why it waits (for PENDING), as Slurm says (`Resources`, `Priority`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub node: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_unix: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_unix: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_unix: Option<u64>,
}

/// The state of a task Slurm no longer lists although it was not seen to end (cancelled while
/// pending, or finished and purged after `MinJobAge` between two looks).
pub const GONE: &str = "GONE";

impl TaskState {
    /// Whether the task has ended, well or not.
    pub fn ended(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED" | "REQUEUED"
        )
    }

    /// Whether it is running (or about to): it has a node.
    pub fn running(&self) -> bool {
        matches!(
            self.state.as_str(),
            "RUNNING" | "CONFIGURING" | "COMPLETING"
        )
    }

    /// The state in a person's words: `pending (Resources)`, `running on n2`, `completed`.
    pub fn words(&self) -> String {
        match self.state.as_str() {
            "PENDING" if !self.reason.is_empty() && self.reason != "None" => {
                format!("pending ({})", self.reason)
            }
            "RUNNING" => format!("running on {}", self.node),
            GONE => "no longer listed by Slurm".into(),
            s => s.to_ascii_lowercase().replace('_', " "),
        }
    }

    /// At most 11 characters, for a table's state column: `pending`, `running n2`, `timeout`.
    pub fn short(&self) -> String {
        let s = match self.state.as_str() {
            s if self.running() => format!("{} {}", s.to_ascii_lowercase(), self.node),
            GONE => "gone".into(),
            "OUT_OF_MEMORY" => "out of mem".into(),
            s => s.to_ascii_lowercase().replace('_', " "),
        };
        s.chars().take(11).collect()
    }

    /// Seconds from submission to start (the queue wait), once started.
    pub fn queue_wait(&self) -> Option<u64> {
        Some(self.start_unix?.saturating_sub(self.submit_unix?))
    }
}

/// Whether JSON failed once in this process (an older Slurm): the text form from then on.
static TEXT: AtomicBool = AtomicBool::new(false);

/// The tasks of each of `jobs`, from one `squeue` call (one per poll, however many
/// submissions a batch has: a cluster's controller answers every user's). A task Slurm no
/// longer lists is absent.
pub fn jobs_states(jobs: &[&str]) -> Result<BTreeMap<String, BTreeMap<usize, TaskState>>, String> {
    if jobs.is_empty() {
        return Ok(BTreeMap::new());
    }
    match std::env::var("EVOOTTER_SQUEUE").as_deref() {
        Ok("text") => return text(jobs),
        Ok("json") => return json(jobs),
        _ => {}
    }
    if TEXT.load(Ordering::Relaxed) {
        return text(jobs);
    }
    json(jobs).or_else(|json_error| {
        let t = text(jobs).map_err(|e| format!("{json_error}; and the text form: {e}"))?;
        TEXT.store(true, Ordering::Relaxed);
        Ok(t)
    })
}

/// Runs squeue; jobs Slurm has forgotten are not an error (their tasks are simply absent).
fn squeue(args: &[&str], jobs: &[&str]) -> Result<Option<Vec<u8>>, String> {
    let out = Command::new("squeue")
        .args(args)
        .args(["-t", "all", "-j", &jobs.join(",")])
        .env("SLURM_TIME_FORMAT", "%s")
        .output()
        .map_err(|e| {
            format!("cannot run squeue ({e}): following a cluster batch needs Slurm's commands")
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("Invalid job id") {
            return Ok(None);
        }
        return Err(format!("squeue failed: {}", err.trim()));
    }
    Ok(Some(out.stdout))
}

fn json(jobs: &[&str]) -> Result<BTreeMap<String, BTreeMap<usize, TaskState>>, String> {
    let Some(out) = squeue(&["--json"], jobs)? else {
        return Ok(BTreeMap::new());
    };
    let v: serde_json::Value =
        serde_json::from_slice(&out).map_err(|e| format!("squeue --json gave no JSON ({e})"))?;
    Ok(jobs
        .iter()
        .map(|j| (j.to_string(), parse_json(&v, j)))
        .collect())
}

/// `%F|%K|%T|%r|%N|%V|%S|%e`, one array task a line (`-r`).
const TEXT_FORMAT: &str = "%F|%K|%T|%r|%N|%V|%S|%e";

fn text(jobs: &[&str]) -> Result<BTreeMap<String, BTreeMap<usize, TaskState>>, String> {
    let Some(out) = squeue(&["-h", "-r", "-o", TEXT_FORMAT], jobs)? else {
        return Ok(BTreeMap::new());
    };
    Ok(parse_text(&String::from_utf8_lossy(&out), jobs))
}

/// A JSON number, or the `{"number": N, "set": true}` of data v0.0.40 and later.
fn number(v: &serde_json::Value) -> Option<u64> {
    v.as_u64().or_else(|| v["number"].as_u64())
}

/// The array tasks of `job` in squeue's JSON (data v0.0.38 and later; Slurm 22.05 lists
/// every job whatever `-j` says, so the job is picked out here).
pub(super) fn parse_json(v: &serde_json::Value, job: &str) -> BTreeMap<usize, TaskState> {
    let mut out = BTreeMap::new();
    for j in v["jobs"].as_array().into_iter().flatten() {
        if number(&j["array_job_id"]).map(|a| a.to_string()).as_deref() != Some(job) {
            continue;
        }
        let state = match &j["job_state"] {
            serde_json::Value::Array(a) => a.first().and_then(|s| s.as_str()).unwrap_or(""),
            s => s.as_str().unwrap_or(""),
        };
        let time = |k: &str| number(&j[k]).filter(|t| *t > 0);
        let st = TaskState {
            state: state.to_string(),
            reason: j["state_reason"].as_str().unwrap_or("").to_string(),
            node: j["nodes"].as_str().unwrap_or("").to_string(),
            submit_unix: time("submit_time"),
            ..Default::default()
        };
        let st = with_times(st, time("start_time"), time("end_time"));
        // Tasks not started yet are one record of the array (`array_task_string`: `2-4,7%2`).
        let tasks: Vec<usize> = match number(&j["array_task_id"]) {
            Some(t) => vec![t as usize],
            None => task_list(j["array_task_string"].as_str().unwrap_or("")),
        };
        for t in tasks {
            out.insert(t, st.clone());
        }
    }
    out
}

/// Start and end times as far as they are facts: a pending task's start is Slurm's
/// estimate, and an unended task's end its limit.
fn with_times(mut st: TaskState, start: Option<u64>, end: Option<u64>) -> TaskState {
    // A task cancelled before it started has no node; Slurm gives it its end as start.
    if st.state != "PENDING" && !st.node.is_empty() {
        st.start_unix = start;
    }
    if st.ended() {
        st.end_unix = end;
    }
    st
}

/// The text form's lines (`TEXT_FORMAT`) of the tasks of `jobs`.
pub(super) fn parse_text(
    text: &str,
    jobs: &[&str],
) -> BTreeMap<String, BTreeMap<usize, TaskState>> {
    let mut out: BTreeMap<String, BTreeMap<usize, TaskState>> = jobs
        .iter()
        .map(|j| (j.to_string(), BTreeMap::new()))
        .collect();
    for line in text.lines() {
        let f: Vec<&str> = line.split('|').collect();
        let [job, task, state, reason, node, submit, start, end] = f[..] else {
            continue;
        };
        let Some(tasks) = out.get_mut(job.trim()) else {
            continue;
        };
        let time = |s: &str| s.trim().parse::<u64>().ok().filter(|t| *t > 0);
        let st = TaskState {
            state: state.trim().to_string(),
            reason: reason.trim().to_string(),
            node: node.trim().to_string(),
            submit_unix: time(submit),
            ..Default::default()
        };
        let st = with_times(st, time(start), time(end));
        // `-r` gives each task a line; an older squeue may still fold pending ones (`2-4%2`).
        for t in task_list(task.trim()) {
            tasks.insert(t, st.clone());
        }
    }
    out
}

/// The tasks of an array's `2-4,7%2`.
fn task_list(s: &str) -> Vec<usize> {
    let s = s.trim_start_matches('[').trim_end_matches(']');
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_json_reads_as_task_states() {
        let v = serde_json::json!({"jobs": [
            {"job_id": 7, "array_job_id": 5, "array_task_id": 0, "job_state": "RUNNING",
             "state_reason": "None", "nodes": "n2", "submit_time": 98, "start_time": 100,
             "end_time": 4000},
            {"job_id": 5, "array_job_id": 5, "array_task_id": 1, "job_state": "PENDING",
             "state_reason": "Resources", "nodes": "", "start_time": 150},
            {"job_id": 9, "array_job_id": 8, "array_task_id": 0, "job_state": "RUNNING"},
            {"job_id": 5, "array_job_id": 5, "array_task_id": null, "array_task_string": "2-3,5%2",
             "job_state": "PENDING", "state_reason": "JobArrayTaskLimit"},
            {"job_id": 11, "array_job_id": {"number": 5, "set": true},
             "array_task_id": {"number": 4, "set": true}, "job_state": ["TIMEOUT"],
             "nodes": "n3", "submit_time": {"number": 98}, "start_time": {"number": 101},
             "end_time": {"number": 161}},
        ]});
        let t = parse_json(&v, "5");
        assert_eq!(
            t.len(),
            6,
            "job 8's task is another batch's; 2, 3 and 5 wait"
        );
        assert_eq!(t[&5].words(), "pending (JobArrayTaskLimit)");
        assert_eq!(t[&0].words(), "running on n2");
        assert_eq!(t[&0].short(), "running n2");
        assert_eq!(t[&0].queue_wait(), Some(2));
        assert_eq!(t[&0].end_unix, None, "a running task's end is its limit");
        assert_eq!(t[&1].words(), "pending (Resources)");
        assert_eq!(t[&1].start_unix, None, "a pending task's start is a guess");
        assert!(!t[&1].ended());
        assert_eq!(t[&4].words(), "timeout");
        assert_eq!((t[&4].start_unix, t[&4].end_unix), (Some(101), Some(161)));
        let done = TaskState {
            state: "NODE_FAIL".into(),
            node: "n1".into(),
            ..Default::default()
        };
        assert!(done.ended());
        assert_eq!(done.words(), "node fail");
    }

    #[test]
    fn squeue_text_reads_as_the_json_does() {
        let text = "5|0|RUNNING|None|n2|98|100|4000\n\
                    5|1|PENDING|Resources||98|150|4000\n\
                    5|2-3%2|PENDING|JobArrayTaskLimit||98|N/A|N/A\n\
                    8|0|RUNNING|None|n1|1|2|3\n\
                    5|4|OUT_OF_MEMORY|None|n3|98|101|161\n\
                    garbage line\n";
        let all = parse_text(text, &["5"]);
        let t = &all["5"];
        assert_eq!(t.len(), 5, "{t:?}");
        assert_eq!(t[&0].words(), "running on n2");
        assert_eq!(t[&0].queue_wait(), Some(2));
        assert_eq!(t[&1].start_unix, None);
        assert_eq!(t[&3].words(), "pending (JobArrayTaskLimit)");
        assert_eq!(t[&4].short(), "out of mem");
        assert_eq!(t[&4].end_unix, Some(161));
        assert!(!all.contains_key("8"));
    }
}
