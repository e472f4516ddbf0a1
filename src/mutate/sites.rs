//! The mutation rules of paper Table I: every place in one function where a rule applies,
//! as byte-range replacements. The generator draws from these at random.

use super::types::MutantKind;
use crate::python::{FunctionSite, parse, text};
use sha2::{Digest, Sha256};
use tree_sitter::{Node, Tree};

/// The statement the force-failure rule inserts (Table I).
pub const FORCE_FAILURE: &str = r#"raise Exception("Force failure mutant")"#;

/// One applicable mutation: replace `start..end` of the file with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Stable id, the same as the [`super::Mutant`] made from it.
    pub id: String,
    pub kind: MutantKind,
    pub start: usize,
    pub end: usize,
    /// 1-based line the mutated code lands on.
    pub line: usize,
    pub original: String,
    pub replacement: String,
}

/// Every applicable mutation of every kind inside the definition of `site` (parameters and
/// body, nested definitions included; decorators and type annotations excluded), ordered by
/// kind, then position. No-op replacements are left out; whether the result parses is checked
/// by the generator.
pub fn candidate_sites(source: &str, file: &str, site: &FunctionSite) -> Vec<Candidate> {
    candidate_sites_in(&parse(source), source, file, site)
}

/// [`candidate_sites`] with the tree of `source` already parsed.
pub fn candidate_sites_in(
    tree: &Tree,
    source: &str,
    file: &str,
    site: &FunctionSite,
) -> Vec<Candidate> {
    let Some(func) = site.node(tree) else {
        return Vec::new();
    };
    let mut raw: Vec<(MutantKind, usize, usize, String)> = Vec::new();
    // (node, inside a string literal whose pieces must not be replaced on their own)
    let mut stack = vec![(func, false)];
    while let Some((node, in_literal)) = stack.pop() {
        if node.kind() == "type" || is_docstring(node) {
            continue;
        }
        rules(source, node, in_literal, &mut raw);
        let child_in_literal = in_literal || is_string(node.kind());
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, child_in_literal)));
    }
    if let Some((start, repl)) = force_failure(source, func) {
        raw.push((MutantKind::ForceFailure, start, start, repl));
    }
    raw.retain(|(_, start, end, repl)| source[*start..*end] != **repl);
    raw.sort();
    raw.dedup();
    // Lines counted once, not per candidate: a large file has thousands of candidates.
    let newlines: Vec<usize> = source.match_indices('\n').map(|(i, _)| i).collect();
    raw.into_iter()
        .map(|(kind, start, end, replacement)| {
            // The inserted raise after a docstring starts on the line below the insertion.
            let line = newlines.partition_point(|&nl| nl < start)
                + 1
                + usize::from(replacement.starts_with(['\r', '\n']));
            Candidate {
                id: mutant_id(file, &site.qualname, kind, start, end, &replacement),
                kind,
                start,
                end,
                line,
                original: source[start..end].to_string(),
                replacement,
            }
        })
        .collect()
}

/// `m` + 10 hex digits of SHA-256 over the identifying fields, stable across runs.
pub fn mutant_id(
    file: &str,
    function: &str,
    kind: MutantKind,
    start: usize,
    end: usize,
    replacement: &str,
) -> String {
    let key = format!("{file}\0{function}\0{kind}\0{start}\0{end}\0{replacement}");
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("m{}", &hex[..10])
}

