//! A run request: every option of `run` (and `tui`) turned into a fresh session in a claimed
//! output directory, in three steps: [`super::resolve`] (the options alone, pure), then
//! [`super::probe`] (the machine: files, repository, interpreter), then the session made here.
//! Nothing is created before both checks pass. Or a saved session reopened for resuming. The
//! one place a session starts, whichever driver starts it.

use super::error::RequestError;
use super::options::RunOptions;
use super::probe::{Probed, check_jobs, probe};
use super::resolve::{Resolved, check_budget, idle_options, resolve};
use crate::engine::setup;
use crate::engine::{Inputs, SessionDoc};
use crate::instance::Instance;
use crate::outdir::{self, Intent, OutDir};
use std::path::{Path, PathBuf};

/// Where the TUI keeps sessions that were not given an `--out`: the user data directory.
pub fn default_sessions_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "evootter").map(|d| d.data_dir().join("sessions"))
}

/// A session ready to run: its document, its claimed (locked) output directory, and where it
/// is saved.
#[derive(Debug)]
pub struct Prepared {
    pub doc: SessionDoc,
    pub out: OutDir,
    pub session_path: PathBuf,
    pub resumed: bool,
}

impl RunOptions {
    /// Checks every option and file, then claims the output directory. Nothing is created
    /// before the checks pass.
    pub fn prepare(&self) -> Result<Prepared, RequestError> {
        let (doc, dir) = new_doc(self)?;
        // The model too (a missing key, a script that is not there): refused here, a run
        // leaves nothing in OUT that the same command, once fixed, would find in its way.
        super::model::build(&doc, None)?;
        let out = OutDir::claim(&dir, Intent::New { force: self.force })?;
        Ok(Prepared {
            session_path: out.session_path(),
            doc,
            out,
            resumed: false,
        })
    }
}

/// Reopens a saved session (its directory or its file) to continue it. Of `overrides`, only
/// `--base-url`, `--llm-retries`, `--jobs` and `--budget-usd` apply: everything that shapes the results stays
/// as recorded.
pub fn resume(p: &Path, overrides: &RunOptions) -> Result<Prepared, RequestError> {
    let path = if p.is_dir() {
        p.join(outdir::SESSION_FILE)
    } else {
        p.to_path_buf()
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    // Read once to refuse a missing or broken session without touching its directory (unless
    // another run holds it: that is the news), then again under the lock, as another run may
    // be rewriting it.
    if let Err(e) = resume_doc(&path) {
        outdir::ensure_unlocked(&dir)?;
        return Err(e);
    }
    let out = OutDir::claim(&dir, Intent::Resume)?;
    let (mut doc, path) = resume_doc(&path)?;
    override_on_resume(&mut doc, overrides)?;
    Ok(Prepared {
        doc,
        out,
        session_path: path,
        resumed: true,
    })
}

/// The few settings that may change between a run and its resumption: where the model is
/// reached and how hard to try (the fix for an unreachable or flaky endpoint), and how many
/// executions run at once. Everything that shapes the results stays as the session recorded it.
fn override_on_resume(doc: &mut SessionDoc, a: &RunOptions) -> Result<(), RequestError> {
    let cfg = &mut doc.config;
    if let Some(url) = &a.base_url {
        cfg.llm_base_url = Some(url.clone());
        doc.notes.push(format!("resumed with --base-url {url}"));
    }
    if let Some(n) = a.llm_retries {
        cfg.llm_retries = Some(n);
    }
    if let Some(j) = a.jobs {
        cfg.jobs = check_jobs(j)?;
    }
    if let Some(usd) = a.budget_usd {
        cfg.budget_usd = Some(check_budget(usd)?);
        doc.notes.push(format!("resumed with --budget-usd {usd}"));
    }
    Ok(())
}

pub fn resume_doc(p: &Path) -> Result<(SessionDoc, PathBuf), RequestError> {
    let path = SessionDoc::file_in(p);
    let doc = SessionDoc::load(&path)?;
    ensure!(
        doc.inputs.repo.is_dir(),
        "the session's repository {} is gone; it is needed to resume",
        doc.inputs.repo.display()
    );
    let now = setup::repo_fingerprint(&doc.inputs.repo)?;
    ensure!(
        doc.inputs.repo_fingerprint.is_empty() || doc.inputs.repo_fingerprint == now,
        "the repository {} changed since this session started, so its recorded executions no \
         longer describe it. Restore it (e.g. `git stash`), or start a new run",
        doc.inputs.repo.display()
    );
    Ok((doc, path))
}

/// The run's session, every input checked, and its output directory (checked, not yet
/// created). Nothing is written before this returns.
fn new_doc(a: &RunOptions) -> Result<(SessionDoc, PathBuf), RequestError> {
    let inst = a.instance.as_deref().map(Instance::load).transpose()?;
    let resolved = resolve(a, inst.as_ref())?;
    let probed = probe(&resolved)?;
    create(resolved, probed)
}

/// The session a resolved and probed run starts with: the machine's part set into its
/// configuration, paths made absolute (a resumed run may start elsewhere), what the checks
/// found written as its notes, and executions reused from another session.
fn create(r: Resolved, p: Probed) -> Result<(SessionDoc, PathBuf), RequestError> {
    let abs = |p: PathBuf| p.canonicalize().unwrap_or(p);
    let mut config = r.config;
    config.python = p.python;
    config.pythonpath = p.pythonpath;
    config.test_dir = p.test_dir;
    config.jobs = p.jobs;
    config.pass_env = p.pass_env;
    config.llm = config.llm.map(|spec| match spec.strip_prefix("scripted:") {
        Some(f) => format!("scripted:{}", abs(PathBuf::from(f)).display()),
        None => spec,
    });
    let inputs = Inputs {
        repo: abs(r.repo),
        issue_path: Some(abs(r.issue)),
        issue_text: p.issue_text,
        focal: r.focal,
        initial_tests_dir: r.initial_tests.map(abs),
        golden_patch: r.golden_patch.map(abs),
        instance: r.instance,
        repo_fingerprint: String::new(),
    };
    let empty_issue = inputs.issue_text.trim().is_empty();
    let mut doc = setup::new_session(inputs, config, p.candidates)?;
    if empty_issue {
        doc.notes.push(
            "the issue is empty (--allow-empty-issue): nothing says what the tests must reproduce"
                .into(),
        );
    }
    doc.notes.extend(p.python_note);
    doc.notes.extend(p.population_note);
    doc.notes.extend(idle_options(&doc.config));
    doc.notes.extend(p.syntax);
    if let Some(path) = &r.asked.reuse_executions {
        let path = SessionDoc::file_in(path);
        let other = SessionDoc::load(&path)?;
        let n = setup::reuse_executions(&mut doc, &other)
            .map_err(|e| invalid!("{}: {e}", path.display()))?;
        doc.notes
            .push(format!("reused {n} executions from {}", path.display()));
    }
    Ok((doc, r.out))
}
