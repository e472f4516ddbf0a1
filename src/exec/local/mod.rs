//! The local executor: pytest runs in private working copies of the repository ("workers"),
//! one run per worker at a time, each run sealed (it starts from exactly the repository's
//! content, whatever the previous one did), reaped (no process outlives it) and, unless
//! `--no-sandbox`, sandboxed (no network, writes only into its copy, temp dir and home). The
//! user's repository is only ever read: it is copied once into a pristine base.

mod cold;
mod seal;
#[cfg(test)]
mod tests;
mod warm;

use crate::exec::copying::{copy_tree, remove_path, working_copy};
use crate::exec::interpreter;
use crate::exec::junit::read_junit;
use crate::exec::process::{RunEnd, lock, next_executor_id};
use crate::exec::pytest_run::{self, Finished, RunDirs, Staged};
use crate::exec::sandbox::{Protections, RunPaths, Seal, Wanted};
use crate::exec::types::{BoxFuture, ExecError, ExecRequest, ExecResult, Executor};
use crate::exec::zygote::{ZYGOTE_FILES, ZYGOTE_PROGRAM};
use seal::Rescan;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use warm::Zygote;

#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// The user's repository; read, never written.
    pub repo: PathBuf,
    /// An interpreter that imports pytest (see `python_env::resolve_python`).
    pub python: PathBuf,
    /// Directories relative to the repository root put on PYTHONPATH after the root itself
    /// (for example `src` for src-layout projects).
    pub pythonpath: Vec<String>,
    /// Number of workers, i.e. concurrent pytest runs.
    pub jobs: usize,
    /// Protections asked for (sandbox on by default); the kernel may not give all of them.
    pub isolation: Wanted,
    /// Run each execution in a fork of a warm interpreter per worker (`exec::warm`) instead
    /// of a fresh `python -m pytest`.
    pub warm: bool,
    /// Variables of evootter's environment the tests also get, by name (`--pass-env`), on
    /// top of `pytest_run::ALLOWED_ENV`.
    pub pass_env: Vec<String>,
}

struct Worker {
    /// Where pytest runs: the overlay's mount point, or (rescan) the worker's own copy.
    copy: PathBuf,
    /// The worker's private directory: its runs' temp dirs and overlay layers.
    scratch: PathBuf,
    /// Made fresh for every run: `home/`, `tmp/`, pytest's basetemp, the junit report.
    run_dir: PathBuf,
    /// The rescan seal's record of the copy (`None` with the overlay).
    rescan: Option<Mutex<Rescan>>,
    /// The warm executor's interpreter, started on first use and replaced when it dies.
    zygote: tokio::sync::Mutex<Option<Zygote>>,
    /// Where that interpreter's own stderr goes.
    zygote_err: PathBuf,
}

impl Worker {
    fn dirs(&self) -> RunDirs {
        RunDirs {
            copy: self.copy.clone(),
            scratch: self.scratch.clone(),
        }
    }
}

pub struct LocalExecutor {
    /// The pristine copy of the repository every run starts from.
    base: PathBuf,
    id: u64,
    workers: Vec<Worker>,
    free: Mutex<Vec<usize>>,
    permits: tokio::sync::Semaphore,
    python: PathBuf,
    pythonpath: Vec<String>,
    python_version: String,
    /// The interpreter's user base (`~/.local`), kept reachable under the run's private HOME.
    user_base: Option<String>,
    /// What runs take from evootter's environment (`pytest_run::inherited_env`), read once.
    inherited: Vec<(String, String)>,
    protections: Protections,
    /// How runs are sealed: the protections' choice, or the rescan for the warm executor,
    /// whose interpreter outlives a run and so cannot have a fresh overlay mounted under it.
    seal: Seal,
    /// `Some(launcher)`: the warm executor, the zygote's program (its launcher and package)
    /// written in a directory of its own, this the file to start.
    warm: Option<PathBuf>,
    next_layer: AtomicU64,
    /// How many zygotes were started (first starts, replacements after a death).
    zygote_starts: AtomicU64,
    // Last field: dropped after everything that refers to paths inside it.
    _run_root: tempfile::TempDir,
}

