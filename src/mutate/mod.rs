//! Rule-based code mutants of the focal functions (paper III-C, Table I).

pub mod diff;
pub mod generate;
pub mod sites;
pub mod types;

pub use generate::{MutateError, generate};
pub use sites::{Candidate, candidate_sites, candidate_sites_in};
pub use types::*;
