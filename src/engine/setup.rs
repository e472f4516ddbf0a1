//! Turning user input into a fresh session document: reading the initial population, placing
//! each test in the repository layout, and checking everything a run needs before it starts.

use super::config::RunConfig;
use super::session::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(
        "repository {0} does not exist or is not a directory; pass the project's root with --repo"
    )]
    NoRepo(PathBuf),
    #[error("cannot read the issue file {path}: {source}")]
    Issue {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "initial tests directory {0} does not exist; pass a directory of test_*.py files with --initial-tests"
    )]
    NoTestsDir(PathBuf),
    #[error("{0} holds no *.py files; put one candidate test module per file there")]
    EmptyTestsDir(PathBuf),
    #[error("cannot read candidate test {path}: {source}")]
    ReadTest {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the repository {path}: {source}")]
    ReadRepo {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no focal function given; name at least one with --focal FILE::QUALNAME")]
    NoFocal,
    #[error(
        "focal file {file} does not exist in {repo}; focal paths are relative to the repository root"
    )]
    NoFocalFile { file: String, repo: PathBuf },
    #[error("--tests must be at least 1")]
    NoTests,
}

/// The `*.py` files of `dir` in name order, the first `n` of them.
pub fn read_candidates(dir: &Path, n: usize) -> Result<Vec<(PathBuf, String)>, SetupError> {
    candidate_files(dir)?
        .into_iter()
        .take(n)
        .map(|p| {
            let text = std::fs::read_to_string(&p).map_err(|source| SetupError::ReadTest {
                path: p.clone(),
                source,
            })?;
            Ok((p, text))
        })
        .collect()
}

