//! The Docker backend against a real daemon and the image `EVOOTTER_TEST_IMAGE` (default
//! `evootter-python:bookworm`, built by `.ci/docker`): the same results as the local backend
//! on every example, sealed and reaped containers, timeouts, leftovers of killed runs, a
//! second host that fails mid-run, and errors that say what to do. Without a daemon or the
//! image the tests fail under CI and print SKIPPED elsewhere.

use crate::common;
use common::bench_rows::{mirror, row};
use common::docker::*;
use common::exec::{decisions, request, run_all};
use common::*;
use evootter::exec::{
    DockerConfig, DockerExecutor, ExecRequest, Executor, FileOverride, LocalExecutor, Outcome,
};
use evootter::instance::Instance;
use evootter::testkit;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A test that must not run beside the others takes it alone; the others share it.
static GATE: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

#[tokio::test(flavor = "multi_thread")]
async fn docker_and_local_runs_log_the_same_on_every_example() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let (mut local_time, mut docker_time, mut runs) = (Duration::ZERO, [Duration::ZERO; 2], [0; 2]);
    for (n, ex) in executor_examples().into_iter().enumerate() {
        let inst = Instance::load(&ex).unwrap();
        let pool =
            evootter::mutate::generate(&inst.repo, &inst.focal, 20, 1, Default::default()).unwrap();
        let mut variants = vec![vec![]];
        // Mutants of different files where the pool has them.
        let mut files = vec![];
        for m in &pool.mutants {
            if variants.len() == 3 {
                break;
            }
            if files.contains(&m.file) && pool.mutants.iter().any(|o| !files.contains(&o.file)) {
                continue;
            }
            files.push(m.file.clone());
            variants.push(vec![testkit::mutant_override(&inst.repo, m)]);
        }
        let requests = testkit::requests(&inst, &variants, Duration::from_secs(60));
        let pythonpath = inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]);

        // The reference is the local warm executor, the default (tests/warm.rs shows it
        // equal to cold on every example). The cold Docker path, not the default and the
        // costliest (two `docker exec`s per run), is compared on the first example only.
        let started = Instant::now();
        let l = Arc::new(local(&inst.repo, pythonpath.clone(), 2, true));
        let expected = run_all(l.clone(), &requests).await;
        local_time += started.elapsed();

        let executors: &[bool] = if n == 0 { &[false, true] } else { &[true] };
        for &warm in executors {
            let started = Instant::now();
            let d = Arc::new(
                DockerExecutor::new(DockerConfig {
                    warm,
                    ..docker_cfg(&inst.repo, pythonpath.clone(), 2)
                })
                .await
                .unwrap(),
            );
            let setup = started.elapsed();
            let got = run_all(d.clone(), &requests).await;
            docker_time[usize::from(warm)] += started.elapsed() - setup;
            println!(
                "{}: {} runs; docker setup {:.2} s; {}",
                inst.name,
                requests.len(),
                setup.as_secs_f64(),
                d.describe()
            );
            for (i, (a, b)) in expected.iter().zip(&got).enumerate() {
                assert!(
                    a.changed.is_empty() && b.changed.is_empty(),
                    "{}",
                    b.raw_log
                );
                assert_eq!(
                    summary(a),
                    summary(b),
                    "{}: request {i} ({}, {} overrides) differs between\n  {}\nand\n  {}\n--- \
                     docker raw log\n{}",
                    ex.display(),
                    requests[i].test.rel_path,
                    requests[i].overrides.len(),
                    l.describe(),
                    d.describe(),
                    b.raw_log
                );
            }
            d.shutdown().await;
            runs[usize::from(warm)] += requests.len();
        }
    }
    let per = |d: Duration, runs: usize| d.as_secs_f64() * 1000.0 / runs as f64;
    println!(
        "per execution, 2 workers each: local warm {:.0} ms, docker cold {:.0} ms ({} runs), \
         docker warm {:.0} ms ({} runs)",
        per(local_time, runs[1]),
        per(docker_time[0], runs[0]),
        runs[0],
        per(docker_time[1], runs[1]),
        runs[1]
    );
}

/// Rewrites a module, deletes one, chmods a directory, creates files and a directory.
const VANDAL: &str = r#"import os

def test_vandal():
    open("calc/ops.py", "w").write("raise SystemExit('vandalized')\n")
    os.remove("calc/__init__.py")
    os.makedirs("junk/deep")
    open("junk/deep/x.txt", "w").write("x")
    open("tests/out.txt", "w").write("x")
    os.chmod("tests", 0o700)
    assert False, "vandalized"
"#;

const CLAMP_TEST: &str =
    "from calc.ops import clamp\n\ndef test_clamp():\n    assert clamp(15, 0, 10) == 10\n";

#[tokio::test(flavor = "multi_thread")]
async fn a_test_writing_into_its_copy_changes_nothing_for_the_next_run() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let pp = vec![".".to_owned()];
    let l = local(&repo, pp.clone(), 1, false);
    for warm in [false, true] {
        let d = DockerExecutor::new(DockerConfig {
            warm,
            ..docker_cfg(&repo, pp.clone(), 1)
        })
        .await
        .unwrap();
        vandal_case(&l, &d).await;
        d.shutdown().await;
    }
}

