//! The tar archives uploaded into a container: the whole repository copy once, then per run
//! the staged files, and after a run whatever has to be put back. Entries are owned by root
//! and keep their permissions; their mtime is the moment of packing, as a fresh local copy's
//! would be.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn header(kind: tar::EntryType, mode: u32, size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_size(size);
    h.set_uid(0);
    h.set_gid(0);
    h.set_mtime(now());
    h
}

/// An archive being packed; `finish` gives its bytes.
pub struct Tarball {
    builder: tar::Builder<Vec<u8>>,
}

impl Default for Tarball {
    fn default() -> Self {
        Self::new()
    }
}

impl Tarball {
    pub fn new() -> Self {
        Self {
            builder: tar::Builder::new(Vec::new()),
        }
    }

    /// A file with this content and these permission bits at `rel`.
    pub fn file(&mut self, rel: &str, content: &[u8], mode: u32) -> std::io::Result<()> {
        let mut h = header(tar::EntryType::Regular, mode, content.len() as u64);
        self.builder.append_data(&mut h, rel, content)
    }

    /// The entry `rel` of `root` (a file, a symlink, or a directory with everything below it)
    /// at `rel`. Sockets and fifos are left out, as the local copy leaves them out.
    pub fn entry(&mut self, root: &Path, rel: &str) -> std::io::Result<()> {
        let path = root.join(rel);
        let m = std::fs::symlink_metadata(&path)?;
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o7777
        };
        if m.is_symlink() {
            let target = std::fs::read_link(&path)?;
            let mut h = header(tar::EntryType::Symlink, 0o777, 0);
            self.builder.append_link(&mut h, rel, target)
        } else if m.is_dir() {
            let mut h = header(tar::EntryType::Directory, mode, 0);
            self.builder.append_data(&mut h, rel, std::io::empty())?;
            let mut names: Vec<_> = std::fs::read_dir(&path)?
                .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect::<Result<_, _>>()?;
            names.sort();
            for name in names {
                self.entry(root, &format!("{rel}/{name}"))?;
            }
            Ok(())
        } else if m.is_file() {
            let file = std::fs::File::open(&path)?;
            let mut h = header(tar::EntryType::Regular, mode, m.len());
            self.builder.append_data(&mut h, rel, file)
        } else {
            Ok(())
        }
    }

    /// Everything in `root` (not `root` itself, whose directory exists in the container).
    pub fn tree(&mut self, root: &Path) -> std::io::Result<()> {
        let mut names: Vec<_> = std::fs::read_dir(root)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()?;
        names.sort();
        for name in names {
            self.entry(root, &name)?;
        }
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<Vec<u8>> {
        self.builder.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_packs_files_links_and_directories_with_their_modes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            dir.path().join("pkg/run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("pkg/run.sh", dir.path().join("ln")).unwrap();
        let mut t = Tarball::new();
        t.tree(dir.path()).unwrap();
        t.file("tests/test_x.py", b"x", 0o644).unwrap();
        let bytes = t.finish().unwrap();
        let mut archive = tar::Archive::new(&bytes[..]);
        let entries: Vec<(String, u32, tar::EntryType)> = archive
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let h = e.header();
                (
                    e.path().unwrap().display().to_string(),
                    h.mode().unwrap(),
                    h.entry_type(),
                )
            })
            .collect();
        assert_eq!(entries[0].0, "ln");
        assert_eq!(entries[0].2, tar::EntryType::Symlink);
        assert_eq!(
            entries[2],
            ("pkg/run.sh".into(), 0o755, tar::EntryType::Regular)
        );
        assert_eq!(entries[3].0, "tests/test_x.py");
    }
}
