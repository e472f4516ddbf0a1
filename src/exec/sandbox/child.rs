//! What runs in one execution's processes between fork and exec. Only async-signal-safe
//! system calls are allowed here (the parent has other threads; no allocation, no locks), so
//! every path and buffer is prepared in a [`ChildPlan`] before the fork.
//!
//! The process tree of one execution:
//!
//! ```text
//! evootter ─ W  the spawned child: enters namespaces, mounts the overlay, applies Landlock,
//!            │  then only waits and hands on how pytest ended
//!            └─ A  pid 1 of a fresh pid namespace: reaps orphans; when B ends A ends, and the
//!               │  kernel kills whatever is left in the namespace (daemons, double forks)
//!               └─ B  returns to std, which execs `python -m pytest`
//! ```
//!
//! Without a pid namespace, W is a child subreaper instead: orphans are reparented to it, and
//! it kills them once B has ended. W and A close every inherited descriptor they do not need,
//! so std's exec-status pipe reaches EOF as soon as B has exec'ed and `spawn` returns at once.

use super::landlock::LandlockPlan;
use std::ffi::CString;

/// W's exit code when a setup step failed; its log then starts with [`SETUP_FAILED_MARKER`].
pub const SETUP_FAILED_EXIT: i32 = 125;
/// First bytes of the log of an execution whose isolation could not be set up, followed by
/// the step, and `(errno N)`.
pub const SETUP_FAILED_MARKER: &str = "[evootter] isolation setup failed: ";

/// Everything the child does, decided and allocated before the fork.
#[derive(Debug, Default)]
pub struct ChildPlan {
    /// evootter's pid: a W whose parent is already gone exits at once.
    pub parent: u32,
    /// `CLONE_NEW*` flags for `unshare` (0: no namespaces).
    pub unshare: libc::c_int,
    /// For an unprivileged user namespace: `/proc/self/uid_map` and `gid_map` contents.
    pub id_maps: Option<(Vec<u8>, Vec<u8>)>,
    /// Remount everything private first, so nothing mounted here propagates to the host.
    pub private_mounts: bool,
    pub overlay: Option<OverlayMount>,
    /// Directories that get a fresh, private tmpfs (`/dev/shm`, `/run`).
    pub tmpfs: Vec<CString>,
    /// Re-entered after mounting: std's chdir happened before the overlay covered the copy.
    pub chdir: Option<CString>,
    /// Files removed through the overlay for this run only (a golden patch deleting them).
    pub unlink: Vec<CString>,
    /// Bring up `lo` in a new network namespace, so a test's own local servers still work.
    pub loopback_up: bool,
    pub landlock: Option<LandlockPlan>,
    /// Fork a pid-namespace init (A) between W and pytest.
    pub pid_namespace: bool,
}

#[derive(Debug)]
pub struct OverlayMount {
    pub target: CString,
    /// `lowerdir=...,upperdir=...,workdir=...`
    pub options: CString,
}

