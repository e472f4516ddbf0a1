//! What the unit tests, the integration tests and the benches share, so none of them copies
//! it: a run's configuration for tests, the scripted executor's answers, a finished session
//! made by the real engine without Python, and the requests of a bundled example's candidates
//! on `c_old` and on mutants. Compiled into the library (it is small) so that `tests/` and
//! `benches/` reach it as `evootter::testkit`; nothing else uses it.

use crate::engine::{
    CrossoverStrategy, Engine, ExecutorKind, Inputs, MutantReach, RunConfig, SelectionStrategy,
    SessionDoc,
};
use crate::exec::scripted::{self, ScriptedExecutor};
use crate::exec::{ExecRequest, ExecResult, FileOverride, Outcome};
use crate::instance::Instance;
use crate::mutate::Mutant;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A run's configuration for tests: four tests, a small pool, one worker, cold, sampling the
/// whole pool, no model, no crossover; the rest as `RunConfig::default`.
pub fn config(selection: SelectionStrategy) -> RunConfig {
    RunConfig {
        tests: 4,
        mutants: 10,
        selection,
        crossover: CrossoverStrategy::None,
        jobs: 1,
        timeout_secs: 5.0,
        executor: ExecutorKind::Cold,
        reach: MutantReach::All,
        ..RunConfig::default()
    }
}

/// The scripted executor's rule: a test whose source says `FAILS` fails on `c_old` and on
/// every mutant; one that says `KILLS` logs differently on every mutant, or, with hex digits
/// after it (`KILLS 01ab`), on the mutants whose content hash starts with one of them (a
/// varied matrix); the rest log the same everywhere.
pub fn answer(req: &ExecRequest) -> ExecResult {
    let src = &req.test.content;
    let outcome = if src.contains("FAILS") {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    let log = match (req.overrides.first(), src.split_once("KILLS")) {
        (Some(m), Some((_, after))) => {
            let h = crate::hash::sha256_hex(&m.content);
            // Only a word of hex digits is a choice of mutants (`KILLS edited` kills all).
            let word = after.split_whitespace().next().unwrap_or("");
            let digits = if after.starts_with(' ') && word.chars().all(|c| c.is_ascii_hexdigit()) {
                word
            } else {
                ""
            };
            if digits.is_empty() || digits.chars().any(|d| h.starts_with(d)) {
                format!("mutant {h}\n")
            } else {
                "same\n".into()
            }
        }
        _ => "same\n".into(),
    };
    scripted::result(outcome, &log)
}

/// A one-function repository with the bug of the tiny instance (`clamp(15, 0, 10)` is 9):
/// `dir/repo`, and its issue at `dir/issue.md`.
pub fn tiny_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("calc")).expect("a temp dir");
    std::fs::create_dir_all(repo.join("tests")).expect("a temp dir");
    std::fs::write(repo.join("calc/__init__.py"), "").expect("a temp dir");
    std::fs::write(
        repo.join("calc/ops.py"),
        "def clamp(x, lo, hi):\n    \"\"\"Clamp x to [lo, hi].\"\"\"\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi - 1\n    return x\n",
    )
    .expect("a temp dir");
    std::fs::write(
        dir.join("issue.md"),
        "clamp(15, 0, 10) returns 9, expected 10\n",
    )
    .expect("a temp dir");
    repo
}

/// A finished session of the scripted engine: four tests of a small function, real
/// mutants, scripted results (no Python), the same every time.
pub fn finished_session() -> SessionDoc {
    let cands = [
        (
            "test_a.py",
            "# FAILS KILLS 0123456789ab\ndef test_a(): pass\n",
        ),
        ("test_b.py", "# FAILS KILLS 01234\ndef test_b(): pass\n"),
        (
            "test_c.py",
            "# KILLS 0123456789abcdef\ndef test_c(): pass\n",
        ),
        ("test_d.py", "def test_d(): pass\n"),
    ];
    let config = RunConfig {
        mutants: 8,
        ..config(SelectionStrategy::Mutation)
    };
    scripted_run(&cands, config)
}

