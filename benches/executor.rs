//! Executor benchmark, two tables, each measured in one run on the same machine state and
//! reported as ratios (these machines are noisy; absolute times are not comparable):
//!
//! 1. What sealing and the sandbox cost per execution: bare `python -m pytest` in a prepared
//!    copy (no evootter at all) against the executor with only the portable fallbacks
//!    (rescan sealing, subreaper), with namespaces (overlay, pid namespace) but no sandbox,
//!    and with everything (plus network namespace and Landlock). Executions of the four are
//!    interleaved, and medians compared.
//! 2. Reusing the base copy against copying the repository for every execution.
//!
//! `cargo bench --bench executor [-- ROUNDS]`. Two repositories: a bundled example as it is,
//! and the same example padded with 3,000 small files (a mid-sized project's checkout).

use evootter::exec::{ExecRequest, Executor, FileOverride, LocalConfig, LocalExecutor, Wanted};
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
            trace: vec![],
            tracer: Default::default(),
            per_test: false,
            select: vec![],
            stop_at_first_failure: false,
        })
        .collect()
}

fn python() -> PathBuf {
    evootter::exec::resolve_python(None)
        .expect("python3 with pytest")
        .path
}

fn config(repo: &Path) -> LocalConfig {
    config_with(repo, Wanted::default())
}

fn config_with(repo: &Path, isolation: Wanted) -> LocalConfig {
    LocalConfig {
        repo: repo.to_path_buf(),
        python: python(),
        pythonpath: vec![".".into()],
        jobs: 1,
        isolation,
        warm: false,
        pass_env: vec![],
    }
}

/// One execution without evootter: the same pytest command in a plain copy, the candidate
/// (and mutant) written in and put back around it.
fn bare_run(copy: &Path, python: &Path, req: &ExecRequest) -> Duration {
    let originals: Vec<(PathBuf, Option<Vec<u8>>)> = std::iter::once(&req.test)
        .chain(&req.overrides)
        .map(|f| {
            let p = copy.join(&f.rel_path);
            let before = std::fs::read(&p).ok();
            std::fs::write(&p, &f.content).unwrap();
            (p, before)
        })
        .collect();
    let started = Instant::now();
    let status = std::process::Command::new(python)
        .args(["-B", "-m", "pytest", &req.test.rel_path])
        .args(["-p", "no:cacheprovider", "--no-header", "-rA", "--tb=short"])
        .current_dir(copy)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONPATH", copy)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    let took = started.elapsed();
    assert!(status.code().is_some());
    for (p, before) in originals {
        match before {
            Some(b) => std::fs::write(p, b).unwrap(),
            None => std::fs::remove_file(p).unwrap(),
        }
    }
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Table 1 for one repository: per-execution medians, in ms.
async fn protections(repo: &Path, reqs: &[ExecRequest]) -> Vec<(&'static str, Duration)> {
    let py = python();
    let bare_copy = tempfile::tempdir().unwrap();
    copy_dir(repo, &bare_copy.path().join("repo"));
    let bare_copy = bare_copy.path().join("repo");
    let configs = [
        (
            "fallback: rescan + subreaper",
            Wanted {
                sandbox: false,
                namespaces: false,
            },
        ),
        (
            "overlay + pid namespace",
            Wanted {
                sandbox: false,
                namespaces: true,
            },
        ),
        ("all: + netns + Landlock", Wanted::default()),
    ];
    let executors: Vec<LocalExecutor> = configs
        .iter()
        .map(|(_, w)| LocalExecutor::new(config_with(repo, *w)).unwrap())
        .collect();
    // Warm the page cache and Python's imports once, untimed.
    bare_run(&bare_copy, &py, &reqs[0]);
    for ex in &executors {
        ex.run(reqs[0].clone()).await.unwrap();
    }
    let mut times: Vec<Vec<Duration>> = vec![vec![]; configs.len() + 1];
    for r in reqs {
        times[0].push(bare_run(&bare_copy, &py, r));
        for (i, ex) in executors.iter().enumerate() {
            let started = Instant::now();
            ex.run(r.clone()).await.unwrap();
            times[i + 1].push(started.elapsed());
        }
    }
    let mut out = vec![("bare pytest (no evootter)", median(times[0].clone()))];
    for (i, (name, _)) in configs.iter().enumerate() {
        out.push((*name, median(times[i + 1].clone())));
    }
    out
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
    for (name, dir) in [
        ("example (20 files)", &small),
        ("example + 3000 files", &large),
    ] {
        let repo = dir.join("repo");
        let reqs = requests(&repo, rounds);
        let rows = rt.block_on(protections(&repo, &reqs));
        let bare = rows[0].1;
        println!("\nsealing and sandbox, {name}: median per execution");
        for (label, d) in &rows {
            println!(
                "  {:<32} {:>7.1} ms  {:>5.2}x  {:>+7.1} ms",
                label,
                d.as_secs_f64() * 1000.0,
                d.as_secs_f64() / bare.as_secs_f64(),
                (d.as_secs_f64() - bare.as_secs_f64()) * 1000.0
            );
        }
    }
    println!();
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
