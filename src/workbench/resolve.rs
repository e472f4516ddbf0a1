//! Options resolved: what a run is, from what its user said. Each setting comes from the first
//! of
//!
//! 1. the command line (or a batch's row): [`RunOptions`], whose `None`s and empty lists mean
//!    "not given";
//! 2. the preset (`--preset paper`), for the options it sets ([`Preset::choices`]);
//! 3. the instance (`--instance DIR`): its instance.toml's fields and its `[run]` table;
//! 4. [`RunConfig::default`], where every default is written once.
//!
//! A preset's switches only turn off what evootter adds (`--no-witnesses`, ...), as those
//! flags do: given or set by the preset, they are off. What the preset did set is recorded
//! with the run ([`PresetUse`]).
//!
//! A few follow from other choices: crossover is `llm` when a model is named, else `none`; an
//! instance's recorded script is its model only for `--start basebrt`, and its candidates and
//! focal functions apply only when the run does not start from the model; an instance's
//! python path always holds the repository root.
//!
//! [`resolve`] is pure: it starts no process and reads no file (the caller read the instance),
//! and refuses only what the options alone make wrong, so those refusals come before any
//! about the files the options name. What only the machine can say (the
//! interpreter, the repository's layout, whether the files named exist and parse) is
//! [`super::probe`]'s; [`super::request`] then makes the session.

use super::docker_options::docker_settings;
use super::error::RequestError;
use super::options::RunOptions;
use crate::engine::{
    Backend, CrossoverStrategy, DockerSettings, FitnessRule, Method, MutantReach, MutantScope,
    Operators, Preset, PresetUse, RunConfig, SelectionStrategy,
};
use crate::instance::{Instance, Start};
use crate::python::FocalFunction;
use std::path::PathBuf;

/// A run as its options and its instance make it, before the machine is asked anything.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Everything but the machine's part: `python` (for the local backend), `pythonpath`,
    /// `test_dir` and `jobs` hold [`RunConfig::default`]'s until the probe fills them from
    /// [`Asked`] and what it finds.
    pub config: RunConfig,
    pub repo: PathBuf,
    pub issue: PathBuf,
    /// The output directory (checked by the probe, claimed only once everything passed).
    pub out: PathBuf,
    pub focal: Vec<FocalFunction>,
    pub initial_tests: Option<PathBuf>,
    pub golden_patch: Option<PathBuf>,
    /// The instance's name, or the id a batch row gave.
    pub instance: Option<String>,
    pub asked: Asked,
}

/// What the user (or the instance) said about the machine's part, `None` where the probe
/// decides; and the request's own switches.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `--python` (the local backend only).
    pub python: Option<PathBuf>,
    pub pythonpath: Option<Vec<String>>,
    pub test_dir: Option<String>,
    pub jobs: Option<usize>,
    /// `--pass-env`'s names, well formed and none the model's; the probe checks they are set.
    pub pass_env: Vec<String>,
    pub allow_empty_issue: bool,
    pub force: bool,
    pub reuse_executions: Option<PathBuf>,
}

macro_rules! need {
    ($flag:literal) => {
        invalid!(concat!(
            "missing --",
            $flag,
            " (or --instance DIR whose instance.toml gives it)"
        ))
    };
}

