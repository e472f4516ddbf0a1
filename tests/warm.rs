//! The warm executor (one interpreter per worker, forked per execution) against the cold one:
//! the same normalized logs, outcomes and statuses on every bundled example's candidates on
//! `c_old` and on mutants, the same whole run, and an interpreter that survives a hanging
//! test, kills what a test left running, and is replaced when a test kills it.

use crate::common;
use common::exec::{decisions, executor_with, request, run_all};
use common::*;
use evootter::exec::zygote::tail;
use evootter::exec::{ExecRequest, ExecResult, Executor, FileOverride, LocalExecutor, Outcome};
use evootter::instance::Instance;
use evootter::testkit;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn python() -> PathBuf {
    evootter::exec::resolve_python(None)
        .expect("python3 with pytest")
        .path
}

/// The interpreters the equality test runs under: the default one and, where it is another
/// with pytest, Debian's (pytest 7, the Docker image's): the zygote's shortcuts differ by
/// pytest version.
fn interpreters() -> Vec<PathBuf> {
    let mut v = vec![python()];
    if let Ok(env) = evootter::exec::resolve_python(Some(Path::new("/usr/bin/python3")))
        && !v.contains(&env.path)
    {
        v.push(env.path);
    }
    v
}

fn executor(repo: &Path, pythonpath: Vec<String>, jobs: usize, warm: bool) -> LocalExecutor {
    executor_with(&python(), repo, pythonpath, jobs, warm)
}

/// One request on a fresh cold executor and a fresh warm one (one worker each), for `repo`
/// with its root on the path.
async fn cold_and_warm(python: &Path, repo: &Path, req: ExecRequest) -> (ExecResult, ExecResult) {
    let cold = executor_with(python, repo, vec![".".into()], 1, false)
        .run(req.clone())
        .await
        .unwrap();
    let warm = executor_with(python, repo, vec![".".into()], 1, true)
        .run(req)
        .await
        .unwrap();
    (cold, warm)
}

fn summary(r: &ExecResult) -> (String, String, String, Vec<String>) {
    (
        format!("{:?}", r.outcome),
        r.normalized_log.clone(),
        format!("{:?}", r.status_map),
        r.changed.clone(),
    )
}

/// One request on a long-lived cold executor and a long-lived warm one (what the zygote
/// learned from earlier requests in play); asserts they agree and returns (cold, warm).
async fn agree(
    cold: &LocalExecutor,
    warm: &LocalExecutor,
    req: ExecRequest,
    run: &str,
) -> (ExecResult, ExecResult) {
    let c = cold.run(req.clone()).await.unwrap();
    let w = warm.run(req).await.unwrap();
    assert_eq!(
        summary(&w),
        summary(&c),
        "{run}: warm and cold differ\n--- warm\n{}\n--- cold\n{}",
        w.raw_log,
        c.raw_log
    );
    (c, w)
}

