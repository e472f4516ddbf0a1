//! Batches on a real Slurm cluster of three nodes on this host (`.ci/slurm` starts it):
//! `bench --cluster slurm` submits a job array, its tasks run the instances with this binary
//! as a local bench would, and the summary is the same. Under CI a missing cluster fails.

use crate::common;
use common::bench_rows::rows_file;
use common::*;
use std::process::Command;

/// Whether the cluster answers (three idle nodes); under CI its absence is a failure.
fn cluster_up() -> bool {
    let up = Command::new("sinfo")
        .args(["-h", "-N", "-o", "%N %t"])
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).lines().count() >= 3
        });
    if !up {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs the Slurm cluster: .ci/slurm starts it"
        );
        eprintln!("no Slurm cluster here (bash .ci/slurm starts one): skipped");
    }
    up
}

fn cpus() -> String {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .to_string()
}

fn json_of(p: &std::path::Path) -> serde_json::Value {
    read_json(p)
}

#[test]
fn a_batch_on_the_cluster_gives_the_local_verdicts_from_several_nodes() {
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let names = ["envconf_errors", "pagekit_orphans"];
    let rows = rows_file(dir.path(), &repos, &names);
    let bench = |out: &std::path::Path, extra: &[&str]| {
        bin()
            .args(["bench", "--instances"])
            .arg(&rows)
            .arg("--repos")
            .arg(&repos)
            .arg("--out")
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    let on_cluster = dir.path().join("cluster");
    // A task takes a whole node: the two land on two nodes.
    let o = bench(
        &on_cluster,
        &["--cluster", "slurm", "--slurm-cpus-per-task", &cpus()],
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("submitted job"), "{err}");
    assert!(err.contains("its result written"), "{err}");
    let script = std::fs::read_to_string(on_cluster.join("slurm/job.sh")).unwrap();
    assert!(
        script.contains("--row \"$SLURM_ARRAY_TASK_ID\""),
        "{script}"
    );
    let exec = script.lines().find(|l| l.starts_with("exec ")).unwrap();
    assert!(
        !exec.contains("--cluster") && !exec.contains("--slurm"),
        "a task runs its row locally: {exec}"
    );
    let jobs = json_of(&on_cluster.join("slurm/jobs.json"));
    let job = jobs[0]["job_id"].as_str().unwrap().to_string();
    let states = evootter::bench::slurm::task_states(&job).unwrap();
    let nodes: std::collections::BTreeSet<&str> =
        states.values().map(|s| s.node.as_str()).collect();
    assert_eq!(states.len(), 2, "{states:?}");
    assert!(
        states.values().all(|s| s.state == "COMPLETED"),
        "{states:?}"
    );
    assert_eq!(nodes.len(), 2, "the tasks ran on two nodes: {states:?}");
    // The same batch on this machine: the same verdicts and final tests.
    let local = dir.path().join("local");
    let o = bench(&local, &["--parallel", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    for name in names {
        let id = format!("evootter__{name}-1");
        let c = json_of(&on_cluster.join(&id).join("report.json"));
        let l = json_of(&local.join(&id).join("report.json"));
        assert_eq!(c["f2p"], l["f2p"], "{id}");
        assert_eq!(c["final_test_id"], l["final_test_id"], "{id}");
        assert_eq!(c["f2p"]["f2p"], true, "{id}");
    }
    let summary = json_of(&on_cluster.join("summary.json"));
    assert_eq!(summary["tdd"], 2, "{summary:#}");
    // Again on the same directory: nothing is submitted.
    let o = bench(&on_cluster, &["--cluster", "slurm"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("nothing to submit"), "{}", text(&o));
    assert_eq!(
        json_of(&on_cluster.join("slurm/jobs.json"))
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn pending_tasks_are_not_submitted_twice_and_cancel_stops_only_this_batch() {
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let rows = rows_file(dir.path(), &repos, &["envconf_errors"]);
    let out = dir.path().join("batch");
    let bench = |extra: &[&str]| {
        bin()
            .args(["bench", "--instances"])
            .arg(&rows)
            .arg("--repos")
            .arg(&repos)
            .arg("--out")
            .arg(&out)
            .args(["--cluster", "slurm", "--slurm-detach"])
            .args(extra)
            .output()
            .unwrap()
    };
    // Held for ten minutes: it stays pending.
    let o = bench(&["--slurm-arg=--begin=now+600"]);
    assert!(o.status.success(), "{}", text(&o));
    let job = json_of(&out.join("slurm/jobs.json"))[0]["job_id"]
        .as_str()
        .unwrap()
        .to_string();
    let states = evootter::bench::slurm::task_states(&job).unwrap();
    assert_eq!(states[&0].state, "PENDING", "{states:?}");
    // Another user's job, held the same way.
    let other_script = dir.path().join("other.sh");
    std::fs::write(&other_script, "#!/bin/sh\nsleep 1\n").unwrap();
    let other = Command::new("sbatch")
        .args(["--parsable", "--begin=now+600", "--output=/dev/null"])
        .arg(&other_script)
        .output()
        .unwrap();
    let other = String::from_utf8_lossy(&other.stdout).trim().to_string();
    // A second bench submits nothing that is pending.
    let o = bench(&[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("already pending or running on the cluster (not submitted again): evootter__envconf_errors-1"),
        "{}",
        text(&o)
    );
    assert_eq!(
        json_of(&out.join("slurm/jobs.json"))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // --cancel: this batch's job only.
    let o = bin()
        .args(["bench", "--cancel"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("cancelled this batch's jobs: {job}")),
        "{}",
        text(&o)
    );
    let still = Command::new("squeue")
        .args(["-h", "-j", &other, "-o", "%T"])
        .output()
        .unwrap();
    let still = String::from_utf8_lossy(&still.stdout).trim().to_string();
    let _ = Command::new("scancel").arg(&other).status();
    assert_eq!(still, "PENDING", "the other job is left alone");
    let mine = evootter::bench::slurm::task_states(&job).unwrap();
    assert!(
        mine.values().all(|s| s.state == "CANCELLED"),
        "this batch's task is gone or cancelled: {mine:?}"
    );
}