impl LocalExecutor {
    /// Copies `cfg.repo` once into a base under a temporary run root (removed when the
    /// executor is dropped), finds out which protections this kernel gives, and makes `jobs`
    /// workers.
    pub fn new(cfg: LocalConfig) -> Result<Self, ExecError> {
        let repo = cfg
            .repo
            .canonicalize()
            .map_err(|source| working_copy(&cfg.repo, source))?;
        let facts = interpreter::facts(&cfg.python)?;

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
        let base = root.join("base");
        copy_tree(&repo, &base)?;
        let probe_dir = root.join("probe");
        let protections =
            Protections::probe(&cfg.python, &probe_dir, cfg.isolation).map_err(ExecError::Other)?;
        let _ = std::fs::remove_dir_all(&probe_dir);

        let seal = if cfg.warm {
            Seal::Rescan
        } else {
            protections.seal()
        };
        let warm = if cfg.warm {
            // A directory of the zygote's alone: its launcher's directory is first on
            // sys.path until the launcher has imported the package.
            let dir = root.join("zygote");
            for (rel, text) in ZYGOTE_FILES {
                let path = dir.join(rel);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|source| working_copy(parent, source))?;
                }
                std::fs::write(&path, text).map_err(|source| working_copy(&path, source))?;
            }
            Some(dir.join(ZYGOTE_PROGRAM))
        } else {
            None
        };
        let jobs = cfg.jobs.max(1);
        // Equal-length worker paths: pytest shortens long reprs mid-string, and the cut must
        // fall at the same place in every worker for their logs to compare equal.
        let width = (jobs - 1).to_string().len();
        let mut workers = Vec::with_capacity(jobs);
        for i in 0..jobs {
            let copy = root.join(format!("worker-{i:0width$}"));
            let scratch = root.join(format!("scratch-{i:0width$}"));
            let rescan = match seal {
                // An empty directory: the overlay is mounted on it inside each run.
                Seal::Overlay => {
                    std::fs::create_dir_all(&copy).map_err(|source| working_copy(&copy, source))?;
                    None
                }
                Seal::Rescan => {
                    copy_tree(&base, &copy)?;
                    Some(Mutex::new(Rescan::take(&copy)))
                }
            };
            std::fs::create_dir_all(&scratch).map_err(|source| working_copy(&scratch, source))?;
            workers.push(Worker {
                run_dir: scratch.join("run"),
                copy,
                scratch,
                rescan,
                zygote: tokio::sync::Mutex::new(None),
                zygote_err: root.join(format!("zygote-{i:0width$}.err")),
            });
        }
        Ok(Self {
            base,
            id: next_executor_id(),
            workers,
            free: Mutex::new((0..jobs).rev().collect()),
            permits: tokio::sync::Semaphore::new(jobs),
            python: cfg.python,
            pythonpath: cfg.pythonpath,
            python_version: facts.version,
            user_base: facts.user_base,
            inherited: pytest_run::inherited_env(&cfg.pass_env),
            protections,
            seal,
            warm,
            next_layer: AtomicU64::new(0),
            zygote_starts: AtomicU64::new(0),
            _run_root: run_root,
        })
    }

    /// Where worker `i` runs pytest (for tests and diagnostics). With the overlay seal this
    /// directory is empty outside a run.
    pub fn worker_copy(&self, i: usize) -> Option<&Path> {
        self.workers.get(i).map(|w| w.copy.as_path())
    }

    /// How many warm interpreters were started so far (one per worker, plus one for every
    /// replacement of one that died).
    pub fn zygotes_started(&self) -> u64 {
        self.zygote_starts.load(Ordering::Relaxed)
    }

    /// The pristine copy every run starts from.
    pub fn base_copy(&self) -> &Path {
        &self.base
    }

    /// What protects the user's machine and the next run, and what this kernel lacks.
    pub fn protections(&self) -> &Protections {
        &self.protections
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
        let dirs = w.dirs();
        let (test_rel, staged, traced) = pytest_run::staged_files(&req)?;

        fresh_run_dir(w)?;
        // Declared before the process guard so it is dropped after it: the copy is put back
        // only once every process that could still use it is dead.
        let mut sealed = Sealed {
            worker: w,
            base: &self.base,
            layer: None,
            staged,
            done: false,
        };
        let removed: Vec<String> = sealed.staged.removed.iter().cloned().collect();
        match self.seal {
            Seal::Overlay => {
                let layer = w.scratch.join(format!(
                    "layer-{}",
                    self.next_layer.fetch_add(1, Ordering::Relaxed)
                ));
                for d in ["upper", "work"] {
                    let p = layer.join(d);
                    std::fs::create_dir_all(&p).map_err(|source| working_copy(&p, source))?;
                }
                sealed.layer = Some(layer.clone());
                seal::stage_layer(&layer.join("upper"), &self.base, &sealed.staged)
                    .map_err(ExecError::Other)?;
            }
            Seal::Rescan => Rescan::stage(&w.copy, &sealed.staged).map_err(ExecError::Other)?,
        }
        // The environment every run gets, cold or warm, sandboxed or not, so that all give the
        // same logs.
        let env = self.run_env(w, &traced, req.per_test);
        let args = pytest_run::pytest_args(
            &dirs,
            &test_rel,
            !traced.is_empty(),
            &req.select,
            req.stop_at_first_failure,
        );
        let (end, raw_log, duration) = if self.warm.is_some() {
            let run = warm::Run {
                slot: &w.zygote,
                // The zygote is the interpreter and has pytest imported: `-m pytest` goes.
                args: &args[3..],
                env: &env,
                timeout: req.timeout,
            };
            let restore = || {
                if let Some(rescan) = &w.rescan {
                    lock(rescan).restore(&w.copy, &self.base, &sealed.staged);
                }
                Rescan::stage(&w.copy, &sealed.staged).map_err(ExecError::Other)?;
                fresh_run_dir(w)
            };
            warm::run(run, || self.start_zygote(w), restore).await?
        } else {
            let upper = sealed.layer.as_ref().map(|l| l.join("upper"));
            let work = sealed.layer.as_ref().map(|l| l.join("work"));
            let plan = self.protections.plan(&RunPaths {
                copy: &w.copy,
                base: &self.base,
                layer: upper.as_deref().zip(work.as_deref()),
                run_dir: &w.run_dir,
                removed: &removed,
            });
            cold::run(cold::Run {
                python: &self.python,
                args,
                copy: &w.copy,
                env: &env,
                plan,
                timeout: req.timeout,
                owner: self.id,
            })
            .await?
        };
        let status = match end {
            RunEnd::Exited(code) => Some(code),
            RunEnd::TimedOut => None,
        };
        let changed = sealed.finish();
        let allowed = [w.copy.as_path(), w.run_dir.as_path()];
        let denied = self.protections.denials(&raw_log, &allowed);

        let changes = pytest_run::Changes {
            copy: changed,
            outside: vec![],
            denied,
        };
        let mut result = match status {
            None => pytest_run::timeout_result(raw_log, req.timeout, duration, changes),
            Some(status) => pytest_run::finished_result(
                Finished {
                    report: read_junit(&dirs.junit(), &test_rel),
                    raw_log,
                    exit_code: status,
                    changes,
                    duration,
                },
                &dirs.roots(),
            ),
        };
        if !traced.is_empty()
            && let Ok(b) = std::fs::read(dirs.trace_out())
        {
            pytest_run::read_trace(&mut result, &b, &traced);
        }
        drop(lease);
        Ok(result)
    }
}

