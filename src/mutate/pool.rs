//! The pool a run samples from: every mutant the focal functions yield (up to a cap), less
//! the trivially equivalent and duplicate ones, cut to `m` when only `m` are wanted, and
//! widened to the focal functions' callees and callers when the focal functions yield fewer
//! than `m` (`scope`). The engine's Mutate step and `evootter mutants` make it the same way.

use super::equivalence::drop_trivially_equivalent;
use super::generate::{MutateError, generate};
use super::scope::neighbours;
use super::types::{Mutant, MutantKind, MutantPool, MutantScope, Operators, Tce};
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
    pub scope: MutantScope,
    /// Only these kinds (`--mutant-kinds`); `None`: every kind.
    pub kinds: Option<&'a [MutantKind]>,
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
    // Restricted after generation, so that an unrestricted pool's draws stay as they were
    // and a restricted one is the same pool's mutants of those kinds.
    let allowed = |m: &Mutant| s.kinds.is_none_or(|k| k.contains(&m.kind));
    pool.mutants.retain(allowed);
    keep_distinct(&s, &mut pool.mutants, &mut pool.tce);
    if !s.whole {
        pool.mutants.truncate(s.mutants);
    }
    if s.scope == MutantScope::Widened && pool.mutants.len() < s.mutants {
        widen(&s, &mut pool)?;
        pool.mutants.retain(allowed);
    }
    pool.requested = s.mutants;
    pool.exhausted = pool.mutants.len() < s.mutants;
    pool.kinds = BTreeMap::new();
    for m in &pool.mutants {
        *pool.kinds.entry(m.kind).or_insert(0) += 1;
    }
    Ok(pool)
}

/// `mutants` less the trivially equivalent and duplicate ones (when asked), the check's
/// account merged into `tce`.
fn keep_distinct(s: &PoolSpec<'_>, mutants: &mut Vec<Mutant>, tce: &mut Option<Tce>) {
    if !s.check_equivalence {
        return;
    }
    let (kept, found) = drop_trivially_equivalent(s.repo, std::mem::take(mutants), s.python);
    *mutants = kept;
    match tce {
        None => *tce = Some(found),
        Some(t) => {
            t.compared += found.compared;
            t.dropped.extend(found.dropped);
        }
    }
}

/// The focal functions' neighbours' mutants after the focal ones, each marked with its
/// scope: up to twice `m` of them when the whole pool is sampled from (reach-aware sampling
/// then runs only those the tests execute), else up to `m` in all. A focal mutant's code is
/// never a neighbour's (they change different functions), so duplicates are looked for
/// among the neighbours' own.
fn widen(s: &PoolSpec<'_>, pool: &mut MutantPool) -> Result<(), MutateError> {
    let near = neighbours(s.repo, s.focal)?;
    if near.is_empty() {
        return Ok(());
    }
    let (functions, scopes): (Vec<_>, Vec<_>) = near.into_iter().unzip();
    let wanted = if s.whole {
        2 * s.mutants
    } else {
        s.mutants - pool.mutants.len()
    };
    let mut more = generate(
        s.repo,
        &functions,
        wanted.max(POOL_CAP),
        s.seed,
        s.operators,
    )?;
    keep_distinct(s, &mut more.mutants, &mut pool.tce);
    more.mutants.truncate(wanted);
    for m in &mut more.mutants {
        m.scope = functions
            .iter()
            .position(|f| f.file == m.file && f.qualname == m.function)
            .map(|i| scopes[i]);
    }
    pool.mutants.extend(more.mutants);
    Ok(())
}
