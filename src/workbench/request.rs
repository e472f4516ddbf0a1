//! A run request: every option of `run` (and `tui`), checked before anything is created, and
//! turned into a fresh session in a claimed output directory; or a saved session reopened for
//! resuming. The one place a session starts, whichever driver starts it.

use crate::engine::setup::{self, SetupError};
use crate::engine::{
    Backend, CrossoverStrategy, DockerSettings, FitnessRule, Inputs, Prompting, RunConfig,
    SelectionStrategy, SessionDoc,
};
use crate::exec;
use crate::instance::{Instance, Start};
use crate::outdir::{self, Intent, OutDir};
use crate::python::FocalFunction;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    OutDir(#[from] outdir::OutDirError),
    #[error(transparent)]
    Exec(#[from] exec::ExecError),
    #[error(transparent)]
    Instance(#[from] crate::instance::InstanceError),
    #[error(transparent)]
    Mutate(#[from] crate::mutate::MutateError),
    #[error(transparent)]
    Golden(#[from] crate::eval::EvalError),
    #[error(transparent)]
    Session(#[from] crate::engine::SessionError),
    #[error(transparent)]
    Model(#[from] super::model::ModelError),
    #[error("cannot read the repository: {0}")]
    Io(#[from] std::io::Error),
}

macro_rules! invalid {
    ($($t:tt)*) => { RequestError::Invalid(format!($($t)*)) };
}

macro_rules! ensure {
    ($cond:expr, $($t:tt)*) => {
        if !$cond {
            return Err(invalid!($($t)*));
        }
    };
}

/// Where the TUI keeps sessions that were not given an `--out`: the user data directory.
pub fn default_sessions_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "evootter").map(|d| d.data_dir().join("sessions"))
}

/// Default parallelism: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
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
    /// The model these options name, as a run's configuration holds it (nothing else set):
    /// for what needs the provider before a session exists (`--llm-batch`).
    pub fn llm_config(&self) -> RunConfig {
        RunConfig {
            llm: self.llm.clone(),
            llm_model: self.model.clone(),
            llm_base_url: self.base_url.clone(),
            llm_reasoning: self.reasoning.clone(),
            llm_retries: self.llm_retries,
            ..Default::default()
        }
    }

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

/// Every option of a run, as the library takes it: what `run`, `tui`, `demo` and a batch's
/// rows ask for. Its `Default` is a run with no option given (the command line's `None`s
/// become these), so the defaults are written here once. The field comments are the command
/// line's help (cli/run_args.rs).
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// An instance directory with instance.toml (e.g. examples/NAME), which gives the repo,
    /// issue, candidates, focal functions and run settings; flags override it.
    pub instance: Option<PathBuf>,
    /// The benchmark instance's id when the run is one of a batch's (no instance directory),
    /// kept in the session as the instance it came from.
    pub instance_id: Option<String>,
    /// With --instance: basebrt (the model localizes and writes the tests; the instance's
    /// recorded script is the model unless --llm names one) | candidates (the instance's own
    /// tests and focal functions). Default: the instance's `start`.
    pub start: Option<Start>,
    /// The repository at the buggy commit (c_old). Only read: runs happen in copies.
    pub repo: Option<PathBuf>,
    /// The issue description (Markdown or text), shown to the model and kept in the session.
    pub issue: Option<PathBuf>,
    /// A focal function, FILE::QUALNAME (repeatable): where the mutants are made. Without
    /// it, the model localizes them (needs --llm).
    pub focal: Vec<FocalFunction>,
    /// Directory of candidate test modules (*.py): the initial population. Without it, the
    /// model writes the tests (needs --llm).
    pub initial_tests: Option<PathBuf>,
    /// n, the population size: the first N candidates in name order, or N tests from the
    /// model. Default 8 (or the instance's).
    pub tests: Option<usize>,
    /// m, the size of the mutant pool; generation g runs about 2m/|tests| of them. Default 20
    /// (or the instance's).
    pub mutants: Option<usize>,
    /// Which mutants each generation samples: reached (only those whose changed lines some
    /// test of the population executes on c_old: every baseline is traced over the focal
    /// files, and a mutant no test reaches is never run) | all (the whole pool, as the paper
    /// samples).
    pub mutant_reach: crate::engine::MutantReach,
    /// How each generation's better half is chosen: mutation (kills; ties to rescues, then
    /// the model or the Otter rules) | random | otter (rule-based, no kills) | llm (the
    /// model chooses; needs --llm).
    pub selection: SelectionStrategy,
    /// The fitness rule of --selection mutation: brt (tests passing on c_old cannot be F2P
    /// and rank last) | paper (kills only, as published).
    pub fitness: FitnessRule,
    /// Do not use rescues (mutants on which a failing test passes) as the first tie-break
    /// after fitness.
    pub no_rescue_tiebreak: bool,
    /// How survivors become the next generation: llm (one batched model call per
    /// generation; the default with --llm) | none (survivors go on unchanged; the default
    /// without a model).
    pub crossover: Option<CrossoverStrategy>,
    /// Run each test once on c_old instead of twice (the second run detects flaky logs,
    /// whose kills are then not counted).
    pub no_flaky_check: bool,
    /// Run the tests without the sandbox: with network access and write access outside
    /// their working copy. Sealing (every run starts from a pristine copy) and reaping (no
    /// process outlives its run) stay on.
    pub no_sandbox: bool,
    /// How pytest starts on this machine: warm (one interpreter per worker, forked for each
    /// execution; the same results, 4-6 times the throughput, more when tests import heavy
    /// libraries) | cold (a fresh `python -m pytest` per execution).
    pub executor: crate::engine::ExecutorKind,
    /// The alternatives each mutation site gets: all (every operator of its class, constants
    /// 0, 1, -1, n+1, n-1, empty and one-character strings, None for containers) | table-i
    /// (the one or two replacements of the paper's Table I).
    pub operators: crate::engine::Operators,
    /// Where pytest runs: local (this machine, sandboxed) | docker (a container per worker,
    /// from --image).
    pub backend: crate::engine::Backend,
    /// The Docker image the tests run in (with --backend docker); never pulled. In a batch,
    /// `{id}` stands for the instance id, with `__` written `_1776_` as SWE-bench's images
    /// are named (e.g. swebench/sweb.eval.x86_64.{id}); a row's own `image` wins.
    pub image: Option<String>,
    /// A Docker host (repeatable: workers are spread over them, and a host that fails moves
    /// its executions to the others). Default: DOCKER_HOST, else the local socket.
    pub docker_hosts: Vec<String>,
    /// Where the repository goes in the container.
    pub docker_workdir: String,
    /// A shell prefix that activates the image's environment (e.g. `source
    /// /opt/miniconda3/bin/activate && conda activate testbed`).
    pub docker_activate: Option<String>,
    /// The interpreter in the image (SWE-bench images: python).
    pub docker_python: String,
    /// Give the containers network access (off by default).
    pub docker_network: bool,
    /// Memory limit of each container, e.g. 2g or 512m.
    pub docker_memory: Option<String>,
    /// CPU limit of each container, in cores (e.g. 1.5).
    pub docker_cpus: Option<f64>,
    /// The interpreter pytest runs with: a venv with the project's dependencies. Default:
    /// python3 from PATH if it has pytest, else a venv evootter manages.
    pub python: Option<PathBuf>,
    /// A directory, relative to the repository root, put on PYTHONPATH (repeatable).
    /// Default: the root, plus src/ when it exists.
    pub pythonpath: Vec<String>,
    /// Where the candidate tests are placed in the repository, relative to its root.
    /// Default: tests/, else test/, else the root.
    pub test_dir: Option<String>,
    /// How many pytest executions run at once. Default: the number of cores.
    pub jobs: Option<usize>,
    /// Cap on one execution, in seconds; mutant runs get (c_old time + 1 s) x 10 within it.
    /// Default 60 (or the instance's).
    pub timeout: Option<f64>,
    /// Seed of every random choice (mutant sampling, random selection): equal seeds, equal
    /// runs. Default 1 (or the instance's).
    pub seed: Option<u64>,
    /// The fix as a unified diff, used only after the run to check whether the tests are
    /// fail-to-pass; never shown to selection or the model.
    pub golden_patch: Option<PathBuf>,
    /// Output directory for session.json, report.json, the final test and final.patch: new,
    /// empty, or holding an earlier session (see --force). Default with --instance:
    /// sessions/NAME.
    pub out: Option<PathBuf>,
    /// Replace the session already in --out (the files evootter wrote there; yours stay).
    pub force: bool,
    /// The model for the LLM steps: anthropic | openai | scripted:FILE (recorded replies).
    /// With a model, it also breaks fitness ties that rescues cannot (paper III-C).
    pub llm: Option<String>,
    /// Model name for --llm. Default: the provider's current default.
    pub model: Option<String>,
    /// API base URL for --llm; any OpenAI-compatible server works with --llm openai.
    /// Default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider's.
    pub base_url: Option<String>,
    /// Reasoning effort for models that take one: low | medium | high (OpenAI
    /// `reasoning_effort`; for Anthropic a thinking budget of 2k/8k/24k tokens), or a number
    /// of thinking tokens. Default: none.
    pub reasoning: Option<String>,
    /// Retries of a failed model call (429, 5xx, 529, timeouts, unreachable server) before
    /// the run stops with its session saved. Default 5.
    pub llm_retries: Option<u32>,
    /// How the model writes the initial population when no --initial-tests are given:
    /// single (n tests in one call) | heterogeneous (one call per test, morphed issue,
    /// masked context).
    pub prompting: Prompting,
    /// Take over the executions of an earlier session of the same repository and tests
    /// (comparing strategies then runs each execution once).
    pub reuse_executions: Option<PathBuf>,
    /// A variable of your environment the tests also get (repeatable). By default they get
    /// only what finds the interpreter (PATH, an active venv or conda env, pyenv's choice,
    /// LD_LIBRARY_PATH) and your language: never your API keys or tokens, since a
    /// model-written test may print its environment into a log the model reads. Kept in
    /// the session by name; the value is read from your environment at every start.
    pub pass_env: Vec<String>,
    /// Accept an empty issue file (the model and the tests then have no issue to reproduce;
    /// the run says so in its notes).
    pub allow_empty_issue: bool,
    /// Go on when every test errors on c_old the same environmental way (a plugin the
    /// repository's pytest configuration asks for is missing, a dependency cannot be
    /// imported); the report says so. Without it the run stops at once, naming the error.
    pub keep_going: bool,
    /// Run trivially equivalent and duplicate mutants too.
    pub keep_equivalent_mutants: bool,
    /// Draw more mutants when a generation's sample leaves the cut tied (default on).
    pub settle_ties: bool,
    /// Widen the pool to the focal functions' callees and callers when they yield fewer
    /// than `mutants` (default), or keep it to the focal functions.
    pub mutant_scope: crate::engine::MutantScope,
    /// Judge rescues by the repository's own tests (default on; `engine::witness`).
    pub witnesses: bool,
    /// Which kills of a test failing on c_old count (default: those of its failing cases).
    pub kills: crate::engine::KillScope,
    /// Rank tests whose values are mostly the issue's first (default on; `engine::focus`).
    pub issue_focus: bool,
    /// Stop, saved, before a model call that would take the run's spending past this many
    /// dollars (estimated from the prompt and the step's longest reply so far). On resume,
    /// a new limit replaces the recorded one.
    pub budget_usd: Option<f64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        let base = RunConfig::default();
        Self {
            instance: None,
            instance_id: None,
            start: None,
            repo: None,
            issue: None,
            focal: vec![],
            initial_tests: None,
            tests: None,
            mutants: None,
            mutant_reach: base.reach,
            selection: base.selection,
            fitness: base.fitness,
            no_rescue_tiebreak: false,
            crossover: None,
            no_flaky_check: false,
            no_sandbox: false,
            executor: base.executor,
            operators: base.operators,
            backend: crate::engine::Backend::Local,
            image: None,
            docker_hosts: vec![],
            docker_workdir: "/testbed".into(),
            docker_activate: None,
            docker_python: "python3".into(),
            docker_network: false,
            docker_memory: None,
            docker_cpus: None,
            python: None,
            pythonpath: vec![],
            test_dir: None,
            jobs: None,
            timeout: None,
            seed: None,
            golden_patch: None,
            out: None,
            force: false,
            llm: None,
            model: None,
            base_url: None,
            reasoning: None,
            llm_retries: None,
            prompting: base.prompting,
            reuse_executions: None,
            pass_env: vec![],
            allow_empty_issue: false,
            keep_going: false,
            keep_equivalent_mutants: false,
            settle_ties: true,
            mutant_scope: base.mutant_scope,
            witnesses: base.witnesses,
            kills: base.kills,
            issue_focus: base.issue_focus,
            budget_usd: None,
        }
    }
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

fn check_budget(usd: f64) -> Result<f64, RequestError> {
    ensure!(
        usd.is_finite() && usd > 0.0,
        "--budget-usd {usd} is not a budget: pass a positive number of dollars, e.g. 0.50"
    );
    Ok(usd)
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

/// Most executions a run may have at once: pytest runs are CPU-bound, so beyond a few per
/// core they only queue, each holding a working copy and a process tree.
fn max_jobs() -> usize {
    (default_jobs() * 4).max(8)
}

fn check_jobs(jobs: usize) -> Result<usize, RequestError> {
    ensure!(
        jobs >= 1,
        "--jobs must be at least 1 (it is how many pytest executions run at once)"
    );
    ensure!(
        jobs <= max_jobs(),
        "--jobs {jobs} is more than this machine can use: it has {} cores, and more than {} \
         executions at once only queue up; pass at most --jobs {}",
        default_jobs(),
        max_jobs(),
        max_jobs()
    );
    Ok(jobs)
}

/// The run's inputs, every one checked, and the output directory (checked, not yet created).
/// Nothing is written before this returns.
/// The options given that change nothing in this run, each with why: kills, issue focus
/// and witnesses rank tests only under mutation selection with the BRT fitness rule.
fn idle_options(config: &RunConfig) -> Vec<String> {
    let base = RunConfig::default();
    let given: Vec<&str> = [
        (config.kills != base.kills, "--kills"),
        (config.issue_focus != base.issue_focus, "--no-issue-focus"),
        (config.witnesses != base.witnesses, "--no-witnesses"),
    ]
    .into_iter()
    .filter_map(|(g, name)| g.then_some(name))
    .collect();
    let why = if config.selection != SelectionStrategy::Mutation {
        format!("--selection {} does not rank by kills", config.selection)
    } else if config.fitness != crate::engine::FitnessRule::Brt {
        format!("--fitness {} counts every kill alike", config.fitness)
    } else {
        return vec![];
    };
    given
        .into_iter()
        .map(|name| {
            format!("{name} changes nothing here: {why} (it applies to mutation selection with --fitness brt)")
        })
        .collect()
}

/// What `--tests N` made of `available` initial test files: fewer than asked (all of them
/// run), or the first N in name order (named); with one, nothing is left to select.
fn population_note(n: usize, available: usize, taken: &[(PathBuf, String)]) -> Option<String> {
    let names = || {
        taken
            .iter()
            .filter_map(|(p, _)| p.file_name())
            .map(|f| f.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if available < n {
        Some(format!(
            "--tests {n}: the initial tests hold {available}, so the population is {available}"
        ))
    } else if n == 1 && available > 1 {
        Some(format!(
            "--tests 1: the first of the {available} initial tests in name order ({}) is the \
             population; with one test there is nothing to select, so it is the final test",
            names()
        ))
    } else if n < available {
        Some(format!(
            "--tests {n}: the first {n} of the {available} initial tests in name order: {}",
            names()
        ))
    } else {
        None
    }
}

fn new_doc(a: &RunOptions) -> Result<(SessionDoc, PathBuf), RequestError> {
    let inst = a.instance.as_deref().map(Instance::load).transpose()?;
    let need =
        |flag: &str| invalid!("missing --{flag} (or --instance DIR whose instance.toml gives it)");
    let repo = a
        .repo
        .clone()
        .or_else(|| inst.as_ref().map(|i| i.repo.clone()))
        .ok_or_else(|| need("repo"))?;
    if !repo.is_dir() {
        return Err(SetupError::NoRepo(repo).into());
    }
    let issue_path = a
        .issue
        .clone()
        .or_else(|| inst.as_ref().map(|i| i.issue.clone()))
        .ok_or_else(|| need("issue"))?;
    let issue_text = std::fs::read_to_string(&issue_path).map_err(|source| SetupError::Issue {
        path: issue_path.clone(),
        source,
    })?;
    ensure!(
        a.allow_empty_issue || !issue_text.trim().is_empty(),
        "the issue file {} is empty: the issue is what the tests must reproduce (and what the \
         model reads); write it there, or pass --allow-empty-issue to run without one",
        issue_path.display()
    );
    let out = a
        .out
        .clone()
        .or_else(|| {
            inst.as_ref()
                .map(|i| PathBuf::from("sessions").join(&i.name))
        })
        .ok_or_else(|| need("out"))?;
    outdir::check(&out, Intent::New { force: a.force })?;
    let start = a.start.or(inst.as_ref().map(|i| i.start));
    // The instance's candidates and focal functions apply when the run starts from them; the
    // full workflow (basebrt) has the model find both.
    let from_instance = inst.as_ref().filter(|_| start != Some(Start::Basebrt));
    if let (Some(Start::Candidates), Some(i)) = (start, &inst) {
        ensure!(
            i.initial_tests.is_some() || a.initial_tests.is_some(),
            "--start candidates: {} has no initial_tests; pass --initial-tests DIR or --start basebrt",
            i.dir.display()
        );
    }
    let focal = if a.focal.is_empty() {
        from_instance.map(|i| i.focal.clone()).unwrap_or_default()
    } else {
        a.focal.clone()
    };
    let tests_dir = a
        .initial_tests
        .clone()
        .or_else(|| from_instance.and_then(|i| i.initial_tests.clone()));
    // An instance's recorded script is its model for the full workflow, labelled as scripted.
    let llm = a.llm.clone().or_else(|| {
        inst.as_ref()
            .filter(|_| start == Some(Start::Basebrt))
            .and_then(|i| i.llm_script.as_ref())
            .map(|f| format!("scripted:{}", f.display()))
    });
    if let Some(spec) = &llm {
        super::model::check_spec(spec, a.reasoning.as_deref())?;
    }
    if tests_dir.is_none() && llm.is_none() {
        return Err(invalid!(
            "missing --initial-tests DIR (candidate tests), or --llm PROVIDER to have the model write them"
        ));
    }
    let defaults = inst.as_ref().map(|i| i.run.clone()).unwrap_or_default();
    // What neither the command line nor the instance says comes from the one set of defaults.
    let base = RunConfig::default();
    let n = a.tests.or(defaults.tests).unwrap_or(base.tests);
    if n == 0 {
        return Err(SetupError::NoTests.into());
    }
    let mutants = a.mutants.or(defaults.mutants).unwrap_or(base.mutants);
    ensure!(
        mutants >= 1,
        "--mutants must be at least 1: fitness is the number of mutants a test kills"
    );
    let timeout_secs = a.timeout.or(defaults.timeout).unwrap_or(base.timeout_secs);
    ensure!(
        timeout_secs.is_finite() && timeout_secs > 0.0,
        "--timeout must be a positive number of seconds (got {timeout_secs})"
    );
    let jobs = check_jobs(a.jobs.unwrap_or_else(super::default_jobs))?;
    let seed = a.seed.or(defaults.seed).unwrap_or(base.seed);
    let candidates = match &tests_dir {
        Some(dir) => setup::read_candidates(dir, n)?,
        None => vec![],
    };
    // A population that is not what --tests asked for, or a few of many files, is said.
    let population_note = match &tests_dir {
        Some(dir) => population_note(n, setup::candidate_files(dir)?.len(), &candidates),
        None if n == 1 => Some(
            "--tests 1: the model writes one test; with one test there is nothing to select, \
             so it is the final test"
                .to_owned(),
        ),
        None => None,
    };
    // The focal functions exist and yield mutants: the Mutate step would find out only after
    // the session (and, with a model, paid calls) exist.
    if !focal.is_empty() {
        crate::mutate::generate(&repo, &focal, mutants, seed, a.operators)?;
    }
    let golden_patch = a
        .golden_patch
        .clone()
        .or_else(|| inst.as_ref().and_then(|i| i.golden_patch.clone()));
    if let Some(g) = &golden_patch {
        ensure!(
            g.is_file(),
            "golden patch {} does not exist; pass the fix as a unified diff with --golden-patch",
            g.display()
        );
        crate::eval::golden_files(&repo, g)?;
    }
    let (python, docker, python_note, syntax_python) = match a.backend {
        Backend::Local => {
            let pyenv = exec::resolve_python(a.python.as_deref())?;
            let path = pyenv.path.clone();
            (
                pyenv.path.display().to_string(),
                None,
                pyenv.note,
                Some(path),
            )
        }
        Backend::Docker => {
            ensure!(
                a.python.is_none(),
                "--python names a local interpreter; with --backend docker the interpreter is \
                 the image's (--docker-python, default python3)"
            );
            let settings = docker_settings(a, inst.as_ref().map(|i| i.name.as_str()))?;
            // The syntax check is a courtesy: it needs a local python3, which a Docker run
            // does not otherwise need.
            let local = exec::python_env::locate_on_path("python3");
            (settings.python.clone(), Some(settings), None, local)
        }
    };
    let pythonpath = if !a.pythonpath.is_empty() {
        a.pythonpath.clone()
    } else if let Some(pp) = inst.as_ref().and_then(|i| i.pythonpath.clone()) {
        let mut pp = pp;
        if !pp.iter().any(|p| p == ".") {
            pp.insert(0, ".".into());
        }
        pp
    } else {
        setup::default_pythonpath(&repo)
    };
    for dir in &pythonpath {
        ensure!(
            repo.join(dir).is_dir(),
            "--pythonpath {dir} is not a directory of {}; give directories relative to the \
             repository root",
            repo.display()
        );
    }
    let test_dir = a
        .test_dir
        .clone()
        .or_else(|| inst.as_ref().and_then(|i| i.test_dir.clone()))
        .unwrap_or_else(|| setup::default_test_dir(&repo));
    let pass_env = check_pass_env(&a.pass_env, |name| std::env::var_os(name).is_some())?;
    let abs = |p: PathBuf| p.canonicalize().unwrap_or(p);
    let config = RunConfig {
        tests: n,
        mutants,
        selection: a.selection,
        fitness: a.fitness,
        rescue_tiebreak: !a.no_rescue_tiebreak,
        crossover: a.crossover.unwrap_or(if llm.is_some() {
            CrossoverStrategy::Llm
        } else {
            CrossoverStrategy::None
        }),
        check_flaky: !a.no_flaky_check,
        jobs,
        timeout_secs,
        seed,
        python,
        pythonpath,
        test_dir,
        llm: llm.map(|spec| match spec.strip_prefix("scripted:") {
            // Resolve the script path now: a resumed run may start elsewhere.
            Some(f) => format!("scripted:{}", abs(PathBuf::from(f)).display()),
            None => spec,
        }),
        llm_model: a.model.clone(),
        llm_base_url: a.base_url.clone(),
        prompting: a.prompting,
        llm_reasoning: a.reasoning.clone(),
        llm_retries: a.llm_retries,
        sandbox: !a.no_sandbox,
        docker,
        executor: a.executor,
        reach: a.mutant_reach,
        operators: a.operators,
        pass_env,
        keep_going: a.keep_going,
        keep_equivalent_mutants: a.keep_equivalent_mutants,
        settle_ties: a.settle_ties,
        mutant_scope: a.mutant_scope,
        witnesses: a.witnesses,
        kills: a.kills,
        issue_focus: a.issue_focus,
        budget_usd: a.budget_usd.map(check_budget).transpose()?,
    };
    let needs_model =
        config.selection == SelectionStrategy::Llm || config.crossover == CrossoverStrategy::Llm;
    ensure!(
        !needs_model || config.llm.is_some(),
        "--selection llm and --crossover llm need a model: pass --llm anthropic, --llm openai \
         (with --base-url for a compatible server) or --llm scripted:FILE"
    );

    // Syntax, by the run's own interpreter: a focal file that does not compile makes every
    // execution fail; a candidate that does not may still be worth running, but the user is
    // told.
    let mut sources = vec![];
    for f in &focal {
        if let Ok(text) = std::fs::read_to_string(repo.join(&f.file))
            && !sources.iter().any(|(l, _): &(String, String)| *l == f.file)
        {
            sources.push((f.file.clone(), text));
        }
    }
    for (path, text) in &candidates {
        sources.push((path.display().to_string(), text.clone()));
    }
    let syntax = match &syntax_python {
        Some(py) => exec::python_env::syntax_errors(py, &sources)?,
        None => vec![],
    };

    let inputs = Inputs {
        repo: abs(repo),
        issue_path: Some(abs(issue_path)),
        issue_text,
        focal: focal.clone(),
        initial_tests_dir: tests_dir.map(abs),
        golden_patch: golden_patch.map(abs),
        instance: inst
            .as_ref()
            .map(|i| i.name.clone())
            .or_else(|| a.instance_id.clone()),
        repo_fingerprint: String::new(),
    };
    let empty_issue = inputs.issue_text.trim().is_empty();
    let mut doc = setup::new_session(inputs, config, candidates)?;
    if empty_issue {
        doc.notes.push(
            "the issue is empty (--allow-empty-issue): nothing says what the tests must reproduce"
                .into(),
        );
    }
    if let Some(note) = python_note {
        doc.notes.push(note);
    }
    doc.notes.extend(population_note);
    doc.notes.extend(idle_options(&doc.config));
    for line in syntax {
        let focal_file = focal
            .iter()
            .any(|f| line.starts_with(&format!("{}:", f.file)));
        doc.notes.push(if focal_file {
            format!(
                "syntax error in the focal file {line}: every test will fail to import it on \
                 c_old and on its mutants"
            )
        } else {
            format!("syntax error in the candidate {line}: it will run, and fail to collect")
        });
    }
    if let Some(p) = &a.reuse_executions {
        let path = SessionDoc::file_in(p);
        let other = SessionDoc::load(&path)?;
        let n = setup::reuse_executions(&mut doc, &other)
            .map_err(|e| invalid!("{}: {e}", path.display()))?;
        doc.notes
            .push(format!("reused {n} executions from {}", path.display()));
    }
    Ok((doc, out))
}

/// `--pass-env`'s names, checked: each a variable name, set in this environment (a name
/// that is not set is a typo more often than a wish), and none that evootter reads for the
/// model: a test must never see the model's key, whatever the user asks.
fn check_pass_env(
    names: &[String],
    is_set: impl Fn(&str) -> bool,
) -> Result<Vec<String>, RequestError> {
    let mut out: Vec<String> = vec![];
    for name in names {
        ensure!(
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "--pass-env {name:?} is not a variable name; give the name alone (letters, digits, \
             _), e.g. --pass-env DATABASE_URL, not NAME=value"
        );
        ensure!(
            !is_model_variable(name),
            "--pass-env {name}: evootter reads {name} for the model, and the model's settings \
             never reach a test (a test that prints its environment would put the key in its \
             log, which the model reads); drop the flag"
        );
        ensure!(
            is_set(name),
            "--pass-env {name}: {name} is not set in this environment; set it (export \
             {name}=...) or drop the flag"
        );
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    Ok(out)
}

/// The variables the providers read (`ANTHROPIC_API_KEY`, `OPENAI_BASE_URL`, ...).
pub fn is_model_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("ANTHROPIC_") || upper.starts_with("OPENAI_")
}

/// The image a run or a batch row uses: `{id}` in the template stands for the instance id,
/// written as SWE-bench names its images (`__` as `_1776_`, lower case: Docker refuses upper
/// case in repository names).
pub fn image_for(template: &str, id: &str) -> String {
    if !template.contains("{id}") {
        return template.to_string();
    }
    template.replace("{id}", &id.replace("__", "_1776_").to_lowercase())
}

/// `--backend docker`'s options, checked: an image, a workdir that is absolute, limits that
/// parse.
pub fn docker_settings(a: &RunOptions, id: Option<&str>) -> Result<DockerSettings, RequestError> {
    let template = a.image.as_deref().ok_or_else(|| {
        invalid!(
            "--backend docker needs --image NAME: the image the tests run in (evootter never \
             pulls; `docker images` lists what the daemon has)"
        )
    })?;
    let image = match id {
        Some(id) => image_for(template, id),
        None => {
            ensure!(
                !template.contains("{id}"),
                "--image {template} has {{id}}, which stands for an instance id; give --instance \
                 or name the image"
            );
            template.to_string()
        }
    };
    ensure!(
        a.docker_workdir.starts_with('/'),
        "--docker-workdir {} must be an absolute path in the container (e.g. /testbed)",
        a.docker_workdir
    );
    let memory_bytes = match &a.docker_memory {
        Some(s) => Some(parse_size(s).ok_or_else(|| {
            invalid!("--docker-memory {s} is not a size; write e.g. 2g, 512m or 1073741824")
        })?),
        None => None,
    };
    let nano_cpus = match a.docker_cpus {
        Some(c) => {
            ensure!(
                c.is_finite() && c > 0.0,
                "--docker-cpus must be a positive number of cores (got {c})"
            );
            Some((c * 1e9).round() as i64)
        }
        None => None,
    };
    Ok(DockerSettings {
        image,
        hosts: a.docker_hosts.clone(),
        workdir: a.docker_workdir.clone(),
        activate: a.docker_activate.clone(),
        python: a.docker_python.clone(),
        network: a.docker_network,
        memory_bytes,
        nano_cpus,
    })
}

/// `2g`, `512m`, `64k` or a number of bytes. Docker needs at least 6 MiB; smaller is refused
/// by the daemon with its own message.
fn parse_size(s: &str) -> Option<i64> {
    let s = s.trim().to_ascii_lowercase();
    let s = s.strip_suffix('b').unwrap_or(&s);
    let (digits, unit) = match s
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit() && *c != '.')
    {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mult: f64 = match unit {
        "" => 1.0,
        "k" => 1024.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let n: f64 = digits.parse().ok()?;
    (n > 0.0).then_some((n * mult) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An option that ranks nothing in this run is named, with why.
    #[test]
    fn options_that_change_nothing_are_said() {
        let base = RunConfig::default();
        assert!(idle_options(&base).is_empty());
        let whole = RunConfig {
            kills: crate::engine::KillScope::WholeLog,
            ..base.clone()
        };
        assert!(idle_options(&whole).is_empty(), "it counts under brt");
        let paper = RunConfig {
            fitness: crate::engine::FitnessRule::Paper,
            ..whole.clone()
        };
        assert_eq!(
            idle_options(&paper),
            [
                "--kills changes nothing here: --fitness paper counts every kill alike (it \
              applies to mutation selection with --fitness brt)"
            ]
        );
        let random = RunConfig {
            selection: SelectionStrategy::Random,
            issue_focus: false,
            ..whole
        };
        let notes = idle_options(&random);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[1].starts_with("--no-issue-focus changes nothing here: --selection random"));
    }

    /// `--tests N` that is not the number of initial tests is said, with what was taken.
    #[test]
    fn a_population_other_than_asked_is_said() {
        let taken = |names: &[&str]| -> Vec<(PathBuf, String)> {
            names
                .iter()
                .map(|n| (PathBuf::from("/c").join(n), String::new()))
                .collect()
        };
        let all = taken(&["a.py", "b.py", "c.py"]);
        assert_eq!(
            population_note(8, 3, &all).unwrap(),
            "--tests 8: the initial tests hold 3, so the population is 3"
        );
        assert_eq!(population_note(3, 3, &all), None);
        let one = population_note(1, 3, &taken(&["a.py"])).unwrap();
        assert!(
            one.contains("(a.py)") && one.contains("it is the final test"),
            "{one}"
        );
        let two = population_note(2, 3, &taken(&["a.py", "b.py"])).unwrap();
        assert!(two.ends_with("in name order: a.py, b.py"), "{two}");
    }

    #[test]
    fn swebench_image_names() {
        assert_eq!(
            image_for("swebench/sweb.eval.x86_64.{id}", "django__django-11099"),
            "swebench/sweb.eval.x86_64.django_1776_django-11099"
        );
        assert_eq!(
            image_for("sweb.eval.{id}:latest", "Pylons__pyramid-1"),
            "sweb.eval.pylons_1776_pyramid-1:latest"
        );
        assert_eq!(image_for("python:3.11", "x__y"), "python:3.11");
    }

    #[test]
    fn pass_env_names_are_checked() {
        let set = |n: &str| n != "UNSET_VAR";
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            check_pass_env(&names(&["DATABASE_URL", "X_1", "DATABASE_URL"]), set).unwrap(),
            names(&["DATABASE_URL", "X_1"])
        );
        for (bad, says) in [
            ("ANTHROPIC_API_KEY", "for the model"),
            ("openai_api_key", "for the model"),
            ("A=b", "not a variable name"),
            ("1X", "not a variable name"),
            ("UNSET_VAR", "not set in this environment"),
        ] {
            let e = check_pass_env(&names(&[bad]), set).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("1.5g"), Some(3 << 29));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("2gb"), Some(2 << 30));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("3t"), None);
        assert_eq!(parse_size("0"), None);
    }
}
