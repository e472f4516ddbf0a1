//! The warm executor's interpreter: one long-lived Python process per worker (the zygote, the
//! package in `exec/zygote/`, started by its launcher) that has imported pytest and its
//! plugins and forks once per execution, so an execution costs a fork and pytest's own work
//! instead of an interpreter start-up.
//!
//! The zygote is started like a cold run's pytest: in the worker's copy, with the run's
//! environment, under the same supervisor and sandbox (`sandbox::child`). It enforces each
//! execution's timeout itself (it kills the child's process group and everything the child
//! left) and survives; evootter only waits a little longer than the timeout for its answer,
//! and a zygote that does not answer or dies is dropped and replaced.

use crate::exec::process::{RunEnd, Supervisor, kills};
use crate::exec::pytest_run::LogBuffer;
use crate::exec::sandbox::{self, ChildPlan};
use crate::exec::types::ExecError;
use crate::exec::zygote::{ANSWER_GRACE, Channel, Ending, tail};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// What starting a zygote needs.
pub struct Start<'a> {
    pub python: &'a Path,
    /// The zygote's launcher, in the directory it shares with the package alone.
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
    _supervisor: Supervisor,
    channel: Channel,
    stderr: PathBuf,
    _child: tokio::process::Child,
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
            _supervisor: supervisor,
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
}

/// One execution in a worker's zygote.
pub struct Run<'a> {
    /// The worker's zygote: `None` until started, and again after one died.
    pub slot: &'a tokio::sync::Mutex<Option<Zygote>>,
    /// pytest's arguments after `-m pytest`.
    pub args: &'a [String],
    pub env: &'a [(String, String)],
    pub timeout: Duration,
}

/// Runs it in a fork of the worker's zygote, started (again) by `start` if needed. A zygote
/// that dies under a run is replaced and the run retried once after `restore` has put the
/// copy back to what it started from; a second death is an error, never a result.
pub async fn run<S, F>(
    r: Run<'_>,
    start: S,
    mut restore: impl FnMut() -> Result<(), ExecError>,
) -> Result<(RunEnd, String, Duration), ExecError>
where
    S: Fn() -> F,
    F: Future<Output = Result<Zygote, ExecError>>,
{
    let mut slot = InFlight {
        slot: r.slot.lock().await,
        done: false,
    };
    let mut first_death = None;
    let kills_before = kills();
    for attempt in 0..2 {
        if attempt > 0 && kills() != kills_before {
            slot.done = true;
            return Err(ExecError::Other("the run was ended (Ctrl-C)".into()));
        }
        if attempt > 0 {
            // The dead run may have changed the copy.
            restore()?;
        }
        if slot.slot.is_none() {
            *slot.slot = Some(start().await?);
        }
        let Some(z) = slot.slot.as_mut() else {
            unreachable!("just started")
        };
        let started = Instant::now();
        let mut log = LogBuffer::default();
        match z.run(r.args, r.env, r.timeout, &mut log).await {
            Ok(ending) => {
                let duration = started.elapsed();
                slot.done = true;
                let raw = String::from_utf8_lossy(&log.finish()).into_owned();
                let end = match ending {
                    Ending::Exited(code) => RunEnd::Exited(Some(code)),
                    Ending::Signaled(_) => RunEnd::Exited(None),
                    Ending::TimedOut => RunEnd::TimedOut,
                };
                return Ok((end, raw, duration));
            }
            Err(died) => {
                // Dropping it ends its supervisor, and with it anything still running.
                slot.slot.take();
                first_death.get_or_insert(died.0);
            }
        }
    }
    slot.done = true;
    Err(ExecError::Other(format!(
        "the warm interpreter died twice during this execution ({}); `--executor cold` \
         runs without it",
        first_death.unwrap_or_default()
    )))
}

/// The worker's zygote while a run is in it: if the run's future is dropped mid-flight, the
/// zygote (and the run inside it) is ended before the copy is put back.
struct InFlight<'a> {
    slot: tokio::sync::MutexGuard<'a, Option<Zygote>>,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.slot.take();
        }
    }
}
