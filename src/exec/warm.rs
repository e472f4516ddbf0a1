//! The warm executor's interpreter: one long-lived Python process per worker (the zygote,
//! `zygote.py`) that has imported pytest and its plugins and forks once per execution, so an
//! execution costs a fork and pytest's own work instead of an interpreter start-up.
//!
//! The zygote is started like a cold run's pytest: in the worker's copy, with the run's
//! environment, under the same supervisor and sandbox (`sandbox::child`). It enforces each
//! execution's timeout itself (it kills the child's process group and everything the child
//! left) and survives; evootter only waits a little longer than the timeout for its answer,
//! and a zygote that does not answer or dies is dropped and replaced.

use super::local::Supervisor;
use super::pytest_run::LogBuffer;
use super::sandbox::{self, ChildPlan};
use super::types::ExecError;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// The zygote's program, written next to the workers when the executor starts.
pub const ZYGOTE_SCRIPT: &str = include_str!("zygote.py");

/// How long a zygote may take to import pytest and its plugins and say it is ready.
pub const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// Beyond an execution's own timeout (which the zygote enforces), how long evootter waits for
/// the zygote's answer before it gives up on that zygote.
pub const ANSWER_GRACE: Duration = Duration::from_secs(10);

/// How an execution in the zygote ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

/// What starting a zygote needs.
pub struct Start<'a> {
    pub python: &'a Path,
    pub script: &'a Path,
    pub copy: &'a Path,
    /// The whole environment, as a cold run's (`pytest_run::inherited_env` and the run's
    /// own variables).
    pub env: Vec<(String, String)>,
    pub plan: ChildPlan,
    /// Where the zygote's own stderr goes (its children write to their logs instead).
    pub stderr: PathBuf,
    /// Private tmpfs mounts the zygote empties after every execution.
    pub clean: Vec<String>,
    /// Give every execution a network namespace of its own, as the cold runs have.
    pub netns_per_run: bool,
    pub owner: u64,
}

pub struct Zygote {
    // First: dropping it ends the zygote's supervisor (and with it the zygote) before the
    // child handle goes.
    supervisor: Supervisor,
    channel: Channel,
    stderr: PathBuf,
    _child: tokio::process::Child,
}

/// The two ends of a zygote's protocol (`zygote.py`): requests in, frames out. Over a child's
/// pipes locally, over an attached `docker exec` in a container.
pub struct Channel {
    input: Pin<Box<dyn AsyncWrite + Send>>,
    output: BufReader<Pin<Box<dyn AsyncRead + Send>>>,
}

/// A request's answer: its end frame (`E`), the log it streamed, what it collected (`C`).
pub struct Answer {
    pub end: serde_json::Value,
    pub collected: Option<Vec<u8>>,
}

impl Answer {
    /// How the execution ended, from the end frame of a run.
    pub fn ending(&self) -> Ending {
        if self.end["timeout"] == true {
            Ending::TimedOut
        } else if let Some(s) = self.end["signal"].as_i64() {
            Ending::Signaled(s as i32)
        } else {
            Ending::Exited(self.end["exit"].as_i64().unwrap_or(1) as i32)
        }
    }
}

impl Channel {
    pub fn new(
        input: Pin<Box<dyn AsyncWrite + Send>>,
        output: Pin<Box<dyn AsyncRead + Send>>,
    ) -> Self {
        Self {
            input,
            output: BufReader::new(output),
        }
    }

    async fn frame(&mut self) -> std::io::Result<(u8, Vec<u8>)> {
        let mut head = [0u8; 5];
        self.output.read_exact(&mut head).await?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut payload = vec![0u8; len];
        self.output.read_exact(&mut payload).await?;
        Ok((head[0], payload))
    }

    /// Waits for the ready frame and checks that the zygote holds none of the copy's modules.
    /// `Err(None)`: it did not get ready (the caller says why, with what it printed).
    pub async fn ready(&mut self) -> Result<(), Result<ExecError, String>> {
        let ready = match tokio::time::timeout(READY_TIMEOUT, self.frame()).await {
            Ok(Ok((b'R', payload))) => payload,
            Ok(Ok((kind, _))) => {
                return Err(Err(format!("it sent frame {:?} first", kind as char)));
            }
            Ok(Err(e)) => return Err(Err(format!("it ended before it was ready ({e})"))),
            Err(_) => return Err(Err("it was not ready within 60 s".to_owned())),
        };
        let ready: serde_json::Value = serde_json::from_slice(&ready)
            .map_err(|e| Ok(ExecError::Other(format!("the zygote's ready frame: {e}"))))?;
        let from_copy: Vec<&str> = ready["from_copy"]
            .as_array()
            .map(|a| a.iter().filter_map(|m| m.as_str()).collect())
            .unwrap_or_default();
        if from_copy.is_empty() {
            return Ok(());
        }
        Err(Ok(ExecError::Other(format!(
            "the warm executor cannot serve this repository: importing pytest and its \
             plugins imports the repository's own {} ({}), which a mutant may change; \
             use --executor cold",
            if from_copy.len() == 1 {
                "module"
            } else {
                "modules"
            },
            from_copy.join(", ")
        ))))
    }

