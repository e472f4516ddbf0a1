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

mod rescan;
mod tarball;

use crate::exec::junit::{JunitReport, parse_junit};
use crate::exec::pytest_run::{self, Finished, LogBuffer, RunDirs};
use crate::exec::seal::Staged;
use crate::exec::types::{BoxFuture, ExecError, ExecRequest, ExecResult, Executor};
use bollard::Docker;
use bollard::exec::StartExecResults;
use bollard::models::{ContainerCreateBody, ExecConfig, HostConfig};
use bollard::query_parameters::{
    ListContainersOptionsBuilder, RemoveContainerOptionsBuilder, UploadToContainerOptionsBuilder,
};
use rescan::{FIND_FORMAT, Listing, Run};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tarball::Tarball;

/// The Docker default when neither `hosts` nor `DOCKER_HOST` names one.
pub const DEFAULT_HOST: &str = "unix:///var/run/docker.sock";

/// The worker's private scratch directory inside its container; its `run/` is made fresh for
/// every run (home, temp dir, basetemp, junit report), as the local worker's is.
const SCRATCH: &str = "/tmp/evootter";

/// Touched right before pytest starts: every file whose status changes during the run is newer.
const STAGE_MARK: &str = "/tmp/evootter/stage.mark";

/// Separates the sections of the collecting exec's output. It starts and ends with NUL, which
/// a junit report, a trace, find's listing fields and sha256sum lines never contain there.
const SECTION: &str = "\0<evootter-section>\0";

/// Bounds every step of a run that is not the test itself (uploads, listing, restoring):
/// bollard's own timeout does not bound a stream.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a host may take to answer a ping before it counts as down.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// pid 1 of every worker: `sleep`, with SIGCHLD ignored so that the kernel reaps the orphans it
/// inherits (no zombie outlives a run), falling back to a plain sleep where `env` cannot.
const PID1: &str = "env --ignore-signal=CHLD true 2>/dev/null && exec env --ignore-signal=CHLD \
                    sleep infinity; exec sleep infinity";

/// Kills every process in the container but pid 1 and this shell, until none is left (a
/// dying process can take a moment to leave /proc).
const KILL_ALL: &str = "kill -9 -1 2>/dev/null; i=0; while [ $i -lt 500 ]; do left=; \
    for p in /proc/[0-9]*; do p=${p#/proc/}; [ \"$p\" = 1 ] || [ \"$p\" = \"$$\" ] || left=1; \
    done; [ -z \"$left\" ] && break; kill -9 -1 2>/dev/null; sleep 0.01; i=$((i+1)); done";

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
            repo: PathBuf::new(),
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
        "image {image} has no GNU find and sha256sum ({output}); the Docker backend needs them \
         to undo what a test does to its copy: use an image with findutils and coreutils"
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

/// A container and the record of its working copy.
struct WorkerState {
    container: String,
    recorded: Listing,
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
            let _ = exec(&docker, &id, "sh", KILL_ALL, vec![], &mut |_| {}).await;
        });
    }
}

/// Runs `action` for every (host, container) on a thread of its own with its own runtime, and
/// waits for it: for Drop and the Ctrl-C hook, which cannot await.
fn on_own_runtime<F, Fut>(items: Vec<(String, String)>, action: F)
where
    F: Fn(Docker, String) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let worker = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            let mut by_host: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (host, id) in items {
                by_host.entry(host).or_default().push(id);
            }
            for (host, ids) in by_host {
                let Ok(Ok(docker)) = tokio::time::timeout(PING_TIMEOUT, connect(&host)).await
                else {
                    continue;
                };
                for id in ids {
                    let _ =
                        tokio::time::timeout(Duration::from_secs(15), action(docker.clone(), id))
                            .await;
                }
            }
        });
    });
    let _ = worker.join();
}

async fn connect(host: &str) -> Result<Docker, DockerError> {
    let unreachable = |reason: String| DockerError::Unreachable {
        host: host.to_owned(),
        reason,
    };
    let docker = Docker::connect_with_host(host).map_err(|e| unreachable(e.to_string()))?;
    // The daemon may speak an older API than bollard's default.
    match tokio::time::timeout(Duration::from_secs(20), docker.negotiate_version()).await {
        Ok(Ok(docker)) => Ok(docker),
        Ok(Err(e)) => Err(unreachable(e.to_string())),
        Err(_) => Err(unreachable("no answer within 20 s".to_owned())),
    }
}

