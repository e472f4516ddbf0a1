//! The literal values a Python test spells out: its strings and numbers, as the issue-focus
//! evidence (`engine::focus`) compares them with an issue's text.

use tree_sitter::Node;

/// One literal value of a test's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    /// A string's value with its simple escapes (`\n`, `\t`, `\\`, quotes) resolved.
    Str(String),
    /// A number as written (`999.9`, `-5`, `0x1F`).
    Num(String),
}

/// The string and number literals of `source`, in source order: not docstrings (a string
/// standing alone as a statement is prose, not a value), not the argument names of
/// `pytest.mark.parametrize`, not f-strings with replacement fields (their value is not in
/// the source), not byte strings; a negated number keeps its sign.
pub fn literals(source: &str) -> Vec<Literal> {
    let tree = super::parse(source);
    let mut out = vec![];
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "string" => {
                if !is_docstring(node)
                    && !is_parametrize_names(node, source)
                    && let Some(v) = string_value(node, source)
                {
                    out.push((node.start_byte(), Literal::Str(v)));
                }
                continue;
            }
            "integer" | "float" => {
                let negated = node
                    .parent()
                    .filter(|p| p.kind() == "unary_operator")
                    .filter(|p| p.child(0).is_some_and(|op| op.kind() == "-"));
                let text = &source[node.byte_range()];
                let v = match negated {
                    Some(_) => format!("-{text}"),
                    None => text.to_string(),
                };
                out.push((node.start_byte(), Literal::Num(v)));
                continue;
            }
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, l)| l).collect()
}

fn is_docstring(node: Node) -> bool {
    let mut n = node;
    // `"a" "b"` as a statement is one concatenated string.
    if let Some(p) = n.parent().filter(|p| p.kind() == "concatenated_string") {
        n = p;
    }
    n.parent()
        .is_some_and(|p| p.kind() == "expression_statement" && p.named_child_count() == 1)
}

/// The first argument of a `parametrize(...)` call: names, not values.
fn is_parametrize_names(node: Node, source: &str) -> bool {
    let Some(args) = node.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    args.named_child(0)
        .is_some_and(|first| first.id() == node.id())
        && args
            .parent()
            .and_then(|call| call.child_by_field_name("function"))
            .is_some_and(|f| source[f.byte_range()].ends_with("parametrize"))
}

fn string_value(node: Node, source: &str) -> Option<String> {
    let (mut start, mut end) = (None, None);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "string_start" => start = Some(child),
            "string_end" => end = Some(child),
            // An f-string's replacement field: its value is not in the source.
            "interpolation" => return None,
            _ => {}
        }
    }
    let (start, end) = (start?, end?);
    let prefix = source[start.byte_range()].to_ascii_lowercase();
    if prefix.contains('b') {
        return None;
    }
    let body = &source[start.end_byte()..end.start_byte()];
    Some(if prefix.contains('r') {
        body.to_string()
    } else {
        unescape(body)
    })
}

/// The simple escapes resolved (`\n`, `\t`, `\r`, `\\`, quotes, an escaped line end);
/// any other escape stays as written.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\n') => {}
            Some(q @ ('\\' | '\'' | '"')) => out.push(q),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_but_not_docstrings_or_formatted_strings() {
        let src = r#"
"""Module docstring: prose, not a value."""
import pytest


def test_x(tmp_path):
    """Also prose."""
    assert metric(999.9, "V") == "1.00 kV"
    assert center("hi", -5) == 'a\tb'
    name = f"value {x}"
    plain = f"static"
    assert raw == r"\d+" and data == b"bytes"


@pytest.mark.parametrize("args, expected", [(1.5, "x")])
def test_y(args, expected):
    pass
"#;
        let got = literals(src);
        assert_eq!(
            got,
            vec![
                Literal::Num("999.9".into()),
                Literal::Str("V".into()),
                Literal::Str("1.00 kV".into()),
                Literal::Str("hi".into()),
                Literal::Num("-5".into()),
                Literal::Str("a\tb".into()),
                Literal::Str("static".into()),
                Literal::Str("\\d+".into()),
                Literal::Num("1.5".into()),
                Literal::Str("x".into()),
            ]
        );
    }
}
