//! The knobs of one run, stored in the session so a resumed run behaves exactly as it started.

pub use crate::mutate::{MutantScope, Operators};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How the better half of a generation is chosen (paper III-C, IV-A, IV-B).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionStrategy {
    /// Fitness = mutant kills; ties across the cut go to the fallback chain.
    #[default]
    Mutation,
    /// Seeded uniform choice.
    Random,
    /// The rule-based Otter selector: assertion failures, other failures, errors, passes;
    /// ties by shorter test.
    Otter,
    /// The model keeps half, given the issue, the tests and their `c_old` logs.
    Llm,
}

/// What decided a generation's cut: the strategy itself, or the tie-break after fitness.
/// Stored under these names in sessions and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CutRule {
    /// Kills (fitness) separated the kept tests from the dropped ones.
    Mutation,
    /// Fitness tied at the cut; rescue counts broke the tie.
    Rescues,
    /// The Otter rules: outcome category on c_old, then the shorter test.
    Otter,
    /// Seeded uniform choice.
    Random,
    /// The model chose (the whole cut, or a fitness tie).
    Llm,
}

/// Which fitness rule the mutation strategy uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitnessRule {
    /// The BRT rule's evidence in order (`selection::fitness_key`): a test that passes on
    /// `c_old` last (it cannot be fail-to-pass), one that never gets to the focal code next,
    /// then rescues judged by the repository's tests, issue focus, kills that change what
    /// fails, and kills of the cases a test fails on `c_old`. The default.
    #[default]
    Brt,
    /// The BRT rule as it was before the fresh-bug benchmark: tests passing on `c_old` last,
    /// then the best rescuer's share of the repository's tests (any judged rescuer above
    /// none), then every kill of the log. For comparison (`--fitness brt-kills`).
    BrtKills,
    /// The paper's literal rule: kills only. For research and teaching.
    Paper,
}

/// Which of a failing test's kills its fitness counts under the BRT rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KillScope {
    /// Kills that change the cases the test fails on `c_old` (`kill::Cell::KilledPassing`
    /// does not count): a passing case's kills are a passing test's. The default.
    FailingCases,
    /// Every kill, wherever in the log (as sessions from before the choice counted).
    #[default]
    WholeLog,
}

/// How a generation's survivors become the next generation (paper III-D).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrossoverStrategy {
    /// Survivors go on unchanged (Table III's "Mutation" row).
    None,
    /// One batched model call writes the next generation from the survivors (paper III-D).
    Llm,
}

/// How the model writes the initial population (paper III-B, IV-D).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prompting {
    /// All n tests in one call (cheap; the paper's best result with a strong model).
    #[default]
    Single,
    /// As published (paper III-B, Fig. 3): each variant, one per test, runs BaseBRT's whole
    /// workflow (the localization and contextualization the run asks of the model, then the
    /// test) with its morphed issue, and writes its test with its context mask.
    Heterogeneous,
    /// The cheaper form: one localization and contextualization from the original issue,
    /// then one test per call, each from a morphed issue and a masked context.
    HeterogeneousGenerate,
}

macro_rules! cli_enum {
    ($ty:ty, $what:literal, [$($name:literal => $val:expr),+ $(,)?]) => {
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($name => Ok($val),)+
                    _ => Err(format!(
                        concat!("unknown ", $what, " `{}`; expected one of: {}"),
                        s,
                        [$($name),+].join(", ")
                    )),
                }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let name = match self { $(v if *v == $val => $name,)+ _ => unreachable!() };
                f.write_str(name)
            }
        }
    };
}

cli_enum!(SelectionStrategy, "selection strategy", [
    "mutation" => SelectionStrategy::Mutation,
    "random" => SelectionStrategy::Random,
    "otter" => SelectionStrategy::Otter,
    "llm" => SelectionStrategy::Llm,
]);
cli_enum!(CutRule, "cut rule", [
    "mutation" => CutRule::Mutation,
    "rescues" => CutRule::Rescues,
    "otter" => CutRule::Otter,
    "random" => CutRule::Random,
    "llm" => CutRule::Llm,
]);
cli_enum!(FitnessRule, "fitness rule", [
    "brt" => FitnessRule::Brt,
    "brt-kills" => FitnessRule::BrtKills,
    "paper" => FitnessRule::Paper,
]);

