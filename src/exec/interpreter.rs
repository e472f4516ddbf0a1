//! What an interpreter says about itself, from one start of it: its version, its user base
//! (`~/.local`, kept reachable under a run's private HOME), the executable it runs as and,
//! when asked, pytest's version.
//! The same script runs locally and inside a container, so both backends learn the same facts.

use super::types::ExecError;
use std::path::Path;
use std::process::{Command, Stdio};

/// Prints the version, the user base and `sys.executable`, one a line; with the argument
/// `pytest`, then pytest's version. The first lines are flushed before pytest is imported, so
/// a missing pytest still says which Python it was (and its traceback goes to stderr).
pub const FACTS_SCRIPT: &str = "import site, sys\n\
print(sys.version.split()[0]); print(site.getuserbase()); print(sys.executable, flush=True)\n\
if 'pytest' in sys.argv[1:]:\n    import pytest; print(pytest.__version__)\n";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// `3.11.7`.
    pub version: String,
    pub user_base: Option<String>,
    /// `sys.executable`: the interpreter itself where it was started through a shim.
    pub executable: Option<String>,
    /// Asked for and importable: its version.
    pub pytest: Option<String>,
}

/// The facts in `FACTS_SCRIPT`'s output, if it printed at least the version.
pub fn parse(stdout: &str) -> Option<Facts> {
    let mut lines = stdout.lines().map(str::trim);
    let version = lines.next().filter(|v| !v.is_empty())?.to_owned();
    let mut line = || lines.next().filter(|l| !l.is_empty()).map(str::to_owned);
    let user_base = line();
    let executable = line();
    let pytest = line();
    Some(Facts {
        version,
        user_base,
        executable,
        pytest,
    })
}

/// What one start of a local interpreter said.
pub struct Asked {
    /// `None`: it printed no version (not a working Python).
    pub facts: Option<Facts>,
    pub success: bool,
    pub stderr: String,
}

/// Starts `python` once with `FACTS_SCRIPT`. `Err` only when it could not be started.
pub fn ask(python: &Path, with_pytest: bool) -> Result<Asked, ExecError> {
    let mut cmd = Command::new(python);
    cmd.args(["-c", FACTS_SCRIPT]);
    if with_pytest {
        cmd.arg("pytest");
    }
    let out = cmd
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ExecError::Spawn {
            python: python.display().to_string(),
            source,
        })?;
    Ok(Asked {
        facts: parse(&String::from_utf8_lossy(&out.stdout)),
        success: out.status.success(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// The interpreter's version and user base, for an executor that runs it.
pub fn facts(python: &Path) -> Result<Facts, ExecError> {
    match ask(python, false)? {
        Asked {
            facts: Some(facts),
            success: true,
            ..
        } => Ok(facts),
        asked => Err(ExecError::Other(format!(
            "`{}` did not run: {}",
            python.display(),
            asked.stderr.trim()
        ))),
    }
}

/// The last line of a tool's complaint is usually the one that says what went wrong.
pub fn last_line(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no error output")
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_of_this_machines_python3_and_of_a_missing_pytest() {
        let Some(python) = super::super::python_env::locate_on_path("python3") else {
            return;
        };
        let f = facts(&python).unwrap();
        assert!(f.version.starts_with("3."), "{f:?}");
        assert!(f.user_base.is_some());
        assert_eq!(f.pytest, None, "not asked");
        let asked = ask(&python, true).unwrap();
        let f = asked.facts.unwrap();
        match f.pytest {
            Some(v) => assert!(asked.success && v.chars().next().unwrap().is_ascii_digit()),
            None => assert!(!asked.success && asked.stderr.contains("pytest")),
        }
    }

    #[test]
    fn output_without_a_version_is_no_facts() {
        assert_eq!(parse(""), None);
        assert_eq!(
            parse("3.12.1\n/root/.local\n/usr/bin/python3\n"),
            Some(Facts {
                version: "3.12.1".into(),
                user_base: Some("/root/.local".into()),
                executable: Some("/usr/bin/python3".into()),
                pytest: None
            })
        );
    }
}
