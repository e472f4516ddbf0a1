//! One execution in a worker's container: stage the test and the mutated files, run pytest
//! with the shared command line and environment under its timeout, collect the log, the junit
//! report and the trace, kill what the test left, and put the copy back.

use super::client::{StepError, exec, helper, quote, remove_container};
use super::container::{KILL_ALL, WorkerState};
use super::rescan::{self, FIND_FORMAT, Listing, Run};
use super::tarball::Tarball;
use super::{DockerError, DockerExecutor, LIVE, lock};
use crate::exec::junit::{JunitReport, parse_junit};
use crate::exec::pytest_run::{self, Finished, LogBuffer};
use crate::exec::seal::Staged;
use crate::exec::types::{ExecError, ExecRequest, ExecResult};
use std::path::Path;
use std::time::Instant;

/// Touched right before pytest starts: every file whose status changes during the run is newer.
pub(super) const STAGE_MARK: &str = "/tmp/evootter/stage.mark";

/// Separates the sections of the collecting exec's output. It starts and ends with NUL, which
/// a junit report, a trace, find's listing fields and sha256sum lines never contain there.
pub(super) const SECTION: &str = "\0<evootter-section>\0";

/// Why a run on a worker did not give a result.
pub(super) enum RunError {
    /// A call to the worker's host failed at this step.
    Host(&'static str, StepError),
    /// The request itself is wrong, or the run cannot be done anywhere.
    Exec(ExecError),
}

pub(super) fn step(name: &'static str) -> impl FnOnce(StepError) -> RunError {
    move |e| RunError::Host(name, e)
}

/// What every attempt at one request shares.
pub(super) struct Prepared {
    test_rel: String,
    staged: Staged,
    traced: Option<String>,
    /// The staged files as a tar.
    tar: Vec<u8>,
}

impl DockerExecutor {
    pub(super) fn prepare(&self, req: &ExecRequest) -> Result<Prepared, ExecError> {
        let (test_rel, staged, traced) = pytest_run::staged_files(req)?;
        let mut tar = Tarball::new();
        let pack = |source| DockerError::Pack {
            path: "the staged files".to_owned(),
            source,
        };
        for (rel, content) in &staged.files {
            // A replaced file keeps the repository's permissions, as if written in place.
            let mode = std::fs::symlink_metadata(self.base.join(rel))
                .ok()
                .filter(|m| m.is_file())
                .map_or(0o644, |m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.permissions().mode() & 0o7777
                });
            tar.file(rel, content, mode).map_err(pack)?;
        }
        Ok(Prepared {
            test_rel,
            staged,
            traced,
            tar: tar.finish().map_err(pack)?,
        })
    }