impl FitnessRule {
    /// Whether a test passing on `c_old` ranks below every test that fails there.
    pub fn is_brt(self) -> bool {
        self != FitnessRule::Paper
    }
}
cli_enum!(Prompting, "prompting", [
    "single" => Prompting::Single,
    "heterogeneous" => Prompting::Heterogeneous,
    "heterogeneous-generate" => Prompting::HeterogeneousGenerate,
]);
cli_enum!(KillScope, "kill scope", [
    "failing-cases" => KillScope::FailingCases,
    "whole-log" => KillScope::WholeLog,
]);

cli_enum!(CrossoverStrategy, "crossover strategy", [
    "none" => CrossoverStrategy::None,
    "llm" => CrossoverStrategy::Llm,
]);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// `n`: size of the initial test population.
    pub tests: usize,
    /// `m`: size of the mutant pool.
    pub mutants: usize,
    pub selection: SelectionStrategy,
    pub fitness: FitnessRule,
    /// Use rescues (a test failing on `c_old` that passes on a mutant) as the first tie-break.
    pub rescue_tiebreak: bool,
    pub crossover: CrossoverStrategy,
    /// Run each test twice on `c_old` to detect flaky logs.
    #[serde(default = "yes")]
    pub check_flaky: bool,
    pub jobs: usize,
    /// Cap on one execution, in seconds; mutant runs get less, derived from the baseline.
    pub timeout_secs: f64,
    pub seed: u64,
    /// The interpreter pytest runs with.
    pub python: String,
    /// Repo-relative directories on PYTHONPATH.
    pub pythonpath: Vec<String>,
    /// Repo-relative directory candidate tests are placed in.
    pub test_dir: String,
    /// The model for the LLM steps (`anthropic:MODEL`, `openai:MODEL@URL`, `scripted:FILE`),
    /// rebuilt from this on resume; keys come from the environment, never from here.
    #[serde(default)]
    pub llm: Option<String>,
    /// `--model` for that provider (`None`: the provider's default).
    #[serde(default)]
    pub llm_model: Option<String>,
    /// `--base-url` for that provider (`None`: its environment variable or default).
    #[serde(default)]
    pub llm_base_url: Option<String>,
    #[serde(default)]
    pub prompting: Prompting,
    /// `--reasoning`: low | medium | high, or a thinking budget in tokens (Anthropic).
    #[serde(default)]
    pub llm_reasoning: Option<String>,
    /// `--llm-retries`: retries after a failed attempt (`None`: the provider default, 5).
    #[serde(default)]
    pub llm_retries: Option<u32>,
    /// Executions run sandboxed: no network, writes only into the working copy, its temp dir
    /// and a private home (`--no-sandbox` turns it off).
    #[serde(default = "yes")]
    pub sandbox: bool,
    /// Where pytest runs: on this machine, or in Docker containers (`docker`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docker: Option<DockerSettings>,
    /// How the local backend starts pytest: a fresh interpreter per execution (`cold`), or a
    /// fork of a warm one per worker (`warm`). Sessions from before the choice existed ran
    /// cold, and resume so.
    #[serde(default)]
    pub executor: ExecutorKind,
    /// Which mutants each generation samples: all of the pool, or those some test of the
    /// population reaches on `c_old` (then the pool holds every mutant the focal functions
    /// yield, and `mutants` bounds the schedule). Sessions from before sampled from all.
    #[serde(default)]
    pub reach: MutantReach,
    /// The alternatives each mutation site gets (`--operators`). Sessions from before the
    /// choice existed made Table I's pools, and resume with them.
    #[serde(default = "table_i")]
    pub operators: Operators,
    /// Variables of the user's environment the tests also get (`--pass-env`), by name only:
    /// their values are read from the environment of each start and never stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    /// Go on when every test errors on `c_old` the same environmental way (`--keep-going`);
    /// the report says so. Without it the run stops at once, naming the error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_going: bool,
    /// Run trivially equivalent and duplicate mutants too (`--keep-equivalent-mutants`), as
    /// before the check existed: for comparisons with the paper.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_equivalent_mutants: bool,
    /// When a generation's sample leaves tests tied across the cut, draw as many mutants
    /// again once and run the generation on them before a tie-break decides. Sessions from
    /// before it existed read `false` and resume as they ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub settle_ties: bool,
    /// Which functions the pool is made from: the focal ones, or also their callees and
    /// callers when the focal functions yield fewer than `mutants`. Sessions from before it
    /// existed read `focal` and resume as they ran.
    #[serde(default, skip_serializing_if = "is_focal")]
    pub mutant_scope: MutantScope,
    /// Rescues judged by the repository's own tests (`engine::witness`): the rescuing
    /// mutants drawn again in later samples, and a failing test's best rescuer's share of
    /// the repository's tests kept ranking it before its kills. Sessions from before it
    /// existed read `false` and resume as they ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub witnesses: bool,
    /// Which kills of a test failing on `c_old` count (`--kills`). Sessions from before the
    /// choice existed read `whole_log` and resume as they ran.
    #[serde(default, skip_serializing_if = "is_whole_log")]
    pub kills: KillScope,
    /// Rank a failing test whose literal values are mostly the issue's before one whose are
    /// not (`engine::focus`; `--no-issue-focus` turns it off). Sessions from before it
    /// existed read `false` and resume as they ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub issue_focus: bool,
    /// `--budget-usd`: the run stops, saved, before a model call that would take its
    /// spending past this many dollars; `run --resume --budget-usd Y` replaces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_usd: Option<f64>,
    /// Only mutants of these kinds (`--mutant-kinds`, the paper's Table IX); `None`: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutant_kinds: Option<Vec<crate::mutate::MutantKind>>,
    /// Which of the paper's systems the run is (`--method`).
    #[serde(default, skip_serializing_if = "is_evootter")]
    pub method: Method,
    /// e-Otter's most critic-and-repair calls per test (`--repair-rounds`); `Some` exactly
    /// when the method is e-Otter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_rounds: Option<usize>,
    /// The preset the run was made with (`--preset`), and what it set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<PresetUse>,
}

