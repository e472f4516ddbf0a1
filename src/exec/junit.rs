//! Reading pytest's junit XML report: per-test statuses, counts, the module's `Outcome`, and
//! why the first failure failed. The report, not the exit code or the text log, is the source
//! of truth for outcomes; anything unreadable fails closed as `Outcome::Error`.

use crate::exec::types::{FailureKind, Outcome, TestCounts};
use regex::Regex;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

/// What one junit report says about one candidate test module.
#[derive(Debug, Clone, PartialEq)]
pub struct JunitReport {
    pub outcome: Outcome,
    /// The first `<failure>`'s kind, set when `outcome` is `Failed`.
    pub failure_kind: Option<FailureKind>,
    /// Exception type of the first `<failure>` (outcome `Failed`) or first `<error>` (outcome
    /// `Error`), when the report names one.
    pub exception: Option<String>,
    /// Node id (`tests/test_x.py::Class::test[param]`) to PASSED / FAILED / ERROR / SKIPPED /
    /// XFAIL. `XPASS` only appears after `refine_with_log`, junit reports it as a pass.
    pub status_map: BTreeMap<String, String>,
    pub counts: TestCounts,
    /// Why the report could not be used, when it could not.
    pub problem: Option<String>,
}

impl JunitReport {
    /// The fail-closed report: no statuses, outcome `Error`.
    pub fn unusable(problem: impl Into<String>) -> Self {
        Self {
            outcome: Outcome::Error,
            failure_kind: None,
            exception: None,
            status_map: BTreeMap::new(),
            counts: TestCounts::default(),
            problem: Some(problem.into()),
        }
    }
}

/// Reads and parses the report pytest wrote; a missing or unreadable file is `Outcome::Error`
/// (pytest crashed, a conftest failed to import, or the run never got that far).
pub fn read_junit(path: &Path, test_rel_path: &str) -> JunitReport {
    match std::fs::read_to_string(path) {
        Ok(xml) => parse_junit(&xml, test_rel_path),
        Err(e) => JunitReport::unusable(format!("no junit report at {}: {e}", path.display())),
    }
}

/// Parses a junit report for the module at `test_rel_path` (the path pytest was pointed at,
/// `/` separators). Outcome rules: any `<error>` -> Error; else any `<failure>` -> Failed; else
/// at least one passed test -> Passed; otherwise (no tests, or all skipped / xfailed: nothing
/// ran that could reproduce the issue) -> Error. Malformed XML -> Error.
pub fn parse_junit(xml: &str, test_rel_path: &str) -> JunitReport {
    let doc = match roxmltree::Document::parse(xml) {
        Ok(doc) => doc,
        Err(e) => return JunitReport::unusable(format!("malformed junit report: {e}")),
    };
    let root = doc.root_element();
    if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
        return JunitReport::unusable(format!(
            "unexpected junit root element <{}>",
            root.tag_name().name()
        ));
    }
    let ids = NodeIds::new(test_rel_path);
    let mut counts = TestCounts::default();
    let mut status_map: BTreeMap<String, String> = BTreeMap::new();
    let mut first_failure: Option<roxmltree::Node> = None;
    let mut first_error: Option<roxmltree::Node> = None;
    let mut testcases = 0usize;

    for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
        testcases += 1;
        let node_id = ids.node_id(
            case.attribute("classname").unwrap_or(""),
            case.attribute("name").unwrap_or(""),
        );
        let mut status = "PASSED";
        for child in case.children().filter(|n| n.is_element()) {
            match child.tag_name().name() {
                "failure" => {
                    counts.failed += 1;
                    status = "FAILED";
                    first_failure.get_or_insert(child);
                }
                "error" => {
                    counts.errors += 1;
                    status = "ERROR";
                    first_error.get_or_insert(child);
                }
                "skipped" => {
                    counts.skipped += 1;
                    status = if child.attribute("type") == Some("pytest.xfail") {
                        "XFAIL"
                    } else {
                        "SKIPPED"
                    };
                }
                _ => {}
            }
        }
        if status == "PASSED" {
            counts.passed += 1;
        }
        // A failed test whose teardown also errors is reported twice under one id: keep the
        // worse status so the map does not depend on element order.
        let entry = status_map
            .entry(node_id)
            .or_insert_with(|| status.to_owned());
        if rank(status) > rank(entry) {
            *entry = status.to_owned();
        }
    }

    let (outcome, failure_kind, exception) = if let Some(err) = first_error {
        (Outcome::Error, None, exception_of(err))
    } else if let Some(fail) = first_failure {
        let exception = exception_of(fail);
        let kind = if exception.as_deref() == Some("AssertionError") {
            FailureKind::Assertion
        } else {
            FailureKind::Other
        };
        (Outcome::Failed, Some(kind), exception)
    } else if counts.passed > 0 {
        (Outcome::Passed, None, None)
    } else {
        (Outcome::Error, None, None)
    };
    let problem = match (outcome, testcases) {
        (Outcome::Error, 0) => Some("no tests collected".to_owned()),
        (Outcome::Error, _) if first_error.is_none() => Some("no test ran".to_owned()),
        _ => None,
    };
    JunitReport {
        outcome,
        failure_kind,
        exception,
        status_map,
        counts,
        problem,
    }
}

