//! Finding a Python interpreter that can run pytest: the one the user named, else `python3`
//! from PATH, else a venv evootter manages in its cache directory (created once with
//! `python3 -m venv` and `pip install pytest`, reused afterwards).

use super::interpreter::{self, last_line as tail};
use super::types::ExecError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The interpreter every execution uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonEnv {
    /// Absolute but not canonicalized: resolving a venv's `bin/python` symlink would leave the
    /// venv.
    pub path: PathBuf,
    /// `3.11.7`.
    pub version: String,
    pub pytest_version: String,
    /// True when the interpreter lives in evootter's own cache venv.
    pub managed: bool,
    /// One line for the user when evootter did something on their behalf.
    pub note: Option<String>,
}

/// Resolves the interpreter: `explicit` (from `--python`) must exist and import pytest;
/// without it, `python3` from PATH if it imports pytest, else the managed venv.
pub fn resolve_python(explicit: Option<&Path>) -> Result<PythonEnv, ExecError> {
    let venvs = directories::ProjectDirs::from("", "", "evootter")
        .map(|dirs| dirs.cache_dir().join("venvs"));
    resolve_with(explicit, std::env::var_os("PATH"), venvs.as_deref())
}

/// `resolve_python` with the search PATH and the managed-venv root passed in, so tests can
/// simulate machines without Python or without pytest.
pub(crate) fn resolve_with(
    explicit: Option<&Path>,
    path_var: Option<OsString>,
    venv_root: Option<&Path>,
) -> Result<PythonEnv, ExecError> {
    if let Some(explicit) = explicit {
        let path = locate(explicit, path_var.as_ref()).ok_or_else(|| {
            ExecError::Other(format!(
                "Python interpreter `{}` not found. Pass --python with the path of an interpreter that has pytest installed",
                explicit.display()
            ))
        })?;
        return match probe(&path)? {
            Probe::Ready {
                version,
                pytest,
                executable,
            } => Ok(env(
                unshimmed(path, executable),
                version,
                pytest,
                false,
                None,
            )),
            Probe::NoPytest { version, detail } => Err(ExecError::Other(format!(
                "`{}` (Python {version}) cannot import pytest ({detail}). Install it with `{} -m pip install pytest`, or pass --python with an interpreter that has it",
                path.display(),
                path.display()
            ))),
        };
    }

    let python3 = locate(Path::new("python3"), path_var.as_ref()).ok_or_else(|| {
        ExecError::Other(
            "no `python3` on PATH. Install Python 3 (for example `apt-get install python3 python3-venv`) or pass --python with an interpreter that has pytest installed".to_owned(),
        )
    })?;
    let version = match probe(&python3)? {
        Probe::Ready {
            version,
            pytest,
            executable,
        } => {
            return Ok(env(
                unshimmed(python3, executable),
                version,
                pytest,
                false,
                None,
            ));
        }
        Probe::NoPytest { version, .. } => version,
    };
    let venv_root = venv_root.ok_or_else(|| {
        ExecError::Other(format!(
            "`{}` has no pytest and there is no cache directory for a managed venv. Run `{} -m pip install pytest` or pass --python",
            python3.display(),
            python3.display()
        ))
    })?;
    managed_venv(&python3, &version, venv_root)
}

fn env(
    path: PathBuf,
    version: String,
    pytest: String,
    managed: bool,
    note: Option<String>,
) -> PythonEnv {
    PythonEnv {
        path,
        version,
        pytest_version: pytest,
        managed,
        note,
    }
}

