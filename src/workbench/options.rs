//! Every option of a run as the library takes it ([`RunOptions`]), with its `Default`: the
//! run with no option given. Which value wins where the command line, an instance and the
//! defaults each say something is [`super::resolve`]'s.

use crate::engine::{CrossoverStrategy, FitnessRule, Prompting, RunConfig, SelectionStrategy};
use crate::instance::Start;
use crate::python::FocalFunction;
use std::path::PathBuf;

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
    /// `None`: the preset's, else discriminate.
    pub mutant_reach: Option<crate::engine::MutantReach>,
    /// How each generation's better half is chosen: mutation (kills; ties to rescues, then
    /// the model or the Otter rules) | random | otter (rule-based, no kills) | llm (the
    /// model chooses; needs --llm).
    pub selection: SelectionStrategy,
    /// The fitness rule of --selection mutation: brt (tests passing on c_old cannot be F2P
    /// and rank last) | paper (kills only, as published).
    /// `None`: the preset's, else brt.
    pub fitness: Option<FitnessRule>,
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
    /// `None`: the preset's, else all.
    pub operators: Option<crate::engine::Operators>,
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
    /// `None`: the preset's, else widened.
    pub mutant_scope: Option<crate::engine::MutantScope>,
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
    /// Which of the paper's systems (`--method`); `None`: EvoOtter.
    pub method: Option<crate::engine::Method>,
    /// e-Otter's most critic-and-repair calls per test (`--repair-rounds`).
    pub repair_rounds: Option<usize>,
    /// Only mutants of these kinds (`--mutant-kinds`); `None`: every kind.
    pub mutant_kinds: Option<Vec<crate::mutate::MutantKind>>,
    /// A method in one word (`--preset paper`): sets the options not given here.
    pub preset: Option<crate::engine::Preset>,
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
            mutant_reach: None,
            selection: base.selection,
            fitness: None,
            no_rescue_tiebreak: false,
            crossover: None,
            no_flaky_check: false,
            no_sandbox: false,
            executor: base.executor,
            operators: None,
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
            mutant_scope: None,
            witnesses: base.witnesses,
            kills: base.kills,
            issue_focus: base.issue_focus,
            budget_usd: None,
            mutant_kinds: None,
            method: None,
            repair_rounds: None,
            preset: None,
        }
    }
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
}
