//! What a test leaves behind in a worker copy. Tests write files (reports, caches, fixtures
//! written to the working directory) and some delete them; in a reused copy those changes
//! would leak into the next run and make its log differ for reasons that have nothing to do
//! with the mutant. After every run the copy's directory tree is put back: entries that
//! appeared are removed, entries that vanished are copied again from the repository.
//!
//! Only directories are compared, and only those whose modification time moved since the
//! last sweep are listed again, so a sweep costs one `stat` per directory. Changes to the
//! content of a file that already existed are not detected (that would mean hashing the tree).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The entries of every directory of a copy, as copied from the repository.
#[derive(Debug, Default)]
pub struct TreeSnapshot {
    /// Ordered, so a parent is swept before its children.
    dirs: BTreeMap<PathBuf, DirState>,
}

#[derive(Debug)]
struct DirState {
    modified: Option<SystemTime>,
    entries: BTreeSet<OsString>,
}

/// What one sweep undid, as paths relative to the copy.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Sweep {
    pub removed: Vec<String>,
    pub restored: Vec<String>,
}

impl Sweep {
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.restored.is_empty()
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
}

fn entries(dir: &Path) -> BTreeSet<OsString> {
    std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

impl TreeSnapshot {
    /// Record every directory below `root` (symlinks are entries, never followed).
    pub fn take(root: &Path) -> Self {
        let mut snap = Self::default();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let names = entries(&dir);
            for name in &names {
                let p = dir.join(name);
                if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
                    stack.push(p);
                }
            }
            snap.dirs.insert(
                dir.clone(),
                DirState {
                    modified: modified(&dir),
                    entries: names,
                },
            );
        }
        snap
    }

    /// Put `copy` back to the snapshot's entries: remove what appeared, and copy what vanished
    /// back from `source` (the repository the copy was made from, with the same layout).
    pub fn sweep(&mut self, copy: &Path, source: &Path) -> Sweep {
        let mut out = Sweep::default();
        let rel = |p: &Path| {
            p.strip_prefix(copy)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        };
        // Parents before children, so a restored directory is complete before it is checked.
        for (dir, state) in &mut self.dirs {
            let now = modified(dir);
            if now.is_some() && now == state.modified {
                continue;
            }
            let current = entries(dir);
            for extra in current.difference(&state.entries) {
                let p = dir.join(extra);
                super::local::remove_path(&p);
                out.removed.push(rel(&p));
            }
            for missing in state.entries.difference(&current) {
                let p = dir.join(missing);
                let from = source.join(p.strip_prefix(copy).unwrap_or(&p));
                if super::local::copy_entry(&from, &p).is_ok() {
                    out.restored.push(rel(&p));
                }
            }
            state.modified = modified(dir);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeping_undoes_added_and_deleted_entries() {
        let src = tempfile::tempdir().unwrap();
        let copy = tempfile::tempdir().unwrap();
        for root in [src.path(), copy.path()] {
            std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
            std::fs::write(root.join("pkg/a.py"), "A = 1\n").unwrap();
            std::fs::write(root.join("pkg/sub/b.py"), "B = 2\n").unwrap();
        }
        let mut snap = TreeSnapshot::take(copy.path());
        assert!(snap.sweep(copy.path(), src.path()).is_empty());

        std::fs::write(copy.path().join("report.txt"), "x").unwrap();
        std::fs::create_dir_all(copy.path().join("pkg/sub/out/deep")).unwrap();
        std::fs::remove_file(copy.path().join("pkg/a.py")).unwrap();
        std::fs::remove_dir_all(copy.path().join("pkg/sub")).unwrap();
        let s = snap.sweep(copy.path(), src.path());
        assert_eq!(s.removed, vec!["report.txt"]);
        assert_eq!(s.restored, vec!["pkg/a.py", "pkg/sub"]);
        assert_eq!(
            std::fs::read_to_string(copy.path().join("pkg/sub/b.py")).unwrap(),
            "B = 2\n"
        );
        assert!(!copy.path().join("report.txt").exists());
        assert!(snap.sweep(copy.path(), src.path()).is_empty());
    }
}
