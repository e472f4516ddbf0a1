//! Which protections a pytest execution runs under, found out once per executor by trying
//! them on this kernel, and the per-execution plan for the child process.
//!
//! Always, when the kernel allows (root, or an unprivileged user namespace):
//! - **sealing**: the working copy is an overlay (private mount namespace) over one pristine
//!   copy of the repository, and the overlay's upper layer is thrown away after the run, so
//!   whatever a test rewrites, deletes, renames or chmods never reaches the next execution;
//!   `/dev/shm` is private too. Otherwise the executor rescans the copy after every run
//!   (`seal::Rescan`).
//! - **reaping**: a pid namespace per execution, whose end kills every process the test left
//!   (daemons, double forks, new sessions). Otherwise a child subreaper does it.
//!
//! The **sandbox** (on unless `--no-sandbox`): no network (a network namespace with only a
//! loopback of its own; without one, Landlock refuses TCP), and writes only into the working
//! copy, the execution's temp dir and private home, and a few devices (Landlock). Reading is
//! never restricted. `/run` (daemon sockets such as Docker's) is masked.

mod child;
pub mod landlock;

pub use child::{ChildPlan, SETUP_FAILED_EXIT, SETUP_FAILED_MARKER};
use landlock::{LandlockPlan, Writable};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// What the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    /// Network and write confinement.
    pub sandbox: bool,
    /// Namespaces (overlay sealing, pid namespace, network namespace) where available;
    /// `false` forces the portable fallbacks (for tests and benchmarks).
    pub namespaces: bool,
}

impl Default for Wanted {
    fn default() -> Self {
        Self {
            sandbox: true,
            namespaces: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Userns {
    /// Running as root: namespaces without a user namespace.
    No,
    /// An unprivileged user namespace mapping our own uid and gid onto themselves, so files
    /// and `os.getuid()` look exactly as outside.
    Identity { uid: u32, gid: u32 },
}

/// The protections this executor's runs get. Built by [`Protections::probe`].
#[derive(Debug, Clone)]
pub struct Protections {
    userns: Option<Userns>,
    mount_ns: bool,
    overlay: bool,
    /// Private tmpfs mounts over `/dev/shm` (and `/run` when sandboxed).
    tmpfs: bool,
    pid_ns: bool,
    net_ns: bool,
    landlock: Option<i32>,
    sandbox: bool,
    /// Protections asked for that this machine could not give, with the reason.
    missing: Vec<String>,
}

/// How the working copy is put back after a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seal {
    Overlay,
    Rescan,
}

/// The paths of one execution.
pub struct RunPaths<'a> {
    /// Where pytest runs (the overlay's mount point, or the worker's own copy).
    pub copy: &'a Path,
    /// The pristine copy: the overlay's lower layer.
    pub base: &'a Path,
    /// The overlay's upper and work directories, fresh for this run.
    pub layer: Option<(&'a Path, &'a Path)>,
    /// The run's temp dir, home, basetemp and junit file.
    pub run_dir: &'a Path,
    /// Repository files absent for this run, relative to the copy (removed through the
    /// overlay; the rescan executor deletes them itself).
    pub removed: &'a [String],
}

fn cstring(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_bytes()).ok()
}

impl Protections {
    pub fn seal(&self) -> Seal {
        if self.overlay {
            Seal::Overlay
        } else {
            Seal::Rescan
        }
    }

    pub fn sandboxed(&self) -> bool {
        self.sandbox
    }

    /// Whether runs get a network namespace of their own.
    pub fn network_namespace(&self) -> bool {
        self.userns.is_some() && self.net_ns
    }

