//! Every execution starts from exactly the repository's content, whatever the previous test
//! did to its working copy (rewrote, deleted, renamed, chmod-ed, symlinked, created), and
//! what a test changed is named.
//!
//! Two mechanisms, chosen by what the kernel allows (`sandbox::Protections`):
//! - **Overlay**: the staged files (the candidate test, a mutated module) are written into a
//!   fresh upper layer over the pristine base copy; the child mounts the overlay on the worker's
//!   path in its private mount namespace. After the run the layer is read (what the test
//!   changed) and deleted. Nothing ever writes to the base.
//! - **Rescan**: the worker has a real copy. After the run every entry is compared with its
//!   state when the copy was made (inode, mode, size, mtime, ctime: a rewrite changes ctime
//!   even when mtime is put back), and anything that differs is restored from the base.
//!
//! Both report changes the same way: `created PATH`, `modified PATH`, `deleted PATH`
//! (a directory with a trailing `/`), relative to the repository root, sorted, leaving out what
//! evootter itself staged or removed for the run unless the test changed it further.

use crate::exec::copying::{copy_entry, remove_path};
use crate::exec::pytest_run::Staged;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Same content, kind and permissions (symlinks: same target)?
fn same_entry(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) else {
        return false;
    };
    if ma.file_type() != mb.file_type() {
        return false;
    }
    if ma.is_symlink() {
        return std::fs::read_link(a).ok() == std::fs::read_link(b).ok();
    }
    if ma.permissions().mode() != mb.permissions().mode() {
        return false;
    }
    if ma.is_dir() {
        return true;
    }
    ma.len() == mb.len() && std::fs::read(a).ok() == std::fs::read(b).ok()
}

/// Is a staged file still what the run started with: the staged content, with the mode the
/// base gives that path (what `stage_layer` and `Rescan::stage` give it)? Judged the same way
/// whether or not the path was staged, so a test that does the same thing to its copy is
/// described the same way on `c_old` and on every mutant.
fn same_as_staged(path: &Path, content: &[u8], base: &Path, rel: &str) -> bool {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return false;
    };
    let expected_mode = std::fs::symlink_metadata(base.join(rel))
        .ok()
        .filter(|b| b.is_file())
        .map(|b| b.permissions().mode());
    m.is_file()
        && expected_mode.is_none_or(|mode| mode == m.permissions().mode())
        && std::fs::read(path).is_ok_and(|c| c == content)
}

// ---- Overlay ------------------------------------------------------------------------------

/// Writes the staged files into `upper` (the layer's upper directory). A staged file below a
/// directory that is a symlink in the base would hide the symlink's target: refused.
pub fn stage_layer(upper: &Path, base: &Path, staged: &Staged) -> Result<(), String> {
    for (rel, content) in &staged.files {
        let mut at = PathBuf::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            at.push(part);
            if std::fs::symlink_metadata(base.join(&at)).is_ok_and(|m| m.is_symlink()) {
                return Err(format!(
                    "refusing to place {rel}: {} is a symlink in the repository, and a file \
                     placed through it could land outside the working copy",
                    at.display()
                ));
            }
        }
        let target = upper.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&target, content).map_err(|e| format!("{}: {e}", target.display()))?;
        // A replaced file keeps the base's permissions, as if written in place.
        if let Ok(m) = std::fs::metadata(base.join(rel)) {
            let _ = std::fs::set_permissions(&target, m.permissions());
        }
    }
    Ok(())
}

/// A whiteout: how overlayfs records a deletion in the upper layer.
fn is_whiteout(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_char_device() && m.rdev() == 0
}

/// A directory of the upper layer that replaces (rather than merges with) the lower one.
fn is_opaque(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    let mut value = [0u8; 4];
    [c"trusted.overlay.opaque", c"user.overlay.opaque"]
        .iter()
        .any(|name| {
            // SAFETY: valid C strings and a stack buffer of the given size.
            let n = unsafe {
                libc::lgetxattr(
                    c.as_ptr(),
                    name.as_ptr(),
                    value.as_mut_ptr().cast(),
                    value.len(),
                )
            };
            n >= 1 && value[0] == b'y'
        })
}

