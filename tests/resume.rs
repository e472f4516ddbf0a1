//! Killing a run mid-way loses at most the executions in flight: `--resume` finishes it and
//! runs nothing twice.

use crate::common;
use common::*;
use std::time::{Duration, Instant};

fn executions(session: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    session["executions"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn resume_after_kill_finishes_without_rerunning_anything() {
    let ex = &examples()[0];
    let out_dir = tempfile::tempdir().unwrap();
    let session_path = out_dir.path().join("session.json");
    let mut child = bin()
        .args(["run", "--jobs", "1", "--instance"])
        .arg(ex)
        .arg("--out")
        .arg(out_dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "run never got to 12 executions");
        assert!(
            child.try_wait().unwrap().is_none(),
            "run finished before it could be killed"
        );
        if let Ok(t) = std::fs::read_to_string(&session_path)
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&t)
            && executions(&v).len() >= 12
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let killed = read_json(&session_path);
    let before = executions(&killed);
    assert_ne!(killed["phase"]["step"], "done");

    let out = bin()
        .arg("run")
        .arg("--resume")
        .arg(&session_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let done = read_json(&session_path);
    assert_eq!(done["phase"]["step"], "done");
    let after = executions(&done);
    // Every execution finished before the kill is kept as it was (same process, same order
    // number): none was run again.
    for (k, e) in &before {
        assert_eq!(after.get(k), Some(e), "execution {k} changed on resume");
    }
    let resumed_pids: std::collections::BTreeSet<u64> = after
        .values()
        .filter(|e| !before.values().any(|b| b == *e))
        .map(|e| e["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(resumed_pids.len(), 1, "the rest ran in the resumed process");
    let seqs: std::collections::BTreeSet<u64> =
        after.values().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs.len(), after.len(), "one record per execution");
    let r = read_json(&out_dir.path().join("report.json"));
    assert!(r["final_test"].is_string());
}
