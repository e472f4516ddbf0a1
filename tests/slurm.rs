//! Batches on a real Slurm cluster of three nodes on this host (`.ci/slurm` starts it):
//! `bench --cluster slurm` submits a job array, its tasks run the instances with this binary
//! as a local bench would, and the summary is the same. Under CI a missing cluster fails.

use crate::common;
use common::bench_rows::{bench_command, rows_file};
use common::*;
use std::process::Command;

/// The tests share one cluster and some take a node down: one at a time, across the test
/// runner's threads and processes.
fn one_at_a_time() -> std::fs::File {
    let f = std::fs::File::create(std::env::temp_dir().join("evootter-slurm-tests.lock")).unwrap();
    f.lock().unwrap();
    f
}

/// Whether the cluster answers (three idle nodes); under CI its absence is a failure.
fn cluster_up() -> bool {
    // Three idle nodes (a node another test took down comes back within seconds).
    let idle = || {
        Command::new("sinfo")
            .args(["-h", "-N", "-t", "idle", "-o", "%N"])
            .output()
            .is_ok_and(|o| {
                o.status.success() && String::from_utf8_lossy(&o.stdout).lines().count() >= 3
            })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut up = idle();
    while !up && std::time::Instant::now() < deadline && Command::new("sinfo").output().is_ok() {
        std::thread::sleep(std::time::Duration::from_millis(500));
        up = idle();
    }
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
    let _one = one_at_a_time();
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let names = ["envconf_errors", "pagekit_orphans"];
    let rows = rows_file(dir.path(), &repos, &names);
    let bench = |out: &std::path::Path, extra: &[&str]| {
        bench_command(&rows, &repos, out)
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
    let err = text(&o);
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
    let _one = one_at_a_time();
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let rows = rows_file(dir.path(), &repos, &["envconf_errors"]);
    let out = dir.path().join("batch");
    let bench = |extra: &[&str]| {
        bench_command(&rows, &repos, &out)
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
    // A second bench submits nothing that is pending; it reads squeue's text form as on a
    // cluster without `squeue --json`.
    let o = {
        let mut c = bench_command(&rows, &repos, &out);
        c.args(["--cluster", "slurm", "--slurm-detach"])
            .env("EVOOTTER_SQUEUE", "text");
        c.output().unwrap()
    };
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
    // A local bench on it would run the pending instance twice: refused.
    let o = bench_command(&rows, &repos, &out).output().unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("has tasks on the cluster: evootter__envconf_errors-1 (pending"),
        "{}",
        text(&o)
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

/// `squeue`'s word for a task (`JOB_TASK`), and its job id and node.
fn task(id: &str) -> (String, String, String) {
    let o = Command::new("squeue")
        .args(["-h", "-t", "all", "-j", id, "-o", "%T|%A|%N"])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    let mut f = s.trim().split('|').map(str::to_string);
    let mut next = || f.next().unwrap_or_default();
    (next(), next(), next())
}

fn wait_until(what: &str, secs: u64, mut ok: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !ok() {
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The node dies under a running task: its slurmd, the task's step daemon and the evootter
/// process are killed, and the controller is told the node is down (as it decides by itself
/// after `SlurmdTimeout`, 30 s here). Then the node comes back.
fn kill_node_under(out: &std::path::Path, job_task: &str, row: usize) -> String {
    let (_, job, node) = task(job_task);
    let kill = |pattern: &str| {
        let _ = Command::new("pkill").args(["-9", "-f", pattern]).status();
    };
    kill(&format!("slurmd -N {node}$"));
    kill(&format!("slurmstepd: \\[{job}\\."));
    kill(&format!("{} .*--row {row}$", out.display()));
    let st = Command::new("scontrol")
        .args([
            "update",
            &format!("nodename={node}"),
            "state=down",
            "reason=killed",
        ])
        .status()
        .unwrap();
    assert!(st.success());
    wait_until("the controller marks the task NODE_FAIL", 30, || {
        task(job_task).0 == "NODE_FAIL"
    });
    let st = Command::new("/usr/sbin/slurmd")
        .args(["-N", &node])
        .status()
        .unwrap();
    assert!(st.success());
    // It returns by itself on registering (ReturnToService=2), or when told.
    let _ = Command::new("scontrol")
        .args(["update", &format!("nodename={node}"), "state=resume"])
        .output();
    wait_until("the node is idle again", 30, || {
        Command::new("sinfo")
            .args(["-h", "-n", &node, "-o", "%t"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
    });
    node
}

#[test]
fn a_killed_node_and_a_cancelled_task_lose_no_instance() {
    let _one = one_at_a_time();
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let names = ["envconf_errors", "pagekit_orphans"];
    let rows = rows_file(dir.path(), &repos, &names);
    let out = dir.path().join("batch");
    let bench = || {
        let mut c = bench_command(&rows, &repos, &out);
        c.args(["--cluster", "slurm", "--slurm-cpus-per-task", &cpus()])
            // Slurm would requeue a task of a failed node by itself: here the batch does.
            .arg("--slurm-arg=--no-requeue");
        c
    };
    let o = bench().arg("--slurm-detach").output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let job = json_of(&out.join("slurm/jobs.json"))[0]["job_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Mid-run: its session saved, its run not finished.
    let first = out.join("evootter__envconf_errors-1");
    wait_until("the first task runs and has saved its session", 60, || {
        task(&format!("{job}_0")).0 == "RUNNING" && first.join("session.json").is_file()
    });
    assert!(!first.join("instance.json").exists());
    let node = kill_node_under(&out, &format!("{job}_0"), 0);
    // The next bench marks it, submits it again, and it resumes; a task of that submission
    // cancelled from outside is submitted again by itself (--slurm-retries 1).
    let child = bench()
        .args(["--slurm-retries", "1"])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the instance is submitted again", 30, || {
        slurm_jobs(&out).len() == 2
    });
    let again = slurm_jobs(&out)[1].clone();
    wait_until("its task runs", 60, || {
        task(&format!("{again}_0")).0 == "RUNNING"
    });
    let st = Command::new("scancel")
        .arg(format!("{again}_0"))
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    let err = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "submitted again, without a result: evootter__envconf_errors-1's task {job}_0 ended node fail"
        )),
        "{err}"
    );
    assert!(
        err.contains("cancelled") && err.contains("no result: submitted again (retry 1 of 1)"),
        "{err}"
    );
    let jobs = slurm_jobs(&out);
    assert_eq!(jobs.len(), 3, "{jobs:?}");
    // The last task resumed the session the killed one saved.
    let log = std::fs::read_to_string(out.join(format!("slurm/{}_0.log", jobs[2]))).unwrap();
    assert!(
        log.contains("resumed evootter__envconf_errors-1 from its session"),
        "{log}"
    );
    for name in names {
        let r = json_of(&out.join(format!("evootter__{name}-1/report.json")));
        assert_eq!(r["f2p"]["f2p"], true, "{name}: {r:#}");
    }
    // The summary names how each instance's tasks went; the killed node's is kept.
    let s = json_of(&out.join("summary.json"));
    let line = s["cluster"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["instance_id"] == "evootter__envconf_errors-1")
        .unwrap()
        .clone();
    assert_eq!(line["submitted"], 3, "{s:#}");
    assert_eq!(line["state"], "completed", "{s:#}");
    let ledger = json_of(&out.join("slurm/tasks.json"));
    assert_eq!(
        ledger[format!("{job}_0")]["state"],
        "NODE_FAIL",
        "{ledger:#}"
    );
    assert_eq!(ledger[format!("{job}_0")]["node"], node.as_str());
    assert_eq!(ledger[format!("{}_0", jobs[1])]["state"], "CANCELLED");
}

fn slurm_jobs(out: &std::path::Path) -> Vec<String> {
    std::fs::read(out.join("slurm/jobs.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|s| s["job_id"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_batch_screen_shows_a_pending_and_a_running_task_with_its_node() {
    let _one = one_at_a_time();
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let rows = rows_file(dir.path(), &repos, &["envconf_errors", "pagekit_orphans"]);
    let out = dir.path().join("batch");
    // One task at a time: the other waits on the array's limit.
    let o = bench_command(&rows, &repos, &out)
        .args([
            "--cluster",
            "slurm",
            "--slurm-max-running",
            "1",
            "--slurm-detach",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // Both sizes at once: the first task runs for some seconds only.
    let terms: Vec<common::tmux::Tmux> = [(120, 36), (80, 24)]
        .into_iter()
        .map(|(w, h)| {
            common::tmux::Tmux::start(
                &format!("slurm-batch-{w}"),
                w,
                h,
                &format!("{} open {}", env!("CARGO_BIN_EXE_evootter"), out.display()),
            )
        })
        .collect();
    for t in &terms {
        let screen = t.wait_for("on Slurm: 1 pending, 1 running", 60);
        let running = screen
            .lines()
            .find(|l| l.contains("envconf"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(running.contains("running n"), "{screen}");
        let pending = screen
            .lines()
            .find(|l| l.contains("pagekit"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(pending.contains("pending"), "{screen}");
        // The selected row's task, in its details (a paragraph: wrapped at 80 columns).
        t.wait_for_words("Slurm task", 5);
        // The pending row's reason, in its detail.
        t.keys(&["j"]);
        t.wait_for_words("pending (JobArrayTaskLimit)", 10);
    }
    let o = bin()
        .args(["bench", "--cancel"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// Nothing else changes on a node: a task runs its executions in the Docker backend as a
/// local bench does.
#[test]
fn a_task_runs_its_executions_in_docker_as_a_local_bench_does() {
    let _one = one_at_a_time();
    if !cluster_up() || !common::docker::docker_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let rows = rows_file(dir.path(), &repos, &["pagekit_orphans"]);
    let out = dir.path().join("batch");
    let image = common::docker::image();
    let o = bench_command(&rows, &repos, &out)
        .args(["--backend", "docker", "--image", &image, "--jobs", "2"])
        .args(["--cluster", "slurm"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("its result written (F2P yes)"),
        "{}",
        text(&o)
    );
    let id = "evootter__pagekit_orphans-1";
    let session = std::fs::read_to_string(out.join(id).join("session.json")).unwrap();
    assert!(session.contains(&image), "the run used the image");
    let script = std::fs::read_to_string(out.join("slurm/job.sh")).unwrap();
    assert!(script.contains("--backend docker"), "{script}");
}

/// A task over its time limit (a model call that does not come back): Slurm ends it, the
/// following bench submits it again (`--slurm-retries 1`), and it resumes its session: no
/// call answered before is asked again.
#[test]
fn a_task_over_its_time_limit_is_submitted_again_and_pays_no_call_twice() {
    use crate::mock_http::scripted::{Wire, serve_script_stalling_times};
    let _one = one_at_a_time();
    if !cluster_up() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let rows = rows_file(dir.path(), &repos, &["envconf_errors"]);
    let out = dir.path().join("batch");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let script = root().join("examples/envconf_errors/llm_script.json");
    // The first crossover call is never answered; asked again, it is.
    let server = rt.block_on(serve_script_stalling_times(
        &script,
        Wire::Anthropic,
        Some("parent tests meant to reproduce it"),
        1,
    ));
    let mut c = bench_command(&rows, &repos, &out);
    c
        // Slurm's smallest limit: a minute (it ends the task within a few seconds after).
        .args([
            "--cluster",
            "slurm",
            "--slurm-time=0:01",
            "--slurm-retries",
            "1",
        ]);
    Wire::Anthropic.talk(
        &mut c,
        &server.base_url,
        crate::workflow_http::KEY,
        dir.path(),
    );
    let o = c.output().unwrap();
    let err = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("timeout on n") && err.contains("no result: submitted again (retry 1 of 1)"),
        "{err}"
    );
    assert!(err.contains("its result written (F2P yes)"), "{err}");
    let jobs = slurm_jobs(&out);
    assert_eq!(jobs.len(), 2, "{jobs:?}");
    let log = std::fs::read_to_string(out.join(format!("slurm/{}_0.log", jobs[1]))).unwrap();
    assert!(
        log.contains("resumed evootter__envconf_errors-1 from its session"),
        "{log}"
    );
    // Every call the session holds was asked once; the stalled one twice.
    let session = read_json(&out.join("evootter__envconf_errors-1/session.json"));
    let held = session["llm_calls"].as_array().unwrap().len();
    assert_eq!(
        server.count(),
        held + 1,
        "asked {} for {held}",
        server.count()
    );
    let ledger = read_json(&out.join("slurm/tasks.json"));
    assert_eq!(
        ledger[format!("{}_0", jobs[0])]["state"],
        "TIMEOUT",
        "{ledger:#}"
    );
    // The API key is in no file the batch wrote.
    let script_text = std::fs::read_to_string(out.join("slurm/job.sh")).unwrap();
    assert!(!script_text.contains(crate::workflow_http::KEY));
    assert!(!log.contains(crate::workflow_http::KEY));
}
