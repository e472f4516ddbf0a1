//! What a Docker run is configured with, and what can go wrong with it in the user's words.

use crate::exec::types::ExecError;
use std::path::PathBuf;

/// How many times per worker a run may replace a container before it stops.
pub(super) const MAX_REPLACEMENTS_PER_WORKER: u64 = 3;

/// The Docker default when neither `hosts` nor `DOCKER_HOST` names one.
pub const DEFAULT_HOST: &str = "unix:///var/run/docker.sock";

/// The worker's private scratch directory inside its container; its `run/` is made fresh for
/// every run (home, temp dir, basetemp, junit report), as the local worker's is.
pub(super) const SCRATCH: &str = "/tmp/evootter";

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

impl From<DockerError> for ExecError {
    fn from(e: DockerError) -> Self {
        ExecError::Backend(Box::new(e))
    }
}
