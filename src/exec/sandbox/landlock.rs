//! Landlock (Linux 5.13+): an unprivileged process restricts itself and its descendants. Here
//! it confines writes to the working copy, the execution's own temp dir and home, and a few
//! devices; with ABI 4+ it can also refuse all TCP, which is how a run without a network
//! namespace still gets no network; with ABI 6+ the test cannot signal processes outside its
//! sandbox (evootter itself among them) or reach abstract unix sockets outside it.
//!
//! The raw system calls are used (no crate): they are three, and they run after fork, where
//! only plain system calls on prepared buffers are allowed.

use std::ffi::CString;

const SYS_CREATE_RULESET: libc::c_long = 444;
const SYS_ADD_RULE: libc::c_long = 445;
const SYS_RESTRICT_SELF: libc::c_long = 446;
const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

const FS_WRITE_FILE: u64 = 1 << 1;
const FS_REMOVE_DIR: u64 = 1 << 4;
const FS_REMOVE_FILE: u64 = 1 << 5;
const FS_MAKE_CHAR: u64 = 1 << 6;
const FS_MAKE_DIR: u64 = 1 << 7;
const FS_MAKE_REG: u64 = 1 << 8;
const FS_MAKE_SOCK: u64 = 1 << 9;
const FS_MAKE_FIFO: u64 = 1 << 10;
const FS_MAKE_BLOCK: u64 = 1 << 11;
const FS_MAKE_SYM: u64 = 1 << 12;
const FS_REFER: u64 = 1 << 13;
const FS_TRUNCATE: u64 = 1 << 14;

const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;

const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

/// The Landlock ABI this kernel offers, or `None` when it has none (or it is disabled).
pub fn abi() -> Option<i32> {
    // SAFETY: the version query takes no pointer.
    let v = unsafe {
        libc::syscall(
            SYS_CREATE_RULESET,
            std::ptr::null::<u8>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then_some(v as i32)
}

/// Every right that changes the file system, as far as `abi` knows them. Reading stays
/// allowed everywhere: pytest and the interpreter read from all over.
fn write_rights(abi: i32) -> u64 {
    let mut r = FS_WRITE_FILE
        | FS_REMOVE_DIR
        | FS_REMOVE_FILE
        | FS_MAKE_CHAR
        | FS_MAKE_DIR
        | FS_MAKE_REG
        | FS_MAKE_SOCK
        | FS_MAKE_FIFO
        | FS_MAKE_BLOCK
        | FS_MAKE_SYM;
    if abi >= 2 {
        r |= FS_REFER;
    }
    if abi >= 3 {
        r |= FS_TRUNCATE;
    }
    r
}

/// A ruleset, built before the fork and applied in the child.
#[derive(Debug)]
pub struct LandlockPlan {
    abi: i32,
    handled_fs: u64,
    handled_net: u64,
    scoped: u64,
    rules: Vec<(CString, u64)>,
}

/// Where writes stay allowed.
pub enum Writable<'a> {
    /// A directory and everything below it.
    Tree(&'a std::path::Path),
    /// One file (a device such as `/dev/null`).
    File(&'a std::path::Path),
}

impl LandlockPlan {
    /// Writes only below `writable`; with `no_tcp`, no TCP connect or bind at all (ABI 4+).
    pub fn new(abi: i32, writable: &[Writable<'_>], no_tcp: bool) -> Self {
        let handled_fs = write_rights(abi);
        // Rights that may be granted on a single file rather than a directory.
        let file_rights = handled_fs & (FS_WRITE_FILE | FS_TRUNCATE);
        let rules = writable
            .iter()
            .filter_map(|w| {
                let (path, rights) = match w {
                    Writable::Tree(p) => (p, handled_fs),
                    Writable::File(p) => (p, file_rights),
                };
                use std::os::unix::ffi::OsStrExt;
                CString::new(path.as_os_str().as_bytes())
                    .ok()
                    .map(|c| (c, rights))
            })
            .collect();
        Self {
            abi,
            handled_fs,
            handled_net: if no_tcp && abi >= 4 {
                NET_BIND_TCP | NET_CONNECT_TCP
            } else {
                0
            },
            scoped: if abi >= 6 {
                SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
            } else {
                0
            },
            rules,
        }
    }

    /// Whether this plan refuses TCP (the kernel's ABI allows it).
    pub fn blocks_tcp(&self) -> bool {
        self.handled_net != 0
    }

    /// Restricts the calling process (and what it forks and execs). After fork: system calls
    /// only. A rule whose path does not exist is skipped.
    pub fn apply(&self) -> Result<(), (&'static str, i32)> {
        #[repr(C)]
        struct RulesetAttr {
            handled_access_fs: u64,
            handled_access_net: u64,
            scoped: u64,
        }
        #[repr(C, packed)]
        struct PathBeneath {
            allowed_access: u64,
            parent_fd: i32,
        }
        let attr = RulesetAttr {
            handled_access_fs: self.handled_fs,
            handled_access_net: self.handled_net,
            scoped: self.scoped,
        };
        // Older kernels reject fields they do not know, so pass only the known prefix.
        let size: usize = match self.abi {
            ..=3 => 8,
            4 | 5 => 16,
            _ => 24,
        };
        let errno = || {
            // SAFETY: errno is thread-local and always readable.
            unsafe { *libc::__errno_location() }
        };
        // SAFETY: the attribute structs live on the stack for the duration of each call;
        // every descriptor opened here is closed here.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 {
                return Err(("set no_new_privs", errno()));
            }
            let ruleset = libc::syscall(SYS_CREATE_RULESET, &attr, size, 0u32);
            if ruleset < 0 {
                return Err(("create the Landlock ruleset", errno()));
            }
            let ruleset = ruleset as libc::c_int;
            for (path, rights) in &self.rules {
                let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                if fd == -1 {
                    continue;
                }
                let rule = PathBeneath {
                    allowed_access: *rights,
                    parent_fd: fd,
                };
                let r = libc::syscall(
                    SYS_ADD_RULE,
                    ruleset,
                    RULE_PATH_BENEATH,
                    &rule as *const PathBeneath,
                    0u32,
                );
                let e = errno();
                libc::close(fd);
                if r == -1 {
                    libc::close(ruleset);
                    return Err(("add a Landlock rule", e));
                }
            }
            let r = libc::syscall(SYS_RESTRICT_SELF, ruleset, 0u32);
            let e = errno();
            libc::close(ruleset);
            if r == -1 {
                return Err(("apply the Landlock ruleset", e));
            }
        }
        Ok(())
    }
}