/// A test in a container sees the image's environment, the run's own variables and what the
/// user passed by name (`--pass-env`), nothing else of evootter's environment.
#[tokio::test(flavor = "multi_thread")]
async fn a_container_run_gets_only_the_variables_passed_by_name() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    // Variables cargo sets for every test process: one passed, one not.
    let passed = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    let env_test = "import os\n\ndef test_env():\n    for k, v in sorted(os.environ.items()):\n        print('ENV', k, '=', v)\n    assert False\n";
    for warm in [false, true] {
        let d = DockerExecutor::new(DockerConfig {
            warm,
            pass_env: vec!["CARGO_MANIFEST_DIR".into()],
            ..docker_cfg(&repo, vec![".".into()], 1)
        })
        .await
        .unwrap();
        let r = d
            .run(request(
                "tests/test_env.py",
                env_test,
                Duration::from_secs(30),
            ))
            .await
            .unwrap();
        let log = &r.raw_log;
        assert!(
            log.contains(&format!("ENV CARGO_MANIFEST_DIR = {passed}")),
            "warm {warm}: {log}"
        );
        assert!(log.contains("ENV PATH ="), "warm {warm}: {log}");
        assert!(!log.contains("CARGO_PKG_NAME"), "warm {warm}: {log}");
        d.shutdown().await;
    }
}

/// What `a_test_writing_into_its_copy_changes_nothing_for_the_next_run` checks of one
/// Docker executor.
async fn vandal_case(l: &LocalExecutor, d: &DockerExecutor) {
    let t = Duration::from_secs(30);
    let clean = request("tests/test_clamp.py", CLAMP_TEST, t);
    let vandal = request("tests/test_vandal.py", VANDAL, t);

    let before = d.run(clean.clone()).await.unwrap();
    let l_vandal = l.run(vandal.clone()).await.unwrap();
    let d_vandal = d.run(vandal.clone()).await.unwrap();
    assert_eq!(d_vandal.outcome, Outcome::Failed, "{}", d_vandal.raw_log);
    assert_eq!(
        d_vandal.changed,
        [
            "created junk/",
            "created tests/out.txt",
            "deleted calc/__init__.py",
            "modified calc/ops.py",
            "modified tests/",
        ]
    );
    assert_eq!(d_vandal.changed, l_vandal.changed);
    assert_eq!(summary(&d_vandal), summary(&l_vandal));
    assert!(
        d_vandal
            .raw_log
            .contains("this run changed its working copy (undone before the next run)"),
        "{}",
        d_vandal.raw_log
    );
    // Twice: the record of what was put back must hold for the run after too.
    for _ in 0..2 {
        let after = d.run(clean.clone()).await.unwrap();
        assert_eq!(summary(&after), summary(&before), "{}", after.raw_log);
        assert!(after.changed.is_empty(), "{:?}", after.changed);
        let again = d.run(vandal.clone()).await.unwrap();
        assert_eq!(again.changed, d_vandal.changed);
    }
    // Traced runs trace in the container too.
    let mut traced = clean.clone();
    traced.trace = vec!["calc/ops.py".into()];
    let (lt, dt) = (
        l.run(traced.clone()).await.unwrap(),
        d.run(traced).await.unwrap(),
    );
    assert!(lt.trace.as_ref().is_some_and(|t| !t.is_empty()), "{lt:?}");
    assert_eq!(dt.trace, lt.trace);
    assert_eq!(summary(&dt), summary(&before));
    assert!(dt.changed.is_empty(), "{:?}", dt.changed);
    // A mutant and a removed file are put back too.
    let mut mutant = clean.clone();
    mutant.overrides = vec![FileOverride {
        rel_path: "calc/ops.py".into(),
        content: "def clamp(x, lo, hi):\n    return x\n".into(),
    }];
    mutant.removed = vec!["calc/__init__.py".into()];
    let m = d.run(mutant).await.unwrap();
    assert!(m.changed.is_empty(), "{:?}", m.changed);
    let after = d.run(clean.clone()).await.unwrap();
    assert_eq!(summary(&after), summary(&before), "{}", after.raw_log);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hanging_test_is_killed_at_its_timeout_with_everything_it_started() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    for warm in [false, true] {
        let d = DockerExecutor::new(DockerConfig {
            warm,
            ..docker_cfg(&repo, vec![".".into()], 1)
        })
        .await
        .unwrap();
        hang_case(&d, warm).await;
        d.shutdown().await;
    }
}

