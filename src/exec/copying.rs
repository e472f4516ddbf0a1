//! Copies of a repository: the pristine base an executor makes once, and the entries a seal
//! puts back. Version control, caches and environments are never copied (a stale
//! `__pycache__` would shadow a mutant); symlinks stay symlinks, permissions are kept.

use super::types::ExecError;
use std::path::Path;

/// Directory and file names never copied into a worker: version control, caches (a stale
/// `__pycache__` would shadow a mutant), and environments that can be huge.
const SKIPPED_NAMES: &[&str] = &[
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".tox",
    ".venv",
    "venv",
    "node_modules",
];

/// Whether a directory entry of this name belongs in a working copy.
pub fn is_copied(name: &str) -> bool {
    !(SKIPPED_NAMES.contains(&name) || name.ends_with(".pyc") || name.ends_with(".pyo"))
}

/// Every file a working copy gets (`is_copied`), relative to `repo` with `/`
/// separators, sorted.
pub fn repo_files(repo: &Path) -> std::io::Result<Vec<String>> {
    let mut files = Vec::new();
    let mut stack = vec![repo.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            if !is_copied(&name) {
                continue;
            }
            let kind = e.file_type()?;
            if kind.is_dir() {
                stack.push(e.path());
            } else if kind.is_file()
                && let Ok(rel) = e.path().strip_prefix(repo)
            {
                files.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    Ok(files)
}

pub fn remove_path(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Copy one entry (file, symlink or directory) of the repository into a copy.
pub fn copy_entry(from: &Path, to: &Path) -> Result<(), ExecError> {
    let meta = std::fs::symlink_metadata(from).map_err(|source| working_copy(from, source))?;
    if meta.is_symlink() {
        let target = std::fs::read_link(from).map_err(|source| working_copy(from, source))?;
        std::os::unix::fs::symlink(&target, to).map_err(|source| working_copy(to, source))
    } else if meta.is_dir() {
        copy_tree(from, to)
    } else {
        std::fs::copy(from, to)
            .map(drop)
            .map_err(|source| working_copy(to, source))
    }
}

/// Recursive copy that skips `SKIPPED_NAMES` and bytecode, keeps symlinks as symlinks and
/// file permissions, and ignores sockets and fifos.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), ExecError> {
    std::fs::create_dir_all(to).map_err(|source| working_copy(to, source))?;
    let entries = std::fs::read_dir(from).map_err(|source| working_copy(from, source))?;
    for entry in entries {
        let entry = entry.map_err(|source| working_copy(from, source))?;
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        if !is_copied(&name_str) {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|source| working_copy(&entry.path(), source))?;
        // Sockets and fifos are not copied.
        if kind.is_symlink() || kind.is_dir() || kind.is_file() {
            copy_entry(&entry.path(), &to.join(&name))?;
        }
    }
    Ok(())
}

/// The error of a copy (or of any file an executor prepares for a run) that failed.
pub fn working_copy(path: &Path, source: std::io::Error) -> ExecError {
    ExecError::WorkingCopy {
        path: path.display().to_string(),
        source,
    }
}
