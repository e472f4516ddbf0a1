//! The Docker backend: pytest runs inside long-lived containers of an image that has the
//! project's environment (a SWE-bench image, or any image with Python and pytest), one
//! container ("worker") per concurrent run, spread over one or more Docker hosts.
//!
//! Each container gets the repository once; a run puts in only the test and the mutated
//! files, runs the same pytest command line with the same environment as the local backend
//! (`pytest_run`), collects the log and the junit report through the API, then ends every
//! process the test left and puts the copy back (`rescan`), so the next run in that container
//! starts from the repository's content whatever this one did. The container's paths are
//! chosen so that normalized logs equal the local backend's.
//!
//! A host that fails mid-run loses no execution: the run moves to a worker of another host.
//! Containers are labelled with their owner (`hostname:pid`) and removed on `shutdown`, on
//! drop, and, when a run was killed before it could, by the next executor that starts.

mod client;
mod container;
mod rescan;
mod run;
mod tarball;
mod zygote;

use crate::exec::pytest_run::{self, RunDirs};
use crate::exec::types::{BoxFuture, ExecError, ExecRequest, ExecResult, Executor};
use bollard::Docker;
use client::{
    PING_TIMEOUT, STEP_TIMEOUT, StepError, connect, exec, on_own_runtime, quote, remove_container,
    remove_leftovers, this_hostname,
};
use container::{KILL_ALL, Recipe, WorkerState};
use run::RunError;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use tarball::Tarball;

/// How many times per worker a run may replace a container before it stops.
const MAX_REPLACEMENTS_PER_WORKER: u64 = 3;

/// The Docker default when neither `hosts` nor `DOCKER_HOST` names one.
pub const DEFAULT_HOST: &str = "unix:///var/run/docker.sock";

/// The worker's private scratch directory inside its container; its `run/` is made fresh for
/// every run (home, temp dir, basetemp, junit report), as the local worker's is.
const SCRATCH: &str = "/tmp/evootter";

#[derive(Debug, Clone)]
pub struct DockerConfig {
    /// The image every worker runs; never pulled.
    pub image: String,
    /// Docker hosts (`unix:///path`, `tcp://h:p`, `ssh://user@h`); empty: `DOCKER_HOST`, or
    /// the default socket.
    pub hosts: Vec<String>,
    /// Number of workers (containers), spread round-robin over the hosts.
    pub jobs: usize,
    /// Where the repository is placed in each container and pytest runs (`/testbed`).
    pub workdir: String,
    /// A shell prefix that activates the image's environment, run with bash before pytest
    /// (`source /opt/miniconda3/bin/activate && conda activate testbed`).
    pub activate: Option<String>,
    /// The interpreter inside the image (`python3`; SWE-bench images use `python`).
    pub python: String,
    /// Whether tests reach the network (`false`: network mode `none`).
    pub network: bool,
    pub memory_bytes: Option<i64>,
    pub nano_cpus: Option<i64>,
    /// Directories relative to the repository root put on PYTHONPATH after the root itself.
    pub pythonpath: Vec<String>,
    /// The `c_old` checkout copied into every container; read, never written.
    pub repo: PathBuf,
    /// Run each execution in a fork of a warm interpreter inside the container (`zygote`),
    /// one request over an open stream, instead of a `docker exec` per step.
    pub warm: bool,
    /// Variables of evootter's environment the tests also get, by name (`--pass-env`), on
    /// top of the image's own environment. Nothing else of evootter's reaches a container.
    pub pass_env: Vec<String>,
}

