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
mod config;
mod container;
mod rescan;
mod run;
mod tarball;
mod workers;
mod zygote;

pub use config::{DEFAULT_HOST, DockerConfig, DockerError};
pub use container::kill_all_running;
pub use workers::DockerExecutor;

use crate::exec::interpreter;
use crate::exec::process::{lock, next_executor_id};
use crate::exec::types::{BoxFuture, ExecError, ExecRequest, ExecResult, Executor};
use client::{
    Host, PING_TIMEOUT, STEP_TIMEOUT, StepError, connect, exec, on_own_runtime, quote,
    remove_container, remove_leftovers, this_hostname,
};
use container::LIVE;
use run::RunError;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use tarball::Tarball;
use workers::Worker;

/// The hosts that answer and have the image, with this machine's leftovers removed from
/// each; with several, one that cannot be reached is left out (and the user told, in the
/// notes), as a host that fails mid-run is: the run goes on on the others.
async fn reachable_hosts(
    cfg: &DockerConfig,
    hostname: &str,
) -> Result<(Vec<Host>, Vec<String>), DockerError> {
    let names = if cfg.hosts.is_empty() {
        vec![std::env::var("DOCKER_HOST").unwrap_or_else(|_| DEFAULT_HOST.to_owned())]
    } else {
        cfg.hosts.clone()
    };
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
        remove_leftovers(&docker, hostname).await;
        match tokio::time::timeout(STEP_TIMEOUT, docker.inspect_image(&cfg.image)).await {
            Ok(Ok(_)) => {}
            Ok(Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            })) => {
                return Err(DockerError::MissingImage {
                    image: cfg.image.clone(),
                    host: name,
                });
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
        return Err(first);
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
    Ok((hosts, notes))
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
        crate::exec::copying::copy_tree(&repo, &base)?;
        let mut tar = Tarball::new();
        let pack = |source| DockerError::Pack {
            path: base.display().to_string(),
            source,
        };
        tar.tree(&base).map_err(pack)?;
        let repo_tar = Arc::new(tar.finish().map_err(pack)?);

        let hostname = this_hostname();
        let (hosts, notes) = reachable_hosts(&cfg, &hostname).await?;

        let jobs = cfg.jobs.max(1);
        let mut exec = Self {
            id: next_executor_id(),
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
        exec.start_workers(jobs).await?;
        let (version, user_base) = exec.interpreter_facts().await?;
        exec.python_version = version;
        exec.user_base = user_base;
        *lock(&exec.free) = (0..jobs).rev().collect();
        exec.permits.add_permits(jobs);
        Ok(exec)
    }

    /// Starts `jobs` worker containers, spread over the hosts, at once.
    async fn start_workers(&mut self, jobs: usize) -> Result<(), DockerError> {
        let recipe = self.recipe();
        let mut starting = tokio::task::JoinSet::new();
        for i in 0..jobs {
            let host = i % self.hosts.len();
            let recipe = recipe.clone();
            let h = Host {
                name: self.hosts[host].name.clone(),
                docker: self.hosts[host].docker.clone(),
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
                        image: self.cfg.image.clone(),
                        host: String::new(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        started.sort_by_key(|(i, _, _)| *i);
        for (_, host, state) in started {
            self.workers.push(Worker {
                host,
                state: tokio::sync::Mutex::new(state),
            });
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(()),
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
            quote(interpreter::FACTS_SCRIPT)
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
        match interpreter::parse(&text) {
            Some(facts) if code == Some(0) => Ok((facts.version, facts.user_base)),
            _ => Err(DockerError::Interpreter {
                python: self.cfg.python.clone(),
                image: self.cfg.image.clone(),
                host: host.name.clone(),
                output: text.trim().to_owned(),
            }),
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