/// Junit folds non-strict XPASS into plain passes; the `-rA` summary in the log still names
/// them (`XPASS tests/t.py::test_x`), so upgrade those entries.
pub fn refine_with_log(report: &mut JunitReport, log: &str) {
    for line in log.lines() {
        let Some(rest) = line.strip_prefix("XPASS ") else {
            continue;
        };
        for (id, status) in report.status_map.iter_mut() {
            let named = rest == id
                || rest
                    .strip_prefix(id.as_str())
                    .is_some_and(|tail| tail.starts_with(" - "));
            if status == "PASSED" && named {
                *status = "XPASS".to_owned();
            }
        }
    }
}

/// Cross-checks the report against pytest's exit code (0 all passed, 1 some tests failed, 2
/// and above interrupted / internal / usage error / no tests). A mismatch means the report does not
/// tell the whole story (for example a session-level crash after the last test), so it fails
/// closed.
pub fn reconcile_exit_code(outcome: Outcome, exit_code: Option<i32>) -> Outcome {
    match (outcome, exit_code) {
        (Outcome::Passed, Some(0)) | (Outcome::Failed, Some(1)) => outcome,
        (Outcome::Passed | Outcome::Failed, _) => Outcome::Error,
        _ => outcome,
    }
}

fn rank(status: &str) -> u8 {
    match status {
        "ERROR" => 5,
        "FAILED" => 4,
        "XPASS" => 3,
        "PASSED" => 2,
        "XFAIL" => 1,
        _ => 0,
    }
}

/// Maps junit `classname` + `name` back to pytest node ids. Junit dots the path relative to
/// pytest's rootdir (`tests.test_x.TestA`), which may sit above or below the working directory,
/// so any dotted suffix of the module path is accepted as the module part.
struct NodeIds<'a> {
    rel_path: &'a str,
    /// Dotted module names, longest first: `tests.test_x`, `test_x`.
    modules: Vec<String>,
}

impl<'a> NodeIds<'a> {
    fn new(rel_path: &'a str) -> Self {
        let dotted = rel_path
            .trim_start_matches("./")
            .strip_suffix(".py")
            .unwrap_or(rel_path)
            .replace('/', ".");
        let mut modules = vec![dotted.clone()];
        let mut rest = dotted.as_str();
        while let Some((_, tail)) = rest.split_once('.') {
            modules.push(tail.to_owned());
            rest = tail;
        }
        Self { rel_path, modules }
    }

    fn node_id(&self, classname: &str, name: &str) -> String {
        // Collection errors: empty classname, the module's dotted name as the test name.
        if classname.is_empty() {
            return if self.modules.iter().any(|m| m == name) {
                self.rel_path.to_owned()
            } else {
                name.to_owned()
            };
        }
        for module in &self.modules {
            if classname == module {
                return format!("{}::{name}", self.rel_path);
            }
            if let Some(classes) = classname
                .strip_prefix(module.as_str())
                .and_then(|r| r.strip_prefix('.'))
            {
                return format!("{}::{}::{name}", self.rel_path, classes.replace('.', "::"));
            }
        }
        format!("{classname}::{name}")
    }
}

static EXC_AT_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::|$)")
        .expect("regex compiles")
});
static EXC_E_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^E\s+([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::|[ \t]*$)")
        .expect("regex compiles")
});

/// The exception a `<failure>` or `<error>` reports: from its `message` (pytest's one-line
/// `exconly`, the last exception of a chain), else from the last `E   Name:` line of its text
/// (collection errors only say "collection failure").
fn exception_of(node: roxmltree::Node) -> Option<String> {
    let message = node.attribute("message").unwrap_or("");
    let message = message
        .strip_prefix("failed on setup with \"")
        .or_else(|| message.strip_prefix("failed on teardown with \""))
        .unwrap_or(message);
    // pytest's assertion rewriting reports a bare `assert x == y` without the type name.
    if message == "assert" || message.starts_with("assert ") {
        return Some("AssertionError".to_owned());
    }
    let first_line = message.lines().next().unwrap_or("");
    if let Some(name) = EXC_AT_START
        .captures(first_line)
        .map(|c| c[1].to_owned())
        .filter(|n| looks_like_exception(n))
    {
        return Some(name);
    }
    let text = node.text().unwrap_or("");
    if let Some(last) = text.lines().rev().find(|l| l.starts_with("E ")) {
        let body = last.trim_start_matches('E').trim_start();
        if body == "assert" || body.starts_with("assert ") {
            return Some("AssertionError".to_owned());
        }
    }
    EXC_E_LINE
        .captures_iter(text)
        .map(|c| c[1].to_owned())
        .filter(|n| looks_like_exception(n))
        .last()
}