fn is_whole_log(k: &KillScope) -> bool {
    *k == KillScope::WholeLog
}

fn is_focal(s: &MutantScope) -> bool {
    *s == MutantScope::Focal
}

/// A run with nothing asked for: what `RunOptions::default()` makes of a repository with
/// given candidates and focal functions (the tests start from it too, see `testkit`).
impl Default for RunConfig {
    fn default() -> Self {
        Self {
            tests: 8,
            mutants: 20,
            selection: SelectionStrategy::Mutation,
            fitness: FitnessRule::Brt,
            rescue_tiebreak: true,
            crossover: CrossoverStrategy::None,
            check_flaky: true,
            jobs: 1,
            timeout_secs: 60.0,
            seed: 1,
            python: "python3".into(),
            pythonpath: vec![".".into()],
            test_dir: "tests".into(),
            llm: None,
            llm_model: None,
            llm_base_url: None,
            prompting: Prompting::Single,
            llm_reasoning: None,
            llm_retries: None,
            sandbox: true,
            docker: None,
            executor: ExecutorKind::Warm,
            reach: MutantReach::Discriminate,
            operators: Operators::All,
            pass_env: vec![],
            keep_going: false,
            keep_equivalent_mutants: false,
            settle_ties: true,
            mutant_scope: MutantScope::Widened,
            witnesses: true,
            kills: KillScope::FailingCases,
            issue_focus: true,
            budget_usd: None,
            mutant_kinds: None,
            method: Method::Evootter,
            repair_rounds: None,
            preset: None,
        }
    }
}

/// Which of the paper's systems a run is (`--method`), each on the same engine, session and
/// screens. Only EvoOtter runs mutants; the others make no pool and run what they need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Evolution with mutation-based fitness, successive halving and crossover.
    #[default]
    Evootter,
    /// BaseBRT alone: one test written from the original issue, nothing selected.
    Basebrt,
    /// The Otter rules pick one of the candidates from their runs on `c_old`.
    RuleSelect,
    /// One model call picks one of the candidates, from their sources and `c_old` logs.
    LlmSelect,
    /// e-Otter, the paper's repair baseline (Table II): each test runs on `c_old`, a critic
    /// judges whether it fails for the issue's reason and, while it does not, the model
    /// repairs it from its log, up to `repair_rounds` calls per test; the Otter rules pick
    /// among the repaired tests when there are several.
    Eotter,
}

cli_enum!(Method, "method", [
    "evootter" => Method::Evootter,
    "basebrt" => Method::Basebrt,
    "rule-select" => Method::RuleSelect,
    "llm-select" => Method::LlmSelect,
    "eotter" => Method::Eotter,
]);