impl ChildPlan {
    /// Runs in W (from `pre_exec`). Returns only in B, which then execs pytest; W and A end
    /// with `_exit` and never return.
    pub fn enter(&self) -> std::io::Result<()> {
        // SAFETY: every call below is a plain system call on buffers owned by `self` or the
        // stack; nothing allocates or takes a lock, as required after fork in a threaded
        // process.
        unsafe {
            // The kernel kills W when evootter dies, even by SIGKILL (strictly: when the
            // spawning thread dies; runs are polled on runtime threads, which live as long as
            // the runtime).
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                fail("set the parent-death signal", errno());
            }
            if libc::getppid() as u32 != self.parent {
                libc::_exit(1);
            }
            if self.unshare != 0 && libc::unshare(self.unshare) == -1 {
                fail("unshare namespaces", errno());
            }
            if let Some((uid_map, gid_map)) = &self.id_maps {
                write_file(c"/proc/self/setgroups", b"deny", "deny setgroups");
                write_file(c"/proc/self/uid_map", uid_map, "write uid_map");
                write_file(c"/proc/self/gid_map", gid_map, "write gid_map");
            }
            if self.private_mounts
                && libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) == -1
            {
                fail("make mounts private", errno());
            }
            if let Some(o) = &self.overlay
                && libc::mount(
                    c"overlay".as_ptr(),
                    o.target.as_ptr(),
                    c"overlay".as_ptr(),
                    0,
                    o.options.as_ptr().cast(),
                ) == -1
            {
                fail("mount overlay", errno());
            }
            for dir in &self.tmpfs {
                if libc::mount(
                    c"tmpfs".as_ptr(),
                    dir.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    c"mode=1777".as_ptr().cast(),
                ) == -1
                {
                    fail("mount tmpfs", errno());
                }
            }
            if let Some(dir) = &self.chdir
                && libc::chdir(dir.as_ptr()) == -1
            {
                fail("enter the working copy", errno());
            }
            for path in &self.unlink {
                if libc::unlink(path.as_ptr()) == -1 && errno() != libc::ENOENT {
                    fail("remove a file for this run", errno());
                }
            }
            if self.loopback_up {
                loopback_up();
            }
            if let Some(l) = &self.landlock
                && let Err((step, e)) = l.apply()
            {
                fail(step, e);
            }
            if self.pid_namespace {
                fork_init(self.parent)
            } else {
                fork_subreaped(self.parent)
            }
        }
    }
}

fn errno() -> i32 {
    // SAFETY: errno is thread-local and always readable.
    unsafe { *libc::__errno_location() }
}

/// Writes `[marker][step] (errno N)` to the log and ends W.
fn fail(step: &str, errno: i32) -> ! {
    let mut buf = [0u8; 256];
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        for &b in bytes {
            if n < buf.len() {
                buf[n] = b;
                n += 1;
            }
        }
    };
    put(SETUP_FAILED_MARKER.as_bytes());
    put(step.as_bytes());
    put(b" (errno ");
    let mut digits = [0u8; 12];
    let mut d = digits.len();
    let mut v = errno.unsigned_abs();
    loop {
        d -= 1;
        digits[d] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    put(&digits[d..]);
    put(b")\n");
    // SAFETY: write and _exit are async-signal-safe; the buffer is on the stack.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
        libc::_exit(SETUP_FAILED_EXIT)
    }
}

fn write_file(path: &std::ffi::CStr, content: &[u8], step: &str) {
    // SAFETY: open/write/close on a valid C string and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd == -1 {
            fail(step, errno());
        }
        let written = libc::write(fd, content.as_ptr().cast(), content.len());
        if written != content.len() as isize {
            fail(step, errno());
        }
        libc::close(fd);
    }
}

/// `ip link set lo up` in the new network namespace.
fn loopback_up() {
    #[repr(C)]
    struct IfReq {
        name: [u8; libc::IFNAMSIZ],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: 0,
        _pad: [0; 22],
    };
    req.name[..2].copy_from_slice(b"lo");
    // SAFETY: a datagram socket used only for two interface ioctls on a stack struct laid
    // out as `struct ifreq` (name, then the flags member of the union, padded to 40 bytes).
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s == -1 {
            fail("bring up the loopback interface", errno());
        }
        if libc::ioctl(s, libc::SIOCGIFFLAGS as _, &mut req) == -1 {
            fail("bring up the loopback interface", errno());
        }
        req.flags |= libc::IFF_UP as libc::c_short;
        if libc::ioctl(s, libc::SIOCSIFFLAGS as _, &req) == -1 {
            fail("bring up the loopback interface", errno());
        }
        libc::close(s);
    }
}

