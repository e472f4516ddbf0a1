//! Per-execution cost of each way evootter runs pytest, measured in one run on the bundled
//! examples and reported as ratios against the cold local backend (these machines are noisy;
//! absolute times are not comparable between runs):
//!
//! - `cold`: the local backend with a fresh `python -m pytest` per execution (sealed, reaped,
//!   sandboxed);
//! - `warm`: the local backend forking a warm interpreter per execution (`exec::warm`), same
//!   protections;
//! - `docker`: the Docker backend, one long-lived container, image `EVOOTTER_TEST_IMAGE`
//!   (default `evootter-python:bookworm`, built by `.ci/docker`), cold (a `docker exec` per
//!   step) and warm (the zygote inside the container), each against the local backend of
//!   the same executor; skipped without a daemon.
//!
//! For every example, each candidate test runs on `c_old` and on one mutant; the backends'
//! executions are interleaved request by request, one worker each, and medians compared.
//! A second table is throughput as the engine asks for it: every request of an example at
//! once on two workers, executions per second, cold against warm, with the CPU time an
//! execution costs the machine and evootter's own process, for each interpreter (the
//! one a run picks by default, `python3` on PATH; the executable behind it when that is a
//! launcher script such as a pyenv shim; Debian's `/usr/bin/python3`, the image's). A third
//! is a whole run of every example with each executor (the execute step's executions per
//! second), which also has what the zygote learns from one execution for the next.
//! `cargo bench --bench backends [-- ROUNDS] [TABLE ...] [python=PATH]`: rounds over the
//! example's requests (default 2); the tables to print (`execution`, `throughput`, `runs`,
//! `harness`, `heavy`, `prepare`; default all); the one interpreter for the throughput tables.

use evootter::exec::{
    DockerConfig, DockerExecutor, ExecRequest, Executor, FileOverride, LocalConfig, LocalExecutor,
    Wanted,
};
use evootter::instance::Instance;
use evootter::testkit;
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
    let pool =
        evootter::mutate::generate(&inst.repo, &inst.focal, 4, 1, Default::default()).unwrap();
    let mutant = testkit::mutant_override(&inst.repo, &pool.mutants[0]);
    testkit::requests(inst, &[vec![], vec![mutant]], Duration::from_secs(60))
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

/// CPU time spent so far: by the whole machine (every process, from `/proc/stat`) and by
/// this process (evootter's own harness: staging, supervising, parsing).
fn cpu_now() -> (Duration, Duration) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|t| t.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: busy is user to softirq less idle and
    // iowait (steal is time another virtual machine had).
    let busy: u64 =
        ticks.iter().take(7).sum::<u64>() - ticks.get(3).unwrap_or(&0) - ticks.get(4).unwrap_or(&0);
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (
        Duration::from_millis(busy * 1000 / hz),
        tv(usage.ru_utime) + tv(usage.ru_stime),
    )
}

/// One throughput measure: executions per second, and CPU milliseconds per execution of the
/// machine and of evootter's own process.
struct Rate {
    per_sec: f64,
    cpu_ms: f64,
    own_ms: f64,
}

/// Executions per second of `jobs` workers given every request at once.
fn throughput(rt: &tokio::runtime::Runtime, exec: Arc<dyn Executor>, reqs: &[ExecRequest]) -> Rate {
    let (cpu0, own0) = cpu_now();
    let t = Instant::now();
    rt.block_on(async {
        let handles: Vec<_> = reqs
            .iter()
            .cloned()
            .map(|r| {
                let exec = exec.clone();
                tokio::spawn(async move { exec.run(r).await.unwrap() })
            })
            .collect();
        for h in handles {
            h.await.unwrap();
        }
    });
    let elapsed = t.elapsed();
    let (cpu1, own1) = cpu_now();
    let n = reqs.len() as f64;
    Rate {
        per_sec: n / elapsed.as_secs_f64(),
        cpu_ms: (cpu1 - cpu0).as_secs_f64() * 1000.0 / n,
        own_ms: (own1 - own0).as_secs_f64() * 1000.0 / n,
    }
}