impl LocalExecutor {
    async fn start_zygote(&self, w: &Worker) -> Result<Zygote, ExecError> {
        let Some(script) = &self.warm else {
            return Err(ExecError::Other("not a warm executor".into()));
        };
        self.zygote_starts.fetch_add(1, Ordering::Relaxed);
        // The zygote's sandbox covers the worker's whole scratch directory: the run
        // directory inside it is made anew for every run, and Landlock follows inodes.
        let plan = self.protections.plan(&RunPaths {
            copy: &w.copy,
            base: &self.base,
            layer: None,
            run_dir: &w.scratch,
            removed: &[],
        });
        let clean = plan
            .tmpfs
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        Zygote::start(warm::Start {
            python: &self.python,
            script,
            copy: &w.copy,
            env: self.run_env(w, &[], false),
            plan,
            stderr: w.zygote_err.clone(),
            clean,
            netns_per_run: self.protections.network_namespace(),
            owner: self.id,
        })
        .await
    }

    /// The whole environment of a run: what it inherits from evootter's, plus the run's own
    /// variables (what `environment` gives a cold run's command).
    fn run_env(&self, w: &Worker, traced: &[String], per_test: bool) -> Vec<(String, String)> {
        let set = pytest_run::environment(
            &w.dirs(),
            &self.pythonpath,
            self.user_base.as_deref(),
            traced,
            per_test,
        );
        let mut env: std::collections::BTreeMap<String, String> =
            self.inherited.iter().cloned().collect();
        for (k, v) in set {
            env.insert(k.to_owned(), v);
        }
        env.into_iter().collect()
    }
}

