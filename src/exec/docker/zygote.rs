//! The warm executor inside a worker's container: the zygote (`exec/zygote/`) started once
//! through one attached `docker exec`, its protocol spoken over that exec's stdin and stdout.
//! A run (staging, pytest, collecting the results) and putting the copy back are then each
//! one request on an open stream, where the cold path needs two or three `docker exec`s of
//! several API calls and a runc exec each.

use super::client::{StepError, helper, next, quote};
use super::rescan::{self, Listing};
use super::tarball::Tarball;
use crate::exec::pytest_run::LogBuffer;
use crate::exec::types::ExecError;
use crate::exec::zygote::{Answer, Channel, ZYGOTE_FILES, ZYGOTE_PROGRAM, tail};
use bollard::Docker;
use bollard::container::LogOutput;
use bollard::exec::StartExecResults;
use bollard::models::ExecConfig;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// Where the zygote's program (its launcher and package) is put in every container: outside
/// the copy, in a directory of its own, which is on the zygote's `sys.path` only while the
/// launcher imports the package.
const PROGRAM_DIR: &str = "/tmp/evootter/zygote";

/// How much of the zygote's own stderr is kept for error messages.
const STDERR_KEPT: usize = 64 * 1024;

/// Bounds a `list` or `restore` request: file work only, no test runs in it.
const FILE_WORK: Duration = Duration::from_secs(120);

pub(super) struct ContainerZygote {
    channel: Channel,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Moves the exec's stdout into the channel and keeps its stderr.
    pump: tokio::task::JoinHandle<()>,
}

/// Why a zygote could not be had.
pub(super) enum StartError {
    /// The host did not do what was asked.
    Host(StepError),
    /// It started but cannot serve this repository or image.
    Refused(ExecError),
}

/// What starting one needs: the container, how the image's interpreter is reached, and the
/// environment a run sets (the zygote adds it to its own for every run).
pub(super) struct Start<'a> {
    pub docker: &'a Docker,
    pub container: &'a str,
    pub shell: &'a str,
    pub workdir: &'a str,
    pub activation: String,
    pub python: &'a str,
    pub unset: &'a [&'a str],
    pub env: Vec<String>,
}

impl ContainerZygote {
    pub(super) async fn start(s: Start<'_>) -> Result<Self, StartError> {
        let program = program_tar().map_err(|e| {
            StartError::Refused(ExecError::Other(format!(
                "could not pack the warm interpreter's program ({e}); `--executor cold` runs \
                 without it"
            )))
        })?;
        let (out, code) = helper(
            s.docker,
            s.container,
            &format!("mkdir -p {PROGRAM_DIR} && tar -xf - -C {PROGRAM_DIR}"),
            Some(&program),
        )
        .await
        .map_err(StartError::Host)?;
        if code != Some(0) {
            return Err(StartError::Refused(ExecError::Other(format!(
                "could not put the warm interpreter's program in the container ({}); \
                 `--executor cold` runs without it",
                String::from_utf8_lossy(&out).trim()
            ))));
        }
        let script = format!(
            "cd {} || exit 125; unset {}; {}exec {} -B {PROGRAM_DIR}/{ZYGOTE_PROGRAM}",
            quote(s.workdir),
            s.unset.join(" "),
            s.activation,
            quote(s.python),
        );
        let host = |e: bollard::errors::Error| StartError::Host(e.into());
        let created = s
            .docker
            .create_exec(
                s.container,
                ExecConfig {
                    attach_stdin: Some(true),
                    attach_stdout: Some(true),
                    attach_stderr: Some(true),
                    cmd: Some(vec![s.shell.to_owned(), "-c".to_owned(), script]),
                    env: Some(s.env),
                    user: Some("0".to_owned()),
                    ..Default::default()
                },
            )
            .await
            .map_err(host)?;
        let StartExecResults::Attached { mut output, input } =
            s.docker.start_exec(&created.id, None).await.map_err(host)?
        else {
            return Err(StartError::Host(StepError(
                "the exec of the warm interpreter was not attached".to_owned(),
            )));
        };
        let (mut to_channel, from_pump) = tokio::io::duplex(1 << 16);
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = stderr.clone();
        let pump = tokio::spawn(async move {
            while let Some(Ok(item)) = next(&mut output).await {
                match item {
                    LogOutput::StdOut { message }
                        if to_channel.write_all(&message).await.is_err() =>
                    {
                        break;
                    }
                    LogOutput::StdOut { .. } => {}
                    LogOutput::StdErr { message } => {
                        let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                        if kept.len() < STDERR_KEPT {
                            kept.extend_from_slice(&message);
                        }
                    }
                    _ => {}
                }
            }
            // Dropping the writer is the end of file the channel reads.
        });
        let mut z = Self {
            channel: Channel::new(input, Box::pin(from_pump)),
            stderr,
            pump,
        };
        match z.channel.ready().await {
            Ok(()) => Ok(z),
            Err(Ok(refused)) => Err(StartError::Refused(refused)),
            Err(Err(what)) => Err(StartError::Refused(ExecError::Other(format!(
                "the warm interpreter did not start in the container: {what}{}; \
                 `--executor cold` runs without it",
                z.said()
            )))),
        }
    }

