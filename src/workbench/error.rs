//! Why a run request was refused: each error names what is wrong and how to fix it. The
//! `invalid!` and `ensure!` macros word the refusals the options themselves earn.

use crate::engine::setup::SetupError;
use crate::exec;
use crate::outdir;

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    OutDir(#[from] outdir::OutDirError),
    #[error(transparent)]
    Exec(#[from] exec::ExecError),
    #[error(transparent)]
    Instance(#[from] crate::instance::InstanceError),
    #[error(transparent)]
    Mutate(#[from] crate::mutate::MutateError),
    #[error(transparent)]
    Golden(#[from] crate::eval::EvalError),
    #[error(transparent)]
    Session(#[from] crate::engine::SessionError),
    #[error(transparent)]
    Model(#[from] super::model::ModelError),
    #[error("cannot read the repository: {0}")]
    Io(#[from] std::io::Error),
}

macro_rules! invalid {
    ($($t:tt)*) => { RequestError::Invalid(format!($($t)*)) };
}

macro_rules! ensure {
    ($cond:expr, $($t:tt)*) => {
        if !$cond {
            return Err(invalid!($($t)*));
        }
    };
}