/// The interpreters the throughput tables compare: the one a run picks by default (`python3`
/// on PATH), the executable behind it when that is a launcher script (a pyenv shim starts a
/// shell and pyenv before Python: every cold run pays for it, a warm one once), and Debian's
/// (the Docker image's); or only the one named.
fn interpreters(only: Option<&Path>) -> Vec<PathBuf> {
    let mut pythons = vec![];
    let candidates = match only {
        Some(p) => vec![Some(p.to_path_buf())],
        None => {
            let default = evootter::exec::resolve_python(None).ok().map(|e| e.path);
            let real = default.as_ref().and_then(|p| {
                let o = std::process::Command::new(p)
                    .args(["-c", "import sys; print(sys.executable)"])
                    .output()
                    .ok()?;
                Some(PathBuf::from(String::from_utf8(o.stdout).ok()?.trim()))
            });
            vec![default, real, Some("/usr/bin/python3".into())]
        }
    };
    for p in candidates.into_iter().flatten() {
        if let Ok(env) = evootter::exec::resolve_python(Some(&p))
            && !pythons.contains(&env.path)
        {
            pythons.push(env.path);
        }
    }
    pythons
}

/// A local executor for an example's repository, with its `pythonpath`.
fn local(inst: &Instance, python: &Path, jobs: usize, warm: bool) -> Arc<LocalExecutor> {
    Arc::new(
        LocalExecutor::new(LocalConfig {
            repo: inst.repo.clone(),
            python: python.to_path_buf(),
            pythonpath: inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]),
            jobs,
            isolation: Wanted::default(),
            warm,
            pass_env: vec![],
        })
        .unwrap(),
    )
}

fn throughput_table(rt: &tokio::runtime::Runtime, rounds: usize, only: Option<&Path>) {
    let pythons = interpreters(only);
    println!(
        "\nthroughput, 2 workers, every request at once, {rounds} rounds: executions per second; CPU ms an execution (the machine's, of which evootter's own process)"
    );
    println!(
        "{:<22} {:<40} {:>8} {:>8} {:>8} {:>14} {:>14}",
        "example", "python", "cold", "warm", "ratio", "cpu cold", "cpu warm"
    );
    for python in &pythons {
        let (mut all_cold, mut all_warm) = (0.0, 0.0);
        for ex in examples() {
            let inst = Instance::load(&ex).unwrap();
            let reqs: Vec<ExecRequest> = (0..rounds).flat_map(|_| requests(&inst)).collect();
            let make = |warm: bool| -> Arc<dyn Executor> { local(&inst, python, 2, warm) };
            let (cold, warm) = (make(false), make(true));
            // Untimed: page cache, and the zygotes' start.
            throughput(rt, cold.clone(), &reqs[..2]);
            throughput(rt, warm.clone(), &reqs[..2]);
            let c = throughput(rt, cold, &reqs);
            let w = throughput(rt, warm, &reqs);
            all_cold += 1.0 / c.per_sec;
            all_warm += 1.0 / w.per_sec;
            println!(
                "{:<22} {:<40} {:>8.1} {:>8.1} {:>7.2}x {:>6.1} ({:>5.1}) {:>6.1} ({:>5.1})",
                inst.name,
                python.display().to_string(),
                c.per_sec,
                w.per_sec,
                w.per_sec / c.per_sec,
                c.cpu_ms,
                c.own_ms,
                w.cpu_ms,
                w.own_ms
            );
        }
        println!(
            "{:<22} {:<40} {:>8} {:>8} {:>7.2}x",
            "all (harmonic)",
            python.display().to_string(),
            "",
            "",
            all_cold / all_warm
        );
    }
}

