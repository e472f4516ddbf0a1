//! The cluster's part of a batch's summary: where each instance's last task ran, how long it
//! waited in the queue, how it ended, and how many times it was submitted; from
//! `OUT/slurm/tasks.json` alone (no scheduler needed to read it).

use super::ledger::{self, Seen};
use std::path::Path;

/// One instance's last task.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TaskLine {
    pub instance_id: String,
    /// `JOB_TASK`.
    pub task: String,
    pub node: String,
    /// How it ended (or stands), in words: `completed`, `timeout`, `pending (Priority)`.
    pub state: String,
    /// Seconds from submission to start.
    pub queue_wait_seconds: Option<u64>,
    /// Seconds from start to end.
    pub ran_seconds: Option<u64>,
    /// How many times the instance was submitted.
    pub submitted: usize,
}

/// The lines of the batch in OUT, by instance; none for a batch that never ran on a cluster.
/// The scheduler is asked first where it answers (a detached batch's tasks were never
/// looked at), else the ledger's record stands.
pub fn lines(out: &Path) -> Vec<TaskLine> {
    let subs = super::submissions(out);
    if subs.is_empty() {
        return vec![];
    }
    let all = ledger::look(out).unwrap_or_else(|_| ledger::read(out));
    let times = super::times_submitted(&subs);
    let mut v: Vec<TaskLine> = ledger::latest(&all)
        .into_values()
        .map(|s: &Seen| TaskLine {
            instance_id: s.instance_id.clone(),
            task: s.task(),
            node: s.state.node.clone(),
            state: s.state.words(),
            queue_wait_seconds: s.state.queue_wait(),
            ran_seconds: s
                .state
                .end_unix
                .zip(s.state.start_unix)
                .map(|(e, b)| e.saturating_sub(b)),
            submitted: times.get(&s.row).copied().unwrap_or(1),
        })
        .collect();
    v.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
    v
}

fn secs(s: Option<u64>) -> String {
    s.map_or("-".into(), |s| format!("{s} s"))
}

/// The lines as a table, with the queue waits' median and maximum.
pub fn table(lines: &[TaskLine]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\non the cluster (Slurm):\n{:<34} {:<9} {:<8} {:<24} {:>7} {:>7} {:>9}\n",
        "instance", "task", "node", "state", "queued", "ran", "attempts"
    );
    for l in lines {
        out += &format!(
            "{:<34} {:<9} {:<8} {:<24} {:>7} {:>7} {:>9}\n",
            l.instance_id,
            l.task,
            if l.node.is_empty() { "-" } else { &l.node },
            l.state,
            secs(l.queue_wait_seconds),
            secs(l.ran_seconds),
            l.submitted
        );
    }
    let mut waits: Vec<u64> = lines.iter().filter_map(|l| l.queue_wait_seconds).collect();
    waits.sort_unstable();
    if let (Some(max), false) = (waits.last(), waits.is_empty()) {
        out += &format!(
            "queue wait: median {} s, at most {max} s, over {} started task{}\n",
            waits[waits.len() / 2],
            waits.len(),
            if waits.len() == 1 { "" } else { "s" }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_node_wait_and_how_each_ended() {
        let lines = [
            TaskLine {
                instance_id: "a".into(),
                task: "5_0".into(),
                node: "n2".into(),
                state: "completed".into(),
                queue_wait_seconds: Some(1),
                ran_seconds: Some(14),
                submitted: 1,
            },
            TaskLine {
                instance_id: "b".into(),
                task: "7_1".into(),
                node: "n3".into(),
                state: "timeout".into(),
                queue_wait_seconds: Some(4),
                ran_seconds: Some(60),
                submitted: 2,
            },
        ];
        let t = table(&lines);
        assert!(t.contains("on the cluster (Slurm)"), "{t}");
        let b = t.lines().find(|l| l.starts_with("b ")).unwrap();
        for word in ["7_1", "n3", "timeout", "4 s", "60 s", " 2"] {
            assert!(b.contains(word), "{word} in {b}");
        }
        assert!(
            t.contains("queue wait: median 4 s, at most 4 s, over 2 started tasks"),
            "{t}"
        );
        assert_eq!(table(&[]), "");
    }
}
