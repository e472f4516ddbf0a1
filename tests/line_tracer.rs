//! The line tracer on each mechanism it has: `sys.settrace` before Python 3.12, a
//! `sys.monitoring` tool of its own from 3.12 on (pyenv's 3.12 and 3.13 where the machine has
//! them; `.ci/setup` gives them pytest), cold and warm. On each: exactly the lines that ran
//! (threads included), the log, statuses and outcome of the untraced run, and a test's own
//! trace function, profiler and monitoring tool working as without the tracer. On 3.12+ the
//! two mechanisms record the same lines (a conftest that takes every tool id leaves the
//! tracer only `sys.settrace`).

use crate::common;
use common::exec::{executor_with, request};
use evootter::exec::{ExecRequest, ExecResult, Executor, LocalExecutor, PythonEnv, Tracer};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIB: &str = "\
def classify(n):
    if n < 0:
        return \"negative\"
    total = 0
    for i in range(n):
        total += i
    return total


def never():
    return 1

def in_thread():
    return \"t\"
";

/// The lines of `LIB` that the tests below run: the module's statements (imported while
/// collecting), each function's first line and body; never `never`'s body.
const RAN: [u32; 10] = [1, 2, 3, 4, 5, 6, 7, 10, 13, 14];

const TEST: &str = r#"
import sys
import threading

import pytest

from lib.calc import classify, in_thread


def test_negative():
    assert classify(-1) == "negative"


def test_a_thread_is_traced():
    out = []
    t = threading.Thread(target=lambda: out.append(in_thread()))
    t.start()
    t.join()
    assert out == ["t"]


def test_its_own_trace_function_is_kept():
    seen = []

    def mine(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)
        return None

    sys.settrace(mine)
    try:
        classify(0)
        assert sys.gettrace() is mine
    finally:
        sys.settrace(None)
    assert "classify" in seen


def test_its_own_profiler_sees_calls():
    seen = []
    sys.setprofile(lambda frame, event, arg: seen.append((event, frame.f_code.co_name)))
    try:
        classify(1)
    finally:
        sys.setprofile(None)
    assert ("call", "classify") in seen


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is 3.12+")
def test_its_own_monitoring_tool_sees_starts():
    mon = sys.monitoring
    if mon.get_tool(mon.PROFILER_ID) is not None:
        pytest.skip(f"the profiler id is taken by {mon.get_tool(mon.PROFILER_ID)}")
    seen = []
    mon.use_tool_id(mon.PROFILER_ID, "the test's own")
    try:
        mon.register_callback(mon.PROFILER_ID, mon.events.PY_START, lambda code, off: seen.append(code.co_name))
        mon.set_events(mon.PROFILER_ID, mon.events.PY_START)
        classify(2)
    finally:
        mon.set_events(mon.PROFILER_ID, 0)
        mon.register_callback(mon.PROFILER_ID, mon.events.PY_START, None)
        mon.free_tool_id(mon.PROFILER_ID)
    assert "classify" in seen


def test_fails_on_the_loop():
    assert classify(3) == 4
"#;

/// Takes every `sys.monitoring` tool id before pytest configures its plugins, so the tracer
/// can only fall back to `sys.settrace`.
const TAKE_EVERY_TOOL_ID: &str = "\
import sys

if hasattr(sys, \"monitoring\"):
    for tool in range(6):
        if sys.monitoring.get_tool(tool) is None:
            sys.monitoring.use_tool_id(tool, \"a conftest's\")
";

/// The interpreters to check: Debian's and the default (before 3.12), and every pyenv 3.12+.
/// Returns them with whether they are 3.12+.
fn interpreters() -> Vec<(PathBuf, bool)> {
    let mut envs: Vec<PythonEnv> = vec![];
    if let Ok(env) = evootter::exec::resolve_python(Some(Path::new("/usr/bin/python3"))) {
        envs.push(env);
    }
    envs.push(evootter::exec::resolve_python(None).expect("python3 with pytest"));
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(versions) = pyenv.map(|p| p.join("versions")) {
        let mut newer: Vec<PathBuf> = std::fs::read_dir(&versions)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| at_least_3_12(&e.file_name().to_string_lossy()))
            .map(|e| e.path().join("bin/python3"))
            .filter(|p| p.is_file())
            .collect();
        newer.sort();
        for p in newer {
            envs.push(
                evootter::exec::resolve_python(Some(&p)).unwrap_or_else(|e| {
                    panic!(
                        "{}: {e} (`bash .ci/setup` installs pytest there)",
                        p.display()
                    )
                }),
            );
        }
    }
    envs.dedup_by(|a, b| a.path == b.path);
    envs.into_iter()
        .map(|env| {
            let newer = at_least_3_12(&env.version);
            (env.path, newer)
        })
        .collect()
}

/// Whether a version (`3.12.1`, or a pyenv directory named so) is 3.12 or newer.
fn at_least_3_12(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    matches!((parts.next(), parts.next()), (Some(Some(3)), Some(Some(m))) if m >= 12)
}

fn repo(dir: &Path, conftest: Option<&str>) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("lib")).unwrap();
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("lib/__init__.py"), "").unwrap();
    std::fs::write(repo.join("lib/calc.py"), LIB).unwrap();
    if let Some(c) = conftest {
        std::fs::write(repo.join("conftest.py"), c).unwrap();
    }
    repo
}

