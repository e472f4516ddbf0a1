//! Fail-to-pass evaluation against a golden patch. The patch is turned into file overrides
//! (the patched content of every file it touches), so any executor can run `c_old + patch`
//! in its own isolated copy; the user's repository is never patched.

use crate::exec::{ExecRequest, Executor, FileOverride, Outcome};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Fail-to-pass status of a test against a golden patch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct F2p {
    pub old: Outcome,
    pub new: Outcome,
    pub f2p: bool,
}

impl F2p {
    /// F2P: fails or errors on `c_old`, passes on `c_old` + golden patch.
    pub fn from_outcomes(old: Outcome, new: Outcome) -> Self {
        let f2p = old != Outcome::Passed && new == Outcome::Passed;
        Self { old, new, f2p }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot read golden patch {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "golden patch {0} touches no file (is it a unified diff with --- a/ and +++ b/ lines?)"
    )]
    Empty(PathBuf),
    #[error(
        "golden patch {path} does not apply to {repo}: {detail}\nCheck that the patch was made against this commit, with paths relative to the repository root"
    )]
    DoesNotApply {
        path: PathBuf,
        repo: PathBuf,
        detail: String,
    },
    #[error("git is needed to apply the golden patch and could not be run: {0}. Install git")]
    Git(std::io::Error),
    #[error("temporary directory: {0}")]
    Io(#[from] std::io::Error),
}

/// Files a patch touches: (path before, path after), `None` for /dev/null.
fn touched(patch: &str) -> Vec<(Option<String>, Option<String>)> {
    let strip = |s: &str, prefix: &str| -> Option<String> {
        let s = s.split('\t').next().unwrap_or(s).trim_end();
        if s == "/dev/null" {
            None
        } else {
            Some(s.strip_prefix(prefix).unwrap_or(s).to_string())
        }
    };
    let mut out = Vec::new();
    let mut before = None;
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("--- ") {
            before = Some(strip(rest, "a/"));
        } else if let Some(rest) = line.strip_prefix("+++ ")
            && let Some(b) = before.take()
        {
            out.push((b, strip(rest, "b/")));
        }
    }
    out
}

/// What applying a patch does to the files of a repository, in the form an executor takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatchedFiles {
    /// The new content of every file the patch changes or adds.
    pub changed: Vec<FileOverride>,
    /// Files the patch deletes.
    pub removed: Vec<String>,
}

impl PatchedFiles {
    /// A run of `test` on the repository with these changes (none: `c_old`).
    pub fn request(&self, test: FileOverride, timeout: Duration) -> ExecRequest {
        ExecRequest {
            test,
            overrides: self.changed.clone(),
            removed: self.removed.clone(),
            timeout,
            trace: vec![],
            tracer: Default::default(),
            per_test: false,
            select: vec![],
            stop_at_first_failure: false,
        }
    }
}

/// The files the golden patch changes, adds or deletes, after applying it to a scratch copy
/// of the files it touches in `repo`.
pub fn golden_files(repo: &Path, patch_path: &Path) -> Result<PatchedFiles, EvalError> {
    let patch = std::fs::read_to_string(patch_path).map_err(|source| EvalError::Read {
        path: patch_path.to_path_buf(),
        source,
    })?;
    let files = touched(&patch);
    if files.is_empty() {
        return Err(EvalError::Empty(patch_path.to_path_buf()));
    }
    let tmp = tempfile::tempdir()?;
    // The files as they are before the patch; `git apply` changes, creates and deletes.
    for b in files.iter().filter_map(|(before, _)| before.as_ref()) {
        let src = repo.join(b);
        let dst = tmp.path().join(b);
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if src.is_file() {
            std::fs::copy(&src, &dst)?;
        }
    }
    let abs_patch = patch_path
        .canonicalize()
        .unwrap_or_else(|_| patch_path.to_path_buf());
    // `git init` makes the temp dir its own repository root, so `git apply` resolves paths
    // against it even when /tmp sits inside some other checkout.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(tmp.path())
            .output()
            .map_err(EvalError::Git)
    };
    git(&["init", "-q"])?;
    let out = git(&["apply", "--whitespace=nowarn", &abs_patch.to_string_lossy()])?;
    if !out.status.success() {
        return Err(EvalError::DoesNotApply {
            path: patch_path.to_path_buf(),
            repo: repo.to_path_buf(),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let mut out = PatchedFiles::default();
    for (before, after) in files {
        match (before, after) {
            (_, Some(a)) => {
                let content = std::fs::read_to_string(tmp.path().join(&a))?;
                out.changed.push(FileOverride {
                    rel_path: a,
                    content,
                });
            }
            (Some(b), None) => out.removed.push(b),
            (None, None) => {}
        }
    }
    Ok(out)
}

/// Run `test` on `c_old` and on `c_old` + golden patch.
pub async fn evaluate(
    executor: &dyn Executor,
    test: FileOverride,
    golden: &PatchedFiles,
    timeout: Duration,
) -> Result<(F2p, crate::exec::ExecResult, crate::exec::ExecResult), crate::exec::ExecError> {
    let old_req = PatchedFiles::default().request(test.clone(), timeout);
    let new_req = golden.request(test, timeout);
    let (old, new) = tokio::join!(executor.run(old_req), executor.run(new_req));
    let (old, new) = (old?, new?);
    Ok((F2p::from_outcomes(old.outcome, new.outcome), old, new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_files_apply_to_a_copy_only() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir(repo.path().join("pkg")).unwrap();
        std::fs::write(
            repo.path().join("pkg/m.py"),
            "def f(x):\n    return x < 3\n",
        )
        .unwrap();
        let patch = "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x < 3\n+    return x <= 3\n\
                     --- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+X = 1\n\
                     --- a/pkg/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-Y = 2\n";
        std::fs::write(repo.path().join("pkg/old.py"), "Y = 2\n").unwrap();
        let pp = repo.path().join("fix.patch");
        std::fs::write(&pp, patch).unwrap();
        let files = golden_files(repo.path(), &pp).unwrap();
        assert_eq!(files.removed, vec!["pkg/old.py"]);
        let o = files.changed;
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].rel_path, "pkg/m.py");
        assert!(o[0].content.contains("x <= 3"));
        assert_eq!(o[1].rel_path, "pkg/new.py");
        // The repository itself is untouched.
        let orig = std::fs::read_to_string(repo.path().join("pkg/m.py")).unwrap();
        assert!(orig.contains("x < 3"));
        assert!(!repo.path().join("pkg/new.py").exists());
        assert!(repo.path().join("pkg/old.py").exists());

        std::fs::write(&pp, patch.replace("x < 3", "x > 99")).unwrap();
        let err = golden_files(repo.path(), &pp).unwrap_err().to_string();
        assert!(err.contains("does not apply"), "{err}");
    }
}
