//! The executor's hosts and worker containers, and a worker leased for one run. The other
//! parts (`run`, the executor's own `mod.rs`) add behaviour on top of this state.

use super::client::{Host, PING_TIMEOUT};
use super::config::{DockerConfig, DockerError, SCRATCH};
use super::container::{Recipe, WorkerState};
use crate::exec::process::lock;
use crate::exec::pytest_run::RunDirs;
use crate::exec::types::ExecError;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

pub(super) struct Worker {
    pub(super) host: usize,
    /// Held for the whole of a run: one run per container at a time.
    pub(super) state: tokio::sync::Mutex<WorkerState>,
}

pub struct DockerExecutor {
    pub(super) id: u64,
    pub(super) cfg: DockerConfig,
    pub(super) owner: String,
    pub(super) hosts: Vec<Host>,
    pub(super) workers: Vec<Worker>,
    pub(super) free: Mutex<Vec<usize>>,
    pub(super) permits: tokio::sync::Semaphore,
    /// The tar of the repository copy every container starts with.
    pub(super) repo_tar: Arc<Vec<u8>>,
    pub(super) python_version: String,
    pub(super) user_base: Option<String>,
    pub(super) notes: Mutex<Vec<String>>,
    /// Containers replaced so far (a run that died, an interpreter that died twice).
    pub(super) replaced: AtomicU64,
    /// The local copy of the repository that puts copies back (last: the base lives in it).
    pub(super) base: PathBuf,
    pub(super) _base_dir: tempfile::TempDir,
}

/// A worker held for one run. Handing the index back before the permit is released keeps
/// "permit available" implying "index in the free list"; a worker whose host failed is not
/// handed back, and its permit is forgotten.
pub(super) struct Lease<'a> {
    pub(super) idx: usize,
    pub(super) free: &'a Mutex<Vec<usize>>,
    pub(super) permit: Option<tokio::sync::SemaphorePermit<'a>>,
}

impl Lease<'_> {
    pub(super) fn retire(mut self) {
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
    pub(super) fn recipe(&self) -> Recipe {
        Recipe {
            cfg: self.cfg.clone(),
            owner: self.owner.clone(),
            executor: self.id,
            repo_tar: self.repo_tar.clone(),
        }
    }

    /// `source` in an activation prefix needs bash; plain runs need only sh.
    pub(super) fn shell(&self) -> &'static str {
        if self.cfg.activate.is_some() {
            "bash"
        } else {
            "sh"
        }
    }

    pub(super) fn activation(&self) -> String {
        self.cfg
            .activate
            .as_deref()
            .map(|a| format!("{a} && "))
            .unwrap_or_default()
    }

    pub(super) fn dirs(&self) -> RunDirs {
        RunDirs {
            copy: PathBuf::from(&self.cfg.workdir),
            scratch: PathBuf::from(SCRATCH),
        }
    }

    pub(super) async fn acquire(&self) -> Result<Lease<'_>, ExecError> {
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
    pub(super) fn closed(&self) -> ExecError {
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
    pub(super) fn host_failed(&self, host: usize, why: &str) {
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

    pub(super) async fn answers(&self, host: usize) -> bool {
        matches!(
            tokio::time::timeout(PING_TIMEOUT, self.hosts[host].docker.ping()).await,
            Ok(Ok(_))
        )
    }
}
