//! The widened scope (issue 26; the `Scope` of a mutant and the `MutantScope` of a run are
//! data, in `types`): when the focal functions are too small to yield the mutants
//! a generation needs, the functions next to them join the pool. A focal function of three
//! lines gives a handful of mutants that every failing test kills alike, so every cut ties;
//! the functions it calls and the functions that call it are where failing tests part ways.
//!
//! Neighbours are found in the focal files by name: a function whose name the focal
//! function's body mentions (a call, a method or a property read as `self.name`) is a
//! callee, one whose body mentions the focal function's name is a caller. Only the focal
//! files are looked at, which is what the line traces cover; the run's reach-aware sampling
//! then keeps the neighbours' mutants that the tests' `c_old` runs execute.

use super::generate::MutateError;
use super::types::Scope;
use crate::python::{FocalFunction, FunctionSite, functions_in, parse};
use std::collections::BTreeSet;
use std::path::Path;
use tree_sitter::Node;

/// The callees and callers of `focal` in the focal files, each once (a function both is a
/// callee), in file then source order. Focal functions are never neighbours.
pub fn neighbours(
    repo: &Path,
    focal: &[FocalFunction],
) -> Result<Vec<(FocalFunction, Scope)>, MutateError> {
    let files: BTreeSet<&str> = focal.iter().map(|f| f.file.as_str()).collect();
    let mut out = vec![];
    for file in files {
        let path = repo.join(file);
        let source = std::fs::read_to_string(&path).map_err(|source| MutateError::Unreadable {
            file: file.to_string(),
            path: path.clone(),
            source,
        })?;
        let tree = parse(&source);
        let sites = functions_in(&tree, &source);
        let is_focal = |s: &FunctionSite| {
            focal
                .iter()
                .any(|f| f.file == file && f.qualname == s.qualname)
        };
        let focal_sites: Vec<&FunctionSite> = sites.iter().filter(|s| is_focal(s)).collect();
        // The names each function's body mentions.
        let mentioned =
            |s: &FunctionSite| names_in(tree.root_node(), &source, s.body_start, s.body_end);
        let focal_mentions: BTreeSet<String> =
            focal_sites.iter().flat_map(|s| mentioned(s)).collect();
        let focal_names: BTreeSet<&str> = focal_sites
            .iter()
            .map(|s| simple_name(&s.qualname))
            .collect();
        for s in sites.iter().filter(|s| !is_focal(s)) {
            let scope = if focal_mentions.contains(simple_name(&s.qualname)) {
                Scope::Callee
            } else if mentioned(s)
                .iter()
                .any(|n| focal_names.contains(n.as_str()))
            {
                Scope::Caller
            } else {
                continue;
            };
            out.push((
                FocalFunction {
                    file: file.to_string(),
                    qualname: s.qualname.clone(),
                },
                scope,
            ));
        }
    }
    Ok(out)
}

fn simple_name(qualname: &str) -> &str {
    qualname.rsplit('.').next().unwrap_or(qualname)
}

/// The identifiers (names and attribute names) inside `start..end` of the tree.
fn names_in(root: Node, source: &str, start: usize, end: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.end_byte() <= start || node.start_byte() >= end {
            continue;
        }
        if node.kind() == "identifier" {
            out.insert(source[node.start_byte()..node.end_byte()].to_string());
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
class Paginator:
    @property
    def count(self):
        return len(self.items)

    def validate(self, n):
        if n < 1:
            raise ValueError(n)
        return n

    def page(self, n):
        n = self.validate(n)
        top = n * 10
        return self.items[top - 10:min(top, self.count)]

    def pages(self):
        return [self.page(i) for i in range(1, 4)]

    def unrelated(self):
        return 42


def helper():
    return Paginator().pages()
";

    #[test]
    fn callees_are_what_the_focal_body_names_and_callers_name_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.py"), SOURCE).unwrap();
        let focal = [FocalFunction {
            file: "p.py".into(),
            qualname: "Paginator.page".into(),
        }];
        let got: Vec<(String, Scope)> = neighbours(dir.path(), &focal)
            .unwrap()
            .into_iter()
            .map(|(f, s)| (f.qualname, s))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Paginator.count".to_string(), Scope::Callee),
                ("Paginator.validate".to_string(), Scope::Callee),
                ("Paginator.pages".to_string(), Scope::Caller),
            ]
        );
    }

    #[test]
    fn a_focal_function_is_never_its_own_neighbour() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.py"), SOURCE).unwrap();
        let focal = [
            FocalFunction {
                file: "p.py".into(),
                qualname: "Paginator.page".into(),
            },
            FocalFunction {
                file: "p.py".into(),
                qualname: "Paginator.pages".into(),
            },
        ];
        let got: Vec<String> = neighbours(dir.path(), &focal)
            .unwrap()
            .into_iter()
            .map(|(f, _)| f.qualname)
            .collect();
        assert_eq!(got, ["Paginator.count", "Paginator.validate", "helper"]);
    }
}
