//! SWE-bench-style instance rows (`instance_id`, `repo`, `base_commit`, `problem_statement`,
//! `patch`, `test_patch`, optional `image`, `FAIL_TO_PASS`), one JSON object per line, and
//! `c_old` prepared from a local mirror (`--repos DIR`: `DIR/OWNER/NAME` or
//! `DIR/OWNER/NAME.git`, a checkout or a bare repository). Nothing is ever fetched.

use serde::Deserialize;
use std::collections::BTreeMap;
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
    /// The instance's Docker image (the newest SWE-bench rows carry one; SWE-rebench names it
    /// `docker_image`, some exports `image_name`).
    #[serde(default, alias = "docker_image", alias = "image_name")]
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
    /// The initial candidates (file name -> source), as `run --initial-tests` takes a
    /// directory of them: two methods compared from the same tests.
    #[serde(default)]
    pub initial_tests: Option<BTreeMap<String, String>>,
    /// The focal functions (`FILE::QUALNAME`), as `run --focal` takes them.
    #[serde(default)]
    pub focal: Vec<String>,
    /// Every other field of the row (`created_at`, `PASS_TO_PASS`, `hints_text`, `version`,
    /// `environment_setup_commit`, `install_config`, ...): kept in the instance's record,
    /// never shown to the engine or the model.
    #[serde(flatten)]
    pub fields: BTreeMap<String, serde_json::Value>,
}

/// The fields of SWE-bench, SWT-bench, TDD-Bench and SWE-rebench rows that evootter keeps
/// without using; any other field a row has is named once in the batch's notes (a typo of a
/// field evootter reads would otherwise pass unseen).
pub const KEPT_FIELDS: &[&str] = &[
    "created_at",
    "PASS_TO_PASS",
    "hints_text",
    "version",
    "environment_setup_commit",
    "install_config",
    "requirements",
    "environment",
    "meta",
    "license_name",
    "test_cmds",
    "log_parser",
    "difficulty",
    "test_file",
    "test_directives",
];

/// The fields of `rows` that no benchmark evootter knows has, each with how many rows carry it.
pub fn unknown_fields<'a>(rows: impl IntoIterator<Item = &'a Row>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for r in rows {
        for k in r
            .fields
            .keys()
            .filter(|k| !KEPT_FIELDS.contains(&k.as_str()))
        {
            *out.entry(k.clone()).or_default() += 1;
        }
    }
    out
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

    /// A row as SWE-rebench's dataset card documents it: its `docker_image` is the instance's
    /// image, every field is kept, and a field no benchmark has is the one named.
    #[test]
    fn a_swe_rebench_row_keeps_its_image_and_fields_and_names_the_unknown_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rows.jsonl");
        let row = serde_json::json!({
            "instance_id": "pallets__click-2271",
            "repo": "pallets/click",
            "base_commit": "abc",
            "patch": "p",
            "test_patch": "t",
            "problem_statement": "x",
            "hints_text": "",
            "created_at": "2025-03-01T10:00:00Z",
            "version": "8.1",
            "FAIL_TO_PASS": "[\"tests/test_a.py::test_x\"]",
            "PASS_TO_PASS": "[\"tests/test_a.py::test_y\"]",
            "environment_setup_commit": "def",
            "install_config": {"python": "3.11", "install": "pip install -e ."},
            "meta": {"num_modified_files": 1},
            "license_name": "BSD-3-Clause",
            "docker_image": "swerebench/sweb.eval.x86_64.pallets_1776_click-2271",
            "my_note": "hand-made",
            "initial_tests": {"test_issue.py": "def test_x():\n    assert False\n"},
            "focal": ["src/click/core.py::Context.invoke"],
        });
        let other = serde_json::json!({
            "instance_id": "a__b-1", "repo": "a/b", "base_commit": "abc",
            "problem_statement": "x", "patch": "p", "image_name": "img:1"
        });
        std::fs::write(&p, format!("{row}\n{other}\n")).unwrap();
        let rows = read(&p).unwrap();
        let r = rows[0].as_ref().unwrap();
        assert_eq!(
            r.image.as_deref(),
            Some("swerebench/sweb.eval.x86_64.pallets_1776_click-2271")
        );
        assert_eq!(rows[1].as_ref().unwrap().image.as_deref(), Some("img:1"));
        for kept in [
            "hints_text",
            "created_at",
            "version",
            "PASS_TO_PASS",
            "environment_setup_commit",
            "install_config",
            "meta",
            "license_name",
            "my_note",
        ] {
            assert!(r.fields.contains_key(kept), "{kept}: {:?}", r.fields.keys());
        }
        assert!(!r.fields.contains_key("docker_image") && !r.fields.contains_key("focal"));
        assert_eq!(r.focal, ["src/click/core.py::Context.invoke"]);
        assert_eq!(r.initial_tests.as_ref().unwrap().len(), 1);
        let unknown = unknown_fields(rows.iter().filter_map(|r| r.as_ref().ok()));
        assert_eq!(
            unknown.into_iter().collect::<Vec<_>>(),
            [("my_note".to_string(), 1)]
        );
    }
}
