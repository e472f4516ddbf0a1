//! The pytest run every executor makes, wherever it runs: its command line, its environment,
//! the directories it writes into, and how what it left (log, junit report, exit status)
//! becomes an `ExecResult`. The local and the Docker backend both build their runs from these
//! functions, so the same test gives the same normalized log and result on either.

use crate::exec::junit::{JunitReport, reconcile_exit_code, refine_with_log};
use crate::exec::normalize::normalize_log;
use crate::exec::types::{ExecResult, Outcome, TestCounts};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Prefix of the line appended to the raw log of a run killed at its timeout.
pub const TIMEOUT_MARKER: &str = "[evootter] timeout after";

/// Prefix of the lines evootter appends to a run's log (copy changes, sandbox refusals).
pub const NOTICE_PREFIX: &str = "[evootter]";

/// The line tracer (a pytest plugin) and the name it is staged under, at the copy's root.
pub const LINE_TRACER: &str = include_str!("line_trace.py");
pub const TRACE_PLUGIN: &str = "evootter_line_trace.py";

/// Output beyond this is dropped (a test printing in a loop must not exhaust memory).
pub const MAX_LOG_BYTES: usize = 8 << 20;

/// The variables of evootter's environment a local run inherits: what finds the interpreter
/// and its libraries (PATH, an activated venv or conda env, pyenv's choice, the dynamic
/// loader's path) and the user's language. Nothing else: the user's shell holds API keys and
/// tokens that a model-written test must never see (it may print its environment, and its log
/// goes into the session and back to the model). `environment` then sets the run's own
/// variables over these; the user adds more by name with `--pass-env`.
pub const ALLOWED_ENV: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "USER",
    "LOGNAME",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "LD_LIBRARY_PATH",
];

/// Variables of a Docker image's own environment a run must not see (a local run never
/// inherits them: they are not in `ALLOWED_ENV`). The user's extra pytest options and forced
/// colours would make logs differ from run to run and machine to machine. pytest stops
/// truncating assertion explanations when it believes it runs on CI (`CI` or `BUILD_NUMBER`
/// set), which changes which mutants a log difference reveals: the kill matrix would depend
/// on where evootter runs. A bytecode prefix elsewhere could serve a stale .pyc (see
/// `environment`), and XDG directories would lead outside the run's private home.
pub const REMOVED_ENV: &[&str] = &[
    "PYTEST_ADDOPTS",
    "FORCE_COLOR",
    "PY_COLORS",
    "CI",
    "BUILD_NUMBER",
    "PYTHONPYCACHEPREFIX",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
];

/// The variables a run takes from evootter's own environment: `ALLOWED_ENV` and the ones the
/// user passed by name (`--pass-env`), with their values now. A name that is not set is left
/// out (the run sees it unset, as it would be in the user's shell).
pub fn inherited_env(pass_env: &[String]) -> Vec<(String, String)> {
    ALLOWED_ENV
        .iter()
        .copied()
        .chain(pass_env.iter().map(String::as_str))
        .filter_map(|name| Some((name.to_owned(), std::env::var(name).ok()?)))
        .collect()
}

/// The values of `--pass-env`'s variables, for a backend that adds them to another base
/// environment (a Docker image's).
pub fn passed_env(pass_env: &[String]) -> Vec<(String, String)> {
    pass_env
        .iter()
        .filter_map(|name| Some((name.clone(), std::env::var(name).ok()?)))
        .collect()
}

/// Where one worker's runs happen, as the interpreter sees the paths: the working copy pytest
/// runs in, and the worker's private scratch directory whose `run/` is made fresh every run.
#[derive(Debug, Clone)]
pub struct RunDirs {
    pub copy: PathBuf,
    pub scratch: PathBuf,
}

impl RunDirs {
    /// Emptied before every run: `home/`, `tmp/`, pytest's basetemp, the junit report, the
    /// trace.
    pub fn run_dir(&self) -> PathBuf {
        self.scratch.join("run")
    }