/// The run `a` and `inst` describe, or the first thing in them that is wrong.
pub fn resolve(a: &RunOptions, inst: Option<&Instance>) -> Result<Resolved, RequestError> {
    let repo = a
        .repo
        .clone()
        .or_else(|| inst.map(|i| i.repo.clone()))
        .ok_or_else(|| need!("repo"))?;
    let issue = a
        .issue
        .clone()
        .or_else(|| inst.map(|i| i.issue.clone()))
        .ok_or_else(|| need!("issue"))?;
    let out = a
        .out
        .clone()
        .or_else(|| inst.map(|i| PathBuf::from("sessions").join(&i.name)))
        .ok_or_else(|| need!("out"))?;
    let start = a.start.or(inst.map(|i| i.start));
    // The instance's candidates and focal functions apply when the run starts from them; the
    // full workflow (basebrt) has the model find both.
    let from_instance = inst.filter(|_| start != Some(Start::Basebrt));
    if let (Some(Start::Candidates), Some(i)) = (start, inst) {
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
    let initial_tests = a
        .initial_tests
        .clone()
        .or_else(|| from_instance.and_then(|i| i.initial_tests.clone()));
    // An instance's recorded script is its model for the full workflow, labelled as scripted.
    let llm = a.llm.clone().or_else(|| {
        inst.filter(|_| start == Some(Start::Basebrt))
            .and_then(|i| i.llm_script.as_ref())
            .map(|f| format!("scripted:{}", f.display()))
    });
    if initial_tests.is_none() && llm.is_none() {
        return Err(invalid!(
            "missing --initial-tests DIR (candidate tests), or --llm PROVIDER to have the model write them"
        ));
    }
    let defaults = inst.map(|i| i.run.clone()).unwrap_or_default();
    let base = RunConfig::default();
    let tests = a.tests.or(defaults.tests).unwrap_or(base.tests);
    if tests == 0 {
        return Err(crate::engine::setup::SetupError::NoTests.into());
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
    let docker = docker(a, inst)?;
    for name in &a.pass_env {
        check_pass_env_name(name)?;
    }
    let chosen = chosen(a);
    let (method, tests, selection, crossover) = system(a, tests)?;
    let config = RunConfig {
        tests,
        mutants,
        selection,
        fitness: chosen.fitness,
        rescue_tiebreak: chosen.rescue_tiebreak,
        crossover: crossover.unwrap_or(if llm.is_some() {
            CrossoverStrategy::Llm
        } else {
            CrossoverStrategy::None
        }),
        check_flaky: chosen.check_flaky,
        timeout_secs,
        seed: a.seed.or(defaults.seed).unwrap_or(base.seed),
        python: docker.as_ref().map_or(base.python, |d| d.python.clone()),
        llm,
        llm_model: a.model.clone(),
        llm_base_url: a.base_url.clone(),
        prompting: a.prompting,
        llm_reasoning: a.reasoning.clone(),
        llm_retries: a.llm_retries,
        sandbox: !a.no_sandbox,
        docker,
        executor: a.executor,
        // A system that runs no mutant traces nothing for them.
        reach: if method.mutates() {
            chosen.reach
        } else {
            MutantReach::All
        },
        operators: chosen.operators,
        keep_going: a.keep_going,
        keep_equivalent_mutants: chosen.keep_equivalent_mutants,
        settle_ties: chosen.settle_ties,
        mutant_scope: chosen.mutant_scope,
        witnesses: chosen.witnesses,
        kills: a.kills,
        issue_focus: a.issue_focus,
        budget_usd: a.budget_usd.map(check_budget).transpose()?,
        mutant_kinds: a.mutant_kinds.clone(),
        method,
        repair_rounds: repair_rounds(a, method)?,
        preset: chosen.preset,
        // The machine's part, filled by the probe.
        jobs: base.jobs,
        pythonpath: base.pythonpath,
        test_dir: base.test_dir,
        pass_env: vec![],
    };
    // An instance with recorded replies answers the model's steps when it starts from them.
    let recorded = inst.is_some_and(|i| i.llm_script.is_some());
    check_model(&config, recorded)?;
    Ok(Resolved {
        config,
        repo,
        issue,
        out,
        focal,
        initial_tests,
        golden_patch: a
            .golden_patch
            .clone()
            .or_else(|| inst.and_then(|i| i.golden_patch.clone())),
        instance: inst
            .map(|i| i.name.clone())
            .or_else(|| a.instance_id.clone()),
        asked: Asked {
            python: a.python.clone(),
            pythonpath: pythonpath(a, inst),
            test_dir: a
                .test_dir
                .clone()
                .or_else(|| inst.and_then(|i| i.test_dir.clone())),
            jobs: a.jobs,
            pass_env: a.pass_env.clone(),
            allow_empty_issue: a.allow_empty_issue,
            force: a.force,
            reuse_executions: a.reuse_executions.clone(),
        },
    })
}

/// A run whose selection or crossover is the model's has one. `recorded`: the instance has
/// recorded replies (used with `--start basebrt`).
fn check_model(config: &RunConfig, recorded: bool) -> Result<(), RequestError> {
    let needs_model = config.selection == SelectionStrategy::Llm
        || config.crossover == CrossoverStrategy::Llm
        || config.method == Method::Eotter;
    ensure!(
        !needs_model || config.llm.is_some(),
        "{} a model: pass --llm anthropic, --llm openai (with --base-url for a compatible \
         server) or --llm scripted:FILE{}",
        if config.method == Method::LlmSelect {
            "--method llm-select needs"
        } else if config.method == Method::Eotter {
            "--method eotter (its critic and repairs) needs"
        } else {
            "--selection llm and --crossover llm need"
        },
        if recorded {
            ", or --start basebrt for the instance's recorded replies"
        } else {
            ""
        }
    );
    Ok(())
}

/// The paper's system the run is (`--method`): the population it starts from, how it picks
/// and whether it crosses over; what would contradict it is refused.
fn system(
    a: &RunOptions,
    tests: usize,
) -> Result<(Method, usize, SelectionStrategy, Option<CrossoverStrategy>), RequestError> {
    let m = a.method.unwrap_or_default();
    if m == Method::Evootter {
        return Ok((m, tests, a.selection, a.crossover));
    }
    ensure!(
        a.selection == SelectionStrategy::Mutation,
        "--method {m} picks the final test itself; drop --selection {}",
        a.selection
    );
    ensure!(
        a.crossover.is_none_or(|c| c == CrossoverStrategy::None),
        "--method {m} makes no offspring; drop --crossover"
    );
    let tests = match (m, a.tests) {
        (Method::Basebrt, Some(n)) if n != 1 => {
            return Err(invalid!(
                "--method basebrt writes one test from the issue; drop --tests {n}"
            ));
        }
        (Method::Basebrt, _) => 1,
        // As in the paper's Table II: the one test BaseBRT writes from the issue, unless
        // --tests asks for more (each repaired on its own, then picked by the rules).
        (Method::Eotter, None) => 1,
        _ => tests,
    };
    let selection = if m == Method::LlmSelect {
        SelectionStrategy::Llm
    } else {
        SelectionStrategy::Otter
    };
    Ok((m, tests, selection, Some(CrossoverStrategy::None)))
}

/// e-Otter's calls per test: `Some` exactly for `--method eotter`.
fn repair_rounds(a: &RunOptions, m: Method) -> Result<Option<usize>, RequestError> {
    match (m, a.repair_rounds) {
        (Method::Eotter, Some(0)) => Err(invalid!(
            "--repair-rounds must be at least 1: each round is one call that judges the test \
             and repairs it"
        )),
        (Method::Eotter, n) => Ok(Some(
            n.unwrap_or(crate::engine::config::DEFAULT_REPAIR_ROUNDS),
        )),
        (_, Some(n)) => Err(invalid!(
            "--repair-rounds {n} is e-Otter's (the critic-and-repair loop); add --method eotter \
             or drop it"
        )),
        (_, None) => Ok(None),
    }
}

/// The options a preset may set, as the command line, the preset and the defaults decide them.
struct Chosen {
    fitness: FitnessRule,
    reach: MutantReach,
    mutant_scope: MutantScope,
    operators: Operators,
    settle_ties: bool,
    witnesses: bool,
    rescue_tiebreak: bool,
    check_flaky: bool,
    keep_equivalent_mutants: bool,
    preset: Option<PresetUse>,
}

/// The preset `a` names and what it sets there (the flags `a` does not give), before any
/// instance: what a batch's runs will be made with.
pub fn preset_use(a: &RunOptions) -> Option<PresetUse> {
    chosen(a).preset
}

fn chosen(a: &RunOptions) -> Chosen {
    let base = RunConfig::default();
    let p = a.preset.map(Preset::choices);
    // Decided in the order the preset's help lists the flags, each it set said in `set`.
    let mut set = vec![];
    let fitness = value(
        a.fitness,
        p.map(|p| p.fitness),
        base.fitness,
        "--fitness",
        &mut set,
    );
    let reach = value(
        a.mutant_reach,
        p.map(|p| p.reach),
        base.reach,
        "--sampling",
        &mut set,
    );
    let mutant_scope = value(
        a.mutant_scope,
        p.map(|p| p.mutant_scope),
        base.mutant_scope,
        "--mutant-scope",
        &mut set,
    );
    let operators = value(
        a.operators,
        p.map(|p| p.operators),
        base.operators,
        "--operators",
        &mut set,
    );
    let settle_ties = on(
        !a.settle_ties,
        p.map(|p| p.settle_ties),
        base.settle_ties,
        "--no-settle-ties",
        &mut set,
    );
    let witnesses = on(
        !a.witnesses,
        p.map(|p| p.witnesses),
        base.witnesses,
        "--no-witnesses",
        &mut set,
    );
    let rescue_tiebreak = on(
        a.no_rescue_tiebreak,
        p.map(|p| p.rescue_tiebreak),
        base.rescue_tiebreak,
        "--no-rescue-tiebreak",
        &mut set,
    );
    let check_flaky = on(
        a.no_flaky_check,
        p.map(|p| p.check_flaky),
        base.check_flaky,
        "--no-flaky-check",
        &mut set,
    );
    // Keeping equivalent mutants turns TCE off, as the flag does.
    let keep_equivalent_mutants = !on(
        a.keep_equivalent_mutants,
        p.map(|p| !p.keep_equivalent_mutants),
        !base.keep_equivalent_mutants,
        "--keep-equivalent-mutants",
        &mut set,
    );
    Chosen {
        fitness,
        reach,
        mutant_scope,
        operators,
        settle_ties,
        witnesses,
        rescue_tiebreak,
        check_flaky,
        keep_equivalent_mutants,
        preset: a.preset.map(|name| PresetUse { name, set }),
    }
}

/// A value: the user's, else the preset's (recorded in `set` when it differs from the
/// default), else the default.
fn value<T: PartialEq + std::fmt::Display + Copy>(
    given: Option<T>,
    preset: Option<T>,
    default: T,
    flag: &str,
    set: &mut Vec<String>,
) -> T {
    match (given, preset) {
        (Some(v), _) => v,
        (None, Some(v)) => {
            if v != default {
                set.push(format!("{flag} {v}"));
            }
            v
        }
        (None, None) => default,
    }
}

/// Whether one of evootter's additions stays on: off when its flag was given or the preset
/// turns it off (recorded in `set` when only the preset did).
fn on(
    given_off: bool,
    preset_on: Option<bool>,
    default_on: bool,
    flag: &str,
    set: &mut Vec<String>,
) -> bool {
    let preset_off = default_on && preset_on == Some(false);
    if preset_off && !given_off {
        set.push(flag.to_string());
    }
    default_on && !given_off && !preset_off
}

/// The Docker settings of a Docker run (the image named for the instance), none for a local one.
fn docker(a: &RunOptions, inst: Option<&Instance>) -> Result<Option<DockerSettings>, RequestError> {
    match a.backend {
        Backend::Local => Ok(None),
        Backend::Docker => {
            ensure!(
                a.python.is_none(),
                "--python names a local interpreter; with --backend docker the interpreter is \
                 the image's (--docker-python, default python3)"
            );
            Ok(Some(docker_settings(a, inst.map(|i| i.name.as_str()))?))
        }
    }
}

/// The python path given: the user's as written, or the instance's, which always holds the
/// repository root.
fn pythonpath(a: &RunOptions, inst: Option<&Instance>) -> Option<Vec<String>> {
    if !a.pythonpath.is_empty() {
        return Some(a.pythonpath.clone());
    }
    inst.and_then(|i| i.pythonpath.clone()).map(|mut pp| {
        if !pp.iter().any(|p| p == ".") {
            pp.insert(0, ".".into());
        }
        pp
    })
}

pub(super) fn check_budget(usd: f64) -> Result<f64, RequestError> {
    ensure!(
        usd.is_finite() && usd > 0.0,
        "--budget-usd {usd} is not a budget: pass a positive number of dollars, e.g. 0.50"
    );
    Ok(usd)
}

/// The options given that change nothing in this run, each with why: kills, issue focus
/// and witnesses rank tests only under mutation selection with the BRT fitness rule.
pub fn idle_options(config: &RunConfig) -> Vec<String> {
    let base = RunConfig::default();
    let preset_set = |name: &str| {
        config
            .preset
            .as_ref()
            .is_some_and(|p| p.set.iter().any(|f| f == name))
    };
    // The paper's other systems make no mutant: what shapes the pool or counts kills is idle.
    if !config.method.mutates() {
        let m = config.method;
        return [
            (config.mutants != base.mutants, "--mutants"),
            (config.operators != base.operators, "--operators"),
            (config.mutant_scope != base.mutant_scope, "--mutant-scope"),
            (config.mutant_kinds.is_some(), "--mutant-kinds"),
            (config.settle_ties != base.settle_ties, "--no-settle-ties"),
            (config.witnesses != base.witnesses, "--no-witnesses"),
            (config.kills != base.kills, "--kills"),
            (config.keep_equivalent_mutants, "--keep-equivalent-mutants"),
            (
                config.rescue_tiebreak != base.rescue_tiebreak,
                "--no-rescue-tiebreak",
            ),
            (config.issue_focus != base.issue_focus, "--no-issue-focus"),
        ]
        .into_iter()
        .filter(|(given, name)| *given && !preset_set(name))
        .map(|(_, name)| format!("{name} changes nothing here: --method {m} runs no mutant"))
        .chain(config.preset.as_ref().map(|p| {
            format!(
                "--preset {} changes nothing here: it sets EvoOtter's mutants and fitness, and \
                 --method {m} runs no mutant",
                p.name
            )
        }))
        .collect();
    }
    let given: Vec<&str> = [
        (config.kills != base.kills, "--kills"),
        (config.issue_focus != base.issue_focus, "--no-issue-focus"),
        (config.witnesses != base.witnesses, "--no-witnesses"),
    ]
    .into_iter()
    // A flag the preset set is the preset's business: its choices go together.
    .filter(|(_, name)| {
        !config
            .preset
            .as_ref()
            .is_some_and(|p| p.set.iter().any(|f| f == name))
    })
    .filter_map(|(g, name)| g.then_some(name))
    .collect();
    let why = if config.selection != SelectionStrategy::Mutation {
        format!("--selection {} does not rank by kills", config.selection)
    } else if config.fitness != FitnessRule::Brt {
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

/// A `--pass-env` name: a variable name, and none that evootter reads for the model: a test
/// must never see the model's key, whatever the user asks. (Whether it is set is the probe's.)
fn check_pass_env_name(name: &str) -> Result<(), RequestError> {
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
    Ok(())
}

/// The variables the providers read (`ANTHROPIC_API_KEY`, `OPENAI_BASE_URL`, ...).
pub fn is_model_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("ANTHROPIC_") || upper.starts_with("OPENAI_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::RunDefaults;

    /// An instance whose every path is missing: resolving must not look.
    fn instance(start: Start) -> Instance {
        Instance {
            dir: "/nowhere/inst".into(),
            name: "inst-1".into(),
            description: String::new(),
            repo: "/nowhere/inst/repo".into(),
            issue: "/nowhere/inst/issue.md".into(),
            golden_patch: Some("/nowhere/inst/golden.patch".into()),
            golden_test: None,
            initial_tests: Some("/nowhere/inst/candidates".into()),
            test_dir: Some("testing".into()),
            pythonpath: Some(vec!["src".into()]),
            focal: vec!["pkg/mod.py::f".parse().unwrap()],
            llm_script: Some("/nowhere/inst/replies.json".into()),
            start,
            run: RunDefaults {
                tests: Some(4),
                mutants: Some(6),
                seed: None,
                timeout: Some(9.0),
            },
        }
    }

    /// Every input a run needs, at paths that do not exist (resolving does not look).
    fn every_input() -> RunOptions {
        RunOptions {
            repo: Some("/r".into()),
            issue: Some("/i".into()),
            out: Some("/o".into()),
            initial_tests: Some("/c".into()),
            ..Default::default()
        }
    }

    fn error(a: &RunOptions, inst: Option<&Instance>) -> String {
        resolve(a, inst).unwrap_err().to_string()
    }

    #[test]
    fn the_command_line_wins_over_the_instance_which_wins_over_the_defaults() {
        let inst = instance(Start::Candidates);
        let base = RunConfig::default();
        let r = resolve(&RunOptions::default(), Some(&inst)).unwrap();
        assert_eq!(
            (
                r.config.tests,
                r.config.mutants,
                r.config.timeout_secs,
                r.config.seed
            ),
            (4, 6, 9.0, base.seed)
        );
        assert_eq!(r.repo, inst.repo);
        assert_eq!(r.out, PathBuf::from("sessions/inst-1"));
        assert_eq!(r.asked.test_dir.as_deref(), Some("testing"));
        // The instance's python path always holds the repository root; the user's is as given.
        assert_eq!(r.asked.pythonpath, Some(vec![".".into(), "src".into()]));
        let a = RunOptions {
            tests: Some(2),
            seed: Some(7),
            repo: Some("/elsewhere".into()),
            out: Some("/tmp/o".into()),
            pythonpath: vec!["lib".into()],
            test_dir: Some("t".into()),
            ..Default::default()
        };
        let r = resolve(&a, Some(&inst)).unwrap();
        assert_eq!((r.config.tests, r.config.mutants, r.config.seed), (2, 6, 7));
        assert_eq!(
            (r.repo, r.out, r.asked.pythonpath, r.asked.test_dir),
            (
                PathBuf::from("/elsewhere"),
                PathBuf::from("/tmp/o"),
                Some(vec!["lib".into()]),
                Some("t".into())
            )
        );
        // Nothing given anywhere: the one set of defaults, and the machine decides its part.
        let a = every_input();
        let r = resolve(&a, None).unwrap();
        assert_eq!(
            (r.config.tests, r.config.mutants, r.config.timeout_secs),
            (base.tests, base.mutants, base.timeout_secs)
        );
        assert_eq!(
            (r.asked.pythonpath, r.asked.test_dir, r.asked.jobs),
            (None, None, None)
        );
    }

    #[test]
    fn the_instance_s_candidates_count_unless_the_model_writes_the_tests() {
        let from_candidates =
            resolve(&RunOptions::default(), Some(&instance(Start::Candidates))).unwrap();
        assert_eq!(from_candidates.focal.len(), 1);
        assert!(from_candidates.initial_tests.is_some());
        // No model named: no crossover by one either.
        assert_eq!(from_candidates.config.llm, None);
        assert_eq!(from_candidates.config.crossover, CrossoverStrategy::None);
        let basebrt = resolve(&RunOptions::default(), Some(&instance(Start::Basebrt))).unwrap();
        assert!(basebrt.focal.is_empty() && basebrt.initial_tests.is_none());
        assert_eq!(
            basebrt.config.llm.as_deref(),
            Some("scripted:/nowhere/inst/replies.json")
        );
        assert_eq!(basebrt.config.crossover, CrossoverStrategy::Llm);
        // The user's model and crossover win.
        let a = RunOptions {
            llm: Some("openai".into()),
            crossover: Some(CrossoverStrategy::None),
            ..Default::default()
        };
        let r = resolve(&a, Some(&instance(Start::Basebrt))).unwrap();
        assert_eq!(
            (r.config.llm.as_deref(), r.config.crossover),
            (Some("openai"), CrossoverStrategy::None)
        );
    }

    #[test]
    fn what_the_options_alone_make_wrong_is_named() {
        let none = RunOptions::default();
        assert!(error(&none, None).contains("missing --repo"));
        let a = RunOptions {
            repo: Some("/r".into()),
            issue: Some("/i".into()),
            out: Some("/o".into()),
            ..Default::default()
        };
        assert!(error(&a, None).contains("missing --initial-tests DIR"));
        let with = |f: &dyn Fn(&mut RunOptions)| {
            let mut b = RunOptions {
                initial_tests: Some("/c".into()),
                ..a.clone()
            };
            f(&mut b);
            error(&b, None)
        };
        assert!(with(&|b| b.mutants = Some(0)).contains("--mutants must be at least 1"));
        assert!(with(&|b| b.timeout = Some(-1.0)).contains("--timeout must be a positive"));
        assert!(with(&|b| b.budget_usd = Some(0.0)).contains("is not a budget"));
        assert!(with(&|b| b.selection = SelectionStrategy::Llm).contains("need a model"));
        assert!(with(&|b| b.pass_env = vec!["ANTHROPIC_API_KEY".into()]).contains("for the model"));
        assert!(with(&|b| b.pass_env = vec!["A=b".into()]).contains("not a variable name"));
        assert!(with(&|b| b.pass_env = vec!["1X".into()]).contains("not a variable name"));
        assert!(
            with(&|b| {
                b.backend = Backend::Docker;
                b.image = Some("img".into());
                b.python = Some("/usr/bin/python3".into());
            })
            .contains("--python names a local interpreter")
        );
        assert!(with(&|b| b.backend = Backend::Docker).contains("needs --image NAME"));
        let mut inst = instance(Start::Candidates);
        inst.initial_tests = None;
        let a = RunOptions {
            start: Some(Start::Candidates),
            ..Default::default()
        };
        assert!(error(&a, Some(&inst)).contains("has no initial_tests"));
    }

    #[test]
    fn a_docker_run_takes_its_interpreter_and_image_from_the_options() {
        let a = RunOptions {
            backend: Backend::Docker,
            image: Some("sweb.eval.{id}".into()),
            docker_python: "python3.9".into(),
            ..Default::default()
        };
        let r = resolve(&a, Some(&instance(Start::Candidates))).unwrap();
        assert_eq!(r.config.python, "python3.9");
        assert_eq!(r.config.docker.unwrap().image, "sweb.eval.inst-1");
    }

    #[test]
    fn a_preset_sets_what_is_not_given_and_says_so() {
        let a = RunOptions {
            preset: Some(Preset::Paper),
            ..every_input()
        };
        let r = resolve(&a, None).unwrap();
        let c = &r.config;
        assert_eq!(
            (c.fitness, c.reach, c.mutant_scope, c.operators),
            (
                FitnessRule::Paper,
                MutantReach::All,
                MutantScope::Focal,
                Operators::TableI
            )
        );
        assert!(!c.settle_ties && !c.witnesses && !c.rescue_tiebreak && !c.check_flaky);
        assert!(c.keep_equivalent_mutants);
        let used = c.preset.as_ref().unwrap();
        assert_eq!(used.set.len(), 9, "{used}");
        assert!(
            used.to_string()
                .starts_with("paper (--fitness paper, --sampling all,")
        );
        // What the user gives wins and is not the preset's doing; a switch given is off
        // either way.
        let b = RunOptions {
            operators: Some(Operators::All),
            fitness: Some(FitnessRule::Brt),
            witnesses: false,
            ..a.clone()
        };
        let r = resolve(&b, None).unwrap();
        assert_eq!(
            (r.config.operators, r.config.fitness),
            (Operators::All, FitnessRule::Brt)
        );
        assert!(!r.config.witnesses);
        let set = &r.config.preset.as_ref().unwrap().set;
        assert!(
            !set.iter().any(|f| f.starts_with("--operators")
                || f.starts_with("--fitness")
                || f == "--no-witnesses"),
            "{set:?}"
        );
        assert_eq!(set.len(), 6, "{set:?}");
        // No preset: evootter's defaults, nothing recorded.
        let none = resolve(&RunOptions { preset: None, ..a }, None).unwrap();
        assert_eq!(none.config.preset, None);
        assert_eq!(none.config.fitness, RunConfig::default().fitness);
    }

    #[test]
    fn a_method_sets_how_the_test_is_picked() {
        let a = every_input();
        let with = |m: Method| {
            resolve(
                &RunOptions {
                    method: Some(m),
                    ..a.clone()
                },
                None,
            )
            .map(|r| r.config)
        };
        let rules = with(Method::RuleSelect).unwrap();
        assert_eq!(
            (rules.selection, rules.crossover, rules.reach, rules.tests),
            (
                SelectionStrategy::Otter,
                CrossoverStrategy::None,
                MutantReach::All,
                8
            )
        );
        assert_eq!(with(Method::Basebrt).unwrap().tests, 1);
        let e = with(Method::LlmSelect).unwrap_err().to_string();
        assert!(e.starts_with("--method llm-select needs a model"), "{e}");
        let llm = resolve(
            &RunOptions {
                method: Some(Method::LlmSelect),
                llm: Some("openai".into()),
                ..a.clone()
            },
            None,
        )
        .unwrap()
        .config;
        assert_eq!(
            (llm.selection, llm.crossover),
            (SelectionStrategy::Llm, CrossoverStrategy::None),
            "a named model crosses over only under EvoOtter"
        );
        assert_eq!(resolve(&a, None).unwrap().config.method, Method::Evootter);
    }

    #[test]
    fn eotter_repairs_one_test_from_the_issue_up_to_ten_calls_unless_told() {
        let a = RunOptions {
            method: Some(Method::Eotter),
            llm: Some("anthropic".into()),
            tests: None,
            ..every_input()
        };
        let c = resolve(&a, None).unwrap().config;
        assert_eq!((c.tests, c.repair_rounds), (1, Some(10)));
        assert_eq!(
            (c.selection, c.crossover),
            (SelectionStrategy::Otter, CrossoverStrategy::None)
        );
        let more = RunOptions {
            tests: Some(8),
            repair_rounds: Some(3),
            ..a.clone()
        };
        let c = resolve(&more, None).unwrap().config;
        assert_eq!((c.tests, c.repair_rounds), (8, Some(3)));
        let e = |o: RunOptions| resolve(&o, None).unwrap_err().to_string();
        assert!(
            e(RunOptions {
                llm: None,
                ..a.clone()
            })
            .starts_with("--method eotter (its critic and repairs) needs a model"),
            "{}",
            e(RunOptions {
                llm: None,
                ..a.clone()
            })
        );
        assert!(
            e(RunOptions {
                repair_rounds: Some(0),
                ..a.clone()
            })
            .contains("at least 1")
        );
        let not_eotter = RunOptions {
            method: None,
            repair_rounds: Some(3),
            ..a
        };
        assert!(e(not_eotter).contains("add --method eotter"));
    }

    /// An option that ranks nothing in this run is named, with why.
    #[test]
    fn options_that_change_nothing_are_said() {
        let base = RunConfig::default();
        assert!(idle_options(&base).is_empty());
        let rules = RunConfig {
            method: Method::RuleSelect,
            mutants: 40,
            witnesses: false,
            ..base.clone()
        };
        assert_eq!(
            idle_options(&rules),
            [
                "--mutants changes nothing here: --method rule-select runs no mutant",
                "--no-witnesses changes nothing here: --method rule-select runs no mutant"
            ]
        );
        let whole = RunConfig {
            kills: crate::engine::KillScope::WholeLog,
            ..base.clone()
        };
        assert!(idle_options(&whole).is_empty(), "it counts under brt");
        let paper = RunConfig {
            fitness: FitnessRule::Paper,
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
}