/// The rules that apply at `node` itself (not its descendants).
fn rules(
    source: &str,
    node: Node,
    in_literal: bool,
    out: &mut Vec<(MutantKind, usize, usize, String)>,
) {
    let mut token = |kind: MutantKind, op: Node, repl: &str| {
        out.push((kind, op.start_byte(), op.end_byte(), repl.to_string()));
    };
    match node.kind() {
        "binary_operator" => {
            if let Some(op) = node.child_by_field_name("operator") {
                let repl = match op.kind() {
                    "+" => "-",
                    "-" => "+",
                    "*" => "/",
                    "/" | "//" | "%" | "**" => "*",
                    _ => return,
                };
                token(MutantKind::BinaryArithmetic, op, repl);
            }
        }
        "unary_operator" => {
            // `-0` and `+0` are the same number, so swapping their sign changes nothing.
            if node
                .child_by_field_name("argument")
                .is_some_and(|a| is_number(a.kind()) && is_zero(text(source, a)))
            {
                return;
            }
            if let Some(op) = node.child_by_field_name("operator") {
                let repl = match op.kind() {
                    "-" => "+",
                    "+" => "-",
                    _ => return,
                };
                token(MutantKind::UnaryArithmetic, op, repl);
            }
        }
        "comparison_operator" => {
            let mut cursor = node.walk();
            let ops: Vec<Node> = node
                .children_by_field_name("operators", &mut cursor)
                .collect();
            for op in ops {
                let repls: &[&str] = match op.kind() {
                    "<" => &["<=", ">"],
                    "<=" => &["<", ">"],
                    ">" => &[">=", "<"],
                    ">=" => &[">", "<"],
                    "==" => &["!=", ">"],
                    "!=" => &["=="],
                    "in" => &["not in"],
                    "not in" => &["in"],
                    "is" => &["is not"],
                    "is not" => &["is"],
                    _ => &[],
                };
                for repl in repls {
                    token(MutantKind::BinaryRelational, op, repl);
                }
            }
        }
        "boolean_operator" => {
            if let Some(op) = node.child_by_field_name("operator") {
                let repl = match op.kind() {
                    "and" => "or",
                    "or" => "and",
                    _ => return,
                };
                token(MutantKind::BinaryLogical, op, repl);
            }
        }
        "not_operator" => {
            if let Some(arg) = node.child_by_field_name("argument") {
                let repl = text(source, arg);
                token(MutantKind::UnaryLogical, node, repl);
            }
        }
        "integer" | "float" => {
            let repl = if is_zero(text(source, node)) {
                "1"
            } else {
                "0"
            };
            token(MutantKind::ConstantReplacement, node, repl);
        }
        "true" => token(MutantKind::ConstantReplacement, node, "False"),
        "false" => token(MutantKind::ConstantReplacement, node, "True"),
        "string" | "concatenated_string" if !in_literal => {
            if let Some(repl) = empty_string(source, node) {
                token(MutantKind::ConstantReplacement, node, repl);
            }
        }
        "return_statement" => {
            if let Some(value) = node.named_child(0)
                && !is_none(source, value)
            {
                token(MutantKind::ReturnValue, value, "None");
            }
        }
        "assignment" => {
            if let Some(right) = node.child_by_field_name("right")
                && !is_none(source, right)
            {
                token(MutantKind::Assignment, right, "None");
            }
        }
        _ => {}
    }
}

fn is_string(kind: &str) -> bool {
    kind == "string" || kind == "concatenated_string"
}

fn is_number(kind: &str) -> bool {
    kind == "integer" || kind == "float"
}

fn is_none(source: &str, node: Node) -> bool {
    node.kind() == "none" || text(source, node).trim_matches(['(', ')', ' ']) == "None"
}

/// Whether a numeric literal is zero (`0`, `0.0`, `0x0`, `0e5`, `0j`, `0_0`).
fn is_zero(literal: &str) -> bool {
    let t = literal.to_ascii_lowercase().replace('_', "");
    let t = t.trim_end_matches(['j', 'l']);
    let digits = match t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0o"))
        .or_else(|| t.strip_prefix("0b"))
    {
        Some(rest) => rest,
        None => t.split('e').next().unwrap_or(t),
    };
    !digits.is_empty() && digits.chars().all(|c| c == '0' || c == '.')
}

/// The empty literal to put in place of a non-empty plain string (or implicit concatenation
/// of them), keeping it bytes if it was bytes. `None` for f-strings (their pieces are code,
/// and quotes inside them are version-sensitive) and for strings that are already empty.
fn empty_string(source: &str, node: Node) -> Option<&'static str> {
    let parts: Vec<Node> = if node.kind() == "concatenated_string" {
        let mut cursor = node.walk();
        node.named_children(&mut cursor)
            .filter(|c| c.kind() == "string")
            .collect()
    } else {
        vec![node]
    };
    let mut bytes = false;
    let mut non_empty = false;
    for part in parts {
        let mut cursor = part.walk();
        for child in part.children(&mut cursor) {
            match child.kind() {
                "string_start" => {
                    let prefix = text(source, child).trim_end_matches(['"', '\'']);
                    if prefix.contains(['f', 'F', 't', 'T']) {
                        return None;
                    }
                    bytes |= prefix.contains(['b', 'B']);
                }
                "string_end" => {}
                _ => non_empty = true,
            }
        }
    }
    non_empty.then_some(if bytes { "b\"\"" } else { "\"\"" })
}

