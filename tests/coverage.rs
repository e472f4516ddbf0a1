//! Coverage measured as TDD-Bench-Verified measures it: the developer's test of every bundled
//! example, before and after its golden patch, traced with coverage.py through evootter's
//! executors (cold and warm), against what `coverage run --branch -m pytest` and
//! `coverage report -m` report on a copy of the repository set up by hand, read the way that
//! harness reads the report; and the line tracer taking over, saying so, where coverage.py
//! cannot be imported.

use crate::common;
use common::exec::request;
use common::*;
use evootter::exec::{ExecRequest, ExecResult, Executor, LocalConfig, LocalExecutor, Tracer};
use evootter::instance::Instance;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn python() -> PathBuf {
    evootter::exec::resolve_python(None)
        .expect("python3 with pytest")
        .path
}

fn executor(repo: &Path, pythonpath: Vec<String>, warm: bool) -> LocalExecutor {
    LocalExecutor::new(LocalConfig {
        repo: repo.to_path_buf(),
        python: python(),
        pythonpath,
        jobs: 1,
        isolation: Default::default(),
        warm,
        pass_env: vec![],
    })
    .unwrap()
}

/// What `coverage report -m` says of `file` after `coverage run --branch -m pytest TEST` in
/// `copy`, read as TDD-Bench's harness reads it: the file's row, blanks collapsed, the words
/// from the seventh on (the "Missing" column), and the statement count.
fn coverage_cli(copy: &Path, pythonpath: &[String], test: &str, file: &str) -> (String, usize) {
    let py = python();
    let run = |args: &[&str]| {
        let out = Command::new(&py)
            .args(args)
            .current_dir(copy)
            .env("PYTHONPATH", pythonpath.join(":"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("PYTEST_ADDOPTS")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[
        // pytest's options as evootter's runs have them: `--tb=short` decides which reprs a
        // failure report runs.
        "-m",
        "coverage",
        "run",
        "--branch",
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--tb=short",
        test,
    ]);
    let report = run(&["-m", "coverage", "report", "-m"]);
    let row = report
        .lines()
        .find(|l| l.starts_with(file))
        .unwrap_or_else(|| panic!("{file} is not in the report:\n{report}"));
    let words: Vec<&str> = row.split_whitespace().collect();
    (words[6..].join(" "), words[1].parse().unwrap())
}

/// A scratch copy of the example's repository.
fn copy_repo(inst: &Instance) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(inst.repo.join("."))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// A copy of the example's repository with its developer's test in place, before or after
/// the golden patch.
fn copy_of(inst: &Instance, test_rel: &str, patched: bool) -> tempfile::TempDir {
    let dir = copy_repo(inst);
    std::fs::copy(
        inst.golden_test.as_ref().unwrap(),
        dir.path().join(test_rel),
    )
    .unwrap();
    if patched {
        let out = Command::new("git")
            .args(["apply", "--unsafe-paths"])
            .arg(inst.golden_patch.as_ref().unwrap())
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    dir
}

fn traced(mut r: ExecRequest, files: Vec<String>, tracer: Tracer) -> ExecRequest {
    r.trace = files;
    r.tracer = tracer;
    r
}

#[tokio::test(flavor = "multi_thread")]
async fn coverage_through_the_executors_reports_what_coverage_run_reports() {
    let mut compared = 0;
    // Changed lines, covered by coverage.py's reading, covered by the line tracer's.
    let mut figures = vec![];
    for ex in executor_examples() {
        let inst = Instance::load(&ex).unwrap();
        let patch_path = inst.golden_patch.clone().unwrap();
        let patch = std::fs::read_to_string(&patch_path).unwrap();
        let pythonpath = inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]);
        let test_dir = inst.test_dir.clone().unwrap_or_else(|| "tests".into());
        let test_rel = format!("{test_dir}/test_golden_issue.py");
        let content = std::fs::read_to_string(inst.golden_test.as_ref().unwrap()).unwrap();
        let golden = evootter::eval::golden_files(&inst.repo, &patch_path).unwrap();
        let timeout = Duration::from_secs(60);
        let cold = executor(&inst.repo, pythonpath.clone(), false);
        let warm = executor(&inst.repo, pythonpath.clone(), true);
        for after in [false, true] {
            let files = evootter::bench::score::patch_lines(&patch, after);
            if files.is_empty() {
                continue;
            }
            let base = if after {
                golden.request(
                    evootter::exec::FileOverride {
                        rel_path: test_rel.clone(),
                        content: content.clone(),
                    },
                    timeout,
                )
            } else {
                request(&test_rel, &content, timeout)
            };
            let names: Vec<String> = files.keys().cloned().collect();
            let req = traced(base.clone(), names.clone(), Tracer::Coverage);
            let c = cold.run(req.clone()).await.unwrap();
            let w = warm.run(req).await.unwrap();
            let untraced = cold.run(base.clone()).await.unwrap();
            let name = inst.name.clone();
            // coverage.py measured, and measuring changed nothing the test shows.
            let cov = c
                .coverage
                .clone()
                .unwrap_or_else(|| panic!("{name}: {c:#?}"));
            assert!(cov.tool.starts_with("coverage "), "{name}: {cov:?}");
            assert_eq!(cov.why, None);
            assert_eq!(c.normalized_log, untraced.normalized_log, "{name}");
            assert_eq!(c.status_map, untraced.status_map, "{name}");
            // Both executors measure the same.
            assert_eq!(w.coverage, c.coverage, "{name}: warm and cold differ");
            assert_eq!(w.trace, c.trace, "{name}");

            let copy = copy_of(&inst, &test_rel, after);
            let lines = cold
                .run(traced(base.clone(), names.clone(), Tracer::Lines))
                .await
                .unwrap();
            for (f, changed) in &files {
                let gone = evootter::bench::score::missing_lines(&cov.files[f].missing);
                let ran = lines.lines_of(f).unwrap();
                figures.push((
                    format!("{name} {f} {}", if after { "after" } else { "before" }),
                    changed.len(),
                    changed.iter().filter(|l| !gone.contains(l)).count(),
                    changed.iter().filter(|l| ran.contains(l)).count(),
                ));
            }
            for f in &names {
                let (missing, statements) = coverage_cli(copy.path(), &pythonpath, &test_rel, f);
                let ours = &cov.files[f];
                assert_eq!(ours.missing, missing, "{name} {f} (after the fix: {after})");
                assert_eq!(ours.statements.len(), statements, "{name} {f}");
                // What ran are statements, and every statement that did not run is in the
                // Missing column.
                let gone = evootter::bench::score::missing_lines(&ours.missing);
                let ran = c.lines_of(f).unwrap();
                assert!(
                    ran.iter().all(|l| ours.statements.contains(l)),
                    "{name} {f}"
                );
                assert!(
                    ours.statements
                        .iter()
                        .all(|s| ran.contains(s) || gone.contains(s)),
                    "{name} {f}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 4, "only {compared} files compared");
    for (what, changed, by_coverage, by_lines) in figures {
        eprintln!(
            "{what}: {changed} changed, covered {by_coverage} (coverage.py), {by_lines} (line tracer)"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_coverage_py_the_line_tracer_measures_and_says_so() {
    let ex = examples()
        .into_iter()
        .find(|e| e.ends_with("envconf_errors"))
        .unwrap();
    let inst = Instance::load(&ex).unwrap();
    // A copy whose import path puts a `coverage` first that cannot be imported: the
    // interpreter has coverage.py, this run cannot reach it.
    let repo = copy_repo(&inst);
    std::fs::create_dir_all(repo.path().join("shadow/coverage")).unwrap();
    std::fs::write(
        repo.path().join("shadow/coverage/__init__.py"),
        "raise ImportError('no coverage in this environment')\n",
    )
    .unwrap();
    let mut pythonpath = vec!["shadow".to_string()];
    pythonpath.extend(inst.pythonpath.clone().unwrap_or_else(|| vec![".".into()]));
    let ex = executor(repo.path(), pythonpath, true);
    let content = std::fs::read_to_string(inst.golden_test.as_ref().unwrap()).unwrap();
    let file = "envconf/settings.py".to_string();
    let base = request(
        "tests/test_golden_issue.py",
        &content,
        Duration::from_secs(60),
    );
    let fallback: ExecResult = ex
        .run(traced(base.clone(), vec![file.clone()], Tracer::Coverage))
        .await
        .unwrap();
    let lines = ex
        .run(traced(base, vec![file.clone()], Tracer::Lines))
        .await
        .unwrap();
    let cov = fallback.coverage.clone().expect("a coverage report");
    assert_eq!(cov.tool, "evootter line tracer");
    let why = cov.why.clone().unwrap();
    assert!(
        why.contains("not importable") && why.contains("no coverage in this environment"),
        "{why}"
    );
    assert!(cov.files.is_empty());
    assert!(!fallback.lines_of(&file).unwrap().is_empty());
    assert_eq!(fallback.trace, lines.trace);
    assert_eq!(lines.coverage, None);
}