    pub fn basetemp(&self) -> PathBuf {
        self.run_dir().join("basetemp")
    }

    pub fn junit(&self) -> PathBuf {
        self.run_dir().join("junit.xml")
    }

    pub fn trace_out(&self) -> PathBuf {
        self.run_dir().join("trace.json")
    }

    /// The literal paths `normalize_log` folds: the copy, and the scratch directory (pytest's
    /// basetemp first, so `<TMP>/test_x0` reads the same as a default pytest temp dir).
    pub fn roots(&self) -> Vec<(String, &'static str)> {
        vec![
            (self.copy.display().to_string(), "<WORK>"),
            (self.basetemp().display().to_string(), "<TMP>"),
            (self.scratch.display().to_string(), "<TMP>"),
        ]
    }
}

/// The interpreter's arguments: `-B -m pytest TEST` (or, to run some of its tests,
/// `TEST::NAME` for each of `select`) and the options that make its output comparable (no
/// cache, no random order, no header, every outcome summarized, short tracebacks, no colour)
/// and its files land in the run directory.
pub fn pytest_args(
    dirs: &RunDirs,
    test_rel: &str,
    traced: bool,
    select: &[String],
    stop_at_first_failure: bool,
) -> Vec<String> {
    let targets: Vec<String> = if select.is_empty() {
        vec![test_rel.to_owned()]
    } else {
        select.iter().map(|n| format!("{test_rel}::{n}")).collect()
    };
    let mut args: Vec<String> = ["-B", "-m", "pytest"]
        .into_iter()
        .map(str::to_owned)
        .chain(targets)
        .chain(
            [
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                "-p",
                "no:random_order",
                "--no-header",
                "-rA",
                "--tb=short",
                "--color=no",
            ]
            .into_iter()
            .map(str::to_owned),
        )
        .collect();
    if stop_at_first_failure {
        args.push("-x".to_owned());
    }
    args.push(format!("--basetemp={}", dirs.basetemp().display()));
    args.push(format!("--junitxml={}", dirs.junit().display()));
    if traced {
        args.extend(["-p".to_owned(), plugin_module()]);
    }
    args
}

fn plugin_module() -> String {
    TRACE_PLUGIN.trim_end_matches(".py").to_owned()
}

/// The variables every run gets (on top of `inherited_env`, or a Docker image's own less
/// `REMOVED_ENV`),
/// sandboxed or not, local or in a container, so that all of them give the same logs.
/// `pythonpath` is relative to the copy; `user_base` is the interpreter's `site.getuserbase()`,
/// kept reachable under the run's private HOME; `traced` the files the line tracer watches,
/// `per_test` whether it keeps each test's lines apart too.
pub fn environment(
    dirs: &RunDirs,
    pythonpath: &[String],
    user_base: Option<&str>,
    traced: &[String],
    per_test: bool,
) -> Vec<(&'static str, String)> {
    let mut path = vec![dirs.copy.display().to_string()];
    for dir in pythonpath {
        let dir = dir.trim_matches('/');
        if !dir.is_empty() && dir != "." {
            path.push(dirs.copy.join(dir).display().to_string());
        }
    }
    let run_dir = dirs.run_dir();
    let tmp = run_dir.join("tmp").display().to_string();
    let mut env = vec![
        ("COLUMNS", "80".to_owned()),
        ("PYTHONHASHSEED", "0".to_owned()),
        ("NO_COLOR", "1".to_owned()),
        ("TZ", "UTC".to_owned()),
        ("LC_ALL", "C.UTF-8".to_owned()),
        ("PYTHONUNBUFFERED", "1".to_owned()),
        // CPython trusts a .pyc whose source has the same size and mtime second, which a
        // same-size mutant written right after c_old has. So no bytecode of the copy may
        // ever exist: none is copied, none is written (`-B` and this), and no prefix
        // elsewhere is consulted. The interpreter's own cached stdlib and site-packages
        // are still read: a fresh PYTHONPYCACHEPREFIX would hide those too and recompile
        // them every run (about 1.2 s of a 1.7 s trivial run, measured).
        ("PYTHONDONTWRITEBYTECODE", "1".to_owned()),
        ("PYTHONPATH", path.join(":")),
        // A home and temp dir of the run's own, emptied before every run: what a test
        // caches in ~ or /tmp cannot reach the next one, and the sandbox lets it write
        // there. The user's site-packages stay importable.
        ("HOME", run_dir.join("home").display().to_string()),
        ("TMPDIR", tmp.clone()),
        ("TEMP", tmp.clone()),
        ("TMP", tmp),
    ];
    if let Some(ub) = user_base {
        env.push(("PYTHONUSERBASE", ub.to_owned()));
    }
    if !traced.is_empty() {
        // One path a line: no focal file's name holds a newline.
        let targets: Vec<String> = traced
            .iter()
            .map(|rel| dirs.copy.join(rel).display().to_string())
            .collect();
        env.push(("EVOOTTER_TRACE_TARGET", targets.join("\n")));
        env.push(("EVOOTTER_TRACE_OUT", dirs.trace_out().display().to_string()));
        if per_test {
            env.push(("EVOOTTER_TRACE_PER_TEST", "1".to_owned()));
        }
    }
    env
}

