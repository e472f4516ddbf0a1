//! The repository's Python files, as a working copy holds them, and which of them are tests.

use std::path::Path;

/// Every Python file of the repository a working copy holds, outside hidden directories.
pub fn python_files(repo: &Path) -> Vec<String> {
    crate::exec::copying::repo_files(repo)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.ends_with(".py") && !p.split('/').any(|c| c.starts_with('.')))
        .collect()
}

/// A file pytest collects as tests by its name (`test_*.py`, `*_test.py`) or its fixtures
/// (`conftest.py`).
pub fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py"
}
