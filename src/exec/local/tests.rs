//! End-to-end tests of the local executor with real pytest runs on a small fixture repository.

use crate::exec::pytest_run::TIMEOUT_MARKER;
use crate::exec::{
    ExecRequest, Executor, FailureKind, FileOverride, LocalConfig, LocalExecutor, Outcome, Wanted,
    kill_all_running, resolve_python,
};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Runs that kill (`kill_all_running` reaches every test's processes) or time out (2 s must
/// be enough to reach the test body on two busy cores) hold this exclusively.
static EXCLUSIVE: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

const OPS: &str = "def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a / b\n";
const TEST_PATH: &str = "tests/issue/test_repro.py";

/// A tiny repository with the things the copier must skip or keep.
fn fixture_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |rel: &str, content: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    };
    write("calc/__init__.py", "");
    write("calc/ops.py", OPS);
    write("calc/const.py", "VALUE = 1\n");
    write("tests/test_existing.py", "def test_existing():\n    pass\n");
    write("src/extra/helper.py", "GREETING = 'hi'\n");
    write(".git/HEAD", "ref: refs/heads/main\n");
    write("calc/__pycache__/ops.cpython-311.pyc", "stale");
    write("node_modules/x/index.js", "");
    std::os::unix::fs::symlink("calc", root.join("calc_link")).unwrap();
    dir
}

/// An executor with every protection this kernel gives (overlay, pid and network
/// namespaces, Landlock).
fn executor(repo: &Path, jobs: usize) -> LocalExecutor {
    executor_with(repo, jobs, Wanted::default())
}

/// The portable fallbacks only (rescan sealing, subreaper, no sandbox): host pids, so tests
/// can follow processes by pid, and a real worker copy to inspect.
fn plain_executor(repo: &Path, jobs: usize) -> LocalExecutor {
    executor_with(
        repo,
        jobs,
        Wanted {
            sandbox: false,
            namespaces: false,
        },
    )
}

fn executor_with(repo: &Path, jobs: usize, isolation: Wanted) -> LocalExecutor {
    let python = resolve_python(None).expect("python3 with pytest").path;
    LocalExecutor::new(LocalConfig {
        repo: repo.to_owned(),
        python,
        pythonpath: vec!["src".to_owned()],
        jobs,
        isolation,
        warm: false,
        pass_env: vec![],
    })
    .unwrap()
}

/// Both mechanisms, for tests that must hold under each.
fn both_executors(repo: &Path, jobs: usize) -> [LocalExecutor; 2] {
    [executor(repo, jobs), plain_executor(repo, jobs)]
}

fn request(test: &str, overrides: &[(&str, &str)], timeout_s: u64) -> ExecRequest {
    ExecRequest {
        test: FileOverride {
            rel_path: TEST_PATH.to_owned(),
            content: test.to_owned(),
        },
        overrides: overrides
            .iter()
            .map(|(p, c)| FileOverride {
                rel_path: (*p).to_owned(),
                content: (*c).to_owned(),
            })
            .collect(),
        removed: vec![],
        timeout: Duration::from_secs(timeout_s),
        trace: vec![],
        tracer: Default::default(),
        per_test: false,
        select: vec![],
        stop_at_first_failure: false,
    }
}

