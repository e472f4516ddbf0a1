//! The session document: everything a run knows, as one versioned serde document written
//! atomically after every step. A view (report, TUI) reads only this, so a saved session can be
//! reopened with no Python and no model; `--resume` continues from it.

use super::config::{CutRule, RunConfig};
use crate::exec::{FailureKind, Outcome, TestCounts};
use crate::mutate::{MutantKind, MutantPool};
use crate::python::FocalFunction;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bump when a field changes meaning or a required field is added. Older documents are
/// migrated on load; newer ones are refused (and left untouched).
pub const SCHEMA_VERSION: u32 = 1;

pub type TestId = String;
pub type MutantId = String;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// The user's repository at `c_old` (absolute). Never written to.
    pub repo: PathBuf,
    pub issue_path: Option<PathBuf>,
    pub issue_text: String,
    pub focal: Vec<FocalFunction>,
    pub initial_tests_dir: Option<PathBuf>,
    /// Used only after the run, to evaluate the final test; never shown to selection.
    pub golden_patch: Option<PathBuf>,
    /// The bundled or benchmark instance this run came from, if any.
    pub instance: Option<String>,
    /// `setup::repo_fingerprint` of `repo` when the session started.
    #[serde(default)]
    pub repo_fingerprint: String,
}

/// Where a candidate test came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Origin {
    /// A file of the initial population (`--initial-tests`).
    Initial { file: PathBuf },
    /// Written by the model as part of the initial population.
    Generated { prompting: String },
    /// Produced by crossover at the end of a generation.
    Crossover {
        generation: usize,
        parents: Vec<TestId>,
    },
    /// Written by the user at the gate before `generation`'s crossover.
    UserWritten { generation: usize },
    /// The user's edit of `from` at the gate before `generation`'s crossover.
    UserEdited { generation: usize, from: TestId },
    /// The model's repair of `from` after the critic rejected it: in round `round` (from 1)
    /// of e-Otter's loop, or, with `generation`, asked by the user at that gate.
    Repaired {
        from: TestId,
        round: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        generation: Option<usize>,
    },
}

/// One call of e-Otter's critic on a test's `c_old` run (`engine::repair`): its verdict and,
/// when it rejected the test, the repaired test it wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepairRound {
    /// The test judged (its `c_old` run is the log before).
    pub test: TestId,
    /// Whether the critic found it failing for the reason the issue describes.
    pub accepted: bool,
    /// The critic's reason, in its words.
    pub reason: String,
    /// The repaired test (its `c_old` run is the log after); `None` when accepted, or when
    /// the reply held no usable test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repaired: Option<TestId>,
    /// The call's index in `SessionDoc::llm_calls`.
    pub call: usize,
}

/// How a test's repair loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairEnd {
    /// The critic accepted the last test.
    Accepted,
    /// Every round was spent; the last repair is the chain's test, never judged.
    Exhausted,
    /// A reply the loop could not use (no verdict, or a rejection without a test).
    Unusable,
}

/// e-Otter's loop over one test of the initial population: its rounds in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepairChain {
    pub start: TestId,
    pub rounds: Vec<RepairRound>,
    /// `None` while the loop goes on (a run stopped in the middle resumes it here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<RepairEnd>,
}

impl RepairChain {
    /// The test the chain stands at: the last repair, or the start.
    pub fn current(&self) -> &TestId {
        self.rounds
            .iter()
            .rev()
            .find_map(|r| r.repaired.as_ref())
            .unwrap_or(&self.start)
    }
}

impl ActKind {
    /// One line for a person: `vetoed t3`, `edited t3 into t9`.
    pub fn describe(&self) -> String {
        match self {
            ActKind::Veto { test } => format!("vetoed {test}"),
            ActKind::Unveto { test } => format!("took back the veto of {test}"),
            ActKind::Edit { test, new_test } => format!("edited {test} into {new_test}"),
            ActKind::Repair { test, new_test, .. } => {
                format!("had the model repair {test} into {new_test}")
            }
            ActKind::Add { new_test } => format!("added {new_test}"),
            ActKind::Pin { test } => format!("pinned {test} as the final test"),
            ActKind::Unpin { test } => format!("took back the pin of {test}"),
            ActKind::Undo {
                what: Some(what), ..
            } => format!("undid \"{what}\""),
            // Sessions from before undos said what they took back.
            ActKind::Undo { undone, what: None } => format!("undid act {}", undone + 1),
            ActKind::Redo { what, .. } => format!("redid \"{what}\""),
            ActKind::Continue => "continued".to_string(),
        }
    }
}