async fn hang_case(d: &DockerExecutor, warm: bool) {
    let hang = "import subprocess, time\n\ndef test_hang():\n    subprocess.Popen(['setsid', 'sleep', '600'])\n    subprocess.Popen(['sh', '-c', 'sleep 700 & sleep 800'])\n    print('started', flush=True)\n    time.sleep(600)\n";
    let started = Instant::now();
    let r = d
        .run(request("tests/test_hang.py", hang, Duration::from_secs(3)))
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(r.outcome, Outcome::Timeout);
    assert!(
        r.raw_log
            .contains(evootter::exec::pytest_run::TIMEOUT_MARKER),
        "{}",
        r.raw_log
    );
    println!("a 3 s timeout returned after {:.2} s", took.as_secs_f64());
    assert!(took < Duration::from_secs(8), "took {took:?}");
    let (_, container) = d.container(0).await.unwrap();
    let left = container_processes(&container);
    let (zygote, others): (Vec<_>, Vec<_>) = left.iter().partition(|p| p.contains(ZYGOTE));
    assert_eq!(others, Vec::<&String>::new(), "warm: {warm}");
    // The warm interpreter survives the runs it ends.
    assert_eq!(zygote.len(), usize::from(warm), "{left:?}");
    // And the worker still runs tests, in a fresh container if its own died.
    let killed = Command::new("docker")
        .args(["kill", &container])
        .output()
        .unwrap();
    assert!(killed.status.success(), "{}", text(&killed));
    let ok = d
        .run(request(
            "tests/test_clamp.py",
            CLAMP_TEST,
            Duration::from_secs(30),
        ))
        .await
        .unwrap();
    assert_eq!(ok.outcome, Outcome::Failed, "{}", ok.raw_log);
    assert_ne!(d.container(0).await.unwrap().1, container);
}

#[tokio::test(flavor = "multi_thread")]
async fn containers_of_killed_runs_are_removed_and_shutdown_removes_its_own() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let hostname = String::from_utf8(Command::new("hostname").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_owned();
    let leftover = Command::new("docker")
        .args(["run", "-d", "--network", "none"])
        .args(["--label", "evootter=1"])
        .args(["--label", &format!("evootter.owner={hostname}:99999999")])
        .args(["--label", "evootter.started=0"])
        .args([&image(), "sleep", "infinity"])
        .output()
        .unwrap();
    assert!(leftover.status.success(), "{}", text(&leftover));
    let leftover = String::from_utf8_lossy(&leftover.stdout).trim().to_owned();

    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let d = DockerExecutor::new(docker_cfg(&repo, vec![".".into()], 2))
        .await
        .unwrap();
    let gone = Command::new("docker")
        .args(["inspect", &leftover])
        .output()
        .unwrap();
    assert!(
        !gone.status.success(),
        "the leftover container is still there"
    );
    let owner = d.label();
    assert_eq!(containers_with_label(None, &owner).len(), 2);
    d.shutdown().await;
    assert_eq!(containers_with_label(None, &owner), Vec::<String>::new());

    // Dropped without a shutdown: removed all the same.
    let d = DockerExecutor::new(docker_cfg(&repo, vec![".".into()], 1))
        .await
        .unwrap();
    let owner = d.label();
    drop(d);
    assert_eq!(containers_with_label(None, &owner), Vec::<String>::new());
}

const D2: &str = "/tmp/evootter-d2";
const D2_SOCK: &str = "unix:///tmp/evootter-d2.sock";
/// The same daemon over TCP, as a remote host is reached.
const D2_TCP: &str = "tcp://127.0.0.1:23750";

/// A second Docker daemon on this machine, with the test image; stopped and removed on drop.
struct SecondDaemon {
    child: std::process::Child,
    /// Held until the daemon is gone: the tests that start it may run in other processes
    /// (nextest runs each test alone), where `GATE` does not reach.
    _lock: std::fs::File,
}

impl SecondDaemon {
    fn start() -> Self {
        let lock = std::fs::File::create(format!("{D2}.lock")).unwrap();
        // SAFETY: flock has no memory-safety preconditions; the fd is open for this call.
        let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
        assert_eq!(locked, 0, "{}", std::io::Error::last_os_error());
        let _ = std::fs::remove_dir_all(D2);
        let _ = std::fs::remove_file("/tmp/evootter-d2.sock");
        std::fs::create_dir_all(D2).unwrap();
        let log = std::fs::File::create(format!("{D2}.log")).unwrap();
        let child = Command::new("dockerd")
            .args(["--host", D2_SOCK, "--host", D2_TCP, "--tls=false"])
            .args(["--data-root", &format!("{D2}/data")])
            .args(["--exec-root", &format!("{D2}/exec")])
            .args(["--pidfile", &format!("{D2}/pid")])
            .args(["--bridge", "none", "--iptables=false"])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let d = Self { child, _lock: lock };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !Command::new("docker")
            .args(["-H", D2_SOCK, "info"])
            .output()
            .is_ok_and(|o| o.status.success())
        {
            assert!(
                Instant::now() < deadline,
                "the second dockerd did not start"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        let copied = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "docker save {} | docker -H {D2_SOCK} load",
                image()
            ))
            .output()
            .unwrap();
        assert!(copied.status.success(), "{}", text(&copied));
        d
    }

