//! SIGTERM (like Ctrl-C) mid-execution: the running pytest processes are killed, the session
//! is saved, the exit code is 130, and `--resume` finishes the run.

use crate::common;
use common::*;
use std::time::{Duration, Instant};

/// A run on the tiny repo whose first candidate sleeps in pytest (its file name holds
/// `marker`), started in the background.
fn start_with_a_slow_test(tiny: &Tiny, marker: &str, extra: &[&str]) -> std::process::Child {
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
        .args(extra)
        .arg("--repo")
        .arg(&tiny.repo)
        .arg("--issue")
        .arg(tiny.dir.path().join("issue.md"))
        .arg("--initial-tests")
        .arg(&tiny.cands)
        .arg("--out")
        .arg(tiny.out("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while processes_mentioning(marker).is_empty() {
        assert!(Instant::now() < deadline, "the slow test never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn slow_tiny(marker: &str) -> Tiny {
    Tiny::new(&[
        (
            &format!("test_a_{marker}.py"),
            &format!(
                "import subprocess\nfrom calc.ops import clamp\n\ndef test_slow():\n    subprocess.run(['sleep', '31.{}'])\n    assert clamp(15, 0, 10) == 10\n",
                std::process::id()
            ),
        ),
        (
            "test_b.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
    ])
}

/// SIGKILL leaves evootter no chance to clean up: the kernel's parent-death signal ends the
/// run's supervisor, which takes pytest and everything it started with it, so no test keeps
/// running (or writing) after its owner died.
#[test]
fn sigkill_takes_the_running_pytest_with_it() {
    sigkill_case("cold");
}

/// The same with the warm executor: its interpreters go too.
#[test]
fn sigkill_takes_the_warm_interpreters_with_it() {
    sigkill_case("warm");
}

fn sigkill_case(executor: &str) {
    // The test body starts a uniquely named sleep, so the wait below is for pytest really
    // running the test (not for a launcher such as a pyenv shim still starting it).
    let marker = format!("30.{}{}", std::process::id(), u8::from(executor == "warm"));
    let slow = format!(
        "import subprocess\n\ndef test_slow():\n    subprocess.run(['sleep', '{marker}'])\n"
    );
    let tiny = Tiny::new(&[
        ("test_a_slow.py", slow.as_str()),
        (
            "test_b.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
    ]);
    let mut child =
        start_with_a_slow_test(&tiny, &format!("sleep {marker}"), &["--executor", executor]);
    // The run's own processes: pytest by its test file (cold), or the zygotes, whose script
    // lives in the run root named after evootter's pid (warm).
    let own = if executor == "cold" {
        "test_a_slow.py".to_owned()
    } else {
        format!("evootter-{}-", child.id())
    };
    assert!(!processes_mentioning(&own).is_empty(), "{own}");
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = [processes_mentioning(&marker), processes_mentioning(&own)].concat();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "outlived evootter: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sigterm_kills_pytest_saves_and_resumes() {
    let marker = format!("interrupt_{}", std::process::id());
    let tiny = slow_tiny(&marker);
    let events = tiny.out("events.jsonl");
    let child = start_with_a_slow_test(
        &tiny,
        &format!("sleep 31.{}", std::process::id()),
        &["--events", events.to_str().unwrap()],
    );
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