/// What a user did to a session at a gate (the curate screen), in the order done. Kept in the
/// session and the report, so a resumed or reviewed session shows who decided what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Act {
    pub at_unix: u64,
    /// The generation whose gate it was done at.
    pub generation: usize,
    #[serde(flatten)]
    pub kind: ActKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ActKind {
    /// The test does not go to crossover.
    Veto { test: TestId },
    /// The veto of `test` is taken back: it goes to crossover again (an act of its own, so
    /// that the veto of one test is taken back whatever was done after it, and an undo takes
    /// this back like any act).
    Unveto { test: TestId },
    /// `new_test` (the edit, run like any test) goes to crossover in place of `test`.
    Edit { test: TestId, new_test: TestId },
    /// The model's repair of `test` (asked by the user, one call judging its `c_old` run)
    /// goes to crossover in place of it, as an edit does; `reason` is the critic's.
    Repair {
        test: TestId,
        new_test: TestId,
        reason: String,
    },
    /// The user's own test goes to crossover too.
    Add { new_test: TestId },
    /// The run ends with this test as its final test.
    Pin { test: TestId },
    /// The pin of `test` is taken back: passing the gate runs the crossover again.
    Unpin { test: TestId },
    /// Act number `undone` (its index in `SessionDoc::acts`) no longer counts; `what` is
    /// that act in words (`vetoed t3`), for every place that lists the acts of one gate.
    Undo {
        undone: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        what: Option<String>,
    },
    /// The undo at index `undo` (in `SessionDoc::acts`) is taken back: the act it undid
    /// counts again; `what` is that act in words.
    Redo { undo: usize, what: String },
    /// Past the gate: the crossover runs with the curated parents.
    Continue,
}

/// What BaseBRT's localizer and contextualizer found (paper III-B).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseBrt {
    /// The files the localizer kept (at most 50).
    pub files: Vec<String>,
    /// The functions it named before refinement, as FILE::QUALNAME.
    pub functions: Vec<String>,
    /// The imports the contextualizer selected.
    pub imports: Vec<String>,
    /// Where it placed the test file.
    pub test_location: Option<String>,
    /// Heterogeneous prompting: the issue rewritten per morph style.
    #[serde(default)]
    pub morphs: BTreeMap<String, String>,
    /// Heterogeneous prompting: each variant, what its own localization and contextualization
    /// found, and the test it wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
}

/// One variant of heterogeneous prompting (paper III-B): its issue morph and context mask,
/// what BaseBRT found with them, and its test.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// 1 for the first.
    pub index: usize,
    /// The morph style; `None`: the original issue.
    pub morph: Option<String>,
    pub imports_masked: bool,
    pub functions_masked: bool,
    /// The variant's own localization (FILE::QUALNAME), when the run localizes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focal: Vec<String>,
    /// The variant's own imports and test location, when the run contextualizes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_location: Option<String>,
    /// The test it wrote, if its reply held one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<TestId>,
}

impl Variant {
    /// `variant 3 (dropCode, imports masked)`: which variant wrote a test, in words.
    pub fn words(&self) -> String {
        let mut parts = vec![
            self.morph
                .clone()
                .unwrap_or_else(|| "original issue".into()),
        ];
        if self.imports_masked {
            parts.push("imports masked".into());
        }
        if self.functions_masked {
            parts.push("functions masked".into());
        }
        format!("variant {} ({})", self.index, parts.join(", "))
    }
}

/// One candidate test module (an individual of the test population).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: TestId,
    /// File name shown to people (`test_issue_rounding.py`).
    pub name: String,
    /// Where it is placed inside the repository copy for execution (`tests/test_x.py`).
    pub rel_path: String,
    pub source: String,
    /// SHA-256 of `source`: with the target, the execution cache key.
    pub hash: String,
    pub origin: Origin,
}

/// The lines of each focal file one run executed.
pub type Lines = BTreeMap<String, Vec<u32>>;

/// The pool split by reach, per kind, for one population.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReachCounts {
    pub reached: BTreeMap<MutantKind, usize>,
    pub unreached: BTreeMap<MutantKind, usize>,
    /// Tests of the population whose reach is unknown (they count as reaching everything).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<TestId>,
}

impl ReachCounts {
    pub fn reached_total(&self) -> usize {
        self.reached.values().sum()
    }

