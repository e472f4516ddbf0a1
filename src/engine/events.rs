//! Progress events the engine emits while it steps. The headless runner prints them; the TUI
//! will redraw on them. Serialisable, so a run can be logged and replayed.

use super::session::{F2p, Phase, Target, TestId};
use crate::exec::Outcome;
use crate::mutate::MutantKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    },
    GenerationStarted {
        generation: usize,
        tests: usize,
        mutants: usize,
        executions: usize,
        cached: usize,
    },
    ExecutionDone {
        generation: Option<usize>,
        test: TestId,
        target: Target,
        outcome: Outcome,
        /// For a mutant run: whether the test killed it.
        killed: Option<bool>,
        /// Executions of this step finished so far, and in all.
        done: usize,
        total: usize,
        kills: usize,
    },
    Selected {
        generation: usize,
        selected: Vec<TestId>,
        selected_by: String,
        fitness_decided: bool,
    },
    Evaluated {
        test: TestId,
        f2p: F2p,
    },
    Finished {
        final_test: Option<TestId>,
    },
    Note {
        message: String,
    },
}
