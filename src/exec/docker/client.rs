//! Talking to Docker daemons: connecting (with API version negotiation), running a script
//! in a container with its output streamed, uploading tar archives, removing containers,
//! and doing that from a thread of its own where the caller cannot await.

use super::config::DockerError;
use crate::exec::process::lock;
use bollard::Docker;
use bollard::exec::StartExecResults;
use bollard::models::ExecConfig;
use bollard::query_parameters::{
    ListContainersOptionsBuilder, RemoveContainerOptionsBuilder, UploadToContainerOptionsBuilder,
};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::io::AsyncWriteExt;

/// Bounds every step of a run that is not the test itself (uploads, listing, restoring):
/// bollard's own timeout does not bound a stream.
pub(super) const STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a host may take to answer a ping before it counts as down.
pub(super) const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `action` for every (host, container) on a thread of its own with its own runtime, and
/// waits for it: for Drop and the Ctrl-C hook, which cannot await.
pub(super) fn on_own_runtime<F, Fut>(items: Vec<(String, String)>, action: F)
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

pub(super) async fn connect(host: &str) -> Result<Docker, DockerError> {
    let unreachable = |reason: String| DockerError::Unreachable {
        host: host.to_owned(),
        reason,
    };
    if let Some(rest) = host.strip_prefix("ssh://")
        && rest.rsplit_once('@').map_or(rest, |(_, h)| h).contains(':')
    {
        // bollard hands ssh the authority as a host name, where `:PORT` does not parse.
        return Err(unreachable(
            "an ssh host cannot carry a port here; use port 22, or a Host entry with its Port \
             in ~/.ssh/config and ssh://USER@THAT_HOST"
                .to_owned(),
        ));
    }
    let docker = Docker::connect_with_host(host).map_err(|e| unreachable(e.to_string()))?;
    // The daemon may speak an older API than bollard's default.
    match tokio::time::timeout(Duration::from_secs(20), docker.negotiate_version()).await {
        Ok(Ok(docker)) => Ok(docker),
        Ok(Err(e)) => Err(unreachable(e.to_string())),
        Err(_) => Err(unreachable("no answer within 20 s".to_owned())),
    }
}

pub(super) fn this_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return "localhost".to_owned();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

pub(super) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `'...'` for the shell, whatever the text.
pub(super) fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The next item of a bollard stream.
pub(super) async fn next<S>(stream: &mut Pin<Box<S>>) -> Option<S::Item>
where
    S: futures_core::Stream + ?Sized,
{
    std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await
}

/// Runs `script` with `shell -c` as root in the container, feeds it `stdin` (then end of
/// file), hands its output (stdout and stderr as they arrive) to `sink`, and returns its exit
/// code once it has ended.
pub(super) async fn exec(
    docker: &Docker,
    container: &str,
    shell: &str,
    script: &str,
    env: Vec<String>,
    stdin: Option<&[u8]>,
    sink: &mut (dyn FnMut(&[u8]) + Send),
) -> Result<Option<i64>, bollard::errors::Error> {
    let created = docker
        .create_exec(
            container,
            ExecConfig {
                attach_stdin: Some(stdin.is_some()),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                cmd: Some(vec![shell.to_owned(), "-c".to_owned(), script.to_owned()]),
                env: Some(env),
                user: Some("0".to_owned()),
                ..Default::default()
            },
        )
        .await?;
    if let StartExecResults::Attached {
        mut output,
        mut input,
    } = docker.start_exec(&created.id, None).await?
    {
        if let Some(bytes) = stdin {
            // Closing our side is the end of file the script reads.
            input.write_all(bytes).await?;
            input.shutdown().await?;
        }
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
pub(super) async fn helper(
    docker: &Docker,
    container: &str,
    script: &str,
    stdin: Option<&[u8]>,
) -> Result<(Vec<u8>, Option<i64>), StepError> {
    let mut out = Vec::new();
    let code = tokio::time::timeout(
        STEP_TIMEOUT,
        exec(docker, container, "sh", script, vec![], stdin, &mut |b| {
            out.extend_from_slice(b)
        }),
    )
    .await
    .map_err(|_| StepError::timed_out())??;
    Ok((out, code))
}

pub(super) async fn upload(
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
pub(super) struct StepError(pub(super) String);

impl StepError {
    pub(super) fn timed_out() -> Self {
        Self(format!("no answer within {} s", STEP_TIMEOUT.as_secs()))
    }
}

impl From<bollard::errors::Error> for StepError {
    fn from(e: bollard::errors::Error) -> Self {
        Self(e.to_string())
    }
}

/// Removes the containers of dead evootter runs on this machine: a run killed with SIGKILL
/// could not remove its own.
pub(super) async fn remove_leftovers(docker: &Docker, hostname: &str) {
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

pub(super) async fn remove_container(docker: &Docker, id: &str) -> Result<(), StepError> {
    let options = RemoveContainerOptionsBuilder::default()
        .force(true)
        .v(true)
        .build();
    tokio::time::timeout(STEP_TIMEOUT, docker.remove_container(id, Some(options)))
        .await
        .map_err(|_| StepError::timed_out())??;
    Ok(())
}

/// One Docker daemon and whether it still answers.
pub(super) struct Host {
    pub(super) name: String,
    pub(super) docker: Docker,
    /// Why it was given up, once it failed mid-run.
    pub(super) down: Mutex<Option<String>>,
}

impl Host {
    pub(super) fn is_down(&self) -> bool {
        lock(&self.down).is_some()
    }
}
