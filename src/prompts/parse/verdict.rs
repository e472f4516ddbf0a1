//! The critic's reply of e-Otter's repair (`repair.j2`): a verdict, its reason, and after a
//! rejection the repaired test.

use super::{ParsedTest, normalize, parse_tests};

/// What the critic said of one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub accepted: bool,
    /// The `REASON:` line, or what the reply said before its code when it gave none.
    pub reason: String,
    /// The repaired test, after a rejection (ignored after an acceptance).
    pub test: Option<ParsedTest>,
    /// What was wrong with the reply, for the session's notes.
    pub problems: Vec<String>,
}

/// The verdict of `reply`. A reply without a `VERDICT:` line that still holds a test reads
/// as a rejection with that test (the model repaired without saying so); one with neither
/// is an error, in words fit for a note.
pub fn parse_verdict(reply: &str) -> Result<Verdict, String> {
    let text = normalize(reply);
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let l = l.trim().trim_start_matches(['*', '#', '-', ' ']);
            let (key, rest) = l.split_once(':')?;
            key.trim_matches(['*', ' '])
                .eq_ignore_ascii_case(name)
                .then(|| rest.trim().trim_matches('*').trim().to_string())
        })
    };
    let parsed = parse_tests(&text, 1);
    let test = parsed.tests.into_iter().next();
    let verdict = field("verdict").map(|v| v.to_ascii_uppercase());
    let accepted = match verdict.as_deref() {
        Some(v) if v.starts_with("ACCEPT") => true,
        Some(v) if v.starts_with("REJECT") => false,
        Some(v) => {
            return Err(format!(
                "the verdict is neither ACCEPT nor REJECT (it says `{v}`)"
            ));
        }
        None if test.is_some() => false,
        None => {
            return Err(format!(
                "the reply has no VERDICT line and no test; it starts with: {}",
                excerpt(&text)
            ));
        }
    };
    let mut problems = vec![];
    if verdict.is_none() {
        problems.push("the reply gave no VERDICT line; its test is taken as the repair".into());
    }
    if !accepted && test.is_none() {
        problems.extend(parsed.problems);
    }
    let reason = field("reason").unwrap_or_else(|| {
        let before_code = text.split("```").next().unwrap_or("");
        excerpt(before_code)
    });
    Ok(Verdict {
        accepted,
        reason,
        test: if accepted { None } else { test },
        problems,
    })
}

fn excerpt(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(160) {
        Some((i, _)) => format!("{}...", &one[..i]),
        None => one,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str =
        "### test_x.py\n```python\nimport m\n\ndef test_x():\n    assert m.f() == 1\n```\n";

    #[test]
    fn an_acceptance_needs_no_test() {
        let v = parse_verdict("VERDICT: ACCEPT\nREASON: it fails on the rounding.\n").unwrap();
        assert!(v.accepted);
        assert_eq!(v.reason, "it fails on the rounding.");
        assert_eq!(v.test, None);
    }

    #[test]
    fn a_rejection_carries_its_repair_in_markdown_dress() {
        let reply =
            format!("**Verdict:** Reject\n**Reason:** ImportError, wrong module.\n\n{TEST}");
        let v = parse_verdict(&reply).unwrap();
        assert!(!v.accepted);
        assert_eq!(v.reason, "ImportError, wrong module.");
        let t = v.test.unwrap();
        assert_eq!(t.name.as_deref(), Some("test_x.py"));
        assert!(t.source.contains("def test_x"));
        assert!(v.problems.is_empty());
    }

    #[test]
    fn a_test_without_a_verdict_is_a_repair_and_said_so() {
        let v = parse_verdict(&format!("Here is a better test.\n{TEST}")).unwrap();
        assert!(!v.accepted);
        assert_eq!(v.reason, "Here is a better test. ### test_x.py");
        assert!(v.test.is_some());
        assert_eq!(v.problems.len(), 1);
    }

    #[test]
    fn a_rejection_without_a_test_says_why() {
        let v = parse_verdict("VERDICT: REJECT\nREASON: passes on c_old\n").unwrap();
        assert!(!v.accepted);
        assert!(v.test.is_none());
        assert!(!v.problems.is_empty(), "{:?}", v.problems);
        assert!(
            parse_verdict("I am not sure.")
                .unwrap_err()
                .contains("no VERDICT")
        );
        assert!(
            parse_verdict("VERDICT: maybe")
                .unwrap_err()
                .contains("`MAYBE`")
        );
    }
}