/// Every path under `root` with a hash of what it is (file content, symlink target, dir).
fn tree_hashes(root: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let digest = if meta.is_symlink() {
                format!("link:{}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                walk(root, &path, out);
                "dir".to_owned()
            } else {
                let bytes = std::fs::read(&path).unwrap();
                format!("{:x}", Sha256::digest(&bytes))
            };
            out.insert(rel, digest);
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn outcomes_of_real_pytest_runs() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let exec = executor(repo.path(), 2);
    assert_eq!(exec.parallelism(), 2);
    assert!(exec.describe().starts_with("local: 2 workers, python 3."));
    let id = format!("{TEST_PATH}::test_it");

    let (passed, failed, crashed, import, empty, pythonpath, isolation) = tokio::join!(
        exec.run(request(
            "from calc.ops import add\n\ndef test_it():\n    assert add(2, 3) == 5\n",
            &[],
            30
        )),
        exec.run(request(
            "from calc.ops import add\n\ndef test_it():\n    assert add(2, 2) == 5\n",
            &[],
            30
        )),
        exec.run(request(
            "from calc.ops import divide\n\ndef test_it():\n    divide(1, 0)\n",
            &[],
            30
        )),
        exec.run(request(
            "import calc.missing\n\ndef test_it():\n    pass\n",
            &[],
            30
        )),
        exec.run(request("VALUE = 1\n", &[], 30)),
        exec.run(request(
            "from extra.helper import GREETING\n\ndef test_it():\n    assert GREETING == 'hi'\n",
            &[],
            30
        )),
        // pytest dies with its parent (PR_GET_PDEATHSIG = 2), has a private home and temp
        // dir, and writes no bytecode.
        exec.run(request(
            "import ctypes, os, sys, tempfile\n\n\
             def test_it():\n    \
                 sig = ctypes.c_int()\n    \
                 ctypes.CDLL(None).prctl(2, ctypes.byref(sig))\n    \
                 assert sig.value == 9\n    \
                 assert os.path.expanduser('~').endswith('/run/home')\n    \
                 assert tempfile.gettempdir().endswith('/run/tmp')\n    \
                 assert sys.dont_write_bytecode and os.environ['PYTHONHASHSEED'] == '0'\n",
            &[],
            30
        )),
    );

    let passed = passed.unwrap();
    assert_eq!(passed.outcome, Outcome::Passed, "{}", passed.raw_log);
    assert_eq!(passed.exit_code, Some(0));
    assert_eq!(
        passed.status_map.get(&id).map(String::as_str),
        Some("PASSED")
    );
    assert_eq!(passed.counts.passed, 1);
    assert!(passed.normalized_log.contains("<N> passed in <DUR>"));
    eprintln!("trivial passing pytest run: {:?}", passed.duration);

    let failed = failed.unwrap();
    assert_eq!(failed.outcome, Outcome::Failed, "{}", failed.raw_log);
    assert_eq!(failed.failure_kind, Some(FailureKind::Assertion));
    assert_eq!(failed.exception.as_deref(), Some("AssertionError"));
    assert_eq!(failed.exit_code, Some(1));
    assert!(
        failed.raw_log.contains("assert 4 == 5"),
        "{}",
        failed.raw_log
    );
    assert!(failed.normalized_log.contains("E assert <N> == <N>"));

    let crashed = crashed.unwrap();
    assert_eq!(crashed.outcome, Outcome::Failed);
    assert_eq!(crashed.failure_kind, Some(FailureKind::Other));
    assert_eq!(crashed.exception.as_deref(), Some("ZeroDivisionError"));
    assert!(
        crashed
            .normalized_log
            .contains("E ZeroDivisionError: division by zero")
    );

    let import = import.unwrap();
    assert_eq!(import.outcome, Outcome::Error);
    assert_eq!(import.failure_kind, None);
    assert_eq!(import.exception.as_deref(), Some("ModuleNotFoundError"));
    assert_eq!(
        import.status_map.get(TEST_PATH).map(String::as_str),
        Some("ERROR")
    );

    let empty = empty.unwrap();
    assert_eq!(empty.outcome, Outcome::Error);
    assert_eq!(empty.exit_code, Some(5));
    assert!(empty.status_map.is_empty());

    let pythonpath = pythonpath.unwrap();
    assert_eq!(
        pythonpath.outcome,
        Outcome::Passed,
        "{}",
        pythonpath.raw_log
    );
    let isolation = isolation.unwrap();
    assert_eq!(isolation.outcome, Outcome::Passed, "{}", isolation.raw_log);

    // Logs never show where the worker lives.
    for r in [&passed, &failed, &crashed, &import] {
        assert!(
            !r.normalized_log.contains("evootter-"),
            "{}",
            r.normalized_log
        );
    }
}

fn alive(pid: i32) -> bool {
    // A zombie waiting for a container's init to reap it is dead for our purposes.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

/// SIGKILL is delivered asynchronously: give the kernel a moment before calling a process a
/// survivor.
async fn gone(pid: i32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

fn live_members_of_group(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        // After the command: state, ppid, pgrp.
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid) && fields[0] != "Z" {
            members.push(pid);
        }
    }
    members
}

/// A hanging test that also started a subprocess: both must be gone after the timeout.
fn hanging_test(pid_file: &Path) -> String {
    format!(
        "import os, subprocess, time\n\n\
         def test_it():\n    \
             child = subprocess.Popen(['sleep', '300'])\n    \
             with open({path:?}, 'w') as f:\n        \
                 f.write('%d %d' % (os.getpid(), child.pid))\n    \
             print('about to hang', flush=True)\n    \
             time.sleep(300)\n",
        path = pid_file.display().to_string()
    )
}

fn read_pids(pid_file: &Path) -> (i32, i32) {
    let text = std::fs::read_to_string(pid_file).expect("the hanging test wrote its pids");
    let mut it = text.split_whitespace().map(|p| p.parse::<i32>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn timeout_kills_the_whole_process_group() {
    let _guard = EXCLUSIVE.write().await;
    let repo = fixture_repo();
    let scratch = tempfile::tempdir().unwrap();
    let exec = plain_executor(repo.path(), 2);

    let mut normalized = Vec::new();
    for i in 0..2 {
        let pid_file = scratch.path().join(format!("pids-{i}"));
        let started = Instant::now();
        let r = exec
            .run_on(i, request(&hanging_test(&pid_file), &[], 2))
            .await
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(r.outcome, Outcome::Timeout);
        assert_eq!(r.exit_code, None);
        // The log so far (pytest captures the test's own print).
        assert!(r.raw_log.contains("collected 1 item"), "{}", r.raw_log);
        assert!(
            r.raw_log.ends_with(&format!("{TIMEOUT_MARKER} 2s\n")),
            "{}",
            r.raw_log
        );
        let (python_pid, sleep_pid) = read_pids(&pid_file);
        assert!(!alive(python_pid), "pytest {python_pid} survived");
        assert!(
            !alive(sleep_pid),
            "the test's subprocess {sleep_pid} survived"
        );
        assert!(live_members_of_group(python_pid).is_empty());
        normalized.push(r.normalized_log);
    }
    assert_eq!(normalized[0], normalized[1]);
    assert_eq!(normalized[0], "[evootter] timeout after <N>s\n");
    for i in 0..2 {
        let copy = exec.worker_copy(i).unwrap();
        assert!(!copy.join("tests/issue").exists());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_all_running_stops_a_run() {
    let _guard = EXCLUSIVE.write().await;
    let repo = fixture_repo();
    let scratch = tempfile::tempdir().unwrap();
    let pid_file = scratch.path().join("pids");
    let exec = plain_executor(repo.path(), 1);
    let started = Instant::now();
    let killer = async {
        while !pid_file.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        kill_all_running();
    };
    let (r, ()) = tokio::join!(exec.run(request(&hanging_test(&pid_file), &[], 60)), killer);
    let r = r.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(r.outcome, Outcome::Error, "killed by a signal, no report");
    assert_eq!(r.exit_code, None);
    let (python_pid, sleep_pid) = read_pids(&pid_file);
    assert!(gone(python_pid).await && gone(sleep_pid).await);
}

/// Where a worker's pristine content lives outside a run: the rescan executor's own copy,
/// or the overlay executor's base (its worker path is an empty mount point).
fn pristine(exec: &LocalExecutor) -> PathBuf {
    let copy = exec.worker_copy(0).unwrap();
    if copy.join("calc").exists() {
        copy.to_owned()
    } else {
        exec.base_copy().to_owned()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn overrides_change_results_and_the_copy_is_restored() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let before = tree_hashes(repo.path());
    for exec in both_executors(repo.path(), 1) {
        let copy = pristine(&exec);
        let copy_before = tree_hashes(&copy);
        let base_before = tree_hashes(exec.base_copy());
        assert!(!copy.join(".git").exists());
        assert!(!copy.join("node_modules").exists());
        assert!(!copy.join("calc/__pycache__").exists());
        assert_eq!(
            std::fs::read_link(copy.join("calc_link")).unwrap(),
            Path::new("calc")
        );

        let test = "from calc.ops import add\n\ndef test_it():\n    assert add(2, 3) == 5\n";
        let c_old = exec.run(request(test, &[], 30)).await.unwrap();
        assert_eq!(c_old.outcome, Outcome::Passed, "{}", c_old.raw_log);
        let mutant = OPS.replace("a + b", "a - b");
        let killed = exec
            .run(request(test, &[("calc/ops.py", &mutant)], 30))
            .await
            .unwrap();
        assert_eq!(killed.outcome, Outcome::Failed, "{}", killed.raw_log);
        assert!(
            killed.raw_log.contains("assert -1 == 5"),
            "{}",
            killed.raw_log
        );
        assert_ne!(c_old.normalized_log, killed.normalized_log);
        assert!(killed.changed.is_empty(), "{:?}", killed.changed);

        // A candidate replacing an existing test module, plus a new file in a new package.
        let mut req = request("", &[("calc/new/extra.py", "X = 1\n")], 30);
        req.test.rel_path = "./tests/test_existing.py".to_owned();
        req.test.content =
            "from calc.new.extra import X\n\ndef test_x():\n    assert X == 1\n".into();
        let replaced = exec.run(req).await.unwrap();
        assert_eq!(replaced.outcome, Outcome::Passed, "{}", replaced.raw_log);
        assert!(
            replaced
                .status_map
                .contains_key("tests/test_existing.py::test_x")
        );

        // Paths that would leave the copy are refused before anything is written.
        for bad in [
            "../escape.py",
            "/tmp/abs.py",
            "calc/../../x.py",
            "-p.py",
            "",
        ] {
            let r = exec.run(request(test, &[(bad, "x")], 30)).await;
            assert!(r.is_err(), "{bad} accepted");
        }
        std::os::unix::fs::symlink(repo.path(), copy.join("escape_link")).unwrap();
        let r = exec
            .run(request(test, &[("escape_link/calc/ops.py", "boom")], 30))
            .await;
        assert!(
            r.unwrap_err()
                .to_string()
                .contains("outside the working copy")
        );
        // (The rescan seal already removed it from its copy, as anything not made by it.)
        let _ = std::fs::remove_file(copy.join("escape_link"));

        assert_eq!(tree_hashes(&copy), copy_before, "worker copy not pristine");
        assert_eq!(tree_hashes(exec.base_copy()), base_before, "base changed");
        assert_eq!(
            std::fs::read_to_string(copy.join("calc/ops.py")).unwrap(),
            OPS
        );
        assert!(!copy.join(TEST_PATH).exists());
        drop(exec);
        assert!(!copy.exists(), "run root removed on drop");
    }
    assert_eq!(
        tree_hashes(repo.path()),
        before,
        "user's repository changed"
    );
}

/// Whatever a test does to its working copy (rewrite in place, delete, rename, chmod,
/// symlink, create), the next run starts from exactly the repository's content, and the
/// changes are named in the log.
#[tokio::test(flavor = "multi_thread")]
async fn what_a_test_does_to_its_copy_never_reaches_the_next_run() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let messy = "import os, shutil\n\n\
                 def test_messy():\n    \
                     open('report.txt', 'w').write('x')\n    \
                     os.makedirs('out/deep')\n    \
                     open('tests/issue/data.json', 'w').write('{}')\n    \
                     open('calc/ops.py', 'w').write('raise SystemExit(\"vandalized\")\\n')\n    \
                     os.remove('calc/const.py')\n    \
                     os.rename('calc/__init__.py', 'calc/moved.py')\n    \
                     os.chmod('tests/test_existing.py', 0o600)\n    \
                     os.symlink('/etc/hostname', 'calc/link')\n    \
                     shutil.rmtree('src')\n";
    let check = "import os, stat\n\n\
                 def test_clean():\n    \
                     assert not os.path.exists('report.txt')\n    \
                     assert not os.path.exists('out')\n    \
                     assert not os.path.exists('calc/moved.py')\n    \
                     assert not os.path.lexists('calc/link')\n    \
                     assert stat.S_IMODE(os.stat('tests/test_existing.py').st_mode) == 0o644\n    \
                     from calc.const import VALUE\n    \
                     from calc.ops import add\n    \
                     from extra.helper import GREETING\n    \
                     assert (VALUE, GREETING, add(1, 2)) == (1, 'hi', 3)\n";
    let mut changes = vec![];
    for exec in both_executors(repo.path(), 1) {
        let copy = pristine(&exec);
        let before = tree_hashes(&copy);
        let r = exec.run(request(messy, &[], 30)).await.unwrap();
        assert_eq!(r.outcome, Outcome::Passed, "{}", r.raw_log);
        assert!(
            r.raw_log
                .contains("[evootter] this run changed its working copy"),
            "{}",
            r.raw_log
        );
        assert_eq!(tree_hashes(&copy), before, "the copy is as it was made");
        let r = exec.run(request(check, &[], 30)).await.unwrap();
        assert_eq!(r.outcome, Outcome::Passed, "{}", r.raw_log);
        assert!(r.changed.is_empty());
        changes.push(exec.run(request(messy, &[], 30)).await.unwrap().changed);
    }
    assert_eq!(
        changes[0],
        [
            "created calc/link",
            "created calc/moved.py",
            "created out/",
            "created report.txt",
            "created tests/issue/data.json",
            "deleted calc/__init__.py",
            "deleted calc/const.py",
            "deleted src/",
            "modified calc/ops.py",
            "modified tests/test_existing.py",
        ]
    );
    assert_eq!(changes[0], changes[1], "both seals describe changes alike");
}

/// A golden patch that deletes a file: the file is absent for that run only.
#[tokio::test(flavor = "multi_thread")]
async fn removed_files_are_absent_for_one_run() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    for exec in both_executors(repo.path(), 1) {
        let copy = pristine(&exec);
        let before = tree_hashes(&copy);
        let test =
            "import os\n\ndef test_gone():\n    assert not os.path.exists('calc/const.py')\n";
        let mut req = request(test, &[], 30);
        req.removed = vec!["calc/const.py".into(), "calc/never_existed.py".into()];
        let r = exec.run(req).await.unwrap();
        assert_eq!(r.outcome, Outcome::Passed, "{}", r.raw_log);
        assert!(r.changed.is_empty(), "{:?}", r.changed);
        assert_eq!(tree_hashes(&copy), before);
        let r = exec.run(request(test, &[], 30)).await.unwrap();
        assert_eq!(r.outcome, Outcome::Failed, "back for the next run");
        let mut req = request(test, &[], 30);
        req.removed = vec!["../outside.py".into()];
        assert!(exec.run(req).await.is_err(), "paths stay inside the copy");
    }
}

/// Processes a test starts in a new session, double-forked daemons included, do not outlive
/// the run, whether it passes or times out.
#[tokio::test(flavor = "multi_thread")]
async fn no_process_outlives_its_run() {
    let _guard = EXCLUSIVE.write().await;
    let repo = fixture_repo();
    for (i, exec) in both_executors(repo.path(), 1).into_iter().enumerate() {
        let marker = format!("30{i}.{}", std::process::id());
        let test = format!(
            "import os, subprocess, time\n\n\
             def test_it():\n    \
                 subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n    \
                 if os.fork() == 0:\n        \
                     os.setsid()\n        \
                     if os.fork() == 0:\n            \
                         os.execvp('sleep', ['sleep', '{marker}1'])\n        \
                     os._exit(0)\n    \
                 time.sleep(0.5)\n"
        );
        for timeout in [30, 1] {
            let mut t = test.clone();
            if timeout == 1 {
                t.push_str("    time.sleep(60)\n");
            }
            let r = exec.run(request(&t, &[], timeout)).await.unwrap();
            let want = if timeout == 1 {
                Outcome::Timeout
            } else {
                Outcome::Passed
            };
            assert_eq!(r.outcome, want, "{}", r.raw_log);
            let mut left = vec![];
            for _ in 0..100 {
                left = sleepers(&marker);
                if left.is_empty() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert!(
                left.is_empty(),
                "{} left {left:?}",
                exec.protections().describe()
            );
        }
    }
}

/// Live `sleep` processes whose argument starts with `marker`.
fn sleepers(marker: &str) -> Vec<String> {
    let mut out = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.starts_with("sleep ") && cmd.contains(marker) && alive_path(&e.path()) {
            out.push(cmd);
        }
    }
    out
}

fn alive_path(proc_dir: &Path) -> bool {
    std::fs::read_to_string(proc_dir.join("stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            != Some("Z")
    })
}

/// The sandbox: no network beyond the run's own loopback, no writes outside the copy, its
/// temp dir and home; what it refused is said in the log. `--no-sandbox` lifts both.
#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_refuses_network_and_outside_writes_and_says_so() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("pwned.txt");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let test = format!(
        "import os, socket\n\n\
         def test_it():\n    \
             srv = socket.socket()\n    \
             srv.bind(('127.0.0.1', 0))\n    \
             srv.listen()\n    \
             socket.create_connection(srv.getsockname(), timeout=2).close()\n    \
             open(os.path.expanduser('~/cache.txt'), 'w').write('ok')\n    \
             try:\n        \
                 socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'x')\n        \
                 reached = True\n    \
             except OSError:\n        \
                 reached = False\n    \
             open({target:?}, 'w').write('x')\n    \
             assert not reached\n",
        target = target.display().to_string()
    );
    let exec = executor(repo.path(), 1);
    let r = exec.run(request(&test, &[], 30)).await.unwrap();
    assert_eq!(r.outcome, Outcome::Failed, "{}", r.raw_log);
    assert!(r.raw_log.contains("PermissionError"), "{}", r.raw_log);
    assert!(
        r.raw_log.contains(&format!(
            "[evootter] sandbox: writes outside the working copy, its temp dir and home are \
             refused, and this run tried {}",
            target.display()
        )),
        "{}",
        r.raw_log
    );
    assert_eq!(r.denied.len(), 1, "{:?}", r.denied);
    assert!(!target.exists(), "a write outside the copy got through");
    assert!(
        listener.accept().is_err(),
        "the host's listener was reached"
    );

    let open = executor_with(
        repo.path(),
        1,
        Wanted {
            sandbox: false,
            namespaces: true,
        },
    );
    let r = open.run(request(&test, &[], 30)).await.unwrap();
    assert!(target.exists(), "--no-sandbox writes where the test says");
    assert!(
        listener.accept().is_ok(),
        "--no-sandbox reaches the network"
    );
    assert_eq!(
        r.outcome,
        Outcome::Failed,
        "assert not reached: {}",
        r.raw_log
    );
    assert!(r.denied.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn two_workers_give_identical_normalized_logs() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let exec = executor(repo.path(), 2);
    // Addresses, the per-worker tmp_path, absolute paths and a duration all differ raw.
    let test = "import calc.ops\n\n\
                def test_it(tmp_path):\n    \
                    p = tmp_path / 'out.txt'\n    \
                    p.write_text('x')\n    \
                    assert calc.ops.__file__ == str(p), object()\n";
    let (a, b) = tokio::join!(
        exec.run_on(0, request(test, &[], 30)),
        exec.run_on(1, request(test, &[], 30))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.outcome, Outcome::Failed, "{}", a.raw_log);
    assert_ne!(a.raw_log, b.raw_log);
    assert!(
        a.normalized_log.contains("<WORK>/calc/ops.py"),
        "{}",
        a.normalized_log
    );
    assert!(
        a.normalized_log.contains("<TMP>/test_it0/out.txt"),
        "{}",
        a.normalized_log
    );
    assert!(a.normalized_log.contains("0xADDR"), "{}", a.normalized_log);
    assert_eq!(a.normalized_log, b.normalized_log);
    assert_eq!(a.status_map, b.status_map);
}

/// CPython trusts a cached .pyc when the source's size and mtime second match. Same-size
/// variants of one module run back to back must still each see their own code.
#[tokio::test(flavor = "multi_thread")]
async fn same_size_variants_never_see_stale_bytecode() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let exec = executor(repo.path(), 1);
    let test = "from calc.const import VALUE\n\ndef test_it():\n    assert VALUE == 1\n";
    let one = "VALUE = 1\n";
    let two = "VALUE = 2\n";
    let mut outcomes = Vec::new();
    for variant in [one, two, one, two] {
        let r = exec
            .run(request(test, &[("calc/const.py", variant)], 30))
            .await
            .unwrap();
        outcomes.push(r.outcome);
    }
    use Outcome::{Failed, Passed};
    assert_eq!(outcomes, [Passed, Failed, Passed, Failed]);
}

/// Prints per-execution cost: `cargo test measure_overhead -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn measure_overhead() {
    let _guard = EXCLUSIVE.write().await;
    let repo = fixture_repo();
    let exec = executor(repo.path(), 2);
    let test = "def test_it():\n    assert True\n";
    let started = Instant::now();
    let mut pytest = Duration::ZERO;
    for _ in 0..10 {
        pytest += exec.run(request(test, &[], 30)).await.unwrap().duration;
    }
    let sequential = started.elapsed() / 10;
    let started = Instant::now();
    for _ in 0..5 {
        let (a, b) = tokio::join!(
            exec.run(request(test, &[], 30)),
            exec.run(request(test, &[], 30))
        );
        assert_eq!(
            (a.unwrap().outcome, b.unwrap().outcome),
            (Outcome::Passed, Outcome::Passed)
        );
    }
    eprintln!(
        "sequential: {sequential:?} per run ({:?} inside pytest); 2 workers, 10 runs: {:?}",
        pytest / 10,
        started.elapsed()
    );
}

/// An engine that gives up on a run (drops its future) must still get its processes killed
/// and the copy restored.
#[tokio::test(flavor = "multi_thread")]
async fn dropped_run_kills_and_restores() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let scratch = tempfile::tempdir().unwrap();
    let pid_file = scratch.path().join("pids");
    let exec = plain_executor(repo.path(), 1);
    let copy = exec.worker_copy(0).unwrap().to_owned();
    let before = tree_hashes(&copy);
    let mutant = OPS.replace("a / b", "a * b");
    let run = exec.run(request(
        &hanging_test(&pid_file),
        &[("calc/ops.py", &mutant)],
        60,
    ));
    let waiter = async {
        while !pid_file.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    tokio::select! {
        _ = run => panic!("the hanging run finished"),
        () = waiter => {}
    }
    let (python_pid, sleep_pid) = read_pids(&pid_file);
    assert!(gone(python_pid).await && gone(sleep_pid).await);
    assert_eq!(tree_hashes(&copy), before);
    // The worker is free again.
    let r = exec
        .run(request("def test_it():\n    pass\n", &[], 30))
        .await
        .unwrap();
    assert_eq!(r.outcome, Outcome::Passed);
}

/// A traced run says which lines of a file ran, and logs exactly as an untraced one.
#[tokio::test(flavor = "multi_thread")]
async fn a_traced_run_records_the_lines_that_ran_and_logs_the_same() {
    let _guard = EXCLUSIVE.read().await;
    let repo = fixture_repo();
    let exec = executor(repo.path(), 1);
    let test = "from calc.ops import add\n\ndef test_it():\n    assert add(2, 3) == 6\n";
    let plain = exec.run(request(test, &[], 30)).await.unwrap();
    let mut req = request(test, &[], 30);
    req.trace = vec!["calc/ops.py".into()];
    let traced = exec.run(req).await.unwrap();
    assert_eq!(plain.normalized_log, traced.normalized_log);
    assert_eq!(plain.outcome, traced.outcome);
    assert!(plain.trace.is_none());
    // OPS: `def add` on line 1, its body on line 2; `divide` (lines 5-6) never runs.
    let lines = traced.lines_of("calc/ops.py").expect("a trace");
    assert!(lines.contains(&2), "{lines:?}");
    assert!(!lines.contains(&6), "{lines:?}");
    assert!(traced.changed.is_empty(), "{:?}", traced.changed);
}
