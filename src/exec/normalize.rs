//! Log normalization: the paper (III-C) decides whether a test killed a mutant by comparing the
//! full pytest logs on `c_old` and on the mutant, after folding away what changes from run to
//! run anyway (paths, addresses, durations, whitespace, numeric constants). Everything that
//! decides "these two logs are the same" lives in the one function here.

use regex::Regex;
use std::sync::LazyLock;

/// The ordered (pattern, replacement) rules applied after the literal root paths are replaced.
/// Order matters: structured tokens (timestamps, UUIDs, addresses, temp paths) must be folded
/// before the generic numeric rule eats their digits, and separator padding only after the
/// durations inside summary lines are gone.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    let rules: &[(&str, &str)] = &[
        // Terminal control: CSI sequences (colours, cursor moves) and other two-byte escapes.
        (r"\x1b\[[0-9;?]*[ -/]*[@-~]", ""),
        (r"\x1b[@-Z\\-_]", ""),
        // CRLF and bare CR (progress redraws) become plain line breaks.
        (r"\r\n?", "\n"),
        // pytest header lines: environment facts, identical for c_old and a mutant but not
        // across machines or plugin sets. `--no-header` drops most of them already.
        (
            r"(?m)^[ \t]*(?:platform |rootdir:|plugins:|cachedir:|configfile:|testpaths:|cacheprovider|Using --randomly-seed|hypothesis profile).*$",
            "",
        ),
        // The junit path differs per worker and its line is centred with padding that depends
        // on the path length, so the whole line goes.
        (r"(?m)^[-=]* *generated xml file: .*$", ""),
        // Durations.
        (r"\bin \d+(?:\.\d+)?s\b", "in <DUR>"),
        (r"\(\d+:\d{2}:\d{2}(?:\.\d+)?\)", "(<DUR>)"),
        // Timestamps, UUIDs, memory addresses (also truncated `0x7fe...`), process ids.
        (
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
            "<TIMESTAMP>",
        ),
        (
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
            "<UUID>",
        ),
        // Addresses become `<ADDR>` here and `0xADDR` at the very end, after the numeric rule
        // (which would read the `0` of `0xADDR` as a number) has run.
        (r"\b0[xX][0-9a-fA-F]*\.\.\.[0-9a-fA-F]*", "<ADDR>..."),
        (r"\b0[xX][0-9a-fA-F]+", "<ADDR>"),
        (r"\b(?:pid|PID)\b[ =:]*\d+", "pid <PID>"),
        // Temp dirs not under our fixed basetemp: pytest's default tree and `tempfile` names.
        (
            r"(?:/private)?(?:/tmp|/var/folders/[^\s/]+/[^\s/]+/T)/pytest-of-[^\s/]+/pytest-(?:\d+|current)",
            "<TMP>",
        ),
        (r"(?:/private)?/tmp/tmp[a-z0-9_]{8}\b", "<TMP>"),
        // Numeric constants (paper III-C). The leading `\b` keeps digits inside identifiers
        // (`test_1`, `py311`, `x2`) intact; identifiers never start with a digit, so a number
        // at a word start is a constant, possibly with a unit (`2s`, `10ms`).
        (r"\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", "<N>"),
        // Section separators are centred to the terminal width, so their padding changes with
        // the title's length (a duration, a path): keep the title, fold the padding.
        (
            r"(?m)^([=_!*-])[=_!*-]{2,} (.*) [=_!*-]{3,}[ \t]*$",
            "$1$1$1 $2 $1$1$1",
        ),
        (r"(?m)^([=_!*-])[=_!*-]{2,}[ \t]*$", "$1$1$1"),
        (r"<ADDR>", "0xADDR"),
    ];
    rules
        .iter()
        .map(|(p, r)| (Regex::new(p).expect("normalizer rule compiles"), *r))
        .collect()
});

