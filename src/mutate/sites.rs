//! The mutation rules of paper Table I: every place in one function where a rule applies,
//! as byte-range replacements. The generator draws from these at random.

use super::types::{MutantKind, Operators};
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
/// kind, then position, with the alternatives `ops` gives each site. No-op replacements are
/// left out; whether the result parses is checked by the generator.
pub fn candidate_sites(
    source: &str,
    file: &str,
    site: &FunctionSite,
    ops: Operators,
) -> Vec<Candidate> {
    candidate_sites_in(&parse(source), source, file, site, ops)
}

/// [`candidate_sites`] with the tree of `source` already parsed.
pub fn candidate_sites_in(
    tree: &Tree,
    source: &str,
    file: &str,
    site: &FunctionSite,
    ops: Operators,
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
        rules(source, node, in_literal, ops, &mut raw);
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
    ops: Operators,
    out: &mut Vec<(MutantKind, usize, usize, String)>,
) {
    let mut token = |kind: MutantKind, op: Node, repl: &str| {
        out.push((kind, op.start_byte(), op.end_byte(), repl.to_string()));
    };
    match node.kind() {
        "binary_operator" => {
            if let Some(op) = node.child_by_field_name("operator") {
                for repl in arithmetic_alternatives(op.kind(), ops) {
                    token(MutantKind::BinaryArithmetic, op, repl);
                }
            }
        }
        "unary_operator" => {
            // `-0` and `+0` are the same number, so swapping their sign changes nothing.
            let argument = node.child_by_field_name("argument");
            if argument.is_some_and(|a| is_number(a.kind()) && is_zero(text(source, a))) {
                return;
            }
            let Some(op) = node.child_by_field_name("operator") else {
                return;
            };
            let repl = match op.kind() {
                "-" => "+",
                "+" => "-",
                _ => return,
            };
            token(MutantKind::UnaryArithmetic, op, repl);
            // Removing the sign of a number literal gives `+5` again (for `-5`) or the
            // original (for `+5`), so only other operands lose it.
            if ops == Operators::All
                && let Some(arg) = argument.filter(|a| !is_number(a.kind()))
            {
                token(MutantKind::UnaryArithmetic, node, text(source, arg));
            }
        }
        "comparison_operator" => {
            let mut cursor = node.walk();
            let operators: Vec<Node> = node
                .children_by_field_name("operators", &mut cursor)
                .collect();
            for op in operators {
                for repl in relational_alternatives(op.kind(), ops) {
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
            let signed = node.parent().is_some_and(|p| p.kind() == "unary_operator");
            for repl in number_alternatives(text(source, node), node.kind() == "float", ops) {
                // Under a unary operator the sign is that rule's to change; `--1` is just 1.
                if !(signed && repl.starts_with('-')) {
                    token(MutantKind::ConstantReplacement, node, &repl);
                }
            }
        }
        "true" => token(MutantKind::ConstantReplacement, node, "False"),
        "false" => token(MutantKind::ConstantReplacement, node, "True"),
        "string" | "concatenated_string" if !in_literal => {
            for repl in string_alternatives(source, node, ops) {
                token(MutantKind::ConstantReplacement, node, repl);
            }
        }
        // A container display has no same-type value as telling as `""` is for a string, so
        // under `All` it becomes `None` (as Table I's return and assignment rules do): code
        // that iterates or indexes it then fails where it uses it. Numbers and strings do not
        // get `None`: most of those mutants die at the first arithmetic or method call, as a
        // force failure does, while the same-type values above test the logic.
        "list" | "dictionary" | "set" | "tuple"
            if ops == Operators::All && !in_literal && !is_deleted(node) =>
        {
            token(MutantKind::ConstantReplacement, node, "None");
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

/// The binary arithmetic operators that replace one another under `Operators::All`. `**` is
/// replaced but never a replacement: `a * b` made `a ** b` on a test's integers can build a
/// number of millions of digits, which runs until the mutant timeout, a kill every test gets
/// that tells selection nothing and costs the longest execution there is. Bitwise and matrix
/// operators are not arithmetic in Table I's sense.
const ARITHMETIC: [&str; 6] = ["+", "-", "*", "/", "//", "%"];

/// The order and equality comparisons, each replaced by all the others under `Operators::All`.
const ORDERING: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];

fn arithmetic_alternatives(op: &str, ops: Operators) -> Vec<&'static str> {
    let table_i = match op {
        "+" => "-",
        "-" => "+",
        "*" => "/",
        "/" | "//" | "%" | "**" => "*",
        _ => return Vec::new(),
    };
    match ops {
        Operators::TableI => vec![table_i],
        Operators::All => ARITHMETIC.into_iter().filter(|a| *a != op).collect(),
    }
}

fn relational_alternatives(op: &str, ops: Operators) -> Vec<&'static str> {
    match op {
        "in" => vec!["not in"],
        "not in" => vec!["in"],
        "is" => vec!["is not"],
        "is not" => vec!["is"],
        _ if ops == Operators::All && ORDERING.contains(&op) => {
            ORDERING.into_iter().filter(|o| *o != op).collect()
        }
        "<" => vec!["<=", ">"],
        "<=" => vec!["<", ">"],
        ">" => vec![">=", "<"],
        ">=" => vec![">", "<"],
        "==" => vec!["!=", ">"],
        "!=" => vec!["=="],
        _ => Vec::new(),
    }
}

/// What replaces a numeric literal: Table I's `0` (or `1` for a zero); under `All` also `1`,
/// `-1`, n+1 and n-1 computed from the literal's value (n+1 and n-1 of an integer in its own
/// base), leaving out every value equal to the original's or to an earlier replacement's.
/// Imaginary literals and integers too large to compute with keep Table I's replacement.
fn number_alternatives(literal: &str, float: bool, ops: Operators) -> Vec<String> {
    let table_i = if is_zero(literal) { "1" } else { "0" };
    let clean = literal.to_ascii_lowercase().replace('_', "");
    let all = ops == Operators::All && !clean.ends_with('j');
    let computed = if !all {
        None
    } else if float {
        float_alternatives(&clean)
    } else {
        integer_alternatives(literal, &clean)
    };
    computed.unwrap_or_else(|| vec![table_i.to_string()])
}

/// The small constants every numeric literal may become, written as Table I writes them.
const SMALL: [(i128, &str); 3] = [(0, "0"), (1, "1"), (-1, "-1")];

fn integer_alternatives(literal: &str, clean: &str) -> Option<Vec<String>> {
    let (radix, digits) = match clean.get(..2) {
        Some("0x") => (16, &clean[2..]),
        Some("0o") => (8, &clean[2..]),
        Some("0b") => (2, &clean[2..]),
        _ => (10, clean),
    };
    let n = i128::from_str_radix(digits, radix).ok()?;
    let in_base = |v: i128| match radix {
        16 => format!("{}{v:x}", &literal[..2]),
        8 => format!("{}{v:o}", &literal[..2]),
        2 => format!("{}{v:b}", &literal[..2]),
        _ => v.to_string(),
    };
    let near = [n.checked_add(1), n.checked_sub(1)];
    let candidates = SMALL
        .iter()
        .map(|&(v, t)| (v, t.to_string()))
        .chain(near.into_iter().flatten().map(|v| (v, in_base(v))));
    Some(distinct_values(n, candidates))
}

fn float_alternatives(clean: &str) -> Option<Vec<String>> {
    let n: f64 = clean.parse().ok().filter(|n: &f64| n.is_finite())?;
    let candidates = SMALL
        .iter()
        .map(|&(v, t)| (v as f64, t.to_string()))
        // Rust's `Debug` of a finite f64 is its shortest round-trip form with a `.` or an
        // exponent, which Python reads as the same float.
        .chain([n + 1.0, n - 1.0].map(|v| (v, format!("{v:?}"))));
    Some(distinct_values(n, candidates))
}

/// The texts of `candidates` whose values differ from `original`'s and from every earlier
/// candidate's: equal values make a no-op or a second copy of a mutant.
fn distinct_values<T: PartialEq>(
    original: T,
    candidates: impl IntoIterator<Item = (T, String)>,
) -> Vec<String> {
    let mut values = vec![original];
    let mut out = Vec::new();
    for (v, text) in candidates {
        if !values.contains(&v) {
            values.push(v);
            out.push(text);
        }
    }
    out
}

/// Whether `node` is what a `del` statement deletes (`del None` does not compile).
fn is_deleted(node: Node) -> bool {
    node.parent()
        .is_some_and(|p| p.kind() == "delete_statement")
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

/// What replaces a plain string (or an implicit concatenation of them), keeping it bytes if
/// it was bytes: the empty string, and under `All` also a one-character string unless it is
/// that already (an empty string then gets one too). Nothing for f-strings (their pieces are
/// code, and quotes inside them are version-sensitive).
fn string_alternatives(source: &str, node: Node, ops: Operators) -> Vec<&'static str> {
    let Some((bytes, content)) = string_value(source, node) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !content.is_empty() {
        out.push(if bytes { "b\"\"" } else { "\"\"" });
    }
    if ops == Operators::All && content != "X" {
        out.push(if bytes { "b\"X\"" } else { "\"X\"" });
    }
    out
}

/// Whether a string literal is bytes, and its source text between the quotes (escapes as
/// written). `None` for f-strings and t-strings.
fn string_value(source: &str, node: Node) -> Option<(bool, String)> {
    let parts: Vec<Node> = if node.kind() == "concatenated_string" {
        let mut cursor = node.walk();
        node.named_children(&mut cursor)
            .filter(|c| c.kind() == "string")
            .collect()
    } else {
        vec![node]
    };
    let mut bytes = false;
    let mut content = String::new();
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
                _ => content.push_str(text(source, child)),
            }
        }
    }
    Some((bytes, content))
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

    /// Each Table-I mutant of `kind` in `qualname`, as the whole mutated source.
    fn mutants(src: &str, qualname: &str, kind: MutantKind) -> Vec<String> {
        mutants_with(Operators::TableI, src, qualname, kind)
    }

    fn mutants_with(ops: Operators, src: &str, qualname: &str, kind: MutantKind) -> Vec<String> {
        let site = locate(src, qualname).unwrap();
        candidate_sites(src, "m.py", &site, ops)
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
        let all = candidate_sites(src, "m.py", &site, Operators::TableI);
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
        let a = candidate_sites(src, "pkg/m.py", &site, Operators::TableI);
        let b = candidate_sites(src, "pkg/m.py", &site, Operators::TableI);
        assert_eq!(a, b);
        assert!(a.iter().all(|c| c.id.len() == 11 && c.id.starts_with('m')));
        let other = candidate_sites(src, "pkg/other.py", &site, Operators::TableI);
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

    /// The replacement texts of `kind` at each site, in position order, under `All`.
    fn alternatives(src: &str, kind: MutantKind) -> Vec<(String, Vec<String>)> {
        let site = locate(src, "f").unwrap();
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        let mut last = None;
        for c in candidate_sites(src, "m.py", &site, Operators::All) {
            if c.kind != kind {
                continue;
            }
            if last != Some((c.start, c.end)) {
                out.push((c.original.clone(), Vec::new()));
                last = Some((c.start, c.end));
            }
            out.last_mut().unwrap().1.push(c.replacement);
        }
        for (_, repls) in &mut out {
            repls.sort();
        }
        out
    }

    fn sorted(items: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn all_relational_alternatives() {
        let src = "def f(x, y):\n    return x < y, x <= y, x > y, x >= y, x == y, x != y, x in y, x not in y, x is y, x is not y\n";
        let got = alternatives(src, MutantKind::BinaryRelational);
        let ordering = ["<", "<=", ">", ">=", "==", "!="];
        let mut want: Vec<(String, Vec<String>)> = ordering
            .iter()
            .map(|op| {
                let others: Vec<&str> = ordering.iter().copied().filter(|o| o != op).collect();
                (op.to_string(), sorted(&others))
            })
            .collect();
        for (op, other) in [
            ("in", "not in"),
            ("not in", "in"),
            ("is", "is not"),
            ("is not", "is"),
        ] {
            want.push((op.to_string(), sorted(&[other])));
        }
        assert_eq!(got, want);
    }

    #[test]
    fn all_arithmetic_alternatives_never_introduce_power() {
        let src = "def f(a, b):\n    return a + b, a - b, a * b, a / b, a // b, a % b, a ** b, a | b, a @ b\n";
        let got = alternatives(src, MutantKind::BinaryArithmetic);
        let arithmetic = ["+", "-", "*", "/", "//", "%"];
        let mut want: Vec<(String, Vec<String>)> = arithmetic
            .iter()
            .map(|op| {
                let others: Vec<&str> = arithmetic.iter().copied().filter(|o| o != op).collect();
                (op.to_string(), sorted(&others))
            })
            .collect();
        want.push(("**".into(), sorted(&arithmetic)));
        assert_eq!(got, want);
    }

    #[test]
    fn all_unary_alternatives_flip_and_remove_the_sign() {
        let src = "def f(x):\n    return -x, +x.y, -5, +5, -0, ~x\n";
        assert_eq!(
            alternatives(src, MutantKind::UnaryArithmetic),
            [
                ("-".to_string(), sorted(&["+"])),
                ("-x".to_string(), sorted(&["x"])),
                ("+".to_string(), sorted(&["-"])),
                ("+x.y".to_string(), sorted(&["x.y"])),
                // A number literal keeps its sign flip only: `5` is `+5`, or the original.
                ("-".to_string(), sorted(&["+"])),
                ("+".to_string(), sorted(&["-"])),
            ]
        );
        // The logical rules are the same in both sets.
        let src = "def f(a, b):\n    return not a and b or a\n";
        for kind in [MutantKind::BinaryLogical, MutantKind::UnaryLogical] {
            assert_eq!(
                mutants_with(Operators::All, src, "f", kind),
                mutants(src, "f", kind)
            );
        }
    }

    #[test]
    fn all_integer_alternatives_come_from_the_value() {
        let src = "def f():\n    return 5, 0, 1, 2, 0x1f, 0o17, 0b10, 1_000, -3, 5j, 123456789012345678901234567890123456789012\n";
        assert_eq!(
            alternatives(src, MutantKind::ConstantReplacement),
            [
                ("5".to_string(), sorted(&["0", "1", "-1", "6", "4"])),
                ("0".to_string(), sorted(&["1", "-1"])),
                ("1".to_string(), sorted(&["0", "-1", "2"])),
                ("2".to_string(), sorted(&["0", "1", "-1", "3"])),
                (
                    "0x1f".to_string(),
                    sorted(&["0", "1", "-1", "0x20", "0x1e"])
                ),
                (
                    "0o17".to_string(),
                    sorted(&["0", "1", "-1", "0o20", "0o16"])
                ),
                ("0b10".to_string(), sorted(&["0", "1", "-1", "0b11"])),
                (
                    "1_000".to_string(),
                    sorted(&["0", "1", "-1", "1001", "999"])
                ),
                // Under a unary minus the sign is the unary rule's: no `--1`.
                ("3".to_string(), sorted(&["0", "1", "4", "2"])),
                // Imaginary and too large to compute: Table I's zero.
                ("5j".to_string(), sorted(&["0"])),
                (
                    "123456789012345678901234567890123456789012".to_string(),
                    sorted(&["0"])
                ),
            ]
        );
    }

    #[test]
    fn all_float_alternatives_skip_equal_values() {
        let src = "def f():\n    return 2.5, 0.0, 1.0, 1e300, 1.5j\n";
        assert_eq!(
            alternatives(src, MutantKind::ConstantReplacement),
            [
                ("2.5".to_string(), sorted(&["0", "1", "-1", "3.5", "1.5"])),
                // 0.0 + 1 is 1, 0.0 - 1 is -1: already there.
                ("0.0".to_string(), sorted(&["1", "-1"])),
                ("1.0".to_string(), sorted(&["0", "-1", "2.0"])),
                // n + 1 and n - 1 are n itself at this size.
                ("1e300".to_string(), sorted(&["0", "1", "-1"])),
                ("1.5j".to_string(), sorted(&["0"])),
            ]
        );
    }

    #[test]
    fn all_string_bool_and_container_alternatives() {
        let src = "def f(d=[]):\n    \"\"\"Doc.\"\"\"\n    s = 'abc'\n    b = b'xy'\n    e = ''\n    x = \"X\"\n    g = f\"{d}\"\n    c = (\"a\" \"b\")\n    t = True\n    del (d, s)\n    return {}, {1: 2}, (1,), {1}\n";
        let got = alternatives(src, MutantKind::ConstantReplacement);
        let want: Vec<(String, Vec<String>)> = [
            ("[]", vec!["None"]),
            ("'abc'", vec!["\"\"", "\"X\""]),
            ("b'xy'", vec!["b\"\"", "b\"X\""]),
            ("''", vec!["\"X\""]),
            ("\"X\"", vec!["\"\""]),
            ("\"a\" \"b\"", vec!["\"\"", "\"X\""]),
            ("True", vec!["False"]),
            ("{}", vec!["None"]),
            ("{1: 2}", vec!["None"]),
            ("1", vec!["-1", "0", "2"]),
            ("2", vec!["-1", "0", "1", "3"]),
            ("(1,)", vec!["None"]),
            ("1", vec!["-1", "0", "2"]),
            ("{1}", vec!["None"]),
            ("1", vec!["-1", "0", "2"]),
        ]
        .into_iter()
        .map(|(o, r)| (o.to_string(), sorted(&r)))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn all_is_a_superset_of_table_i_with_the_same_ids() {
        let src = "def f(a, b=2.5):\n    \"\"\"D.\"\"\"\n    if not a and b <= 0 or a == b:\n        return -a * 3 ** b\n    s = 'x' if a in b else b''\n    return a is not None, 0x0, 0.0\n";
        let site = locate(src, "f").unwrap();
        let table_i = candidate_sites(src, "pkg/m.py", &site, Operators::TableI);
        let all = candidate_sites(src, "pkg/m.py", &site, Operators::All);
        assert!(
            all.len() > 2 * table_i.len(),
            "{} {}",
            all.len(),
            table_i.len()
        );
        for c in &table_i {
            assert!(all.contains(c), "{c:?} is not in the All set");
        }
        // No candidate replaces a site with its own text, and none repeats.
        let mut seen = std::collections::HashSet::new();
        for c in &all {
            assert_ne!(c.original, c.replacement, "{c:?}");
            assert!(
                seen.insert((c.start, c.end, c.replacement.clone())),
                "{c:?}"
            );
        }
    }

    /// `evootter mutants --json` of `pkg/m.py::f` before `Operators` existed.
    const PINNED_IDS: [(MutantKind, &str, &str); 4] = [
        (MutantKind::BinaryArithmetic, "-", "m5fc9067412"),
        (MutantKind::ConstantReplacement, "0", "ma07cf003ba"),
        (MutantKind::ReturnValue, "None", "m9eb016c334"),
        (
            MutantKind::ForceFailure,
            "\n    raise Exception(\"Force failure mutant\")",
            "m1bfe27af68",
        ),
    ];

    #[test]
    fn table_i_ids_are_the_ones_sessions_recorded() {
        // Ids of this function's Table-I candidates as evootter computed them before `All`
        // existed: a session made then still finds its mutants by id.
        let src = "def f(a):\n    \"\"\"D.\"\"\"\n    return a + 1\n";
        let site = locate(src, "f").unwrap();
        let ids: Vec<(MutantKind, String, String)> =
            candidate_sites(src, "pkg/m.py", &site, Operators::TableI)
                .into_iter()
                .map(|c| (c.kind, c.replacement, c.id))
                .collect();
        assert_eq!(
            ids,
            PINNED_IDS.map(|(k, r, i)| (k, r.to_string(), i.to_string()))
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
