//! The pool a run samples from: every mutant the focal functions yield (up to a cap), less
//! the trivially equivalent and duplicate ones, cut to `m` when only `m` are wanted. The
//! engine's Mutate step and `evootter mutants` make it the same way.

use super::equivalence::drop_trivially_equivalent;
use super::generate::{MutateError, generate};
use super::types::{MutantPool, Operators};
use crate::python::FocalFunction;
use std::collections::BTreeMap;
use std::path::Path;

/// The most mutants a pool holds: every one the focal functions yield, up to this.
pub const POOL_CAP: usize = 5000;

/// How a pool is made.
pub struct PoolSpec<'a> {
    pub repo: &'a Path,
    pub focal: &'a [FocalFunction],
    /// `m`: what each generation's sample is sized by.
    pub mutants: usize,
    pub seed: u64,
    pub operators: Operators,
    /// Keep the whole pool (reach-aware sampling draws from all of it) rather than its
    /// first `m`.
    pub whole: bool,
    /// The interpreter that compiles mutants for the equivalence check; `None` with
    /// `check_equivalence` keeps every mutant and says why.
    pub python: Option<&'a Path>,
    pub check_equivalence: bool,
}

pub fn make_pool(s: PoolSpec<'_>) -> Result<MutantPool, MutateError> {
    // Generated whole first, so that dropping equivalent mutants does not leave fewer than
    // `m` where the focal functions yield more. The generator's draws are sequential: the
    // first `m` of a larger pool are the pool of `m`.
    let mut pool = generate(
        s.repo,
        s.focal,
        s.mutants.max(POOL_CAP),
        s.seed,
        s.operators,
    )?;
    if s.check_equivalence {
        let (kept, tce) =
            drop_trivially_equivalent(s.repo, std::mem::take(&mut pool.mutants), s.python);
        pool.mutants = kept;
        pool.tce = Some(tce);
    }
    if !s.whole {
        pool.mutants.truncate(s.mutants);
    }
    pool.requested = s.mutants;
    pool.exhausted = pool.mutants.len() < s.mutants;
    pool.kinds = BTreeMap::new();
    for m in &pool.mutants {
        *pool.kinds.entry(m.kind).or_insert(0) += 1;
    }
    Ok(pool)
}