    /// Protections asked for that are missing here, each with why (for the run's notes).
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    /// Whether the run has no network at all (namespace) or no TCP (Landlock).
    fn network(&self) -> Option<&'static str> {
        if !self.sandbox {
            None
        } else if self.net_ns {
            Some("no network (a private network namespace)")
        } else if self.landlock.is_some_and(|abi| abi >= 4) {
            Some("no TCP (Landlock)")
        } else {
            None
        }
    }

    /// One line for the run's header: what protects the user's machine and the next run.
    pub fn describe(&self) -> String {
        self.describe_for(false)
    }

    /// `describe` for the warm executor (`warm`), whose interpreter outlives its runs: the
    /// rescan seal, and a pid namespace per worker with each run's leftovers killed by the
    /// interpreter.
    pub fn describe_for(&self, warm: bool) -> String {
        let seal = if warm { Seal::Rescan } else { self.seal() };
        let mut parts = vec![
            match seal {
                Seal::Overlay => "sealed by an overlay per execution".to_string(),
                Seal::Rescan => "sealed by rescanning the copy after each execution".to_string(),
            },
            match (warm, self.pid_ns) {
                (false, true) => "a pid namespace per execution".to_string(),
                (false, false) => "leftover processes killed by a subreaper".to_string(),
                (true, true) => {
                    "a pid namespace per worker, each execution's leftovers killed".to_string()
                }
                (true, false) => "each execution's leftovers killed by a subreaper".to_string(),
            },
        ];
        if self.sandbox {
            parts.push(self.network().unwrap_or("network open").to_string());
            parts.push(match self.landlock {
                Some(abi) => format!("writes confined (Landlock ABI {abi})"),
                None => "writes not confined".to_string(),
            });
        } else {
            parts.push("no sandbox (--no-sandbox)".to_string());
        }
        parts.join(", ")
    }

    /// Try the protections `want` asks for with a real child on this kernel, dropping what
    /// fails, until a plan works. `python` runs the probe; `scratch` is an empty directory.
    pub fn probe(python: &Path, scratch: &Path, want: Wanted) -> Result<Self, String> {
        // SAFETY: geteuid/getuid/getgid cannot fail.
        let (euid, uid, gid) = unsafe { (libc::geteuid(), libc::getuid(), libc::getgid()) };
        let mut p = Protections {
            userns: want.namespaces.then_some(if euid == 0 {
                Userns::No
            } else {
                Userns::Identity { uid, gid }
            }),
            mount_ns: want.namespaces,
            overlay: want.namespaces,
            tmpfs: want.namespaces,
            pid_ns: want.namespaces,
            net_ns: want.namespaces && want.sandbox,
            landlock: if want.sandbox { landlock::abi() } else { None },
            sandbox: want.sandbox,
            missing: vec![],
        };
        if want.sandbox && p.landlock.is_none() {
            p.missing.push(
                "writes outside the working copy are not confined: this kernel has no \
                 Landlock (Linux 5.13+ with landlock in the `lsm=` list)"
                    .into(),
            );
        }
        let layout = ProbeLayout::new(scratch).map_err(|e| format!("probe directory: {e}"))?;
        for _ in 0..8 {
            match p.try_once(python, &layout) {
                Ok(()) => return Ok(p),
                Err(ProbeFailure::Step { step, errno }) => {
                    let why = format!("{step}: {}", std::io::Error::from_raw_os_error(errno));
                    if !p.degrade(&step, &why) {
                        return Err(format!("cannot isolate pytest executions ({why})"));
                    }
                }
                Err(ProbeFailure::Other(e)) => return Err(e),
            }
        }
        Err("cannot isolate pytest executions: no working combination of protections".into())
    }

    /// Drops the protection whose setup step failed. `false`: nothing left to drop.
    fn degrade(&mut self, step: &str, why: &str) -> bool {
        let ns_lost = |p: &mut Self| {
            let had_net = p.net_ns;
            p.userns = None;
            p.mount_ns = false;
            p.overlay = false;
            p.tmpfs = false;
            p.pid_ns = false;
            p.net_ns = false;
            let mut msg = format!(
                "no namespaces here ({why}): the working copy is rescanned after every \
                 execution, and leftover processes are killed by a subreaper"
            );
            if had_net {
                msg.push_str(if p.landlock.is_some_and(|a| a >= 4) {
                    "; TCP is refused by Landlock, UDP is not"
                } else {
                    "; tests have network access"
                });
            }
            p.missing.push(msg);
        };
        match step {
            s if s.starts_with("unshare")
                || s.contains("setgroups")
                || s.contains("uid_map")
                || s.contains("gid_map") =>
            {
                if self.userns.is_none() {
                    return false;
                }
                ns_lost(self);
            }
            "make mounts private" if self.mount_ns => {
                self.mount_ns = false;
                self.overlay = false;
                self.tmpfs = false;
                self.missing.push(format!(
                    "no private mount namespace ({why}): the working copy is rescanned after every execution"
                ));
            }
            "mount overlay" if self.overlay => {
                self.overlay = false;
                self.missing.push(format!(
                    "no overlay file system ({why}): the working copy is rescanned after every execution"
                ));
            }
            "mount tmpfs" if self.tmpfs => {
                self.tmpfs = false;
                self.missing.push(format!(
                    "cannot mount a private tmpfs ({why}): /dev/shm is shared between executions"
                ));
            }
            "bring up the loopback interface" if self.net_ns => {
                self.net_ns = false;
                self.missing.push(format!(
                    "no network namespace ({why}){}",
                    if self.landlock.is_some_and(|a| a >= 4) {
                        ": TCP is refused by Landlock, UDP is not"
                    } else {
                        ": tests have network access"
                    }
                ));
            }
            "fork the namespace init" if self.pid_ns => {
                self.pid_ns = false;
                self.missing.push(format!(
                    "no pid namespace ({why}): leftover processes are killed by a subreaper"
                ));
            }
            s if s.contains("Landlock") || s == "set no_new_privs" => {
                if self.landlock.is_none() {
                    return false;
                }
                self.landlock = None;
                self.missing.push(format!(
                    "writes outside the working copy are not confined ({why})"
                ));
            }
            _ => return false,
        }
        true
    }

    fn try_once(&self, python: &Path, l: &ProbeLayout) -> Result<(), ProbeFailure> {
        let _ = std::fs::remove_dir_all(&l.layer);
        for d in [&l.upper, &l.work, &l.run] {
            std::fs::create_dir_all(d).map_err(|e| ProbeFailure::Other(e.to_string()))?;
        }
        std::fs::write(l.upper.join("probe-upper"), "")
            .map_err(|e| ProbeFailure::Other(e.to_string()))?;
        let copy = if self.overlay { &l.mnt } else { &l.base };
        let plan = self.plan(&RunPaths {
            copy,
            base: &l.base,
            layer: Some((&l.upper, &l.work)),
            run_dir: &l.run,
            removed: &[],
        });
        // With the overlay, the upper layer's file must be visible in the mount point.
        let check = if self.overlay {
            "import os, sys; sys.exit(0 if os.path.exists('probe-upper') else 3)"
        } else {
            "pass"
        };
        let mut cmd = std::process::Command::new(python);
        cmd.args(["-c", check])
            .current_dir(copy)
            .stdin(std::process::Stdio::null())
            .env("PYTHONDONTWRITEBYTECODE", "1");
        // SAFETY: `ChildPlan::enter` only makes async-signal-safe system calls.
        unsafe {
            cmd.pre_exec(move || plan.enter());
        }
        let out = cmd.output().map_err(|e| {
            ProbeFailure::Other(format!("cannot start `{}`: {e}", python.display()))
        })?;
        let _ = std::fs::remove_dir_all(&l.layer);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Some((step, errno)) = setup_failure(&stderr) {
            return Err(ProbeFailure::Step { step, errno });
        }
        match out.status.code() {
            Some(0) => Ok(()),
            Some(3) if self.overlay => Err(ProbeFailure::Step {
                step: "mount overlay".into(),
                errno: libc::EINVAL,
            }),
            _ => Err(ProbeFailure::Other(format!(
                "`{}` failed in the isolation probe ({}): {}",
                python.display(),
                out.status,
                stderr.trim()
            ))),
        }
    }

    /// The child's plan for one execution.
    pub fn plan(&self, p: &RunPaths<'_>) -> ChildPlan {
        let mut unshare = 0;
        if self.userns.is_some() {
            if matches!(self.userns, Some(Userns::Identity { .. })) {
                unshare |= libc::CLONE_NEWUSER;
            }
            if self.mount_ns {
                unshare |= libc::CLONE_NEWNS;
            }
            if self.pid_ns {
                unshare |= libc::CLONE_NEWPID;
            }
            if self.net_ns {
                unshare |= libc::CLONE_NEWNET;
            }
        }
        let id_maps = match self.userns {
            Some(Userns::Identity { uid, gid }) => Some((
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )),
            _ => None,
        };
        let overlay = match (self.overlay, p.layer) {
            (true, Some((upper, work))) => cstring(p.copy).and_then(|target| {
                let opts = format!(
                    "lowerdir={},upperdir={},workdir={}",
                    p.base.display(),
                    upper.display(),
                    work.display()
                );
                Some(child::OverlayMount {
                    target,
                    options: CString::new(opts).ok()?,
                })
            }),
            _ => None,
        };
        let mut tmpfs = vec![];
        if self.tmpfs {
            // Shared memory is state that outlives a run like files do.
            tmpfs.push(c"/dev/shm".to_owned());
            let inside_run = |q: &Path| q.starts_with("/run");
            if self.sandbox && !inside_run(p.copy) && !inside_run(p.run_dir) {
                // Daemon sockets (Docker's, D-Bus) are reachable by path despite the network
                // namespace; an empty /run hides them.
                tmpfs.push(c"/run".to_owned());
            }
        }
        let landlock = match (self.sandbox, self.landlock) {
            (true, Some(abi)) => {
                let devices = [
                    "/dev/null",
                    "/dev/zero",
                    "/dev/full",
                    "/dev/tty",
                    "/dev/ptmx",
                ];
                let mut w: Vec<Writable<'_>> = vec![
                    Writable::Tree(p.copy),
                    Writable::Tree(p.run_dir),
                    Writable::Tree(Path::new("/dev/shm")),
                    Writable::Tree(Path::new("/dev/pts")),
                ];
                w.extend(devices.iter().map(|d| Writable::File(Path::new(d))));
                Some(LandlockPlan::new(abi, &w, !self.net_ns))
            }
            _ => None,
        };
        let unlink = if overlay.is_some() {
            p.removed
                .iter()
                .filter_map(|rel| cstring(&p.copy.join(rel)))
                .collect()
        } else {
            vec![]
        };
        ChildPlan {
            parent: std::process::id(),
            unshare,
            id_maps,
            private_mounts: self.mount_ns,
            chdir: overlay.as_ref().and_then(|_| cstring(p.copy)),
            overlay,
            tmpfs,
            unlink,
            loopback_up: self.net_ns,
            landlock,
            pid_namespace: self.pid_ns,
        }
    }

    /// Lines for the log of a sandboxed run whose output shows it hit the sandbox, so the
    /// reader knows the failure is evootter's doing. `allowed` are the paths writes may go to.
    pub fn denials(&self, raw_log: &str, allowed: &[&Path]) -> Vec<String> {
        if !self.sandbox {
            return vec![];
        }
        let mut out = vec![];
        if let Some(net) = self.network() {
            let signs = [
                "Network is unreachable",
                "Temporary failure in name resolution",
                "Name or service not known",
                "No address associated with hostname",
            ];
            if let Some(sign) = signs.iter().find(|s| raw_log.contains(**s)) {
                out.push(format!(
                    "sandbox: this run has {net}, and its log shows `{sign}`; \
                     --no-sandbox gives tests the network"
                ));
            }
        }
        if self.landlock.is_some()
            && let Some(paths) = refused_writes(raw_log, allowed)
        {
            out.push(format!(
                "sandbox: writes outside the working copy, its temp dir and home are refused, \
                 and this run tried {paths}; --no-sandbox lifts this"
            ));
        }
        out
    }
}

