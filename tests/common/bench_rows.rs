//! SWE-bench-style rows made from the bundled examples, their repositories as bare git
//! mirrors: for the batch tests and the batch benchmark.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=evootter",
            "-c",
            "user.email=dev@evootter.local",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A bare mirror of an example's repository at `repos/evootter/NAME.git`; its commit.
pub fn mirror(example: &Path, repos: &Path) -> String {
    let name = example.file_name().unwrap().to_string_lossy().into_owned();
    let work = repos.join(format!("work-{name}"));
    std::fs::create_dir_all(&work).unwrap();
    let cp = Command::new("cp")
        .arg("-r")
        .arg(example.join("repo/."))
        .arg(&work)
        .status()
        .unwrap();
    assert!(cp.success());
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "c_old"]);
    let head = git(&work, &["rev-parse", "HEAD"]);
    let bare = repos.join("evootter").join(format!("{name}.git"));
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    git(
        repos,
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    std::fs::remove_dir_all(&work).unwrap();
    head
}

pub fn row(example: &Path, commit: &str) -> serde_json::Value {
    let name = example.file_name().unwrap().to_string_lossy().into_owned();
    let golden_test = std::fs::read_to_string(example.join("golden_test.py")).unwrap();
    let test_path = "tests/test_developer.py";
    let fail_to_pass: Vec<String> = golden_test
        .lines()
        .filter_map(|l| l.strip_prefix("def "))
        .filter(|l| l.starts_with("test_"))
        .map(|l| format!("{test_path}::{}", l.split('(').next().unwrap()))
        .collect();
    serde_json::json!({
        "instance_id": format!("evootter__{name}-1"),
        "repo": format!("evootter/{name}"),
        "base_commit": commit,
        "problem_statement": std::fs::read_to_string(example.join("issue.md")).unwrap(),
        "patch": std::fs::read_to_string(example.join("golden.patch")).unwrap(),
        "test_patch": evootter::engine::report::add_file_patch(test_path, &golden_test),
        "FAIL_TO_PASS": serde_json::to_string(&fail_to_pass).unwrap(),
        "llm_script": example.join("llm_script.json"),
    })
}

/// `DIR/rows.jsonl` holding a row for each named example, their mirrors under `repos`.
pub fn rows_file(dir: &Path, repos: &Path, names: &[&str]) -> std::path::PathBuf {
    std::fs::create_dir_all(repos).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines: Vec<String> = names
        .iter()
        .map(|name| {
            let ex = root.join("examples").join(name);
            let commit = mirror(&ex, repos);
            row(&ex, &commit).to_string()
        })
        .collect();
    let rows = dir.join("rows.jsonl");
    std::fs::write(&rows, lines.join("\n") + "\n").unwrap();
    rows
}

/// `evootter bench --instances ROWS --repos REPOS --out OUT`, for more options.
pub fn bench_command(rows: &Path, repos: &Path, out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_evootter"));
    c.args(["bench", "--instances"])
        .arg(rows)
        .arg("--repos")
        .arg(repos)
        .arg("--out")
        .arg(out);
    c
}
