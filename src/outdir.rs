//! The output directory (`--out`) belongs to the user. evootter writes only into an empty
//! directory or one holding an earlier evootter session, never over a file it did not write,
//! and only one run at a time uses a directory.
//!
//! What evootter wrote is listed, with each file's hash, in `.evootter-files`: a file of that
//! list whose content is unchanged may be replaced; anything else is the user's. The lock is an
//! `flock` on `.evootter.lock`, held for the life of the run, so the kernel releases it when
//! the process ends, however it ends (no stale locks after `kill -9`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

pub const SESSION_FILE: &str = "session.json";
const LOCK_FILE: &str = ".evootter.lock";
const MANIFEST_FILE: &str = ".evootter-files";
/// Files every run writes under these names (the final test takes a free name instead).
const RESERVED: [&str; 2] = ["report.json", "final.patch"];

#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    #[error("--out {0} is a file, not a directory; name a directory (it is created if missing)")]
    IsAFile(PathBuf),
    #[error(
        "--out {dir} holds files evootter did not write ({files}); evootter writes only into an \
         empty directory or one holding an earlier evootter session: choose another --out"
    )]
    Foreign { dir: PathBuf, files: String },
    #[error(
        "{dir} already holds a session. Continue it with `evootter open {session}` (the \
         workbench) or `evootter run --resume {session}` (headless), pass --force to start \
         over, or choose another --out"
    )]
    HasSession { dir: PathBuf, session: PathBuf },
    #[error(
        "another evootter run is using {dir}{holder}; wait for it to finish, or choose another --out"
    )]
    Locked { dir: PathBuf, holder: String },
    #[error(
        "{path} exists and evootter did not write it (or it changed since); it is left as it is. \
         Move it away, or choose another --out"
    )]
    WouldOverwrite { path: PathBuf },
    #[error("cannot use the output directory {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> OutDirError + '_ {
    move |source| OutDirError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How a run means to use the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// A new session; `force` replaces an earlier session (and the files evootter wrote).
    New { force: bool },
    /// Continuing the session the directory holds.
    Resume,
}

/// A claimed output directory: locked for this process until dropped.
#[derive(Debug)]
pub struct OutDir {
    path: PathBuf,
    _lock: File,
}

/// Files evootter manages itself, never counted as the user's.
fn is_internal(name: &str) -> bool {
    name == LOCK_FILE
        || name == MANIFEST_FILE
        || (name.starts_with(".session.") && name.ends_with(".tmp"))
}

fn sha(bytes: &[u8]) -> String {
    crate::hash::sha256_hex(bytes)
}

fn read_manifest(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read(dir.join(MANIFEST_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Is `name` in `dir` a file evootter wrote and nobody changed since?
fn is_ours(dir: &Path, manifest: &BTreeMap<String, String>, name: &str) -> bool {
    manifest
        .get(name)
        .is_some_and(|h| std::fs::read(dir.join(name)).is_ok_and(|b| sha(&b) == *h))
}

/// Checks what `path` holds against `intent` without creating or changing anything.
pub fn check(path: &Path, intent: Intent) -> Result<(), OutDirError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(path)(e)),
    };
    if !meta.is_dir() {
        return Err(OutDirError::IsAFile(path.to_path_buf()));
    }
    let manifest = read_manifest(path);
    let mut foreign = vec![];
    let mut session = false;
    for e in std::fs::read_dir(path).map_err(io(path))? {
        let name = e
            .map_err(io(path))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if is_internal(&name) {
            continue;
        }
        if name == SESSION_FILE {
            session = true;
        } else if !is_ours(path, &manifest, &name) {
            foreign.push(name);
        }
    }
    foreign.sort();
    // The run must write these at the end; finding that out only then would cost the run.
    if let Some(taken) = foreign.iter().find(|n| RESERVED.contains(&n.as_str()))
        && (session || intent == Intent::Resume)
    {
        return Err(OutDirError::WouldOverwrite {
            path: path.join(taken),
        });
    }
    match intent {
        Intent::New { force } if session && !force => Err(OutDirError::HasSession {
            dir: path.to_path_buf(),
            session: path.join(SESSION_FILE),
        }),
        // Beside an earlier session, the user's own files stay (and are never overwritten);
        // without one, a directory of someone else's files is not ours to write into.
        Intent::New { .. } if !session && !foreign.is_empty() => Err(OutDirError::Foreign {
            dir: path.to_path_buf(),
            files: list(&foreign),
        }),
        _ => Ok(()),
    }
}