/// What each rule of [`RULES`] folds, in the same order, for people asking why two logs
/// compared equal.
const RULE_NAMES: [&str; 18] = [
    "terminal escapes",
    "terminal escapes",
    "carriage returns",
    "pytest header lines",
    "the junit file line",
    "durations",
    "durations",
    "timestamps",
    "UUIDs",
    "memory addresses",
    "memory addresses",
    "process ids",
    "pytest temp paths",
    "temp file names",
    "numbers (digits folded)",
    "separator padding",
    "separator padding",
    "memory addresses",
];

/// Why two different raw logs normalize to the same text: the rules that change the lines
/// in which they differ (named as people say them, in rule order, each once). The working
/// copy's path and whitespace count as rules too.
pub fn erased_by(a: &str, b: &str) -> Vec<&'static str> {
    let in_b: std::collections::BTreeSet<&str> = b.lines().collect();
    let in_a: std::collections::BTreeSet<&str> = a.lines().collect();
    let differing: Vec<&str> = a
        .lines()
        .filter(|l| !in_b.contains(l))
        .chain(b.lines().filter(|l| !in_a.contains(l)))
        .collect();
    static WORK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"evootter-\d+-\d+/(?:worker|scratch)-\d+").expect("work path rule")
    });
    let mut out = vec![];
    if differing.iter().any(|l| WORK.is_match(l)) {
        out.push("working-copy paths");
    }
    for (i, (re, _)) in RULES.iter().enumerate() {
        let name = RULE_NAMES.get(i).copied().unwrap_or("other");
        if !out.contains(&name) && differing.iter().any(|l| re.is_match(l)) {
            out.push(name);
        }
    }
    let squash = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    if differing.iter().any(|l| squash(l) != *l) {
        out.push("whitespace");
    }
    out
}

/// What a person or a model reads of a log: the raw log with only the run-to-run noise taken
/// out (terminal escapes, durations, addresses, the junit line, and the working-copy prefix of
/// paths, so they read repository-relative). Numbers, messages and layout stay. Two runs that
/// behaved the same give the same text, so prompts built from it hit the response cache.
pub fn readable_log(raw: &str) -> String {
    static READABLE: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
        let rules: &[(&str, &str)] = &[
            (r"\x1b\[[0-9;?]*[ -/]*[@-~]", ""),
            (r"\x1b[@-Z\\-_]", ""),
            (r"\r\n?", "\n"),
            (r"(?m)^[-=]* *generated xml file: .*\n?", ""),
            (r"\bin \d+(?:\.\d+)?s\b", "in <DUR>"),
            (r"\(\d+:\d{2}:\d{2}(?:\.\d+)?\)", "(<DUR>)"),
            (r"\b0[xX][0-9a-fA-F]+", "0xADDR"),
            (r"[^\s'\x22]*/evootter-\d+-\d+/worker-\d+/", ""),
            (
                r"[^\s'\x22]*/evootter-\d+-\d+/scratch-\d+/basetemp",
                "<TMP>",
            ),
        ];
        rules
            .iter()
            .map(|(p, r)| (Regex::new(p).expect("readable rule compiles"), *r))
            .collect()
    });
    let mut text = raw.to_owned();
    for (re, replacement) in READABLE.iter() {
        if let std::borrow::Cow::Owned(replaced) = re.replace_all(&text, *replacement) {
            text = replaced;
        }
    }
    text
}

