//! The local executor: pytest runs in private copies of the repository ("workers"), one run per
//! worker at a time. Each run places the candidate test and the mutant's files into a worker's
//! copy, runs pytest deterministically in its own process group, and restores the copy, so the
//! user's repository is only ever read.

use crate::exec::junit::{read_junit, reconcile_exit_code, refine_with_log};
use crate::exec::leftovers::TreeSnapshot;
use crate::exec::normalize::normalize_log;
use crate::exec::types::{
    BoxFuture, ExecError, ExecRequest, ExecResult, Executor, FileOverride, Outcome, TestCounts,
};
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Directory and file names never copied into a worker: version control, caches (a stale
/// `__pycache__` would shadow a mutant), and environments that can be huge.
const SKIPPED_NAMES: &[&str] = &[
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".tox",
    ".venv",
    "venv",
    "node_modules",
];

/// Whether a directory entry of this name belongs in a working copy.
pub fn is_copied(name: &str) -> bool {
    !(SKIPPED_NAMES.contains(&name) || name.ends_with(".pyc") || name.ends_with(".pyo"))
}

/// Output beyond this is dropped (a test printing in a loop must not exhaust memory).
const MAX_LOG_BYTES: usize = 8 << 20;

/// How long to wait for the log pipe to close after the process group is dead; only a
/// process that escaped the group (`setsid`) can hold it longer.
const LOG_DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Prefix of the line appended to the raw log of a run killed at its timeout.
pub const TIMEOUT_MARKER: &str = "[evootter] timeout after";

#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// The user's repository; read, never written.
    pub repo: PathBuf,
    /// An interpreter that imports pytest (see `python_env::resolve_python`).
    pub python: PathBuf,
    /// Directories relative to the repository root put on PYTHONPATH after the root itself
    /// (for example `src` for src-layout projects).
    pub pythonpath: Vec<String>,
    /// Number of worker copies, i.e. concurrent pytest runs.
    pub jobs: usize,
}

struct Worker {
    copy: PathBuf,
    /// The copy's directory tree as made, to undo what a test writes or deletes.
    tree: Mutex<TreeSnapshot>,
    scratch: PathBuf,
    basetemp: PathBuf,
    junit: PathBuf,
}

pub struct LocalExecutor {
    /// The user's repository: the source the copies are made from and restored from.
    repo: PathBuf,
    id: u64,
    workers: Vec<Worker>,
    free: Mutex<Vec<usize>>,
    permits: tokio::sync::Semaphore,
    python: PathBuf,
    pythonpath: Vec<String>,
    python_version: String,
    // Last field: dropped after everything that refers to paths inside it.
    _run_root: tempfile::TempDir,
}

/// Process groups of running pytest processes, with the executor that started each, so a
/// Ctrl-C handler can kill them all and a dropped executor its own.
static RUNNING: LazyLock<Mutex<HashMap<i32, u64>>> = LazyLock::new(Default::default);
static NEXT_EXECUTOR_ID: AtomicU64 = AtomicU64::new(1);

fn running() -> MutexGuard<'static, HashMap<i32, u64>> {
    RUNNING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Kills every pytest process group any executor in this process has running. For the Ctrl-C
/// handler: the runs themselves then see their processes die and clean up their copies.
pub fn kill_all_running() {
    for &pgid in running().keys() {
        // SAFETY: killpg has no memory-safety preconditions.
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
    }
}

