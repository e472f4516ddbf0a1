//! The command line's side of a run's options: `RunArgs` (clap) becomes the library's
//! `RunOptions`, whose defaults stand for every flag not given.

use evootter::workbench::RunOptions;
use std::path::PathBuf;

/// Every option of `run` (and `tui`, `bench`) as the command line takes it; `RunOptions` is
/// what the library gets. A flag not given is `None` here and the library's default there, so
/// each default is written once (`RunOptions::default`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RunArgs {
    /// An instance directory with instance.toml (e.g. examples/NAME), which gives the repo,
    /// issue, candidates, focal functions and run settings; flags override it.
    #[arg(long, value_name = "DIR")]
    pub instance: Option<PathBuf>,
    /// With --instance: basebrt (the model localizes and writes the tests; the instance's
    /// recorded script is the model unless --llm names one) | candidates (the instance's own
    /// tests and focal functions). Default: the instance's `start`.
    #[arg(long)]
    pub start: Option<evootter::instance::Start>,
    /// The repository at the buggy commit (c_old). Only read: runs happen in copies.
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The issue description (Markdown or text), shown to the model and kept in the session.
    #[arg(long, value_name = "FILE")]
    pub issue: Option<PathBuf>,
    /// A focal function, FILE::QUALNAME (repeatable): where the mutants are made. Without
    /// it, the model localizes them (needs --llm).
    #[arg(long = "focal", value_name = "FILE::QUALNAME")]
    pub focal: Vec<evootter::python::FocalFunction>,
    /// Directory of candidate test modules (*.py): the initial population. Without it, the
    /// model writes the tests (needs --llm).
    #[arg(long, value_name = "DIR")]
    pub initial_tests: Option<PathBuf>,
    /// n, the population size: the first N candidates in name order, or N tests from the
    /// model. Default 8 (or the instance's).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count)]
    pub tests: Option<usize>,
    /// m, the size of the mutant pool; generation g runs about 2m/|tests| of them. Default 20
    /// (or the instance's).
    #[arg(long, value_name = "M", allow_negative_numbers = true, value_parser = count)]
    pub mutants: Option<usize>,
    /// Which mutants each generation samples: discriminate (those that tell the competing
    /// tests apart first: among the reached mutants, those some tests failing on c_old
    /// execute and others do not) | reached (only those whose changed lines some test of
    /// the population executes on c_old: every baseline is traced over the focal files, and a
    /// mutant no test reaches is never run) | all (the whole pool, as the paper samples).
    /// Default: discriminate (all with --preset paper).
    #[arg(
        long = "sampling",
        alias = "mutant-reach",
        value_name = "discriminate|reached|all"
    )]
    pub mutant_reach: Option<evootter::engine::MutantReach>,
    /// How each generation's better half is chosen: mutation (kills; ties to rescues, then
    /// the model or the Otter rules) | random | otter (rule-based, no kills) | llm (the
    /// model chooses; needs --llm).
    /// Default: mutation.
    #[arg(long)]
    pub selection: Option<evootter::engine::SelectionStrategy>,
    /// Which of the paper's systems runs: evootter (evolution by mutant kills) | basebrt (one
    /// test from the issue, nothing selected) | rule-select (the Otter rules pick one of the
    /// candidates by their c_old runs) | llm-select (one model call picks one; needs --llm)
    /// | eotter (e-Otter: each test runs on c_old, a critic judges it and the model repairs
    /// it until the critic accepts, up to --repair-rounds calls per test; starts from one
    /// test written from the issue, or --tests N each repaired and then picked by the Otter
    /// rules; needs --llm). The others run no mutant. Default: evootter.
    #[arg(long, value_name = "evootter|basebrt|rule-select|llm-select|eotter")]
    pub method: Option<evootter::engine::Method>,
    /// --method eotter: the most critic-and-repair calls per test (each call judges the
    /// test's c_old run and, when it rejects it, writes the repaired test). Default: 10.
    #[arg(long, value_name = "N", value_parser = count)]
    pub repair_rounds: Option<usize>,
    /// The method in one word: paper (EvoOtter as published: --fitness paper --sampling all
    /// --mutant-scope focal --operators table-i --no-settle-ties --no-witnesses
    /// --no-rescue-tiebreak --no-flaky-check --keep-equivalent-mutants). An option given
    /// explicitly still wins; the session, report.json, `show` and the screens say what the
    /// preset set. docs/paper.md compares each of these with evootter's default.
    #[arg(long, value_name = "paper")]
    pub preset: Option<evootter::engine::Preset>,
    /// The fitness rule of --selection mutation: brt (in order: tests passing on c_old last,
    /// then tests that never get to the focal code, rescues judged by the repository's
    /// tests, the issue's values, kills that change what fails, kills) | brt-kills (the rule
    /// before those: passing tests last, the best rescuer's share, every kill; for
    /// comparison) | paper (kills only, as published). It also orders --selection random and
    /// otter: under brt and brt-kills a test passing on c_old goes last whatever the draw or
    /// the rules say; under paper it takes its place like any other.
    /// Default: brt (paper with --preset paper).
    #[arg(long)]
    pub fitness: Option<evootter::engine::FitnessRule>,
    /// Do not use rescues (mutants on which a failing test passes) as the first tie-break
    /// after fitness.
    #[arg(long)]
    pub no_rescue_tiebreak: bool,
    /// How survivors become the next generation: llm (one batched model call per
    /// generation; the default with --llm) | none (survivors go on unchanged; the default
    /// without a model).
    #[arg(long)]
    pub crossover: Option<evootter::engine::CrossoverStrategy>,
    /// Run each test once on c_old instead of twice (the second run detects flaky logs,
    /// whose kills are then not counted).
    #[arg(long)]
    pub no_flaky_check: bool,
    /// Run the tests without the sandbox: with network access and write access outside
    /// their working copy. Sealing (every run starts from a pristine copy) and reaping (no
    /// process outlives its run) stay on.
    #[arg(long)]
    pub no_sandbox: bool,
    /// How pytest starts on this machine: warm (one interpreter per worker, forked for each
    /// execution; the same results, 4-6 times the throughput, more when tests import heavy
    /// libraries) | cold (a fresh `python -m pytest` per execution).
    /// Default: warm.
    #[arg(long)]
    pub executor: Option<evootter::engine::ExecutorKind>,
    /// The alternatives each mutation site gets: all (every operator of its class, constants
    /// 0, 1, -1, n+1, n-1, empty and one-character strings, None for containers) | table-i
    /// (the one or two replacements of the paper's Table I).
    /// Default: all (table-i with --preset paper).
    #[arg(long)]
    pub operators: Option<evootter::engine::Operators>,
    /// Where pytest runs: local (this machine, sandboxed) | docker (a container per worker,
    /// from --image).
    /// Default: local.
    #[arg(long)]
    pub backend: Option<evootter::engine::Backend>,
    /// The Docker image the tests run in (with --backend docker); never pulled. In a batch,
    /// `{id}` stands for the instance id, with `__` written `_1776_` as SWE-bench's images
    /// are named (e.g. swebench/sweb.eval.x86_64.{id}); a row's own `image` wins.
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,
    /// A Docker host (repeatable: workers are spread over them, and a host that fails moves
    /// its executions to the others). Default: DOCKER_HOST, else the local socket.
    #[arg(long = "docker-host", value_name = "URL")]
    pub docker_hosts: Vec<String>,
    /// Where the repository goes in the container.
    /// Default: /testbed.
    #[arg(long, value_name = "DIR")]
    pub docker_workdir: Option<String>,
    /// A shell prefix that activates the image's environment (e.g. `source
    /// /opt/miniconda3/bin/activate && conda activate testbed`).
    #[arg(long, value_name = "CMD")]
    pub docker_activate: Option<String>,
    /// The interpreter in the image (SWE-bench images: python).
    /// Default: python3.
    #[arg(long, value_name = "NAME")]
    pub docker_python: Option<String>,
    /// Give the containers network access (off by default).
    #[arg(long)]
    pub docker_network: bool,
    /// Memory limit of each container, e.g. 2g or 512m.
    #[arg(long, value_name = "SIZE")]
    pub docker_memory: Option<String>,
    /// CPU limit of each container, in cores (e.g. 1.5).
    #[arg(long, value_name = "N")]
    pub docker_cpus: Option<f64>,
    /// The interpreter pytest runs with: a venv with the project's dependencies. Default:
    /// python3 from PATH if it has pytest, else a venv evootter manages.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// A directory, relative to the repository root, put on PYTHONPATH (repeatable).
    /// Default: the root, plus src/ when it exists.
    #[arg(long = "pythonpath", value_name = "REL")]
    pub pythonpath: Vec<String>,
    /// Where the candidate tests are placed in the repository, relative to its root.
    /// Default: tests/, else test/, else the root.
    #[arg(long, value_name = "REL")]
    pub test_dir: Option<String>,
    /// How many pytest executions run at once. Default: the number of cores (in a Slurm job,
    /// the CPUs it was given on the node).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Cap on one execution, in seconds; mutant runs get (c_old time + 1 s) x 10 within it.
    /// Default 60 (or the instance's).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Seed of every random choice (mutant sampling, random selection): equal seeds, equal
    /// runs. Default 1 (or the instance's).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// The fix as a unified diff, used only after the run to check whether the tests are
    /// fail-to-pass; never shown to selection or the model.
    #[arg(long, value_name = "FILE")]
    pub golden_patch: Option<PathBuf>,
    /// Output directory for session.json, report.json, the final test and final.patch: new,
    /// empty, or holding an earlier session (see --force). Default with --instance:
    /// sessions/NAME.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the session already in --out (the files evootter wrote there; yours stay).
    #[arg(long)]
    pub force: bool,
    /// The model for the LLM steps: anthropic | openai | scripted:FILE (recorded replies).
    /// With a model, it also breaks fitness ties that rescues cannot (paper III-C).
    #[arg(long, value_name = "PROVIDER")]
    pub llm: Option<String>,
    /// Model name for --llm. Default: the provider's current default.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// API base URL for --llm; any OpenAI-compatible server works with --llm openai.
    /// Default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider's.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Reasoning effort for models that take one: low | medium | high (OpenAI
    /// `reasoning_effort`; for Anthropic a thinking budget of 2k/8k/24k tokens), or a number
    /// of thinking tokens. Default: none.
    #[arg(long, value_name = "EFFORT")]
    pub reasoning: Option<String>,
    /// Retries of a failed model call (429, 5xx, 529, timeouts, unreachable server) before
    /// the run stops with its session saved. Default 5.
    #[arg(long, value_name = "N")]
    pub llm_retries: Option<u32>,
    /// How the model writes the initial population when no --initial-tests are given:
    /// single (n tests in one call) | heterogeneous (as published: one variant per test, each
    /// running BaseBRT's localization and contextualization again with its morphed issue,
    /// then its test with its masked context) | heterogeneous-generate (one localization from
    /// the original issue, then one call per test, morphed issue, masked context).
    /// Default: single.
    #[arg(long)]
    pub prompting: Option<evootter::engine::Prompting>,
    /// Take over the executions of an earlier session of the same repository and tests
    /// (comparing strategies then runs each execution once).
    #[arg(long, value_name = "SESSION")]
    pub reuse_executions: Option<PathBuf>,
    /// A variable of your environment the tests also get (repeatable). By default they get
    /// only what finds the interpreter (PATH, an active venv or conda env, pyenv's choice,
    /// LD_LIBRARY_PATH) and your language: never your API keys or tokens, since a
    /// model-written test may print its environment into a log the model reads. Kept in
    /// the session by name; the value is read from your environment at every start.
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// Accept an empty issue file (the model and the tests then have no issue to reproduce;
    /// the run says so in its notes).
    #[arg(long)]
    pub allow_empty_issue: bool,
    /// Go on when every test errors on c_old the same environmental way (a plugin the
    /// repository's pytest configuration asks for is missing, a dependency cannot be
    /// imported); the report says so. Without it the run stops at once, naming the error.
    #[arg(long)]
    pub keep_going: bool,
    /// Also run mutants whose function compiles to the original's code (trivially
    /// equivalent: they cannot change a run) or to an earlier mutant's (duplicates). By
    /// default they are dropped before sampling and counted per kind.
    #[arg(long)]
    pub keep_equivalent_mutants: bool,
    /// Never draw mutants to settle a tie: when a generation's sample leaves tests tied
    /// across the cut, rescues, the model or the Otter rules decide at once (as the paper).
    /// By default as many mutants again are drawn once, with the tied tests as the
    /// competitors, and the generation runs on them first.
    #[arg(long)]
    pub no_settle_ties: bool,
    /// Do not judge rescues by the repository's own tests. By default the repository's test
    /// modules that import a focal module run on every mutant that rescues a candidate; a
    /// failing test whose best rescuer keeps the largest share of their passing tests ranks
    /// first (a plausible surrogate fix), before kills, and rescuers are drawn again in later
    /// generations' samples.
    #[arg(long)]
    pub no_witnesses: bool,
    /// Which kills of a test that fails on c_old its fitness counts: failing-cases (the
    /// kills that change a case it fails on c_old; a case that passes there is a passing
    /// test, whose kills the BRT rule does not count) | whole-log (any change of its log, as
    /// before). Default: failing-cases.
    #[arg(long, value_name = "failing-cases|whole-log")]
    pub kills: Option<evootter::engine::KillScope>,
    /// Do not weigh how much of a test is about the issue. By default, among tests that fail
    /// on c_old and are ranked alike by their rescues, one with a larger share of its literal
    /// values (strings, numbers; in quarters, three and more counting as all; a test with none
    /// counting as half) in the issue's text ranks first (a broad test of many cases, a test
    /// of neighbouring behaviour, uses values of its own), before kills decide.
    #[arg(long)]
    pub no_issue_focus: bool,
    /// Stop before a model call that would take the run's spending past this many dollars
    /// (estimated from the prompt's tokens and the step's longest reply so far); the session
    /// is saved, and `run --resume DIR --budget-usd Y` continues with a new limit.
    #[arg(long, value_name = "USD")]
    pub budget_usd: Option<f64>,
    /// Which functions the mutants come from: widened (the focal functions and, when they
    /// yield fewer than M mutants, the functions they call and that call them in the same
    /// files, each such mutant marked `callee` or `caller`) | focal (the focal functions
    /// only, as the paper). Default: widened (focal with --preset paper).
    #[arg(long, value_name = "widened|focal")]
    pub mutant_scope: Option<evootter::engine::MutantScope>,
    /// Only mutants of these kinds, comma-separated: the paper's categories (operators,
    /// constant_replacement, return_value, assignment, force_failure; Table IX runs each
    /// alone) or single kinds (binary_arithmetic, unary_logical, ...). Default: every kind.
    #[arg(long, value_name = "LIST")]
    pub mutant_kinds: Option<evootter::mutate::KindList>,
}

