//! Test execution: running one candidate test module with pytest against `c_old` or a mutant,
//! and turning what pytest wrote into comparable results.

pub mod types;
pub use types::*;

pub mod docker;
pub mod junit;
pub mod local;
pub mod normalize;
pub mod pytest_run;
pub mod python_env;
pub mod sandbox;
pub mod scripted;
pub mod seal;
pub mod warm;

pub use docker::{DockerConfig, DockerExecutor};
pub use local::{LocalConfig, LocalExecutor};
pub use python_env::{PythonEnv, resolve_python};
pub use sandbox::Wanted;

/// How many times `kill_all_running` was called: a warm run whose interpreter died because
/// everything was being ended is not retried.
static KILLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub(crate) fn kills() -> u64 {
    KILLS.load(std::sync::atomic::Ordering::SeqCst)
}

/// Ends every execution any executor in this process has running, local or in a container:
/// the Ctrl-C hook. The runs then return, and their executors clean up when dropped.
pub fn kill_all_running() {
    KILLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    local::kill_all_running();
    docker::kill_all_running();
}

#[cfg(test)]
mod local_tests;
