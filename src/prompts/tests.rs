//! Tests for rendering every template and for parsing a corpus of ugly model replies
//! (`testdata/replies/`).

use serde_json::json;

use super::*;

fn reply(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/prompts/testdata/replies/");
    std::fs::read_to_string(format!("{path}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const ISSUE: &str = "parse_expr(\"2-3-4\") returns 3 instead of -5: subtraction is parsed \
as right-associative.\n\n```python\n>>> parse_expr(\"2-3-4\")\n3\n```";

fn functions() -> serde_json::Value {
    json!([
        {"file": "calc/parser.py", "qualname": "Parser.parse_binary",
         "body": "def parse_binary(self):\n    left = self.parse_atom()\n    if self.peek() == '-':\n        return left - self.parse_binary()\n    return left"},
        {"file": "calc/parser.py", "qualname": "parse_expr",
         "body": "def parse_expr(text):\n    return Parser(text).parse_binary()"}
    ])
}

fn tests_ctx() -> serde_json::Value {
    json!([
        {"id": "t1", "source": "def test_a():\n    assert parse_expr('2-3-4') == -5", "log": "E   assert 3 == -5"},
        {"id": "t2", "source": "def test_b():\n    assert parse_expr('1-1') == 0", "log": "1 passed"}
    ])
}

fn context(kind: PromptKind) -> serde_json::Value {
    match kind {
        PromptKind::LocalizeFiles => json!({
            "issue": ISSUE, "max_files": 50,
            "files": ["calc/__init__.py", "calc/parser.py", "calc/lexer.py", "tests/test_lexer.py"]}),
        PromptKind::LocalizeFunctions => json!({
            "issue": ISSUE,
            "files": [{"path": "calc/parser.py", "functions": ["Parser.parse_binary", "parse_expr"]},
                      {"path": "calc/lexer.py", "functions": ["Lexer.next_token"]}]}),
        PromptKind::LocalizeRefine => json!({"issue": ISSUE, "functions": functions()}),
        PromptKind::ContextImports => json!({
            "issue": ISSUE, "functions": functions(),
            "imports": ["from calc.parser import Parser, parse_expr", "from .lexer import Lexer"]}),
        PromptKind::ContextLocation => json!({
            "issue": ISSUE, "imports": ["from calc.parser import parse_expr"],
            "locations": ["tests/", "tests/test_lexer.py"],
            "components": ["calc/parser.py::Parser.parse_binary"]}),
        PromptKind::GenerateOne => json!({
            "issue": ISSUE, "functions": functions(),
            "imports": ["from calc.parser import parse_expr"], "test_path": "tests/test_issue.py"}),
        PromptKind::GenerateMany => json!({
            "issue": ISSUE, "functions": functions(), "imports": [],
            "test_path": "tests/test_issue.py", "n": 8}),
        PromptKind::MorphIssue => json!({"issue": ISSUE, "style": "dropCode"}),
        PromptKind::SelectHalf => json!({"issue": ISSUE, "tests": tests_ctx(), "k": 1}),
        PromptKind::Crossover => json!({"issue": ISSUE, "tests": tests_ctx(), "n": 4}),
        PromptKind::Repair => json!({"issue": ISSUE, "test": {
            "id": "t1", "name": "test_a.py", "source": "def test_a():\n    assert parse_expr('2-3-4') == -5",
            "log": "E   assert 3 == -5"}}),
    }
}

#[test]
fn every_template_renders_with_system_and_user_parts() {
    let prompts = Prompts::builtin().unwrap();
    for kind in PromptKind::ALL {
        let r = prompts.render(kind, &context(kind)).unwrap();
        let system = r
            .system
            .as_deref()
            .unwrap_or_else(|| panic!("{kind}: no system"));
        assert!(!system.contains("{{") && !system.contains("{#"), "{kind}");
        assert!(
            r.user.contains("parse_expr(\"2-3-4\") returns 3"),
            "{kind}: issue missing"
        );
        assert!(!r.user.contains("=== user ==="), "{kind}");
        assert!(
            !r.user.contains("{{") && !r.user.contains("{%"),
            "{kind}: {}",
            r.user
        );
        assert_eq!(prompts.origin(kind), &PromptOrigin::BuiltIn);
        assert!(
            prompts.source(kind).contains("Variables:"),
            "{kind}: undocumented"
        );
    }
}

/// Laid out for prefix caching, so a provider reads what the steps' prompts share from its
/// cache instead of processing it again: every built-in template renders the same system
/// text and then the issue first, byte for byte, and the three that show the localized
/// functions show them next, the same way; each step's own text comes after.
#[test]
fn every_template_starts_with_the_shared_prefix() {
    let prompts = Prompts::builtin().unwrap();
    let rendered: Vec<_> = PromptKind::ALL
        .iter()
        .map(|k| (*k, prompts.render(*k, &context(*k)).unwrap()))
        .collect();
    let issue = format!(
        "An issue was reported against a Python repository:\n\n<issue>\n{ISSUE}\n</issue>\n"
    );
    for (kind, r) in &rendered {
        assert_eq!(
            r.system, rendered[0].1.system,
            "{kind}: another system text"
        );
        assert!(r.user.starts_with(&issue), "{kind}: {}", r.user);
    }
    let with_functions: Vec<&String> = rendered
        .iter()
        .filter(|(k, _)| {
            matches!(
                k,
                PromptKind::ContextImports | PromptKind::GenerateOne | PromptKind::GenerateMany
            )
        })
        .map(|(_, r)| &r.user)
        .collect();
    let end = |u: &str| u.find("</functions>\n").map(|i| i + "</functions>\n".len());
    let first = &with_functions[0][..end(with_functions[0]).unwrap()];
    for u in &with_functions {
        assert!(u.starts_with(first), "{u}");
    }
    // The cache points are where those prefixes end: after the issue, and after the
    // functions where a template shows them.
    for (kind, r) in &rendered {
        assert_eq!(r.cache_points.first(), Some(&issue.len()), "{kind}");
        if with_functions.contains(&&r.user) {
            let e = end(&r.user).unwrap();
            assert_eq!(r.cache_points, [issue.len(), e], "{kind}");
        } else {
            assert_eq!(r.cache_points, [issue.len()], "{kind}");
        }
        assert!(!r.user.contains("==="), "{kind}: a marker left in the text");
    }
}

#[test]
fn rendered_templates_carry_their_key_parts() {
    let p = Prompts::builtin().unwrap();
    let r = |k: PromptKind| p.render(k, &context(k)).unwrap().user;

    let files = r(PromptKind::LocalizeFiles);
    assert!(files.contains("all 4 Python files"));
    assert!(files.contains("\ncalc/lexer.py\n"));
    assert!(files.contains("at most 50 files"));
    assert!(files.contains("```json"));

    let funcs = r(PromptKind::LocalizeFunctions);
    assert!(funcs.contains("### calc/parser.py\n- Parser.parse_binary\n- parse_expr\n"));
    assert!(funcs.contains("FILE::QUALNAME"));

    let refine = r(PromptKind::LocalizeRefine);
    assert!(
        refine.contains("### calc/parser.py::Parser.parse_binary\n```python\ndef parse_binary")
    );

    let imports = r(PromptKind::ContextImports);
    assert!(imports.contains("from .lexer import Lexer\n"));
    assert!(imports.contains("return Parser(text).parse_binary()"));

    let loc = r(PromptKind::ContextLocation);
    assert!(loc.contains("    tests/test_lexer.py\n"));
    assert!(loc.contains("    calc/parser.py::Parser.parse_binary\n"));
    assert!(loc.contains("TEST_FILE:"));

    let one = r(PromptKind::GenerateOne);
    assert!(one.contains("saved as `tests/test_issue.py`"));
    assert!(one.contains("```python\nfrom calc.parser import parse_expr\n```"));
    assert!(one.contains("FAIL on the current code"));

    let many = r(PromptKind::GenerateMany);
    assert!(many.contains("Write 8 different pytest test files"));
    assert!(many.contains("exactly 8 sections"));
    // Masked imports leave no empty section behind.
    assert!(!many.contains("Imports that are likely useful"));

    let morph = r(PromptKind::MorphIssue);
    assert!(morph.contains("Style: dropCode."));
    assert!(!morph.contains("Style: standard."));

    let select = r(PromptKind::SelectHalf);
    assert!(select.contains("<test id=\"t2\">"));
    assert!(select.contains("```text\nE   assert 3 == -5\n```"));
    assert!(select.contains("exactly 1 test ids"));
    assert!(select.contains("[\"t1\"]"));

    let cross = r(PromptKind::Crossover);
    assert!(cross.contains("interchange, add\nor remove statements"));
    assert!(cross.contains("exactly 4 sections"));
    assert!(cross.contains("1 passed"));
}

#[test]
fn every_morph_style_renders_its_own_instructions() {
    let p = Prompts::builtin().unwrap();
    for style in MorphStyle::ALL {
        let r = p
            .render(
                PromptKind::MorphIssue,
                &json!({"issue": "x", "style": style}),
            )
            .unwrap();
        assert!(
            r.user.contains(&format!("Style: {}.", style.name())),
            "{style:?}"
        );
    }
    let err = p
        .render(
            PromptKind::MorphIssue,
            &json!({"issue": "x", "style": "poetic"}),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("unknown morph style `poetic`"),
        "{err}"
    );
}

#[test]
fn missing_variable_is_named() {
    let p = Prompts::builtin().unwrap();
    let err = p
        .render(
            PromptKind::GenerateMany,
            &json!({"issue": "x", "functions": [], "imports": [], "test_path": "t.py"}),
        )
        .unwrap_err();
    match &err {
        PromptError::MissingVariable {
            template, variable, ..
        } => {
            assert_eq!(template, "generate_many.j2");
            assert_eq!(variable, "n");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("`n`"));
}

#[test]
fn missing_field_fails_with_template_name() {
    let p = Prompts::builtin().unwrap();
    let ctx = json!({"issue": "x", "tests": [{"id": "t1", "source": "s"}], "k": 1});
    let err = p.render(PromptKind::SelectHalf, &ctx).unwrap_err();
    assert!(matches!(err, PromptError::Render { .. }), "{err:?}");
    assert!(err.to_string().contains("select_half"), "{err}");
}

#[test]
fn non_object_context_is_rejected() {
    let p = Prompts::builtin().unwrap();
    let err = p.render(PromptKind::MorphIssue, &json!(["x"])).unwrap_err();
    assert!(matches!(err, PromptError::Context { .. }), "{err:?}");
}

#[test]
fn serializable_struct_works_as_context() {
    #[derive(serde::Serialize)]
    struct Morph<'a> {
        issue: &'a str,
        style: MorphStyle,
    }
    let p = Prompts::builtin().unwrap();
    let r = p
        .render(
            PromptKind::MorphIssue,
            &Morph {
                issue: "bug",
                style: MorphStyle::InitTest,
            },
        )
        .unwrap();
    assert!(r.user.contains("## Initial test"));
}

#[test]
fn user_override_takes_effect_and_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("morph_issue.j2");
    std::fs::write(
        &path,
        "Be terse.\n=== user ===\nRewrite {{ issue }} as {{ style }}.\n",
    )
    .unwrap();
    let p = Prompts::load(Some(dir.path())).unwrap();
    assert_eq!(
        p.origin(PromptKind::MorphIssue),
        &PromptOrigin::Overridden { path: path.clone() }
    );
    assert!(p.source(PromptKind::MorphIssue).starts_with("Be terse."));
    assert_eq!(p.origin(PromptKind::Crossover), &PromptOrigin::BuiltIn);
    let r = p
        .render(
            PromptKind::MorphIssue,
            &json!({"issue": "bug", "style": "simple"}),
        )
        .unwrap();
    assert_eq!(r.system.as_deref(), Some("Be terse."));
    assert_eq!(r.user, "Rewrite bug as simple.");
}

#[test]
fn a_users_template_that_breaks_the_shared_prefix_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = PromptKind::Crossover.builtin();
    // Its own comment and an instruction after the shared part keep the prefix.
    let kept = format!(
        "{{# mine #}}\n{}",
        builtin.replace("Write ", "Please write ")
    );
    assert_ne!(kept, builtin);
    std::fs::write(dir.path().join("crossover.j2"), &kept).unwrap();
    // A house rule before the issue, or no cache line at all, breaks it.
    let before = PromptKind::SelectHalf
        .builtin()
        .replace("=== user ===\n", "=== user ===\nHOUSE RULE\n");
    std::fs::write(dir.path().join("select_half.j2"), before).unwrap();
    let none = PromptKind::GenerateOne
        .builtin()
        .replace("=== cache ===\n", "");
    std::fs::write(dir.path().join("generate_one.j2"), none).unwrap();
    let p = Prompts::load(Some(dir.path())).unwrap();
    assert!(!p.breaks_shared_prefix(PromptKind::Crossover));
    assert!(p.breaks_shared_prefix(PromptKind::SelectHalf));
    assert!(p.breaks_shared_prefix(PromptKind::GenerateOne));
    assert!(!p.breaks_shared_prefix(PromptKind::LocalizeFiles));
    let yours = p.yours(PromptKind::SelectHalf).unwrap();
    assert!(
        yours.starts_with("prompts/select_half.j2 of yours (")
            && yours.ends_with(": no shared prefix, no caching"),
        "{yours}"
    );
    assert!(!p.yours(PromptKind::Crossover).unwrap().contains("caching"));
    assert_eq!(p.yours(PromptKind::MorphIssue), None);
}

#[test]
fn broken_override_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("crossover.j2"), "{% for t in tests %}oops").unwrap();
    let err = Prompts::load(Some(dir.path())).unwrap_err();
    assert!(matches!(err, PromptError::Syntax { .. }), "{err:?}");
    assert!(err.to_string().contains("crossover.j2"), "{err}");
}

