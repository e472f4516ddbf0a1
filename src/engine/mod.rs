//! The EvoOtter engine: populations, mutants, executions, the kill matrix, successive
//! halving, selection and crossover, as a step-able state machine over a session document.
//! It knows nothing of terminals and of its drivers: the workbench (`crate::workbench`) runs
//! it in a task of its own and drives `Engine::step` on the commands the headless runner and
//! the TUI send it.

pub mod acts;
pub mod basebrt;
pub mod cell_view;
pub mod config;
pub mod environment;
pub mod events;
pub mod explain;
pub mod export;
pub mod focus;
pub mod gate;
pub mod halving;
mod judge;
pub mod kill;
pub mod kill_reasons;
mod llm_steps;
pub mod machine;
pub mod pair;
pub mod reach;
pub mod repair;
pub mod report;
pub mod selection;
pub mod session;
pub mod setup;
pub mod text;
pub mod witness;

pub use acts::{ActError, ActRequest};
pub use config::*;
pub use events::Event;
pub use gate::{Fate, Gate};
pub use machine::{Engine, EngineError};
pub use session::*;
