//! Batch throughput: the same two-instance batch (bundled examples as SWE-bench rows, the
//! model's part scripted, real pytest) run one instance at a time and two at a time, each
//! instance on one worker, measured in the same run and reported as a ratio.
//!
//! `cargo bench --bench batch`.

#[path = "../tests/common/bench_rows.rs"]
mod bench_rows;

use std::path::Path;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    std::fs::create_dir_all(&repos).unwrap();
    let mut lines = vec![];
    for name in ["envconf_errors", "pagekit_orphans"] {
        let ex = root.join("examples").join(name);
        let commit = bench_rows::mirror(&ex, &repos);
        lines.push(bench_rows::row(&ex, &commit).to_string());
    }
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, lines.join("\n") + "\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_evootter");
    let mut times = vec![];
    for parallel in ["1", "2"] {
        let out = dir.path().join(format!("out-{parallel}"));
        let started = Instant::now();
        let o = std::process::Command::new(bin)
            .args([
                "bench",
                "--jobs",
                "1",
                "--parallel",
                parallel,
                "--instances",
            ])
            .arg(&rows)
            .arg("--repos")
            .arg(&repos)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        times.push(started.elapsed());
    }
    println!(
        "batch of 2 instances, 1 worker each: one at a time {:.1} s, two at a time {:.1} s ({:.2}x throughput)",
        times[0].as_secs_f64(),
        times[1].as_secs_f64(),
        times[0].as_secs_f64() / times[1].as_secs_f64()
    );
}
