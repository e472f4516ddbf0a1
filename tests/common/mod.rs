//! Shared helpers for the integration tests: the real binary, real example instances, and a
//! fingerprint of a directory tree to prove the user's repository is never touched.
#![allow(dead_code)]

pub mod bench_rows;
pub mod docker;
pub mod exec;
pub mod tmux;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The BaseBRT steps (paper III-B), one model call each under single prompting.
pub const BASEBRT_STEPS: [&str; 6] = [
    "localize_files",
    "localize_functions",
    "localize_refine",
    "context_imports",
    "context_location",
    "generate",
];

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_evootter"))
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled examples by name, for the long tests that take one example each (so the test
/// threads share them where one test over all held a thread to the end).
/// `examples::every_bundled_example_is_named_for_the_per_example_tests` keeps it whole.
pub const EXAMPLES: [&str; 5] = [
    "billcycle_proration",
    "envconf_errors",
    "invoicekit_rounding",
    "ministats_missing",
    "pagekit_orphans",
];

/// The examples the executors are compared on (warm and cold, Docker and local, sandboxed
/// or not, coverage): their layouts and failure kinds differ (src and flat layouts, a
/// conftest, assertion, exception and import failures). `invoicekit_rounding` adds a
/// selection case (a small focal function, a wrong expectation), not an execution one.
pub const EXECUTOR_EXAMPLES: [&str; 4] = [
    "billcycle_proration",
    "envconf_errors",
    "ministats_missing",
    "pagekit_orphans",
];

pub fn executor_examples() -> Vec<PathBuf> {
    EXECUTOR_EXAMPLES.iter().map(|n| example(n)).collect()
}

/// What `evootter mutants --repo REPO ARGS --json` lists.
pub fn mutants_json(repo: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let o = bin()
        .args(["mutants", "--json", "--repo"])
        .arg(repo)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_array().unwrap().clone()
}

pub fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

pub fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("instance.toml").is_file())
        .collect();
    v.sort();
    v
}

/// Path -> (size, mtime, sha256) of every file below `dir`, `__pycache__` included: any write
/// shows up.
pub fn fingerprint(dir: &Path) -> BTreeMap<PathBuf, (u64, std::time::SystemTime, String)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let md = std::fs::symlink_metadata(&p).unwrap();
            if md.is_dir() {
                out.insert(p.clone(), (0, md.modified().unwrap(), String::new()));
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.insert(
                    p,
                    (
                        md.len(),
                        md.modified().unwrap(),
                        evootter::hash::sha256_hex(bytes),
                    ),
                );
            }
        }
    }
    out
}

pub fn text(o: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn read_json(p: &Path) -> serde_json::Value {
    let t = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
    serde_json::from_str(&t).unwrap()
}

/// Is any process still running whose command line or working directory mentions `needle`?
pub fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut hits = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = e.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let cwd = std::fs::read_link(e.path().join("cwd"))
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        if cmd.contains(needle) || cwd.contains(needle) {
            hits.push(format!("{pid}: {cmd} (cwd {cwd})"));
        }
    }
    hits
}

/// Write a tiny package with one function into `dir` and return the repo path.
pub fn tiny_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("calc")).unwrap();
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("calc/__init__.py"), "").unwrap();
    std::fs::write(
        repo.join("calc/ops.py"),
        "def clamp(x, lo, hi):\n    \"\"\"Clamp x to [lo, hi].\"\"\"\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi - 1\n    return x\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("issue.md"),
        "clamp(15, 0, 10) returns 9, expected 10\n",
    )
    .unwrap();
    repo
}

/// A tiny instance in a temp dir: `tiny_repo`, its issue, and candidate tests given as
/// (file name, source).
pub struct Tiny {
    pub dir: tempfile::TempDir,
    pub repo: PathBuf,
    pub cands: PathBuf,
}

impl Tiny {
    pub fn new(tests: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let repo = tiny_repo(dir.path());
        let cands = dir.path().join("cands");
        std::fs::create_dir(&cands).unwrap();
        for (name, src) in tests {
            std::fs::write(cands.join(name), src).unwrap();
        }
        Self { dir, repo, cands }
    }

    /// Four candidates: the F2P test, one passing on both, one with a wrong expectation, one
    /// that checks nothing. Enough for a crossover (4 -> 2) after real executions.
    pub fn four() -> Self {
        Tiny::new(&[
            (
                "test_a.py",
                "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
            ),
            (
                "test_b.py",
                "from calc.ops import clamp\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
            ),
            (
                "test_c.py",
                "from calc.ops import clamp\n\ndef test_wrong():\n    assert clamp(15, 0, 10) == 11\n",
            ),
            ("test_d.py", "def test_nothing():\n    assert 1\n"),
        ])
    }

    /// The fix of `tiny_repo`'s bug (`return hi - 1` -> `return hi`), written to a file.
    pub fn golden_patch(&self) -> PathBuf {
        let p = self.out("fix.patch");
        std::fs::write(
            &p,
            "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -4,5 +4,5 @@\n     if x < lo:\n         return lo\n     if x > hi:\n-        return hi - 1\n+        return hi\n     return x\n",
        )
        .unwrap();
        p
    }

    pub fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `evootter run --repo --issue --out out(name)` on the tiny instance, to add flags to.
    pub fn command(&self, name: &str) -> Command {
        let mut c = bin();
        c.arg("run")
            .arg("--repo")
            .arg(&self.repo)
            .arg("--issue")
            .arg(self.dir.path().join("issue.md"))
            .arg("--out")
            .arg(self.out(name));
        c
    }

    /// `evootter run` on the tiny instance into `out(name)`, focal `calc/ops.py::clamp`, the
    /// candidates as the initial population.
    pub fn run(&self, name: &str, extra: &[&str]) -> Output {
        self.command(name)
            .args(["--focal", "calc/ops.py::clamp", "--initial-tests"])
            .arg(&self.cands)
            .args(extra)
            .output()
            .unwrap()
    }
}
