//! Test execution: running one candidate test module with pytest against `c_old` or a mutant,
//! and turning what pytest wrote into comparable results.
//!
//! Shared parts, used by every backend: the data (`types`), copies of a repository
//! (`copying`), processes and their supervisors (`process`), what an interpreter says about
//! itself (`interpreter`), the pytest run's command line and its result (`pytest_run`,
//! `junit`, `normalize`), the zygote's protocol (`zygote`) and the sandbox (`sandbox`). The
//! backends use those and nothing of each other: `local` (cold and warm), `docker`, and
//! `scripted` for tests.

pub mod types;
pub use types::*;

pub mod copying;
pub mod docker;
pub mod interpreter;
pub mod junit;
pub mod local;
pub mod normalize;
pub mod process;
pub mod pytest_run;
pub mod python_env;
pub mod sandbox;
pub mod scripted;
pub mod zygote;

pub use docker::{DockerConfig, DockerExecutor};
pub use local::{LocalConfig, LocalExecutor};
pub use python_env::{PythonEnv, resolve_python};
pub use sandbox::Wanted;

/// Ends every execution any executor in this process has running, local or in a container:
/// the Ctrl-C hook. The runs then return, and their executors clean up when dropped.
pub fn kill_all_running() {
    process::count_kill_all();
    process::kill_all_running();
    docker::kill_all_running();
}