impl LocalExecutor {
    /// Creates `jobs` private copies of `cfg.repo` under one temporary run root (removed when
    /// the executor is dropped) and checks that the interpreter starts.
    pub fn new(cfg: LocalConfig) -> Result<Self, ExecError> {
        let repo = cfg
            .repo
            .canonicalize()
            .map_err(|source| working_copy(&cfg.repo, source))?;
        let version = std::process::Command::new(&cfg.python)
            .args(["-c", "import sys; print(sys.version.split()[0])"])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .output()
            .map_err(|source| ExecError::Spawn {
                python: cfg.python.display().to_string(),
                source,
            })?;
        let python_version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
        if !version.status.success() || python_version.is_empty() {
            return Err(ExecError::Other(format!(
                "`{}` did not run: {}",
                cfg.python.display(),
                String::from_utf8_lossy(&version.stderr).trim()
            )));
        }

        let run_root = create_run_root()?;
        // Canonical, because pytest prints real paths and normalization replaces them literally.
        let root = run_root
            .path()
            .canonicalize()
            .map_err(|source| working_copy(run_root.path(), source))?;
        if root.starts_with(&repo) {
            return Err(ExecError::Other(format!(
                "the temporary directory {} is inside the repository {}; set TMPDIR elsewhere",
                root.display(),
                repo.display()
            )));
        }
        let jobs = cfg.jobs.max(1);
        // Equal-length worker paths: pytest shortens long reprs mid-string, and the cut must
        // fall at the same place in every worker for their logs to compare equal.
        let width = (jobs - 1).to_string().len();
        let mut workers = Vec::with_capacity(jobs);
        for i in 0..jobs {
            let copy = root.join(format!("worker-{i:0width$}"));
            let scratch = root.join(format!("scratch-{i:0width$}"));
            copy_tree(&repo, &copy)?;
            std::fs::create_dir_all(&scratch).map_err(|source| working_copy(&scratch, source))?;
            workers.push(Worker {
                tree: Mutex::new(TreeSnapshot::take(&copy)),
                basetemp: scratch.join("basetemp"),
                junit: scratch.join("junit.xml"),
                copy,
                scratch,
            });
        }
        Ok(Self {
            repo,
            id: NEXT_EXECUTOR_ID.fetch_add(1, Ordering::Relaxed),
            workers,
            free: Mutex::new((0..jobs).rev().collect()),
            permits: tokio::sync::Semaphore::new(jobs),
            python: cfg.python,
            pythonpath: cfg.pythonpath,
            python_version,
            _run_root: run_root,
        })
    }

    /// The private copy of worker `i` (for tests and diagnostics).
    pub fn worker_copy(&self, i: usize) -> Option<&Path> {
        self.workers.get(i).map(|w| w.copy.as_path())
    }