/// The paths outside `allowed` that a log shows refused writes to (Python's `Permission
/// denied: '/x'` and `Read-only file system: '/x'`), as one list, if any.
pub fn refused_writes(raw_log: &str, allowed: &[&Path]) -> Option<String> {
    let mut refused: Vec<String> = vec![];
    for marker in ["Permission denied: '", "Read-only file system: '"] {
        for (i, _) in raw_log.match_indices(marker) {
            let rest = &raw_log[i + marker.len()..];
            let Some(end) = rest.find('\'') else { continue };
            let path = &rest[..end];
            let outside = path.starts_with('/')
                && !allowed.iter().any(|a| Path::new(path).starts_with(a))
                && !path.starts_with("/dev/");
            if outside && !refused.iter().any(|r| r == path) {
                refused.push(path.to_string());
            }
        }
    }
    (!refused.is_empty()).then(|| refused.join(", "))
}

/// `(step, errno)` from a log that starts with the setup-failure marker.
pub fn setup_failure(log: &str) -> Option<(String, i32)> {
    let line = log.lines().find(|l| l.starts_with(SETUP_FAILED_MARKER))?;
    let rest = &line[SETUP_FAILED_MARKER.len()..];
    let (step, errno) = rest.rsplit_once(" (errno ")?;
    Some((step.to_string(), errno.trim_end_matches(')').parse().ok()?))
}

enum ProbeFailure {
    Step { step: String, errno: i32 },
    Other(String),
}

/// A miniature worker for the probe: a base, a mount point, a layer, a run dir.
struct ProbeLayout {
    base: PathBuf,
    mnt: PathBuf,
    layer: PathBuf,
    upper: PathBuf,
    work: PathBuf,
    run: PathBuf,
}

impl ProbeLayout {
    fn new(root: &Path) -> std::io::Result<Self> {
        let l = Self {
            base: root.join("base"),
            mnt: root.join("mnt"),
            layer: root.join("layer"),
            upper: root.join("layer/upper"),
            work: root.join("layer/work"),
            run: root.join("run"),
        };
        for d in [&l.base, &l.mnt] {
            std::fs::create_dir_all(d)?;
        }
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_failures_are_parsed_from_the_log() {
        let log = format!("{SETUP_FAILED_MARKER}mount overlay (errno 1)\n");
        assert_eq!(setup_failure(&log), Some(("mount overlay".into(), 1)));
        assert_eq!(setup_failure("ordinary output\n"), None);
    }
}
