//! Executor benchmark: per-execution cost of the local executor, which keeps one working copy
//! per worker and swaps only the mutated file, against the baseline of copying the repository
//! for every execution. Both are measured in the same run, on the same machine state, and
//! reported as a ratio (these machines are noisy; absolute times are not comparable).
//!
//! `cargo bench --bench executor [-- ROUNDS]`. Two repositories: a bundled example as it is,
//! and the same example padded with 3,000 small files (a mid-sized project's checkout).

use evootter::exec::{ExecRequest, Executor, FileOverride, LocalConfig, LocalExecutor};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn copy_dir(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp");
    assert!(status.success());
}

fn requests(repo: &Path, rounds: usize) -> Vec<ExecRequest> {
    let focal = "pagekit/paginator.py";
    let original = std::fs::read_to_string(repo.join(focal)).unwrap();
    let test = std::fs::read_to_string(
        repo.parent()
            .unwrap()
            .join("candidates/test_last_page_absorbs_orphans.py"),
    )
    .unwrap();
    (0..rounds)
        .map(|i| ExecRequest {
            test: FileOverride {
                rel_path: "tests/test_bench.py".into(),
                content: test.clone(),
            },
            // Alternate c_old and a real mutant (the fix-like relational swap).
            overrides: if i % 2 == 0 {
                vec![]
            } else {
                vec![FileOverride {
                    rel_path: focal.into(),
                    content: original.replacen("> self.count", ">= self.count", 1),
                }]
            },
            removed: vec![],
            timeout: Duration::from_secs(60),
        })
        .collect()
}

fn config(repo: &Path) -> LocalConfig {
    LocalConfig {
        repo: repo.to_path_buf(),
        python: PathBuf::from("python3"),
        pythonpath: vec![".".into()],
        jobs: 1,
    }
}

async fn reused(repo: &Path, reqs: &[ExecRequest]) -> Duration {
    let started = Instant::now();
    let ex = LocalExecutor::new(config(repo)).unwrap();
    for r in reqs {
        ex.run(r.clone()).await.unwrap();
    }
    started.elapsed()
}

async fn copy_each(repo: &Path, reqs: &[ExecRequest]) -> Duration {
    let started = Instant::now();
    for r in reqs {
        let ex = LocalExecutor::new(config(repo)).unwrap();
        ex.run(r.clone()).await.unwrap();
    }
    started.elapsed()
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(12);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pagekit_orphans");
    let scratch = tempfile::tempdir().unwrap();
    let small = scratch.path().join("small");
    std::fs::create_dir(&small).unwrap();
    copy_dir(&example.join("repo"), &small.join("repo"));
    copy_dir(&example.join("candidates"), &small.join("candidates"));
    let large = scratch.path().join("large");
    std::fs::create_dir(&large).unwrap();
    copy_dir(&example.join("repo"), &large.join("repo"));
    copy_dir(&example.join("candidates"), &large.join("candidates"));
    for d in 0..30 {
        let dir = large.join(format!("repo/docs/section{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("page{f}.txt")), "lorem ipsum ".repeat(200)).unwrap();
        }
    }
    println!("executor benchmark: {rounds} executions per measurement, 1 worker");
    println!(
        "{:<28} {:>12} {:>12} {:>8}",
        "repository", "reused copy", "copy each", "ratio"
    );
    for (name, dir) in [
        ("example (20 files)", &small),
        ("example + 3000 files", &large),
    ] {
        let repo = dir.join("repo");
        let reqs = requests(&repo, rounds);
        // Warm the page cache and Python's imports once, untimed.
        rt.block_on(reused(&repo, &reqs[..1]));
        let a = rt.block_on(reused(&repo, &reqs));
        let b = rt.block_on(copy_each(&repo, &reqs));
        let per = |d: Duration| d.as_secs_f64() * 1000.0 / rounds as f64;
        println!(
            "{:<28} {:>9.0} ms {:>9.0} ms {:>7.2}x",
            name,
            per(a),
            per(b),
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
}
