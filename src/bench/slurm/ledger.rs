//! What the scheduler said of each task, kept in `OUT/slurm/tasks.json`: Slurm forgets a
//! finished job after `MinJobAge`, and the summary, the Batch screen and the next bench still
//! need to say where an instance ran, how long it waited, and why it ended without a result
//! (timeout, node failure, cancelled). Whoever looks (the following bench, `evootter open`)
//! adds what it saw; the file is written whole and renamed into place.

use super::squeue::{self, GONE, TaskState};
use super::{Submission, dir, submissions};
use std::collections::BTreeMap;
use std::path::Path;

/// One task of one submission as last seen.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    pub job_id: String,
    /// The array task id: the instance's row.
    pub row: usize,
    pub instance_id: String,
    #[serde(flatten)]
    pub state: TaskState,
}

impl Seen {
    /// `45_3`, as Slurm names a task.
    pub fn task(&self) -> String {
        format!("{}_{}", self.job_id, self.row)
    }
}

const FILE: &str = "tasks.json";

/// The tasks as last seen, by `JOB_TASK` (none before the first look).
pub fn read(out: &Path) -> BTreeMap<String, Seen> {
    std::fs::read(dir(out).join(FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn write(out: &Path, all: &BTreeMap<String, Seen>) -> std::io::Result<()> {
    // A name of this process's own: two lookers never write the same temporary file.
    let tmp = dir(out).join(format!("{FILE}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, serde_json::to_vec_pretty(all).unwrap_or_default())?;
    std::fs::rename(tmp, dir(out).join(FILE))
}

/// Asks the scheduler about every task this batch submitted that was not yet seen to end (one
/// `squeue` call), records what changed where it can, and returns every task as now known. A
/// task Slurm no longer lists, not seen to end, is `GONE`.
pub fn look(out: &Path) -> Result<BTreeMap<String, Seen>, String> {
    let subs = submissions(out);
    let mut all = read(out);
    let open: Vec<&Submission> = subs
        .iter()
        .filter(|s| {
            s.rows.iter().any(|r| {
                all.get(&format!("{}_{r}", s.job_id))
                    .is_none_or(|seen| !seen.state.ended())
            })
        })
        .collect();
    let jobs: Vec<&str> = open.iter().map(|s| s.job_id.as_str()).collect();
    let now = squeue::jobs_states(&jobs)?;
    let mut changed = false;
    for s in open {
        let states = now.get(&s.job_id);
        for (i, row) in s.rows.iter().enumerate() {
            let key = format!("{}_{row}", s.job_id);
            if all.get(&key).is_some_and(|seen| seen.state.ended()) {
                continue;
            }
            let state = match states.and_then(|t| t.get(row)) {
                Some(st) => st.clone(),
                None => TaskState {
                    state: GONE.into(),
                    submit_unix: Some(s.submitted_unix),
                    ..all.get(&key).map(|x| x.state.clone()).unwrap_or_default()
                },
            };
            let seen = Seen {
                job_id: s.job_id.clone(),
                row: *row,
                instance_id: s.instances.get(i).cloned().unwrap_or_default(),
                state,
            };
            if all.get(&key) != Some(&seen) {
                all.insert(key, seen);
                changed = true;
            }
        }
    }
    // A looker that cannot write in OUT (a read-only mount) still sees; the next writer
    // records it.
    if changed {
        let _ = write(out, &all);
    }
    Ok(all)
}

/// Each row's latest task (its last submission's), by row.
pub fn latest(all: &BTreeMap<String, Seen>) -> BTreeMap<usize, &Seen> {
    let mut out: BTreeMap<usize, &Seen> = BTreeMap::new();
    for s in all.values() {
        let newer = out
            .get(&s.row)
            .is_none_or(|o| job_number(&s.job_id) > job_number(&o.job_id));
        if newer {
            out.insert(s.row, s);
        }
    }
    out
}

/// Each instance's latest task, by instance id.
pub fn by_instance(all: &BTreeMap<String, Seen>) -> BTreeMap<String, Seen> {
    latest(all)
        .into_values()
        .map(|s| (s.instance_id.clone(), s.clone()))
        .collect()
}

fn job_number(id: &str) -> u64 {
    id.parse().unwrap_or(0)
}
