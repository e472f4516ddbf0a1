//! SIGTERM (like Ctrl-C) mid-execution: the running pytest processes are killed, the session
//! is saved, the exit code is 130, and `--resume` finishes the run.

mod common;
use common::*;
use std::time::{Duration, Instant};

#[test]
fn sigterm_kills_pytest_saves_and_resumes() {
    let marker = format!("interrupt_{}", std::process::id());
    let tiny = Tiny::new(&[
        (
            &format!("test_a_{marker}.py"),
            "import time\nfrom calc.ops import clamp\n\ndef test_slow():\n    time.sleep(30)\n    assert clamp(15, 0, 10) == 10\n",
        ),
        (
            "test_b.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
    ]);
    let events = tiny.out("events.jsonl");
    let child = bin()
        .args([
            "run",
            "--focal",
            "calc/ops.py::clamp",
            "--mutants",
            "2",
            "--timeout",
            "4",
        ])
        .arg("--repo")
        .arg(&tiny.repo)
        .arg("--issue")
        .arg(tiny.dir.path().join("issue.md"))
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .arg("--out")
        .arg(tiny.out("out"))
        .arg("--events")
        .arg(&events)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while processes_mentioning(&marker).is_empty() {
        assert!(Instant::now() < deadline, "the slow test never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    assert!(
        processes_mentioning(&marker).is_empty(),
        "{:?}",
        processes_mentioning(&marker)
    );
    let saved = read_json(&tiny.out("out").join("session.json"));
    assert_eq!(saved["phase"]["step"], "execute");

    // The event log is JSON lines a tool can replay.
    let lines = std::fs::read_to_string(&events).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"], "step_started");

    let o = bin()
        .arg("run")
        .arg("--resume")
        .arg(tiny.out("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let done = read_json(&tiny.out("out").join("report.json"));
    assert_eq!(done["phase"], "done");
    assert_eq!(done["final_test_id"], "t2");
}