#[test]
fn missing_override_dir_falls_back_to_builtin() {
    let p = Prompts::load(Some(std::path::Path::new("/nonexistent/evootter/prompts"))).unwrap();
    assert!(
        PromptKind::ALL
            .iter()
            .all(|k| *p.origin(*k) == PromptOrigin::BuiltIn)
    );
}

#[test]
fn without_marker_everything_is_user() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("select_half.j2"), "Pick {{ k }}.\n").unwrap();
    let p = Prompts::load(Some(dir.path())).unwrap();
    let r = p.render(PromptKind::SelectHalf, &json!({"k": 2})).unwrap();
    assert_eq!(
        r,
        RenderedPrompt {
            system: None,
            user: "Pick 2.".into(),
            cache_points: vec![],
        }
    );
}

#[test]
fn kind_names_match_serde_and_files() {
    for kind in PromptKind::ALL {
        let serde_name = serde_json::to_value(kind).unwrap();
        assert_eq!(serde_name, json!(kind.name()));
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/");
        assert!(std::path::Path::new(&format!("{file}{}", kind.file_name())).is_file());
    }
    assert_eq!(
        serde_json::to_value(MorphStyle::DropCode).unwrap(),
        json!("dropCode")
    );
}

// ---- reply corpus ----

fn names(p: &ParsedTests) -> Vec<Option<&str>> {
    p.tests.iter().map(|t| t.name.as_deref()).collect()
}

