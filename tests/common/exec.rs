//! Executions and runs compared across executors and backends: one request, every request
//! at once, and what a finished session decided.
#![allow(dead_code)]

use evootter::exec::{ExecRequest, ExecResult, Executor, LocalConfig, LocalExecutor, Wanted};
use std::path::Path;
use std::sync::Arc;

/// A local executor of `jobs` workers on `repo` with `python`, default isolation.
pub fn executor_with(
    python: &Path,
    repo: &Path,
    pythonpath: Vec<String>,
    jobs: usize,
    warm: bool,
) -> LocalExecutor {
    LocalExecutor::new(LocalConfig {
        repo: repo.to_path_buf(),
        python: python.to_path_buf(),
        pythonpath,
        jobs,
        isolation: Wanted::default(),
        warm,
        pass_env: vec![],
    })
    .unwrap()
}

pub use evootter::testkit::request;

/// Runs every request at once (the executor queues them on its workers), in order.
pub async fn run_all(exec: Arc<dyn Executor>, requests: &[ExecRequest]) -> Vec<ExecResult> {
    let handles: Vec<_> = requests
        .iter()
        .cloned()
        .map(|r| {
            let exec = exec.clone();
            tokio::spawn(async move { exec.run(r).await })
        })
        .collect();
    let mut out = vec![];
    for h in handles {
        out.push(h.await.unwrap().unwrap());
    }
    out
}

/// What a finished session decided, without what differs between machines (timings, pids,
/// paths, raw logs that name the interpreter): every generation's ranking and cut, the final
/// test, the F2P evaluation, and every execution's outcome, normalized log and statuses.
pub fn decisions(session: &Path) -> serde_json::Value {
    let s = super::read_json(session);
    let executions: serde_json::Map<String, serde_json::Value> = s["executions"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, e)| {
            (
                k.clone(),
                serde_json::json!([e["outcome"], e["normalized_log"], e["status_map"]]),
            )
        })
        .collect();
    serde_json::json!({
        "generations": s["generations"],
        "final_test": s["final_test"],
        "evaluation": s["evaluation"],
        "executions": executions,
    })
}