    pub fn unreached_total(&self) -> usize {
        self.unreached.values().sum()
    }
}

/// What an execution ran the test against.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The repository as given (`c_old`).
    Old,
    /// A second `c_old` run: a test whose two `c_old` logs differ is flaky, and its log
    /// differences on mutants prove nothing.
    OldRepeat,
    Mutant(MutantId),
    /// `c_old` plus the golden patch: only for the evaluation after the run.
    Golden,
}

impl Target {
    /// The `c_old` runs every test gets before its mutant runs: one, or two when flakiness
    /// is checked.
    pub fn baselines(config: &RunConfig) -> Vec<Target> {
        if config.check_flaky {
            vec![Target::Old, Target::OldRepeat]
        } else {
            vec![Target::Old]
        }
    }

    pub fn key_part(&self) -> String {
        match self {
            Target::Old => "old".into(),
            Target::OldRepeat => "old-repeat".into(),
            Target::Mutant(id) => id.clone(),
            Target::Golden => "golden".into(),
        }
    }
}

/// The cache key of an execution: (test content hash, target).
pub fn exec_key(test_hash: &str, target: &Target) -> String {
    format!(
        "{}@{}",
        &test_hash[..16.min(test_hash.len())],
        target.key_part()
    )
}

/// One pytest run of one test against one target. Logs are stored once, by hash, in
/// `SessionDoc::logs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub test_hash: String,
    pub target: Target,
    pub outcome: Outcome,
    pub failure_kind: Option<FailureKind>,
    pub exception: Option<String>,
    pub exit_code: Option<i32>,
    pub raw_log: String,
    pub normalized_log: String,
    pub status_map: BTreeMap<String, String>,
    pub counts: TestCounts,
    pub duration_ms: u64,
    pub timeout_ms: u64,
    /// Order in which executions finished in this session, from 1: shows that a resumed run
    /// did not run anything twice.
    pub seq: u64,
    /// Which process ran it (differs before and after a resume).
    pub pid: u32,
    /// What the test changed in its working copy (undone before the next run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// What it wrote outside its working copy (removed before the next run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_outside: Vec<String>,
    /// What the sandbox refused, as the log shows it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<String>,
    /// The lines of the focal files a traced `c_old` run executed (reach-aware sampling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Lines>,
    /// The hash of the normalized log's part that is not about the cases the test passes on
    /// `c_old` (`kill::failing_part`): two runs whose failing parts hash alike changed only
    /// where the test passes. `None` in runs recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_part: Option<String>,
    /// Only some of the module's tests ran (a witness module on a mutant, `witness::covering`):
    /// a test its statuses do not list kept its `c_old` status.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// A test's standing in one generation's kill matrix row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestScore {
    pub old_outcome: Outcome,
    /// Mutants whose normalized log differs from the `c_old` log (what fitness counts of them:
    /// `counted`).
    pub kills: Vec<MutantId>,
    /// Of the kills, those where the per-test status map or the outcome changed too.
    pub status_kills: Vec<MutantId>,
    /// Of the kills, those that changed only cases the test passes on `c_old`
    /// (`kill::Cell::KilledPassing`): not kills under the BRT rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passing_kills: Vec<MutantId>,
    /// Mutants on which a test that fails or errors on `c_old` passes: surrogate fixes.
    pub rescues: Vec<MutantId>,
    pub timeouts: Vec<MutantId>,
    /// The two `c_old` runs gave different normalized logs: kills are not counted.
    #[serde(default)]
    pub flaky: bool,
}

impl TestScore {
    /// The kills fitness counts under `config`: under the BRT rule with `--kills
    /// failing-cases`, not those only in cases the test passes on `c_old`, nor rescues (the
    /// mutant made it pass: evidence of its own, which the repository's tests judge).
    pub fn counted(&self, config: &super::config::RunConfig) -> usize {
        self.counted_kills(config).len()
    }

    /// The mutants `counted` counts.
    pub fn counted_kills(&self, config: &super::config::RunConfig) -> Vec<&MutantId> {
        let failing_only = config.counts_failing_cases_only();
        self.kills
            .iter()
            .filter(|m| {
                !failing_only || !(self.passing_kills.contains(m) || self.rescues.contains(m))
            })
            .collect()
    }