    /// Stops the daemon the way `systemctl stop docker` does, and waits for it.
    fn stop(&mut self) {
        // SAFETY: kill has no memory-safety preconditions; the pid is our unreaped child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for SecondDaemon {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop();
        }
        let _ = std::fs::remove_dir_all(D2);
        let _ = std::fs::remove_file("/tmp/evootter-d2.sock");
        let _ = std::fs::remove_file(format!("{D2}.log"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_that_fails_mid_run_loses_no_execution() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let mut d2 = SecondDaemon::start();
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let first =
        std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".into());
    let mut cfg = docker_cfg(&repo, vec![".".into()], 4);
    cfg.hosts = vec![first.clone(), D2_SOCK.into()];
    let d = Arc::new(DockerExecutor::new(cfg).await.unwrap());
    assert!(d.describe().contains(D2_SOCK), "{}", d.describe());
    assert_eq!(containers_with_label(Some(D2_SOCK), &d.label()).len(), 2);

    let slow = "import time\nfrom calc.ops import clamp\n\ndef test_clamp():\n    time.sleep(0.5)\n    assert clamp(15, 0, 10) == 10\n";
    let requests: Vec<ExecRequest> = (0..12)
        .map(|i| {
            request(
                &format!("tests/test_c{i}.py"),
                slow,
                Duration::from_secs(30),
            )
        })
        .collect();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let handles: Vec<_> = requests
        .iter()
        .cloned()
        .map(|r| {
            let d = d.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                let out = d.run(r).await;
                let _ = tx.send(());
                out
            })
        })
        .collect();
    // Some are done, the rest queued or running on both hosts: the second one goes.
    rx.recv().await;
    rx.recv().await;
    tokio::task::spawn_blocking(move || {
        d2.stop();
        d2
    })
    .await
    .map(drop)
    .unwrap();
    for h in handles {
        let r = h.await.unwrap().unwrap();
        assert_eq!(r.outcome, Outcome::Failed, "{}", r.raw_log);
        assert!(
            r.normalized_log.contains("assert <N> == <N>"),
            "{}",
            r.normalized_log
        );
    }
    let notes = d.notes();
    println!("notes: {notes:?}");
    assert!(
        notes.iter().any(
            |n| n.contains(&format!("docker host {D2_SOCK} failed mid-run"))
                && n.contains(&format!("its executions moved to {first}"))
        ),
        "{notes:?}"
    );
    d.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_host_and_a_missing_image_say_what_to_do() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let mut cfg = docker_cfg(&repo, vec![".".into()], 1);
    cfg.hosts = vec!["unix:///tmp/evootter-no-daemon.sock".into()];
    let err = DockerExecutor::new(cfg).await.err().unwrap().to_string();
    println!("{err}");
    assert!(
        err.starts_with("cannot reach the Docker daemon at unix:///tmp/evootter-no-daemon.sock: ")
            && err.ends_with(
                "start it (dockerd, or systemctl start docker) or set DOCKER_HOST / --docker-host"
            ),
        "{err}"
    );
    let mut cfg = docker_cfg(&repo, vec![".".into()], 1);
    cfg.image = "evootter-missing:none".into();
    let err = DockerExecutor::new(cfg).await.err().unwrap().to_string();
    let host =
        std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".into());
    assert_eq!(
        err,
        format!(
            "image evootter-missing:none is not on {host}: load it (docker load -i FILE) or \
             pull it (docker pull evootter-missing:none); evootter never pulls"
        )
    );
}

/// `run --backend docker` is the same run as a local one: the same executions, kill
/// matrices, cuts and final test, on the demo instance's full workflow.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_in_docker_decides_what_the_same_run_here_decides() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &Path, backend: &[&str]| {
        let o = bin()
            .args([
                "run",
                "--instance",
                "examples/envconf_errors",
                "--jobs",
                "2",
            ])
            .args(backend)
            .arg("--out")
            .arg(out)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{backend:?}: {}", text(&o));
        o
    };
    let here = dir.path().join("here");
    let there = dir.path().join("there");
    run(&here, &["--python", "/usr/bin/python3"]);
    let o = run(&there, &["--backend", "docker", "--image", &image()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("image {}, python 3.", image())),
        "{err}"
    );
    let a = decisions(&here.join("session.json"));
    let b = decisions(&there.join("session.json"));
    assert!(a["executions"].as_object().unwrap().len() > 50, "{a:#}");
    assert_eq!(a, b, "local and docker runs decided differently");
    let s = read_json(&there.join("session.json"));
    assert_eq!(s["config"]["docker"]["image"], image().as_str());
    assert_eq!(s["config"]["docker"]["workdir"], "/testbed");
    assert!(s["final_test"].is_string());
    assert_eq!(
        std::fs::read(here.join("final.patch")).unwrap(),
        std::fs::read(there.join("final.patch")).unwrap()
    );
}

