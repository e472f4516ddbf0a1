//! Progress events the engine emits while it steps. The headless runner prints them; the TUI
//! redraws on them. Serialisable, so a run can be logged and replayed.

use super::session::{F2p, Phase, Target, TestId};
use crate::exec::Outcome;
use crate::llm::notice::RetryNotice;
use crate::mutate::MutantKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a run stopped on an error goes on (`EngineError::resume`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resume {
    /// Once its cause is fixed outside the session (a key exported, a file restored).
    AfterFix,
    /// With a larger budget: the limit it stopped at is kept in the session.
    LargerBudget,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    StepStarted {
        phase: Phase,
    },
    MutantsReady {
        count: usize,
        requested: usize,
        exhausted: bool,
        kinds: BTreeMap<MutantKind, usize>,
        /// Which replacements the pool was made with (a log from before reads as `all`).
        #[serde(default)]
        operators: crate::mutate::Operators,
    },
    GenerationStarted {
        generation: usize,
        tests: usize,
        mutants: usize,
        executions: usize,
        cached: usize,
        /// Reach-aware: the sample is drawn again once the tests' `c_old` runs are traced
        /// (`MutantsSampled`); the counts here assume every mutant is reached.
        #[serde(default)]
        provisional: bool,
    },
    /// A reach-aware generation's sample, drawn after its baselines showed what its tests
    /// reach: `mutants` of the `reached` ones; `unreached` no test of it executes.
    MutantsSampled {
        generation: usize,
        mutants: usize,
        reached: usize,
        unreached: usize,
        unreached_kinds: std::collections::BTreeMap<crate::mutate::MutantKind, usize>,
        executions: usize,
        cached: usize,
    },
    /// The sample left `tied` tied across the cut: `mutants` more were drawn, and the
    /// generation runs on them before a tie-break decides.
    TieSettling {
        generation: usize,
        tied: Vec<TestId>,
        mutants: usize,
    },
    /// An execution was handed to the executor (a view draws its cell as running).
    ExecutionStarted {
        generation: Option<usize>,
        test: TestId,
        target: Target,
        /// The execution's key in the session (`SessionDoc::executions`).
        key: String,
    },
    ExecutionDone {
        generation: Option<usize>,
        test: TestId,
        target: Target,
        outcome: Outcome,
        /// For a mutant run: whether the test killed it.
        killed: Option<bool>,
        /// For a mutant run: its kill-matrix cell (how it was killed, or not).
        #[serde(default)]
        cell: Option<super::kill::Cell>,
        /// The execution's key in the session.
        #[serde(default)]
        key: String,
        /// Executions of this step finished so far, and in all.
        done: usize,
        total: usize,
        kills: usize,
        /// Executions of this step that hit their timeout so far.
        #[serde(default)]
        timeouts: usize,
    },
    Selected {
        generation: usize,
        selected: Vec<TestId>,
        selected_by: super::config::CutRule,
        fitness_decided: bool,
    },
    Evaluated {
        test: TestId,
        f2p: F2p,
    },
    Finished {
        final_test: Option<TestId>,
    },
    /// The user acted at a gate (recorded in the session).
    Acted {
        act: super::session::Act,
    },
    /// The workbench's run stopped on an error (the session is saved).
    Stopped {
        reason: String,
        /// How it goes on, if it can; each front end words it with its own command.
        resume: Option<Resume>,
    },
    /// The workbench finished what it was asked (one step) and waits for a command.
    Idle,
    /// An act the user asked for was refused, and why (nothing changed).
    ActRefused {
        reason: String,
    },
    /// The workbench stopped at the gate before this generation's crossover: the survivors
    /// may be curated, then the run continued.
    Paused {
        generation: usize,
    },
    Note {
        message: String,
    },
    /// One model call finished (a reply from the response cache counts, with `cached`).
    LlmCalled {
        step: String,
        model: String,
        input_tokens: u64,
        output_tokens: u64,
        latency_ms: u64,
        cost_usd: Option<f64>,
        cached: bool,
    },
    /// A model call failed and will be tried again after `wait_ms` (`attempt` of `attempts`
    /// failed). `endpoint` is a host, never a URL that could carry a key.
    LlmRetrying {
        provider: String,
        endpoint: String,
        attempt: u32,
        attempts: u32,
        wait_ms: u64,
        reason: String,
    },
    /// The localizer's result: the files it kept and the focal functions (BaseBRT).
    Localized {
        files: Vec<String>,
        focal: Vec<String>,
    },
    /// The contextualizer's result: the chosen imports and where the test goes.
    Contextualized {
        imports: Vec<String>,
        test_location: String,
    },
    /// Tests the model wrote joined the session: the initial population (`generation: None`)
    /// or the offspring of a generation's crossover.
    TestsWritten {
        generation: Option<usize>,
        tests: Vec<TestId>,
        names: Vec<String>,
        parents: Vec<TestId>,
    },
    /// e-Otter's critic judged `test` (round `round` of its loop, from 1) and, when it
    /// rejected it, the model's repair joined the session as `repaired`.
    Critiqued {
        test: TestId,
        round: usize,
        accepted: bool,
        reason: String,
        repaired: Option<TestId>,
    },
}

impl Event {
    /// A repair round in words (`repair round 2: the critic rejects t2 (its reason) -> t3`),
    /// as the run's progress and the workbench's status line say it; `None` for other events.
    pub fn critique_words(&self) -> Option<String> {
        let Event::Critiqued {
            test,
            round,
            accepted,
            reason,
            repaired,
        } = self
        else {
            return None;
        };
        Some(format!(
            "repair round {round}: the critic {} {test} ({reason}){}",
            if *accepted { "accepts" } else { "rejects" },
            repaired
                .as_ref()
                .map(|r| format!(" -> {r}"))
                .unwrap_or_default()
        ))
    }
}

impl From<&RetryNotice> for Event {
    fn from(n: &RetryNotice) -> Self {
        Event::LlmRetrying {
            provider: n.provider.clone(),
            endpoint: n.endpoint.clone(),
            attempt: n.attempt,
            attempts: n.attempts,
            wait_ms: n.wait.as_millis() as u64,
            reason: n.reason.clone(),
        }
    }
}