/// `<venv_root>/py<major.minor>`: reused when it still imports pytest, else built beside it
/// and renamed into place, so a half-built venv (no network for pip, Ctrl-C) is never reused
/// and two evootter processes racing to build it both end up with a working one.
fn managed_venv(python3: &Path, version: &str, venv_root: &Path) -> Result<PythonEnv, ExecError> {
    let minor = version.split('.').take(2).collect::<Vec<_>>().join(".");
    let dir = venv_root.join(format!("py{minor}"));
    let venv_python = dir.join("bin").join("python");
    if venv_python.exists()
        && let Probe::Ready {
            version, pytest, ..
        } = probe(&venv_python)?
    {
        let note = format!(
            "using the managed venv at {} with pytest {pytest}",
            dir.display()
        );
        return Ok(env(venv_python, version, pytest, true, Some(note)));
    }

    std::fs::create_dir_all(venv_root).map_err(|source| ExecError::WorkingCopy {
        path: venv_root.display().to_string(),
        source,
    })?;
    let staging = venv_root.join(format!(".py{minor}.building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let built = build_venv(python3, &staging);
    if let Err(e) = built {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::rename(&staging, &dir).is_err() {
        // Another evootter won the race; its venv is as good as ours.
        let _ = std::fs::remove_dir_all(&staging);
    }
    match probe(&venv_python)? {
        Probe::Ready {
            version, pytest, ..
        } => {
            let note = format!(
                "created a managed venv at {} with pytest {pytest}",
                dir.display()
            );
            Ok(env(venv_python, version, pytest, true, Some(note)))
        }
        Probe::NoPytest { detail, .. } => Err(ExecError::Other(format!(
            "the managed venv at {} cannot import pytest after installing it ({detail}). Remove that directory and retry, or pass --python",
            dir.display()
        ))),
    }
}

/// The interpreter a shim starts, where `path` is one: pyenv and asdf put `python3` on PATH
/// as a script in a `shims` directory that works out the version and execs the interpreter,
/// about 70 ms of shell a start, paid by every later start of it (the probes, the zygotes,
/// each cold execution). The interpreter the shim chose is `sys.executable`. Any other path
/// is kept as it is: a venv's `bin/python` must stay in the venv, and a wrapper script may
/// set up what the interpreter needs.
fn unshimmed(path: PathBuf, executable: Option<String>) -> PathBuf {
    let in_shims = path
        .parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == "shims");
    match executable.map(PathBuf::from) {
        Some(real) if in_shims && real.is_absolute() && is_executable(&real) => real,
        _ => path,
    }
}

fn build_venv(python3: &Path, dir: &Path) -> Result<(), ExecError> {
    run_step(
        Command::new(python3).args(["-m", "venv"]).arg(dir),
        &format!(
            "`{} -m venv` failed. Install venv support (for example `apt-get install python3-venv`) or pass --python with an interpreter that has pytest installed",
            python3.display()
        ),
    )?;
    run_step(
        Command::new(dir.join("bin").join("python")).args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "pytest",
        ]),
        "`pip install pytest` into the managed venv failed (no network?). Install pytest into an interpreter yourself and pass it with --python",
    )
}

fn run_step(cmd: &mut Command, what_failed: &str) -> Result<(), ExecError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ExecError::Spawn {
            python: program,
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    Err(ExecError::Other(format!(
        "{what_failed}: {}",
        tail(&String::from_utf8_lossy(&out.stderr))
    )))
}

enum Probe {
    Ready {
        version: String,
        pytest: String,
        /// `sys.executable`, when it said.
        executable: Option<String>,
    },
    NoPytest {
        version: String,
        detail: String,
    },
}

/// Asks the interpreter for its version, then for pytest's: the version comes first so a
/// missing pytest still tells which Python it was.
fn probe(python: &Path) -> Result<Probe, ExecError> {
    let asked = interpreter::ask(python, true)?;
    let Some(facts) = asked.facts.filter(|f| f.version.starts_with("3.")) else {
        return Err(ExecError::Other(format!(
            "`{}` is not a working Python 3 interpreter ({}). Pass --python with one that has pytest installed",
            python.display(),
            tail(&asked.stderr)
        )));
    };
    match facts.pytest {
        Some(pytest) if asked.success => Ok(Probe::Ready {
            version: facts.version,
            pytest,
            executable: facts.executable,
        }),
        _ => Ok(Probe::NoPytest {
            version: facts.version,
            detail: tail(&asked.stderr),
        }),
    }
}

/// A path with a separator is taken as is (made absolute against the current directory, as
/// pytest later runs elsewhere); a bare name is searched on PATH like a shell would.
/// `program` as found on PATH, if it is there.
pub fn locate_on_path(program: &str) -> Option<PathBuf> {
    locate(Path::new(program), std::env::var_os("PATH").as_ref())
}

