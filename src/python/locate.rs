//! Finding functions in a Python file by dotted qualified name (`func`, `Class.method`,
//! `outer.inner`), so a focal function named on the command line maps to a byte range.

use super::{parse, text};
use std::fmt;
use tree_sitter::{Node, Tree};

/// Where one function definition sits in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSite {
    pub qualname: String,
    /// The whole definition, decorators included.
    pub start_byte: usize,
    pub end_byte: usize,
    /// Start of the `def` (or `async def`) keyword: the `function_definition` node.
    pub def_start_byte: usize,
    /// The body block (first statement to the end of the last one).
    pub body_start: usize,
    pub body_end: usize,
    /// 1-based line of `start_byte` (the first decorator, if any).
    pub start_line: usize,
    /// 1-based line of the `def` keyword.
    pub def_line: usize,
}

impl FunctionSite {
    /// The `function_definition` node of this site in `tree`, which must be the tree of the
    /// source the site was located in.
    pub fn node<'t>(&self, tree: &'t Tree) -> Option<Node<'t>> {
        let mut node = tree
            .root_node()
            .descendant_for_byte_range(self.def_start_byte, self.end_byte)?;
        // The smallest node spanning the range can be a child with the same extent; climb.
        loop {
            if node.kind() == "function_definition"
                && node.start_byte() == self.def_start_byte
                && node.end_byte() == self.end_byte
            {
                return Some(node);
            }
            node = node.parent()?;
        }
    }

    /// The body `block` node of this site in `tree`.
    pub fn body<'t>(&self, tree: &'t Tree) -> Option<Node<'t>> {
        self.node(tree)?.child_by_field_name("body")
    }
}

/// A qualified name that the file does not define. The message lists what it does define,
/// so the user can correct the focal function name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LocateError {
    pub qualname: String,
    /// The file, when the caller knows it (see [`LocateError::in_file`]).
    pub file: Option<String>,
    /// Every qualified name the file defines, in source order.
    pub available: Vec<String>,
}

impl LocateError {
    /// Names the file in the message.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(file.to_string());
        self
    }
}

impl fmt::Display for LocateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.as_deref().unwrap_or("the file");
        write!(f, "no function `{}` in {file}; ", self.qualname)?;
        // The usual slip is a missing or wrong class prefix: suggest same-named functions.
        let last = self.qualname.rsplit('.').next().unwrap_or_default();
        let similar: Vec<String> = self
            .available
            .iter()
            .filter(|q| q.rsplit('.').next() == Some(last))
            .map(|q| format!("`{q}`"))
            .collect();
        if !similar.is_empty() {
            write!(f, "did you mean {}? ", similar.join(" or "))?;
        }
        if self.available.is_empty() {
            write!(f, "it defines no functions")
        } else {
            write!(
                f,
                "it defines: {}. Name one of these in FILE::QUALNAME",
                self.available.join(", ")
            )
        }
    }
}

/// Every function and method in `source`, as dotted qualified names in source order
/// (duplicates, such as a property getter and setter, are listed once).
pub fn list_functions(source: &str) -> Vec<String> {
    unique_names(&functions_in(&parse(source), source))
}

/// The first definition of `qualname` in `source`.
pub fn locate(source: &str, qualname: &str) -> Result<FunctionSite, LocateError> {
    find_site(&functions_in(&parse(source), source), qualname)
}

/// [`locate`] with the tree of `source` already parsed.
pub fn locate_in(tree: &Tree, source: &str, qualname: &str) -> Result<FunctionSite, LocateError> {
    find_site(&functions_in(tree, source), qualname)
}

/// The first of `sites` (from [`functions_in`]) named `qualname`.
pub fn find_site(sites: &[FunctionSite], qualname: &str) -> Result<FunctionSite, LocateError> {
    sites
        .iter()
        .find(|s| s.qualname == qualname)
        .cloned()
        .ok_or_else(|| LocateError {
            qualname: qualname.to_string(),
            file: None,
            available: unique_names(sites),
        })
}

fn unique_names(sites: &[FunctionSite]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for site in sites {
        if !names.contains(&site.qualname) {
            names.push(site.qualname.clone());
        }
    }
    names
}

/// Every function definition in the tree of a file, in source order, duplicates included.
/// Finding one site walks the file's statements, so callers locating many functions in one
/// file call this once and use [`find_site`].
pub fn functions_in(tree: &Tree, source: &str) -> Vec<FunctionSite> {
    definitions(source, tree.root_node())
        .into_iter()
        .map(|(qualname, node)| {
            let outer = match node.parent() {
                Some(p) if p.kind() == "decorated_definition" => p,
                _ => node,
            };
            let (body_start, body_end) = match node.child_by_field_name("body") {
                Some(b) => (b.start_byte(), b.end_byte()),
                None => (node.end_byte(), node.end_byte()),
            };
            FunctionSite {
                qualname,
                start_byte: outer.start_byte(),
                end_byte: node.end_byte(),
                def_start_byte: node.start_byte(),
                body_start,
                body_end,
                start_line: outer.start_position().row + 1,
                def_line: node.start_position().row + 1,
            }
        })
        .collect()
}

