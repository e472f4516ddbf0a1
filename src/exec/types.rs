//! What an execution is asked to do and what it reports. Every executor (local cold, local
//! warm, Docker, scripted) speaks these types, so the engine never knows where pytest ran.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// How one pytest run of one candidate test module ended, read from the junit XML report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every collected test passed (skips allowed, at least one test ran).
    Passed,
    /// At least one test failed (a `<failure>` in the junit report) and none errored.
    Failed,
    /// Collection error, import error, fixture error, no tests collected, pytest crashed, or
    /// no junit report written.
    Error,
    /// Killed at the execution's timeout.
    Timeout,
}

impl Outcome {
    /// The outcome as a verb for people: `passes`, `fails`, `errors`, `hangs`.
    pub fn verb(self) -> &'static str {
        match self {
            Outcome::Passed => "passes",
            Outcome::Failed => "fails",
            Outcome::Error => "errors",
            Outcome::Timeout => "hangs",
        }
    }
}

/// Why a failing test failed: the Otter selector (paper IV-A) prefers assertion failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Assertion,
    Other,
}

/// A file placed in (or replaced in) the working copy for one execution; the copy is restored
/// afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOverride {
    /// Relative to the repository root, `/` separators.
    pub rel_path: String,
    pub content: String,
}

#[derive(Debug, Clone)]
pub struct ExecRequest {
    /// The candidate test module; `rel_path` is where it is placed in the copy (for example
    /// `tests/test_issue_repro.py`) and what pytest is pointed at.
    pub test: FileOverride,
    /// Source files replaced for this run: one mutated file for a mutant, none for `c_old`.
    pub overrides: Vec<FileOverride>,
    /// Repository files absent for this run (a golden patch that deletes them).
    pub removed: Vec<String>,
    pub timeout: Duration,
    /// Record which lines of these files (relative to the repository root) run: the result's
    /// `trace`. Empty: no tracing. Executors that cannot trace leave the result's `None`.
    pub trace: Vec<String>,
    /// What traces them: evootter's own line tracer, or coverage.py as the benchmarks'
    /// harnesses measure (scoring only).
    pub tracer: Tracer,
    /// Also trace each test of the module on its own (the result's `trace_by_test`): which
    /// of the repository's tests can judge a mutant.
    pub per_test: bool,
    /// Run only these tests of the module (the part of a node id after the file,
    /// `Class::test[param]`); empty: all of it.
    pub select: Vec<String>,
    /// Stop at the first test that fails (`pytest -x`): enough to know a mutant breaks one.
    pub stop_at_first_failure: bool,
}

/// The tool a traced run measures its lines with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Tracer {
    /// evootter's line tracer (`sys.monitoring` on 3.12+, `sys.settrace` before), restricted
    /// to the traced files; no dependency.
    #[default]
    Lines,
    /// coverage.py with branch coverage, started as `coverage run` starts it; the line tracer
    /// where coverage.py cannot be imported (the result's `coverage` says so).
    Coverage,
}

/// What coverage.py (or, where it is missing, the line tracer) measured in a run asked to
/// trace with `Tracer::Coverage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// `coverage 7.6.1`, or `evootter line tracer` when coverage.py was not importable.
    pub tool: String,
    /// Why the line tracer measured instead of coverage.py.
    #[serde(default)]
    pub why: Option<String>,
    /// Per traced file, coverage.py's own reading of it (absent: the line tracer measured, or
    /// coverage.py could not analyse the file).
    pub files: BTreeMap<String, FileCoverage>,
}

/// One file as `coverage report -m` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileCoverage {
    /// The file's statements (first lines of executable statements).
    pub statements: Vec<u32>,
    /// The report's "Missing" column: statements that did not run, as ranges over the
    /// statements (`7-9`), and partial branches (`12->15`, `3->exit`).
    pub missing: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCounts {
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub skipped: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecResult {
    pub outcome: Outcome,
    /// Set when `outcome` is `Failed`.
    pub failure_kind: Option<FailureKind>,
    /// The exception type of the first failure or error, when the report names it
    /// (`AssertionError`, `ZeroDivisionError`, `ModuleNotFoundError`).
    pub exception: Option<String>,
    pub exit_code: Option<i32>,
    /// Everything pytest wrote (stdout and stderr, in order).
    pub raw_log: String,
    /// `raw_log` after `normalize::normalize_log`; kills compare these.
    pub normalized_log: String,
    /// Per test node id: PASSED / FAILED / ERROR / SKIPPED / XFAIL / XPASS, from the junit report.
    pub status_map: BTreeMap<String, String>,
    pub counts: TestCounts,
    pub duration: Duration,
    /// What the test changed in its working copy (`modified pkg/mod.py`, `deleted x/`), all
    /// of it undone before the next run.
    #[serde(default)]
    pub changed: Vec<String>,
    /// What it wrote outside its working copy that was removed after it (a container's
    /// memory file systems: /tmp, /var/tmp, /run, /dev/shm).
    #[serde(default)]
    pub changed_outside: Vec<String>,
    /// Sandbox refusals the log shows (no network, a write outside the copy).
    #[serde(default)]
    pub denied: Vec<String>,
    /// The lines of each traced file that ran (a file none of whose lines ran maps to an
    /// empty list), when the request asked for a trace and the tracer could write it (a run
    /// killed at its timeout has none).
    #[serde(default)]
    pub trace: Option<std::collections::BTreeMap<String, Vec<u32>>>,
    /// Set when the request traced with `Tracer::Coverage` and the tracer wrote its report.
    #[serde(default)]
    pub coverage: Option<Coverage>,
    /// Per test (node id), the lines of each traced file its setup, call and teardown ran,
    /// when the request asked for `per_test`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_by_test: Option<BTreeMap<String, BTreeMap<String, Vec<u32>>>>,
}

impl ExecResult {
    /// The lines of `file` that ran, if the run traced it.
    pub fn lines_of(&self, file: &str) -> Option<&[u32]> {
        self.trace.as_ref()?.get(file).map(Vec::as_slice)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("could not prepare the working copy {path}: {source}")]
    WorkingCopy {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "could not start `{python}`: {source}. Pass --python with an interpreter that has pytest installed"
    )]
    Spawn {
        python: String,
        #[source]
        source: std::io::Error,
    },
    /// A backend's own failure (the Docker daemon, its images, its containers), said in the
    /// backend's words; the shared parts never need to know which backend it was.
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
    #[error("{0}")]
    Other(String),
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs one candidate test module with pytest, against `c_old` or a mutant, in isolation.
pub trait Executor: Send + Sync {
    fn run(&self, req: ExecRequest) -> BoxFuture<'_, Result<ExecResult, ExecError>>;
    /// How many executions may run at once.
    fn parallelism(&self) -> usize;
    /// One line for progress output and the session, e.g. `local: 2 workers, python 3.11.7`.
    fn describe(&self) -> String;
    /// Protections asked for that this machine could not give, each with why.
    fn notes(&self) -> Vec<String> {
        vec![]
    }
    /// Gets ready for the first execution without running one (the warm executor starts
    /// its interpreters), for a driver to do while steps that execute nothing (the model's
    /// calls, a user reading the screen) are under way. Nothing is reported here: an
    /// execution that needs what failed to start tries again and reports it.
    fn prepare(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}
