//! Test execution: running one candidate test module with pytest against `c_old` or a mutant,
//! and turning what pytest wrote into comparable results.

pub mod types;
pub use types::*;

pub mod junit;
pub mod local;
pub mod normalize;
pub mod python_env;
pub mod sandbox;
pub mod scripted;
pub mod seal;

pub use local::{LocalConfig, LocalExecutor, kill_all_running};
pub use python_env::{PythonEnv, resolve_python};
pub use sandbox::Wanted;

#[cfg(test)]
mod local_tests;