    async fn acquire(&self) -> Result<Lease<'_>, ExecError> {
        let permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ExecError::Other("executor is shutting down".to_owned()))?;
        let idx = lock(&self.free)
            .pop()
            .ok_or_else(|| ExecError::Other("no free worker despite a permit".to_owned()))?;
        Ok(Lease {
            idx,
            free: &self.free,
            _permit: permit,
        })
    }

    /// Runs on a specific worker, waiting until it is free; lets tests compare workers.
    pub async fn run_on(&self, worker: usize, req: ExecRequest) -> Result<ExecResult, ExecError> {
        if worker >= self.workers.len() {
            return Err(ExecError::Other(format!("no worker {worker}")));
        }
        loop {
            let permit = self
                .permits
                .acquire()
                .await
                .map_err(|_| ExecError::Other("executor is shutting down".to_owned()))?;
            let taken = {
                let mut free = lock(&self.free);
                let pos = free.iter().position(|&i| i == worker);
                pos.map(|pos| free.remove(pos))
            };
            if let Some(idx) = taken {
                let lease = Lease {
                    idx,
                    free: &self.free,
                    _permit: permit,
                };
                return self.run_in(lease, req).await;
            }
            drop(permit);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    async fn run_in(&self, lease: Lease<'_>, req: ExecRequest) -> Result<ExecResult, ExecError> {
        let w = &self.workers[lease.idx];
        let test_rel = checked_rel_path(&req.test.rel_path)?;

        // Declared before the process guard so it is dropped after it: the copy is restored
        // only once every process that could still read it is dead.
        let mut staging = Staging::new(&w.copy);
        staging.cleanup.push(w.junit.clone());
        remove_path(&w.junit);
        staging.place(&req.test)?;
        for file in &req.overrides {
            staging.place(file)?;
        }
        for rel in &req.removed {
            staging.remove(rel)?;
        }

        let mut pythonpath = vec![w.copy.display().to_string()];
        for dir in &self.pythonpath {
            let dir = dir.trim_matches('/');
            if !dir.is_empty() && dir != "." {
                pythonpath.push(w.copy.join(dir).display().to_string());
            }
        }

        let (log_read, log_write) = pipe().map_err(|e| ExecError::Other(format!("pipe: {e}")))?;
        let log_write2 = log_write
            .try_clone()
            .map_err(|e| ExecError::Other(format!("pipe: {e}")))?;
        let mut cmd = tokio::process::Command::new(&self.python);
        cmd.args(["-B", "-m", "pytest"])
            .arg(&test_rel)
            .args([
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "-p",
                "no:random_order",
            ])
            .args(["--no-header", "-rA", "--tb=short", "--color=no"])
            .arg(format!("--basetemp={}", w.basetemp.display()))
            .arg(format!("--junitxml={}", w.junit.display()))
            .current_dir(&w.copy)
            .stdin(Stdio::null())
            // One pipe behind both streams keeps stdout and stderr in the order written.
            .stdout(Stdio::from(log_write))
            .stderr(Stdio::from(log_write2))
            // The user's extra pytest options and forced colours would make logs differ from
            // run to run and machine to machine.
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("FORCE_COLOR")
            .env_remove("PY_COLORS")
            // pytest stops truncating assertion explanations when it believes it runs on CI
            // (`CI` or `BUILD_NUMBER` set), which changes which mutants a log difference
            // reveals: the kill matrix would depend on where evootter runs.
            .env_remove("CI")
            .env_remove("BUILD_NUMBER")
            .env("COLUMNS", "80")
            .env("PYTHONHASHSEED", "0")
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env("LC_ALL", "C.UTF-8")
            .env("PYTHONUNBUFFERED", "1")
            // CPython trusts a .pyc whose source has the same size and mtime second, which a
            // same-size mutant written right after c_old has. So no bytecode of the copy may
            // ever exist: none is copied, none is written (`-B` and this), and no prefix
            // elsewhere is consulted. The interpreter's own cached stdlib and site-packages
            // are still read: a fresh PYTHONPYCACHEPREFIX would hide those too and recompile
            // them every run (about 1.2 s of a 1.7 s trivial run, measured).
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("PYTHONPYCACHEPREFIX")
            .env("PYTHONPATH", pythonpath.join(":"))
            .process_group(0);
        let parent = std::process::id();
        // SAFETY: the closure only calls async-signal-safe functions (prctl, getppid, _exit).
        unsafe {
            cmd.pre_exec(move || {
                // The kernel kills pytest when evootter dies, even by SIGKILL. Strictly, when
                // the spawning thread dies: runs are polled on runtime worker threads, which
                // live as long as the runtime, never on short-lived blocking threads.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                // evootter died between fork and prctl: nobody will ever read this run.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }

        let started = Instant::now();
        let spawned = cmd.spawn();
        // Our copies of the pipe's write end must close, or the log never reaches EOF.
        drop(cmd);
        let mut child = spawned.map_err(|source| ExecError::Spawn {
            python: self.python.display().to_string(),
            source,
        })?;
        let pgid = child.id().map(|pid| pid as i32).unwrap_or(0);
        let group = GroupGuard::register(pgid, self.id);
        let reader = LogReader::spawn(log_read);

        let status = match tokio::time::timeout(req.timeout, child.wait()).await {
            Ok(status) => Some(status.map_err(|e| ExecError::Other(format!("wait: {e}")))?),
            Err(_) => {
                group.kill();
                let _ = child.wait().await;
                None
            }
        };
        let duration = started.elapsed();
        // Kills what the test left running in the group (servers, subprocesses), then lets go.
        drop(group);
        let bytes = reader.finish().await;
        let mut raw_log = String::from_utf8_lossy(&bytes).into_owned();

        let roots = vec![
            (w.copy.display().to_string(), "<WORK>"),
            (w.basetemp.display().to_string(), "<TMP>"),
            (w.scratch.display().to_string(), "<TMP>"),
        ];
        let result = match status {
            None => {
                if !raw_log.is_empty() && !raw_log.ends_with('\n') {
                    raw_log.push('\n');
                }
                let marker = format!("{TIMEOUT_MARKER} {}s\n", req.timeout.as_secs_f64());
                raw_log.push_str(&marker);
                ExecResult {
                    outcome: Outcome::Timeout,
                    failure_kind: None,
                    exception: None,
                    exit_code: None,
                    // Only the marker: how far a hanging test got before the kill is timing.
                    normalized_log: normalize_log(&marker, &[]),
                    raw_log,
                    status_map: BTreeMap::new(),
                    counts: TestCounts::default(),
                    duration,
                }
            }
            Some(status) => {
                let exit_code = status.code();
                let mut report = read_junit(&w.junit, &test_rel);
                refine_with_log(&mut report, &raw_log);
                let outcome = reconcile_exit_code(report.outcome, exit_code);
                ExecResult {
                    outcome,
                    failure_kind: report.failure_kind.filter(|_| outcome == Outcome::Failed),
                    exception: report.exception,
                    exit_code,
                    normalized_log: normalize_log(&raw_log, &roots),
                    raw_log,
                    status_map: report.status_map,
                    counts: report.counts,
                    duration,
                }
            }
        };
        staging.restore()?;
        lock(&w.tree).sweep(&w.copy, &self.repo);
        drop(lease);
        Ok(result)
    }
}

impl Executor for LocalExecutor {
    fn run(&self, req: ExecRequest) -> BoxFuture<'_, Result<ExecResult, ExecError>> {
        Box::pin(async move {
            let lease = self.acquire().await?;
            self.run_in(lease, req).await
        })
    }

    fn parallelism(&self) -> usize {
        self.workers.len()
    }

    fn describe(&self) -> String {
        format!(
            "local: {} worker{}, python {}",
            self.workers.len(),
            if self.workers.len() == 1 { "" } else { "s" },
            self.python_version
        )
    }
}

impl Drop for LocalExecutor {
    fn drop(&mut self) {
        let mut running = running();
        running.retain(|&pgid, &mut owner| {
            if owner == self.id {
                // SAFETY: killpg has no memory-safety preconditions.
                unsafe { libc::killpg(pgid, libc::SIGKILL) };
                false
            } else {
                true
            }
        });
    }
}

/// `$TMPDIR/evootter-<pid>-<n>`: a name whose only varying characters are digits, so even a
/// fragment of it that pytest printed after shortening a path (which the literal root
/// replacement cannot match) normalizes the same in every worker and every run.
fn create_run_root() -> Result<tempfile::TempDir, ExecError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(|| remove_orphaned_run_roots(&std::env::temp_dir()));
    loop {
        let name = format!(
            "evootter-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        match tempfile::Builder::new()
            .prefix(&name)
            .rand_bytes(0)
            .tempdir()
        {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            other => {
                return other
                    .map_err(|source| working_copy(&std::env::temp_dir().join(&name), source));
            }
        }
    }
}

/// Remove `evootter-<pid>-<n>` run roots whose process is gone: a run killed with SIGKILL
/// cannot delete its own working copies.
fn remove_orphaned_run_roots(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((pid, n)) = name
            .strip_prefix("evootter-")
            .and_then(|rest| rest.split_once('-'))
        else {
            continue;
        };
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if numeric(pid) && numeric(n) && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn working_copy(path: &Path, source: std::io::Error) -> ExecError {
    ExecError::WorkingCopy {
        path: path.display().to_string(),
        source,
    }
}

/// A worker held for one run; handing the index back before the permit is released keeps
/// "permit available" implying "index in the free list".
struct Lease<'a> {
    idx: usize,
    free: &'a Mutex<Vec<usize>>,
    _permit: tokio::sync::SemaphorePermit<'a>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        lock(self.free).push(self.idx);
    }
}

/// A registered process group, killed when the guard goes (normal end, timeout, or the run's
/// future being dropped).
struct GroupGuard {
    pgid: i32,
}

impl GroupGuard {
    fn register(pgid: i32, owner: u64) -> Self {
        if pgid > 0 {
            running().insert(pgid, owner);
        }
        Self { pgid }
    }

    fn kill(&self) {
        if self.pgid > 0 {
            // SAFETY: killpg has no memory-safety preconditions.
            unsafe { libc::killpg(self.pgid, libc::SIGKILL) };
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        // After the leader is reaped the group id stays reserved while any member lives, so
        // this reaches only stragglers of this run.
        self.kill();
        running().remove(&self.pgid);
    }
}

/// Files placed into a worker copy for one run, and how to undo each: restore the saved
/// original or delete what did not exist, including directories created for it.
struct Staging {
    root: PathBuf,
    placed: Vec<(PathBuf, Option<Vec<u8>>)>,
    created_dirs: Vec<PathBuf>,
    /// Scratch paths outside the copy to remove afterwards (the junit file).
    cleanup: Vec<PathBuf>,
}

impl Staging {
    fn new(root: &Path) -> Self {
        Self {
            root: root.to_owned(),
            placed: Vec::new(),
            created_dirs: Vec::new(),
            cleanup: Vec::new(),
        }
    }

    fn place(&mut self, file: &FileOverride) -> Result<(), ExecError> {
        let rel = checked_rel_path(&file.rel_path)?;
        let target = self.root.join(&rel);
        let parent = target.parent().unwrap_or(&self.root).to_owned();

        let mut missing = Vec::new();
        let mut existing = parent.as_path();
        while !existing.exists() && existing != self.root {
            missing.push(existing.to_owned());
            existing = existing.parent().unwrap_or(&self.root);
        }
        // A symlink in the copy may point back into the user's repository; never write
        // through one that leaves the copy.
        let probe = if target.symlink_metadata().is_ok() {
            &target
        } else {
            existing
        };
        let real = probe
            .canonicalize()
            .map_err(|source| working_copy(probe, source))?;
        if !real.starts_with(&self.root) {
            return Err(ExecError::Other(format!(
                "refusing to write {}: it resolves to {}, outside the working copy",
                file.rel_path,
                real.display()
            )));
        }
        if let Some(top) = missing.last() {
            std::fs::create_dir_all(&parent).map_err(|source| working_copy(&parent, source))?;
            self.created_dirs.push(top.clone());
        }
        if !self.placed.iter().any(|(p, _)| *p == target) {
            let original = match std::fs::read(&target) {
                Ok(bytes) => Some(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(source) => return Err(working_copy(&target, source)),
            };
            self.placed.push((target.clone(), original));
        }
        purge_bytecode(&target);
        std::fs::write(&target, &file.content).map_err(|source| working_copy(&target, source))
    }

    /// Deletes a repository file for one run (a patch that deletes it); restored afterwards.
    fn remove(&mut self, rel: &str) -> Result<(), ExecError> {
        let rel = checked_rel_path(rel)?;
        let target = self.root.join(&rel);
        if target.is_symlink() || !target.is_file() {
            // Nothing to delete here (or a symlink, never followed): the run sees it absent
            // only if it is absent already.
            return Ok(());
        }
        if !self.placed.iter().any(|(p, _)| *p == target) {
            let original =
                std::fs::read(&target).map_err(|source| working_copy(&target, source))?;
            self.placed.push((target.clone(), Some(original)));
        }
        purge_bytecode(&target);
        std::fs::remove_file(&target).map_err(|source| working_copy(&target, source))
    }

    /// Puts the copy back; idempotent, so the `Drop` fallback after an explicit call is a no-op.
    fn restore(&mut self) -> Result<(), ExecError> {
        let mut first_error = None;
        for (path, original) in self.placed.drain(..).rev() {
            let res = match original {
                Some(bytes) => std::fs::write(&path, bytes),
                None => match std::fs::remove_file(&path) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    other => other,
                },
            };
            purge_bytecode(&path);
            if let Err(source) = res {
                first_error.get_or_insert(working_copy(&path, source));
            }
        }
        for dir in self.created_dirs.drain(..).rev() {
            remove_path(&dir);
        }
        for path in self.cleanup.drain(..) {
            remove_path(&path);
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

/// Defence in depth against stale bytecode should something in a run write a `.pyc` after
/// all (a subprocess started without our environment): removes `__pycache__/<stem>.*.pyc`
/// beside a file whose content is about to change, covering both CPython's cache and
/// pytest's assertion-rewrite cache (`<stem>.cpython-311-pytest-9.2.0.pyc`).
fn purge_bytecode(source: &Path) {
    let (Some(dir), Some(stem)) = (source.parent(), source.file_stem()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir.join("__pycache__")) else {
        return;
    };
    let prefix = format!("{}.", stem.to_string_lossy());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".pyc") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

pub(super) fn remove_path(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Only plain relative paths below the copy: no `..`, no absolute paths, no empty names.
/// Returns the path with `./` parts dropped, `/`-separated, as pytest and node ids spell it.
fn checked_rel_path(rel: &str) -> Result<String, ExecError> {
    let path = Path::new(rel);
    let parts: Option<Vec<&str>> = path
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    let clean = parts.map(|p| p.join("/")).unwrap_or_default();
    // A leading `-` would reach pytest as an option.
    if !clean.is_empty() && !clean.starts_with('-') {
        Ok(clean)
    } else {
        Err(ExecError::Other(format!(
            "file path `{rel}` must be relative to the repository root and stay inside it"
        )))
    }
}

/// Copy one entry (file, symlink or directory) of the repository into a copy.
pub(super) fn copy_entry(from: &Path, to: &Path) -> Result<(), ExecError> {
    let meta = std::fs::symlink_metadata(from).map_err(|source| working_copy(from, source))?;
    if meta.is_symlink() {
        let target = std::fs::read_link(from).map_err(|source| working_copy(from, source))?;
        std::os::unix::fs::symlink(&target, to).map_err(|source| working_copy(to, source))
    } else if meta.is_dir() {
        copy_tree(from, to)
    } else {
        std::fs::copy(from, to)
            .map(drop)
            .map_err(|source| working_copy(to, source))
    }
}

/// Recursive copy that skips `SKIPPED_NAMES` and bytecode, keeps symlinks as symlinks and
/// file permissions, and ignores sockets and fifos.
fn copy_tree(from: &Path, to: &Path) -> Result<(), ExecError> {
    std::fs::create_dir_all(to).map_err(|source| working_copy(to, source))?;
    let entries = std::fs::read_dir(from).map_err(|source| working_copy(from, source))?;
    for entry in entries {
        let entry = entry.map_err(|source| working_copy(from, source))?;
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        if !is_copied(&name_str) {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|source| working_copy(&entry.path(), source))?;
        // Sockets and fifos are not copied.
        if kind.is_symlink() || kind.is_dir() || kind.is_file() {
            copy_entry(&entry.path(), &to.join(&name))?;
        }
    }
    Ok(())
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid two-element array for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    unsafe {
        use std::os::fd::FromRawFd;
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// Drains the log pipe on a plain thread (tokio here has no pipe support without `net`),
/// polling so it can be told to stop if an escaped process keeps the pipe open.
struct LogReader {
    rx: tokio::sync::oneshot::Receiver<Vec<u8>>,
    stop: Arc<AtomicBool>,
}

impl LogReader {
    fn spawn(fd: OwnedFd) -> Self {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = stop.clone();
        std::thread::spawn(move || {
            let _ = tx.send(drain(fd, &stop_flag));
        });
        Self { rx, stop }
    }

    async fn finish(mut self) -> Vec<u8> {
        if let Ok(Ok(bytes)) = tokio::time::timeout(LOG_DRAIN_GRACE, &mut self.rx).await {
            return bytes;
        }
        self.stop.store(true, Ordering::Relaxed);
        self.rx.await.unwrap_or_default()
    }
}

fn drain(fd: OwnedFd, stop: &AtomicBool) -> Vec<u8> {
    let mut file = std::fs::File::from(fd);
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    let mut dropped = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let mut pfd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, 100) };
        if ready == 0 {
            continue;
        }
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let room = MAX_LOG_BYTES.saturating_sub(out.len());
                out.extend_from_slice(&buf[..n.min(room)]);
                dropped += n.saturating_sub(room);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if dropped > 0 {
        out.extend_from_slice(
            format!("\n[evootter] log truncated: {dropped} more bytes dropped\n").as_bytes(),
        );
    }
    out
}

#[cfg(test)]
mod sweep_tests {
    use super::*;

    #[test]
    fn orphaned_run_roots_of_dead_processes_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        // pid_max is at most 2^22, so this pid cannot be alive.
        let dead = tmp.path().join("evootter-99999999-0");
        let alive = tmp
            .path()
            .join(format!("evootter-{}-7", std::process::id()));
        let other = tmp.path().join("evootter-notes");
        for d in [&dead, &alive, &other] {
            std::fs::create_dir_all(d.join("w0")).unwrap();
        }
        remove_orphaned_run_roots(tmp.path());
        assert!(!dead.exists());
        assert!(alive.exists());
        assert!(other.exists());
    }
}