fn traced(mut r: ExecRequest) -> ExecRequest {
    r.trace = vec!["lib/calc.py".into()];
    r.tracer = Tracer::Lines;
    r
}

/// Runs the test untraced and traced; checks what the tracer must never change, and returns
/// the traced run.
async fn run_both(ex: &LocalExecutor, what: &str) -> ExecResult {
    let base = request("tests/test_calc.py", TEST, Duration::from_secs(60));
    let plain = ex.run(base.clone()).await.unwrap();
    let t = ex.run(traced(base)).await.unwrap();
    assert_eq!(plain.trace, None, "{what}");
    assert_eq!(t.outcome, plain.outcome, "{what}");
    assert_eq!(t.normalized_log, plain.normalized_log, "{what}");
    assert_eq!(t.status_map, plain.status_map, "{what}");
    assert_eq!(t.exception, plain.exception, "{what}");
    t
}

#[tokio::test(flavor = "multi_thread")]
async fn each_tracer_records_exactly_what_ran_and_changes_nothing_a_test_sees() {
    let interpreters = interpreters();
    let newer = interpreters.iter().filter(|(_, n)| *n).count();
    if newer == 0 {
        eprintln!("no Python 3.12+ on this machine: sys.monitoring is not checked here");
    }
    for (python, is_newer) in &interpreters {
        eprintln!(
            "{}: {}",
            python.display(),
            if *is_newer {
                "sys.monitoring, and sys.settrace with every tool id taken"
            } else {
                "sys.settrace"
            }
        );
        for warm in [false, true] {
            let what = format!(
                "{} ({})",
                python.display(),
                if warm { "warm" } else { "cold" }
            );
            let dir = tempfile::tempdir().unwrap();
            let ex = executor_with(python, &repo(dir.path(), None), vec![".".into()], 1, warm);
            let t = run_both(&ex, &what).await;
            assert_eq!(
                t.lines_of("lib/calc.py").unwrap(),
                RAN,
                "{what}\n{}",
                t.raw_log
            );
            let statuses: Vec<(&str, &str)> = t
                .status_map
                .iter()
                .map(|(k, v)| (k.rsplit("::").next().unwrap(), v.as_str()))
                .collect();
            assert!(
                statuses.contains(&("test_fails_on_the_loop", "FAILED")),
                "{what}: {statuses:?}"
            );
            for (name, status) in &statuses {
                let expected = match *name {
                    "test_fails_on_the_loop" => "FAILED",
                    "test_its_own_monitoring_tool_sees_starts" if !is_newer => "SKIPPED",
                    _ => "PASSED",
                };
                assert_eq!(*status, expected, "{what}: {name}\n{}", t.raw_log);
            }
            assert_eq!(statuses.len(), 6, "{what}: {statuses:?}");

            if *is_newer {
                // Every tool id taken: the tracer falls back to sys.settrace on the same
                // interpreter and records the same lines; the test's own monitoring tool
                // finds its id taken and says so.
                let dir = tempfile::tempdir().unwrap();
                let ex = executor_with(
                    python,
                    &repo(dir.path(), Some(TAKE_EVERY_TOOL_ID)),
                    vec![".".into()],
                    1,
                    warm,
                );
                let s = run_both(&ex, &format!("{what}, every tool id taken")).await;
                assert_eq!(
                    s.lines_of("lib/calc.py").unwrap(),
                    RAN,
                    "{what}\n{}",
                    s.raw_log
                );
                assert!(
                    s.status_map.iter().any(|(k, v)| k
                        .ends_with("test_its_own_monitoring_tool_sees_starts")
                        && v == "SKIPPED"),
                    "{what}: {:?}",
                    s.status_map
                );
            }
        }
    }
}
