//! Tests that end every execution of their process (`exec::kill_all_running`, what Ctrl-C
//! does): in a binary of their own, since in the shared one they would end other tests' runs
//! too.

mod common;
use common::docker::*;
use common::exec::request;
use common::*;
use evootter::exec::{DockerExecutor, Executor, Outcome};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_ends_the_runs_in_containers() {
    if !docker_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let d = Arc::new(
        DockerExecutor::new(docker_cfg(&repo, vec![".".into()], 1))
            .await
            .unwrap(),
    );
    let hang =
        "import time\n\ndef test_hang():\n    print('started', flush=True)\n    time.sleep(600)\n";
    let started = Instant::now();
    let run = {
        let d = d.clone();
        tokio::spawn(async move {
            d.run(request("tests/test_hang.py", hang, Duration::from_secs(60)))
                .await
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    tokio::task::spawn_blocking(evootter::exec::kill_all_running)
        .await
        .unwrap();
    let r = run.await.unwrap().unwrap();
    assert_ne!(r.outcome, Outcome::Timeout, "{}", r.raw_log);
    assert!(started.elapsed() < Duration::from_secs(10));
    let (_, container) = d.container(0).await.unwrap();
    assert_eq!(container_processes(&container), Vec::<String>::new());
    d.shutdown().await;
}