fn locate(program: &Path, path_var: Option<&OsString>) -> Option<PathBuf> {
    if program.components().count() > 1 || program.is_absolute() {
        return std::path::absolute(program)
            .ok()
            .filter(|p| is_executable(p));
    }
    std::env::split_paths(path_var?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .and_then(|p| std::path::absolute(p).ok())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Python's own verdict on sources: `(label, source)` pairs in, one line per source that does
/// not compile out (`label:LINE:COL: message`). The interpreter the run uses decides, so a file
/// using syntax newer than tree-sitter's grammar is not flagged, and one the interpreter is too
/// old for is. One interpreter start for all of them.
pub fn syntax_errors(
    python: &Path,
    sources: &[(String, String)],
) -> Result<Vec<String>, ExecError> {
    use std::io::Write;
    if sources.is_empty() {
        return Ok(vec![]);
    }
    const CHECK: &str = r#"
import json, sys
for label, src in json.load(sys.stdin):
    try:
        compile(src, label, "exec", dont_inherit=True)
    except SyntaxError as e:
        print(f"{label}:{e.lineno or 0}:{e.offset or 0}: {e.msg}")
    except ValueError as e:
        print(f"{label}:0:0: {e}")
"#;
    let payload = serde_json::to_vec(sources).map_err(|e| ExecError::Other(e.to_string()))?;
    let mut child = Command::new(python)
        .args(["-I", "-c", CHECK])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ExecError::Spawn {
            python: python.display().to_string(),
            source,
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&payload)
            .map_err(|e| ExecError::Other(format!("syntax check: {e}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| ExecError::Other(format!("syntax check: {e}")))?;
    if !out.status.success() {
        return Err(ExecError::Other(format!(
            "`{}` could not check the sources' syntax: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_text(r: Result<PythonEnv, ExecError>) -> String {
        match r {
            Ok(env) => panic!("expected an error, got {env:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn python3_from_path_with_pytest() {
        let env = resolve_python(None).expect("python3 with pytest is installed here");
        assert!(env.version.starts_with("3."), "{env:?}");
        assert!(!env.pytest_version.is_empty());
        assert!(!env.managed);
        assert!(env.path.is_absolute());

        let again = resolve_python(Some(&env.path)).unwrap();
        assert_eq!(again.version, env.version);
    }

    /// A script on PATH that execs the real interpreter, in a directory named `dir`.
    fn wrapper(root: &Path, dir: &str, real: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let d = root.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        let script = d.join("python3");
        std::fs::write(
            &script,
            format!("#!/bin/sh\nexec {} \"$@\"\n", real.display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        d
    }

    #[test]
    fn a_shim_on_path_is_replaced_by_the_interpreter_it_starts_and_a_wrapper_is_not() {
        let real = resolve_python(None).unwrap().path;
        let real = std::fs::canonicalize(real).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        for (dir, expected) in [
            ("shims", real.clone()),
            ("bin", tmp.path().join("bin/python3")),
        ] {
            let on_path = wrapper(tmp.path(), dir, &real);
            let env = resolve_with(None, Some(on_path.into_os_string()), None).unwrap();
            assert_eq!(
                std::fs::canonicalize(&env.path).unwrap(),
                std::fs::canonicalize(&expected).unwrap(),
                "{dir}: {env:?}"
            );
            assert_eq!(env.path.parent().unwrap().ends_with(dir), dir == "bin");
        }
    }

    #[test]
    fn explicit_missing_interpreter_is_named() {
        let msg = err_text(resolve_python(Some(Path::new("/nonexistent/bin/python9"))));
        assert!(
            msg.contains("/nonexistent/bin/python9") && msg.contains("not found"),
            "{msg}"
        );
    }

    #[test]
    fn explicit_interpreter_without_pytest_says_how_to_fix() {
        let tmp = tempfile::tempdir().unwrap();
        let venv = tmp.path().join("bare");
        let ok = Command::new("python3")
            .args(["-m", "venv", "--without-pip"])
            .arg(&venv)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let python = venv.join("bin").join("python");
        let msg = err_text(resolve_python(Some(&python)));
        assert!(msg.contains(&python.display().to_string()), "{msg}");
        assert!(msg.contains("-m pip install pytest"), "{msg}");
    }

    #[test]
    fn no_python3_at_all() {
        let empty = tempfile::tempdir().unwrap();
        let msg = err_text(resolve_with(
            None,
            Some(empty.path().as_os_str().to_owned()),
            Some(empty.path()),
        ));
        assert!(
            msg.contains("Install Python 3") && msg.contains("--python"),
            "{msg}"
        );
    }

    /// Needs network access to PyPI and takes ~10 s: `cargo test -- --ignored managed`.
    #[test]
    #[ignore]
    fn managed_venv_is_created_then_reused() {
        let tmp = tempfile::tempdir().unwrap();
        let bare = tmp.path().join("bare");
        assert!(
            Command::new("python3")
                .args(["-m", "venv"])
                .arg(&bare)
                .status()
                .unwrap()
                .success()
        );
        let path_var = Some(bare.join("bin").into_os_string());
        let root = tmp.path().join("cache");
        let first = resolve_with(None, path_var.clone(), Some(&root)).unwrap();
        assert!(first.managed);
        assert!(
            first
                .note
                .as_deref()
                .unwrap()
                .starts_with("created a managed venv")
        );
        let second = resolve_with(None, path_var, Some(&root)).unwrap();
        assert_eq!(second.path, first.path);
        assert!(
            second
                .note
                .as_deref()
                .unwrap()
                .starts_with("using the managed venv")
        );
    }
}