/// Statements that can contain a `def` (expressions never do), so the walk skips the bulk
/// of a large file's nodes. `ERROR` too: error recovery may wrap a definition.
fn can_hold_definitions(kind: &str) -> bool {
    matches!(
        kind,
        "module"
            | "block"
            | "decorated_definition"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "for_statement"
            | "while_statement"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_statement"
            | "match_statement"
            | "case_clause"
            | "ERROR"
    )
}

/// All function definitions under `root` with their qualified names, in source order. Classes
/// and functions both extend the dotted prefix; other nesting (if, try, with) does not, as in
/// Python's own `__qualname__` minus its `<locals>` parts.
fn definitions<'t>(source: &str, root: Node<'t>) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    // Iterative, because deeply nested expressions would overflow a recursive walk.
    let mut stack = vec![(root, String::new())];
    while let Some((node, prefix)) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            let kind = child.kind();
            if kind == "function_definition" || kind == "class_definition" {
                let Some(name) = child.child_by_field_name("name") else {
                    continue;
                };
                let name = text(source, name);
                let qualname = if prefix.is_empty() {
                    name.to_string()
                } else {
                    format!("{prefix}.{name}")
                };
                if kind == "function_definition" {
                    out.push((qualname.clone(), child));
                }
                if let Some(body) = child.child_by_field_name("body") {
                    stack.push((body, qualname));
                }
            } else if can_hold_definitions(kind) {
                stack.push((child, prefix.clone()));
            }
        }
    }
    // The stack walk records definitions out of source order.
    out.sort_by_key(|(_, n)| n.start_byte());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "\
import functools

def top(a):
    return a

class Foo:
    def bar(self):
        def helper():
            return 1
        return helper()

    @staticmethod
    @functools.cache
    def baz(x):
        return x

    class Inner:
        async def method(self):
            return 2

if True:
    def guarded():
        pass

async def fetch():
    return 3
";

    #[test]
    fn lists_every_qualname_in_source_order() {
        assert_eq!(
            list_functions(SRC),
            [
                "top",
                "Foo.bar",
                "Foo.bar.helper",
                "Foo.baz",
                "Foo.Inner.method",
                "guarded",
                "fetch"
            ]
        );
    }

    #[test]
    fn locates_a_plain_function() {
        let site = locate(SRC, "top").unwrap();
        assert_eq!(
            &SRC[site.start_byte..site.end_byte],
            "def top(a):\n    return a"
        );
        assert_eq!(&SRC[site.body_start..site.body_end], "return a");
        assert_eq!(site.start_line, 3);
        assert_eq!(site.def_line, 3);
    }

    #[test]
    fn locates_a_method_and_a_nested_function() {
        let site = locate(SRC, "Foo.bar").unwrap();
        assert!(SRC[site.start_byte..site.end_byte].starts_with("def bar(self):"));
        assert!(SRC[site.start_byte..site.end_byte].ends_with("return helper()"));
        assert_eq!(site.start_line, 7);
        let inner = locate(SRC, "Foo.bar.helper").unwrap();
        assert_eq!(
            &SRC[inner.start_byte..inner.end_byte],
            "def helper():\n            return 1"
        );
        assert_eq!(inner.start_line, 8);
    }

    #[test]
    fn locates_a_decorated_method_including_its_decorators() {
        let site = locate(SRC, "Foo.baz").unwrap();
        assert_eq!(
            &SRC[site.start_byte..site.end_byte],
            "@staticmethod\n    @functools.cache\n    def baz(x):\n        return x"
        );
        assert_eq!(site.start_line, 12);
        assert_eq!(site.def_line, 14);
        assert!(SRC[site.def_start_byte..].starts_with("def baz"));
    }

    #[test]
    fn locates_async_defs_and_gives_their_nodes() {
        let site = locate(SRC, "Foo.Inner.method").unwrap();
        assert!(SRC[site.start_byte..].starts_with("async def method(self):"));
        let top = locate(SRC, "fetch").unwrap();
        assert_eq!(
            &SRC[top.start_byte..top.end_byte],
            "async def fetch():\n    return 3"
        );
        let tree = parse(SRC);
        let node = top.node(&tree).unwrap();
        assert_eq!(node.kind(), "function_definition");
        assert_eq!(top.body(&tree).unwrap().kind(), "block");
    }

    #[test]
    fn unknown_name_lists_what_the_file_defines() {
        let err = locate(SRC, "Foo.qux").unwrap_err().in_file("pkg/mod.py");
        assert_eq!(
            err.to_string(),
            "no function `Foo.qux` in pkg/mod.py; it defines: top, Foo.bar, Foo.bar.helper, \
             Foo.baz, Foo.Inner.method, guarded, fetch. Name one of these in FILE::QUALNAME"
        );
        let err = locate(SRC, "baz").unwrap_err().in_file("pkg/mod.py");
        assert!(
            err.to_string().starts_with(
                "no function `baz` in pkg/mod.py; did you mean `Foo.baz`? it defines: top,"
            ),
            "{err}"
        );
        // A class is not a function.
        assert!(locate(SRC, "Foo").is_err());
        let empty = locate("x = 1\n", "f").unwrap_err();
        assert_eq!(
            empty.to_string(),
            "no function `f` in the file; it defines no functions"
        );
    }
}
