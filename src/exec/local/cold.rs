//! The cold way to run a test locally: a fresh `python -m pytest` per execution, in the
//! worker's copy, under its supervisor (`sandbox::child`), its stdout and stderr in one pipe.

use crate::exec::process::{LogReader, RunEnd, SUPERVISOR_GRACE, Supervisor, pipe};
use crate::exec::sandbox::{self, ChildPlan};
use crate::exec::types::ExecError;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// One execution.
pub struct Run<'a> {
    pub python: &'a Path,
    /// pytest's whole command line after the interpreter (`-m pytest ...`).
    pub args: Vec<String>,
    pub copy: &'a Path,
    /// The whole environment: nothing else of evootter's reaches the test.
    pub env: &'a [(String, String)],
    pub plan: ChildPlan,
    pub timeout: Duration,
    /// The executor that owns the run's supervisor (see `process::Supervisor`).
    pub owner: u64,
}

/// Runs it to its end or its timeout; the raw log and how long it took.
pub async fn run(r: Run<'_>) -> Result<(RunEnd, String, Duration), ExecError> {
    let (log_read, log_write) = pipe().map_err(|e| ExecError::Other(format!("pipe: {e}")))?;
    let log_write2 = log_write
        .try_clone()
        .map_err(|e| ExecError::Other(format!("pipe: {e}")))?;
    let mut cmd = tokio::process::Command::new(r.python);
    cmd.args(&r.args)
        .current_dir(r.copy)
        .stdin(Stdio::null())
        // One pipe behind both streams keeps stdout and stderr in the order written.
        .stdout(Stdio::from(log_write))
        .stderr(Stdio::from(log_write2))
        .process_group(0);
    cmd.env_clear();
    cmd.envs(r.env.iter().map(|(k, v)| (k, v)));
    let plan = r.plan;
    // SAFETY: `ChildPlan::enter` only makes async-signal-safe system calls on buffers
    // prepared before the fork.
    unsafe {
        cmd.pre_exec(move || plan.enter());
    }

    let started = Instant::now();
    let spawned = cmd.spawn();
    // Our copies of the pipe's write end must close, or the log never reaches EOF.
    drop(cmd);
    let mut child = spawned.map_err(|source| ExecError::Spawn {
        python: r.python.display().to_string(),
        source,
    })?;
    let pid = child.id().map(|pid| pid as i32).unwrap_or(0);
    let mut supervisor = Supervisor::register(pid, r.owner);
    let reader = LogReader::spawn(log_read);

    let status = match tokio::time::timeout(r.timeout, child.wait()).await {
        Ok(status) => Some(status.map_err(|e| ExecError::Other(format!("wait: {e}")))?),
        Err(_) => {
            supervisor.terminate();
            if tokio::time::timeout(SUPERVISOR_GRACE, child.wait())
                .await
                .is_err()
            {
                supervisor.kill_group();
                let _ = child.wait().await;
            }
            None
        }
    };
    let duration = started.elapsed();
    // The supervisor has exited after killing everything of the run.
    supervisor.reaped();
    drop(supervisor);
    let bytes = reader.finish().await;
    let raw_log = String::from_utf8_lossy(&bytes).into_owned();
    if status.is_some_and(|s| s.code() == Some(sandbox::SETUP_FAILED_EXIT))
        && let Some((step, errno)) = sandbox::setup_failure(&raw_log)
    {
        return Err(ExecError::Other(format!(
            "could not isolate the execution ({step}: {}); `--no-sandbox` runs without \
             the sandbox",
            std::io::Error::from_raw_os_error(errno)
        )));
    }
    let end = match status {
        Some(s) => RunEnd::Exited(s.code()),
        None => RunEnd::TimedOut,
    };
    Ok((end, raw_log, duration))
}