/// The first statement of a function or class body that is a bare string literal.
fn is_docstring(node: Node) -> bool {
    if node.kind() != "expression_statement"
        || node.named_child_count() != 1
        || !node.named_child(0).is_some_and(|c| is_string(c.kind()))
    {
        return false;
    }
    let Some(block) = node.parent().filter(|p| p.kind() == "block") else {
        return false;
    };
    let owner_is_def = block
        .parent()
        .is_some_and(|p| matches!(p.kind(), "function_definition" | "class_definition"));
    owner_is_def && first_statement(block) == Some(node)
}

fn first_statement(block: Node) -> Option<Node> {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .find(|c| c.kind() != "comment")
}

/// Where and what to insert so the function raises before anything else runs.
fn force_failure(source: &str, func: Node) -> Option<(usize, String)> {
    let body = func.child_by_field_name("body")?;
    let first = first_statement(body)?;
    let line_start = source[..first.start_byte()]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent = &source[line_start..first.start_byte()];
    if !indent.chars().all(|c| matches!(c, ' ' | '\t' | '\x0c')) {
        // A body on the `def` line holds only simple statements, joined with `;`.
        return Some((first.start_byte(), format!("{FORCE_FAILURE}; ")));
    }
    // Keep a CRLF file CRLF.
    let newline = if source[..line_start].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    if is_docstring(first) {
        // The docstring keeps documenting the function.
        return Some((
            first.end_byte(),
            format!("{newline}{indent}{FORCE_FAILURE}"),
        ));
    }
    Some((
        first.start_byte(),
        format!("{FORCE_FAILURE}{newline}{indent}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::locate;

    /// Each mutant of `kind` in `qualname`, as the whole mutated source.
    fn mutants(src: &str, qualname: &str, kind: MutantKind) -> Vec<String> {
        let site = locate(src, qualname).unwrap();
        candidate_sites(src, "m.py", &site)
            .into_iter()
            .filter(|c| c.kind == kind)
            .map(|c| format!("{}{}{}", &src[..c.start], c.replacement, &src[c.end..]))
            .collect()
    }

    #[test]
    fn binary_arithmetic_swaps_each_operator_token() {
        let src = "def f(a, b):\n    return a + b - a * b / a // b % a ** b\n";
        assert_eq!(
            mutants(src, "f", MutantKind::BinaryArithmetic),
            [
                "def f(a, b):\n    return a - b - a * b / a // b % a ** b\n",
                "def f(a, b):\n    return a + b + a * b / a // b % a ** b\n",
                "def f(a, b):\n    return a + b - a / b / a // b % a ** b\n",
                "def f(a, b):\n    return a + b - a * b * a // b % a ** b\n",
                "def f(a, b):\n    return a + b - a * b / a * b % a ** b\n",
                "def f(a, b):\n    return a + b - a * b / a // b * a ** b\n",
                "def f(a, b):\n    return a + b - a * b / a // b % a * b\n",
            ]
        );
        // Bitwise and matrix operators are not arithmetic in Table I's sense.
        assert!(
            mutants(
                "def g(a):\n    return a | a @ a\n",
                "g",
                MutantKind::BinaryArithmetic
            )
            .is_empty()
        );
    }

    #[test]
    fn unary_arithmetic_flips_the_sign() {
        let src = "def f(x):\n    return -x, +x, -5, -0, ~x\n";
        assert_eq!(
            mutants(src, "f", MutantKind::UnaryArithmetic),
            [
                "def f(x):\n    return +x, +x, -5, -0, ~x\n",
                "def f(x):\n    return -x, -x, -5, -0, ~x\n",
                "def f(x):\n    return -x, +x, +5, -0, ~x\n",
            ]
        );
    }

    #[test]
    fn binary_relational_follows_table_one() {
        let src = "def f(x, y):\n    return x == y\n";
        assert_eq!(
            mutants(src, "f", MutantKind::BinaryRelational),
            [
                "def f(x, y):\n    return x != y\n",
                "def f(x, y):\n    return x > y\n"
            ]
        );
        let src = "def g(x, y):\n    return x < y <= x and x not in y and x is not y\n";
        assert_eq!(
            mutants(src, "g", MutantKind::BinaryRelational),
            [
                "def g(x, y):\n    return x <= y <= x and x not in y and x is not y\n",
                "def g(x, y):\n    return x > y <= x and x not in y and x is not y\n",
                "def g(x, y):\n    return x < y < x and x not in y and x is not y\n",
                "def g(x, y):\n    return x < y > x and x not in y and x is not y\n",
                "def g(x, y):\n    return x < y <= x and x in y and x is not y\n",
                "def g(x, y):\n    return x < y <= x and x not in y and x is y\n",
            ]
        );
        let src = "def h(x, y):\n    return x > y, x >= y, x != y, x in y, x is y\n";
        assert_eq!(
            mutants(src, "h", MutantKind::BinaryRelational),
            [
                "def h(x, y):\n    return x < y, x >= y, x != y, x in y, x is y\n",
                "def h(x, y):\n    return x >= y, x >= y, x != y, x in y, x is y\n",
                "def h(x, y):\n    return x > y, x < y, x != y, x in y, x is y\n",
                "def h(x, y):\n    return x > y, x > y, x != y, x in y, x is y\n",
                "def h(x, y):\n    return x > y, x >= y, x == y, x in y, x is y\n",
                "def h(x, y):\n    return x > y, x >= y, x != y, x not in y, x is y\n",
                "def h(x, y):\n    return x > y, x >= y, x != y, x in y, x is not y\n",
            ]
        );
    }

    #[test]
    fn binary_logical_swaps_and_or() {
        let src = "def f(a, b, c):\n    return a and b or c\n";
        assert_eq!(
            mutants(src, "f", MutantKind::BinaryLogical),
            [
                "def f(a, b, c):\n    return a or b or c\n",
                "def f(a, b, c):\n    return a and b and c\n",
            ]
        );
    }

    #[test]
    fn unary_logical_drops_not() {
        let src = "def f(condition):\n    if not condition:\n        return not (condition)\n";
        assert_eq!(
            mutants(src, "f", MutantKind::UnaryLogical),
            [
                "def f(condition):\n    if condition:\n        return not (condition)\n",
                "def f(condition):\n    if not condition:\n        return (condition)\n",
            ]
        );
    }

    #[test]
    fn constant_replacement_zeroes_numbers_flips_bools_and_empties_strings() {
        let src = "def f(n=3):\n    \"\"\"Doc.\"\"\"\n    x = 5\n    y = 0.0\n    z = True\n    s = 'abc'\n    b = b\"xy\"\n    e = ''\n    g = f\"{n}\"\n    c = (\"a\" \"b\")\n    return None\n";
        let got = mutants(src, "f", MutantKind::ConstantReplacement);
        let want: Vec<String> = [
            ("n=3", "n=0"),
            ("x = 5", "x = 0"),
            ("y = 0.0", "y = 1"),
            ("z = True", "z = False"),
            ("s = 'abc'", "s = \"\""),
            ("b = b\"xy\"", "b = b\"\""),
            ("(\"a\" \"b\")", "(\"\")"),
        ]
        .iter()
        .map(|(from, to)| src.replacen(from, to, 1))
        .collect();
        assert_eq!(got, want);
        // Table I's own example.
        assert_eq!(
            mutants("def g():\n    x=5\n", "g", MutantKind::ConstantReplacement),
            ["def g():\n    x=0\n"]
        );
        assert_eq!(
            mutants(
                "def h(a):\n    return a or False\n",
                "h",
                MutantKind::ConstantReplacement
            ),
            ["def h(a):\n    return a or True\n"]
        );
    }

    #[test]
    fn constants_in_annotations_decorators_and_fstring_quotes_are_left_alone() {
        let src = "@dec(5)\ndef f(x: \"int\" = 2) -> \"str\":\n    return f\"{d['k']}\"\n";
        assert_eq!(
            mutants(src, "f", MutantKind::ConstantReplacement),
            ["@dec(5)\ndef f(x: \"int\" = 0) -> \"str\":\n    return f\"{d['k']}\"\n"]
        );
    }

    #[test]
    fn return_value_becomes_none() {
        let src = "def f(x):\n    if x:\n        return\n    if x > 1:\n        return None\n    return x, 1\n";
        assert_eq!(
            mutants(src, "f", MutantKind::ReturnValue),
            [
                "def f(x):\n    if x:\n        return\n    if x > 1:\n        return None\n    return None\n"
            ]
        );
    }

    #[test]
    fn assignment_right_side_becomes_none() {
        let src = "def f():\n    x = calculate()\n    y = None\n    z: int\n    w: int = 4\n    x += 1\n    return x\n";
        assert_eq!(
            mutants(src, "f", MutantKind::Assignment),
            [
                "def f():\n    x = None\n    y = None\n    z: int\n    w: int = 4\n    x += 1\n    return x\n",
                "def f():\n    x = calculate()\n    y = None\n    z: int\n    w: int = None\n    x += 1\n    return x\n",
            ]
        );
    }

    #[test]
    fn force_failure_is_the_first_statement() {
        let src = "def f(x):\n    # why\n    y = x\n    return y\n";
        assert_eq!(
            mutants(src, "f", MutantKind::ForceFailure),
            [
                "def f(x):\n    # why\n    raise Exception(\"Force failure mutant\")\n    y = x\n    return y\n"
            ]
        );
    }

    #[test]
    fn force_failure_goes_after_a_docstring() {
        let src = "def f(x):\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    return x\n";
        assert_eq!(
            mutants(src, "f", MutantKind::ForceFailure),
            [
                "def f(x):\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    raise Exception(\"Force failure mutant\")\n    return x\n"
            ]
        );
        let only_doc = "def g():\n  'Doc.'\n";
        assert_eq!(
            mutants(only_doc, "g", MutantKind::ForceFailure),
            ["def g():\n  'Doc.'\n  raise Exception(\"Force failure mutant\")\n"]
        );
    }

    #[test]
    fn force_failure_keeps_crlf_line_endings() {
        let src = "def f(x):\r\n    \"Doc.\"\r\n    return x\r\n\r\ndef g():\r\n    pass\r\n";
        assert_eq!(
            mutants(src, "f", MutantKind::ForceFailure),
            [
                "def f(x):\r\n    \"Doc.\"\r\n    raise Exception(\"Force failure mutant\")\r\n    return x\r\n\r\ndef g():\r\n    pass\r\n"
            ]
        );
        assert_eq!(
            mutants(src, "g", MutantKind::ForceFailure),
            [
                "def f(x):\r\n    \"Doc.\"\r\n    return x\r\n\r\ndef g():\r\n    raise Exception(\"Force failure mutant\")\r\n    pass\r\n"
            ]
        );
    }

    #[test]
    fn force_failure_on_a_one_line_body() {
        let src = "def f(x): return x\n";
        assert_eq!(
            mutants(src, "f", MutantKind::ForceFailure),
            ["def f(x): raise Exception(\"Force failure mutant\"); return x\n"]
        );
    }

    #[test]
    fn force_failure_in_a_method_uses_its_indentation() {
        let src = "class A:\n\tdef m(self):\n\t\tself.x = 1\n\n\tdef n(self):\n\t\tpass\n";
        assert_eq!(
            mutants(src, "A.m", MutantKind::ForceFailure),
            [
                "class A:\n\tdef m(self):\n\t\traise Exception(\"Force failure mutant\")\n\t\tself.x = 1\n\n\tdef n(self):\n\t\tpass\n"
            ]
        );
    }

    #[test]
    fn sites_stay_inside_the_method() {
        let src = "class A:\n    def m(self):\n        return 1 + 2\n\n    def n(self):\n        return 3 - 4\n\nX = 5 * 6\n";
        let site = locate(src, "A.m").unwrap();
        let all = candidate_sites(src, "m.py", &site);
        assert!(!all.is_empty());
        assert!(
            all.iter()
                .all(|c| c.start >= site.start_byte && c.end <= site.end_byte)
        );
        let kinds: Vec<MutantKind> = all.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [
                MutantKind::BinaryArithmetic,
                MutantKind::ConstantReplacement,
                MutantKind::ConstantReplacement,
                MutantKind::ReturnValue,
                MutantKind::ForceFailure
            ]
        );
    }

    #[test]
    fn ids_and_lines_are_stable() {
        let src = "def f(a):\n    \"\"\"D.\"\"\"\n    return a + 1\n";
        let site = locate(src, "f").unwrap();
        let a = candidate_sites(src, "pkg/m.py", &site);
        let b = candidate_sites(src, "pkg/m.py", &site);
        assert_eq!(a, b);
        assert!(a.iter().all(|c| c.id.len() == 11 && c.id.starts_with('m')));
        let other = candidate_sites(src, "pkg/other.py", &site);
        assert_ne!(a[0].id, other[0].id);
        let force = a
            .iter()
            .find(|c| c.kind == MutantKind::ForceFailure)
            .unwrap();
        assert_eq!(force.line, 3);
        assert!(
            a.iter()
                .filter(|c| c.kind != MutantKind::ForceFailure)
                .all(|c| c.line == 3)
        );
    }

    #[test]
    fn zero_detection() {
        for zero in [
            "0", "0.0", "0.", ".0", "0x0", "0b00", "0o0", "0e5", "0j", "0_0", "0L",
        ] {
            assert!(is_zero(zero), "{zero}");
        }
        for non_zero in ["1", "0.5", "0x10", "1e0", "5j", "0xe"] {
            assert!(!is_zero(non_zero), "{non_zero}");
        }
    }
}