fn has_problem(p: &ParsedTests, needle: &str) -> bool {
    p.problems.iter().any(|m| m.contains(needle))
}

#[test]
fn corpus_single_tests() {
    for (file, fname) in [
        (
            "01_fenced_single.txt",
            "test_subtraction_is_left_associative",
        ),
        ("02_prose_wrapped.txt", "test_left_assoc"),
        ("03_unfenced_code.txt", "test_unfenced"),
        ("04_unfenced_with_prose.txt", "test_unfenced_prose"),
        ("05_truncated_fence.txt", "test_truncated"),
        ("06_crlf.txt", "test_crlf"),
    ] {
        let p = parse_tests(&reply(file), 1);
        assert_eq!(p.tests.len(), 1, "{file}: {p:?}");
        assert!(p.problems.is_empty(), "{file}: {:?}", p.problems);
        let src = &p.tests[0].source;
        assert!(src.starts_with("import pytest\n"), "{file}: {src:?}");
        assert!(src.contains(&format!("def {fname}():")), "{file}");
        assert!(src.ends_with("== -5\n"), "{file}: {src:?}");
        assert!(
            !src.contains('\r') && !src.contains("```") && !src.contains("This test"),
            "{file}"
        );
    }
}

#[test]
fn corpus_multiple_tests_with_headers() {
    let p = parse_tests(&reply("07_three_with_headers.txt"), 3);
    assert_eq!(
        names(&p),
        [
            Some("test_issue_1.py"),
            Some("test_issue_2.py"),
            Some("test_issue_3.py")
        ]
    );
    assert!(p.problems.is_empty());

    let p = parse_tests(&reply("08_file_comment_headers.txt"), 2);
    assert_eq!(
        names(&p),
        [Some("tests/test_c1.py"), Some("tests/test_c2.py")]
    );

    let p = parse_tests(&reply("18_tilde_and_indented.txt"), 2);
    assert_eq!(p.tests.len(), 2, "{p:?}");
    assert!(
        p.tests[0]
            .source
            .contains("\ndef test_indented():\n    assert")
    );
    assert!(p.tests[1].source.contains("def test_tilde"));
}