/// The candidate files of `dir` (its `.py` files), in name order; at least one.
pub fn candidate_files(dir: &Path) -> Result<Vec<PathBuf>, SetupError> {
    if !dir.is_dir() {
        return Err(SetupError::NoTestsDir(dir.to_path_buf()));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| SetupError::ReadTest {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(SetupError::EmptyTestsDir(dir.to_path_buf()));
    }
    Ok(files)
}

/// Where a test named `name` goes inside the repo: `test_dir/name`, or a name that does not
/// collide with a file the repository already has (the final patch must only add a file).
pub fn place_test(repo: &Path, test_dir: &str, name: &str, taken: &BTreeSet<String>) -> String {
    let dir = test_dir.trim_matches('/');
    let join = |n: &str| {
        if dir.is_empty() || dir == "." {
            n.to_string()
        } else {
            format!("{dir}/{n}")
        }
    };
    let stem = name.strip_suffix(".py").unwrap_or(name);
    let mut candidate = join(name);
    let mut i = 1;
    while repo.join(&candidate).exists() || taken.contains(&candidate) {
        candidate = join(&format!(
            "{stem}_evootter{}.py",
            if i == 1 { String::new() } else { i.to_string() }
        ));
        i += 1;
    }
    candidate
}

/// Test directory default: `tests/` when the repo has one, else `test/`, else the root.
pub fn default_test_dir(repo: &Path) -> String {
    ["tests", "test"]
        .into_iter()
        .find(|d| repo.join(d).is_dir())
        .unwrap_or(".")
        .to_string()
}

/// A fingerprint of everything an execution sees of the repository (the files a working copy
/// gets): paths, sizes and contents. A resumed session or reused executions are only valid
/// while it is unchanged.
pub fn repo_fingerprint(repo: &Path) -> std::io::Result<String> {
    let mut acc = String::new();
    for rel in crate::exec::copying::repo_files(repo)? {
        let bytes = std::fs::read(repo.join(&rel))?;
        acc.push_str(&format!("{rel}\0{}\n", crate::hash::sha256_hex(bytes)));
    }
    Ok(crate::hash::sha256_hex(acc))
}

/// Take over the executions of an earlier session (`--reuse-executions`): same repository
/// content, same interpreter and layout, so a (test content, mutant id) pair means the same
/// run. Comparing strategies on one instance then costs the executions only once. Returns how
/// many were taken.
pub fn reuse_executions(doc: &mut SessionDoc, other: &SessionDoc) -> Result<usize, String> {
    let mismatch = |what: &str| {
        Err(format!(
            "cannot reuse its executions: the {what} differs from this run's"
        ))
    };
    if other.inputs.repo_fingerprint.is_empty()
        || other.inputs.repo_fingerprint != doc.inputs.repo_fingerprint
    {
        return mismatch("repository content");
    }
    if other.config.python != doc.config.python {
        return mismatch("Python interpreter");
    }
    if other.config.pythonpath != doc.config.pythonpath {
        return mismatch("PYTHONPATH");
    }
    if other.config.test_dir != doc.config.test_dir {
        return mismatch("test directory");
    }
    if other.config.timeout_secs != doc.config.timeout_secs {
        return mismatch("timeout");
    }
    let placed: BTreeSet<(&str, &str)> = doc
        .tests
        .values()
        .map(|c| (c.hash.as_str(), c.rel_path.as_str()))
        .collect();
    let theirs: BTreeMap<&str, &str> = other
        .tests
        .values()
        .map(|c| (c.hash.as_str(), c.rel_path.as_str()))
        .collect();
    // The repository's own test modules that judged its rescuers (`engine::witness`): the
    // same repository content holds them at the same paths.
    let witnesses: BTreeSet<&str> = other
        .witnesses
        .iter()
        .flat_map(|w| &w.modules)
        .map(|m| m.hash.as_str())
        .collect();
    let mut taken = 0;
    for (key, e) in &other.executions {
        // The same test content placed at the same path (the path shows in the log).
        let same_place = witnesses.contains(e.test_hash.as_str())
            || theirs
                .get(e.test_hash.as_str())
                .is_some_and(|p| placed.contains(&(e.test_hash.as_str(), *p)));
        if !same_place || doc.executions.contains_key(key) {
            continue;
        }
        for log in [&e.raw_log, &e.normalized_log] {
            if let Some(t) = other.logs.get(log) {
                doc.logs.insert(log.clone(), t.clone());
            }
        }
        doc.executions.insert(key.clone(), e.clone());
        taken += 1;
    }
    Ok(taken)
}

/// PYTHONPATH default: the repo root, plus `src/` when it exists.
pub fn default_pythonpath(repo: &Path) -> Vec<String> {
    let mut v = vec![".".to_string()];
    if repo.join("src").is_dir() {
        v.push("src".into());
    }
    v
}

pub fn new_session(
    mut inputs: Inputs,
    config: RunConfig,
    candidates: Vec<(PathBuf, String)>,
) -> Result<SessionDoc, SetupError> {
    if !inputs.repo.is_dir() {
        return Err(SetupError::NoRepo(inputs.repo.clone()));
    }
    inputs.repo = inputs.repo.canonicalize().unwrap_or(inputs.repo);
    inputs.repo_fingerprint =
        repo_fingerprint(&inputs.repo).map_err(|source| SetupError::ReadRepo {
            path: inputs.repo.clone(),
            source,
        })?;
    // Without focal functions or tests, the model's BaseBRT steps must provide them.
    let with_model = config.llm.is_some();
    if inputs.focal.is_empty() && !with_model {
        return Err(SetupError::NoFocal);
    }
    for f in &inputs.focal {
        if !inputs.repo.join(&f.file).is_file() {
            return Err(SetupError::NoFocalFile {
                file: f.file.clone(),
                repo: inputs.repo.clone(),
            });
        }
    }
    if candidates.is_empty() && !with_model {
        return Err(SetupError::NoTests);
    }
    let phase = if inputs.focal.is_empty() {
        Phase::Localize
    } else if candidates.is_empty() {
        Phase::Contextualize
    } else {
        Phase::Mutate
    };
    let mut tests = BTreeMap::new();
    let mut initial = Vec::new();
    let mut taken = BTreeSet::new();
    for (i, (path, source)) in candidates.into_iter().enumerate() {
        let id = format!("t{}", i + 1);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("test_candidate_{}.py", i + 1));
        let rel_path = place_test(&inputs.repo, &config.test_dir, &name, &taken);
        taken.insert(rel_path.clone());
        let cand = Candidate {
            id: id.clone(),
            name,
            rel_path,
            hash: crate::hash::sha256_hex(&source),
            source,
            origin: Origin::Initial { file: path },
        };
        tests.insert(id.clone(), cand);
        initial.push(id);
    }
    let now = now_unix();
    Ok(SessionDoc {
        schema_version: SCHEMA_VERSION,
        evootter_version: env!("CARGO_PKG_VERSION").to_string(),
        created_unix: now,
        updated_unix: now,
        inputs,
        config,
        phase,
        pool: None,
        tests,
        initial_population: initial,
        generations: vec![],
        executions: BTreeMap::new(),
        logs: BTreeMap::new(),
        final_test: None,
        environment_error: None,
        evaluation: BTreeMap::new(),
        timings: Timings::default(),
        notes: vec![],
        llm_calls: vec![],
        base_brt: None,
        acts: vec![],
        witnesses: None,
        repairs: vec![],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_avoids_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/test_a.py"), "").unwrap();
        let taken = BTreeSet::new();
        assert_eq!(
            place_test(dir.path(), "tests", "test_b.py", &taken),
            "tests/test_b.py"
        );
        assert_eq!(
            place_test(dir.path(), "tests", "test_a.py", &taken),
            "tests/test_a_evootter.py"
        );
        assert_eq!(
            place_test(dir.path(), ".", "test_a.py", &taken),
            "test_a.py"
        );
        assert_eq!(default_test_dir(dir.path()), "tests");
        assert_eq!(default_pythonpath(dir.path()), vec!["."]);
    }
}