    /// Sends one request (and the bytes it names as its `blob`) and reads its frames until its
    /// end frame, the log into `log`, within `within`. `Err`: the zygote is not to be used
    /// again, and why.
    pub async fn request(
        &mut self,
        req: &serde_json::Value,
        blob: &[u8],
        within: Duration,
        log: &mut LogBuffer,
    ) -> Result<Answer, String> {
        let mut line = serde_json::to_vec(req).map_err(|e| e.to_string())?;
        line.push(b'\n');
        let sent = async {
            self.input.write_all(&line).await?;
            self.input.write_all(blob).await?;
            self.input.flush().await
        };
        sent.await
            .map_err(|e| format!("it took no request ({e})"))?;
        let deadline = tokio::time::Instant::now() + within;
        let mut collected = None;
        loop {
            match tokio::time::timeout_at(deadline, self.frame()).await {
                Ok(Ok((b'L', chunk))) => log.push(&chunk),
                Ok(Ok((b'C', bytes))) => collected = Some(bytes),
                Ok(Ok((b'E', end))) => {
                    let end =
                        serde_json::from_slice(&end).map_err(|e| format!("its end frame: {e}"))?;
                    return Ok(Answer { end, collected });
                }
                Ok(Ok((kind, _))) => return Err(format!("it sent frame {:?}", kind as char)),
                Ok(Err(e)) => return Err(format!("it ended ({e})")),
                Err(_) => return Err("it did not answer".to_owned()),
            }
        }
    }
}

/// The zygote could not run an execution; it is not to be used again.
#[derive(Debug)]
pub struct Died(pub String);

impl Zygote {
    pub async fn start(s: Start<'_>) -> Result<Self, ExecError> {
        let stderr = std::fs::File::create(&s.stderr).map_err(|source| ExecError::WorkingCopy {
            path: s.stderr.display().to_string(),
            source,
        })?;
        let mut cmd = tokio::process::Command::new(s.python);
        cmd.arg("-B")
            .arg(s.script)
            .current_dir(s.copy)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .process_group(0);
        // The zygote's environment is the runs' whole environment, nothing of evootter's.
        cmd.env_clear();
        cmd.envs(s.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        cmd.env("EVOOTTER_ZYGOTE_CLEAN", s.clean.join(":"));
        cmd.env(
            "EVOOTTER_ZYGOTE_NETNS",
            if s.netns_per_run { "1" } else { "0" },
        );
        let plan = s.plan;
        // SAFETY: `ChildPlan::enter` only makes async-signal-safe system calls on buffers
        // prepared before the fork.
        unsafe {
            cmd.pre_exec(move || plan.enter());
        }
        let mut child = cmd.spawn().map_err(|source| ExecError::Spawn {
            python: s.python.display().to_string(),
            source,
        })?;
        let pid = child.id().map(|p| p as i32).unwrap_or(0);
        let supervisor = Supervisor::register(pid, s.owner);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ExecError::Other("the zygote has no pipes".into()));
        };
        let mut z = Self {
            supervisor,
            channel: Channel::new(Box::pin(stdin), Box::pin(stdout)),
            stderr: s.stderr.clone(),
            _child: child,
        };
        match z.channel.ready().await {
            Ok(()) => Ok(z),
            Err(Ok(refused)) => Err(refused),
            Err(Err(what)) => Err(z.failed(&what)),
        }
    }

    /// A start-up failure, with what the zygote (or its sandbox set-up) said.
    fn failed(&self, what: &str) -> ExecError {
        let said = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        if let Some((step, errno)) = sandbox::setup_failure(&said) {
            return ExecError::Other(format!(
                "could not isolate the warm interpreter ({step}: {}); `--no-sandbox` runs \
                 without the sandbox",
                std::io::Error::from_raw_os_error(errno)
            ));
        }
        ExecError::Other(format!(
            "the warm interpreter did not start: {what}{}; `--executor cold` runs without it",
            tail(&said)
        ))
    }

    /// One execution: pytest's arguments (after `-m pytest`), its whole environment, its
    /// timeout. The log goes into `log` as it arrives.
    pub async fn run(
        &mut self,
        args: &[String],
        env: &[(String, String)],
        timeout: Duration,
        log: &mut LogBuffer,
    ) -> Result<Ending, Died> {
        let env: serde_json::Map<String, serde_json::Value> = env
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        let req = serde_json::json!({
            "args": args,
            "env": env,
            "timeout": timeout.as_secs_f64(),
        });
        match self
            .channel
            .request(&req, &[], timeout + ANSWER_GRACE, log)
            .await
        {
            Ok(answer) => Ok(answer.ending()),
            Err(what) => Err(self.died(&what)),
        }
    }

    fn died(&self, what: &str) -> Died {
        let said = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        Died(format!("{what}{}", tail(&said)))
    }

    /// Ends the zygote (and whatever runs in it) now.
    pub fn terminate(&mut self) {
        self.supervisor.terminate();
    }
}

/// The last lines a zygote printed, for an error message.
pub fn tail(said: &str) -> String {
    let last: Vec<&str> = said.lines().rev().take(3).collect();
    if last.is_empty() {
        String::new()
    } else {
        let mut last = last;
        last.reverse();
        format!(": {}", last.join(" | "))
    }
}