fn list(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Fails with [`OutDirError::Locked`] when another process holds `dir`'s lock; creates
/// nothing.
pub fn ensure_unlocked(dir: &Path) -> Result<(), OutDirError> {
    let Ok(mut lock) = std::fs::File::open(dir.join(LOCK_FILE)) else {
        return Ok(());
    };
    if !try_flock(&lock, libc::LOCK_SH) {
        return Err(locked(dir, &mut lock));
    }
    Ok(())
}

/// Whether a run holds `dir` now: one attempt, never waiting (a screen polling many
/// directories asks this; a fork's moment of holding the lock can read as held).
pub fn is_locked(dir: &Path) -> bool {
    let Ok(lock) = std::fs::File::open(dir.join(LOCK_FILE)) else {
        return false;
    };
    // SAFETY: flock on a descriptor this function owns; closing it releases the lock.
    unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) != 0 }
}

/// Takes `lock` (`LOCK_SH` or `LOCK_EX`) without waiting on a run that holds it, but through
/// the moment a descriptor of it lives in a forked child: a process that forks between
/// opening the lock and exec'ing (evootter starting Python, a test thread doing the same)
/// shares the lock until the exec closes it, a few milliseconds.
fn try_flock(lock: &File, how: libc::c_int) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(250);
    loop {
        // SAFETY: flock on a descriptor the caller owns.
        if unsafe { libc::flock(lock.as_raw_fd(), how | libc::LOCK_NB) } == 0 {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

fn locked(dir: &Path, lock: &mut File) -> OutDirError {
    let mut holder = String::new();
    let _ = lock.read_to_string(&mut holder);
    let holder = holder.trim();
    OutDirError::Locked {
        dir: dir.to_path_buf(),
        holder: if holder.is_empty() {
            String::new()
        } else {
            format!(" ({holder})")
        },
    }
}

impl OutDir {
    /// Checks, creates if missing, locks, and checks again under the lock (another run may
    /// have written a session in between). With `Intent::New { force: true }` the files of the
    /// earlier session that evootter wrote are removed; the user's stay.
    pub fn claim(path: &Path, intent: Intent) -> Result<Self, OutDirError> {
        check(path, intent)?;
        std::fs::create_dir_all(path).map_err(io(path))?;
        let lock_path = path.join(LOCK_FILE);
        let mut lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        if !try_flock(&lock, libc::LOCK_EX) {
            return Err(locked(path, &mut lock));
        }
        check(path, intent)?;
        let me = format!(
            "pid {}, started {}: {}",
            std::process::id(),
            crate::clock::now_unix(),
            std::env::args().collect::<Vec<_>>().join(" ")
        );
        let _ = lock.set_len(0);
        let _ = lock.rewind();
        let _ = lock.write_all(me.as_bytes());
        let dir = Self {
            path: path.to_path_buf(),
            _lock: lock,
        };
        if intent == (Intent::New { force: true }) {
            dir.clear_ours()?;
        }
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn session_path(&self) -> PathBuf {
        self.path.join(SESSION_FILE)
    }

    /// Removes the earlier session and every file evootter wrote that is unchanged.
    fn clear_ours(&self) -> Result<(), OutDirError> {
        let manifest = read_manifest(&self.path);
        for name in manifest.keys() {
            if is_ours(&self.path, &manifest, name) {
                let p = self.path.join(name);
                std::fs::remove_file(&p).map_err(io(&p))?;
            }
        }
        let session = self.session_path();
        match std::fs::remove_file(&session) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&session)(e)),
            _ => {}
        }
        self.save_manifest(&BTreeMap::new())
    }

    fn save_manifest(&self, m: &BTreeMap<String, String>) -> Result<(), OutDirError> {
        let path = self.path.join(MANIFEST_FILE);
        let json = serde_json::to_vec_pretty(m).map_err(|e| io(&path)(std::io::Error::other(e)))?;
        atomic_write(&self.path, &path, &json)
    }

    /// Writes `name` into the directory, unless a file of that name is there that evootter
    /// did not write (or that changed since): that is the user's, and stays.
    /// What evootter holds as secret never reaches the file (`secrets`).
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, OutDirError> {
        let bytes = &*crate::secrets::redact_bytes(bytes);
        let path = self.path.join(name);
        let mut manifest = read_manifest(&self.path);
        if path.exists() && !is_ours(&self.path, &manifest, name) {
            return Err(OutDirError::WouldOverwrite { path });
        }
        atomic_write(&self.path, &path, bytes)?;
        manifest.insert(name.to_string(), sha(bytes));
        self.save_manifest(&manifest)?;
        Ok(path)
    }

    /// A name for a new file that collides with nothing of the user's: `name` itself, or
    /// `stem_evootter.ext`, `stem_evootter2.ext`, ...
    pub fn free_name(&self, name: &str) -> String {
        let manifest = read_manifest(&self.path);
        let free = |n: &str| !self.path.join(n).exists() || is_ours(&self.path, &manifest, n);
        if free(name) {
            return name.to_string();
        }
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) => (s, format!(".{e}")),
            None => (name, String::new()),
        };
        (1..)
            .map(|i| {
                let n = if i == 1 { String::new() } else { i.to_string() };
                format!("{stem}_evootter{n}{ext}")
            })
            .find(|n| free(n))
            .unwrap_or_else(|| name.to_string())
    }
}