impl Default for DockerConfig {
    fn default() -> Self {
        Self {
            image: "evootter-python:bookworm".into(),
            hosts: vec![],
            jobs: 1,
            workdir: "/testbed".into(),
            activate: None,
            python: "python3".into(),
            network: false,
            memory_bytes: None,
            nano_cpus: None,
            pythonpath: vec![],
            pass_env: vec![],
            repo: PathBuf::new(),
            warm: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    #[error(
        "cannot reach the Docker daemon at {host}: {reason}; start it (dockerd, or systemctl \
         start docker) or set DOCKER_HOST / --docker-host"
    )]
    Unreachable { host: String, reason: String },
    #[error(
        "image {image} is not on {host}: load it (docker load -i FILE) or pull it (docker pull \
         {image}); evootter never pulls"
    )]
    MissingImage { image: String, host: String },
    #[error("could not start a worker container of {image} on {host}: {reason}")]
    Container {
        image: String,
        host: String,
        reason: String,
    },
    #[error(
        "`{python}` does not run in image {image} on {host} ({output}); pass the image's \
         interpreter (SWE-bench images use `python`) and, for a conda environment, its \
         activation prefix"
    )]
    Interpreter {
        python: String,
        image: String,
        host: String,
        output: String,
    },
    #[error(
        "image {image} lacks GNU find, sha256sum or tar ({output}); the Docker backend needs \
         them to stage files and undo what a test does to its copy: use an image with findutils, \
         coreutils and tar"
    )]
    Tools { image: String, output: String },
    #[error("docker host {host}: {step} failed: {reason}")]
    Api {
        host: String,
        step: &'static str,
        reason: String,
    },
    #[error(
        "every Docker host failed, the last one {host} ({reason}); the execution has no result"
    )]
    AllHostsDown { host: String, reason: String },
    #[error("could not pack {path} for upload: {source}")]
    Pack {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// One Docker daemon and whether it still answers.
struct Host {
    name: String,
    docker: Docker,
    /// Why it was given up, once it failed mid-run.
    down: Mutex<Option<String>>,
}

impl Host {
    fn is_down(&self) -> bool {
        lock(&self.down).is_some()
    }
}

struct Worker {
    host: usize,
    /// Held for the whole of a run: one run per container at a time.
    state: tokio::sync::Mutex<WorkerState>,
}

pub struct DockerExecutor {
    id: u64,
    cfg: DockerConfig,
    owner: String,
    hosts: Vec<Host>,
    workers: Vec<Worker>,
    free: Mutex<Vec<usize>>,
    permits: tokio::sync::Semaphore,
    /// The tar of the repository copy every container starts with.
    repo_tar: Arc<Vec<u8>>,
    python_version: String,
    user_base: Option<String>,
    notes: Mutex<Vec<String>>,
    /// Containers replaced so far (a run that died, an interpreter that died twice).
    replaced: AtomicU64,
    /// The local copy of the repository that puts copies back (last: the base lives in it).
    base: PathBuf,
    _base_dir: tempfile::TempDir,
}

/// Every container of every executor in this process (container id -> executor id, host), so
/// Ctrl-C can end their runs and a dropped executor remove its own.
static LIVE: LazyLock<Mutex<BTreeMap<String, (u64, String)>>> = LazyLock::new(Default::default);
static NEXT_EXECUTOR_ID: AtomicU64 = AtomicU64::new(1);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Ends every run in every container of this process (the Docker side of
/// `exec::kill_all_running`): their processes are killed, the runs return and put their
/// copies back; the containers go when their executors are dropped or shut down.
pub fn kill_all_running() {
    let live: Vec<(String, String)> = lock(&LIVE)
        .iter()
        .map(|(id, (_, host))| (host.clone(), id.clone()))
        .collect();
    if !live.is_empty() {
        on_own_runtime(live, |docker, id| async move {
            let _ = exec(&docker, &id, "sh", KILL_ALL, vec![], None, &mut |_| {}).await;
        });
    }
}

/// A worker held for one run. Handing the index back before the permit is released keeps
/// "permit available" implying "index in the free list"; a worker whose host failed is not
/// handed back, and its permit is forgotten.
struct Lease<'a> {
    idx: usize,
    free: &'a Mutex<Vec<usize>>,
    permit: Option<tokio::sync::SemaphorePermit<'a>>,
}

impl Lease<'_> {
    fn retire(mut self) {
        if let Some(p) = self.permit.take() {
            p.forget();
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self.permit.is_some() {
            lock(self.free).push(self.idx);
        }
    }
}

impl DockerExecutor {
    /// Connects to every host, removes what dead runs left there, checks the image, copies
    /// the repository once, and starts `jobs` containers with the repository in them.
    pub async fn new(cfg: DockerConfig) -> Result<Self, ExecError> {
        let repo = cfg
            .repo
            .canonicalize()
            .map_err(|source| ExecError::WorkingCopy {
                path: cfg.repo.display().to_string(),
                source,
            })?;
        let base_dir = tempfile::Builder::new()
            .prefix("evootter-docker-")
            .tempdir()
            .map_err(|source| ExecError::WorkingCopy {
                path: std::env::temp_dir().display().to_string(),
                source,
            })?;
        let base = base_dir.path().join("base");
        crate::exec::local::copy_tree(&repo, &base)?;
        let mut tar = Tarball::new();
        let pack = |source| DockerError::Pack {
            path: base.display().to_string(),
            source,
        };
        tar.tree(&base).map_err(pack)?;
        let repo_tar = Arc::new(tar.finish().map_err(pack)?);

        let names = if cfg.hosts.is_empty() {
            vec![std::env::var("DOCKER_HOST").unwrap_or_else(|_| DEFAULT_HOST.to_owned())]
        } else {
            cfg.hosts.clone()
        };
        let hostname = this_hostname();
        let mut hosts = Vec::with_capacity(names.len());
        // With several hosts, one that cannot be reached is left out (and the user told), as
        // a host that fails mid-run is: the run goes on on the others.
        let mut unreachable: Vec<(String, DockerError)> = vec![];
        for name in names {
            let docker = match connect(&name).await {
                Ok(d) => d,
                Err(e) => {
                    unreachable.push((name, e));
                    continue;
                }
            };
            remove_leftovers(&docker, &hostname).await;
            match tokio::time::timeout(STEP_TIMEOUT, docker.inspect_image(&cfg.image)).await {
                Ok(Ok(_)) => {}
                Ok(Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404,
                    ..
                })) => {
                    return Err(DockerError::MissingImage {
                        image: cfg.image.clone(),
                        host: name,
                    }
                    .into());
                }
                Ok(Err(e)) => {
                    let reason = e.to_string();
                    unreachable.push((
                        name.clone(),
                        DockerError::Unreachable { host: name, reason },
                    ));
                    continue;
                }
                Err(_) => {
                    let reason = "no answer about the image".to_owned();
                    unreachable.push((
                        name.clone(),
                        DockerError::Unreachable { host: name, reason },
                    ));
                    continue;
                }
            }
            hosts.push(Host {
                name,
                docker,
                down: Mutex::new(None),
            });
        }
        if hosts.is_empty() {
            let (_, first) = unreachable.remove(0);
            return Err(first.into());
        }
        let mut notes = vec![];
        for (name, e) in &unreachable {
            notes.push(format!(
                "docker host {name} left out: {e}; its share runs on {}",
                hosts
                    .iter()
                    .map(|h| h.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }

        let jobs = cfg.jobs.max(1);
        let mut exec = Self {
            id: NEXT_EXECUTOR_ID.fetch_add(1, Ordering::Relaxed),
            owner: format!("{hostname}:{}", std::process::id()),
            cfg,
            hosts,
            workers: Vec::with_capacity(jobs),
            free: Mutex::new(vec![]),
            permits: tokio::sync::Semaphore::new(0),
            repo_tar,
            python_version: String::new(),
            user_base: None,
            notes: Mutex::new(notes),
            replaced: AtomicU64::new(0),
            base,
            _base_dir: base_dir,
        };
        // From here on a failure drops `exec`, which removes the containers made so far.
        let recipe = exec.recipe();
        let mut starting = tokio::task::JoinSet::new();
        for i in 0..jobs {
            let host = i % exec.hosts.len();
            let recipe = recipe.clone();
            let h = Host {
                name: exec.hosts[host].name.clone(),
                docker: exec.hosts[host].docker.clone(),
                down: Mutex::new(None),
            };
            starting.spawn(async move { (i, host, recipe.start(&h, i).await) });
        }
        let mut started = vec![];
        let mut first_error = None;
        while let Some(joined) = starting.join_next().await {
            match joined {
                Ok((i, host, Ok(state))) => started.push((i, host, state)),
                Ok((_, _, Err(e))) => {
                    first_error.get_or_insert(e);
                }
                Err(e) => {
                    first_error.get_or_insert(DockerError::Container {
                        image: exec.cfg.image.clone(),
                        host: String::new(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        started.sort_by_key(|(i, _, _)| *i);
        for (_, host, state) in started {
            exec.workers.push(Worker {
                host,
                state: tokio::sync::Mutex::new(state),
            });
        }
        if let Some(e) = first_error {
            return Err(e.into());
        }
        let (version, user_base) = exec.interpreter_facts().await?;
        exec.python_version = version;
        exec.user_base = user_base;
        *lock(&exec.free) = (0..jobs).rev().collect();
        exec.permits.add_permits(jobs);
        Ok(exec)
    }

    fn recipe(&self) -> Recipe {
        Recipe {
            cfg: self.cfg.clone(),
            owner: self.owner.clone(),
            executor: self.id,
            repo_tar: self.repo_tar.clone(),
        }
    }

    /// The interpreter's version and user base, asked in the first container.
    async fn interpreter_facts(&self) -> Result<(String, Option<String>), DockerError> {
        let w = &self.workers[0];
        let host = &self.hosts[w.host];
        let state = w.state.lock().await;
        let script = format!(
            "exec 2>&1; {}exec {} -c {}",
            self.activation(),
            quote(&self.cfg.python),
            quote(pytest_run::FACTS_SCRIPT)
        );
        let mut out = Vec::new();
        let code = tokio::time::timeout(
            STEP_TIMEOUT,
            exec(
                &host.docker,
                &state.container,
                self.shell(),
                &script,
                vec!["PYTHONDONTWRITEBYTECODE=1".to_owned()],
                None,
                &mut |b| out.extend_from_slice(b),
            ),
        )
        .await
        .map_err(|_| StepError::timed_out())
        .and_then(|r| r.map_err(StepError::from))
        .map_err(|e| DockerError::Api {
            host: host.name.clone(),
            step: "asking the interpreter its version",
            reason: e.0,
        })?;
        let text = String::from_utf8_lossy(&out);
        match pytest_run::parse_facts(&text) {
            Some(facts) if code == Some(0) => Ok(facts),
            _ => Err(DockerError::Interpreter {
                python: self.cfg.python.clone(),
                image: self.cfg.image.clone(),
                host: host.name.clone(),
                output: text.trim().to_owned(),
            }),
        }
    }

    /// `source` in an activation prefix needs bash; plain runs need only sh.
    fn shell(&self) -> &'static str {
        if self.cfg.activate.is_some() {
            "bash"
        } else {
            "sh"
        }
    }

    fn activation(&self) -> String {
        self.cfg
            .activate
            .as_deref()
            .map(|a| format!("{a} && "))
            .unwrap_or_default()
    }

    fn dirs(&self) -> RunDirs {
        RunDirs {
            copy: PathBuf::from(&self.cfg.workdir),
            scratch: PathBuf::from(SCRATCH),
        }
    }

    /// The hosts the workers run on, one name each, in order.
    pub fn hosts(&self) -> Vec<String> {
        self.hosts.iter().map(|h| h.name.clone()).collect()
    }

    /// The container of worker `i`, for tests and diagnostics.
    pub async fn container(&self, i: usize) -> Option<(String, String)> {
        let w = self.workers.get(i)?;
        let state = w.state.lock().await;
        Some((self.hosts[w.host].name.clone(), state.container.clone()))
    }

    /// The label every container of this process carries as `evootter.owner`.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// `key=value` of the label that only this executor's containers carry (a process may
    /// run several executors).
    pub fn label(&self) -> String {
        format!("evootter.executor={}:{}", self.owner, self.id)
    }

    /// Removes every container of this executor; runs after this fail.
    pub async fn shutdown(&self) {
        self.permits.close();
        let mine: Vec<(String, String)> = {
            let live = lock(&LIVE);
            live.iter()
                .filter(|(_, (owner, _))| *owner == self.id)
                .map(|(id, (_, host))| (host.clone(), id.clone()))
                .collect()
        };
        for (host, id) in mine {
            if let Some(h) = self.hosts.iter().find(|h| h.name == host) {
                let _ = remove_container(&h.docker, &id).await;
            }
            lock(&LIVE).remove(&id);
        }
    }

    async fn acquire(&self) -> Result<Lease<'_>, ExecError> {
        loop {
            let permit = self.permits.acquire().await.map_err(|_| self.closed())?;
            let idx = lock(&self.free)
                .pop()
                .ok_or_else(|| ExecError::Other("no free worker despite a permit".to_owned()))?;
            let lease = Lease {
                idx,
                free: &self.free,
                permit: Some(permit),
            };
            if self.hosts[self.workers[idx].host].is_down() {
                lease.retire();
                continue;
            }
            return Ok(lease);
        }
    }

    /// Why no worker can be had: the executor was shut down, or every host failed.
    fn closed(&self) -> ExecError {
        let last = self.hosts.iter().rev().find_map(|h| {
            lock(&h.down)
                .as_ref()
                .map(|why| (h.name.clone(), why.clone()))
        });
        match last {
            Some((host, reason)) if self.hosts.iter().all(Host::is_down) => {
                DockerError::AllHostsDown { host, reason }.into()
            }
            _ => ExecError::Other("the Docker executor is shut down".to_owned()),
        }
    }

    /// Gives up on a host that stopped answering: its workers get no more runs, and the
    /// notes say where its executions went.
    fn host_failed(&self, host: usize, why: &str) {
        {
            let mut down = lock(&self.hosts[host].down);
            if down.is_some() {
                return;
            }
            *down = Some(why.to_owned());
        }
        let up: Vec<&str> = self
            .hosts
            .iter()
            .filter(|h| !h.is_down())
            .map(|h| h.name.as_str())
            .collect();
        let to = if up.is_empty() {
            "nowhere: no host is left".to_owned()
        } else {
            up.join(", ")
        };
        lock(&self.notes).push(format!(
            "docker host {} failed mid-run ({why}); its executions moved to {to}",
            self.hosts[host].name
        ));
        if up.is_empty() {
            self.permits.close();
        }
    }

    async fn container_alive(&self, idx: usize) -> bool {
        let w = &self.workers[idx];
        let id = w.state.lock().await.container.clone();
        let inspected = tokio::time::timeout(
            PING_TIMEOUT,
            self.hosts[w.host].docker.inspect_container(
                &id,
                None::<bollard::query_parameters::InspectContainerOptions>,
            ),
        )
        .await;
        matches!(inspected, Ok(Ok(c)) if c.state.as_ref().and_then(|s| s.running) == Some(true))
    }

    /// A fresh container for worker `idx`, in place of one that died.
    async fn revive(&self, idx: usize) -> Result<(), String> {
        let w = &self.workers[idx];
        let mut state = w.state.lock().await;
        match self.replace_container(w.host, idx, &mut state).await {
            Ok(()) => Ok(()),
            Err(RunError::Host(_, e)) => Err(e.0),
            Err(RunError::Exec(e)) => Err(e.to_string()),
        }
    }

    async fn answers(&self, host: usize) -> bool {
        matches!(
            tokio::time::timeout(PING_TIMEOUT, self.hosts[host].docker.ping()).await,
            Ok(Ok(_))
        )
    }
}

impl Executor for DockerExecutor {
    fn run(&self, req: ExecRequest) -> BoxFuture<'_, Result<ExecResult, ExecError>> {
        Box::pin(async move {
            let prepared = self.prepare(&req)?;
            // A container that died under a run is replaced once per request: a test that
            // kills its container every time gets an error, not a loop.
            let mut revived = false;
            loop {
                let lease = self.acquire().await?;
                let (idx, host) = (lease.idx, self.workers[lease.idx].host);
                let (step, e) = match self.run_on(idx, &req, &prepared).await {
                    Ok(result) => return Ok(result),
                    Err(RunError::Exec(e)) => return Err(e),
                    Err(RunError::Host(step, e)) => (step, e),
                };
                if !self.answers(host).await {
                    // The host is gone, and with it this attempt: run it elsewhere.
                    self.host_failed(host, &e.0);
                    lease.retire();
                    continue;
                }
                if !revived && !self.container_alive(idx).await {
                    revived = true;
                    if let Err(why) = self.revive(idx).await {
                        // A host that answers but cannot start a container is no use either.
                        self.host_failed(host, &why);
                        lease.retire();
                    }
                    continue;
                }
                return Err(DockerError::Api {
                    host: self.hosts[host].name.clone(),
                    step,
                    reason: e.0,
                }
                .into());
            }
        })
    }
    fn parallelism(&self) -> usize {
        self.workers.len()
    }

    fn describe(&self) -> String {
        let n = self.workers.len();
        let mut limits = vec![];
        if let Some(m) = self.cfg.memory_bytes {
            limits.push(format!("memory {} MiB", m >> 20));
        }
        if let Some(c) = self.cfg.nano_cpus {
            limits.push(format!("{} CPUs", c as f64 / 1e9));
        }
        format!(
            "docker: {n} worker{} on {}, image {}, python {}{}; network {}{}",
            if n == 1 { "" } else { "s" },
            self.hosts().join(", "),
            self.cfg.image,
            self.python_version,
            if self.cfg.warm {
                ", warm (forked per execution inside the container)"
            } else {
                ""
            },
            if self.cfg.network { "on" } else { "off" },
            limits.iter().map(|l| format!(", {l}")).collect::<String>()
        )
    }

    fn notes(&self) -> Vec<String> {
        lock(&self.notes).clone()
    }
}

impl Drop for DockerExecutor {
    /// Best effort, for an executor that was not shut down: its containers are removed from a
    /// thread of their own (this may run inside the runtime, which cannot be blocked on).
    fn drop(&mut self) {
        let mine: Vec<(String, String)> = {
            let mut live = lock(&LIVE);
            let ids: Vec<String> = live
                .iter()
                .filter(|(_, (owner, _))| *owner == self.id)
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| live.remove(&id).map(|(_, host)| (host, id)))
                .collect()
        };
        if !mine.is_empty() {
            on_own_runtime(mine, |docker, id| async move {
                let _ = remove_container(&docker, &id).await;
            });
        }
    }
}
