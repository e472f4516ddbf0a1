//! One execution in a worker's container: stage the test and the mutated files, run pytest
//! with the shared command line and environment under its timeout, collect the log, the junit
//! report and the trace, kill what the test left, and put the copy back.

use super::client::{StepError, exec, helper, quote, remove_container};
use super::config::{DockerError, MAX_REPLACEMENTS_PER_WORKER, SCRATCH};
use super::container::LIVE;
use super::container::{KILL_ALL, WorkerState};
use super::rescan::{self, FIND_FORMAT, Listing, Run};
use super::tarball::Tarball;
use super::workers::DockerExecutor;
use super::zygote::{self, ContainerZygote, StartError};
use crate::exec::junit::{JunitReport, parse_junit};
use crate::exec::process::lock;
use crate::exec::pytest_run::Staged;
use crate::exec::pytest_run::{self, Finished, LogBuffer};
use crate::exec::types::{ExecError, ExecRequest, ExecResult};
use crate::exec::zygote::{ANSWER_GRACE, Ending};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
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
    traced: Vec<String>,
    /// The request's `per_test` and `select`.
    per_test: bool,
    select: Vec<String>,
    stop_at_first_failure: bool,
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
            per_test: req.per_test,
            select: req.select.clone(),
            stop_at_first_failure: req.stop_at_first_failure,
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
        let mut state = w.state.lock().await;
        if state.dirty {
            // An earlier run here never put its copy back.
            self.replace_container(w.host, idx, &mut state).await?;
        }
        state.dirty = true;
        let ran = if self.cfg.warm {
            self.run_warm(idx, &mut state, req, p).await?
        } else {
            // Made here: a `&WorkerState` held across an await would not be `Send`.
            let collect = self.collect_script(&state.recorded, p);
            self.run_cold(idx, state.container.clone(), collect, req, p)
                .await?
        };
        let dirs = self.dirs();
        let raw_log = String::from_utf8_lossy(&ran.log).into_owned();
        let mut sections = split_sections(&ran.collected);
        let junit = sections.next().unwrap_or_default();
        let trace = sections.next().unwrap_or_default();
        let now = rescan::parse_listing(sections.next().unwrap_or_default());
        let sums = rescan::parse_sums(sections.next().unwrap_or_default());
        // Written outside the copy (memory file systems) and removed already.
        let mut outside: Vec<String> = sections
            .next()
            .unwrap_or_default()
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        outside.sort();

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
        state.dirty = false;

        // The image is read-only: what the run tried to write there it was refused.
        let copy = std::path::Path::new(&self.cfg.workdir);
        let scratch = std::path::Path::new(SCRATCH);
        let denied = crate::exec::sandbox::refused_writes(&raw_log, &[copy, scratch])
            .map(|paths| {
                vec![format!(
                    "container: the image is read-only (only the copy, its temp dir and home \
                     are written), and this run tried {paths}"
                )]
            })
            .unwrap_or_default();
        let mut result = match ran.end {
            End::TimedOut => pytest_run::timeout_result(
                raw_log,
                req.timeout,
                ran.duration,
                pytest_run::Changes {
                    copy: changed,
                    outside,
                    denied,
                },
            ),
            End::Exited(exit_code) => pytest_run::finished_result(
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
                    exit_code,
                    changes: pytest_run::Changes {
                        copy: changed,
                        outside,
                        denied,
                    },
                    duration: ran.duration,
                },
                &dirs.roots(),
            ),
        };
        if !p.traced.is_empty() {
            pytest_run::read_trace(&mut result, trace, &p.traced);
        }
        Ok(result)
    }

    /// pytest through its own `docker exec` (the staged files as a tar on its stdin), then a
    /// second one that kills what the test left and collects the results.
    async fn run_cold(
        &self,
        idx: usize,
        container: String,
        collect: String,
        req: &ExecRequest,
        p: &Prepared,
    ) -> Result<Ran, RunError> {
        let docker = &self.hosts[self.workers[idx].host].docker;
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
        let args = pytest_run::pytest_args(
            &dirs,
            &p.test_rel,
            !p.traced.is_empty(),
            &p.select,
            p.stop_at_first_failure,
        );
        for arg in args {
            script.push(' ');
            script.push_str(&quote(&arg));
        }
        script.push_str(" </dev/null");
        let env: Vec<String> = self
            .run_environment(&p.traced, p.per_test)
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
        let end = match ran {
            Ok(Ok(code)) => End::Exited(exit_status(code)),
            Ok(Err(e)) => return Err(RunError::Host("running pytest", e.into())),
            // Killed below, with everything else the test started.
            Err(_) => End::TimedOut,
        };
        let (collected, _) = helper(docker, &container, &collect, None)
            .await
            .map_err(step("collecting the results"))?;
        Ok(Ran {
            end,
            log: log.finish(),
            duration,
            collected,
        })
    }

    /// The run as one request to the container's warm interpreter: it stages, forks pytest,
    /// enforces the timeout, kills what the test left and collects, as the two execs of a
    /// cold run do. An interpreter that dies is replaced with the container (the copy may be
    /// anything by then) and the run retried once; then it is an error, never a result.
    async fn run_warm(
        &self,
        idx: usize,
        state: &mut WorkerState,
        req: &ExecRequest,
        p: &Prepared,
    ) -> Result<Ran, RunError> {
        let host = self.workers[idx].host;
        let request = self.warm_request(&state.recorded, req, p);
        let kills = crate::exec::process::kills();
        let mut first_death = None;
        for attempt in 0..2 {
            if attempt > 0 {
                if crate::exec::process::kills() != kills {
                    return Err(RunError::Exec(ExecError::Other(
                        "the run was ended (Ctrl-C)".into(),
                    )));
                }
                if !self.answers(host).await {
                    return Err(RunError::Host(
                        "running pytest in the warm interpreter",
                        StepError(first_death.unwrap_or_default()),
                    ));
                }
                self.replace_container(host, idx, state).await?;
            }
            let z = self.zygote(idx, state).await?;
            let started = Instant::now();
            let mut log = LogBuffer::default();
            match z
                .request(&request, &p.tar, req.timeout + ANSWER_GRACE, &mut log)
                .await
            {
                Ok(answer) => {
                    let duration = started.elapsed();
                    let end = match answer.ending() {
                        Ending::Exited(code) => End::Exited(Some(code)),
                        Ending::Signaled(_) => End::Exited(None),
                        Ending::TimedOut => End::TimedOut,
                    };
                    return Ok(Ran {
                        end,
                        log: log.finish(),
                        duration,
                        collected: answer.collected.unwrap_or_default(),
                    });
                }
                Err(why) => {
                    state.zygote = None;
                    first_death.get_or_insert(why);
                }
            }
        }
        Err(RunError::Exec(ExecError::Other(format!(
            "the warm interpreter died twice during this execution ({}); `--executor cold` \
             runs without it",
            first_death.unwrap_or_default()
        ))))
    }

    /// What a warm run asks of the zygote: the cold script's staging and collecting, as data.
    fn warm_request(
        &self,
        recorded: &Listing,
        req: &ExecRequest,
        p: &Prepared,
    ) -> serde_json::Value {
        let dirs = self.dirs();
        let run = dirs.run_dir();
        let args: Vec<String> = pytest_run::pytest_args(
            &dirs,
            &p.test_rel,
            !p.traced.is_empty(),
            &p.select,
            p.stop_at_first_failure,
        )
        .into_iter()
        .skip(3)
        .collect();
        let env: serde_json::Map<String, serde_json::Value> = self
            .run_environment(&p.traced, p.per_test)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), serde_json::Value::String(v)))
            .collect();
        let path = |p: PathBuf| p.display().to_string();
        serde_json::json!({
            "args": args,
            "env": env,
            "env_base": true,
            "timeout": req.timeout.as_secs_f64(),
            "blob": p.tar.len(),
            "stage": {
                "fresh": [path(run.clone())],
                "mkdir": [path(run.join("home")), path(run.join("tmp"))],
                "remove": p.staged.removed,
                "mark": STAGE_MARK,
            },
            "collect": {
                "cat": [path(dirs.junit()), path(dirs.trace_out())],
                "sep": SECTION,
                "mark": STAGE_MARK,
                "sums": p.staged.files.keys().collect::<Vec<_>>(),
                "rm": staging_tops(recorded, &p.staged),
                "outside": {
                    "dirs": super::container::outside_dirs(),
                    "keep": [super::container::OUTSIDE_KEEP],
                },
            },
        })
    }

    /// The worker's warm interpreter, started (with a fresh record of the copy, in its own
    /// listing form) if it is not running.
    async fn zygote<'s>(
        &self,
        idx: usize,
        state: &'s mut WorkerState,
    ) -> Result<&'s mut ContainerZygote, RunError> {
        if state.zygote.is_none() {
            let docker = &self.hosts[self.workers[idx].host].docker;
            let env = self
                .run_environment(&[], false)
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let mut z = ContainerZygote::start(zygote::Start {
                docker,
                container: &state.container,
                shell: self.shell(),
                workdir: &self.cfg.workdir,
                activation: self.activation(),
                python: &self.cfg.python,
                unset: pytest_run::REMOVED_ENV,
                env,
            })
            .await
            .map_err(|e| match e {
                StartError::Host(e) => RunError::Host("starting the warm interpreter", e),
                StartError::Refused(e) => RunError::Exec(e),
            })?;
            state.recorded = z
                .list()
                .await
                .map_err(|e| RunError::Host("listing the copy", StepError(e)))?;
            state.zygote = Some(z);
        }
        Ok(state.zygote.as_mut().expect("started above"))
    }

    /// The environment pytest runs with, over the container's own: what the user passed by
    /// name, then the run's own variables.
    fn run_environment(&self, traced: &[String], per_test: bool) -> Vec<(String, String)> {
        let mut env = pytest_run::passed_env(&self.cfg.pass_env);
        env.extend(
            pytest_run::environment(
                &self.dirs(),
                &self.cfg.pythonpath,
                self.user_base.as_deref(),
                traced,
                per_test,
            )
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v)),
        );
        env
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
        // What the run wrote to the container's writable places outside its copy: each entry
        // named (NUL-separated) and removed.
        let outside: Vec<String> = super::container::outside_dirs()
            .iter()
            .map(|d| quote(d))
            .collect();
        let mut s = format!(
            "{KILL_ALL}; cat {junit} 2>/dev/null; printf '{sep}'; cat {trace} 2>/dev/null; \
             printf '{sep}'; cd {workdir} || exit 125; find . -mindepth 1 -printf '{FIND_FORMAT}'; \
             printf '{sep}'; find . -type f -cnewer {STAGE_MARK} -exec sha256sum -- {{}} + \
             2>/dev/null; sha256sum -- {staged} 2>/dev/null; printf '{sep}'; \
             for d in {outside}; do for e in \"$d\"/* \"$d\"/.[!.]* \"$d\"/..?*; do \
             [ -e \"$e\" ] || [ -L \"$e\" ] || continue; [ \"$e\" = {keep} ] && continue; \
             printf '%s\\000' \"$e\"; rm -rf -- \"$e\"; done; done; printf '{sep}'",
            junit = quote(&dirs.junit().display().to_string()),
            trace = quote(&dirs.trace_out().display().to_string()),
            workdir = quote(&self.cfg.workdir),
            staged = staged.join(" "),
            outside = outside.join(" "),
            keep = quote(super::container::OUTSIDE_KEEP),
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
        if self.cfg.warm {
            let gone: Vec<String> = plan.remove.iter().chain(&plan.upload).cloned().collect();
            let restored = match &mut state.zygote {
                Some(z) => z.restore(&gone, &tar, &plan.chmod, &plan.upload).await,
                None => Err("it is not running".to_owned()),
            };
            return match restored {
                Ok(Ok(fresh)) => {
                    rescan::restamp(&mut state.recorded, &plan.upload, fresh);
                    Ok(())
                }
                // Whatever could not be undone in place is undone by a fresh container.
                _ => self.replace_container(host, worker, state).await,
            };
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
        // A container that keeps failing is not replaced forever: past a bound the run stops
        // and says so (its session is saved), instead of standing still.
        let n = self.replaced.fetch_add(1, Ordering::Relaxed) + 1;
        let bound = MAX_REPLACEMENTS_PER_WORKER * self.workers.len() as u64;
        if n > bound {
            return Err(RunError::Exec(ExecError::Other(format!(
                "the containers of image {} were replaced {} times in this run (a test that \
                 breaks its container every time, or an image that cannot run the tests); \
                 stopping instead of replacing them again",
                self.cfg.image,
                n - 1
            ))));
        }
        let note = format!(
            "docker: containers were replaced during this run (a run that broke its container); \
             at most {bound} replacements are made before the run stops"
        );
        {
            let mut notes = lock(&self.notes);
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
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

/// How pytest ended in the container: its exit status (`None`: killed by a signal), or the
/// timeout.
enum End {
    Exited(Option<i32>),
    TimedOut,
}

/// One run's raw outcome, before it is judged.
struct Ran {
    end: End,
    log: Vec<u8>,
    duration: std::time::Duration,
    /// The collected sections (`SECTION`-separated): junit report, trace, listing, sums.
    collected: Vec<u8>,
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