    /// One run on one worker, from staging to the copy put back.
    pub(super) async fn run_on(
        &self,
        idx: usize,
        req: &ExecRequest,
        p: &Prepared,
    ) -> Result<ExecResult, RunError> {
        let w = &self.workers[idx];
        let docker = &self.hosts[w.host].docker;
        let mut state = w.state.lock().await;
        let container = state.container.clone();
        let dirs = self.dirs();

        // The staged files arrive as a tar on the exec's stdin: one call fewer per run than
        // an upload through the archive endpoint (about 50 ms each, measured).
        let mut script = format!(
            "exec 2>&1; cd {workdir} && tar -xf - && rm -rf {run} && mkdir -p {run}/home \
             {run}/tmp && touch {STAGE_MARK} || exit 125; ",
            run = quote(&dirs.run_dir().display().to_string()),
            workdir = quote(&self.cfg.workdir),
        );
        let removed: Vec<String> = p.staged.removed.iter().map(|r| quote(r)).collect();
        if !removed.is_empty() {
            script.push_str(&format!("rm -f -- {}; ", removed.join(" ")));
        }
        script.push_str(&format!("unset {}; ", pytest_run::REMOVED_ENV.join(" ")));
        script.push_str(&self.activation());
        script.push_str("exec ");
        script.push_str(&quote(&self.cfg.python));
        for arg in pytest_run::pytest_args(&dirs, &p.test_rel, p.traced.is_some()) {
            script.push(' ');
            script.push_str(&quote(&arg));
        }
        script.push_str(" </dev/null");
        let env: Vec<String> = pytest_run::environment(
            &dirs,
            &self.cfg.pythonpath,
            self.user_base.as_deref(),
            p.traced.as_deref(),
        )
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();

        let started = Instant::now();
        let mut log = LogBuffer::default();
        let ran = tokio::time::timeout(
            req.timeout,
            exec(
                docker,
                &container,
                self.shell(),
                &script,
                env,
                Some(&p.tar),
                &mut |b| log.push(b),
            ),
        )
        .await;
        let duration = started.elapsed();
        let exit = match ran {
            Ok(Ok(code)) => Some(code),
            Ok(Err(e)) => return Err(RunError::Host("running pytest", e.into())),
            // Killed below, with everything else the test started.
            Err(_) => None,
        };
        let raw_log = String::from_utf8_lossy(&log.finish()).into_owned();

        let collected = self.collect_script(&state.recorded, p);
        let (out, _) = helper(docker, &container, &collected, None)
            .await
            .map_err(step("collecting the results"))?;
        let mut sections = split_sections(&out);
        let junit = sections.next().unwrap_or_default();
        let trace = sections.next().unwrap_or_default();
        let now = rescan::parse_listing(sections.next().unwrap_or_default());
        let sums = rescan::parse_sums(sections.next().unwrap_or_default());

        let mut plan = rescan::plan(
            &state.recorded,
            &now,
            &Run {
                base: &self.base,
                staged: &p.staged,
                sums: &sums,
            },
        );
        let made_for_staging = staging_tops(&state.recorded, &p.staged);
        plan.remove.retain(|r| {
            !made_for_staging
                .iter()
                .any(|t| r == t || r.starts_with(&format!("{t}/")))
        });
        let changed = std::mem::take(&mut plan.changed);
        self.put_back(idx, &mut state, plan).await?;

        let mut result = match exit {
            None => pytest_run::timeout_result(raw_log, req.timeout, duration, changed, vec![]),
            Some(code) => pytest_run::finished_result(
                Finished {
                    report: if junit.is_empty() {
                        JunitReport::unusable(format!(
                            "no junit report at {}",
                            dirs.junit().display()
                        ))
                    } else {
                        parse_junit(&String::from_utf8_lossy(junit), &p.test_rel)
                    },
                    raw_log,
                    exit_code: exit_status(code),
                    changed,
                    denied: vec![],
                    duration,
                },
                &dirs.roots(),
            ),
        };
        if p.traced.is_some() {
            result.trace = pytest_run::parse_trace(trace);
        }
        Ok(result)
    }

    /// The exec that follows every run: kill what the test left, print the junit report, the
    /// trace, a listing of the copy and the sums of the files that may have changed, then
    /// delete what was made only for staging.
    fn collect_script(&self, recorded: &Listing, p: &Prepared) -> String {
        let dirs = self.dirs();
        let sep = SECTION.replace('\0', r"\000");
        let staged: Vec<String> = p
            .staged
            .files
            .keys()
            .map(|r| quote(&format!("./{r}")))
            .collect();
        let tops: Vec<String> = staging_tops(recorded, &p.staged)
            .iter()
            .map(|r| quote(&format!("./{r}")))
            .collect();
        let mut s = format!(
            "{KILL_ALL}; cat {junit} 2>/dev/null; printf '{sep}'; cat {trace} 2>/dev/null; \
             printf '{sep}'; cd {workdir} || exit 125; find . -mindepth 1 -printf '{FIND_FORMAT}'; \
             printf '{sep}'; find . -type f -cnewer {STAGE_MARK} -exec sha256sum -- {{}} + \
             2>/dev/null; sha256sum -- {staged} 2>/dev/null; printf '{sep}'",
            junit = quote(&dirs.junit().display().to_string()),
            trace = quote(&dirs.trace_out().display().to_string()),
            workdir = quote(&self.cfg.workdir),
            staged = staged.join(" "),
        );
        if !tops.is_empty() {
            s.push_str(&format!("; rm -rf -- {}", tops.join(" ")));
        }
        s
    }