#[test]
fn corpus_extra_tests_are_cut() {
    let p = parse_tests(&reply("09_bold_headers_and_extra.txt"), 3);
    assert_eq!(
        names(&p),
        [
            Some("test_bold_1.py"),
            Some("test_bold_2.py"),
            Some("test_bold_3.py")
        ]
    );
    assert_eq!(p.problems, ["asked for 3 tests, got 4; kept the first 3"]);

    let p = parse_tests(&reply("33_crossover_extra.txt"), 4);
    assert_eq!(p.tests.len(), 4);
    assert!(has_problem(&p, "got 6"));
}

#[test]
fn corpus_fewer_tests_keep_what_parsed() {
    let p = parse_tests(&reply("10_fewer_tests.txt"), 8);
    assert_eq!(names(&p), [Some("test_few_1.py"), Some("test_few_2.py")]);
    assert_eq!(p.problems, ["asked for 8 tests, got 2"]);
}

#[test]
fn corpus_non_python_and_broken_blocks() {
    let p = parse_tests(&reply("11_not_python_block.txt"), 2);
    assert_eq!(names(&p), [Some("test_a.py"), Some("test_b.py")]);
    assert!(p.problems.is_empty(), "{:?}", p.problems);

    let p = parse_tests(&reply("12_unbalanced_block.txt"), 2);
    assert_eq!(names(&p), [Some("test_ok.py")]);
    assert!(
        has_problem(&p, "block 2 is not a valid Python test file"),
        "{:?}",
        p.problems
    );
    assert!(
        has_problem(&p, "`(` opened on line 6 is never closed"),
        "{:?}",
        p.problems
    );
    assert!(has_problem(&p, "asked for 2 tests, got 1"));

    let p = parse_tests(&reply("13_no_test_function.txt"), 1);
    assert!(p.tests.is_empty());
    assert!(has_problem(&p, "no `def test_...`"), "{:?}", p.problems);

    let p = parse_tests(&reply("32_unterminated_string.txt"), 1);
    assert!(p.tests.is_empty());
    assert!(
        has_problem(&p, "unterminated string starting on line 4"),
        "{:?}",
        p.problems
    );
}