async fn warm_and_cold_runs_log_the_same_on(example: &str) {
    let ex = common::example(example);
    for python in interpreters() {
        same_warm_and_cold(&python, &ex).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn warm_and_cold_runs_log_the_same_on_billcycle_proration() {
    warm_and_cold_runs_log_the_same_on(EXECUTOR_EXAMPLES[0]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn warm_and_cold_runs_log_the_same_on_envconf_errors() {
    warm_and_cold_runs_log_the_same_on(EXECUTOR_EXAMPLES[1]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn warm_and_cold_runs_log_the_same_on_ministats_missing() {
    warm_and_cold_runs_log_the_same_on(EXECUTOR_EXAMPLES[2]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn warm_and_cold_runs_log_the_same_on_pagekit_orphans() {
    warm_and_cold_runs_log_the_same_on(EXECUTOR_EXAMPLES[3]).await;
}

async fn same_warm_and_cold(python: &Path, ex: &Path) {
    {
        let inst = Instance::load(ex).unwrap();
        let pool =
            evootter::mutate::generate(&inst.repo, &inst.focal, 20, 1, Default::default()).unwrap();
        let mut variants = vec![vec![]];
        // Two mutants per example: every candidate's log changes on them, which is what the
        // comparison needs; more repeat it (this test is the suite's longest).
        for m in pool.mutants.iter().take(2) {
            variants.push(vec![testkit::mutant_override(&inst.repo, m)]);
        }
        let mut requests = testkit::requests(&inst, &variants, Duration::from_secs(60));
        // A traced run, as the pair explanation and coverage make them.
        let mut traced = requests[1].clone();
        traced.trace = vec![pool.mutants[0].file.clone()];
        requests.push(traced);
        let pythonpath = inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]);
        let cold = Arc::new(executor_with(
            python,
            &inst.repo,
            pythonpath.clone(),
            2,
            false,
        ));
        let warm = Arc::new(executor_with(python, &inst.repo, pythonpath, 2, true));
        let t = Instant::now();
        let expected = run_all(cold.clone(), &requests).await;
        let cold_time = t.elapsed();
        let t = Instant::now();
        let got = run_all(warm.clone(), &requests).await;
        let warm_time = t.elapsed();
        println!(
            "{} ({}): {} runs, cold {:.1} s, warm {:.1} s; {}",
            inst.name,
            python.display(),
            requests.len(),
            cold_time.as_secs_f64(),
            warm_time.as_secs_f64(),
            warm.describe()
        );
        for (i, (a, b)) in expected.iter().zip(&got).enumerate() {
            assert_eq!(
                summary(a),
                summary(b),
                "{} ({}): request {i} ({}) differs between cold and warm\n--- warm raw log\n{}",
                inst.name,
                python.display(),
                requests[i].test.rel_path,
                b.raw_log
            );
            assert_eq!(
                a.trace, b.trace,
                "{}: request {i}: traces differ",
                inst.name
            );
        }
        assert!(
            got.last().unwrap().trace.is_some(),
            "the traced run has a trace"
        );
    }
}

/// `run --executor warm` and `--executor cold` decide the same run on the demo instance.
#[test]
fn a_warm_run_decides_what_a_cold_run_decides() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &Path, executor: &str| {
        let o = bin()
            .args([
                "run",
                "--instance",
                "examples/envconf_errors",
                "--jobs",
                "2",
                // Samples of 2, 4 and 8 mutants: about 75 executions (witness runs among
                // them), every step of a run; more repeat what the per-example equality tests
                // compare.
                "--mutants",
                "4",
            ])
            .args(["--executor", executor])
            .arg("--out")
            .arg(out)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{executor}: {}", text(&o));
    };
    let cold = dir.path().join("cold");
    let warm = dir.path().join("warm");
    run(&cold, "cold");
    run(&warm, "warm");
    let executor = |p: &Path| read_json(&p.join("session.json"))["config"]["executor"].clone();
    assert_eq!(executor(&cold), "cold");
    assert_eq!(executor(&warm), "warm");
    let (a, b) = (
        decisions(&cold.join("session.json")),
        decisions(&warm.join("session.json")),
    );
    assert!(a["executions"].as_object().unwrap().len() > 60);
    for k in ["generations", "final_test", "evaluation", "executions"] {
        assert_eq!(a[k], b[k], "{k} differs between cold and warm");
    }
}

const CLAMP_TEST: &str =
    "from calc.ops import clamp\n\ndef test_clamp():\n    assert clamp(15, 0, 10) == 10\n";

/// A hanging test is killed at its timeout with what it started; the interpreter survives
/// and the next run is a normal one.
#[tokio::test(flavor = "multi_thread")]
async fn a_hanging_test_ends_at_its_timeout_and_the_interpreter_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let warm = executor(&repo, vec![".".into()], 1, true);
    let marker = format!("evootter-warm-orphan-{}", std::process::id());
    // A process in a session of its own, its marker in its command line, which the test's
    // process group kill does not reach: only the zygote's reaping can end it.
    let detached = format!(
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', '{marker}'], \
         start_new_session=True)"
    );
    let hang = format!(
        "import subprocess, sys, time\n\ndef test_hang():\n    {detached}\n    time.sleep(1000)\n"
    );
    let t = Instant::now();
    let r = warm
        .run(request("tests/test_hang.py", &hang, Duration::from_secs(2)))
        .await
        .unwrap();
    assert_eq!(r.outcome, Outcome::Timeout, "{}", r.raw_log);
    assert!(t.elapsed() < Duration::from_secs(12), "{:?}", t.elapsed());
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        processes_mentioning(&marker).is_empty(),
        "a process of the run survived"
    );
    let ok = warm
        .run(request(
            "tests/test_ok.py",
            CLAMP_TEST,
            Duration::from_secs(30),
        ))
        .await
        .unwrap();
    // The tiny repository's bug, as a cold run reports it.
    assert_eq!(ok.outcome, Outcome::Failed, "{}", ok.raw_log);
    assert!(ok.raw_log.contains("assert 9 == 10"), "{}", ok.raw_log);
    // A detached child of a test that passed is gone too.
    let detach = format!("import subprocess, sys\n\ndef test_detach():\n    {detached}\n");
    let d = warm
        .run(request(
            "tests/test_detach.py",
            &detach,
            Duration::from_secs(30),
        ))
        .await
        .unwrap();
    assert_eq!(d.outcome, Outcome::Passed, "{}", d.raw_log);
    assert!(
        processes_mentioning(&marker).is_empty(),
        "a detached process survived"
    );
}

/// The zygote reads a run's log in batches (once a tick while it trickles in): a test whose
/// output pours out is read as fast as it writes, and its log, cut where a cold run's is cut,
/// is a cold run's. 24 MB read at the trickle's pace (64 KiB a tick) would take about 10 s,
/// past the run's timeout.
#[tokio::test(flavor = "multi_thread")]
async fn a_test_that_writes_much_is_read_as_fast_as_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    // `-rA` repeats a passing test's captured output in the summary: 24 MB in one write.
    let chatty = "def test_pours():\n    print(('x' * 99 + '\\n') * 240000)\n";
    let req = request("tests/test_chatty.py", chatty, Duration::from_secs(6));
    let (cold, warm) = cold_and_warm(&python(), &repo, req).await;
    assert_eq!(cold.outcome, Outcome::Passed, "cold{}", tail(&cold.raw_log));
    assert_eq!(warm.outcome, Outcome::Passed, "warm{}", tail(&warm.raw_log));
    assert!(
        warm.raw_log.contains("log truncated"),
        "an 8 MiB log is cut"
    );
    assert_eq!(summary(&warm), summary(&cold));
}

/// A test that kills the interpreter it was forked from: the interpreter is replaced and the
/// run retried once; when the retry kills it again, the run is an error, not a result.
#[tokio::test(flavor = "multi_thread")]
async fn a_test_that_kills_its_interpreter_is_an_error_not_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let warm = executor(&repo, vec![".".into()], 1, true);
    let killer =
        "import os, signal\n\ndef test_kill():\n    os.kill(os.getppid(), signal.SIGKILL)\n";
    let err = warm
        .run(request(
            "tests/test_kill.py",
            killer,
            Duration::from_secs(30),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("the warm interpreter died twice during this execution")
            && err.ends_with("`--executor cold` runs without it"),
        "{err}"
    );
    // The worker is usable again, with a new interpreter, and its copy is pristine.
    let ok = warm
        .run(request(
            "tests/test_ok.py",
            CLAMP_TEST,
            Duration::from_secs(30),
        ))
        .await
        .unwrap();
    assert_eq!(ok.outcome, Outcome::Failed, "{}", ok.raw_log);
    assert!(ok.raw_log.contains("assert 9 == 10"), "{}", ok.raw_log);
}

/// Every warm run gets a network namespace of its own where cold runs do: a port one run
/// left in TIME_WAIT does not stop the next run of the same worker from binding it.
#[tokio::test(flavor = "multi_thread")]
async fn a_port_left_in_time_wait_does_not_reach_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let test = "import socket\n\n\
                def test_time_wait():\n    \
                    srv = socket.socket()\n    \
                    srv.bind(('127.0.0.1', 47613))\n    \
                    srv.listen(1)\n    \
                    cli = socket.create_connection(('127.0.0.1', 47613))\n    \
                    conn, _ = srv.accept()\n    \
                    conn.close()\n    \
                    cli.close()\n    \
                    srv.close()\n";
    let cold = executor(&repo, vec![".".into()], 1, false);
    let warm = executor(&repo, vec![".".into()], 1, true);
    if !cold.protections().network_namespace() {
        eprintln!("SKIPPED: no network namespaces here, so cold runs share the host's too");
        return;
    }
    for exec in [&cold, &warm] {
        for round in 0..2 {
            let r = exec
                .run(request("tests/test_tw.py", test, Duration::from_secs(30)))
                .await
                .unwrap();
            assert_eq!(
                r.outcome,
                Outcome::Passed,
                "{}, round {round}: {}",
                exec.describe(),
                r.raw_log
            );
        }
    }
}

/// What a run leaves for the interpreter's end (an atexit callback, a thread still running,
/// a file written and never closed, an object whose `__del__` prints) shows the same warm as
/// cold: the warm child ends without tearing down every object, but not without these.
#[tokio::test(flavor = "multi_thread")]
async fn the_end_of_a_run_is_the_same_warm_and_cold() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let leftovers = "import atexit, threading, time\n\n\
        atexit.register(lambda: print('atexit callback ran'))\n\n\
        def test_leaves_things_behind():\n    \
            def late():\n        time.sleep(0.3)\n        print('late thread finished')\n    \
            threading.Thread(target=late).start()\n    \
            global KEPT\n    KEPT = open('written_at_exit.txt', 'w')\n    KEPT.write('x' * 100)\n";
    let noisy = "class Noisy:\n    def __del__(self):\n        print('deleted at exit')\n\n\
        KEPT = Noisy()\n\ndef test_ok():\n    pass\n";
    let mut seen = vec![];
    for (content, shows) in [
        (
            leftovers,
            &["atexit callback ran", "late thread finished"][..],
        ),
        (noisy, &["deleted at exit"][..]),
    ] {
        for python in interpreters() {
            let req = request("tests/test_end.py", content, Duration::from_secs(30));
            let (cold, warm) = cold_and_warm(&python, &repo, req).await;
            for s in shows {
                assert!(cold.raw_log.contains(s), "cold: {s}\n{}", cold.raw_log);
            }
            assert_eq!(
                summary(&warm),
                summary(&cold),
                "{}: {content}",
                python.display()
            );
            assert_eq!(warm.exit_code, cold.exit_code);
            seen.push(cold.changed.clone());
        }
    }
    // The file written and never closed is among the copy's changes.
    assert!(
        seen[0].iter().any(|c| c.contains("written_at_exit.txt")),
        "{seen:?}"
    );
}