/// What one execution is given: files placed (rel path -> content) and files removed.
#[derive(Debug, Default)]
pub struct Staged {
    pub files: BTreeMap<String, Vec<u8>>,
    pub removed: BTreeSet<String>,
}

impl Staged {
    /// Is `rel` a directory on the way to a staged file?
    pub fn leads_to_staged(&self, rel: &str) -> bool {
        let prefix = format!("{rel}/");
        self.files.keys().any(|f| f.starts_with(&prefix))
    }
}

/// Keeps at most `MAX_LOG_BYTES` of a log, counting what it drops.
#[derive(Debug, Default)]
pub struct LogBuffer {
    bytes: Vec<u8>,
    dropped: usize,
}

impl LogBuffer {
    pub fn push(&mut self, chunk: &[u8]) {
        let room = MAX_LOG_BYTES.saturating_sub(self.bytes.len());
        self.bytes
            .extend_from_slice(&chunk[..chunk.len().min(room)]);
        self.dropped += chunk.len().saturating_sub(room);
    }

    pub fn finish(mut self) -> Vec<u8> {
        if self.dropped > 0 {
            self.bytes.extend_from_slice(
                format!(
                    "\n[evootter] log truncated: {} more bytes dropped\n",
                    self.dropped
                )
                .as_bytes(),
            );
        }
        self.bytes
    }
}

/// What a run did beyond its output: changes to its working copy (undone), writes outside it
/// that were undone (a container's memory file systems), and what the sandbox refused.
#[derive(Debug, Default)]
pub struct Changes {
    pub copy: Vec<String>,
    pub outside: Vec<String>,
    pub denied: Vec<String>,
}

/// What a run that ended (not killed at its timeout) left behind.
pub struct Finished {
    pub raw_log: String,
    pub exit_code: Option<i32>,
    pub report: JunitReport,
    pub changes: Changes,
    pub duration: Duration,
}