#[test]
fn corpus_empty_and_refusal() {
    let p = parse_tests(&reply("14_empty.txt"), 8);
    assert!(p.tests.is_empty());
    assert_eq!(p.problems, ["asked for 8 tests, got an empty reply"]);

    let p = parse_tests(&reply("15_refusal.txt"), 1);
    assert!(p.tests.is_empty());
    assert!(
        has_problem(&p, "got no Python code: I'm sorry"),
        "{:?}",
        p.problems
    );
    assert!(extract_python_blocks(&reply("15_refusal.txt")).is_empty());

    let ids = ["t1".to_string()];
    assert_eq!(
        parse_id_list(&reply("14_empty.txt"), &ids),
        Err(ParseError::Empty)
    );
    assert!(matches!(
        parse_id_list(&reply("15_refusal.txt"), &ids),
        Err(ParseError::NoIds { .. })
    ));
    assert!(parse_paths(&reply("15_refusal.txt")).is_empty());
    assert!(parse_focal(&reply("14_empty.txt")).is_empty());
    assert_eq!(parse_single_path(""), Err(ParseError::Empty));
}

#[test]
fn corpus_duplicates_and_bare_fences() {
    let p = parse_tests(&reply("16_duplicate_blocks.txt"), 2);
    assert_eq!(names(&p), [Some("test_d1.py")]);
    assert!(has_problem(&p, "block 2 repeats an earlier test"));

    // The bare fence with pytest output is not taken for code.
    let blocks = extract_python_blocks(&reply("17_bare_fences.txt"));
    assert_eq!(blocks.len(), 1);
    assert!(blocks[0].contains("def test_bare_1"));
}

fn ids(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("t{i}")).collect()
}

#[test]
fn corpus_id_lists() {
    let r = parse_id_list(&reply("19_ids_json_in_markdown.txt"), &ids(8)).unwrap();
    assert_eq!(r.ids, ["t1", "t3", "t4", "t8"]);
    assert!(r.notes.is_empty());

    let r = parse_id_list(&reply("20_ids_bulleted.txt"), &ids(8)).unwrap();
    assert_eq!(r.ids, ["t3", "t1", "t6"]);

    let r = parse_id_list(&reply("21_ids_unknown_and_numbers.txt"), &ids(8)).unwrap();
    assert_eq!(r.ids, ["t1", "t4", "t2"]);
    assert_eq!(
        r.notes,
        ["dropped unknown id `t42`", "id `t4` was named twice"]
    );

    // The last list is the answer; the first was an example.
    let r = parse_id_list(&reply("22_ids_two_lists.txt"), &ids(8)).unwrap();
    assert_eq!(r.ids, ["t2", "t6"]);
}