/// Nothing of the zygote's is importable by a test: the repository's own modules named like
/// the zygote's (`main`, `protocol`, `state`, `stage`) are the ones a warm run imports, and
/// the zygote's package is neither loaded nor found, as in a cold run.
#[tokio::test(flavor = "multi_thread")]
async fn a_repository_s_modules_named_like_the_zygote_s_are_the_ones_imported() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    for name in ["main", "protocol", "state", "stage", "watch"] {
        std::fs::write(
            repo.join(format!("{name}.py")),
            format!("WHO = 'repo {name}'\n"),
        )
        .unwrap();
    }
    let test = "import importlib, importlib.util, sys\n\n\
        def test_imports():\n    \
            for name in ['main', 'protocol', 'state', 'stage', 'watch']:\n        \
                print(name, importlib.import_module(name).WHO)\n    \
            print('loaded', sorted(n for n in sys.modules if 'zygote' in n))\n    \
            print('found', importlib.util.find_spec('evootter_zygote'))\n    \
            assert False\n";
    for python in interpreters() {
        let req = request("tests/test_names.py", test, Duration::from_secs(30));
        let (cold, warm) = cold_and_warm(&python, &repo, req).await;
        for name in ["main", "protocol", "state", "stage", "watch"] {
            assert!(
                warm.raw_log.contains(&format!("{name} repo {name}")),
                "{}\n{}",
                python.display(),
                warm.raw_log
            );
        }
        assert!(warm.raw_log.contains("loaded []"), "{}", warm.raw_log);
        assert!(warm.raw_log.contains("found None"), "{}", warm.raw_log);
        assert_eq!(summary(&warm), summary(&cold), "{}", python.display());
    }
}