    /// Of the kills `counted` counts, those that changed a case's status or the outcome (a
    /// failing case now errors, another exception, a timeout), not only the failure message:
    /// a broad test with a wrong expectation prints another value under every mutant it
    /// runs, and a test that reproduces the bug's own failure changes what fails.
    pub fn counted_status(&self, config: &super::config::RunConfig) -> usize {
        let failing_only = config.counts_failing_cases_only();
        if failing_only {
            self.status_kills.len() - self.rescues.len()
        } else {
            self.status_kills.len()
        }
    }
}

/// How a cut that fitness could not decide was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieBreak {
    /// Tests tied on fitness across the cut.
    pub tied: Vec<TestId>,
    /// How many of them had to be chosen.
    pub slots: usize,
    /// What decided: rescues, the Otter rules, or the model.
    pub by: CutRule,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    pub index: usize,
    pub tests: Vec<TestId>,
    /// The sample of the mutant pool this generation runs against.
    pub mutants: Vec<MutantId>,
    /// Executions this generation needs: tests x mutants + the `c_old` baselines per test.
    pub executions: usize,
    /// Of those, how many were answered from the cache (run in an earlier generation).
    pub cached: usize,
    pub scores: BTreeMap<TestId, TestScore>,
    /// Best first, as selection ranked them.
    pub ranking: Vec<TestId>,
    pub selected: Vec<TestId>,
    /// What decided the cut.
    pub selected_by: Option<CutRule>,
    /// True when fitness alone separated the kept tests from the dropped ones.
    pub fitness_decided: Option<bool>,
    pub tie_break: Option<TieBreak>,
    /// The population handed to the next generation (after crossover).
    pub offspring: Vec<TestId>,
    /// The tests that went (or go) to crossover after the user's acts at the gate; `None`:
    /// the selected ones, untouched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parents: Option<Vec<TestId>>,
    /// With reach-aware sampling: how the pool split into mutants this population reaches
    /// on `c_old` and mutants it cannot, by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<ReachCounts>,
    /// Mutants drawn after the sample left tests tied across the cut (`--settle-ties`), to
    /// let mutation decide it; they are also in `mutants`, after the sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settling: Vec<MutantId>,
}

/// One of the repository's test modules, run as it is in the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Repository-relative path, `/` separators.
    pub rel_path: String,
    /// SHA-256 of its content when found: with the target, its executions' key.
    pub hash: String,
}

/// The witnesses of a session and what they said of each rescuing mutant run on them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witnesses {
    pub modules: Vec<Witness>,
    pub verdicts: BTreeMap<MutantId, Verdict>,
    /// Per module (its `rel_path`), the tests that pass on `c_old` (node id after the file)
    /// and which of the pool's mutants each runs the lines of there, a bitset over the
    /// pool's order in hex (`witness::covering`): only those tests run on a rescuer. A module
    /// missing here was not traced test by test, and runs whole.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judges: BTreeMap<String, BTreeMap<String, String>>,
}

/// How a rescuing mutant fared under the witnesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Of the witnesses' tests that pass on `c_old`, how many still pass on the mutant.
    pub kept: usize,
    /// How many pass on `c_old`; 0 when no witness runs the mutant's lines there (then they
    /// cannot judge it: a mutant of code the repository's tests never run keeps them all
    /// passing, whatever it does).
    pub of: usize,
}

impl Verdict {
    /// The share kept, in thousandths (an integer, so fitness keys stay totally ordered); 0
    /// for a mutant the witnesses cannot judge.
    pub fn permille(&self) -> u32 {
        (self.kept * 1000).checked_div(self.of).unwrap_or(0) as u32
    }

    pub fn judged(&self) -> bool {
        self.of > 0
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.judged() {
            write!(
                f,
                "keeps {} of the repository's {} tests",
                self.kept, self.of
            )
        } else {
            write!(f, "in code the repository's tests do not run")
        }
    }
}

/// Where the state machine stands. Each variant is the step that runs next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "step")]
pub enum Phase {
    /// BaseBRT localizer (no `--focal` given).
    Localize,
    /// BaseBRT contextualizer (no initial tests given).
    Contextualize,
    /// The initial population from the model (no `--initial-tests` given).
    Generate,
    Mutate,
    /// e-Otter's critic-and-repair loop over the initial population (`--method eotter`).
    Repair,
    Execute {
        generation: usize,
    },
    Select {
        generation: usize,
    },
    Crossover {
        generation: usize,
    },
    Evaluate,
    Done,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Phase::Localize => write!(f, "localize"),
            Phase::Contextualize => write!(f, "contextualize"),
            Phase::Generate => write!(f, "generate"),
            Phase::Mutate => write!(f, "mutate"),
            Phase::Repair => write!(f, "repair"),
            Phase::Execute { generation } => write!(f, "execute (generation {generation})"),
            Phase::Select { generation } => write!(f, "select (generation {generation})"),
            Phase::Crossover { generation } => write!(f, "crossover (generation {generation})"),
            Phase::Evaluate => write!(f, "evaluate"),
            Phase::Done => write!(f, "done"),
        }
    }
}