impl Method {
    /// Whether the method makes and runs mutants.
    pub fn mutates(self) -> bool {
        self == Method::Evootter
    }

    /// What the method is, in a few words (`show`, the Timeline).
    pub fn words(self) -> &'static str {
        match self {
            Method::Evootter => "evolution by mutant kills, halving and crossover",
            Method::Basebrt => "one test from the issue, nothing selected, no mutant",
            Method::RuleSelect => "the Otter rules pick one candidate, no mutant",
            Method::LlmSelect => "one model call picks one candidate, no mutant",
            Method::Eotter => {
                "a critic judges each test's c_old run, the model repairs it, no mutant"
            }
        }
    }
}

/// e-Otter's calls per test (paper Sec. III-D: "up to 10 LLM calls to repair each test").
pub const DEFAULT_REPAIR_ROUNDS: usize = 10;

fn is_evootter(m: &Method) -> bool {
    *m == Method::Evootter
}

/// A method in one word (`--preset`): a set of options. Each option given explicitly still
/// wins; what the preset did set is recorded with the run ([`PresetUse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// EvoOtter as published (paper Sec. III): kills alone as fitness, samples from the whole
    /// pool, the focal functions' mutants by Table I's replacements with equivalent ones kept,
    /// and none of evootter's additions (tie settling, witnesses, the rescue tie-break, the
    /// flaky check).
    Paper,
}

cli_enum!(Preset, "preset", [
    "paper" => Preset::Paper,
]);

/// What a preset chooses, option by option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PresetChoices {
    pub fitness: FitnessRule,
    pub reach: MutantReach,
    pub mutant_scope: MutantScope,
    pub operators: Operators,
    pub settle_ties: bool,
    pub witnesses: bool,
    pub rescue_tiebreak: bool,
    pub check_flaky: bool,
    pub keep_equivalent_mutants: bool,
}

impl Preset {
    pub fn choices(self) -> PresetChoices {
        match self {
            Preset::Paper => PresetChoices {
                fitness: FitnessRule::Paper,
                reach: MutantReach::All,
                mutant_scope: MutantScope::Focal,
                operators: Operators::TableI,
                settle_ties: false,
                witnesses: false,
                rescue_tiebreak: false,
                check_flaky: false,
                keep_equivalent_mutants: true,
            },
        }
    }
}

/// The preset a run was made with, and what it set there: the flags that set the same, less
/// those the user gave (which won) and those that are evootter's default anyway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresetUse {
    pub name: Preset,
    pub set: Vec<String>,
}

impl fmt::Display for PresetUse {
    /// `paper (--fitness paper, --sampling all, ...)`, as every screen and summary names it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.set.is_empty() {
            write!(f, "{} (nothing: every option it sets was given)", self.name)
        } else {
            write!(f, "{} ({})", self.name, self.set.join(", "))
        }
    }
}

fn table_i() -> Operators {
    Operators::TableI
}

cli_enum!(Operators, "operator set", [
    "all" => Operators::All,
    "table-i" => Operators::TableI,
]);

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutorKind {
    #[default]
    Cold,
    Warm,
}

cli_enum!(ExecutorKind, "executor", [
    "cold" => ExecutorKind::Cold,
    "warm" => ExecutorKind::Warm,
]);

/// Which mutants a generation samples from (`engine::reach`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MutantReach {
    /// The whole pool, as the paper samples (and as sessions from before the choice ran).
    #[default]
    All,
    /// Only mutants whose changed lines some test of the population executes on `c_old`.
    Reached,
    /// The reached mutants, those that tell the competing tests apart first: reached by
    /// some of them and not by others, then by all of them, then by none of them (only by
    /// tests that cannot win a place). See `reach::discriminating`.
    Discriminate,
}

impl MutantReach {
    /// Whether baselines are traced and samples drawn from what the tests reach.
    pub fn traced(self) -> bool {
        self != MutantReach::All
    }
}

cli_enum!(MutantScope, "mutant scope", [
    "focal" => MutantScope::Focal,
    "widened" => MutantScope::Widened,
]);
cli_enum!(MutantReach, "sampling", [
    "all" => MutantReach::All,
    "reached" => MutantReach::Reached,
    "discriminate" => MutantReach::Discriminate,
]);