/// What the test changed, read from the upper layer after the run.
pub fn layer_changes(upper: &Path, base: &Path, staged: &Staged) -> Vec<String> {
    let mut out = vec![];
    walk_layer(upper, base, "", staged, &mut out);
    out.sort();
    out
}

fn walk_layer(upper: &Path, base: &Path, rel: &str, staged: &Staged, out: &mut Vec<String>) {
    let dir = upper.join(rel);
    let present = names(&dir);
    if !rel.is_empty() && is_opaque(&dir) {
        for gone in names(&base.join(rel)).difference(&present) {
            let r = join(rel, gone);
            if !staged.removed.contains(&r) {
                out.push(deleted(&base.join(&r), &r));
            }
        }
    }
    for name in &present {
        let r = join(rel, name);
        let path = upper.join(&r);
        let Ok(m) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let in_base = std::fs::symlink_metadata(base.join(&r));
        if is_whiteout(&m) {
            if in_base.is_ok() && !staged.removed.contains(&r) {
                out.push(deleted(&base.join(&r), &r));
            }
            continue;
        }
        if let Some(content) = staged.files.get(&r) {
            if !same_as_staged(&path, content, base, &r) {
                out.push(format!("modified {r}"));
            }
            continue;
        }
        let base_is_dir = in_base.as_ref().is_ok_and(|b| b.is_dir());
        if m.is_dir() && (base_is_dir || staged.leads_to_staged(&r)) {
            // A merged directory (or one made for staging): its copy-up alone (a chmod inside,
            // a new file) says nothing; look at what is in it.
            if base_is_dir && !same_dir_mode(&path, &base.join(&r)) {
                out.push(format!("modified {r}/"));
            }
            walk_layer(upper, base, &r, staged, out);
        } else if in_base.is_err() {
            out.push(format!("created {r}{}", if m.is_dir() { "/" } else { "" }));
        } else if !same_entry(&path, &base.join(&r)) {
            out.push(format!("modified {r}"));
        }
    }
}

fn same_dir_mode(a: &Path, b: &Path) -> bool {
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode()).ok();
    mode(a) == mode(b)
}

fn deleted(base_path: &Path, rel: &str) -> String {
    let dir = std::fs::symlink_metadata(base_path).is_ok_and(|m| m.is_dir());
    format!("deleted {rel}{}", if dir { "/" } else { "" })
}

/// Removes a used layer. overlayfs leaves its `work/work` directory without permissions.
pub fn remove_layer(layer: &Path) {
    let inner = layer.join("work/work");
    if inner.exists() {
        let _ = std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700));
    }
    let _ = std::fs::remove_dir_all(layer);
}

// ---- Rescan -------------------------------------------------------------------------------

/// An entry's identity as the rescan compares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dir: bool,
    ino: u64,
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Self {
        Self {
            dir: m.is_dir(),
            ino: m.ino(),
            mode: m.mode(),
            size: if m.is_dir() { 0 } else { m.size() },
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

/// Every entry of a worker's real copy as it was made.
#[derive(Debug, Default)]
pub struct Rescan {
    entries: BTreeMap<String, Stamp>,
}

fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m))
}

impl Rescan {
    pub fn take(copy: &Path) -> Self {
        let mut s = Self::default();
        s.record(copy, "");
        s
    }

    fn record(&mut self, copy: &Path, rel: &str) {
        for name in names(&copy.join(rel)) {
            let r = join(rel, &name);
            if let Some(st) = stamp(&copy.join(&r)) {
                self.entries.insert(r.clone(), st);
                if st.dir {
                    self.record(copy, &r);
                }
            }
        }
    }