/// Empties the worker's run directory and makes its private `home/` and `tmp/` again.
fn fresh_run_dir(w: &Worker) -> Result<(), ExecError> {
    remove_path(&w.run_dir);
    for d in ["home", "tmp"] {
        let p = w.run_dir.join(d);
        std::fs::create_dir_all(&p).map_err(|source| working_copy(&p, source))?;
    }
    Ok(())
}

/// Puts a worker back after a run, on the normal path (`finish`, which also says what the
/// test changed) or when the run's future is dropped.
struct Sealed<'a> {
    worker: &'a Worker,
    base: &'a Path,
    /// The overlay layer of this run (`None` with the rescan seal).
    layer: Option<PathBuf>,
    staged: Staged,
    done: bool,
}

impl Sealed<'_> {
    fn finish(&mut self) -> Vec<String> {
        if self.done {
            return vec![];
        }
        self.done = true;
        match (&self.layer, &self.worker.rescan) {
            (Some(layer), _) => {
                let changed = seal::layer_changes(&layer.join("upper"), self.base, &self.staged);
                seal::remove_layer(layer);
                changed
            }
            (None, Some(rescan)) => {
                lock(rescan).restore(&self.worker.copy, self.base, &self.staged)
            }
            (None, None) => vec![],
        }
    }
}

impl Drop for Sealed<'_> {
    fn drop(&mut self) {
        self.finish();
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
            "local: {} worker{}, python {}{}; {}",
            self.workers.len(),
            if self.workers.len() == 1 { "" } else { "s" },
            self.python_version,
            if self.warm.is_some() {
                ", warm (forked per execution)"
            } else {
                ""
            },
            self.protections.describe_for(self.warm.is_some())
        )
    }

    fn notes(&self) -> Vec<String> {
        self.protections.missing().to_vec()
    }

    /// Starts every worker's zygote at once (those not started yet); a run that comes for a
    /// worker meanwhile waits for its start, as it would for its own.
    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.warm.is_none() {
                return;
            }
            let mut starts: Vec<BoxFuture<'_, ()>> = self
                .workers
                .iter()
                .map(|w| {
                    Box::pin(async move {
                        let mut slot = w.zygote.lock().await;
                        if slot.is_none()
                            && let Ok(z) = self.start_zygote(w).await
                        {
                            *slot = Some(z);
                        }
                    }) as BoxFuture<'_, ()>
                })
                .collect();
            std::future::poll_fn(|cx| {
                starts.retain_mut(|f| f.as_mut().poll(cx).is_pending());
                if starts.is_empty() {
                    std::task::Poll::Ready(())
                } else {
                    std::task::Poll::Pending
                }
            })
            .await;
        })
    }
}

impl Drop for LocalExecutor {
    fn drop(&mut self) {
        crate::exec::process::end_runs_of(self.id);
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
