//! Python source handling: parsing with tree-sitter and finding functions by qualified name.

pub mod focal;
pub mod locate;

pub use focal::FocalFunction;
pub use locate::{FunctionSite, LocateError, list_functions, locate};

use tree_sitter::{Parser, Tree};

/// Parses Python source. tree-sitter never refuses input: syntax errors become `ERROR` and
/// `MISSING` nodes, which callers check with `tree.root_node().has_error()`.
pub fn parse(source: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("tree-sitter-python is built for the linked tree-sitter ABI");
    parser
        .parse(source, None)
        .expect("parsing only fails on timeout or cancellation, and neither is set")
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
