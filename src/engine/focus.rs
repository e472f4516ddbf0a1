//! Issue focus: whether a test is about the issue, judged by the values it spells out.
//!
//! An issue names the values that show its bug: the input, what comes out, what should. A
//! reproduction written for it uses them; a broad test adds many cases of its own, and a
//! decoy (a test of neighbouring behaviour) uses other values altogether. Kills cannot tell
//! these apart: on the fresh-bug benchmark (examples/fresh) a broad test with a wrong
//! expectation, or a decoy, out-killed the focused fail-to-pass tests in most of mutation
//! selection's misses, every mutant on its path changing the value its failing assertion
//! prints. So the share of a test's distinct literal values that occur in the issue's text
//! is evidence, weighed in quarters (`IssueFocus::level`): a test whose values are more the
//! issue's ranks first, and among tests of one level kills decide. A focused test with a
//! wrong expectation uses the issue's values too (the bundled examples have several): the
//! mutants and the repository's tests separate it from the reproduction.
//!
//! Not counted: docstrings (prose), f-strings with replacement fields, strings of fewer than
//! two visible characters, and the numbers -2 to 2, which any test spells out.

use crate::python::literals::{Literal, literals};

/// How many of a test's distinct literal values occur in the issue's text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IssueFocus {
    /// Values the issue's text holds.
    pub named: usize,
    /// The test's distinct values.
    pub of: usize,
}

impl IssueFocus {
    /// The focus of the test `source` on the issue `issue`.
    pub fn of(issue: &str, source: &str) -> Self {
        let mut values: Vec<Literal> = literals(source)
            .into_iter()
            .filter(|l| match l {
                Literal::Str(s) => s.trim().chars().count() >= 2,
                Literal::Num(n) => !matches!(n.as_str(), "0" | "1" | "2" | "-1" | "-2"),
            })
            .collect();
        values.dedup();
        let mut seen = vec![];
        for v in values {
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        let named = seen.iter().filter(|v| named_in(issue, v)).count();
        IssueFocus {
            named,
            of: seen.len(),
        }
    }

    /// The share of the test's values the issue names, in quarters, three-quarters and
    /// more counting as all: 0 (under a quarter) to 3. Coarse on purpose: a test that uses
    /// the issue's values with a wrong expectation of its own is as much about the issue as
    /// the reproduction is (the mutants and the repository's tests tell those apart), while
    /// a broad test's or a decoy's values are mostly not the issue's. A test that spells out
    /// no value (`f([]) == ""`) says nothing either way: 2, between the two. (On the fresh-bug
    /// benchmark, at 3 such a decoy beat the reproductions of one bug, at 0 a broad test beat
    /// those of another.)
    pub fn level(self) -> u8 {
        if self.of == 0 {
            return 2;
        }
        ((4 * self.named / self.of) as u8).min(3)
    }

    /// `3 of 4 values the issue names`, for explanations.
    pub fn describe(self) -> String {
        if self.of == 0 {
            "no literal values, counted as half".to_string()
        } else {
            format!(
                "{} of {} value{} the issue names",
                self.named,
                self.of,
                if self.of == 1 { "" } else { "s" }
            )
        }
    }
}

/// Whether the issue's text holds the value: a string as a substring, a number as a whole
/// token (`99` is not in `999.9`).
fn named_in(issue: &str, value: &Literal) -> bool {
    match value {
        Literal::Str(s) => issue.contains(s.as_str()),
        Literal::Num(n) => {
            let bytes = issue.as_bytes();
            let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
            issue.match_indices(n.as_str()).any(|(at, _)| {
                let before = at.checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(at + n.len()).copied();
                let next = bytes.get(at + n.len() + 1).copied();
                let joined_before = before.is_some_and(|b| word(b) || b == b'.');
                let joined_after = after.is_some_and(|b| {
                    word(b) || (b == b'.' && next.is_some_and(|c| c.is_ascii_digit()))
                });
                !joined_before && !joined_after
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUE: &str = "`humanize.metric(999.9, \"V\")` returns `'1000 V'`; expected `'1.00 kV'`. \
                         Values like 1999 are fine.";

    #[test]
    fn a_focused_test_ranks_above_a_broad_one() {
        let focused = "def test_carry():\n    assert metric(999.9, 'V') == '1.00 kV'\n";
        let f = IssueFocus::of(ISSUE, focused);
        assert_eq!((f.named, f.of), (2, 2), "'V' is too short to count");
        assert_eq!(f.level(), 3);
        let broad = "@pytest.mark.parametrize('a, e', [((999, 'V'), '999 V'), ((999.9, 'V'), \
                     '1.00 kV'), ((9999,), '10.0 k'), ((0.001, 'A'), '1.00 mA')])\n\
                     def test_metric(a, e):\n    assert metric(*a) == e\n";
        let b = IssueFocus::of(ISSUE, broad);
        // 999, '999 V', 999.9, '1.00 kV', 9999, '10.0 k', 0.001, '1.00 mA' (not the names)
        assert_eq!((b.named, b.of), (2, 8));
        assert_eq!(b.level(), 1);
        assert_eq!(b.describe(), "2 of 8 values the issue names");
    }

    #[test]
    fn numbers_match_whole_tokens_only() {
        let f = |src: &str| IssueFocus::of(ISSUE, src);
        assert_eq!(f("x = 99\n").named, 0, "99 is inside 999.9");
        assert_eq!(f("x = 999\n").named, 0, "999 is followed by .9");
        assert_eq!(f("x = 1999\n").named, 1);
        assert_eq!(f("x = 1\ny = 'z'\n").of, 0, "trivial values do not count");
        assert_eq!(f("x = 1\n").level(), 2, "no value: nothing either way");
        let three_of_four = "a = '1.00 kV'\nb = 1999\nc = 999.9\nd = 'other'\n";
        assert_eq!(f(three_of_four).level(), 3, "three quarters count as all");
    }
}