/// The Docker backend's settings (`--backend docker`), kept so a resumed run uses them again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DockerSettings {
    pub image: String,
    /// Docker hosts; empty: `DOCKER_HOST`, or the default socket.
    #[serde(default)]
    pub hosts: Vec<String>,
    pub workdir: String,
    #[serde(default)]
    pub activate: Option<String>,
    pub python: String,
    #[serde(default)]
    pub network: bool,
    #[serde(default)]
    pub memory_bytes: Option<i64>,
    #[serde(default)]
    pub nano_cpus: Option<i64>,
}

/// Where executions run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Backend {
    /// This machine, sealed and sandboxed (see `exec::local`).
    #[default]
    Local,
    /// One long-lived container per worker.
    Docker,
}

cli_enum!(Backend, "backend", [
    "local" => Backend::Local,
    "docker" => Backend::Docker,
]);

fn yes() -> bool {
    true
}

impl RunConfig {
    /// How this run's tests were compared, in a line (`show`'s header): the options that
    /// change which tests a cut keeps.
    /// Whether fitness counts only kills in the cases a test fails on `c_old` (the BRT rule
    /// with `--kills failing-cases`): a `p` cell and a rescue are not counted as kills.
    pub fn counts_failing_cases_only(&self) -> bool {
        self.fitness == FitnessRule::Brt && self.kills == KillScope::FailingCases
    }

    pub fn fitness_words(&self) -> String {
        if self.selection != SelectionStrategy::Mutation {
            return format!("selection {} (no fitness)", self.selection);
        }
        match self.fitness {
            FitnessRule::Paper => "fitness paper: every kill".into(),
            FitnessRule::BrtKills => {
                "fitness brt-kills: passing on c_old last, then the best rescuer's share, then \
                 every kill"
                    .into()
            }
            FitnessRule::Brt => format!(
                "fitness brt: rescues {}, issue focus {}, kills of {}",
                if self.witnesses {
                    "judged by the repository's tests"
                } else {
                    "a tie-break (--no-witnesses)"
                },
                if self.issue_focus {
                    "on"
                } else {
                    "off (--no-issue-focus)"
                },
                match self.kills {
                    KillScope::FailingCases => "the failing cases",
                    KillScope::WholeLog => "the whole log (--kills whole-log)",
                }
            ),
        }
    }

    /// Timeout for a mutant execution of a test whose `c_old` run took `baseline_secs`:
    /// `(baseline + 1 s) x 10`, capped by `--timeout`. A mutant that makes a test loop forever
    /// is a kill, and waiting the full cap for it would dominate the run.
    pub fn mutant_timeout_secs(&self, baseline_secs: f64) -> f64 {
        ((baseline_secs + 1.0) * 10.0).min(self.timeout_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in ["mutation", "random", "otter"] {
            assert_eq!(s.parse::<SelectionStrategy>().unwrap().to_string(), s);
        }
        assert_eq!("paper".parse::<FitnessRule>().unwrap(), FitnessRule::Paper);
        let err = "gpt".parse::<CrossoverStrategy>().unwrap_err();
        assert!(err.contains("expected one of: none, llm"), "{err}");
        for s in ["all", "table-i"] {
            assert_eq!(s.parse::<Operators>().unwrap().to_string(), s);
        }
        let err = "table1".parse::<Operators>().unwrap_err();
        assert_eq!(
            err,
            "unknown operator set `table1`; expected one of: all, table-i"
        );
    }

    #[test]
    fn a_session_from_before_operators_resumes_with_table_i() {
        let config = super::super::session::fixtures::config(SelectionStrategy::Mutation);
        assert_eq!(config.operators, Operators::All);
        let mut json = serde_json::to_value(&config).unwrap();
        assert_eq!(json["operators"], "all");
        json.as_object_mut().unwrap().remove("operators");
        let old: RunConfig = serde_json::from_value(json).unwrap();
        assert_eq!(old.operators, Operators::TableI);
        let table_i = RunConfig {
            operators: Operators::TableI,
            ..config
        };
        let json = serde_json::to_string(&table_i).unwrap();
        assert!(json.contains(r#""operators":"table_i""#), "{json}");
        assert_eq!(serde_json::from_str::<RunConfig>(&json).unwrap(), table_i);
    }
}