/// Closes every descriptor from 3 up except `keep`: W and A must not hold std's exec-status
/// pipe (or anything else the parent had open) while pytest runs.
fn close_fds_except(keep: libc::c_int) {
    // SAFETY: close_range/close only affect this process's descriptor table.
    unsafe {
        let ranges: [(libc::c_uint, libc::c_uint); 2] = if keep >= 3 {
            [
                (3, keep as libc::c_uint - 1),
                (keep as libc::c_uint + 1, !0),
            ]
        } else {
            [(3, !0), (1, 0)]
        };
        for (lo, hi) in ranges {
            if lo > hi {
                continue;
            }
            if libc::syscall(libc::SYS_close_range, lo, hi, 0) == -1 {
                // Kernels before 5.9: close one by one.
                for fd in lo..hi.min(4096) {
                    libc::close(fd as libc::c_int);
                }
            }
        }
    }
}

/// How pytest (B) ended, as W re-creates it for evootter.
#[derive(Clone, Copy)]
enum Ending {
    Exited(i32),
    Signaled(i32),
}

fn ending(status: libc::c_int) -> Ending {
    if libc::WIFSIGNALED(status) {
        Ending::Signaled(libc::WTERMSIG(status))
    } else {
        Ending::Exited(libc::WEXITSTATUS(status))
    }
}

/// Ends W the way pytest ended: same exit code, or the same signal.
fn end_as(e: Ending) -> ! {
    // SAFETY: only signal disposition, rlimit, kill and _exit on this process.
    unsafe {
        match e {
            Ending::Exited(code) => libc::_exit(code),
            Ending::Signaled(sig) => {
                // Re-raising a crash signal must not dump W's core into the copy.
                let none = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                libc::signal(sig, libc::SIG_DFL);
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
                libc::kill(libc::getpid(), sig);
                libc::_exit(128 + sig)
            }
        }
    }
}

/// The signals W waits for instead of handling: a child's end, and SIGTERM, which means "end
/// this execution now" (evootter's timeout, Ctrl-C, or evootter's own death, as W's
/// parent-death signal). W is never killed outright: SIGKILL would leave no one to clean up.
fn supervised_signals() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset fill a zeroed sigset on the stack.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigaddset(&mut set, libc::SIGTERM);
        set
    }
}

/// In a child of W: the signal mask a fresh process has, and death with its parent.
fn as_fresh_child() {
    // SAFETY: sigprocmask and prctl on this process only.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
}

/// W's loop: waits for `child` to end; on SIGTERM first kills it (`on_term`). Returns the
/// child's wait status.
fn supervise(child: libc::pid_t, set: &libc::sigset_t, on_term: impl Fn()) -> libc::c_int {
    loop {
        // SAFETY: sigwaitinfo with a valid set and no info struct; waitpid into a stack int.
        unsafe {
            let sig = libc::sigwaitinfo(set, std::ptr::null_mut());
            if sig == libc::SIGTERM {
                on_term();
            }
            let mut status = 0;
            let r = libc::waitpid(child, &mut status, libc::WNOHANG);
            if r == child {
                return status;
            }
            if r == -1 && errno() == libc::ECHILD {
                return libc::SIGKILL;
            }
        }
    }
}

/// Blocks the supervised signals and makes SIGTERM W's parent-death signal.
fn start_supervising(parent: u32) -> libc::sigset_t {
    let set = supervised_signals();
    // SAFETY: sigprocmask and prctl on this process only.
    unsafe {
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        if libc::getppid() as u32 != parent {
            // evootter died before the signal was set: nobody will read this run.
            libc::_exit(1);
        }
    }
    set
}