pub use crate::eval::F2p;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Wall-clock seconds spent in steps (summed over resumes).
    pub wall_seconds: f64,
    /// Wall-clock seconds per step name.
    pub by_step: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionDoc {
    pub schema_version: u32,
    pub evootter_version: String,
    pub created_unix: u64,
    pub updated_unix: u64,
    pub inputs: Inputs,
    pub config: RunConfig,
    pub phase: Phase,
    pub pool: Option<MutantPool>,
    /// Every test ever in a population, by id.
    pub tests: BTreeMap<TestId, Candidate>,
    pub initial_population: Vec<TestId>,
    pub generations: Vec<Generation>,
    /// By `exec_key`.
    pub executions: BTreeMap<String, Execution>,
    /// Log texts by SHA-256, shared by executions with equal logs.
    pub logs: BTreeMap<String, String>,
    pub final_test: Option<TestId>,
    /// Every test errored on `c_old` the same environmental way and the run went on
    /// (`--keep-going`): what they said, and what it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_error: Option<String>,
    /// F2P status of every test in the initial population and of the final test, when a
    /// golden patch was given (computed after the run, never seen by selection).
    pub evaluation: BTreeMap<TestId, F2p>,
    pub timings: Timings,
    /// Things the user should know (small mutant pools, fallbacks, a managed venv).
    pub notes: Vec<String>,
    /// Every model call, in order (prompt, reply, tokens, cost; never a key).
    #[serde(default)]
    pub llm_calls: Vec<crate::llm::CallRecord>,
    #[serde(default)]
    pub base_brt: Option<BaseBrt>,
    /// The user's acts at gates, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acts: Vec<Act>,
    /// The repository's test modules that judge rescuing mutants and their verdicts
    /// (`engine::witness`), from the first rescue on; `None` before (and in sessions from
    /// before witnesses existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witnesses: Option<Witnesses>,
    /// e-Otter's loops (`--method eotter`), one per test of the initial population.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<RepairChain>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read session file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "session file {path} is not a valid evootter session ({detail}). It was left untouched; \
         start a new run with a fresh --out directory"
    )]
    Corrupt { path: PathBuf, detail: String },
    #[error(
        "session file {path} holds what this evootter ({ours}) does not know ({detail}): it \
         was written by evootter {written_by}, likely a newer one. It was left untouched; open \
         it with the evootter that wrote it, or a newer one"
    )]
    UnknownPart {
        path: PathBuf,
        detail: String,
        written_by: String,
        ours: String,
    },
    #[error(
        "session file {path} has schema version {found}, newer than this evootter understands \
         ({supported}). It was left untouched; upgrade evootter to resume it"
    )]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("cannot write session file {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub use crate::clock::now_unix;

impl SessionDoc {
    /// The run's method in a few words, as this run made it: BaseBRT given candidates takes
    /// the first of them rather than writing one from the issue.
    pub fn method_words(&self) -> &'static str {
        let given = self
            .initial_population
            .first()
            .and_then(|t| self.tests.get(t))
            .is_some_and(|c| matches!(c.origin, Origin::Initial { .. }));
        match self.config.method {
            super::config::Method::Basebrt if given => {
                "the first of the given candidates, nothing selected, no mutant"
            }
            m => m.words(),
        }
    }
}

impl SessionDoc {
    /// Store `text` in the log table and return its id.
    pub fn intern_log(&mut self, text: &str) -> String {
        let id = crate::hash::sha256_hex(text)[..20].to_string();
        self.logs
            .entry(id.clone())
            .or_insert_with(|| text.to_string());
        id
    }

    pub fn log(&self, id: &str) -> &str {
        self.logs.get(id).map(String::as_str).unwrap_or("")
    }

    /// The session file a path names: a session directory's `session.json`, or the file.
    pub fn file_in(path: &Path) -> PathBuf {
        if path.is_dir() {
            path.join("session.json")
        } else {
            path.to_path_buf()
        }
    }