#[test]
fn corpus_paths() {
    assert_eq!(
        parse_paths(&reply("23_paths_json.txt")),
        ["calc/parser.py", "calc/lexer.py", "tests/test_parser.py"]
    );
    assert_eq!(
        parse_paths(&reply("24_paths_numbered.txt")),
        ["calc/parser.py", "calc/ast.py", "calc/eval.py"]
    );
}

#[test]
fn corpus_focal() {
    assert_eq!(
        parse_focal(&reply("25_focal_messy.txt")),
        [
            "calc/parser.py::Parser.parse_binary",
            "calc/parser.py::parse_expr",
            "calc/lexer.py::Lexer.next_token"
        ]
    );
    assert_eq!(
        parse_focal(&reply("26_focal_json.txt")),
        [
            "calc/parser.py::Parser.parse_binary",
            "calc/eval.py::evaluate"
        ]
    );
}

#[test]
fn corpus_single_path() {
    assert_eq!(
        parse_single_path(&reply("27_single_path_marked.txt")).unwrap(),
        "tests/test_parser_issue.py"
    );
    assert_eq!(
        parse_single_path(&reply("28_single_path_bare.txt")).unwrap(),
        "tests/unit/test_subtraction.py"
    );
    assert_eq!(
        parse_single_path(&reply("29_single_path_absolute.txt")).unwrap(),
        "abs/tests/test_x.py"
    );
    assert!(matches!(
        parse_single_path(&reply("30_single_path_dir_only.txt")),
        Err(ParseError::NoPath { .. })
    ));
    // Prose first naming an existing test file, the chosen path on a line of its own last
    // (the demo's recorded reply): the path on its own line, not the one in the prose.
    assert_eq!(
        parse_single_path(&reply("34_single_path_after_prose.txt")).unwrap(),
        "tests/test_settings_invalid_values.py"
    );
    assert_eq!(
        parse_single_path(&reply("35_single_path_code_span_at_end.txt")).unwrap(),
        "tests/test_parser_regression.py"
    );
    assert_eq!(
        parse_single_path(&reply("36_single_path_line_then_note.txt")).unwrap(),
        "tests/unit/test_rounding_issue.py"
    );
}

#[test]
fn corpus_imports() {
    assert_eq!(
        parse_imports(&reply("31_imports_block.txt")),
        [
            "import pytest",
            "from calc.parser import (parse_expr, Parser)",
            "from calc.lexer import Lexer"
        ]
    );
}

#[test]
fn corpus_has_at_least_25_replies_and_none_panics() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/prompts/testdata/replies");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let all = ids(8);
        let _ = (
            parse_tests(&text, 8),
            parse_id_list(&text, &all),
            parse_paths(&text),
            parse_focal(&text),
            parse_single_path(&text),
            parse_imports(&text),
        );
        n += 1;
    }
    assert!(n >= 25, "{n}");
}

#[test]
fn adversarial_inputs_do_not_panic() {
    let weird = [
        "```",
        "```python",
        "```\n```",
        "[",
        "[\"",
        "[1,",
        "::",
        "a.py::",
        "é.py::ñ",
        "'''",
        "\"\"\"\ndef test_x(): pass",
        "~~~~",
        "# file:",
        "\r\r\n",
        "from x import (",
        "]]][[[",
        "TEST_FILE:",
        "1.",
        "#",
        "````python\ndef test_x():\n    pass\n````",
    ];
    for w in weird {
        let _ = parse_tests(w, 2);
        let _ = parse_id_list(w, &ids(2));
        let _ = parse_paths(w);
        let _ = parse_focal(w);
        let _ = parse_single_path(w);
        let _ = parse_imports(w);
        let _ = extract_python_blocks(w);
    }
}

#[test]
fn marker_inside_an_issue_does_not_move_the_split() {
    let p = Prompts::builtin().unwrap();
    let ctx = json!({"issue": "text\n=== user ===\nmore", "style": "simple"});
    let r = p.render(PromptKind::MorphIssue, &ctx).unwrap();
    assert!(!r.system.unwrap().contains("text"));
    assert!(r.user.contains("text\n=== user ===\nmore"));
}
