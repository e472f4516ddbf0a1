//! A worker's container: how it is created (pid 1, labels, limits, no network), filled with
//! the repository and recorded, so every run in it starts from the same copy.

use super::client::{Host, exec, on_own_runtime};
use super::client::{STEP_TIMEOUT, StepError, helper, quote, remove_container, unix_now, upload};
use super::config::{DockerConfig, DockerError, SCRATCH};
use super::rescan::{self, FIND_FORMAT, Listing};
use super::zygote::ContainerZygote;
use crate::exec::process::lock;
use bollard::Docker;
use bollard::models::{ContainerCreateBody, HostConfig, Mount, MountType};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::{LazyLock, Mutex};

/// pid 1 of every worker: `sleep`, with SIGCHLD ignored so that the kernel reaps the orphans it
/// inherits (no zombie outlives a run), falling back to a plain sleep where `env` cannot.
const PID1: &str = "env --ignore-signal=CHLD true 2>/dev/null && \
    exec env --ignore-signal=CHLD sleep infinity; exec sleep infinity";

/// The only places of a worker's container a run can write to besides its copy: memory
/// file systems, emptied after every run (`OUTSIDE_KEEP` excepted). The rest of the image is
/// read-only, so that no run can change what the next one starts from (a `sitecustomize.py`
/// in the standard library, a module in site-packages, a file in /etc).
pub(super) const WRITABLE: &[(&str, &str)] = &[
    ("/tmp", "rw,exec,nosuid,nodev,size=512m"),
    ("/var/tmp", "rw,nosuid,nodev,size=256m"),
    ("/run", "rw,nosuid,nodev,size=64m"),
];

/// What of the writable places is evootter's own and stays: the worker's scratch (the run
/// directory inside it is made fresh for every run).
pub(super) const OUTSIDE_KEEP: &str = SCRATCH;

/// The writable places emptied after every run: the memory file systems and /dev/shm.
pub(super) fn outside_dirs() -> Vec<&'static str> {
    WRITABLE
        .iter()
        .map(|(d, _)| *d)
        .chain(["/dev/shm"])
        .collect()
}

/// Kills every process in the container but pid 1 and this shell, until none is left (a
/// dying process can take a moment to leave /proc).
pub(super) const KILL_ALL: &str = "kill -9 -1 2>/dev/null; i=0; while [ $i -lt 500 ]; do left=; \
    for p in /proc/[0-9]*; do p=${p#/proc/}; [ \"$p\" = 1 ] || [ \"$p\" = \"$$\" ] || left=1; \
    done; [ -z \"$left\" ] && break; kill -9 -1 2>/dev/null; sleep 0.01; i=$((i+1)); done";

/// A container and the record of its working copy.
pub(super) struct WorkerState {
    pub(super) container: String,
    pub(super) recorded: Listing,
    /// The warm interpreter running in it, once started.
    pub(super) zygote: Option<ContainerZygote>,
    /// A run began and its copy was not put back (its future was dropped, or it ended in an
    /// error): the next run gets a fresh container instead.
    pub(super) dirty: bool,
}

/// What a new worker needs to know, owned so workers start concurrently.
#[derive(Clone)]
pub(super) struct Recipe {
    pub(super) cfg: DockerConfig,
    pub(super) owner: String,
    pub(super) executor: u64,
    pub(super) repo_tar: Arc<Vec<u8>>,
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
                // Sealed: the image read-only, memory file systems for what must be writable,
                // and the copy on a volume of its own, which starts as the image's workdir
                // (a SWE-bench image's built extensions and egg-links stay) before the
                // repository is unpacked over it. Removed with the container.
                readonly_rootfs: Some(true),
                tmpfs: Some(
                    WRITABLE
                        .iter()
                        .map(|(d, o)| ((*d).to_owned(), (*o).to_owned()))
                        .collect(),
                ),
                mounts: Some(vec![Mount {
                    target: Some(self.cfg.workdir.clone()),
                    typ: Some(MountType::VOLUME),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Creates and starts a worker's container, puts the repository in and records it.
    pub(super) async fn start(
        &self,
        host: &Host,
        worker: usize,
    ) -> Result<WorkerState, DockerError> {
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
                zygote: None,
                dirty: false,
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
                "exec 2>&1; mkdir -p {workdir} {SCRATCH} && command -v sha256sum && \
                 command -v tar && find {SCRATCH} -maxdepth 0 -printf ''"
            ),
            None,
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
            None,
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

/// Every container of every executor in this process (container id -> executor id, host), so
/// Ctrl-C can end their runs and a dropped executor remove its own.
pub(super) static LIVE: LazyLock<Mutex<BTreeMap<String, (u64, String)>>> =
    LazyLock::new(Default::default);

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