/// A batch in Docker: a row's own `image` wins, the others get the `{id}` template with
/// SWE-bench's `__` -> `_1776_`; `--validate` and the coverage runs happen in the same
/// images; an instance whose image is missing is an error that says what to do, and the
/// others are scored.
#[test]
fn a_batch_runs_each_instance_in_its_own_image() {
    if !docker_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    std::fs::create_dir_all(&repos).unwrap();
    let pid = std::process::id();
    let own = format!("evootter-row-image:{pid}");
    let templated = format!("evootter-bench-{pid}.evootter_1776_pagekit_orphans-1");
    let tag = |name: &str| {
        let o = Command::new("docker")
            .args(["tag", &image(), name])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    };
    tag(&own);
    tag(&templated);
    let mut lines = vec![];
    for name in ["envconf_errors", "pagekit_orphans"] {
        let ex = root().join("examples").join(name);
        let commit = mirror(&ex, &repos);
        let mut r = row(&ex, &commit);
        if name == "envconf_errors" {
            r["image"] = own.clone().into();
        }
        lines.push(r.to_string());
        if name == "pagekit_orphans" {
            r["instance_id"] = "evootter__imageless-1".into();
            lines.push(r.to_string());
        }
    }
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("batch");
    let o = bin()
        .args(["bench", "--parallel", "2", "--validate", "--jobs", "1"])
        .args(["--backend", "docker", "--image"])
        .arg(format!("evootter-bench-{pid}.{{id}}"))
        .arg("--instances")
        .arg(&rows)
        .arg("--repos")
        .arg(&repos)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    for name in [&own, &templated] {
        let _ = Command::new("docker").args(["rmi", name]).output();
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "one row is an error: {}",
        text(&o)
    );
    for (id, image) in [
        ("evootter__envconf_errors-1", own.as_str()),
        ("evootter__pagekit_orphans-1", templated.as_str()),
    ] {
        let rec = read_json(&out.join(id).join("instance.json"));
        assert_eq!(rec["status"], "done", "{id}: {rec:#}\n{err}");
        assert_eq!(rec["score"]["tdd"], true, "{id}: {rec:#}");
        assert!(rec["score"]["coverage"].as_f64().unwrap() > 0.0, "{rec:#}");
        // The image has coverage.py: the score is measured as TDD-Bench measures it.
        let with = rec["score"]["measured_with"].as_str().unwrap_or_default();
        assert!(with.starts_with("coverage "), "{rec:#}");
        assert!(rec["score"]["tdd_score"].as_f64().unwrap() > 0.0, "{rec:#}");
        let s = read_json(&out.join(id).join("session.json"));
        assert_eq!(s["config"]["docker"]["image"], image, "{id}");
    }
    let missing = format!("evootter-bench-{pid}.evootter_1776_imageless-1");
    assert!(
        err.contains(&format!(
            "evootter__imageless-1: error: image {missing} is not on "
        )) && err.contains("docker load -i FILE"),
        "{err}"
    );
}

/// Docker options that cannot work are refused before anything is created.
#[test]
fn docker_options_are_checked_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--backend", "docker"],
            "--backend docker needs --image NAME",
        ),
        (
            &[
                "--backend",
                "docker",
                "--image",
                "x",
                "--docker-memory",
                "lots",
            ],
            "--docker-memory lots is not a size; write e.g. 2g, 512m",
        ),
        (
            &[
                "--backend",
                "docker",
                "--image",
                "x",
                "--python",
                "/usr/bin/python3",
            ],
            "--python names a local interpreter; with --backend docker",
        ),
        (
            &[
                "--backend",
                "docker",
                "--image",
                "x",
                "--docker-workdir",
                "testbed",
            ],
            "--docker-workdir testbed must be an absolute path",
        ),
    ];
    for (args, want) in cases {
        let o = bin()
            .args(["run", "--instance", "examples/envconf_errors"])
            .args(args)
            .arg("--out")
            .arg(&out)
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
        assert!(!out.exists(), "{args:?} created {}", out.display());
    }
}