    pub fn execution(&self, test: &TestId, target: &Target) -> Option<&Execution> {
        let cand = self.tests.get(test)?;
        self.executions.get(&exec_key(&cand.hash, target))
    }

    /// Write atomically: a temp file in the same directory, fsync, rename. A crash mid-write
    /// leaves the previous document intact. What evootter holds as secret never reaches the
    /// file (`secrets`): logs are redacted as they are made, this is the last line.
    pub fn save(&mut self, path: &Path) -> Result<(), SessionError> {
        self.updated_unix = now_unix();
        let err = |source| SessionError::Write {
            path: path.to_path_buf(),
            source,
        };
        let json = serde_json::to_vec_pretty(self).map_err(|e| err(std::io::Error::other(e)))?;
        let json = crate::secrets::redact_bytes(&json);
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
        let dir = dir.unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(err)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".session.")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(err)?;
        tmp.write_all(&json).map_err(err)?;
        tmp.as_file().sync_all().map_err(err)?;
        tmp.persist(path).map_err(|e| err(e.error))?;
        Ok(())
    }

    /// Load and check the schema version. Never modifies the file.
    pub fn load(path: &Path) -> Result<Self, SessionError> {
        let bytes = std::fs::read(path).map_err(|source| SessionError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let corrupt = |detail: String| SessionError::Corrupt {
            path: path.to_path_buf(),
            detail,
        };
        // The version first, from a header that skips everything else: a newer document is
        // refused before its (unknown) shape can fail to parse. Then the document straight
        // from the bytes, without an intermediate JSON tree (a big session's tree takes
        // several times its file's size).
        #[derive(Deserialize)]
        struct Header {
            schema_version: Option<u64>,
            evootter_version: Option<String>,
        }
        let header: Header =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(format!("not JSON: {e}")))?;
        let version = header
            .schema_version
            .ok_or_else(|| corrupt("no schema_version field".into()))?;
        if version > u64::from(SCHEMA_VERSION) {
            return Err(SessionError::TooNew {
                path: path.to_path_buf(),
                found: version as u32,
                supported: SCHEMA_VERSION,
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            // A kind of act (or step, or cell) added in a later evootter, within the same
            // schema: not damage, and a fresh run is not the fix.
            let detail = e.to_string();
            if detail.starts_with("unknown variant") {
                SessionError::UnknownPart {
                    path: path.to_path_buf(),
                    detail,
                    written_by: header.evootter_version.unwrap_or_else(|| "?".into()),
                    ours: env!("CARGO_PKG_VERSION").into(),
                }
            } else {
                corrupt(detail)
            }
        })
    }
}