fn this_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return "localhost".to_owned();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `'...'` for the shell, whatever the text.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The next item of a bollard stream.
async fn next<S>(stream: &mut Pin<Box<S>>) -> Option<S::Item>
where
    S: futures_core::Stream + ?Sized,
{
    std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await
}

/// Runs `script` with `shell -c` as root in the container, hands its output (stdout and
/// stderr as they arrive) to `sink`, and returns its exit code once it has ended.
async fn exec(
    docker: &Docker,
    container: &str,
    shell: &str,
    script: &str,
    env: Vec<String>,
    sink: &mut (dyn FnMut(&[u8]) + Send),
) -> Result<Option<i64>, bollard::errors::Error> {
    let created = docker
        .create_exec(
            container,
            ExecConfig {
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                cmd: Some(vec![shell.to_owned(), "-c".to_owned(), script.to_owned()]),
                env: Some(env),
                user: Some("0".to_owned()),
                ..Default::default()
            },
        )
        .await?;
    if let StartExecResults::Attached { mut output, .. } =
        docker.start_exec(&created.id, None).await?
    {
        while let Some(item) = next(&mut output).await {
            sink(item?.as_ref());
        }
    }
    // The output ends when the process closes it, which is usually when it exits.
    loop {
        let info = docker.inspect_exec(&created.id).await?;
        if info.running != Some(true) {
            return Ok(info.exit_code);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A helper exec bounded by `STEP_TIMEOUT`, its output collected.
async fn helper(
    docker: &Docker,
    container: &str,
    script: &str,
) -> Result<(Vec<u8>, Option<i64>), StepError> {
    let mut out = Vec::new();
    let code = tokio::time::timeout(
        STEP_TIMEOUT,
        exec(docker, container, "sh", script, vec![], &mut |b| {
            out.extend_from_slice(b)
        }),
    )
    .await
    .map_err(|_| StepError::timed_out())??;
    Ok((out, code))
}

async fn upload(
    docker: &Docker,
    container: &str,
    dest: &str,
    tar: Vec<u8>,
) -> Result<(), StepError> {
    let options = UploadToContainerOptionsBuilder::default()
        .path(dest)
        .build();
    tokio::time::timeout(
        STEP_TIMEOUT,
        docker.upload_to_container(container, Some(options), bollard::body_full(tar.into())),
    )
    .await
    .map_err(|_| StepError::timed_out())??;
    Ok(())
}

/// A failed call to a Docker host, before it is known whether the host or the call failed.
#[derive(Debug)]
struct StepError(String);

impl StepError {
    fn timed_out() -> Self {
        Self(format!("no answer within {} s", STEP_TIMEOUT.as_secs()))
    }
}

impl From<bollard::errors::Error> for StepError {
    fn from(e: bollard::errors::Error) -> Self {
        Self(e.to_string())
    }
}

/// Why a run on a worker did not give a result.
enum RunError {
    /// A call to the worker's host failed at this step.
    Host(&'static str, StepError),
    /// The request itself is wrong, or the run cannot be done anywhere.
    Exec(ExecError),
}

fn step(name: &'static str) -> impl FnOnce(StepError) -> RunError {
    move |e| RunError::Host(name, e)
}

/// Removes the containers of dead evootter runs on this machine: a run killed with SIGKILL
/// could not remove its own.
async fn remove_leftovers(docker: &Docker, hostname: &str) {
    let filters = HashMap::from([("label", vec!["evootter=1"])]);
    let options = ListContainersOptionsBuilder::default()
        .all(true)
        .filters(&filters)
        .build();
    let Ok(Ok(list)) =
        tokio::time::timeout(STEP_TIMEOUT, docker.list_containers(Some(options))).await
    else {
        return;
    };
    for c in list {
        let (Some(id), Some(labels)) = (c.id, c.labels) else {
            continue;
        };
        let Some((host, pid)) = labels
            .get("evootter.owner")
            .and_then(|o| o.rsplit_once(':'))
        else {
            continue;
        };
        let dead = pid.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
        });
        if host == hostname && dead {
            let _ = remove_container(docker, &id).await;
        }
    }
}

async fn remove_container(docker: &Docker, id: &str) -> Result<(), StepError> {
    let options = RemoveContainerOptionsBuilder::default()
        .force(true)
        .v(true)
        .build();
    tokio::time::timeout(STEP_TIMEOUT, docker.remove_container(id, Some(options)))
        .await
        .map_err(|_| StepError::timed_out())??;
    Ok(())
}

/// What a new worker needs to know, owned so workers start concurrently.
#[derive(Clone)]
struct Recipe {
    cfg: DockerConfig,
    owner: String,
    executor: u64,
    repo_tar: Arc<Vec<u8>>,
}

impl Recipe {
    fn body(&self, worker: usize) -> ContainerCreateBody {
        let labels = HashMap::from([
            ("evootter".to_owned(), "1".to_owned()),
            ("evootter.owner".to_owned(), self.owner.clone()),
            ("evootter.started".to_owned(), unix_now().to_string()),
            (
                "evootter.executor".to_owned(),
                format!("{}:{}", self.owner, self.executor),
            ),
            ("evootter.worker".to_owned(), worker.to_string()),
        ]);
        ContainerCreateBody {
            image: Some(self.cfg.image.clone()),
            entrypoint: Some(vec!["/bin/sh".into(), "-c".into(), PID1.into()]),
            cmd: Some(vec![]),
            working_dir: Some(self.cfg.workdir.clone()),
            user: Some("0".into()),
            labels: Some(labels),
            // Docker stops it at once, on a daemon shutdown too (pid 1 ignores SIGTERM).
            stop_signal: Some("SIGKILL".into()),
            host_config: Some(HostConfig {
                network_mode: Some(if self.cfg.network { "default" } else { "none" }.into()),
                memory: self.cfg.memory_bytes,
                nano_cpus: self.cfg.nano_cpus,
                // A daemon-wide `init` would put docker-init at pid 1, and the reaping would
                // kill the container's only process.
                init: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Creates and starts a worker's container, puts the repository in and records it.
    async fn start(&self, host: &Host, worker: usize) -> Result<WorkerState, DockerError> {
        let docker = &host.docker;
        let failed = |reason: String| DockerError::Container {
            image: self.cfg.image.clone(),
            host: host.name.clone(),
            reason,
        };
        let created = tokio::time::timeout(
            STEP_TIMEOUT,
            docker.create_container(
                None::<bollard::query_parameters::CreateContainerOptions>,
                self.body(worker),
            ),
        )
        .await
        .map_err(|_| failed(StepError::timed_out().0))?
        .map_err(|e| failed(e.to_string()))?;
        let id = created.id;
        lock(&LIVE).insert(id.clone(), (self.executor, host.name.clone()));
        let prepared = self.prepare(docker, &id).await;
        match prepared {
            Ok(recorded) => Ok(WorkerState {
                container: id,
                recorded,
            }),
            Err(e) => {
                let _ = remove_container(docker, &id).await;
                lock(&LIVE).remove(&id);
                Err(match e {
                    Prepare::Step(s) => failed(s.0),
                    Prepare::Tools(output) => DockerError::Tools {
                        image: self.cfg.image.clone(),
                        output,
                    },
                })
            }
        }
    }

    async fn prepare(&self, docker: &Docker, id: &str) -> Result<Listing, Prepare> {
        tokio::time::timeout(
            STEP_TIMEOUT,
            docker.start_container(id, None::<bollard::query_parameters::StartContainerOptions>),
        )
        .await
        .map_err(|_| StepError::timed_out())?
        .map_err(StepError::from)?;
        let workdir = quote(&self.cfg.workdir);
        let (out, code) = helper(
            docker,
            id,
            &format!(
                "mkdir -p {workdir} {SCRATCH} && command -v sha256sum >/dev/null && \
                 find {SCRATCH} -maxdepth 0 -printf '' 2>&1"
            ),
        )
        .await?;
        if code != Some(0) {
            return Err(Prepare::Tools(
                String::from_utf8_lossy(&out).trim().to_owned(),
            ));
        }
        upload(docker, id, &self.cfg.workdir, self.repo_tar.to_vec()).await?;
        let (out, _) = helper(
            docker,
            id,
            &format!("cd {workdir} && find . -mindepth 1 -printf '{FIND_FORMAT}'"),
        )
        .await?;
        Ok(rescan::parse_listing(&out))
    }
}

enum Prepare {
    Step(StepError),
    Tools(String),
}

impl From<StepError> for Prepare {
    fn from(e: StepError) -> Self {
        Self::Step(e)
    }
}

impl From<bollard::errors::Error> for Prepare {
    fn from(e: bollard::errors::Error) -> Self {
        Self::Step(e.into())
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

/// What every attempt at one request shares.
struct Prepared {
    test_rel: String,
    staged: Staged,
    traced: Option<String>,
    /// The staged files as a tar.
    tar: Vec<u8>,
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
        for name in names {
            let docker = connect(&name).await?;
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
                    return Err(DockerError::Unreachable {
                        host: name,
                        reason: e.to_string(),
                    }
                    .into());
                }
                Err(_) => {
                    return Err(DockerError::Unreachable {
                        host: name,
                        reason: "no answer about the image".to_owned(),
                    }
                    .into());
                }
            }
            hosts.push(Host {
                name,
                docker,
                down: Mutex::new(None),
            });
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
            notes: Mutex::new(vec![]),
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

    async fn answers(&self, host: usize) -> bool {
        matches!(
            tokio::time::timeout(PING_TIMEOUT, self.hosts[host].docker.ping()).await,
            Ok(Ok(_))
        )
    }

    fn prepare(&self, req: &ExecRequest) -> Result<Prepared, ExecError> {
        let (test_rel, staged, traced) = pytest_run::staged_files(req)?;
        let mut tar = Tarball::new();
        let pack = |source| DockerError::Pack {
            path: "the staged files".to_owned(),
            source,
        };
        for (rel, content) in &staged.files {
            // A replaced file keeps the repository's permissions, as if written in place.
            let mode = std::fs::symlink_metadata(self.base.join(rel))
                .ok()
                .filter(|m| m.is_file())
                .map_or(0o644, |m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.permissions().mode() & 0o7777
                });
            tar.file(rel, content, mode).map_err(pack)?;
        }
        Ok(Prepared {
            test_rel,
            staged,
            traced,
            tar: tar.finish().map_err(pack)?,
        })
    }

    /// One run on one worker, from staging to the copy put back.
    async fn run_on(
        &self,
        idx: usize,
        req: &ExecRequest,
        p: &Prepared,
    ) -> Result<ExecResult, RunError> {
        let w = &self.workers[idx];
        let docker = &self.hosts[w.host].docker;
        let mut state = w.state.lock().await;
        let container = state.container.clone();
        let dirs = self.dirs();

        upload(docker, &container, &self.cfg.workdir, p.tar.clone())
            .await
            .map_err(step("putting the test into the container"))?;

        let mut script = format!(
            "exec 2>&1; rm -rf {run} && mkdir -p {run}/home {run}/tmp && touch {STAGE_MARK} && \
             cd {workdir} || exit 125; ",
            run = quote(&dirs.run_dir().display().to_string()),
            workdir = quote(&self.cfg.workdir),
        );
        let removed: Vec<String> = p.staged.removed.iter().map(|r| quote(r)).collect();
        if !removed.is_empty() {
            script.push_str(&format!("rm -f -- {}; ", removed.join(" ")));
        }
        script.push_str(&format!("unset {}; ", pytest_run::REMOVED_ENV.join(" ")));
        script.push_str(&self.activation());
        script.push_str("exec ");
        script.push_str(&quote(&self.cfg.python));
        for arg in pytest_run::pytest_args(&dirs, &p.test_rel, p.traced.is_some()) {
            script.push(' ');
            script.push_str(&quote(&arg));
        }
        let env: Vec<String> = pytest_run::environment(
            &dirs,
            &self.cfg.pythonpath,
            self.user_base.as_deref(),
            p.traced.as_deref(),
        )
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();

        let started = Instant::now();
        let mut log = LogBuffer::default();
        let ran = tokio::time::timeout(
            req.timeout,
            exec(docker, &container, self.shell(), &script, env, &mut |b| {
                log.push(b)
            }),
        )
        .await;
        let duration = started.elapsed();
        let exit = match ran {
            Ok(Ok(code)) => Some(code),
            Ok(Err(e)) => return Err(RunError::Host("running pytest", e.into())),
            // Killed below, with everything else the test started.
            Err(_) => None,
        };
        let raw_log = String::from_utf8_lossy(&log.finish()).into_owned();

        let collected = self.collect_script(&state.recorded, p);
        let (out, _) = helper(docker, &container, &collected)
            .await
            .map_err(step("collecting the results"))?;
        let mut sections = split_sections(&out);
        let junit = sections.next().unwrap_or_default();
        let trace = sections.next().unwrap_or_default();
        let now = rescan::parse_listing(sections.next().unwrap_or_default());
        let sums = rescan::parse_sums(sections.next().unwrap_or_default());

        let mut plan = rescan::plan(
            &state.recorded,
            &now,
            &Run {
                base: &self.base,
                staged: &p.staged,
                sums: &sums,
            },
        );
        let made_for_staging = staging_tops(&state.recorded, &p.staged);
        plan.remove.retain(|r| {
            !made_for_staging
                .iter()
                .any(|t| r == t || r.starts_with(&format!("{t}/")))
        });
        let changed = std::mem::take(&mut plan.changed);
        self.put_back(idx, &mut state, plan).await?;

        let mut result = match exit {
            None => pytest_run::timeout_result(raw_log, req.timeout, duration, changed, vec![]),
            Some(code) => pytest_run::finished_result(
                Finished {
                    report: if junit.is_empty() {
                        JunitReport::unusable(format!(
                            "no junit report at {}",
                            dirs.junit().display()
                        ))
                    } else {
                        parse_junit(&String::from_utf8_lossy(junit), &p.test_rel)
                    },
                    raw_log,
                    exit_code: exit_status(code),
                    changed,
                    denied: vec![],
                    duration,
                },
                &dirs.roots(),
            ),
        };
        if p.traced.is_some() {
            result.trace = pytest_run::parse_trace(trace);
        }
        Ok(result)
    }

    /// The exec that follows every run: kill what the test left, print the junit report, the
    /// trace, a listing of the copy and the sums of the files that may have changed, then
    /// delete what was made only for staging.
    fn collect_script(&self, recorded: &Listing, p: &Prepared) -> String {
        let dirs = self.dirs();
        let sep = SECTION.replace('\0', r"\000");
        let staged: Vec<String> = p
            .staged
            .files
            .keys()
            .map(|r| quote(&format!("./{r}")))
            .collect();
        let tops: Vec<String> = staging_tops(recorded, &p.staged)
            .iter()
            .map(|r| quote(&format!("./{r}")))
            .collect();
        let mut s = format!(
            "{KILL_ALL}; cat {junit} 2>/dev/null; printf '{sep}'; cat {trace} 2>/dev/null; \
             printf '{sep}'; cd {workdir} || exit 125; find . -mindepth 1 -printf '{FIND_FORMAT}'; \
             printf '{sep}'; find . -type f -cnewer {STAGE_MARK} -exec sha256sum -- {{}} + \
             2>/dev/null; sha256sum -- {staged} 2>/dev/null; printf '{sep}'",
            junit = quote(&dirs.junit().display().to_string()),
            trace = quote(&dirs.trace_out().display().to_string()),
            workdir = quote(&self.cfg.workdir),
            staged = staged.join(" "),
        );
        if !tops.is_empty() {
            s.push_str(&format!("; rm -rf -- {}", tops.join(" ")));
        }
        s
    }

    /// Undoes what the run did to the copy: uploads the repository's version of what was
    /// modified or deleted, deletes what was created, sets directory permissions back, and
    /// records the new state of what was put back. An entry the repository does not have
    /// (it came with the image) cannot be put back from it: the container is replaced.
    async fn put_back(
        &self,
        worker: usize,
        state: &mut WorkerState,
        plan: rescan::Plan,
    ) -> Result<(), RunError> {
        let host = self.workers[worker].host;
        let docker = &self.hosts[host].docker;
        if plan.upload.is_empty() && plan.remove.is_empty() && plan.chmod.is_empty() {
            return Ok(());
        }
        if plan
            .upload
            .iter()
            .any(|r| std::fs::symlink_metadata(self.base.join(r)).is_err())
        {
            return self.replace_container(host, worker, state).await;
        }
        let container = state.container.clone();
        if !plan.upload.is_empty() {
            let mut tar = Tarball::new();
            for rel in &plan.upload {
                tar.entry(&self.base, rel).map_err(|e| {
                    RunError::Exec(
                        DockerError::Pack {
                            path: self.base.join(rel).display().to_string(),
                            source: e,
                        }
                        .into(),
                    )
                })?;
            }
            let bytes = tar.finish().map_err(|e| {
                RunError::Exec(
                    DockerError::Pack {
                        path: self.base.display().to_string(),
                        source: e,
                    }
                    .into(),
                )
            })?;
            upload(docker, &container, &self.cfg.workdir, bytes)
                .await
                .map_err(step("putting the copy back"))?;
        }
        let mut script = format!("cd {} || exit 125", quote(&self.cfg.workdir));
        if !plan.remove.is_empty() {
            let paths: Vec<String> = plan
                .remove
                .iter()
                .map(|r| quote(&format!("./{r}")))
                .collect();
            script.push_str(&format!("; rm -rf -- {}", paths.join(" ")));
        }
        for (rel, mode) in &plan.chmod {
            script.push_str(&format!(
                "; chmod {mode:o} -- {}",
                quote(&format!("./{rel}"))
            ));
        }
        if !plan.upload.is_empty() {
            let paths: Vec<String> = plan
                .upload
                .iter()
                .map(|r| quote(&format!("./{r}")))
                .collect();
            script.push_str(&format!(
                "; find {} -printf '{FIND_FORMAT}'",
                paths.join(" ")
            ));
        }
        let (out, code) = helper(docker, &container, &script)
            .await
            .map_err(step("putting the copy back"))?;
        if code != Some(0) {
            // Whatever could not be undone in place is undone by a fresh container.
            return self.replace_container(host, worker, state).await;
        }
        if !plan.upload.is_empty() {
            rescan::restamp(
                &mut state.recorded,
                &plan.upload,
                rescan::parse_listing(&out),
            );
        }
        Ok(())
    }

    /// Replaces a worker's container with a fresh one.
    async fn replace_container(
        &self,
        host: usize,
        worker: usize,
        state: &mut WorkerState,
    ) -> Result<(), RunError> {
        let h = &self.hosts[host];
        let old = state.container.clone();
        let _ = remove_container(&h.docker, &old).await;
        lock(&LIVE).remove(&old);
        *state = self
            .recipe()
            .start(h, worker)
            .await
            .map_err(|e| RunError::Host("replacing the container", StepError(e.to_string())))?;
        Ok(())
    }
}

/// The exit status of the interpreter, as the local backend reads it: a run killed by a
/// signal has none (Docker reports those as 128 + the signal).
fn exit_status(code: Option<i64>) -> Option<i32> {
    code.filter(|c| !(129..=192).contains(c))
        .and_then(|c| i32::try_from(c).ok())
}

/// The topmost entries that exist only because a staged file was placed: the staged files
/// the copy did not have, or the first directory on their way that it did not have.
fn staging_tops(recorded: &Listing, staged: &Staged) -> Vec<String> {
    let mut tops: Vec<String> = vec![];
    for rel in staged.files.keys() {
        let mut at = String::new();
        for part in rel.split('/') {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            if !recorded.contains_key(&at) {
                if !tops.contains(&at) {
                    tops.push(at.clone());
                }
                break;
            }
        }
    }
    tops
}

fn split_sections(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    let sep = SECTION.as_bytes();
    let mut rest = Some(out);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(sep.len()).position(|w| w == sep) {
            Some(i) => {
                rest = Some(&r[i + sep.len()..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

impl Executor for DockerExecutor {
    fn run(&self, req: ExecRequest) -> BoxFuture<'_, Result<ExecResult, ExecError>> {
        Box::pin(async move {
            let prepared = self.prepare(&req)?;
            loop {
                let lease = self.acquire().await?;
                let host = self.workers[lease.idx].host;
                match self.run_on(lease.idx, &req, &prepared).await {
                    Ok(result) => return Ok(result),
                    Err(RunError::Exec(e)) => return Err(e),
                    Err(RunError::Host(step, e)) => {
                        if self.answers(host).await {
                            return Err(DockerError::Api {
                                host: self.hosts[host].name.clone(),
                                step,
                                reason: e.0,
                            }
                            .into());
                        }
                        // The host is gone, and with it this attempt: run it elsewhere.
                        self.host_failed(host, &e.0);
                        lease.retire();
                    }
                }
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
            "docker: {n} worker{} on {}, image {}, python {}; network {}{}",
            if n == 1 { "" } else { "s" },
            self.hosts().join(", "),
            self.cfg.image,
            self.python_version,
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