    /// The last lines of the zygote's own stderr, for an error message.
    fn said(&self) -> String {
        let kept = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        tail(&String::from_utf8_lossy(&kept))
    }

    /// One request; `Err` says why the zygote is not to be used again.
    pub(super) async fn request(
        &mut self,
        req: &serde_json::Value,
        blob: &[u8],
        within: Duration,
        log: &mut LogBuffer,
    ) -> Result<Answer, String> {
        match self.channel.request(req, blob, within, log).await {
            Ok(answer) => Ok(answer),
            Err(what) => Err(format!("{what}{}", self.said())),
        }
    }

    /// A listing of the whole copy, in the form every later listing of this zygote takes.
    pub(super) async fn list(&mut self) -> Result<Listing, String> {
        let answer = self
            .request(
                &serde_json::json!({"op": "list"}),
                &[],
                FILE_WORK,
                &mut LogBuffer::default(),
            )
            .await?;
        file_work(answer)
    }

    /// Puts the copy back: `rm` deleted, the tar of the repository's entries unpacked, the
    /// directory modes set; the listing of `list` (and below) after that.
    pub(super) async fn restore(
        &mut self,
        rm: &[String],
        tar: &[u8],
        chmod: &[(String, u32)],
        list: &[String],
    ) -> Result<Result<Listing, String>, String> {
        let req = serde_json::json!({
            "op": "restore",
            "rm": rm,
            "chmod": chmod,
            "list": list,
            "blob": tar.len(),
        });
        let answer = self
            .request(&req, tar, FILE_WORK, &mut LogBuffer::default())
            .await?;
        Ok(file_work(answer))
    }
}

/// The zygote's files as a tar, for `tar -xf -` in the container (copying into a container's
/// tmpfs through the API would not reach the tmpfs).
fn program_tar() -> std::io::Result<Vec<u8>> {
    let mut tar = Tarball::new();
    for (rel, text) in ZYGOTE_FILES {
        tar.file(rel, text.as_bytes(), 0o644)?;
    }
    tar.finish()
}

/// The listing a `list` or `restore` request collected, or what went wrong doing it.
fn file_work(answer: Answer) -> Result<Listing, String> {
    if let Some(e) = answer.end["error"].as_str() {
        return Err(e.to_owned());
    }
    Ok(rescan::parse_listing(
        answer.collected.as_deref().unwrap_or_default(),
    ))
}

impl Drop for ContainerZygote {
    /// Its stdin closes with the channel, which ends an idle zygote; a busy one goes with its
    /// container.
    fn drop(&mut self) {
        self.pump.abort();
    }
}
