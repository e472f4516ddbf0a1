//! The processes of runs: the supervisor every run (or warm interpreter) starts under,
//! registered so that Ctrl-C and a dropped executor can end them; the log pipe a cold run
//! writes into and the thread that drains it; how a run ended.

use super::pytest_run::LogBuffer;
use std::collections::HashMap;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long to wait for the log pipe to close after the process group is dead; only a
/// process that escaped the group (`setsid`) can hold it longer.
const LOG_DRAIN_GRACE: Duration = Duration::from_secs(2);

/// How a run's process ended: its exit code (`None`: killed by a signal), or the timeout.
pub enum RunEnd {
    Exited(Option<i32>),
    TimedOut,
}

/// The supervisors (W, see `sandbox::child`) of running executions, with the executor that
/// started each, so a Ctrl-C handler can end them all and a dropped executor its own.
static RUNNING: LazyLock<Mutex<HashMap<i32, u64>>> = LazyLock::new(Default::default);

fn running() -> MutexGuard<'static, HashMap<i32, u64>> {
    lock(&RUNNING)
}

/// Ends every execution any executor in this process has running. For the Ctrl-C handler:
/// each supervisor kills its run's processes and exits; the runs then see that and clean up
/// their copies.
pub fn kill_all_running() {
    for &pid in running().keys() {
        // SAFETY: kill has no memory-safety preconditions; the pid is a child not yet reaped.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
}

/// Ends the runs an executor started (it is being dropped).
pub fn end_runs_of(executor: u64) {
    running().retain(|&pid, &mut owner| {
        if owner == executor {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            false
        } else {
            true
        }
    });
}

/// How many times `kill_all_running` was called: a warm run whose interpreter died because
/// everything was being ended is not retried.
static KILLS: AtomicU64 = AtomicU64::new(0);

/// Counts one ending of everything (`exec::kill_all_running`).
pub fn count_kill_all() {
    KILLS.fetch_add(1, Ordering::SeqCst);
}

/// How many times everything was ended so far.
pub fn kills() -> u64 {
    KILLS.load(Ordering::SeqCst)
}

/// A fresh id for an executor: the registries say which executor started each process or
/// container, so a dropped one ends only its own.
pub fn next_executor_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A lock that a panicking holder did not make unusable: what these mutexes guard (free
/// lists, registries, records of a copy) stays consistent between statements.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How long a supervisor may take to kill its run and exit before its group gets SIGKILL.
pub const SUPERVISOR_GRACE: Duration = Duration::from_secs(5);

/// A running execution's supervisor W, registered for Ctrl-C. Ending a run means SIGTERM to
/// W, which kills every process of the run and then exits: W itself is killed outright only
/// as a last resort (its group, while it is still unreaped, so the id cannot have been reused).
pub struct Supervisor {
    pid: i32,
    reaped: bool,
}

impl Supervisor {
    pub fn register(pid: i32, owner: u64) -> Self {
        if pid > 0 {
            running().insert(pid, owner);
        }
        Self { pid, reaped: false }
    }

    pub fn terminate(&self) {
        if self.pid > 0 && !self.reaped {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(self.pid, libc::SIGTERM) };
        }
    }

    pub fn kill_group(&self) {
        if self.pid > 0 && !self.reaped {
            // SAFETY: killpg has no memory-safety preconditions.
            unsafe { libc::killpg(self.pid, libc::SIGKILL) };
        }
    }

    /// W was waited for: its pid may be reused from now on, so it is never signalled again.
    pub fn reaped(&mut self) {
        self.reaped = true;
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        if !self.reaped && self.pid > 0 {
            // A run dropped mid-flight (its future cancelled): W ends it, and the copy is put
            // back (right after this guard) only once W is done, i.e. a zombie not yet
            // reaped. Bounded, and only on this cancellation path.
            self.terminate();
            let deadline = Instant::now() + SUPERVISOR_GRACE;
            while !exited(self.pid) {
                if Instant::now() > deadline {
                    self.kill_group();
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        running().remove(&self.pid);
    }
}

/// Has this (unreaped) child exited: a zombie, or gone?
fn exited(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                == Some("Z")
        }
        Err(_) => true,
    }
}

pub fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid two-element array for pipe2 to fill.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    unsafe {
        use std::os::fd::FromRawFd;
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// Drains the log pipe on a plain thread (tokio here has no pipe support without `net`),
/// polling so it can be told to stop if an escaped process keeps the pipe open.
pub struct LogReader {
    rx: tokio::sync::oneshot::Receiver<Vec<u8>>,
    stop: Arc<AtomicBool>,
}

impl LogReader {
    pub fn spawn(fd: OwnedFd) -> Self {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = stop.clone();
        std::thread::spawn(move || {
            let _ = tx.send(drain(fd, &stop_flag));
        });
        Self { rx, stop }
    }

    pub async fn finish(mut self) -> Vec<u8> {
        if let Ok(Ok(bytes)) = tokio::time::timeout(LOG_DRAIN_GRACE, &mut self.rx).await {
            return bytes;
        }
        self.stop.store(true, Ordering::Relaxed);
        self.rx.await.unwrap_or_default()
    }
}

fn drain(fd: OwnedFd, stop: &AtomicBool) -> Vec<u8> {
    let mut file = std::fs::File::from(fd);
    let mut out = LogBuffer::default();
    let mut buf = [0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let mut pfd = libc::pollfd {
            fd: file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, 100) };
        if ready == 0 {
            continue;
        }
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    out.finish()
}