/// A venv with numpy and pytest under `target/`, made once (PyPI must be reachable).
fn numpy_python() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-venvs/numpy");
    let py = venv.join("bin/python");
    let ready = |py: &Path| {
        std::process::Command::new(py)
            .args(["-c", "import numpy, pytest"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if ready(&py) {
        return Some(py);
    }
    println!("(making {} with numpy and pytest)", venv.display());
    let ok = std::process::Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success())
        && std::process::Command::new(&py)
            .args(["-m", "pip", "install", "-q", "numpy", "pytest"])
            .status()
            .is_ok_and(|s| s.success());
    (ok && ready(&py)).then_some(py)
}

/// A repository whose tests import numpy, as a data project's do.
fn numpy_repo(dir: &Path) -> (PathBuf, Vec<ExecRequest>) {
    let repo = dir.join("stats");
    std::fs::create_dir_all(repo.join("stats")).unwrap();
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("stats/__init__.py"), "").unwrap();
    std::fs::write(
        repo.join("stats/core.py"),
        "import numpy as np\n\ndef spread(xs):\n    a = np.asarray(xs, dtype=float)\n    return float(a.max() - a.min())\n",
    )
    .unwrap();
    let test = "import numpy as np\nfrom stats.core import spread\n\ndef test_spread():\n    assert spread(np.arange(5)) == 4.0\n";
    let mutant = "import numpy as np\n\ndef spread(xs):\n    a = np.asarray(xs, dtype=float)\n    return float(a.max() + a.min())\n";
    let reqs = (0..16)
        .map(|i| ExecRequest {
            test: FileOverride {
                rel_path: "tests/test_spread.py".into(),
                content: test.into(),
            },
            overrides: if i % 2 == 0 {
                vec![]
            } else {
                vec![FileOverride {
                    rel_path: "stats/core.py".into(),
                    content: mutant.into(),
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
        .collect();
    (repo, reqs)
}

fn heavy_table(rt: &tokio::runtime::Runtime) {
    let Some(python) = numpy_python() else {
        println!("\nheavy imports: no venv with numpy could be made; skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (repo, reqs) = numpy_repo(dir.path());
    let make = |warm: bool| -> Arc<dyn Executor> {
        Arc::new(
            LocalExecutor::new(LocalConfig {
                repo: repo.clone(),
                python: python.clone(),
                pythonpath: vec![".".into()],
                jobs: 1,
                isolation: Wanted::default(),
                warm,
                pass_env: vec![],
            })
            .unwrap(),
        )
    };
    let (cold, warm) = (make(false), make(true));
    // The first warm run teaches the zygote numpy; it is untimed, as a run's first is not
    // typical of its hundreds.
    rt.block_on(cold.run(reqs[0].clone())).unwrap();
    rt.block_on(warm.run(reqs[0].clone())).unwrap();
    let (mut c, mut w) = (vec![], vec![]);
    for r in &reqs {
        let t = Instant::now();
        rt.block_on(cold.run(r.clone())).unwrap();
        c.push(t.elapsed());
        let t = Instant::now();
        rt.block_on(warm.run(r.clone())).unwrap();
        w.push(t.elapsed());
    }
    let (mc, mw) = (median(c), median(w));
    println!(
        "\nheavy imports (tests import numpy; {}), median per execution, 1 worker:\n  cold {:.0} ms, warm {:.0} ms, {:.2}x",
        python.display(),
        mc.as_secs_f64() * 1000.0,
        mw.as_secs_f64() * 1000.0,
        mc.as_secs_f64() / mw.as_secs_f64()
    );
}

/// Fork and in-process pytest alone, with nothing of evootter around, two ways, each run both
/// ways in turn: `plain` (pytest's whole start in the child, the interpreter's normal
/// shutdown: the warm executor before its shortcuts) and `lean` (as the zygote now does it:
/// pytest's `get_config` prepared before the fork, inspect's module map warm, the child ended
/// the way `_exit_as_python_would` ends it). Prints both medians in ms.
const BARE_FORK: &str = r#"
import json, os, sys, time, gc, inspect, pathlib, threading, atexit
sys.path[0] = os.getcwd()
import pytest, _pytest.config as pc
for n in pc.default_plugins:
    try: __import__("_pytest." + n)
    except Exception: pass
runs = json.load(open(sys.argv[1]))
templates = {}
for r in runs:
    key = tuple(r["args"][1:])
    if key not in templates:
        templates[key] = pc.get_config(list(r["args"]))
inspect.getmodule(pc.get_config.__code__, "/nonexistent/x.py")
gc.freeze()
times = {"plain": [], "lean": []}
for r in runs:
    for mode in ("plain", "lean"):
        for rel, content in r["files"].items():
            open(rel, "w").write(content)
        t = time.monotonic()
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)
            if mode == "lean":
                config = templates[tuple(r["args"][1:])]
                def get_config(args=None, plugins=None, **kw):
                    config.invocation_params = pc.Config.InvocationParams(
                        args=args, plugins=plugins, dir=pathlib.Path.cwd())
                    return config
                pc.get_config = get_config
            code = pytest.main(r["args"])
            if mode == "plain":
                sys.exit(int(code))
            threading._shutdown(); atexit._run_exitfuncs(); gc.get_objects()
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(int(code))
        os.waitpid(pid, 0)
        times[mode].append(time.monotonic() - t)
        for rel, content in r["restore"].items():
            if content is None: os.remove(rel)
            else: open(rel, "w").write(content)
for v in times.values(): v.sort()
print(times["plain"][len(runs) // 2] * 1000, times["lean"][len(runs) // 2] * 1000)
"#;

/// The harness's own share of a warm execution: the warm executor's median against the
/// bare fork-and-pytest median of the same runs, on one example, one worker.
fn harness_table(rt: &tokio::runtime::Runtime, python: &Path) {
    let ex = examples().into_iter().next().unwrap();
    let inst = Instance::load(&ex).unwrap();
    let pythonpath = inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]);
    let reqs = requests(&inst);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(&inst.repo)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let runs: Vec<serde_json::Value> = reqs
        .iter()
        .map(|r| {
            let mut files = serde_json::Map::new();
            let mut restore = serde_json::Map::new();
            for f in std::iter::once(&r.test).chain(&r.overrides) {
                files.insert(f.rel_path.clone(), f.content.clone().into());
                let old = std::fs::read_to_string(copy.join(&f.rel_path)).ok();
                restore.insert(
                    f.rel_path.clone(),
                    old.map_or(serde_json::Value::Null, Into::into),
                );
            }
            serde_json::json!({
                "files": files,
                "restore": restore,
                "args": [r.test.rel_path, "-p", "no:cacheprovider", "--no-header", "-rA",
                         "--tb=short", "--color=no",
                         format!("--junitxml={}", dir.path().join("j.xml").display())],
            })
        })
        .collect();
    let runs_file = dir.path().join("runs.json");
    std::fs::write(&runs_file, serde_json::to_vec(&runs).unwrap()).unwrap();
    let script = dir.path().join("bare.py");
    std::fs::write(&script, BARE_FORK).unwrap();
    let mut path = vec![copy.display().to_string()];
    path.extend(
        pythonpath
            .iter()
            .filter(|p| *p != ".")
            .map(|p| copy.join(p).display().to_string()),
    );
    let bare = |_: ()| -> (f64, f64) {
        let o = std::process::Command::new(python)
            .arg("-B")
            .arg(&script)
            .arg(&runs_file)
            .current_dir(&copy)
            .env("PYTHONPATH", path.join(":"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let mut m = out
            .split_whitespace()
            .map(|t| t.parse().unwrap_or(f64::NAN));
        (m.next().unwrap_or(f64::NAN), m.next().unwrap_or(f64::NAN))
    };
    let warm: Arc<dyn Executor> = local(&inst, python, 1, true);
    rt.block_on(warm.run(reqs[0].clone())).unwrap();
    let (mut w, mut plain, mut b) = (vec![], vec![], vec![]);
    for _ in 0..3 {
        let (p, lean) = bare(());
        plain.push(p);
        b.push(lean);
        for r in &reqs {
            let t = Instant::now();
            rt.block_on(warm.run(r.clone())).unwrap();
            w.push(t.elapsed());
        }
    }
    b.sort_by(f64::total_cmp);
    plain.sort_by(f64::total_cmp);
    let (mw, mb, mp) = (
        median(w).as_secs_f64() * 1000.0,
        b[b.len() / 2],
        plain[plain.len() / 2],
    );
    println!(
        "\nharness overhead ({}, {}): warm execution {mw:.1} ms, bare fork + pytest {mb:.1} ms \
         as the zygote runs it ({mp:.1} ms without its shortcuts: {:.2}x); evootter's share \
         (staging, sandboxed zygote, sealing, log and junit parsing; below zero when the \
         zygote's learned modules and patterns save more than it costs) {:.1} ms",
        inst.name,
        python.display(),
        mp / mb,
        mw - mb
    );
}

/// One row of the main table from the times of each backend (Docker's may be empty).
fn backend_row(times: [Vec<Duration>; 4]) -> String {
    let [cold, warm, dock_cold, dock_warm] = times.map(|t| (!t.is_empty()).then(|| median(t)));
    let ms = |d: Option<Duration>| {
        d.map_or("-".to_owned(), |d| {
            format!("{:.0} ms", d.as_secs_f64() * 1000.0)
        })
    };
    let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
        _ => "-".to_owned(),
    };
    format!(
        "{:>10} {:>10} {:>8} {:>10} {:>8} {:>10} {:>8}",
        ms(cold),
        ms(warm),
        ratio(cold, warm),
        ms(dock_cold),
        ratio(dock_cold, cold),
        ms(dock_warm),
        ratio(dock_warm, warm)
    )
}

/// Throughput as a user sees it: the whole demo run of every example (`evootter run
/// --instance`, two workers, its own seed and mutants), once with each executor, and the
/// executions per second of its execute step. Both runs must decide the same, with the
/// same executions.
fn runs_table(only: Option<&Path>) {
    println!("\nwhole runs, 2 workers: executions per second of the execute step");
    println!(
        "{:<22} {:<40} {:>6} {:>8} {:>8} {:>8}",
        "example", "python", "execs", "cold", "warm", "ratio"
    );
    let out = tempfile::tempdir().unwrap();
    for python in interpreters(only) {
        let (mut cold_s, mut warm_s, mut all) = (0.0, 0.0, 0);
        for ex in examples() {
            let name = ex.file_name().unwrap().to_string_lossy().into_owned();
            let run = |executor: &str| -> (u64, f64, serde_json::Value) {
                let dir = out.path().join(format!("{name}-{executor}"));
                let o = std::process::Command::new(env!("CARGO_BIN_EXE_evootter"))
                    .args(["run", "--instance"])
                    .arg(&ex)
                    .args(["--executor", executor, "--jobs", "2", "--force", "--python"])
                    .arg(&python)
                    .arg("--out")
                    .arg(&dir)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                let report: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap())
                        .unwrap();
                let n = report["executions_total"].as_u64().unwrap();
                let secs = report["step_seconds"]["execute"].as_f64().unwrap();
                (n, secs, report["generations"].clone())
            };
            let (n, cold, decided) = run("cold");
            let (wn, warm, warm_decided) = run("warm");
            assert_eq!(
                (n, &decided),
                (wn, &warm_decided),
                "{name}: the executors decided differently"
            );
            cold_s += cold;
            warm_s += warm;
            all += n;
            println!(
                "{:<22} {:<40} {:>6} {:>8.1} {:>8.1} {:>7.2}x",
                name,
                python.display().to_string(),
                n,
                n as f64 / cold,
                n as f64 / warm,
                cold / warm
            );
        }
        println!(
            "{:<22} {:<40} {:>6} {:>8.1} {:>8.1} {:>7.2}x",
            "all",
            python.display().to_string(),
            all,
            all as f64 / cold_s,
            all as f64 / warm_s,
            cold_s / warm_s
        );
    }
}

/// The command line: `[ROUNDS] [TABLE ...] [python=PATH]`.
struct Args {
    rounds: usize,
    tables: Vec<String>,
    python: Option<PathBuf>,
}

impl Args {
    fn parse() -> Args {
        let mut args = Args {
            rounds: 2,
            tables: vec![],
            python: None,
        };
        // cargo passes `--bench` to a harness-less bench.
        for a in std::env::args().skip(1).filter(|a| !a.starts_with("--")) {
            if let Ok(n) = a.parse() {
                args.rounds = n;
            } else if let Some(p) = a.strip_prefix("python=") {
                args.python = Some(p.into());
            } else if TABLES.contains(&a.as_str()) {
                args.tables.push(a);
            } else {
                eprintln!(
                    "unknown argument {a:?}: give ROUNDS, a table of {TABLES:?} or python=PATH"
                );
                std::process::exit(2);
            }
        }
        args
    }

    fn wants(&self, table: &str) -> bool {
        self.tables.is_empty() || self.tables.iter().any(|t| t == table)
    }
}

const TABLES: [&str; 6] = [
    "execution",
    "throughput",
    "runs",
    "harness",
    "heavy",
    "prepare",
];

fn main() {
    let args = Args::parse();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let python = evootter::exec::resolve_python(Some(Path::new("/usr/bin/python3")))
        .or_else(|_| evootter::exec::resolve_python(None))
        .expect("python3 with pytest")
        .path;
    if args.wants("execution") {
        execution_table(&rt, args.rounds, &python);
    }
    if args.wants("throughput") {
        throughput_table(&rt, args.rounds, args.python.as_deref());
    }
    if args.wants("runs") {
        runs_table(args.python.as_deref());
    }
    if args.wants("harness") {
        harness_table(&rt, &python);
    }
    if args.wants("heavy") {
        heavy_table(&rt);
    }
    if args.wants("prepare") {
        prepare_table(&rt, &python);
    }
}

/// The first result of a session: the executor made, a pause where the model's first calls
/// would be (1 s), then the first request on each of 2 workers; with the workers' zygotes
/// started on that first request (as before) against started by `prepare` as the session
/// starts. Medians of the time from the end of the pause to both results.
fn prepare_table(rt: &tokio::runtime::Runtime, python: &Path) {
    let ex = examples().into_iter().next().unwrap();
    let inst = Instance::load(&ex).unwrap();
    let reqs = requests(&inst);
    let mut times: [Vec<Duration>; 2] = Default::default();
    for _ in 0..3 {
        for (i, prepared) in [false, true].into_iter().enumerate() {
            let warm = local(&inst, python, 2, true);
            let t = rt.block_on(async {
                if prepared {
                    let w = warm.clone();
                    tokio::spawn(async move { w.prepare().await });
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
                let t = Instant::now();
                let (a, b) = tokio::join!(warm.run(reqs[0].clone()), warm.run(reqs[1].clone()));
                a.unwrap();
                b.unwrap();
                t.elapsed()
            });
            times[i].push(t);
        }
    }
    let [lazy, prepared] = times.map(|t| median(t).as_secs_f64() * 1000.0);
    println!(
        "\nfirst results after a 1 s pause ({}, {}, 2 workers): zygotes started on the first \
         request {lazy:.0} ms, started by prepare as the session starts {prepared:.0} ms ({:.2}x)",
        inst.name,
        python.display(),
        lazy / prepared
    );
}

/// Median per execution of each backend, one worker each, requests interleaved.
fn execution_table(rt: &tokio::runtime::Runtime, rounds: usize, python: &Path) {
    let image =
        std::env::var("EVOOTTER_TEST_IMAGE").unwrap_or_else(|_| "evootter-python:bookworm".into());
    let docker = docker_available(&image);
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
        "{:<22} {:>5} {:>10} {:>10} {:>8} {:>10} {:>8} {:>10} {:>8}",
        "example", "runs", "cold", "warm", "speedup", "dock cold", "/cold", "dock warm", "/warm"
    );
    // Medians per backend: local cold, local warm, docker cold, docker warm.
    let mut all: [Vec<Duration>; 4] = Default::default();
    for ex in examples() {
        let inst = Instance::load(&ex).unwrap();
        let pythonpath = inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]);
        let reqs = requests(&inst);
        let local_with = |warm: bool| -> Arc<dyn Executor> { local(&inst, python, 1, warm) };
        let docker_with = |warm: bool| -> Option<Arc<dyn Executor>> {
            docker.then(|| {
                let d = rt
                    .block_on(DockerExecutor::new(DockerConfig {
                        image: image.clone(),
                        jobs: 1,
                        pythonpath: pythonpath.clone(),
                        repo: inst.repo.clone(),
                        warm,
                        ..Default::default()
                    }))
                    .unwrap();
                Arc::new(d) as Arc<dyn Executor>
            })
        };
        let backends: Vec<Arc<dyn Executor>> = [
            Some(local_with(false)),
            Some(local_with(true)),
            docker_with(false),
            docker_with(true),
        ]
        .into_iter()
        .flatten()
        .collect();
        // One untimed run each: page cache, imports, the container's first exec, the zygote.
        for b in &backends {
            rt.block_on(b.run(reqs[0].clone())).unwrap();
        }
        let mut times: [Vec<Duration>; 4] = Default::default();
        for _ in 0..rounds {
            for r in &reqs {
                for (i, b) in backends.iter().enumerate() {
                    let t = Instant::now();
                    rt.block_on(b.run(r.clone())).unwrap();
                    times[i].push(t.elapsed());
                }
            }
        }
        for (a, t) in all.iter_mut().zip(&times) {
            a.extend(t.iter().copied());
        }
        println!(
            "{:<22} {:>5} {}",
            inst.name,
            reqs.len() * rounds,
            backend_row(times)
        );
    }
    println!("{:<22} {:>5} {}", "all", "", backend_row(all));
}
