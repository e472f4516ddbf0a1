//! The workbench: the one way into the engine for every driver. The headless `run` and the
//! TUI both start one from a [`RunOptions`] (or a saved session), send it [`Command`]s, and
//! read what it reports: the engine's [`Event`]s as they happen, and snapshots of the session
//! document after each change, which views draw from without ever locking the engine.
//!
//! The engine lives in the workbench's own tokio task. A step in flight keeps running while
//! commands arrive (they queue), except `Cancel`, which drops the step (its executions end,
//! their processes with them), saves the session and writes the outputs: nothing finished is
//! lost, and a resumed session pays for nothing twice.

#[macro_use]
mod error;
pub mod docker_options;
pub mod model;
pub mod options;
pub mod probe;
pub mod recent;
pub mod request;
pub mod resolve;

pub use docker_options::{docker_settings, image_for};
pub use error::RequestError;
pub use options::RunOptions;
pub use probe::default_jobs;
pub use request::{Prepared, resume};

use crate::engine::{
    ActError, ActKind, ActRequest, Engine, EngineError, Event, Phase, SessionDoc, report,
};
use crate::exec::{self, Executor};
use crate::outdir::OutDir;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// What a driver asks of the workbench.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Run the next engine step, then wait.
    Step,
    /// Run steps until the next gate (or the end).
    RunToGate,
    /// Run every step to the end, past every gate.
    RunToEnd,
    /// At a gate: go on with the crossover, then run to the next gate.
    Continue,
    /// Stop the step in flight; the session is saved and the workbench ends.
    Cancel,
    /// An act at the gate: veto, edit, add, pin, undo (refused, with an event saying why,
    /// anywhere else).
    Act(ActRequest),
}