fn atomic_write(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), OutDirError> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".evootter.")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io(path))?;
    tmp.write_all(bytes).map_err(io(path))?;
    // A temp file is private (0600); the outputs are ordinary files the user shares.
    use std::os::unix::fs::PermissionsExt;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .map_err(io(path))?;
    tmp.persist(path).map_err(|e| io(path)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_users_directory_and_files_are_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("report.json"), "mine").unwrap();
        let err = OutDir::claim(&out, Intent::New { force: true }).unwrap_err();
        assert!(matches!(err, OutDirError::Foreign { .. }), "{err}");
        assert!(err.to_string().contains("report.json"), "{err}");
        assert_eq!(
            std::fs::read_to_string(out.join("report.json")).unwrap(),
            "mine"
        );
        assert!(!out.join(LOCK_FILE).exists(), "nothing created on refusal");

        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let err = OutDir::claim(&file, Intent::New { force: false }).unwrap_err();
        assert!(err.to_string().contains("is a file"), "{err}");
    }

    #[test]
    fn evootters_own_files_are_replaced_and_the_users_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let d = OutDir::claim(&out, Intent::New { force: false }).unwrap();
        std::fs::write(d.session_path(), "{}").unwrap();
        d.write("report.json", b"first").unwrap();
        d.write("report.json", b"second").unwrap();
        d.write("test_final.py", b"def test(): pass\n").unwrap();
        std::fs::write(out.join("notes.txt"), "user notes").unwrap();
        assert_eq!(d.free_name("notes.txt"), "notes_evootter.txt");
        assert_eq!(d.free_name("report.json"), "report.json");
        drop(d);

        let err = OutDir::claim(&out, Intent::New { force: false }).unwrap_err();
        assert!(matches!(err, OutDirError::HasSession { .. }), "{err}");
        // The user edits the final test evootter wrote: now it is theirs.
        std::fs::write(out.join("test_final.py"), "# edited\n").unwrap();
        let d = OutDir::claim(&out, Intent::New { force: true }).unwrap();
        assert!(!d.session_path().exists(), "the old session is replaced");
        assert!(!out.join("report.json").exists(), "evootter's own files go");
        assert_eq!(
            std::fs::read_to_string(out.join("notes.txt")).unwrap(),
            "user notes"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("test_final.py")).unwrap(),
            "# edited\n"
        );
        assert!(matches!(
            d.write("test_final.py", b"new"),
            Err(OutDirError::WouldOverwrite { .. })
        ));
        assert_eq!(d.free_name("test_final.py"), "test_final_evootter.py");

        std::fs::write(d.session_path(), "{}").unwrap();
        std::fs::write(out.join("report.json"), "the user's").unwrap();
        drop(d);
        // Beside a session, the user's own report.json is refused before the run, not after.
        let err = OutDir::claim(&out, Intent::New { force: true }).unwrap_err();
        assert!(matches!(err, OutDirError::WouldOverwrite { .. }), "{err}");
        assert!(matches!(
            OutDir::claim(&out, Intent::Resume),
            Err(OutDirError::WouldOverwrite { .. })
        ));
    }

    /// A child forked while the lock was open holds it until it execs: the next claim waits
    /// for that rather than calling the directory locked by a run.
    #[test]
    fn a_lock_shared_with_a_child_between_fork_and_exec_is_not_a_run_holding_it() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let d = OutDir::claim(&out, Intent::New { force: false }).unwrap();
        let mut cmd = std::process::Command::new("true");
        // SAFETY: only sleeps between fork and exec (no allocation, no lock).
        unsafe {
            cmd.pre_exec(|| {
                std::thread::sleep(std::time::Duration::from_millis(60));
                Ok(())
            });
        }
        let child = std::thread::spawn(move || cmd.status().unwrap());
        std::thread::sleep(std::time::Duration::from_millis(20));
        drop(d);
        OutDir::claim(&out, Intent::Resume).unwrap();
        assert!(child.join().unwrap().success());
    }

    #[test]
    fn one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let held = OutDir::claim(&out, Intent::New { force: false }).unwrap();
        let err = OutDir::claim(&out, Intent::Resume).unwrap_err();
        assert!(matches!(err, OutDirError::Locked { .. }), "{err}");
        assert!(
            err.to_string()
                .contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(held);
        OutDir::claim(&out, Intent::Resume).unwrap();
    }
}