/// W after `unshare(CLONE_NEWPID)`: fork A (pid 1 of the namespace), which forks B.
fn fork_init(parent: u32) -> std::io::Result<()> {
    let mut fds = [0 as libc::c_int; 2];
    let set = start_supervising(parent);
    // SAFETY: pipe2 fills the two-element array; fork, waitpid, read, write and _exit are
    // async-signal-safe; each branch below only touches its own stack and descriptors.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) == -1 {
            fail("create the status pipe", errno());
        }
        let [status_read, status_write] = fds;
        let a = libc::fork();
        if a == -1 {
            fail("fork the namespace init", errno());
        }
        if a == 0 {
            // A. If W dies, A dies, and with A the whole namespace.
            as_fresh_child();
            libc::close(status_read);
            let b = libc::fork();
            if b == -1 {
                fail("fork pytest", errno());
            }
            if b == 0 {
                // B: std execs pytest; the status pipe closes on exec.
                as_fresh_child();
                return Ok(());
            }
            close_fds_except(status_write);
            let mut status = 0;
            loop {
                let r = libc::waitpid(-1, &mut status, 0);
                if r == b {
                    break;
                }
                if r == -1 && errno() != libc::EINTR {
                    status = libc::SIGKILL;
                    break;
                }
                // Another pid: an orphan reaped, as init does.
            }
            let msg = match ending(status) {
                Ending::Exited(c) => [1u8, c as u8],
                Ending::Signaled(s) => [2u8, s as u8],
            };
            libc::write(status_write, msg.as_ptr().cast(), 2);
            // A's exit ends the namespace: the kernel kills every process left in it.
            libc::_exit(0);
        }
        libc::close(status_write);
        close_fds_except(status_read);
        // Killing A ends the namespace and everything in it.
        let a_status = supervise(a, &set, || {
            libc::kill(a, libc::SIGKILL);
        });
        let mut msg = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            let r = libc::read(status_read, msg[got..].as_mut_ptr().cast(), 2 - got);
            if r > 0 {
                got += r as usize;
            } else if r == 0 || errno() != libc::EINTR {
                break;
            }
        }
        end_as(match (got, msg[0]) {
            (2, 1) => Ending::Exited(i32::from(msg[1])),
            (2, 2) => Ending::Signaled(i32::from(msg[1])),
            // A died before B did (killed by W): hand that on.
            _ => ending(a_status),
        })
    }
}

/// W without a pid namespace: become a subreaper, fork B, and when B ends (or on SIGTERM)
/// kill everything that was reparented to W.
fn fork_subreaped(parent: u32) -> std::io::Result<()> {
    let set = start_supervising(parent);
    // SAFETY: as in `fork_init`.
    unsafe {
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) == -1 {
            fail("become a child subreaper", errno());
        }
        let b = libc::fork();
        if b == -1 {
            fail("fork pytest", errno());
        }
        if b == 0 {
            as_fresh_child();
            return Ok(());
        }
        close_fds_except(-1);
        let status = supervise(b, &set, || {
            libc::kill(b, libc::SIGKILL);
        });
        kill_children();
        end_as(ending(status))
    }
}

/// Kills and reaps every child of W (orphans of pytest's process tree land here) until none
/// is left.
fn kill_children() {
    let mut buf = [0u8; 4096];
    // Bounded: a process forking as fast as it is killed cannot keep W alive forever.
    for _ in 0..10_000 {
        // SAFETY: open/read/close on a constant path into a stack buffer; kill and waitpid.
        unsafe {
            let fd = libc::open(
                c"/proc/thread-self/children".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            let mut n = 0usize;
            if fd != -1 {
                loop {
                    let r = libc::read(fd, buf[n..].as_mut_ptr().cast(), buf.len() - n);
                    if r <= 0 {
                        break;
                    }
                    n += r as usize;
                    if n == buf.len() {
                        break;
                    }
                }
                libc::close(fd);
            }
            let mut pid: libc::pid_t = 0;
            for &c in &buf[..n] {
                if c.is_ascii_digit() {
                    pid = pid * 10 + libc::pid_t::from(c - b'0');
                } else {
                    if pid > 0 {
                        libc::kill(pid, libc::SIGKILL);
                    }
                    pid = 0;
                }
            }
            if pid > 0 {
                libc::kill(pid, libc::SIGKILL);
            }
            loop {
                let mut status = 0;
                let r = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if r > 0 {
                    continue;
                }
                if r == -1 && errno() == libc::ECHILD {
                    return;
                }
                break;
            }
            if n == 0 {
                // Children exist but are not listed yet (or /proc is unavailable): wait a little.
                let ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 1_000_000,
                };
                libc::nanosleep(&ts, std::ptr::null_mut());
            }
        }
    }
}
