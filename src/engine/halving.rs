//! Successive halving (paper Fig. 2): each generation keeps the better half of the tests and
//! doubles the mutants it runs them against, so every generation costs about `2m` executions.

use serde::{Deserialize, Serialize};

/// Size of one generation: how many tests run against how many mutants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationSize {
    pub tests: usize,
    pub mutants: usize,
}

/// How many tests survive a cut of `tests`: the top half, rounded up.
pub fn survivors(tests: usize) -> usize {
    tests.div_ceil(2)
}

/// The whole schedule for `n` initial tests, `m` requested mutants and a pool of `pool`
/// unique mutants actually generated.
///
/// Generation g runs `tests_g` tests against `round(2 m' / tests_g)` mutants, where
/// `m' = min(m, pool)`: when a small focal function yields fewer mutants than asked, the
/// doubling keeps its shape and the last generation uses the whole pool rather than every
/// generation hitting the cap. Never fewer than one mutant (when the pool has any), never
/// more than the pool. The schedule ends with the generation that cuts 2 tests to 1; `n = 1`
/// needs no generation at all.
pub fn schedule(n: usize, m: usize, pool: usize) -> Vec<GenerationSize> {
    let mut out = Vec::new();
    let mut tests = n;
    while tests > 1 {
        out.push(GenerationSize {
            tests,
            mutants: mutants_for(tests, m, pool),
        });
        tests = survivors(tests);
    }
    out
}

/// Mutants a generation of `tests` tests runs against: `round(2 m' / tests)` with
/// `m' = min(m, pool)`, at least one (when the pool has any), at most the pool.
pub fn mutants_for(tests: usize, m: usize, pool: usize) -> usize {
    let m_eff = m.min(pool);
    if m_eff == 0 || tests == 0 {
        return m_eff;
    }
    ((2 * m_eff + tests / 2) / tests).clamp(1, m_eff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(s: &[GenerationSize]) -> Vec<(usize, usize)> {
        s.iter().map(|g| (g.tests, g.mutants)).collect()
    }

    #[test]
    fn paper_example_eight_tests_twenty_mutants() {
        let s = schedule(8, 20, 20);
        assert_eq!(pairs(&s), vec![(8, 5), (4, 10), (2, 20)]);
        // Constant cost per generation: 2m = 40 mutant executions each.
        assert!(s.iter().all(|g| g.tests * g.mutants == 40));
    }

    #[test]
    fn small_pool_keeps_the_doubling_shape() {
        assert_eq!(pairs(&schedule(8, 20, 9)), vec![(8, 2), (4, 5), (2, 9)]);
        assert_eq!(pairs(&schedule(8, 20, 4)), vec![(8, 1), (4, 2), (2, 4)]);
        assert_eq!(pairs(&schedule(8, 20, 1)), vec![(8, 1), (4, 1), (2, 1)]);
    }

    #[test]
    fn odd_populations_round_up() {
        assert_eq!(pairs(&schedule(5, 20, 20)), vec![(5, 8), (3, 13), (2, 20)]);
        assert_eq!(survivors(5), 3);
        assert_eq!(survivors(1), 1);
    }

    #[test]
    fn degenerate_sizes() {
        assert!(schedule(1, 20, 20).is_empty());
        assert!(schedule(0, 20, 20).is_empty());
        assert_eq!(pairs(&schedule(2, 20, 0)), vec![(2, 0)]);
        assert_eq!(
            pairs(&schedule(16, 20, 20)),
            vec![(16, 3), (8, 5), (4, 10), (2, 20)]
        );
    }
}