/// The result of a run that ended: the junit report is the source of truth, checked against
/// the log (XPASS) and the exit code; what evootter saw is part of the log.
pub fn finished_result(run: Finished, roots: &[(String, &'static str)]) -> ExecResult {
    let Finished {
        mut raw_log,
        exit_code,
        mut report,
        changes,
        duration,
    } = run;
    // A test may print a secret it found (a key in a file it was given): the log is stored
    // and shown to the model, so what evootter holds as secret never enters it.
    crate::secrets::redact_string(&mut raw_log);
    if let Some(e) = &mut report.exception {
        crate::secrets::redact_string(e);
    }
    refine_with_log(&mut report, &raw_log);
    let outcome = reconcile_exit_code(report.outcome, exit_code);
    // A test that vandalizes its copy, or that the sandbox stopped, shows it wherever its log
    // is read.
    append_notices(&mut raw_log, &changes);
    ExecResult {
        outcome,
        failure_kind: report.failure_kind.filter(|_| outcome == Outcome::Failed),
        exception: report.exception,
        exit_code,
        normalized_log: normalize_log(&raw_log, roots),
        raw_log,
        status_map: report.status_map,
        counts: report.counts,
        duration,
        changed: changes.copy,
        changed_outside: changes.outside,
        denied: changes.denied,
        trace: None,
        trace_by_test: None,
        coverage: None,
    }
}

/// The result of a run killed at its timeout: the log ends with the marker line, and the
/// normalized log is only the marker (how far a hanging test got before the kill is timing).
pub fn timeout_result(
    mut raw_log: String,
    timeout: Duration,
    duration: Duration,
    changes: Changes,
) -> ExecResult {
    if !raw_log.is_empty() && !raw_log.ends_with('\n') {
        raw_log.push('\n');
    }
    let marker = format!("{TIMEOUT_MARKER} {}s\n", timeout.as_secs_f64());
    raw_log.push_str(&marker);
    crate::secrets::redact_string(&mut raw_log);
    ExecResult {
        outcome: Outcome::Timeout,
        failure_kind: None,
        exception: None,
        exit_code: None,
        normalized_log: normalize_log(&marker, &[]),
        raw_log,
        status_map: BTreeMap::new(),
        counts: TestCounts::default(),
        duration,
        changed: changes.copy,
        changed_outside: changes.outside,
        denied: changes.denied,
        trace: None,
        trace_by_test: None,
        coverage: None,
    }
}

/// The lines that end a log whose run changed its working copy, wrote outside it, or hit
/// the sandbox.
pub fn append_notices(raw_log: &mut String, changes: &Changes) {
    let Changes {
        copy,
        outside,
        denied,
    } = changes;
    if copy.is_empty() && outside.is_empty() && denied.is_empty() {
        return;
    }
    if !raw_log.is_empty() && !raw_log.ends_with('\n') {
        raw_log.push('\n');
    }
    if !copy.is_empty() {
        raw_log.push_str(&format!(
            "{NOTICE_PREFIX} this run changed its working copy (undone before the next run): {}\n",
            copy.join(", ")
        ));
    }
    if !outside.is_empty() {
        raw_log.push_str(&format!(
            "{NOTICE_PREFIX} this run wrote outside its working copy (removed before the next \
             run): {}\n",
            outside.join(", ")
        ));
    }
    for d in denied {
        raw_log.push_str(&format!("{NOTICE_PREFIX} {d}\n"));
    }
}

/// Fills `result`'s `trace` (and, for a coverage-traced run, its `coverage`) from what the
/// tracer wrote: a JSON list of line numbers per traced file, in the order of `traced`; or,
/// from a run traced with `Tracer::Coverage`, an object naming the tool with one entry per
/// file (coverage.py's reading of it, or the line tracer's lines where coverage.py was
/// missing). Nothing is set from output that does not fit `traced`.
pub fn read_trace(result: &mut ExecResult, bytes: &[u8], traced: &[String]) {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Entry {
        Lines(Vec<u32>),
        Measured {
            statements: Vec<u32>,
            executed: Vec<u32>,
            missing: String,
        },
        Unreadable(()),
    }
    #[derive(serde::Deserialize)]
    struct Report {
        tool: String,
        #[serde(default)]
        why: Option<String>,
        files: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct PerTest {
        lines: Vec<Vec<u32>>,
        tests: std::collections::BTreeMap<String, Vec<Vec<u32>>>,
    }
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Written {
        Lines(Vec<Vec<u32>>),
        PerTest(PerTest),
        Report(Report),
    }
    let Ok(written) = serde_json::from_slice::<Written>(bytes) else {
        return;
    };
    let (entries, tool) = match written {
        Written::Lines(l) => (l.into_iter().map(Entry::Lines).collect::<Vec<_>>(), None),
        Written::PerTest(p) => {
            let by_test = p
                .tests
                .into_iter()
                .filter(|(_, files)| files.len() == traced.len())
                .map(|(id, files)| (id, traced.iter().cloned().zip(files).collect()))
                .collect();
            result.trace_by_test = Some(by_test);
            (p.lines.into_iter().map(Entry::Lines).collect(), None)
        }
        Written::Report(r) => (r.files, Some((r.tool, r.why))),
    };
    if entries.len() != traced.len() {
        return;
    }
    let mut lines = std::collections::BTreeMap::new();
    let mut files = std::collections::BTreeMap::new();
    for (file, e) in traced.iter().zip(entries) {
        match e {
            Entry::Lines(l) => {
                lines.insert(file.clone(), l);
            }
            Entry::Measured {
                statements,
                executed,
                missing,
            } => {
                lines.insert(file.clone(), executed);
                files.insert(
                    file.clone(),
                    crate::exec::FileCoverage {
                        statements,
                        missing,
                    },
                );
            }
            // coverage.py could not analyse it (the file is not there): nothing ran of it.
            Entry::Unreadable(()) => {
                lines.insert(file.clone(), vec![]);
            }
        }
    }
    result.trace = Some(lines);
    result.coverage = tool.map(|(tool, why)| crate::exec::Coverage { tool, why, files });
}

/// The tracer plugin's source as staged for `tracer`: one line of it says which tool measures.
pub fn tracer_plugin(tracer: crate::exec::Tracer) -> String {
    match tracer {
        crate::exec::Tracer::Lines => LINE_TRACER.to_string(),
        crate::exec::Tracer::Coverage => {
            LINE_TRACER.replacen("\n_TOOL = \"lines\"\n", "\n_TOOL = \"coverage\"\n", 1)
        }
    }
}

/// Only plain relative paths below the copy: no `..`, no absolute paths, no empty names.
/// Returns the path with `./` parts dropped, `/`-separated, as pytest and node ids spell it.
pub fn checked_rel_path(rel: &str) -> Result<String, crate::exec::ExecError> {
    use std::path::Component;
    let parts: Option<Vec<&str>> = Path::new(rel)
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    let clean = parts.map(|p| p.join("/")).unwrap_or_default();
    // A leading `-` would reach pytest as an option.
    if !clean.is_empty() && !clean.starts_with('-') {
        Ok(clean)
    } else {
        Err(crate::exec::ExecError::Other(format!(
            "file path `{rel}` must be relative to the repository root and stay inside it"
        )))
    }
}

/// What an execution puts into its copy: the test, the overrides, the tracer when traced,
/// and the files it removes, all checked to stay inside the copy.
pub fn staged_files(
    req: &crate::exec::ExecRequest,
) -> Result<(String, Staged, Vec<String>), crate::exec::ExecError> {
    let test_rel = checked_rel_path(&req.test.rel_path)?;
    let mut staged = Staged::default();
    staged
        .files
        .insert(test_rel.clone(), req.test.content.clone().into_bytes());
    for f in &req.overrides {
        staged.files.insert(
            checked_rel_path(&f.rel_path)?,
            f.content.clone().into_bytes(),
        );
    }
    for rel in &req.removed {
        staged.removed.insert(checked_rel_path(rel)?);
    }
    let mut traced = req
        .trace
        .iter()
        .map(|r| checked_rel_path(r))
        .collect::<Result<Vec<_>, _>>()?;
    traced.sort();
    traced.dedup();
    if !traced.is_empty() {
        // The tracer is a pytest plugin that exists in this run's copy only.
        staged.files.insert(
            TRACE_PLUGIN.to_string(),
            tracer_plugin(req.tracer).into_bytes(),
        );
    }
    Ok((test_rel, staged, traced))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_and_environment_point_into_the_run_directory() {
        let dirs = RunDirs {
            copy: "/testbed".into(),
            scratch: "/tmp/evootter".into(),
        };
        let args = pytest_args(&dirs, "tests/test_x.py", true, &[], false);
        assert_eq!(&args[..4], ["-B", "-m", "pytest", "tests/test_x.py"]);
        assert!(args.contains(&"--basetemp=/tmp/evootter/run/basetemp".to_owned()));
        assert!(args.contains(&"--junitxml=/tmp/evootter/run/junit.xml".to_owned()));
        assert_eq!(args[args.len() - 2..], ["-p", "evootter_line_trace"]);
        // Some of a module's tests, stopping at the first that fails: a witness on a mutant.
        let some = pytest_args(&dirs, "tests/test_x.py", false, &["C::t[1]".into()], true);
        assert_eq!(
            &some[..4],
            ["-B", "-m", "pytest", "tests/test_x.py::C::t[1]"]
        );
        assert!(some.contains(&"-x".to_owned()));
        let env: BTreeMap<_, _> = environment(
            &dirs,
            &["src".into(), ".".into()],
            None,
            &["pkg/m.py".into()],
            true,
        )
        .into_iter()
        .collect();
        assert_eq!(env["PYTHONPATH"], "/testbed:/testbed/src");
        assert_eq!(env["HOME"], "/tmp/evootter/run/home");
        assert_eq!(env["TMPDIR"], "/tmp/evootter/run/tmp");
        assert_eq!(env["EVOOTTER_TRACE_TARGET"], "/testbed/pkg/m.py");
        assert_eq!(env["EVOOTTER_TRACE_PER_TEST"], "1");
        assert!(!env.contains_key("PYTHONUSERBASE"));
    }

    #[test]
    fn log_buffer_keeps_the_cap_and_says_what_it_dropped() {
        let mut b = LogBuffer::default();
        b.push(&vec![b'x'; MAX_LOG_BYTES - 1]);
        b.push(b"abc");
        let out = b.finish();
        assert!(out.ends_with(b"log truncated: 2 more bytes dropped\n"));
    }

    #[test]
    fn the_staged_tracer_names_its_tool_and_both_outputs_read_back() {
        let lines = tracer_plugin(crate::exec::Tracer::Lines);
        let cov = tracer_plugin(crate::exec::Tracer::Coverage);
        assert!(lines.contains("\n_TOOL = \"lines\"\n"));
        assert!(cov.contains("\n_TOOL = \"coverage\"\n") && !cov.contains("_TOOL = \"lines\""));

        let traced = ["a.py".to_string(), "b.py".to_string()];
        let mut r = crate::exec::scripted::result(Outcome::Passed, "");
        read_trace(&mut r, b"[[1, 2], []]", &traced);
        assert_eq!(r.lines_of("a.py"), Some(&[1, 2][..]));
        assert_eq!(r.coverage, None);

        let mut r = crate::exec::scripted::result(Outcome::Passed, "");
        let written = br#"{"tool": "coverage 7.1", "files": [
            {"statements": [1, 2, 5], "executed": [1, 5], "missing": "2"}, null]}"#;
        read_trace(&mut r, written, &traced);
        assert_eq!(r.lines_of("a.py"), Some(&[1, 5][..]));
        assert_eq!(r.lines_of("b.py"), Some(&[][..]));
        let c = r.coverage.unwrap();
        assert_eq!(c.tool, "coverage 7.1");
        assert_eq!(c.files["a.py"].missing, "2");
        assert!(!c.files.contains_key("b.py"));

        // Output that does not fit the traced files is not read.
        let mut r = crate::exec::scripted::result(Outcome::Passed, "");
        read_trace(&mut r, b"[[1]]", &traced);
        assert_eq!(r.trace, None);
    }
}
