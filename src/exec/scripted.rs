//! An executor without Python, as the scripted model is a model without a network: each
//! request is answered by a function of the request, at once. For testing drivers and views
//! (the workbench, the TUI's reducer) on exact, instant results; never used by a real run.

use crate::exec::normalize::normalize_log;
use crate::exec::types::{
    BoxFuture, ExecError, ExecRequest, ExecResult, Executor, FailureKind, Outcome, TestCounts,
};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

type Answer = dyn Fn(&ExecRequest) -> ExecResult + Send + Sync;

pub struct ScriptedExecutor {
    answer: Box<Answer>,
    parallelism: usize,
    /// Every request answered, in order.
    seen: Mutex<Vec<ExecRequest>>,
}

impl ScriptedExecutor {
    pub fn new(answer: impl Fn(&ExecRequest) -> ExecResult + Send + Sync + 'static) -> Self {
        Self {
            answer: Box::new(answer),
            parallelism: 2,
            seen: Mutex::new(vec![]),
        }
    }

    /// The requests answered so far, in order.
    pub fn requests(&self) -> Vec<ExecRequest> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// A result as pytest would report a one-test module: `outcome`, with `log` as its output.
pub fn result(outcome: Outcome, log: &str) -> ExecResult {
    let counts = TestCounts {
        passed: u32::from(outcome == Outcome::Passed),
        failed: u32::from(outcome == Outcome::Failed),
        errors: u32::from(outcome == Outcome::Error),
        skipped: 0,
    };
    let status = match outcome {
        Outcome::Passed => "PASSED",
        Outcome::Failed => "FAILED",
        Outcome::Error | Outcome::Timeout => "ERROR",
    };
    ExecResult {
        outcome,
        failure_kind: (outcome == Outcome::Failed).then_some(FailureKind::Assertion),
        exception: (outcome == Outcome::Failed).then(|| "AssertionError".to_string()),
        exit_code: match outcome {
            Outcome::Passed => Some(0),
            Outcome::Failed => Some(1),
            Outcome::Error => Some(2),
            Outcome::Timeout => None,
        },
        raw_log: log.to_string(),
        normalized_log: normalize_log(log, &[]),
        status_map: BTreeMap::from([("test_scripted".to_string(), status.to_string())]),
        counts,
        duration: Duration::from_millis(10),
        changed: vec![],
        changed_outside: vec![],
        denied: vec![],
        trace: None,
        trace_by_test: None,
        coverage: None,
    }
}

impl Executor for ScriptedExecutor {
    fn run(&self, req: ExecRequest) -> BoxFuture<'_, Result<ExecResult, ExecError>> {
        let r = (self.answer)(&req);
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(req);
        Box::pin(async move { Ok(r) })
    }

    fn parallelism(&self) -> usize {
        self.parallelism
    }

    fn describe(&self) -> String {
        "scripted executor (no Python)".to_string()
    }
}
