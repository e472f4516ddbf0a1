//! Rule-based code mutants of the focal functions (paper III-C, Table I).

pub mod equivalence;
pub mod generate;
pub mod patch;
pub mod pool;
pub mod scope;
pub mod sites;
pub mod types;

pub use equivalence::drop_trivially_equivalent;
pub use generate::{MutateError, generate};
pub use pool::{POOL_CAP, PoolSpec, make_pool};
pub use scope::neighbours;
pub use sites::{Candidate, candidate_sites, candidate_sites_in};
pub use types::*;