    /// Writes the staged files into the copy and deletes the removed ones.
    pub fn stage(copy: &Path, staged: &Staged) -> Result<(), String> {
        for (rel, content) in &staged.files {
            let target = copy.join(rel);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            // Never write through a symlink that leaves the copy.
            let probe = if std::fs::symlink_metadata(&target).is_ok() {
                target.clone()
            } else {
                target.parent().unwrap_or(copy).to_path_buf()
            };
            let real = probe
                .canonicalize()
                .map_err(|e| format!("{}: {e}", probe.display()))?;
            if !real.starts_with(copy) {
                return Err(format!(
                    "refusing to write {rel}: it resolves to {}, outside the working copy",
                    real.display()
                ));
            }
            std::fs::write(&target, content).map_err(|e| format!("{}: {e}", target.display()))?;
        }
        for rel in &staged.removed {
            let p = copy.join(rel);
            if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            }
        }
        Ok(())
    }

    /// Puts `copy` back to the base's content and returns what the test changed.
    pub fn restore(&mut self, copy: &Path, base: &Path, staged: &Staged) -> Vec<String> {
        let mut out = vec![];
        // Directories whose permissions the test took away must be listable again first.
        for (rel, st) in &self.entries {
            if st.dir
                && let Some(now) = stamp(&copy.join(rel))
                && now.dir
                && now.mode != st.mode
            {
                let _ = std::fs::set_permissions(
                    copy.join(rel),
                    std::fs::Permissions::from_mode(st.mode & 0o7777),
                );
                out.push(format!("modified {rel}/"));
            }
        }
        let mut seen = BTreeSet::new();
        self.compare(copy, base, "", staged, &mut seen, &mut out);
        let gone: Vec<String> = self
            .entries
            .keys()
            .filter(|r| !seen.contains(*r))
            .cloned()
            .collect();
        for rel in gone {
            // The parent was restored as a whole, or the entry vanished.
            let parent_seen = rel.rsplit_once('/').is_none_or(|(p, _)| seen.contains(p));
            if !parent_seen {
                continue;
            }
            if !staged.removed.contains(&rel) {
                out.push(deleted(&base.join(&rel), &rel));
            }
            self.put_back(copy, base, &rel);
        }
        out.sort();
        out.dedup();
        out
    }

    fn compare(
        &mut self,
        copy: &Path,
        base: &Path,
        rel: &str,
        staged: &Staged,
        seen: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        for name in names(&copy.join(rel)) {
            let r = join(rel, &name);
            let path = copy.join(&r);
            let Some(now) = stamp(&path) else { continue };
            let recorded = self.entries.get(&r).copied();
            if let Some(content) = staged.files.get(&r) {
                seen.insert(r.clone());
                if !same_as_staged(&path, content, base, &r) {
                    out.push(format!("modified {r}"));
                }
                if recorded.is_some() {
                    self.put_back(copy, base, &r);
                } else {
                    remove_path(&path);
                }
                continue;
            }
            match recorded {
                None if now.dir && staged.leads_to_staged(&r) => {
                    // Made for staging: keep looking inside, then remove it.
                    self.compare(copy, base, &r, staged, seen, out);
                    remove_path(&path);
                }
                None => {
                    out.push(format!("created {r}{}", if now.dir { "/" } else { "" }));
                    remove_path(&path);
                }
                Some(was) if was.dir && now.dir => {
                    seen.insert(r.clone());
                    self.compare(copy, base, &r, staged, seen, out);
                }
                Some(was) => {
                    seen.insert(r.clone());
                    if was != now {
                        if !same_entry(&path, &base.join(&r)) {
                            out.push(format!("modified {r}"));
                        }
                        self.put_back(copy, base, &r);
                    }
                }
            }
        }
    }

    /// Replaces `rel` in the copy with the base's entry and records its new stamps.
    fn put_back(&mut self, copy: &Path, base: &Path, rel: &str) {
        let target = copy.join(rel);
        remove_path(&target);
        if copy_entry(&base.join(rel), &target).is_ok() {
            let prefix = format!("{rel}/");
            self.entries.retain(|k, _| !k.starts_with(&prefix));
            if let Some(st) = stamp(&target) {
                self.entries.insert(rel.to_string(), st);
                if st.dir {
                    self.record(copy, rel);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) {
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "A = 1\n").unwrap();
        std::fs::write(root.join("pkg/sub/b.py"), "B = 2\n").unwrap();
        std::fs::write(root.join("setup.cfg"), "[x]\n").unwrap();
    }

    fn staged_test() -> Staged {
        let mut s = Staged::default();
        s.files
            .insert("tests/new/test_x.py".into(), b"def test(): pass\n".to_vec());
        s.files.insert("pkg/a.py".into(), b"A = 2\n".to_vec());
        s
    }

    #[test]
    fn rescan_undoes_rewrites_deletes_renames_chmods_and_names_them() {
        let base = tempfile::tempdir().unwrap();
        let copy = tempfile::tempdir().unwrap();
        let copy_path = copy.path().canonicalize().unwrap();
        tree(base.path());
        tree(&copy_path);
        let mut scan = Rescan::take(&copy_path);
        let staged = staged_test();
        Rescan::stage(&copy_path, &staged).unwrap();
        assert!(scan.restore(&copy_path, base.path(), &staged).is_empty());
        assert_eq!(
            std::fs::read(copy_path.join("pkg/a.py")).unwrap(),
            b"A = 1\n"
        );
        assert!(!copy_path.join("tests").exists());

        Rescan::stage(&copy_path, &staged).unwrap();
        // Same size, same mtime put back: only ctime tells.
        let b = copy_path.join("pkg/sub/b.py");
        let mtime = std::fs::metadata(&b).unwrap().modified().unwrap();
        std::fs::write(&b, "B = 9\n").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&b)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        std::fs::rename(copy_path.join("setup.cfg"), copy_path.join("moved.cfg")).unwrap();
        std::fs::set_permissions(
            copy_path.join("pkg/sub"),
            std::fs::Permissions::from_mode(0o500),
        )
        .unwrap();
        std::fs::write(copy_path.join("pkg/a.py"), "vandal\n").unwrap();
        std::fs::write(copy_path.join("tests/new/out.txt"), "x").unwrap();
        let changes = scan.restore(&copy_path, base.path(), &staged);
        assert_eq!(
            changes,
            [
                "created moved.cfg",
                "created tests/new/out.txt",
                "deleted setup.cfg",
                "modified pkg/a.py",
                "modified pkg/sub/",
                "modified pkg/sub/b.py",
            ]
        );
        for f in ["pkg/a.py", "pkg/sub/b.py", "setup.cfg"] {
            assert_eq!(
                std::fs::read(copy_path.join(f)).unwrap(),
                std::fs::read(base.path().join(f)).unwrap(),
                "{f}"
            );
        }
        assert!(!copy_path.join("moved.cfg").exists());
        assert!(!copy_path.join("tests").exists());
        assert!(
            scan.restore(&copy_path, base.path(), &Staged::default())
                .is_empty()
        );
    }

    #[test]
    fn layer_changes_leave_out_what_was_staged() {
        let base = tempfile::tempdir().unwrap();
        let upper = tempfile::tempdir().unwrap();
        tree(base.path());
        let staged = staged_test();
        stage_layer(upper.path(), base.path(), &staged).unwrap();
        assert!(layer_changes(upper.path(), base.path(), &staged).is_empty());
        std::fs::create_dir_all(upper.path().join("pkg/sub")).unwrap();
        std::fs::write(upper.path().join("pkg/sub/b.py"), "B = 3\n").unwrap();
        std::fs::create_dir_all(upper.path().join("out/deep")).unwrap();
        std::fs::write(upper.path().join("tests/new/test_x.py"), "changed").unwrap();
        assert_eq!(
            layer_changes(upper.path(), base.path(), &staged),
            [
                "created out/",
                "modified pkg/sub/b.py",
                "modified tests/new/test_x.py"
            ]
        );
    }
}