/// Folds run-to-run noise out of a pytest log so that two logs compare equal exactly when the
/// test behaved the same.
///
/// 1. Each literal root path in `roots` is replaced by its placeholder (longest path first, so
///    a root nested in another wins): the worker copy becomes `<WORK>`, the basetemp and the
///    bytecode prefix `<TMP>`. Roots are literal, not regexes: paths may hold `.` or `+`.
/// 2. The ordered rules in `RULES`: ANSI escapes, CRLF, header lines, the junit path line,
///    durations, timestamps, UUIDs, hex addresses, pids, temp paths, standalone numbers, and
///    separator padding.
/// 3. Per line: whitespace runs fold to one space, trailing whitespace goes, blank lines go.
///
/// What must survive: exception types, assertion messages, identifiers, node ids and the
/// outcome letters of the progress line, since a mutant is killed exactly when these change.
pub fn normalize_log(raw: &str, roots: &[(String, &'static str)]) -> String {
    let mut roots: Vec<&(String, &'static str)> =
        roots.iter().filter(|(path, _)| !path.is_empty()).collect();
    roots.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    let mut text = raw.to_owned();
    for (path, placeholder) in roots {
        text = text.replace(path.as_str(), placeholder);
    }
    for (re, replacement) in RULES.iter() {
        if let std::borrow::Cow::Owned(replaced) = re.replace_all(&text, *replacement) {
            text = replaced;
        }
    }
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut folded = String::with_capacity(line.len());
        let mut in_space = false;
        for c in line.chars() {
            if c.is_whitespace() {
                in_space = true;
            } else {
                if in_space {
                    folded.push(' ');
                }
                in_space = false;
                folded.push(c);
            }
        }
        if !folded.is_empty() {
            out.push_str(&folded);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod readable_tests {
    use super::readable_log;

    #[test]
    fn keeps_numbers_and_drops_noise() {
        let a = "/tmp/evootter-41-0/worker-0/calc/ops.py:6: in clamp\nE   assert 9 == 10\n\x1b[31m1 failed in 0.05s\x1b[0m\nobj at 0x7f3a2b\n";
        let b = "/tmp/evootter-977-3/worker-1/calc/ops.py:6: in clamp\nE   assert 9 == 10\n\x1b[31m1 failed in 1.20s\x1b[0m\nobj at 0x7f0000\n";
        assert_eq!(readable_log(a), readable_log(b));
        let r = readable_log(a);
        assert!(r.starts_with("calc/ops.py:6: in clamp"), "{r}");
        assert!(
            r.contains("assert 9 == 10") && r.contains("1 failed in <DUR>"),
            "{r}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN_A: &str = "\x1b[1m============================= test session starts ==============================\x1b[0m\r
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.6.0\r
rootdir: /tmp/.tmpA1b2C3/worker-0\r
plugins: hypothesis-6.100.0, randomly-3.15.0\r
Using --randomly-seed=1234567\r
collected 2 items\r
\r
tests/test_repro.py .F                                                   [100%]\r
\r
=================================== FAILURES ===================================\r
_________________________________ test_divide __________________________________\r
tests/test_repro.py:12: in test_divide\r
    assert calc.divide(obj, 3) == 2\r
E   AssertionError: assert <calc.Ratio object at 0x7fe3c1a2b4d0> == 2\r
E    +  where <calc.Ratio object at 0x7fe3c1a2b4d0> = divide(<Obj 0x7fe3c1...a2b550>, 3)\r
E   (tmp file /tmp/.tmpA1b2C3/scratch-0/basetemp/test_divide0/out.txt, pid 4242)\r
E   request 3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b at 2026-05-09T07:35:25.123456+00:00\r
E   extra /tmp/pytest-of-root/pytest-17/test_divide0 seed 0.123456\r
--------------------- generated xml file: /tmp/.tmpA1b2C3/scratch-0/junit.xml ----------------------\r
=========================== short test summary info ============================\r
FAILED tests/test_repro.py::test_divide - AssertionError: assert <calc.Ratio ...\r
========================= 1 failed, 1 passed in 0.03s ==========================\r
";

    const RUN_B: &str =
        "============================= test session starts ==============================
platform linux -- Python 3.12.1, pytest-8.3.2, pluggy-1.5.0
rootdir: /tmp/.tmpZz9/worker-11
collected 2 items

tests/test_repro.py .F                                                   [100%]

=================================== FAILURES ===================================
_________________________________ test_divide __________________________________
tests/test_repro.py:12: in test_divide
    assert calc.divide(obj, 3) ==   2
E   AssertionError: assert <calc.Ratio object at 0x55d1e0f0a010> == 2
E    +  where <calc.Ratio object at 0x55d1e0f0a010> = divide(<Obj 0x55d1e0...f0a0c1>, 3)
E   (tmp file /tmp/.tmpZz9/scratch-11/basetemp/test_divide0/out.txt, pid 99)
E   request 0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d at 2026-05-10T11:02:03Z
E   extra /tmp/pytest-of-ci/pytest-3/test_divide0 seed 0.987
--------------------- generated xml file: /tmp/.tmpZz9/scratch-11/junit.xml ---------------------
=========================== short test summary info ============================
FAILED tests/test_repro.py::test_divide - AssertionError: assert <calc.Ratio ...
======================== 1 failed, 1 passed in 12.71s =========================
";

    fn roots(work: &str, tmp: &str) -> Vec<(String, &'static str)> {
        vec![(work.to_owned(), "<WORK>"), (tmp.to_owned(), "<TMP>")]
    }

    fn norm_a(raw: &str) -> String {
        normalize_log(
            raw,
            &roots(
                "/tmp/.tmpA1b2C3/worker-0",
                "/tmp/.tmpA1b2C3/scratch-0/basetemp",
            ),
        )
    }

    fn norm_b(raw: &str) -> String {
        normalize_log(
            raw,
            &roots("/tmp/.tmpZz9/worker-11", "/tmp/.tmpZz9/scratch-11/basetemp"),
        )
    }

    #[test]
    fn logs_differing_only_in_noise_normalize_equal() {
        let a = norm_a(RUN_A);
        let b = norm_b(RUN_B);
        assert_eq!(a, b);
        assert!(a.contains("E AssertionError: assert <calc.Ratio object at 0xADDR> == <N>"));
        assert!(a.contains("<TMP>/test_divide0/out.txt"));
        assert!(a.contains("=== <N> failed, <N> passed in <DUR> ==="));
        assert!(!a.contains("platform") && !a.contains("rootdir") && !a.contains('\r'));
        assert!(!a.contains("generated xml file"));
    }

    #[test]
    fn different_exception_type_stays_different() {
        let other = RUN_B.replace(
            "E   AssertionError: assert <calc.Ratio object at 0x55d1e0f0a010> == 2",
            "E   ZeroDivisionError: division by zero",
        );
        assert_ne!(norm_a(RUN_A), norm_b(&other));
    }

    #[test]
    fn different_assertion_message_stays_different() {
        let other = RUN_B.replace("assert <calc.Ratio object", "assert <calc.Fraction object");
        assert_ne!(norm_a(RUN_A), norm_b(&other));
        let other = RUN_B.replace("==   2", "!= 2");
        assert_ne!(norm_a(RUN_A), norm_b(&other));
    }

    #[test]
    fn numbers_fold_but_identifiers_keep_their_digits() {
        let n = normalize_log("test_1 py311 x2 = 42 + 3.5e-3 - 7 [100%] 2s 10ms", &[]);
        assert_eq!(n, "test_1 py311 x2 = <N> + <N> - <N> [<N>%] <N>s <N>ms\n");
    }

    #[test]
    fn nested_roots_replace_longest_first() {
        let roots = vec![
            ("/r".to_owned(), "<WORK>"),
            ("/r/scratch/basetemp".to_owned(), "<TMP>"),
        ];
        assert_eq!(
            normalize_log("/r/a.py /r/scratch/basetemp/t0", &roots),
            "<WORK>/a.py <TMP>/t0\n"
        );
    }

    #[test]
    fn whitespace_and_blank_lines_fold() {
        assert_eq!(
            normalize_log("a \t b   \n\n   \n    c\td  \n", &[]),
            "a b\n c d\n"
        );
    }
}