/// Four tests failing on `c_old`, each killing the mutants whose content hash starts with
/// one of its digits, with `--mutants 16`: generation 0's first sample ties two of them
/// across the cut and the mutants drawn to settle it tell them apart.
pub const TIED_CANDIDATES: [(&str, &str); 4] = [
    ("test_a.py", "# FAILS KILLS 01234567\ndef test_a(): pass\n"),
    ("test_b.py", "# FAILS KILLS 012389ab\ndef test_b(): pass\n"),
    ("test_c.py", "# FAILS KILLS 89abcdef\ndef test_c(): pass\n"),
    ("test_d.py", "# FAILS KILLS 4567cdef\ndef test_d(): pass\n"),
];

/// The scripted run of `TIED_CANDIDATES`, with tie settling on or off.
pub fn tied_session(settle_ties: bool) -> SessionDoc {
    let cfg = RunConfig {
        settle_ties,
        mutants: 16,
        ..config(SelectionStrategy::Mutation)
    };
    scripted_run(&TIED_CANDIDATES, cfg)
}

/// A whole run of the scripted engine (scripted results by `answer`, no Python, no model)
/// of `candidates` (file name, source) on a small function with real mutants, to its end.
pub fn scripted_run(candidates: &[(&str, &str)], config: RunConfig) -> SessionDoc {
    let dir = tempfile::tempdir().expect("a temp dir").keep();
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("calc")).expect("a temp dir");
    std::fs::write(
        repo.join("calc/ops.py"),
        "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi - 1\n    return x + 0\n",
    )
    .expect("a temp dir");
    let cands = candidates
        .iter()
        .map(|(n, s)| (dir.join(n), s.to_string()))
        .collect();
    let inputs = Inputs {
        repo,
        issue_path: None,
        issue_text: "clamp".into(),
        focal: vec!["calc/ops.py::clamp".parse().expect("a focal function")],
        initial_tests_dir: None,
        golden_patch: None,
        instance: Some("fixture".into()),
        repo_fingerprint: String::new(),
    };
    let doc = crate::engine::setup::new_session(inputs, config, cands).expect("a session");
    let exec = Arc::new(ScriptedExecutor::new(answer));
    let mut engine = Engine::new(doc, dir.join("session.json"), exec, None);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(engine.run_to_end())
        .expect("the scripted run ends");
    engine.doc
}

/// A run of one test file, with no mutant.
pub fn request(rel: &str, content: &str, timeout: Duration) -> ExecRequest {
    ExecRequest {
        test: FileOverride {
            rel_path: rel.into(),
            content: content.into(),
        },
        overrides: vec![],
        removed: vec![],
        timeout,
        trace: vec![],
        tracer: Default::default(),
        per_test: false,
        select: vec![],
        stop_at_first_failure: false,
    }
}

/// `m` applied to its file of `repo`, as the executor receives a mutant.
pub fn mutant_override(repo: &Path, m: &Mutant) -> FileOverride {
    let original = std::fs::read_to_string(repo.join(&m.file)).expect("the mutant's file");
    FileOverride {
        rel_path: m.file.clone(),
        content: m.apply(&original),
    }
}

/// An example's candidate tests, in name order, placed in its test directory: `(rel path,
/// source)`.
pub fn candidates(inst: &Instance) -> Vec<(String, String)> {
    let dir = inst
        .initial_tests
        .clone()
        .expect("the example has candidates");
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the candidates' directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    tests.sort();
    let test_dir = inst.test_dir.clone().unwrap_or_else(|| "tests".into());
    tests
        .iter()
        .map(|t| {
            (
                format!(
                    "{test_dir}/{}",
                    t.file_name().unwrap_or_default().to_string_lossy()
                ),
                std::fs::read_to_string(t).expect("a candidate"),
            )
        })
        .collect()
}

/// Every candidate of `inst` on every variant (no override: `c_old`; a mutant's override),
/// candidate by candidate, under `timeout`.
pub fn requests(
    inst: &Instance,
    variants: &[Vec<FileOverride>],
    timeout: Duration,
) -> Vec<ExecRequest> {
    let mut out = vec![];
    for (rel, source) in candidates(inst) {
        for overrides in variants {
            let mut r = request(&rel, &source, timeout);
            r.overrides = overrides.clone();
            out.push(r);
        }
    }
    out
}
