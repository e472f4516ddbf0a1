//! A bundled or benchmark instance: a repository at `c_old`, an issue, candidate tests, focal
//! functions and (for evaluation only) the golden patch and test, described by
//! `instance.toml`. Paths in the file are relative to the instance directory.

use crate::python::FocalFunction;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInstance {
    name: String,
    #[serde(default)]
    description: String,
    repo: PathBuf,
    issue: PathBuf,
    golden_patch: Option<PathBuf>,
    golden_test: Option<PathBuf>,
    initial_tests: Option<PathBuf>,
    test_dir: Option<String>,
    pythonpath: Option<Vec<String>>,
    #[serde(default)]
    focal: Vec<String>,
    llm_script: Option<PathBuf>,
    start: Option<Start>,
    #[serde(default)]
    run: RunDefaults,
}

/// Where a run of the instance begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// The paper's full workflow: the model localizes the focal functions and writes the
    /// initial population (BaseBRT, paper III-B).
    Basebrt,
    /// The instance's own candidate tests and focal functions; the model, if any, only
    /// selects and crosses over.
    Candidates,
}

impl std::str::FromStr for Start {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "basebrt" => Ok(Start::Basebrt),
            "candidates" => Ok(Start::Candidates),
            _ => Err(format!(
                "unknown start `{s}`; expected basebrt (the model writes the tests) or \
                 candidates (the instance's own tests)"
            )),
        }
    }
}

/// `[run]` table: defaults for `evootter run --instance`; command-line flags win.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDefaults {
    pub tests: Option<usize>,
    pub mutants: Option<usize>,
    pub seed: Option<u64>,
    pub timeout: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Instance {
    pub dir: PathBuf,
    pub name: String,
    pub description: String,
    pub repo: PathBuf,
    pub issue: PathBuf,
    pub golden_patch: Option<PathBuf>,
    pub golden_test: Option<PathBuf>,
    pub initial_tests: Option<PathBuf>,
    pub test_dir: Option<String>,
    pub pythonpath: Option<Vec<String>>,
    pub focal: Vec<FocalFunction>,
    /// Recorded model replies for the whole workflow: the instance's model when the user
    /// names none (always labelled as scripted).
    pub llm_script: Option<PathBuf>,
    /// `start` as written, or `candidates` when the instance has candidate tests, else
    /// `basebrt`.
    pub start: Start,
    pub run: RunDefaults,
}

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error(
        "{0} has no instance.toml; an instance is a directory with instance.toml, repo/, issue.md and candidates/"
    )]
    Missing(PathBuf),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a valid instance file: {detail}")]
    Invalid { path: PathBuf, detail: String },
}

impl Instance {
    /// Load `dir/instance.toml` (or the file itself when `dir` names it).
    pub fn load(dir: &Path) -> Result<Self, InstanceError> {
        let (dir, file) = if dir.is_file() {
            (
                dir.parent().unwrap_or(Path::new(".")).to_path_buf(),
                dir.to_path_buf(),
            )
        } else {
            (dir.to_path_buf(), dir.join("instance.toml"))
        };
        if !file.is_file() {
            return Err(InstanceError::Missing(dir));
        }
        let text = std::fs::read_to_string(&file).map_err(|source| InstanceError::Read {
            path: file.clone(),
            source,
        })?;
        let invalid = |detail: String| InstanceError::Invalid {
            path: file.clone(),
            detail,
        };
        let raw: RawInstance = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        let focal = raw
            .focal
            .iter()
            .map(|f| {
                f.parse::<FocalFunction>()
                    .map_err(|e| invalid(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let start = raw.start.unwrap_or(if raw.initial_tests.is_some() {
            Start::Candidates
        } else {
            Start::Basebrt
        });
        let at = |p: PathBuf| dir.join(p);
        let inst = Instance {
            name: raw.name,
            description: raw.description,
            repo: at(raw.repo),
            issue: at(raw.issue),
            golden_patch: raw.golden_patch.map(at),
            golden_test: raw.golden_test.map(at),
            initial_tests: raw.initial_tests.map(at),
            test_dir: raw.test_dir,
            pythonpath: raw.pythonpath,
            focal,
            llm_script: raw.llm_script.map(at),
            start,
            run: raw.run,
            dir: dir.clone(),
        };
        for (what, p) in [("repo", Some(&inst.repo)), ("issue", Some(&inst.issue))]
            .into_iter()
            .chain([("golden_patch", inst.golden_patch.as_ref())])
            .chain([("initial_tests", inst.initial_tests.as_ref())])
            .chain([("llm_script", inst.llm_script.as_ref())])
        {
            if let Some(p) = p
                && !p.exists()
            {
                return Err(invalid(format!("{what} = {} does not exist", p.display())));
            }
        }
        if inst.start == Start::Candidates && inst.initial_tests.is_none() {
            return Err(invalid(
                "start = \"candidates\" needs initial_tests = \"DIR\" (the candidate tests)"
                    .to_string(),
            ));
        }
        Ok(inst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_instance_files_get_clear_errors() {
        let d = tempfile::tempdir().unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(err.contains("has no instance.toml"), "{err}");

        std::fs::write(d.path().join("instance.toml"), "name = 1\n").unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(err.contains("not a valid instance file"), "{err}");

        std::fs::create_dir(d.path().join("repo")).unwrap();
        std::fs::write(d.path().join("issue.md"), "x").unwrap();
        std::fs::write(
            d.path().join("instance.toml"),
            "name = \"x\"\nrepo = \"repo\"\nissue = \"issue.md\"\nfocal = [\"m.py\"]\n",
        )
        .unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(err.contains("FILE::QUALNAME"), "{err}");

        std::fs::write(
            d.path().join("instance.toml"),
            "name = \"x\"\nrepo = \"repo\"\nissue = \"issue.md\"\ngolden_patch = \"nope.patch\"\nfocal = [\"m.py::f\"]\n[run]\nseed = 3\n",
        )
        .unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(
            err.contains("golden_patch") && err.contains("does not exist"),
            "{err}"
        );

        let head = "name = \"x\"\nrepo = \"repo\"\nissue = \"issue.md\"\n";
        std::fs::write(
            d.path().join("instance.toml"),
            format!("{head}start = \"candidates\"\n"),
        )
        .unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(err.contains("needs initial_tests"), "{err}");

        std::fs::write(
            d.path().join("instance.toml"),
            format!("{head}start = \"scratch\"\n"),
        )
        .unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(
            err.contains("basebrt") && err.contains("candidates"),
            "{err}"
        );

        std::fs::write(
            d.path().join("instance.toml"),
            format!("{head}llm_script = \"replies.json\"\n"),
        )
        .unwrap();
        let err = Instance::load(d.path()).unwrap_err().to_string();
        assert!(err.contains("llm_script"), "{err}");
    }

    #[test]
    fn start_follows_the_candidates() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("repo")).unwrap();
        std::fs::create_dir_all(d.path().join("cands")).unwrap();
        std::fs::write(d.path().join("issue.md"), "x").unwrap();
        let head = "name = \"x\"\nrepo = \"repo\"\nissue = \"issue.md\"\n";
        std::fs::write(d.path().join("instance.toml"), head).unwrap();
        assert_eq!(Instance::load(d.path()).unwrap().start, Start::Basebrt);
        std::fs::write(
            d.path().join("instance.toml"),
            format!("{head}initial_tests = \"cands\"\n"),
        )
        .unwrap();
        assert_eq!(Instance::load(d.path()).unwrap().start, Start::Candidates);
    }
}