/// A batch spread over two Docker hosts, the second one reached over TCP (each instance
/// starts on a different one): the second host stops while both instances run on it; nothing is lost, both are scored, and the batch
/// says where the executions went.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_loses_nothing_when_one_of_its_hosts_stops() {
    if !docker_ready() {
        return;
    }
    // The second daemon's socket is shared with the executor-level failover test.
    let _gate = GATE.write().await;
    let mut d2 = tokio::task::spawn_blocking(SecondDaemon::start)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let chosen = ["envconf_errors", "pagekit_orphans"];
    let rows = common::bench_rows::rows_file(dir.path(), &repos, &chosen);
    let out = dir.path().join("batch");
    let first =
        std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".into());
    let child = bin()
        .args(["bench", "--parallel", "2", "--jobs", "2"])
        .args(["--backend", "docker", "--image", &image()])
        .args(["--docker-host", &first, "--docker-host", D2_TCP])
        .arg("--instances")
        .arg(&rows)
        .arg("--repos")
        .arg(&repos)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Both instances have containers on the second host and are executing: it goes.
    let executions = |id: &str| -> usize {
        std::fs::read(out.join(id).join("session.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v["executions"].as_object().map(|o| o.len()))
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(240);
    while !chosen
        .iter()
        .all(|n| executions(&format!("evootter__{n}-1")) >= 8)
    {
        assert!(Instant::now() < deadline, "the batch did not get going");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let d2 = tokio::task::spawn_blocking(move || {
        d2.stop();
        d2
    })
    .await
    .unwrap();
    let o = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    drop(d2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{}", text(&o));
    for name in chosen {
        let id = format!("evootter__{name}-1");
        let rec = read_json(&out.join(&id).join("instance.json"));
        assert_eq!(rec["status"], "done", "{id}: {rec:#}\n{err}");
        assert_eq!(rec["score"]["tdd"], true, "{id}: {rec:#}");
        let moved = format!("docker host {D2_TCP} failed mid-run");
        assert!(
            rec["notes"]
                .as_array()
                .is_some_and(|n| n.iter().any(|n| n.as_str().unwrap().contains(&moved))),
            "{id}: {rec:#}"
        );
        let s = read_json(&out.join(&id).join("session.json"));
        assert!(
            s["notes"].to_string().contains(&moved),
            "{id}: {:#}",
            s["notes"]
        );
    }
    assert!(
        err.matches(&format!("note: docker host {D2_TCP} failed mid-run"))
            .count()
            >= 2,
        "{err}"
    );
}

/// An sshd on this machine (port 22, loopback only: Docker's client library passes no port
/// from an ssh URL) that lets root in with a key held by an ssh agent of the test's own: a
/// Docker host reached as `ssh://root@127.0.0.1`, the way Docker's own client reaches one
/// (`docker system dial-stdio` over ssh). The host key is kept under /var/cache/evootter, so
/// root's known_hosts (which ssh fills on first contact) stays right across runs.
struct SshHost {
    sshd: std::process::Child,
    agent: std::process::Child,
    sock: PathBuf,
    _dir: tempfile::TempDir,
}

impl SshHost {
    const URL: &'static str = "ssh://root@127.0.0.1";

    fn start() -> Option<Self> {
        if !Path::new("/usr/sbin/sshd").exists() {
            let problem = "no sshd (openssh-server)";
            if std::env::var_os("CI").is_some() {
                panic!("{problem}; run `bash .ci/docker` first");
            }
            eprintln!("SKIPPED: {problem}");
            return None;
        }
        let keys = Path::new("/var/cache/evootter/ssh");
        std::fs::create_dir_all(keys).unwrap();
        let keygen = |path: &Path| {
            if !path.exists() {
                let o = Command::new("ssh-keygen")
                    .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                    .arg(path)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{}", text(&o));
            }
        };
        keygen(&keys.join("host_key"));
        let dir = tempfile::tempdir().unwrap();
        let user_key = dir.path().join("user_key");
        keygen(&user_key);
        let authorized = dir.path().join("authorized_keys");
        std::fs::copy(user_key.with_extension("pub"), &authorized).unwrap();
        let config = dir.path().join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port 22\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\n\
                 PermitRootLogin prohibit-password\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile {}\n",
                keys.join("host_key").display(),
                authorized.display(),
                dir.path().join("sshd.pid").display()
            ),
        )
        .unwrap();
        std::fs::create_dir_all("/run/sshd").unwrap();
        let sshd = Command::new("/usr/sbin/sshd")
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stderr(std::fs::File::create(dir.path().join("sshd.log")).unwrap())
            .spawn()
            .unwrap();
        let sock = dir.path().join("agent.sock");
        let agent = Command::new("ssh-agent")
            .args(["-D", "-a"])
            .arg(&sock)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !sock.exists() {
            assert!(Instant::now() < deadline, "ssh-agent did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let added = Command::new("ssh-add")
            .arg(&user_key)
            .env("SSH_AUTH_SOCK", &sock)
            .output()
            .unwrap();
        assert!(added.status.success(), "{}", text(&added));
        // Up once a login runs the docker client over it.
        loop {
            let o = Command::new("ssh")
                .args([
                    "-o",
                    "StrictHostKeyChecking=accept-new",
                    "-o",
                    "BatchMode=yes",
                ])
                .args(["root@127.0.0.1", "docker", "version"])
                .env("SSH_AUTH_SOCK", &sock)
                .output()
                .unwrap();
            if o.status.success() {
                break;
            }
            assert!(Instant::now() < deadline, "no ssh login: {}", text(&o));
            std::thread::sleep(Duration::from_millis(200));
        }
        Some(Self {
            sshd,
            agent,
            sock,
            _dir: dir,
        })
    }
}

impl Drop for SshHost {
    fn drop(&mut self) {
        for c in [&mut self.sshd, &mut self.agent] {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_docker_host_reached_over_ssh_runs_what_the_socket_runs() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let Some(ssh) = SshHost::start() else { return };
    // The agent is how ssh, started by Docker's client library, finds the key.
    // SAFETY: set once, before this test's executor starts its ssh; no other test reads it.
    unsafe { std::env::set_var("SSH_AUTH_SOCK", &ssh.sock) };
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let over_ssh = DockerExecutor::new(DockerConfig {
        hosts: vec![SshHost::URL.to_owned()],
        warm: true,
        ..docker_cfg(&repo, vec![".".into()], 1)
    })
    .await
    .unwrap();
    assert_eq!(over_ssh.hosts(), [SshHost::URL]);
    let local = local(&repo, vec![".".into()], 1, false);
    let clamp = request("tests/test_clamp.py", CLAMP_TEST, Duration::from_secs(30));
    let mut mutant = clamp.clone();
    mutant.overrides = vec![FileOverride {
        rel_path: "calc/ops.py".into(),
        content: "def clamp(x, lo, hi):\n    return hi\n".into(),
    }];
    for r in [clamp, mutant] {
        let (a, b) = (
            local.run(r.clone()).await.unwrap(),
            over_ssh.run(r).await.unwrap(),
        );
        assert_eq!(summary(&a), summary(&b), "{}", b.raw_log);
    }
    let label = over_ssh.label();
    assert_eq!(containers_with_label(None, &label).len(), 1);
    over_ssh.shutdown().await;
    assert_eq!(containers_with_label(None, &label), Vec::<String>::new());
    // A port in an ssh URL is refused up front, with the way around it.
    let Err(e) = DockerExecutor::new(DockerConfig {
        hosts: vec!["ssh://root@127.0.0.1:2222".to_owned()],
        ..docker_cfg(&repo, vec![".".into()], 1)
    })
    .await
    else {
        panic!("an ssh URL with a port was accepted")
    };
    assert!(e.to_string().contains("cannot carry a port"), "{e}");
}

/// A candidate that writes outside its copy: a `sitecustomize.py` that prints a word at
/// every interpreter start into the standard library and site-packages, a module into
/// site-packages, files in /tmp, /dev/shm and its home. None of it may reach a later run.
const OUTSIDE_VANDAL: &str = r#"import os, site, sysconfig

def test_outside():
    dirs = {sysconfig.get_paths()["stdlib"], *site.getsitepackages()}
    for d in sorted(dirs):
        for name, text in [("sitecustomize.py", "print('POISONED')\n"), ("planted.py", "X = 1\n")]:
            try:
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            except OSError as e:
                print("refused", e)
    open("/tmp/planted.txt", "w").write("x")
    os.makedirs("/dev/shm/planted", exist_ok=True)
    open(os.path.expanduser("~/planted.txt"), "w").write("x")
    assert False, "vandalized outside"
"#;

/// Kills pid 1 of its container, then fails.
const KILL_PID1: &str =
    "import os, signal\n\ndef test_kill():\n    os.kill(1, signal.SIGKILL)\n    assert False\n";

/// Fills the container's temp space (a memory file system of bounded size), then fails.
const FILL_TMP: &str = r#"def test_fill():
    try:
        with open("/tmp/filler", "wb") as f:
            while True:
                f.write(b"x" * (1 << 20))
    except OSError as e:
        print("full:", e)
    assert False
"#;

/// Writes everywhere outside its copy, kills pid 1, fills /tmp: no later run in that
/// container sees any of it, the container is not replaced, and every write outside the copy
/// is either refused (the image is read-only) or named and removed.
#[tokio::test(flavor = "multi_thread")]
async fn a_test_writing_outside_its_copy_changes_nothing_for_the_next_run() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.read().await;
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let t = Duration::from_secs(60);
    let clean = request("tests/test_clamp.py", CLAMP_TEST, t);
    for warm in [false, true] {
        let d = DockerExecutor::new(DockerConfig {
            warm,
            ..docker_cfg(&repo, vec![".".into()], 1)
        })
        .await
        .unwrap();
        let (_, container) = d.container(0).await.unwrap();
        let before = d.run(clean.clone()).await.unwrap();
        let v = d
            .run(request("tests/test_outside.py", OUTSIDE_VANDAL, t))
            .await
            .unwrap();
        assert_eq!(v.outcome, Outcome::Failed, "{}", v.raw_log);
        assert_eq!(
            v.changed_outside,
            ["/dev/shm/planted", "/tmp/planted.txt"],
            "warm {warm}: {}",
            v.raw_log
        );
        assert!(
            v.denied
                .iter()
                .any(|d| d.contains("the image is read-only") && d.contains("sitecustomize.py")),
            "warm {warm}: {:?}\n{}",
            v.denied,
            v.raw_log
        );
        assert!(
            v.raw_log
                .contains("this run wrote outside its working copy"),
            "{}",
            v.raw_log
        );
        let killer = d
            .run(request("tests/test_bad.py", KILL_PID1, t))
            .await
            .unwrap();
        assert_eq!(
            killer.outcome,
            Outcome::Failed,
            "warm {warm}: {}",
            killer.raw_log
        );
        // Filling /tmp fills the run's own temp space too: pytest may not even write its
        // report. That run has what it has; the next one must not notice.
        let filler = d
            .run(request("tests/test_bad.py", FILL_TMP, t))
            .await
            .unwrap();
        assert_ne!(
            filler.outcome,
            Outcome::Passed,
            "warm {warm}: {}",
            filler.raw_log
        );
        assert!(
            filler.raw_log.contains("No space left on device"),
            "{}",
            filler.raw_log
        );
        assert_eq!(
            filler.changed_outside,
            ["/tmp/filler"],
            "{}",
            filler.raw_log
        );
        let after = d.run(clean.clone()).await.unwrap();
        assert_eq!(summary(&after), summary(&before), "{}", after.raw_log);
        assert!(!after.raw_log.contains("POISONED"), "{}", after.raw_log);
        assert!(
            after.changed_outside.is_empty(),
            "{:?}",
            after.changed_outside
        );
        // The same container, as the image made it.
        assert_eq!(d.container(0).await.unwrap().1, container, "not replaced");
        let left = Command::new("docker")
            .args(["exec", &container, "sh", "-c"])
            .arg(
                "ls /tmp /dev/shm; python3 -c 'import sitecustomize' 2>&1; \
                 python3 -c 'import planted' 2>&1",
            )
            .output()
            .unwrap();
        let left = text(&left);
        assert!(
            !left.contains("planted.txt") && !left.contains("filler"),
            "{left}"
        );
        assert!(left.contains("No module named 'planted'"), "{left}");
        assert!(!left.contains("POISONED"), "{left}");
        d.shutdown().await;
    }
}

/// A run of the engine with a vandal candidate decides for every other test what the same
/// run without it decides, and takes about as long: no container is replaced, none is left.
#[test]
fn a_vandal_candidate_changes_no_other_tests_scores_in_docker() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.blocking_read();
    let with = Tiny::four();
    std::fs::write(with.cands.join("test_e_vandal.py"), OUTSIDE_VANDAL).unwrap();
    // The same population size and reach without it: a fifth test that fails and reaches
    // nothing either.
    let without = Tiny::four();
    std::fs::write(
        without.cands.join("test_e_vandal.py"),
        "def test_outside():\n    assert False, 'plain'\n",
    )
    .unwrap();
    let run = |tiny: &Tiny| {
        let started = Instant::now();
        let o = tiny.run(
            "out",
            &[
                "--backend",
                "docker",
                "--image",
                &image(),
                "--mutants",
                "8",
                "--tests",
                "5",
                "--jobs",
                "2",
            ],
        );
        assert!(o.status.success(), "{}", text(&o));
        (
            read_json(&tiny.out("out").join("session.json")),
            started.elapsed(),
            o,
        )
    };
    let (a, t_without, _) = run(&without);
    let (b, t_with, o) = run(&with);
    let g0 = |s: &serde_json::Value, t: &str| {
        let g = &s["generations"][0];
        let hash = s["tests"][t]["hash"].as_str().unwrap()[..16].to_owned();
        (
            g["scores"][t].clone(),
            s["executions"][format!("{hash}@old")]["outcome"].clone(),
            s["executions"][format!("{hash}@old")]["normalized_log"].clone(),
        )
    };
    let logs = |s: &serde_json::Value, t: &str| {
        let (score, outcome, log_id) = g0(s, t);
        (score, outcome, s["logs"][log_id.as_str().unwrap()].clone())
    };
    for t in ["t1", "t2", "t3", "t4"] {
        assert_eq!(logs(&a, t), logs(&b, t), "{t}");
    }
    assert!(
        t_with < t_without * 2 + Duration::from_secs(20),
        "with the vandal {t_with:?}, without {t_without:?}"
    );
    assert!(
        !text(&o).contains("were replaced"),
        "no container was replaced: {}",
        text(&o)
    );
    let report = read_json(&with.out("out").join("report.json"));
    let vandal = report["tests"]
        .as_object()
        .unwrap()
        .values()
        .find(|v| v["name"] == "test_e_vandal.py")
        .unwrap();
    assert_eq!(
        vandal["changed_outside"],
        serde_json::json!(["/dev/shm/planted", "/tmp/planted.txt"])
    );
}

/// Runs `cmd` to its end; its output and its pid (what its containers' owner label ends
/// with).
fn run_with_pid(mut cmd: Command) -> (std::process::Output, u32) {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    (child.wait_with_output().unwrap(), pid)
}

/// Containers labelled by evootter process `pid`: what it must not leave when it ends.
fn containers_of(pid: u32) -> Vec<String> {
    let out = Command::new("docker")
        .args([
            "ps",
            "-a",
            "--filter",
            "label=evootter",
            "--format",
            "{{.ID}} {{.Label \"evootter.owner\"}}",
        ])
        .output()
        .unwrap();
    let owner = format!(":{pid}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.ends_with(&owner))
        .map(str::to_owned)
        .collect()
}

/// A repository whose pytest configuration needs a plugin the image lacks (pytest-cov): the
/// run names it within its first execution step, stops with the session saved, and leaves no
/// container.
#[test]
fn an_image_that_cannot_run_the_tests_is_named() {
    if !docker_ready() {
        return;
    }
    let _gate = GATE.blocking_read();
    let tiny = Tiny::four();
    std::fs::write(
        tiny.repo.join("setup.cfg"),
        "[tool:pytest]\naddopts = --cov=calc --cov-report=term\n",
    )
    .unwrap();
    let started = Instant::now();
    let mut cmd = tiny.command("out");
    cmd.args(["--focal", "calc/ops.py::clamp", "--initial-tests"])
        .arg(&tiny.cands)
        .args(["--backend", "docker", "--image", &image(), "--mutants", "4"]);
    let (o, pid) = run_with_pid(cmd);
    assert!(!o.status.success());
    assert!(containers_of(pid).is_empty(), "{:?}", containers_of(pid));
    let out = text(&o);
    assert!(
        out.contains("every test errors on c_old: pytest: unrecognized arguments: --cov=calc")
            && out.contains("the environment lacks pytest-cov"),
        "{out}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
    assert!(tiny.out("out").join("session.json").is_file());
}