/// Sessions for unit tests: a one-function repository, no Python needed.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::engine::config::*;

    pub fn config(selection: SelectionStrategy) -> RunConfig {
        crate::testkit::config(selection)
    }

    /// A `c_old` run of the test with content hash `hash`.
    pub fn old_run(
        hash: &str,
        outcome: Outcome,
        failure_kind: Option<FailureKind>,
        exception: Option<&str>,
    ) -> Execution {
        Execution {
            test_hash: hash.into(),
            target: Target::Old,
            outcome,
            failure_kind,
            exception: exception.map(str::to_string),
            exit_code: Some(i32::from(outcome != Outcome::Passed)),
            raw_log: String::new(),
            normalized_log: String::new(),
            status_map: BTreeMap::new(),
            counts: TestCounts::default(),
            duration_ms: 1,
            timeout_ms: 1,
            seq: 1,
            pid: 1,
            changed: vec![],
            changed_outside: vec![],
            denied: vec![],
            lines: None,
            failing_part: None,
            partial: false,
        }
    }

    /// A new session over `dir/repo` (written here: `pkg/m.py::f`) with `cands` as its initial
    /// population, t1, t2, ... in order.
    pub fn session(dir: &Path, config: RunConfig, cands: Vec<(PathBuf, String)>) -> SessionDoc {
        std::fs::create_dir_all(dir.join("repo/pkg")).unwrap();
        std::fs::write(dir.join("repo/pkg/m.py"), "def f():\n    return 1\n").unwrap();
        let inputs = Inputs {
            repo: dir.join("repo"),
            issue_path: None,
            issue_text: "f() returns 1".into(),
            focal: vec!["pkg/m.py::f".parse().unwrap()],
            initial_tests_dir: None,
            golden_patch: None,
            instance: None,
            repo_fingerprint: String::new(),
        };
        crate::engine::setup::new_session(inputs, config, cands).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::config::*;

    fn doc(dir: &Path) -> SessionDoc {
        let config = RunConfig {
            tests: 2,
            mutants: 4,
            seed: 7,
            ..fixtures::config(SelectionStrategy::Mutation)
        };
        let cands = vec![
            (
                PathBuf::from("test_a.py"),
                "def test_a():\n    assert 0\n".to_string(),
            ),
            (
                PathBuf::from("test_b.py"),
                "def test_b():\n    pass\n".to_string(),
            ),
        ];
        fixtures::session(dir, config, cands)
    }

    #[test]
    fn round_trip_is_lossless_and_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let mut d = doc(dir.path());
        let log = d.intern_log("FAILED tests/test_a.py::test_a");
        assert_eq!(
            d.intern_log("FAILED tests/test_a.py::test_a"),
            log,
            "logs dedup by hash"
        );
        assert_eq!(d.logs.len(), 1);
        d.executions.insert(
            exec_key(&d.tests["t1"].hash, &Target::Mutant("m1".into())),
            Execution {
                test_hash: d.tests["t1"].hash.clone(),
                target: Target::Mutant("m1".into()),
                outcome: Outcome::Failed,
                failure_kind: Some(FailureKind::Assertion),
                exception: Some("AssertionError".into()),
                exit_code: Some(1),
                raw_log: log.clone(),
                normalized_log: log,
                status_map: BTreeMap::from([("tests/test_a.py::test_a".into(), "FAILED".into())]),
                counts: TestCounts::default(),
                duration_ms: 120,
                timeout_ms: 5000,
                seq: 1,
                pid: 42,
                changed: vec![],
                changed_outside: vec![],
                denied: vec![],
                lines: None,
                failing_part: None,
                partial: false,
            },
        );
        d.phase = Phase::Select { generation: 0 };
        assert!(!d.inputs.repo_fingerprint.is_empty());
        let path = dir.path().join("out/session.json");
        d.save(&path).unwrap();
        let back = SessionDoc::load(&path).unwrap();
        assert_eq!(back.inputs, d.inputs);
        assert_eq!(back.tests, d.tests);
        assert_eq!(back.executions, d.executions);
        assert_eq!(back.phase, d.phase);
        assert_eq!(back, d);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("out"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("session.json")]);
        assert!(
            d.execution(&"t1".to_string(), &Target::Mutant("m1".into()))
                .is_some()
        );
    }

    /// A session from a newer evootter that holds a kind of act this one does not know is
    /// refused as such, not as damage (whose advice, a fresh run, would throw work away).
    #[test]
    fn an_act_of_a_newer_evootter_is_named_not_called_damage() {
        let dir = tempfile::tempdir().unwrap();
        let mut d = doc(dir.path());
        let path = dir.path().join("out/session.json");
        d.save(&path).unwrap();
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        json["evootter_version"] = "9.9.9".into();
        json["acts"] = serde_json::json!([
            {"at_unix": 1, "generation": 0, "kind": "reorder", "tests": ["t2", "t1"]}
        ]);
        let text = serde_json::to_string(&json).unwrap();
        std::fs::write(&path, &text).unwrap();
        let err = SessionDoc::load(&path).unwrap_err().to_string();
        assert!(err.contains("unknown variant `reorder`"), "{err}");
        assert!(err.contains("written by evootter 9.9.9"), "{err}");
        assert!(err.contains("left untouched"), "{err}");
        assert!(!err.contains("fresh --out"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn reuse_requires_the_same_repository_content() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = doc(dir.path());
        let mut b = a.clone();
        b.executions.clear();
        a.executions.insert(
            exec_key(&a.tests["t2"].hash, &Target::Old),
            fixtures::old_run(&a.tests["t2"].hash, Outcome::Passed, None, None),
        );
        assert_eq!(crate::engine::setup::reuse_executions(&mut b, &a), Ok(1));
        assert_eq!(b.executions.len(), 1);
        let mut c = b.clone();
        c.executions.clear();
        c.inputs.repo_fingerprint = "other".into();
        let err = crate::engine::setup::reuse_executions(&mut c, &a).unwrap_err();
        assert!(err.contains("repository content"), "{err}");
        assert!(c.executions.is_empty());
    }
}
