//! evootter: generate, evolve and inspect bug reproduction tests for Python repositories, after
//! the EvoOtter paper. The engine (`engine`) drives mutants (`mutate`), executions (`exec`) and
//! selection over a session document; the binary's commands are thin layers over it.

pub mod bench;
pub mod clock;
pub mod engine;
pub mod eval;
pub mod exec;
pub mod hash;
pub mod instance;
pub mod llm;
pub mod mutate;
pub mod outdir;
pub mod prompts;
pub mod python;
pub mod rng;
pub mod secrets;
#[doc(hidden)]
pub mod testkit;
pub mod tui;
pub mod workbench;