/// How a workbench is set up beyond its session.
#[derive(Default)]
pub struct Options {
    /// Stop before each crossover so the user can curate the survivors (the TUI's default in
    /// step mode); a headless run goes straight through.
    pub pause_before_crossover: bool,
    /// Run on this executor instead of a local one (tests: `exec::scripted`).
    pub executor: Option<Arc<dyn Executor>>,
    /// Use this model instead of the one the session names (tests).
    pub model: Option<Arc<dyn crate::llm::Model>>,
    /// The flag named when the session's own budget stops the run (`--budget-usd`, or a
    /// batch's `--budget-usd-per-instance`); `None` is `--budget-usd`.
    pub budget_flag: Option<&'static str>,
    /// Budgets shared with other runs (a batch's `--budget-usd-total`).
    pub budgets: Vec<crate::llm::budget::Budget>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The session's model could not be built (no key, a bad spec): the session is saved,
    /// so fixing the cause and resuming needs no retyping of the run's options.
    #[error("{error}")]
    Model {
        error: model::ModelError,
        session: PathBuf,
    },
    #[error("preparing the working copies: {0}")]
    Exec(#[from] exec::ExecError),
    #[error(transparent)]
    Prompts(#[from] crate::prompts::PromptError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// How the workbench's task ended. In every case the session is saved and the outputs
/// (report, final test, patch) written for what is known.
#[derive(Debug)]
pub enum Ending {
    /// The session is done; the path of the final test written, if there is one.
    Done { final_test: Option<PathBuf> },
    /// Cancelled (Ctrl-C, quit): `run --resume` continues it.
    Cancelled,
    /// A step failed.
    Failed { error: EngineError },
}

/// The end of a workbench: how it ended, and the session as it was left.
pub struct Finished {
    pub ending: Ending,
    pub doc: Arc<SessionDoc>,
    pub session_path: PathBuf,
    pub out: PathBuf,
}

pub struct Workbench {
    commands: mpsc::UnboundedSender<Command>,
    events: mpsc::UnboundedReceiver<Event>,
    snapshot: watch::Receiver<Arc<SessionDoc>>,
    task: tokio::task::JoinHandle<Result<Ending, crate::outdir::OutDirError>>,
    /// Lines describing the run for its header: where, on what, with which model.
    pub header: Vec<String>,
    session_path: PathBuf,
    out: PathBuf,
    executor: Arc<dyn Executor>,
}

/// A (test, mutant) pair run again on demand: both sides, fresh, not recorded; traced, the
/// results' `trace` holds the lines of the mutated file that ran.
#[derive(Debug)]
pub struct PairRun {
    pub old: exec::ExecResult,
    pub mutant: exec::ExecResult,
    pub cell: crate::engine::kill::Cell,
}

#[derive(Debug, thiserror::Error)]
pub enum PairRunError {
    #[error(transparent)]
    Pair(#[from] crate::engine::pair::PairError),
    #[error("cannot read {file} from the repository: {source}")]
    Source {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Exec(#[from] exec::ExecError),
}

/// The header line that says what the tests see of the user's environment.
fn tests_environment(c: &crate::engine::RunConfig) -> String {
    let base = match c.docker {
        Some(_) => "the image's environment".to_owned(),
        None => format!(
            "{} from yours",
            crate::exec::pytest_run::ALLOWED_ENV.join(", ")
        ),
    };
    let passed = if c.pass_env.is_empty() {
        "no other variable of yours (--pass-env NAME adds one)".to_owned()
    } else {
        format!("passed by you: {}", c.pass_env.join(", "))
    };
    format!("tests' environment: {base}; {passed}")
}

/// The executor a session asks for, with `jobs` workers: the local backend, or one
/// container per worker (`--backend docker`). Shared by every driver and by a batch's scoring
/// and validation runs.
pub async fn executor_for(
    doc: &SessionDoc,
    jobs: usize,
) -> Result<Arc<dyn Executor>, exec::ExecError> {
    let c = &doc.config;
    build_executor(ExecutorSpec {
        repo: &doc.inputs.repo,
        python: &c.python,
        pythonpath: &c.pythonpath,
        sandbox: c.sandbox,
        docker: c.docker.as_ref(),
        warm: c.executor == crate::engine::ExecutorKind::Warm,
        jobs,
        pass_env: &c.pass_env,
    })
    .await
}

/// What `build_executor` builds: a session's settings, or a batch's for runs that have no
/// session.
pub struct ExecutorSpec<'a> {
    pub repo: &'a std::path::Path,
    pub python: &'a str,
    pub pythonpath: &'a [String],
    pub sandbox: bool,
    pub docker: Option<&'a crate::engine::DockerSettings>,
    pub warm: bool,
    pub jobs: usize,
    pub pass_env: &'a [String],
}

/// `executor_for` from its parts, for runs that have no session (a batch's `--validate`).
pub async fn build_executor(s: ExecutorSpec<'_>) -> Result<Arc<dyn Executor>, exec::ExecError> {
    Ok(match s.docker {
        None => Arc::new(exec::LocalExecutor::new(exec::LocalConfig {
            repo: s.repo.to_path_buf(),
            python: PathBuf::from(s.python),
            pythonpath: s.pythonpath.to_vec(),
            jobs: s.jobs,
            isolation: exec::Wanted {
                sandbox: s.sandbox,
                namespaces: true,
            },
            warm: s.warm,
            pass_env: s.pass_env.to_vec(),
        })?),
        Some(d) => Arc::new(
            exec::docker::DockerExecutor::new(exec::docker::DockerConfig {
                image: d.image.clone(),
                hosts: d.hosts.clone(),
                jobs: s.jobs,
                workdir: d.workdir.clone(),
                activate: d.activate.clone(),
                python: d.python.clone(),
                network: d.network,
                memory_bytes: d.memory_bytes,
                nano_cpus: d.nano_cpus,
                pythonpath: s.pythonpath.to_vec(),
                repo: s.repo.to_path_buf(),
                warm: s.warm,
                pass_env: s.pass_env.to_vec(),
            })
            .await?,
        ),
    })
}

impl Workbench {
    /// Builds the executor (unless `opts` gives one) and the model, saves the session, and
    /// starts the engine's task, which waits for commands.
    pub async fn start(p: Prepared, opts: Options) -> Result<Self, StartError> {
        let Prepared {
            mut doc,
            out,
            session_path,
            resumed,
        } = p;
        let executor: Arc<dyn Executor> = match opts.executor {
            Some(e) => e,
            None => executor_for(&doc, doc.config.jobs).await?,
        };
        // The warm interpreters start while the first steps that execute nothing (the model's
        // calls, the user's first look) are under way, not on the first execution.
        tokio::spawn({
            let executor = executor.clone();
            async move { executor.prepare().await }
        });
        for note in executor.notes() {
            if !doc.notes.contains(&note) {
                doc.notes.push(note);
            }
        }
        let mut header = vec![format!(
            "evootter {}: {} -> {}  [{}]",
            if resumed { "resume" } else { "run" },
            doc.inputs.repo.display(),
            out.path().display(),
            executor.describe()
        )];
        header.push(tests_environment(&doc.config));
        header.extend(doc.notes.iter().map(|n| format!("note: {n}")));

        let (tx, events) = mpsc::unbounded_channel();
        // A run stopped while its call waited in a provider batch (`run --llm-batch`), now
        // going on without batches, would pay for that call again.
        if opts.model.is_none()
            && let Some((batch, _)) = crate::llm::provider_batch::waiting(out.path())
                .into_values()
                .next()
        {
            let _ = tx.send(Event::Note {
                message: format!(
                    "a call of this run waits in llm batch {batch}; `evootter run --resume {} \
                     --llm-batch` collects it instead of paying for it again",
                    session_path.display()
                ),
            });
        }
        let model = match opts.model {
            Some(m) => Some(m),
            None => match model::build(&doc, Some(tx.clone())) {
                Ok(m) => m,
                Err(error) => {
                    doc.save(&session_path).map_err(EngineError::from)?;
                    return Err(StartError::Model {
                        error,
                        session: session_path,
                    });
                }
            },
        };
        let (snap_tx, snapshot) = watch::channel(Arc::new(doc.clone()));
        let mut engine = Engine::new(
            doc,
            session_path.clone(),
            executor.clone(),
            Some(tx.clone()),
        );
        engine.set_snapshots(snap_tx);
        if let Some(model) = model {
            header.push(format!("model: {}", model.describe()));
            let prompts =
                crate::prompts::Prompts::load(crate::prompts::default_override_dir().as_deref())?;
            header.extend(
                crate::prompts::PromptKind::ALL
                    .into_iter()
                    .filter_map(|k| prompts.yours(k)),
            );
            engine = engine.with_model(model, Arc::new(prompts));
            engine.set_prices(model::prices().map_err(|error| StartError::Model {
                error,
                session: session_path.clone(),
            })?);
        }
        if let Some(limit) = engine.doc.config.budget_usd {
            let flag = opts.budget_flag.unwrap_or("--budget-usd");
            engine.add_budget(crate::llm::budget::Budget::run(flag, limit));
            header.push(format!("budget: ${limit:.2} ({flag})"));
        }
        for b in &opts.budgets {
            engine.add_budget(b.clone());
        }
        engine.save()?;
        let (commands, rx) = mpsc::unbounded_channel();
        let out_path = out.path().to_path_buf();
        let told = tx.clone();
        let task = tokio::spawn(async move {
            let r = drive(engine, out, rx, tx, opts.pause_before_crossover).await;
            // A view that outlives the task must be able to say why it stopped.
            if let Ok(Ending::Failed { error }) = &r {
                let _ = told.send(Event::Stopped {
                    reason: error.to_string(),
                    resume: error.resume(),
                });
            }
            r
        });
        Ok(Self {
            commands,
            events,
            snapshot,
            task,
            header,
            session_path,
            out: out_path,
            executor,
        })
    }

    /// Runs a (test, mutant) pair again now, on `c_old` and on the mutant, beside whatever
    /// the engine is doing (it shares the executor's workers). Nothing is recorded: for
    /// looking again at a surprising cell.
    pub async fn run_pair(&self, test: &str, mutant: &str) -> Result<PairRun, PairRunError> {
        self.pair_runner().run(test, mutant, false).await
    }

    /// A handle that runs pairs on demand, for a view's background task.
    pub fn pair_runner(&self) -> PairRunner {
        PairRunner {
            executor: self.executor.clone(),
            snapshot: self.snapshot.clone(),
        }
    }
}

/// Runs (test, mutant) pairs on demand with a workbench's executor and latest snapshot.
#[derive(Clone)]
pub struct PairRunner {
    executor: Arc<dyn Executor>,
    snapshot: watch::Receiver<Arc<SessionDoc>>,
}

impl PairRunner {
    /// `traced`: record which lines of the mutated file run, on `c_old` and on the mutant.
    pub async fn run(
        &self,
        test: &str,
        mutant: &str,
        traced: bool,
    ) -> Result<PairRun, PairRunError> {
        let doc = self.snapshot.borrow().clone();
        let p = crate::engine::pair::find(&doc, test, mutant)?;
        let file = &p.mutant.file;
        let original = std::fs::read_to_string(doc.inputs.repo.join(file)).map_err(|source| {
            PairRunError::Source {
                file: file.clone(),
                source,
            }
        })?;
        let test_file = exec::FileOverride {
            rel_path: p.test.rel_path.clone(),
            content: p.test.source.clone(),
        };
        let timeout = std::time::Duration::from_secs_f64(doc.config.timeout_secs);
        let old = exec::ExecRequest {
            test: test_file.clone(),
            overrides: vec![],
            removed: vec![],
            timeout,
            trace: if traced { vec![file.clone()] } else { vec![] },
            tracer: Default::default(),
            per_test: false,
            select: vec![],
            stop_at_first_failure: false,
        };
        let on_mutant = exec::ExecRequest {
            overrides: vec![exec::FileOverride {
                rel_path: file.clone(),
                content: p.mutant.apply(&original),
            }],
            ..old.clone()
        };
        let (old, mutant) = tokio::join!(self.executor.run(old), self.executor.run(on_mutant));
        let (old, mutant) = (old?, mutant?);
        let cell = crate::engine::kill::cell_of_results(&old, &mutant);
        Ok(PairRun { old, mutant, cell })
    }
}

impl Workbench {
    /// Queues a command (the workbench takes it when its current work allows).
    pub fn send(&self, c: Command) {
        // A closed channel means the task has ended; `finish` says how.
        let _ = self.commands.send(c);
    }

    /// The next event; `None` once the workbench's task has ended and everything it
    /// reported has been read.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.events.recv().await
    }

    /// The session as of the last change.
    pub fn snapshot(&self) -> Arc<SessionDoc> {
        self.snapshot.borrow().clone()
    }

    /// A receiver of snapshots, for views that wait for changes.
    pub fn snapshots(&self) -> watch::Receiver<Arc<SessionDoc>> {
        self.snapshot.clone()
    }

    pub fn session_path(&self) -> &std::path::Path {
        &self.session_path
    }

    /// Waits for the task to end (after `Cancel`, the end of the run, or a failure).
    pub async fn finish(self) -> Result<Finished, crate::outdir::OutDirError> {
        let ending = match self.task.await {
            Ok(r) => r?,
            Err(e) => Ending::Failed {
                error: EngineError::State(format!("the workbench task failed: {e}")),
            },
        };
        let doc = self.snapshot.borrow().clone();
        Ok(Finished {
            ending,
            doc,
            session_path: self.session_path,
            out: self.out,
        })
    }
}

/// What the task is doing between commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Idle,
    OneStep,
    ToGate,
    ToEnd,
}

/// The workbench's task: takes commands, runs steps, stops at gates, ends on `Cancel`.
async fn drive(
    mut engine: Engine,
    out: OutDir,
    mut rx: mpsc::UnboundedReceiver<Command>,
    events: mpsc::UnboundedSender<Event>,
    pause: bool,
) -> Result<Ending, crate::outdir::OutDirError> {
    let mut mode = Mode::Idle;
    let mut queue: VecDeque<Command> = VecDeque::new();
    // The generation whose gate the user continued past, and the last gate announced.
    let mut passed_gate: Option<usize> = None;
    let mut announced: Option<usize> = None;
    loop {
        if engine.is_done() {
            let final_test = report::write_outputs(&engine.doc, &out)?;
            return Ok(Ending::Done { final_test });
        }
        let gate = match engine.doc.phase {
            Phase::Crossover { generation } if pause && passed_gate != Some(generation) => {
                Some(generation)
            }
            _ => None,
        };
        if mode == Mode::Idle {
            // A session saved at a gate reopens there: say so before waiting, so a driver
            // offers curation at once.
            if let Some(g) = gate
                && announced != Some(g)
            {
                let _ = events.send(Event::Paused { generation: g });
                announced = Some(g);
            }
            let cmd = match queue.pop_front() {
                Some(c) => c,
                // Every handle is gone: nobody will ask for more.
                None => rx.recv().await.unwrap_or(Command::Cancel),
            };
            mode = match cmd {
                Command::Step => Mode::OneStep,
                Command::RunToGate => Mode::ToGate,
                Command::RunToEnd => Mode::ToEnd,
                Command::Continue => {
                    if let Some(g) = gate {
                        if let Err(error) = engine.record_act(g, ActKind::Continue) {
                            report::write_outputs(&engine.doc, &out)?;
                            return Ok(Ending::Failed { error });
                        }
                        passed_gate = Some(g);
                    }
                    Mode::ToGate
                }
                Command::Cancel => return cancel(&mut engine, &out),
                Command::Act(req) => {
                    let acted = unless_cancelled(engine.act(req), &mut rx, &mut queue).await;
                    match acted {
                        None => return cancel(&mut engine, &out),
                        Some(Ok(_)) => {}
                        Some(Err(ActError::Engine(error))) => {
                            report::write_outputs(&engine.doc, &out)?;
                            return Ok(Ending::Failed { error });
                        }
                        Some(Err(e)) => {
                            let _ = events.send(Event::ActRefused {
                                reason: e.to_string(),
                            });
                        }
                    }
                    Mode::Idle
                }
            };
            continue;
        }
        if let Some(generation) = gate
            && mode != Mode::ToEnd
        {
            let _ = events.send(Event::Paused { generation });
            announced = Some(generation);
            mode = Mode::Idle;
            continue;
        }
        let stepped = unless_cancelled(engine.step(), &mut rx, &mut queue).await;
        match stepped {
            None => return cancel(&mut engine, &out),
            Some(Err(error)) => {
                report::write_outputs(&engine.doc, &out)?;
                return Ok(Ending::Failed { error });
            }
            Some(Ok(_)) => {
                if mode == Mode::OneStep {
                    mode = Mode::Idle;
                    let _ = events.send(Event::Idle);
                }
            }
        }
    }
}

/// Runs `work` while taking commands: `Cancel` (or every handle gone) drops the work and
/// returns `None`; any other command waits in `queue` for the work to finish.
async fn unless_cancelled<F: std::future::Future>(
    work: F,
    rx: &mut mpsc::UnboundedReceiver<Command>,
    queue: &mut VecDeque<Command>,
) -> Option<F::Output> {
    tokio::pin!(work);
    loop {
        tokio::select! {
            r = &mut work => return Some(r),
            c = rx.recv() => match c {
                Some(Command::Cancel) | None => return None,
                Some(c) => queue.push_back(c),
            },
        }
    }
}

/// The step in flight is already dropped (its executions ended with it): save what finished.
fn cancel(engine: &mut Engine, out: &OutDir) -> Result<Ending, crate::outdir::OutDirError> {
    let _ = engine.save();
    report::write_outputs(&engine.doc, out)?;
    Ok(Ending::Cancelled)
}
