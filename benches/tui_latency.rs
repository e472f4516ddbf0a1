//! Key press to drawn frame while 2 pytest workers run: `evootter demo` in tmux, `r` starts the
//! run (the model's scripted steps, then real pytest executions on two workers), and while it
//! executes, screen-switching keys are sent; the TUI records, per key, the time from reading it
//! to the end of the frame drawn after it (`EVOOTTER_TRACE_FRAMES`). Reported: median and p99,
//! and the same with the run idle, measured in the same run. Needs tmux and Python with pytest.
//!
//! `cargo bench --bench tui_latency [-- KEYS]`.

use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let o = Command::new("tmux").args(args).output().expect("tmux");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn wait_for(session: &str, text: &str, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !tmux(&["capture-pane", "-p", "-t", session]).contains(text) {
        assert!(Instant::now() < deadline, "`{text}` never appeared");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn percentile(v: &mut [u64], p: f64) -> f64 {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0
}

/// Sends `n` keys, 60 ms apart, and returns the latencies the TUI traced for them.
fn press(session: &str, trace: &std::path::Path, n: usize) -> Vec<u64> {
    // The TUI holds the file open for appending: count what is there, keep what comes after.
    let seen = std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .count();
    for i in 0..n {
        let key = ["Tab", "BTab"][i % 2];
        tmux(&["send-keys", "-t", session, key]);
        std::thread::sleep(Duration::from_millis(60));
    }
    std::thread::sleep(Duration::from_millis(300));
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .skip(seen)
        .filter_map(|l| l.parse().ok())
        .collect()
}

fn main() {
    let keys: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(150);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("frames.txt");
    let bin = env!("CARGO_BIN_EXE_evootter");
    let session = format!("evootter-latency-{}", std::process::id());
    let cmd = format!(
        "cd {} && EVOOTTER_TRACE_FRAMES={} {bin} demo --out {} --force; sleep 600",
        env!("CARGO_MANIFEST_DIR"),
        trace.display(),
        dir.path().join("demo").display()
    );
    let st = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-s",
            &session,
            "-x",
            "160",
            "-y",
            "48",
            &cmd,
        ])
        .status()
        .unwrap();
    assert!(st.success());
    wait_for(&session, "SCRIPTED", 60);
    let mut idle = press(&session, &trace, keys / 3);
    tmux(&["send-keys", "-t", &session, "r"]);
    // The executions of generation 0 start after the scripted model steps and Mutate.
    wait_for(&session, "execute (generation 0)", 120);
    let mut busy = press(&session, &trace, keys);
    tmux(&["kill-session", "-t", &session]);
    assert!(!busy.is_empty() && !idle.is_empty(), "no frames traced");
    println!(
        "key -> frame, {} keys while generation 0 executes on 2 workers: median {:.2} ms, \
         p99 {:.2} ms",
        busy.len(),
        percentile(&mut busy, 0.5),
        percentile(&mut busy, 0.99)
    );
    println!(
        "key -> frame, {} keys with the run idle: median {:.2} ms, p99 {:.2} ms",
        idle.len(),
        percentile(&mut idle, 0.5),
        percentile(&mut idle, 0.99)
    );
}
