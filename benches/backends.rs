//! Per-execution cost of each way evootter runs pytest, measured in one run on the bundled
//! examples and reported as ratios against the cold local backend (these machines are noisy;
//! absolute times are not comparable between runs):
//!
//! - `cold`: the local backend with a fresh `python -m pytest` per execution (sealed, reaped,
//!   sandboxed);
//! - `warm`: the local backend forking a warm interpreter per execution (`exec::warm`), same
//!   protections;
//! - `docker`: the Docker backend, one long-lived container, image `EVOOTTER_TEST_IMAGE`
//!   (default `evootter-python:bookworm`, built by `.ci/docker`); skipped without a daemon.
//!
//! For every example, each candidate test runs on `c_old` and on one mutant; the backends'
//! executions are interleaved request by request, one worker each, and medians compared.
//! `cargo bench --bench backends [-- ROUNDS]` (rounds over the example's requests, default 2).

use evootter::exec::{
    DockerConfig, DockerExecutor, ExecRequest, Executor, FileOverride, LocalConfig, LocalExecutor,
    Wanted,
};
use evootter::instance::Instance;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("instance.toml").is_file())
        .collect();
    v.sort();
    v
}

/// Each candidate on c_old and on the pool's first mutant.
fn requests(inst: &Instance) -> Vec<ExecRequest> {
    let pool = evootter::mutate::generate(&inst.repo, &inst.focal, 4, 1).unwrap();
    let m = &pool.mutants[0];
    let original = std::fs::read_to_string(inst.repo.join(&m.file)).unwrap();
    let mutant = FileOverride {
        rel_path: m.file.clone(),
        content: m.apply(&original),
    };
    let dir = inst.initial_tests.clone().unwrap();
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    tests.sort();
    let test_dir = inst.test_dir.clone().unwrap_or_else(|| "tests".into());
    let mut out = vec![];
    for t in &tests {
        for overrides in [vec![], vec![mutant.clone()]] {
            out.push(ExecRequest {
                test: FileOverride {
                    rel_path: format!("{test_dir}/{}", t.file_name().unwrap().to_string_lossy()),
                    content: std::fs::read_to_string(t).unwrap(),
                },
                overrides,
                removed: vec![],
                timeout: Duration::from_secs(60),
                trace: None,
            });
        }
    }
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn docker_available(image: &str) -> bool {
    std::process::Command::new("docker")
        .args(["image", "inspect", image])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2);
    let image =
        std::env::var("EVOOTTER_TEST_IMAGE").unwrap_or_else(|_| "evootter-python:bookworm".into());
    let docker = docker_available(&image);
    let python = evootter::exec::resolve_python(Some(Path::new("/usr/bin/python3")))
        .or_else(|_| evootter::exec::resolve_python(None))
        .expect("python3 with pytest")
        .path;
    let rt = tokio::runtime::Runtime::new().unwrap();
    println!(
        "backends benchmark: median per execution, 1 worker each, {rounds} rounds; python {}{}",
        python.display(),
        if docker {
            format!(", image {image}")
        } else {
            String::from(" (no Docker daemon or image: docker skipped)")
        }
    );
    println!(
        "{:<22} {:>5} {:>10} {:>10} {:>12} {:>10} {:>8}",
        "example", "runs", "cold", "warm", "warm speedup", "docker", "ratio"
    );
    let (mut all_local, mut all_warm, mut all_docker) = (vec![], vec![], vec![]);
    for ex in examples() {
        let inst = Instance::load(&ex).unwrap();
        let pythonpath = inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]);
        let reqs = requests(&inst);
        let local_with = |warm: bool| -> Arc<dyn Executor> {
            Arc::new(
                LocalExecutor::new(LocalConfig {
                    repo: inst.repo.clone(),
                    python: python.clone(),
                    pythonpath: pythonpath.clone(),
                    jobs: 1,
                    isolation: Wanted::default(),
                    warm,
                })
                .unwrap(),
            )
        };
        let local = local_with(false);
        let warm = local_with(true);
        let dock: Option<Arc<dyn Executor>> = docker.then(|| {
            let d = rt
                .block_on(DockerExecutor::new(DockerConfig {
                    image: image.clone(),
                    jobs: 1,
                    pythonpath: pythonpath.clone(),
                    repo: inst.repo.clone(),
                    ..Default::default()
                }))
                .unwrap();
            Arc::new(d) as Arc<dyn Executor>
        });
        // One untimed run each: page cache, imports, the container's first exec.
        rt.block_on(local.run(reqs[0].clone())).unwrap();
        rt.block_on(warm.run(reqs[0].clone())).unwrap();
        if let Some(d) = &dock {
            rt.block_on(d.run(reqs[0].clone())).unwrap();
        }
        let (mut l, mut wm, mut d) = (vec![], vec![], vec![]);
        for _ in 0..rounds {
            for r in &reqs {
                let t = Instant::now();
                rt.block_on(local.run(r.clone())).unwrap();
                l.push(t.elapsed());
                let t = Instant::now();
                rt.block_on(warm.run(r.clone())).unwrap();
                wm.push(t.elapsed());
                if let Some(dk) = &dock {
                    let t = Instant::now();
                    rt.block_on(dk.run(r.clone())).unwrap();
                    d.push(t.elapsed());
                }
            }
        }
        all_local.extend(l.iter().copied());
        all_warm.extend(wm.iter().copied());
        all_docker.extend(d.iter().copied());
        let ml = median(l);
        let mw = median(wm);
        let row = if d.is_empty() {
            format!("{:>10} {:>8}", "-", "-")
        } else {
            let md = median(d);
            format!(
                "{:>7.0} ms {:>7.2}x",
                md.as_secs_f64() * 1000.0,
                md.as_secs_f64() / ml.as_secs_f64()
            )
        };
        println!(
            "{:<22} {:>5} {:>7.0} ms {:>7.0} ms {:>11.2}x {row}",
            inst.name,
            reqs.len() * rounds,
            ml.as_secs_f64() * 1000.0,
            mw.as_secs_f64() * 1000.0,
            ml.as_secs_f64() / mw.as_secs_f64()
        );
        if let Some(d) = dock {
            drop(d);
        }
    }
    let ml = median(all_local);
    let mw = median(all_warm);
    let docker = if all_docker.is_empty() {
        format!("{:>10} {:>8}", "-", "-")
    } else {
        let md = median(all_docker);
        format!(
            "{:>7.0} ms {:>7.2}x",
            md.as_secs_f64() * 1000.0,
            md.as_secs_f64() / ml.as_secs_f64()
        )
    };
    println!(
        "{:<22} {:>5} {:>7.0} ms {:>7.0} ms {:>11.2}x {docker}",
        "all",
        "",
        ml.as_secs_f64() * 1000.0,
        mw.as_secs_f64() * 1000.0,
        ml.as_secs_f64() / mw.as_secs_f64()
    );
}