    /// Undoes what the run did to the copy: uploads the repository's version of what was
    /// modified or deleted, deletes what was created, sets directory permissions back, and
    /// records the new state of what was put back. An entry the repository does not have
    /// (it came with the image) cannot be put back from it: the container is replaced.
    async fn put_back(
        &self,
        worker: usize,
        state: &mut WorkerState,
        plan: rescan::Plan,
    ) -> Result<(), RunError> {
        let host = self.workers[worker].host;
        let docker = &self.hosts[host].docker;
        if plan.upload.is_empty() && plan.remove.is_empty() && plan.chmod.is_empty() {
            return Ok(());
        }
        if plan
            .upload
            .iter()
            .any(|r| std::fs::symlink_metadata(self.base.join(r)).is_err())
        {
            return self.replace_container(host, worker, state).await;
        }
        let pack = |path: &Path, source| {
            RunError::Exec(
                DockerError::Pack {
                    path: path.display().to_string(),
                    source,
                }
                .into(),
            )
        };
        let mut tar = Tarball::new();
        for rel in &plan.upload {
            tar.entry(&self.base, rel)
                .map_err(|e| pack(&self.base.join(rel), e))?;
        }
        let tar = tar.finish().map_err(|e| pack(&self.base, e))?;
        let paths = |rels: &mut dyn Iterator<Item = &String>| {
            rels.map(|r| quote(&format!("./{r}")))
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Put back as the local rescan does: the entry goes, the repository's takes its place.
        let mut script = format!("cd {}", quote(&self.cfg.workdir));
        if !plan.remove.is_empty() || !plan.upload.is_empty() {
            let gone = paths(&mut plan.remove.iter().chain(&plan.upload));
            script.push_str(&format!(" && rm -rf -- {gone}"));
        }
        if !plan.upload.is_empty() {
            script.push_str(" && tar -xf -");
        }
        for (rel, mode) in &plan.chmod {
            let dir = quote(&format!("./{rel}"));
            script.push_str(&format!(" && chmod {mode:o} -- {dir}"));
        }
        if !plan.upload.is_empty() {
            let back = paths(&mut plan.upload.iter());
            script.push_str(&format!(" && find {back} -printf '{FIND_FORMAT}'"));
        }
        let stdin = (!plan.upload.is_empty()).then_some(tar.as_slice());
        let (out, code) = helper(docker, &state.container, &script, stdin)
            .await
            .map_err(step("putting the copy back"))?;
        if code != Some(0) {
            // Whatever could not be undone in place is undone by a fresh container.
            return self.replace_container(host, worker, state).await;
        }
        if !plan.upload.is_empty() {
            rescan::restamp(
                &mut state.recorded,
                &plan.upload,
                rescan::parse_listing(&out),
            );
        }
        Ok(())
    }

    /// Replaces a worker's container with a fresh one.
    pub(super) async fn replace_container(
        &self,
        host: usize,
        worker: usize,
        state: &mut WorkerState,
    ) -> Result<(), RunError> {
        let h = &self.hosts[host];
        let old = state.container.clone();
        let _ = remove_container(&h.docker, &old).await;
        lock(&LIVE).remove(&old);
        *state = self
            .recipe()
            .start(h, worker)
            .await
            .map_err(|e| RunError::Host("replacing the container", StepError(e.to_string())))?;
        Ok(())
    }
}

/// The exit status of the interpreter, as the local backend reads it: a run killed by a
/// signal has none (Docker reports those as 128 + the signal).
fn exit_status(code: Option<i64>) -> Option<i32> {
    code.filter(|c| !(129..=192).contains(c))
        .and_then(|c| i32::try_from(c).ok())
}

/// The topmost entries that exist only because a staged file was placed: the staged files
/// the copy did not have, or the first directory on their way that it did not have.
fn staging_tops(recorded: &Listing, staged: &Staged) -> Vec<String> {
    let mut tops: Vec<String> = vec![];
    for rel in staged.files.keys() {
        let mut at = String::new();
        for part in rel.split('/') {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            if !recorded.contains_key(&at) {
                if !tops.contains(&at) {
                    tops.push(at.clone());
                }
                break;
            }
        }
    }
    tops
}

fn split_sections(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    let sep = SECTION.as_bytes();
    let mut rest = Some(out);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(sep.len()).position(|w| w == sep) {
            Some(i) => {
                rest = Some(&r[i + sep.len()..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}
