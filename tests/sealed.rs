//! Model-written tests run sealed and sandboxed: a vandal among the candidates (it rewrites
//! a module in place, deletes, renames, chmods, symlinks, detaches a daemon, connects to a
//! listener on 127.0.0.1, writes outside its copy) changes nothing for the other tests, is not
//! chosen, leaves no process, reaches no listener and writes nothing outside. And for tests
//! that behave, the sandbox changes nothing at all.

use crate::common;
use common::*;
use evootter::exec::{ExecRequest, Executor, FileOverride, LocalConfig, LocalExecutor, Wanted};
use evootter::instance::Instance;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// A candidate that does everything a hostile or careless model-written test could, then
/// fails. `marker` is in the command line of every process it leaves behind.
fn vandal(marker: &str, port: u16, outside: &Path, home_file: &str) -> String {
    format!(
        r#"import os, socket, subprocess, time

def test_vandal():
    sources = sorted(
        os.path.join(d, f)
        for d, _, files in os.walk(".")
        if not d.startswith("./tests")
        for f in files
        if f.endswith(".py")
    )
    open(sources[0], "w").write("raise SystemExit('vandalized')\n")
    os.remove(sources[1])
    os.rename(sources[2], sources[2] + ".moved")
    os.chmod(sources[3], 0)
    os.symlink("/etc/hostname", "vandal_link")
    subprocess.Popen(["setsid", "sleep", "{marker}"])
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "{marker}1"])
        os._exit(0)
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"pwned")
    except OSError as e:
        print("connect:", e)
    for path in [{outside:?}, os.path.expanduser("~/{home_file}")]:
        try:
            open(path, "w").write("pwned")
        except OSError as e:
            print("write:", e)
    time.sleep(0.2)
    assert False, "vandalized"
"#,
        outside = outside.display().to_string()
    )
}

/// Test file name -> (c_old outcome, normalized c_old log, status map) of a session.
fn old_runs(session: &serde_json::Value) -> BTreeMap<String, (String, String, String)> {
    let tests = session["tests"].as_object().unwrap();
    let mut out = BTreeMap::new();
    for t in tests.values() {
        let key = format!("{}@old", &t["hash"].as_str().unwrap()[..16]);
        let e = &session["executions"][&key];
        let log = session["logs"][e["normalized_log"].as_str().unwrap()]
            .as_str()
            .unwrap()
            .to_string();
        out.insert(
            t["name"].as_str().unwrap().to_string(),
            (e["outcome"].to_string(), log, e["status_map"].to_string()),
        );
    }
    out
}

fn run_example(
    ex: &Path,
    cands: &Path,
    n: usize,
    mutants: &str,
    out: &Path,
) -> std::process::Output {
    bin()
        .args(["run", "--start", "candidates", "--mutants", mutants])
        .args(["--jobs", "2"])
        .arg("--instance")
        .arg(ex)
        .arg("--initial-tests")
        .arg(cands)
        .args(["--tests", &n.to_string()])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_vandal_among_the_candidates_changes_nothing_for_the_others() {
    let home = std::env::var("HOME").unwrap();
    // Two whole runs per example: a src layout and a flat one are enough to show what the
    // vandal reaches (its writes land outside every repository); all four cost a minute more
    // of every test run.
    let chosen = ["billcycle_proration", "pagekit_orphans"];
    let chosen: Vec<_> = examples()
        .into_iter()
        .filter(|e| chosen.iter().any(|c| e.ends_with(c)))
        .collect();
    assert_eq!(chosen.len(), 2, "both examples are bundled");
    for ex in chosen {
        let inst = Instance::load(&ex).unwrap();
        let repo_before = fingerprint(&inst.repo);
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        let home_file = format!(".evootter-vandal-{}", std::process::id());
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let marker = format!("9{}", std::process::id());

        let cands = dir.path().join("cands");
        std::fs::create_dir(&cands).unwrap();
        let originals = inst.initial_tests.clone().unwrap();
        for e in std::fs::read_dir(&originals).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "py") {
                std::fs::copy(e.path(), cands.join(e.file_name())).unwrap();
            }
        }
        let n = std::fs::read_dir(&cands).unwrap().count();
        // First in name order: t1, so it runs before the others, in the same workers.
        std::fs::write(
            cands.join("test_000_vandal.py"),
            vandal(&marker, port, &outside, &home_file),
        )
        .unwrap();

        // The reference is the others' c_old runs, which no mutant changes: one mutant will do.
        let clean = run_example(&ex, &originals, n, "1", &dir.path().join("clean"));
        assert!(clean.status.success(), "{}", text(&clean));
        let with = run_example(&ex, &cands, n + 1, "4", &dir.path().join("with"));
        assert!(with.status.success(), "{}: {}", ex.display(), text(&with));

        let clean_s = read_json(&dir.path().join("clean/session.json"));
        let with_s = read_json(&dir.path().join("with/session.json"));
        let mut expected = old_runs(&clean_s);
        let mut got = old_runs(&with_s);
        let vandal_run = got.remove("test_000_vandal.py").expect("the vandal ran");
        assert!(
            vandal_run.1.contains("this run changed its working copy"),
            "{}",
            vandal_run.1
        );
        expected.retain(|k, _| got.contains_key(k));
        assert_eq!(got.len(), n, "{}", ex.display());
        assert_eq!(
            got,
            expected,
            "{}: the vandal changed another test's c_old run",
            ex.display()
        );

        let report = read_json(&dir.path().join("with/report.json"));
        assert_ne!(
            report["final_test_id"],
            "t1",
            "{}: the vandal won",
            ex.display()
        );
        assert!(
            !report["tests"]["t1"]["changed_copy"]
                .as_array()
                .unwrap()
                .is_empty(),
            "{report:#}"
        );
        assert!(
            report["tests"]["t1"]["sandbox_denied"][0]
                .as_str()
                .unwrap()
                .contains(&outside.display().to_string()),
            "{report:#}"
        );
        let stderr = String::from_utf8_lossy(&with.stderr);
        assert!(
            stderr.contains("note: t1 (test_000_vandal.py) changed its working copy on c_old"),
            "{stderr}"
        );

        let mut left = processes_mentioning(&marker);
        for _ in 0..50 {
            if left.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            left = processes_mentioning(&marker);
        }
        assert!(left.is_empty(), "{}: left running: {left:?}", ex.display());
        assert!(
            listener.accept().is_err(),
            "{}: the vandal reached a listener on the host's loopback",
            ex.display()
        );
        assert!(
            !outside.exists(),
            "{}: wrote outside its copy",
            ex.display()
        );
        assert!(
            !Path::new(&home).join(&home_file).exists(),
            "{}: wrote into the user's home",
            ex.display()
        );
        assert_eq!(repo_before, fingerprint(&inst.repo));
    }
}