impl From<RunArgs> for RunOptions {
    fn from(a: RunArgs) -> Self {
        let d = RunOptions::default();
        RunOptions {
            instance: a.instance,
            instance_id: None,
            start: a.start,
            repo: a.repo,
            issue: a.issue,
            focal: a.focal,
            initial_tests: a.initial_tests,
            tests: a.tests,
            mutants: a.mutants,
            mutant_reach: a.mutant_reach,
            selection: a.selection.unwrap_or(d.selection),
            fitness: a.fitness,
            no_rescue_tiebreak: a.no_rescue_tiebreak,
            crossover: a.crossover,
            no_flaky_check: a.no_flaky_check,
            no_sandbox: a.no_sandbox,
            executor: a.executor.unwrap_or(d.executor),
            operators: a.operators,
            backend: a.backend.unwrap_or(d.backend),
            image: a.image,
            docker_hosts: a.docker_hosts,
            docker_workdir: a.docker_workdir.unwrap_or(d.docker_workdir),
            docker_activate: a.docker_activate,
            docker_python: a.docker_python.unwrap_or(d.docker_python),
            docker_network: a.docker_network,
            docker_memory: a.docker_memory,
            docker_cpus: a.docker_cpus,
            python: a.python,
            pythonpath: a.pythonpath,
            test_dir: a.test_dir,
            jobs: a.jobs,
            timeout: a.timeout,
            seed: a.seed,
            golden_patch: a.golden_patch,
            out: a.out,
            force: a.force,
            llm: a.llm,
            model: a.model,
            base_url: a.base_url,
            reasoning: a.reasoning,
            llm_retries: a.llm_retries,
            prompting: a.prompting.unwrap_or(d.prompting),
            reuse_executions: a.reuse_executions,
            pass_env: a.pass_env,
            allow_empty_issue: a.allow_empty_issue,
            keep_going: a.keep_going,
            keep_equivalent_mutants: a.keep_equivalent_mutants,
            settle_ties: !a.no_settle_ties,
            mutant_scope: a.mutant_scope,
            witnesses: !a.no_witnesses,
            kills: a.kills.unwrap_or(d.kills),
            issue_focus: !a.no_issue_focus,
            budget_usd: a.budget_usd,
            mutant_kinds: a.mutant_kinds.map(|k| k.0),
            method: a.method,
            repair_rounds: a.repair_rounds,
            preset: a.preset,
        }
    }
}

/// A count (`--tests`, `--mutants`): a negative number reads as 0, which the run's own check
/// refuses as every other bad count ("--tests must be at least 1"), not as an unknown
/// argument `-1`.
fn count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<i64>() {
        Ok(n) => Ok(n.max(0) as usize),
        Err(_) => Err("must be a whole number, at least 1".into()),
    }
}
