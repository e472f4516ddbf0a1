//! SWE-bench-style instance rows (`instance_id`, `repo`, `base_commit`, `problem_statement`,
//! `patch`, `test_patch`, optional `image`, `FAIL_TO_PASS`), one JSON object per line, and
//! `c_old` prepared from a local mirror (`--repos DIR`: `DIR/OWNER/NAME` or
//! `DIR/OWNER/NAME.git`, a checkout or a bare repository). Nothing is ever fetched.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Clone, Deserialize)]
pub struct Row {
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    pub base_commit: String,
    pub problem_statement: String,
    /// The golden fix: used only to evaluate, never shown to the engine or the model.
    pub patch: String,
    /// The developer's test: used only by `--validate`.
    #[serde(default)]
    pub test_patch: String,
    /// The instance's Docker image (the newest SWE-bench rows carry one).
    #[serde(default)]
    pub image: Option<String>,
    /// The developer's fail-to-pass tests (SWE-bench stores a JSON list as a string).
    #[serde(default, rename = "FAIL_TO_PASS", deserialize_with = "string_or_list")]
    pub fail_to_pass: Vec<String>,
    /// evootter's own overrides of the layout it would otherwise find.
    #[serde(default)]
    pub pythonpath: Option<Vec<String>>,
    #[serde(default)]
    pub test_dir: Option<String>,
    /// A scripted model for this instance (recorded replies), relative to the rows file.
    #[serde(default)]
    pub llm_script: Option<PathBuf>,
}

fn string_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        List(Vec<String>),
        Text(String),
    }
    Ok(match Either::deserialize(d)? {
        Either::List(v) => v,
        Either::Text(s) if s.trim().is_empty() => vec![],
        Either::Text(s) => serde_json::from_str(&s).map_err(serde::de::Error::custom)?,
    })
}

/// A line of the rows file that is not an instance: its number and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    pub line: usize,
    pub id: Option<String>,
    pub error: String,
}

impl BadRow {
    /// Its instance id, or `line-N` when even that could not be read.
    pub fn name(&self) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| format!("line-{}", self.line))
    }
}

/// Every row of `path`, in order; rows that do not parse come back as `BadRow`s, so one broken
/// line costs only its instance.
pub fn read(path: &Path) -> std::io::Result<Vec<Result<Row, BadRow>>> {
    let text = std::fs::read_to_string(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let line = i + 1;
            let id = serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .and_then(|v| v.get("instance_id")?.as_str().map(str::to_string));
            let mut row: Row = serde_json::from_str(l).map_err(|e| BadRow {
                line,
                id: id.clone(),
                error: format!("line {line} is not an instance row: {e}"),
            })?;
            if row.instance_id.trim().is_empty() || row.instance_id.contains('/') {
                return Err(BadRow {
                    line,
                    id,
                    error: format!(
                        "line {line}: instance_id `{}` must be a non-empty name without `/`",
                        row.instance_id
                    ),
                });
            }
            if let Some(s) = &row.llm_script
                && s.is_relative()
            {
                row.llm_script = Some(base.join(s));
            }
            Ok(row)
        })
        .collect())
}

#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(
        "no mirror of {repo} in {dir}: put a checkout or a bare repository at {dir}/{repo} or {dir}/{repo}.git (evootter never fetches)"
    )]
    NoMirror { repo: String, dir: PathBuf },
    #[error("base commit {commit} is not in the mirror {mirror}; update the mirror (git fetch)")]
    NoCommit { commit: String, mirror: PathBuf },
    #[error("git failed preparing {what}: {detail}")]
    Git { what: String, detail: String },
}

/// The mirror of `owner/name` in `repos`.
pub fn mirror(repos: &Path, repo: &str) -> Result<PathBuf, PrepareError> {
    [repos.join(repo), repos.join(format!("{repo}.git"))]
        .into_iter()
        .find(|p| p.is_dir())
        .ok_or_else(|| PrepareError::NoMirror {
            repo: repo.to_string(),
            dir: repos.to_path_buf(),
        })
}

fn git(args: &[&str], cwd: Option<&Path>, what: &str) -> Result<String, PrepareError> {
    let mut c = Command::new("git");
    if let Some(d) = cwd {
        c.current_dir(d);
    }
    // A mirror is read, never written; no hook, no network.
    c.args([
        "-c",
        "protocol.allow=never",
        "-c",
        "protocol.file.allow=always",
    ])
    .args(args)
    .env("GIT_TERMINAL_PROMPT", "0");
    let o = c.output().map_err(|e| PrepareError::Git {
        what: what.to_string(),
        detail: e.to_string(),
    })?;
    if !o.status.success() {
        return Err(PrepareError::Git {
            what: what.to_string(),
            detail: String::from_utf8_lossy(&o.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// `c_old` of `row` as a fresh checkout at `dest` (shares the mirror's objects; the mirror is
/// not changed). An existing checkout at the right commit is kept.
pub fn checkout(mirror: &Path, row: &Row, dest: &Path) -> Result<(), PrepareError> {
    let head = |d: &Path| git(&["rev-parse", "HEAD"], Some(d), "a checkout").ok();
    if dest.join(".git").exists()
        && head(dest).is_some_and(|h| h.trim().starts_with(row.base_commit.trim()))
    {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dest);
    let exists = git(
        &["cat-file", "-e", &format!("{}^{{commit}}", row.base_commit)],
        Some(mirror),
        "the mirror",
    );
    if exists.is_err() {
        return Err(PrepareError::NoCommit {
            commit: row.base_commit.clone(),
            mirror: mirror.to_path_buf(),
        });
    }
    let src = mirror.display().to_string();
    let dst = dest.display().to_string();
    git(
        &["clone", "--quiet", "--shared", "--no-checkout", &src, &dst],
        None,
        &format!("a checkout of {}", row.repo),
    )?;
    git(
        &["checkout", "--quiet", "--detach", &row.base_commit],
        Some(dest),
        &format!("{} at {}", row.repo, row.base_commit),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_swe_bench_fields_and_bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rows.jsonl");
        std::fs::write(
            &p,
            concat!(
                r#"{"instance_id": "a__b-1", "repo": "a/b", "base_commit": "abc", "problem_statement": "x", "patch": "p", "test_patch": "t", "FAIL_TO_PASS": "[\"tests/t.py::test_x\"]"}"#,
                "\n",
                r#"{"instance_id": "a__b-2", "repo": "a/b"}"#,
                "\n\n",
                r#"{"instance_id": "a__b-3", "repo": "a/b", "base_commit": "abc", "problem_statement": "x", "patch": "p", "FAIL_TO_PASS": ["t::a"], "llm_script": "s.json"}"#,
                "\n"
            ),
        )
        .unwrap();
        let rows = read(&p).unwrap();
        assert_eq!(rows.len(), 3);
        let r0 = rows[0].as_ref().unwrap();
        assert_eq!(r0.fail_to_pass, ["tests/t.py::test_x"]);
        let bad = rows[1].as_ref().unwrap_err();
        assert_eq!(bad.line, 2);
        assert_eq!(bad.id.as_deref(), Some("a__b-2"));
        assert!(bad.error.contains("base_commit"), "{}", bad.error);
        let r2 = rows[2].as_ref().unwrap();
        assert_eq!(
            r2.llm_script.as_deref(),
            Some(dir.path().join("s.json").as_path())
        );
    }
}
