//! A broken environment, named instead of scored. When every test of the initial population
//! errors on `c_old` the same way (pytest refuses an option the repository's configuration
//! asks for, a dependency is missing), the environment cannot run the repository's tests:
//! every score would measure the environment, not the tests. The run says so at once, in one
//! line, with what is probably missing.

use super::session::{SessionDoc, Target, TestId};
use crate::exec::Outcome;
use std::path::Path;
use std::sync::LazyLock;

/// What every test's `c_old` run said, and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The error every test shares, as its log says it.
    pub error: String,
    /// What is probably wrong with the environment and where it comes from.
    pub hint: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "every test errors on c_old: {}; {}",
            self.error, self.hint
        )
    }
}

static UNRECOGNIZED: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"error: unrecognized arguments: (.+)").expect("a valid pattern")
});
static NO_MODULE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")
        .expect("a valid pattern")
});
static PYTEST_ERROR: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"(?m)^ERROR: (.+)$").expect("a valid pattern"));

/// The environmental error a log shows, if it shows one: pytest refusing its command line or
/// configuration, or an import of something the repository does not hold.
fn signature(log: &str, repo: &Path) -> Option<String> {
    if let Some(c) = UNRECOGNIZED.captures(log) {
        return Some(format!("pytest: unrecognized arguments: {}", c[1].trim()));
    }
    if let Some(c) = NO_MODULE.captures(log) {
        let module = &c[1];
        let top = module.split('.').next().unwrap_or(module);
        // A module of the repository's own package that does not exist is the test's mistake
        // (a wrong import), not the environment's.
        let ours = ["", "src/"].iter().any(|d| {
            repo.join(format!("{d}{top}")).exists() || repo.join(format!("{d}{top}.py")).exists()
        });
        if !ours {
            return Some(format!("No module named '{module}'"));
        }
        return None;
    }
    PYTEST_ERROR
        .captures(log)
        .map(|c| format!("pytest: {}", c[1].trim()))
}

/// What is probably missing, and the configuration file that asks for it.
fn hint(error: &str, repo: &Path) -> String {
    if let Some(args) = error.strip_prefix("pytest: unrecognized arguments: ") {
        let first = args.split_whitespace().next().unwrap_or(args);
        let option = first.split('=').next().unwrap_or(first);
        let from = [
            "setup.cfg",
            "pytest.ini",
            "tox.ini",
            "pyproject.toml",
            ".pytest.ini",
        ]
        .into_iter()
        .find(|f| std::fs::read_to_string(repo.join(f)).is_ok_and(|text| text.contains(option)))
        .map(|f| format!(" (from {f})"))
        .unwrap_or_default();
        let plugin = match option {
            o if o.starts_with("--cov") => "pytest-cov".to_owned(),
            "-n" | "--numprocesses" | "--dist" => "pytest-xdist".to_owned(),
            o if o.starts_with("--timeout") => "pytest-timeout".to_owned(),
            o if o.starts_with("--reruns") => "pytest-rerunfailures".to_owned(),
            o if o.starts_with("--benchmark") => "pytest-benchmark".to_owned(),
            _ => "the pytest plugin that adds it".to_owned(),
        };
        return format!(
            "pytest does not know {option}{from}: the environment lacks {plugin}; install it \
             in the interpreter (or the image)"
        );
    }
    if let Some(module) = error.strip_prefix("No module named ") {
        return format!(
            "the environment lacks {module} (a dependency of the repository or its tests): \
             install it in the interpreter (or the image), or point --pythonpath at it"
        );
    }
    "the interpreter (or the image) cannot run the repository's tests as they are".to_owned()
}

/// Whether `tests` (at least two) all error on `c_old` with the same environmental error.
pub fn broken(doc: &SessionDoc, tests: &[TestId]) -> Option<Broken> {
    if tests.len() < 2 {
        return None;
    }
    let mut shared: Option<String> = None;
    for t in tests {
        let e = doc.execution(t, &Target::Old)?;
        if e.outcome != Outcome::Error {
            return None;
        }
        let sig = signature(doc.log(&e.raw_log), &doc.inputs.repo)?;
        match &shared {
            Some(s) if *s != sig => return None,
            Some(_) => {}
            None => shared = Some(sig),
        }
    }
    let error = shared?;
    Some(Broken {
        hint: hint(&error, &doc.inputs.repo),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_and_what_is_missing() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::write(
            repo.path().join("setup.cfg"),
            "[tool:pytest]\naddopts = --cov=pkg --cov-report=term\n",
        )
        .unwrap();
        std::fs::create_dir(repo.path().join("pkg")).unwrap();
        let usage = "ERROR: usage: __main__.py [options] [file_or_dir] [file_or_dir] [...]\n\
                     __main__.py: error: unrecognized arguments: --cov=pkg --cov-report=term\n  \
                     inifile: /testbed/setup.cfg\n";
        let sig = signature(usage, repo.path()).unwrap();
        assert_eq!(
            sig,
            "pytest: unrecognized arguments: --cov=pkg --cov-report=term"
        );
        let h = hint(&sig, repo.path());
        assert!(
            h.contains("--cov (from setup.cfg)") && h.contains("lacks pytest-cov"),
            "{h}"
        );
        let missing = "E   ModuleNotFoundError: No module named 'numpy'\n";
        assert_eq!(
            signature(missing, repo.path()).as_deref(),
            Some("No module named 'numpy'")
        );
        // The repository's own package misnamed by a test is the test's mistake.
        let wrong = "E   ModuleNotFoundError: No module named 'pkg.exceptions'\n";
        assert_eq!(signature(wrong, repo.path()), None);
        assert_eq!(signature("E   AssertionError\n", repo.path()), None);
    }
}