/// Well-behaved tests log exactly the same with every protection, without the sandbox, and
/// with only the portable fallbacks (rescan sealing, subreaper): the sandbox is invisible
/// until a test reaches for the network or outside its copy. The warm executor (the default)
/// on every example; the cold one, whose protections are set up per execution, on the first.
#[tokio::test(flavor = "multi_thread")]
async fn sandboxed_and_unsandboxed_runs_log_the_same_on_every_example() {
    let python = evootter::exec::resolve_python(None).unwrap().path;
    let configs = [
        Wanted::default(),
        Wanted {
            sandbox: false,
            namespaces: true,
        },
        Wanted {
            sandbox: false,
            namespaces: false,
        },
    ];
    for (i, ex) in executor_examples().into_iter().enumerate() {
        let inst = Instance::load(&ex).unwrap();
        let pool =
            evootter::mutate::generate(&inst.repo, &inst.focal, 20, 1, Default::default()).unwrap();
        let mutant = &pool.mutants[0];
        let original = std::fs::read_to_string(inst.repo.join(&mutant.file)).unwrap();
        let mut requests = vec![];
        let dir = inst.initial_tests.clone().unwrap();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "py"))
            .collect();
        files.sort();
        // Half of each example's candidates (passing and failing ones among them): three
        // isolation set-ups of cold runs on all of them cost 90 s of every test run, and the
        // warm executor's equality test runs every candidate already.
        files.truncate(4);
        let executors: &[bool] = if i == 0 { &[true, false] } else { &[true] };
        let test_dir = inst.test_dir.clone().unwrap_or_else(|| "tests".into());
        for f in &files {
            let test = FileOverride {
                rel_path: format!("{test_dir}/{}", f.file_name().unwrap().to_string_lossy()),
                content: std::fs::read_to_string(f).unwrap(),
            };
            for overrides in [
                vec![],
                vec![FileOverride {
                    rel_path: mutant.file.clone(),
                    content: mutant.apply(&original),
                }],
            ] {
                requests.push(ExecRequest {
                    test: test.clone(),
                    overrides,
                    removed: vec![],
                    timeout: Duration::from_secs(60),
                    trace: vec![],
                    tracer: Default::default(),
                    per_test: false,
                    select: vec![],
                    stop_at_first_failure: false,
                });
            }
        }
        for &warm in executors {
            let mut results = vec![];
            for isolation in configs {
                let exec = LocalExecutor::new(LocalConfig {
                    repo: inst.repo.clone(),
                    python: python.clone(),
                    pythonpath: inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]),
                    jobs: 2,
                    isolation,
                    warm,
                    pass_env: vec![],
                })
                .unwrap();
                let name = exec.describe();
                let runs = run_all(std::sync::Arc::new(exec), &requests).await;
                results.push((name, runs));
            }
            let (first_name, first) = &results[0];
            for (name, other) in &results[1..] {
                for (i, (a, b)) in first.iter().zip(other).enumerate() {
                    assert_eq!(
                        a,
                        b,
                        "{}: request {i} logs differently under\n  {first_name}\nand\n  {name}",
                        ex.display()
                    );
                }
            }
        }
    }
}

/// (outcome, normalized log, status map) of every request; the executor runs as many at
/// once as it has workers.
async fn run_all(
    exec: std::sync::Arc<LocalExecutor>,
    requests: &[ExecRequest],
) -> Vec<(String, String, String)> {
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
        let r = h.await.unwrap().unwrap();
        assert!(r.denied.is_empty() && r.changed.is_empty(), "{}", r.raw_log);
        out.push((
            format!("{:?}", r.outcome),
            r.normalized_log,
            format!("{:?}", r.status_map),
        ));
    }
    out
}
