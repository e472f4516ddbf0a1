//! Python source handling: parsing with tree-sitter and finding functions by qualified name.

pub mod files;
pub mod focal;
pub mod literals;
pub mod locate;

pub use files::{is_test_file, python_files};
pub use focal::FocalFunction;
pub use locate::{
    FunctionSite, LocateError, find_site, functions_in, list_functions, locate, locate_in,
};

use tree_sitter::{InputEdit, Parser, Point, Tree};

/// Parses Python source. tree-sitter never refuses input: syntax errors become `ERROR` and
/// `MISSING` nodes, which callers check with `tree.root_node().has_error()`.
pub fn parse(source: &str) -> Tree {
    parser()
        .parse(source, None)
        .expect("parsing only fails on timeout or cancellation, and neither is set")
}

fn parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("tree-sitter-python is built for the linked tree-sitter ABI");
    parser
}

/// The tree of `new_source`, which is `old_source` with `old_source[start..old_end]`
/// replaced by `replacement`. Reparses incrementally from `old_tree` (the tree of
/// `old_source`), reusing unchanged subtrees: checking a mutant of a large file costs a
/// fraction of a full parse.
pub fn reparse_spliced(
    old_tree: &Tree,
    old_source: &str,
    start: usize,
    old_end: usize,
    replacement: &str,
    new_source: &str,
) -> Tree {
    let new_end = start + replacement.len();
    let mut tree = old_tree.clone();
    tree.edit(&InputEdit {
        start_byte: start,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(old_source, start),
        old_end_position: point_at(old_source, old_end),
        new_end_position: point_at(new_source, new_end),
    });
    parser()
        .parse(new_source, Some(&tree))
        .expect("parsing only fails on timeout or cancellation, and neither is set")
}

/// tree-sitter's row (0-based) and byte column of a byte offset.
fn point_at(source: &str, byte: usize) -> Point {
    let before = &source.as_bytes()[..byte];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count();
    Point { row, column }
}

/// Number of `ERROR` and `MISSING` nodes in a tree: 0 for a file that parses cleanly.
pub fn error_count(tree: &Tree) -> usize {
    if !tree.root_node().has_error() {
        return 0;
    }
    let mut count = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    count
}

/// The source text of a node.
pub fn text<'s>(source: &'s str, node: tree_sitter::Node<'_>) -> &'s str {
    &source[node.byte_range()]
}

/// 1-based line number of a byte offset.
pub fn line_of(source: &str, byte: usize) -> usize {
    source.as_bytes()[..byte]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_reparse_matches_a_full_parse() {
        let old = "def f(s):\n    t = 'héllo' + s\n    return t if s else -1\n";
        let edits = [
            ("'héllo'", "\"\""),
            ("+", "-"),
            ("return t if s else -1", "return None"),
            ("def f(s):\n", "def f(s):\n    raise Exception(\"x\")\n"),
            ("-1", "-1 +"),
        ];
        let old_tree = parse(old);
        for (from, to) in edits {
            let start = old.find(from).unwrap();
            let end = start + from.len();
            let new = format!("{}{to}{}", &old[..start], &old[end..]);
            let incremental = reparse_spliced(&old_tree, old, start, end, to, &new);
            let full = parse(&new);
            assert_eq!(
                incremental.root_node().to_sexp(),
                full.root_node().to_sexp(),
                "{new}"
            );
            assert_eq!(error_count(&incremental), error_count(&full), "{new}");
        }
        assert_eq!(error_count(&parse("def f(:\n  pass\n")), 1);
    }

    #[test]
    fn lines_and_points_count_bytes() {
        let src = "a\né = 1\n";
        assert_eq!(line_of(src, 0), 1);
        assert_eq!(line_of(src, 2), 2);
        assert_eq!(point_at(src, 5), Point { row: 1, column: 3 });
    }
}