/// Exception classes are CamelCase by convention: this keeps `E   Failed: ...` and
/// `E   ValueError` but not a stray `E   foo` line of captured output.
fn looks_like_exception(name: &str) -> bool {
    name.rsplit('.')
        .next()
        .and_then(|last| last.chars().next())
        .is_some_and(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIX9: &str = include_str!("testdata/mix_pytest9.xml");
    const MIX8: &str = include_str!("testdata/mix_pytest8.xml");
    const MORE9: &str = include_str!("testdata/more_pytest9.xml");
    const MORE9_LOG: &str = include_str!("testdata/more_pytest9.log");
    const IMPORT9: &str = include_str!("testdata/import_pytest9.xml");
    const SYNTAX9: &str = include_str!("testdata/syntax_pytest9.xml");
    const EMPTY9: &str = include_str!("testdata/empty_pytest9.xml");
    const PASS9: &str = include_str!("testdata/pass_pytest9.xml");

    fn status<'a>(r: &'a JunitReport, id: &str) -> &'a str {
        r.status_map
            .get(id)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("{id} missing from {:?}", r.status_map))
    }

    #[test]
    fn mixed_module_from_pytest_8_and_9() {
        for xml in [MIX9, MIX8] {
            let r = parse_junit(xml, "tests/test_mix.py");
            assert_eq!(r.outcome, Outcome::Error, "fixture error wins");
            assert_eq!(r.exception.as_deref(), Some("RuntimeError"));
            assert_eq!(
                r.counts,
                TestCounts {
                    passed: 1,
                    failed: 3,
                    errors: 1,
                    skipped: 2
                }
            );
            assert_eq!(status(&r, "tests/test_mix.py::test_ok"), "PASSED");
            assert_eq!(status(&r, "tests/test_mix.py::test_assert"), "FAILED");
            assert_eq!(status(&r, "tests/test_mix.py::test_skip"), "SKIPPED");
            assert_eq!(status(&r, "tests/test_mix.py::test_xfail"), "XFAIL");
            assert_eq!(status(&r, "tests/test_mix.py::test_fixture_error"), "ERROR");
            assert_eq!(
                status(&r, "tests/test_mix.py::TestGroup::test_in_class"),
                "FAILED"
            );
            assert_eq!(r.status_map.len(), 7);
        }
    }

    #[test]
    fn failures_kinds_and_exceptions() {
        let r = parse_junit(MORE9, "tests/test_more.py");
        // Teardown errors make the module an error even though tests also failed.
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(
            status(&r, "tests/test_more.py::test_teardown_fail"),
            "ERROR"
        );
        assert_eq!(
            status(&r, "tests/test_more.py::test_param[x y-x y]"),
            "PASSED"
        );
        assert_eq!(status(&r, "tests/test_more.py::test_param[1-2]"), "FAILED");
        assert_eq!(r.counts.failed, 9);
        assert_eq!(r.counts.errors, 2);

        let doc = roxmltree::Document::parse(MORE9).unwrap();
        let by_test = |name: &str| {
            let case = doc
                .descendants()
                .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
                .unwrap();
            exception_of(case.children().find(|n| n.is_element()).unwrap())
        };
        assert_eq!(
            by_test("test_param[1-2]").as_deref(),
            Some("AssertionError")
        );
        assert_eq!(by_test("test_fail_call").as_deref(), Some("Failed"));
        assert_eq!(by_test("test_custom").as_deref(), Some("test_more.MyErr"));
        assert_eq!(by_test("test_bare_value").as_deref(), Some("ValueError"));
        assert_eq!(by_test("test_chained").as_deref(), Some("TypeError"));
        assert_eq!(by_test("test_exit").as_deref(), Some("SystemExit"));
        assert_eq!(by_test("test_xpass_strict"), None);
    }

    #[test]
    fn failed_module_reports_first_failure() {
        // The mixed module without its fixture error: a plain Failed outcome.
        let xml = MIX9
            .replace("<error ", "<skipped ")
            .replace("</error>", "</skipped>");
        let r = parse_junit(&xml, "tests/test_mix.py");
        assert_eq!(r.outcome, Outcome::Failed);
        assert_eq!(r.failure_kind, Some(FailureKind::Assertion));
        assert_eq!(r.exception.as_deref(), Some("AssertionError"));

        let xml = xml.replacen(
            "<failure message=\"AssertionError: list too short",
            "<skipped message=\"x",
            1,
        );
        let xml = xml.replacen(
            "E    +  where 3 = len([1, 2, 3])</failure>",
            "</skipped>",
            1,
        );
        let r = parse_junit(&xml, "tests/test_mix.py");
        assert_eq!(r.outcome, Outcome::Failed);
        assert_eq!(r.failure_kind, Some(FailureKind::Other));
        assert_eq!(r.exception.as_deref(), Some("ZeroDivisionError"));
    }

    #[test]
    fn collection_errors_are_errors_with_the_module_as_node() {
        let r = parse_junit(IMPORT9, "tests/test_import.py");
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(r.exception.as_deref(), Some("ModuleNotFoundError"));
        assert_eq!(status(&r, "tests/test_import.py"), "ERROR");

        let r = parse_junit(SYNTAX9, "tests/test_syntax.py");
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(r.exception.as_deref(), Some("SyntaxError"));
    }

    #[test]
    fn passing_empty_and_broken_reports() {
        let r = parse_junit(PASS9, "tests/test_pass.py");
        assert_eq!(r.outcome, Outcome::Passed);
        assert_eq!(status(&r, "tests/test_pass.py::test_one"), "PASSED");
        assert_eq!(r.problem, None);

        let r = parse_junit(EMPTY9, "tests/test_empty.py");
        assert_eq!(r.outcome, Outcome::Error);
        assert_eq!(r.problem.as_deref(), Some("no tests collected"));

        let truncated = &PASS9[..PASS9.len() / 2];
        assert_eq!(parse_junit(truncated, "t.py").outcome, Outcome::Error);
        assert_eq!(parse_junit("", "t.py").outcome, Outcome::Error);
        assert_eq!(parse_junit("<html/>", "t.py").outcome, Outcome::Error);
        let missing = read_junit(Path::new("/nonexistent/junit.xml"), "t.py");
        assert_eq!(missing.outcome, Outcome::Error);
        assert!(missing.problem.unwrap().contains("no junit report"));

        let all_skipped = MIX9.replace(
            "<testcase classname=\"tests.test_mix\" name=\"test_ok\" time=\"0.001\" />",
            "",
        );
        let all_skipped = parse_junit(
            &all_skipped
                .replace("<failure", "<skipped")
                .replace("</failure>", "</skipped>")
                .replace("<error", "<skipped")
                .replace("</error>", "</skipped>"),
            "tests/test_mix.py",
        );
        assert_eq!(all_skipped.outcome, Outcome::Error);
    }

    #[test]
    fn node_ids_accept_a_deeper_rootdir() {
        let ids = NodeIds::new("tests/unit/test_x.py");
        assert_eq!(
            ids.node_id("unit.test_x.TestA", "test_b"),
            "tests/unit/test_x.py::TestA::test_b"
        );
        assert_eq!(
            ids.node_id("tests.unit.test_x", "test_c[1]"),
            "tests/unit/test_x.py::test_c[1]"
        );
        assert_eq!(ids.node_id("other.mod", "t"), "other.mod::t");
    }

    #[test]
    fn xpass_comes_from_the_log() {
        let mut r = parse_junit(MORE9, "tests/test_more.py");
        assert_eq!(status(&r, "tests/test_more.py::test_xpass"), "PASSED");
        refine_with_log(&mut r, MORE9_LOG);
        assert_eq!(status(&r, "tests/test_more.py::test_xpass"), "XPASS");
        assert_eq!(
            status(&r, "tests/test_more.py::test_teardown_pass"),
            "ERROR"
        );
    }

    #[test]
    fn exit_code_mismatch_fails_closed() {
        assert_eq!(
            reconcile_exit_code(Outcome::Passed, Some(0)),
            Outcome::Passed
        );
        assert_eq!(
            reconcile_exit_code(Outcome::Passed, Some(1)),
            Outcome::Error
        );
        assert_eq!(
            reconcile_exit_code(Outcome::Failed, Some(1)),
            Outcome::Failed
        );
        assert_eq!(reconcile_exit_code(Outcome::Failed, None), Outcome::Error);
        assert_eq!(reconcile_exit_code(Outcome::Error, Some(2)), Outcome::Error);
    }
}