/// What a test prints about the fixtures it can see: every fixture name with its scope and
/// function (pytest 7 and 9 keep them in different places).
const FIXTURE_LISTING: &str = r#"
def test_lists_fixtures(request):
    fm = request._fixturemanager
    names = set()
    for attr in ("_arg2fixturedefs", "_arg2node2fixturedefs", "_arg2nodeid2fixturedefs"):
        names.update(getattr(fm, attr, {}))
    lines = []
    for name in sorted(names):
        try:
            defs = fm.getfixturedefs(name, request.node)
        except (TypeError, AttributeError):
            defs = fm.getfixturedefs(name, request.node.nodeid)
        for d in defs or ():
            lines.append(f"{name} {d.scope} {d.func.__module__}.{d.func.__qualname__}")
    print("FIXTURES", len(lines))
    print("\n".join(lines))
    assert False
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_warm_run_offers_the_fixtures_a_cold_run_offers() {
    // The zygote hands pytest's fixture scan only the names of its plugin modules that can
    // be fixtures; a conftest that adds one to a plugin module before the scan must be seen
    // as a cold run sees it.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let plain = tempfile::tempdir().unwrap();
    let plain_repo = tiny_repo(plain.path());
    std::fs::write(
        repo.join("tests/conftest.py"),
        "import pytest\nimport _pytest.monkeypatch\n\n\n@pytest.fixture\n\
         def added_to_a_plugin():\n    return 42\n\n\n\
         _pytest.monkeypatch.added_to_a_plugin = added_to_a_plugin\n",
    )
    .unwrap();
    let uses_it = format!(
        "{FIXTURE_LISTING}\n\ndef test_uses_it(added_to_a_plugin):\n    \
         assert added_to_a_plugin == 42\n"
    );
    for python in interpreters() {
        for (repo, content, fixture) in [
            (&plain_repo, FIXTURE_LISTING.to_owned(), "tmp_path function"),
            (&repo, uses_it.clone(), "added_to_a_plugin function"),
        ] {
            let req = request("tests/test_fixtures.py", &content, Duration::from_secs(30));
            let (cold, warm) = cold_and_warm(&python, repo, req).await;
            assert!(
                cold.raw_log.contains(fixture) && cold.raw_log.contains("FIXTURES"),
                "{}: the cold run lists {fixture}\n{}",
                python.display(),
                cold.raw_log
            );
            assert_eq!(
                summary(&warm),
                summary(&cold),
                "{}: warm and cold runs see other fixtures\n--- warm\n{}",
                python.display(),
                warm.raw_log
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fixture_added_to_a_plugin_class_is_seen_as_a_cold_run_sees_it() {
    // The zygote learns, by class, which names of a plugin object (here pytest's terminal
    // reporter, made anew in every run) can be fixtures; a conftest that adds a fixture
    // method to that class before the scan, or changes it back, must be seen as cold.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let conftest = "import pytest\nimport _pytest.terminal\n\n\n@pytest.fixture\n\
        def added_to_a_plugin_class(self):\n    return 43\n\n\n\
        _pytest.terminal.TerminalReporter.added_to_a_plugin_class = added_to_a_plugin_class\n\
        del added_to_a_plugin_class\n";
    let uses_it = format!(
        "{FIXTURE_LISTING}\n\ndef test_uses_it(added_to_a_plugin_class):\n    \
         assert added_to_a_plugin_class == 43\n"
    );
    for python in interpreters() {
        let warm = executor_with(&python, &repo, vec![".".into()], 1, true);
        let cold = executor_with(&python, &repo, vec![".".into()], 1, false);
        for (i, added) in [false, false, true, true, false].into_iter().enumerate() {
            let mut req = request("tests/test_fixtures.py", &uses_it, Duration::from_secs(30));
            if added {
                req.overrides = vec![FileOverride {
                    rel_path: "tests/conftest.py".into(),
                    content: conftest.into(),
                }];
            }
            let (c, _) = agree(&cold, &warm, req, &format!("{} run {i}", python.display())).await;
            // The listing itself always fails, to show what it found.
            assert_eq!(
                c.raw_log.contains("1 failed, 1 passed"),
                added,
                "run {i}\n{}",
                c.raw_log
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_installed_while_the_interpreter_lives_is_seen_as_a_cold_run_sees_it() {
    // The zygote keeps what it read of the installed distributions' metadata, each file with
    // its identity: a plugin installed after it started (a new dist-info with a pytest11 entry
    // point), then changed, must reach the next warm run as it reaches a cold one.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let (vpy, site) = venv(dir.path());
    let env = evootter::exec::resolve_python(Some(&vpy)).unwrap();
    let test = "def test_uses_the_plugin(probe_value):\n    assert probe_value == 2\n";
    let req = request("tests/test_probe.py", test, Duration::from_secs(30));
    // The distribution is there before the interpreter starts, without a plugin: its
    // entry_points.txt is among what the zygote reads first.
    let info = site.join("evootter_probe-1.0.dist-info");
    std::fs::create_dir_all(&info).unwrap();
    std::fs::write(
        info.join("METADATA"),
        "Metadata-Version: 2.1\nName: evootter-probe\nVersion: 1.0\n",
    )
    .unwrap();
    std::fs::write(
        info.join("entry_points.txt"),
        "[console_scripts]\nprobe = evootter_probe:main\n",
    )
    .unwrap();
    for (name, value) in [("evootter_probe", 1), ("evootter_probf", 2)] {
        std::fs::write(
            site.join(format!("{name}.py")),
            format!("import pytest\n\n\n@pytest.fixture\ndef probe_value():\n    return {value}\n"),
        )
        .unwrap();
    }
    let warm = executor_with(&env.path, &repo, vec![".".into()], 1, true);
    let cold = executor_with(&env.path, &repo, vec![".".into()], 1, false);
    let mut steps = vec![];
    for (step, entry_points) in [
        ("no plugin", None),
        ("a plugin", Some("[pytest11]\nprobe = evootter_probe\n")),
        // Another module behind the same name: the same size, only the times differ.
        (
            "another plugin",
            Some("[pytest11]\nprobe = evootter_probf\n"),
        ),
        ("no entry points", Some("")),
    ] {
        if let Some(text) = entry_points {
            if text.is_empty() {
                std::fs::remove_file(info.join("entry_points.txt")).unwrap();
            } else {
                std::fs::write(info.join("entry_points.txt"), text).unwrap();
            }
        }
        let (c, _) = agree(&cold, &warm, req.clone(), step).await;
        steps.push(format!("{:?}", c.outcome));
    }
    // Not found, the first module's fixture (fails), the second's (passes), not found.
    let [none, first, second, gone] = [
        Outcome::Error,
        Outcome::Failed,
        Outcome::Passed,
        Outcome::Error,
    ]
    .map(|o| format!("{o:?}"));
    assert_eq!(steps, [none, first, second, gone]);
}

#[tokio::test(flavor = "multi_thread")]
async fn prepared_interpreters_serve_the_first_runs() {
    // `prepare` (what a session does as it starts) starts every worker's interpreter; the
    // first runs then start none, and give what runs on a fresh executor give.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let warm = executor(&repo, vec![".".into()], 2, true);
    assert_eq!(warm.zygotes_started(), 0);
    warm.prepare().await;
    assert_eq!(warm.zygotes_started(), 2);
    let test =
        "from calc.ops import clamp\n\n\ndef test_clamp():\n    assert clamp(15, 0, 10) == 10\n";
    let req = request("tests/test_clamp.py", test, Duration::from_secs(30));
    let fresh = executor(&repo, vec![".".into()], 1, true)
        .run(req.clone())
        .await
        .unwrap();
    let (a, b) = tokio::join!(warm.run(req.clone()), warm.run(req.clone()));
    for got in [a.unwrap(), b.unwrap()] {
        assert_eq!(summary(&got), summary(&fresh), "{}", got.raw_log);
    }
    assert_eq!(fresh.outcome, Outcome::Failed, "{}", fresh.raw_log);
    assert_eq!(warm.zygotes_started(), 2);
    // Prepared again, nothing more is started; a cold executor has nothing to prepare.
    warm.prepare().await;
    assert_eq!(warm.zygotes_started(), 2);
    let cold = executor(&repo, vec![".".into()], 1, false);
    cold.prepare().await;
    assert_eq!(cold.zygotes_started(), 0);
}

/// A venv in `dir` that sees the system's site-packages (pytest): its python and its own
/// site-packages, where a test installs what it needs.
fn venv(dir: &Path) -> (PathBuf, PathBuf) {
    let venv = dir.join("venv");
    let st = std::process::Command::new(python())
        .args(["-m", "venv", "--system-site-packages", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(st.success(), "python -m venv");
    let vpy = venv.join("bin/python");
    let site = std::process::Command::new(&vpy)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .unwrap();
    let site = PathBuf::from(String::from_utf8_lossy(&site.stdout).trim());
    (vpy, site)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_library_edited_while_the_interpreter_lives_is_seen_as_a_cold_run_sees_it() {
    // After the first run the zygote holds the library the test imports (it learns what runs
    // import from site-packages): edited, then removed, it must reach the next warm run as
    // it reaches a cold one, and only a change makes the zygote start over.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let (vpy, site) = venv(dir.path());
    let env = evootter::exec::resolve_python(Some(&vpy)).unwrap();
    let lib = site.join("evootter_lib.py");
    std::fs::write(&lib, "VALUE = 1\n").unwrap();
    let test = "import evootter_lib\n\n\ndef test_value():\n    assert evootter_lib.VALUE == 2\n";
    let req = request("tests/test_lib.py", test, Duration::from_secs(30));
    let warm = executor_with(&env.path, &repo, vec![".".into()], 1, true);
    let cold = executor_with(&env.path, &repo, vec![".".into()], 1, false);
    let log = warm
        .worker_copy(0)
        .unwrap()
        .parent()
        .unwrap()
        .join("zygote-0.err");
    let starts_over = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("starting over"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let mut steps = vec![];
    for (step, value) in [
        ("first", Some("VALUE = 1\n")),
        ("held", Some("VALUE = 1\n")),
        // The same size: only the bytes and the times differ.
        ("edited", Some("VALUE = 2\n")),
        ("edited, held", Some("VALUE = 2\n")),
        ("removed", None),
    ] {
        match value {
            Some(v) if std::fs::read_to_string(&lib).ok().as_deref() != Some(v) => {
                std::fs::write(&lib, v).unwrap()
            }
            Some(_) => {}
            None => std::fs::remove_file(&lib).unwrap(),
        }
        let (c, _) = agree(&cold, &warm, req.clone(), step).await;
        steps.push((format!("{:?}", c.outcome), starts_over().len()));
    }
    let [failed, passed, error] =
        [Outcome::Failed, Outcome::Passed, Outcome::Error].map(|o| format!("{o:?}"));
    assert_eq!(
        steps,
        [
            (failed.clone(), 0),
            (failed, 0),
            (passed.clone(), 1),
            (passed, 1),
            (error, 2)
        ],
        "{:?}",
        starts_over()
    );
    assert!(
        starts_over()[0].contains("evootter_lib.py"),
        "{:?}",
        starts_over()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rewritten_test_module_is_reused_only_for_the_same_bytes_and_never_hides_a_warning() {
    // The zygote keeps pytest's rewrite of a test module by the module's bytes, and never one
    // whose rewriting warns: the rewriter's "assertion is always true" and the compiler's
    // invalid escape must show in every run, as they do cold.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let failing =
        "from calc.ops import clamp\n\n\ndef test_clamp():\n    assert clamp(15, 0, 10) == 10\n";
    let passing =
        "from calc.ops import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 10) == 5\n";
    let warns = "import re\n\n\ndef test_tuple():\n    assert (1 == 2, 'never checked')\n\n\n\
        def test_escape():\n    assert re.match('\\d', '1')\n";
    for python in interpreters() {
        let warm = executor_with(&python, &repo, vec![".".into()], 1, true);
        let cold = executor_with(&python, &repo, vec![".".into()], 1, false);
        for (i, content) in [failing, failing, passing, failing, warns, warns, warns]
            .iter()
            .enumerate()
        {
            let req = request("tests/test_same_path.py", content, Duration::from_secs(30));
            let (c, _) = agree(&cold, &warm, req, &format!("{} run {i}", python.display())).await;
            if *content == warns {
                assert!(
                    c.raw_log.contains("assertion is always true")
                        && c.raw_log.contains("invalid escape sequence"),
                    "{}",
                    c.raw_log
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_compiled_module_and_a_traceback_s_statements_are_reused_only_for_the_same_text() {
    // The zygote keeps the code importlib compiled from a module's bytes (never one whose
    // compiling warns or fails) and pytest's statement range of each traceback line by the
    // source text. The same path with other bytes must behave as its bytes say; a warning at
    // compile time and a syntax error's report (no frame of the zygote's in it) must show in
    // every run, as cold.
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let test =
        "from calc.ops import clamp\n\n\ndef test_clamp():\n    assert clamp(15, 0, 10) == 10\n";
    // A raise spanning lines, whose statement pytest finds for the traceback.
    let raising = |tail: &str| {
        format!(
            "def clamp(x, lo, hi):\n    if x > hi:\n        raise ValueError(\n            \"too big\",\n{tail}        )\n    return x\n"
        )
    };
    let short = raising("");
    let long = raising("            x,\n            hi,\n");
    let fixed = "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n".to_string();
    let warns =
        "import re\n\n\ndef clamp(x, lo, hi):\n    return x if re.match('\\d', '1') else hi\n"
            .to_string();
    let broken = "def clamp(x, lo, hi:\n    return x\n".to_string();
    // Each module, with what its cold run's log says.
    let (too_big, passed) = ("ValueError: too big", "1 passed");
    let long_says = "ValueError: ('too big', 15, 10)";
    let (warns_says, broken_says) = ("invalid escape sequence", "SyntaxError");
    let plan = [
        (&short, too_big),
        (&short, too_big),
        (&short, too_big),
        (&long, long_says),
        (&long, long_says),
        (&short, too_big),
        (&fixed, passed),
        (&short, too_big),
        (&warns, warns_says),
        (&warns, warns_says),
        (&warns, warns_says),
        (&broken, broken_says),
        (&broken, broken_says),
        (&fixed, passed),
    ];
    for python in interpreters() {
        let warm = executor_with(&python, &repo, vec![".".into()], 1, true);
        let cold = executor_with(&python, &repo, vec![".".into()], 1, false);
        for (i, (module, expect)) in plan.iter().enumerate() {
            let mut req = request("tests/test_ops.py", test, Duration::from_secs(30));
            req.overrides = vec![FileOverride {
                rel_path: "calc/ops.py".into(),
                content: module.to_string(),
            }];
            let (c, w) = agree(&cold, &warm, req, &format!("{} run {i}", python.display())).await;
            assert!(!w.raw_log.contains("zygote"), "{}", w.raw_log);
            assert!(
                c.raw_log.contains(expect),
                "run {i}: {expect:?} not in\n{}",
                c.raw_log
            );
        }
    }
}
