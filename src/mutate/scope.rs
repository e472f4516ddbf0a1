//! The widened scope (the `Scope` of a mutant and the `MutantScope` of a run are data, in
//! `types`): when the focal functions are too small to yield the mutants a generation needs,
//! the functions next to them join the pool. A focal function of three lines gives a handful
//! of mutants that every failing test kills alike, so every cut ties; the functions it calls
//! and the functions that call it are where failing tests part ways.
//!
//! Neighbours are found in the focal files by name: a function whose name the focal
//! function's body mentions (a call, a method or a property read as `self.name`) is a
//! callee, one whose body mentions the focal function's name is a caller. A module-level
//! focal function is also called from other modules: in the repository's other files (not
//! its tests) that import it by name from its module (`from .money import quantize`,
//! `from pkg.money import quantize as q`), the functions that name it are callers too. The
//! run traces the files its pool's mutants are in, and reach-aware sampling keeps the
//! neighbours' mutants that the tests' `c_old` runs execute.

use super::generate::MutateError;
use super::types::Scope;
use crate::python::{
    FocalFunction, FunctionSite, functions_in, is_test_file, parse, python_files, text,
};
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
    out.extend(importing_callers(repo, focal));
    Ok(out)
}

/// At most this many callers from other files: a function named in many modules would
/// otherwise bring the whole package.
const IMPORTING_CALLERS_CAP: usize = 24;

/// The functions of the repository's other modules that import a module-level focal
/// function by name from its module and name it in their bodies, in file then source order.
/// Unreadable or unparsable files are skipped: they have no caller to offer.
fn importing_callers(repo: &Path, focal: &[FocalFunction]) -> Vec<(FocalFunction, Scope)> {
    let module_level: Vec<&FocalFunction> =
        focal.iter().filter(|f| !f.qualname.contains('.')).collect();
    if module_level.is_empty() {
        return vec![];
    }
    let mut out = vec![];
    for file in library_files(repo) {
        if focal.iter().any(|f| f.file == file) {
            continue;
        }
        let Ok(source) = std::fs::read_to_string(repo.join(&file)) else {
            continue;
        };
        // Most files of a large repository never spell the name: they are not parsed.
        if !module_level
            .iter()
            .any(|f| source.contains(f.qualname.as_str()))
        {
            continue;
        }
        let tree = parse(&source);
        // The local names the focal functions go by in this file.
        let local: BTreeSet<String> = imported_names(tree.root_node(), &source, &file)
            .into_iter()
            .filter(|(module_file, name, _)| {
                module_level
                    .iter()
                    .any(|f| same_module(&f.file, module_file) && f.qualname == *name)
            })
            .map(|(_, _, alias)| alias)
            .collect();
        if local.is_empty() {
            continue;
        }
        for s in functions_in(&tree, &source) {
            let names = names_in(tree.root_node(), &source, s.body_start, s.body_end);
            if names.iter().any(|n| local.contains(n)) {
                out.push((
                    FocalFunction {
                        file: file.clone(),
                        qualname: s.qualname,
                    },
                    Scope::Caller,
                ));
                if out.len() == IMPORTING_CALLERS_CAP {
                    return out;
                }
            }
        }
    }
    out
}

/// The repository's Python files that are not tests: not named as tests and not in a
/// `test` or `tests` directory (its helpers are no library code either).
fn library_files(repo: &Path) -> Vec<String> {
    python_files(repo)
        .into_iter()
        .filter(|p| !is_test_file(p) && !p.split('/').any(|c| c == "test" || c == "tests"))
        .collect()
}

/// `from MODULE import NAME [as ALIAS]` statements of a file, as (the module's file as far as
/// the import says it: `pkg/money.py` for `.money` in `pkg/invoice.py`, `pkg/money.py` for
/// `pkg.money`), NAME, the local name).
fn imported_names(root: Node, source: &str, file: &str) -> Vec<(String, String, String)> {
    let text = |n: Node| text(source, n).to_string();
    let mut out = vec![];
    let mut cursor = root.walk();
    for stmt in root.children(&mut cursor) {
        if stmt.kind() != "import_from_statement" {
            continue;
        }
        let Some(module) = stmt.child_by_field_name("module_name") else {
            continue;
        };
        let module_file = if module.kind() == "relative_import" {
            let raw = text(module);
            let dots = raw.chars().take_while(|c| *c == '.').count();
            let rest = raw[dots..].trim();
            // One dot: this file's package; each more dot one package up.
            let mut dir: Vec<&str> = file.split('/').collect();
            dir.pop();
            for _ in 1..dots {
                dir.pop();
            }
            let mut parts: Vec<String> = dir.iter().map(|s| s.to_string()).collect();
            parts.extend(
                rest.split('.')
                    .filter(|p| !p.is_empty())
                    .map(str::to_string),
            );
            format!("{}.py", parts.join("/"))
        } else {
            format!("{}.py", text(module).replace('.', "/"))
        };
        let mut names = stmt.walk();
        for n in stmt.children_by_field_name("name", &mut names) {
            let (name, alias) = match n.kind() {
                "aliased_import" => match (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("alias"),
                ) {
                    (Some(a), Some(b)) => (text(a), text(b)),
                    _ => continue,
                },
                _ => (text(n), text(n)),
            };
            out.push((module_file.clone(), name, alias));
        }
    }
    out
}

/// Whether the module an import names is the focal file: the same path, or the focal file's
/// path ending with it (an absolute import from a `src/` layout names `pkg/money.py` for
/// `src/pkg/money.py`).
fn same_module(focal_file: &str, imported: &str) -> bool {
    focal_file == imported || focal_file.ends_with(&format!("/{imported}"))
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
    fn callers_in_other_modules_are_those_that_import_the_focal_function_from_its_module() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "src/pkg/money.py",
            "def quantize(x):\n    return round(x, 2)\n\ndef total(xs):\n    return quantize(sum(xs))\n",
        );
        write(
            "src/pkg/invoice.py",
            "from .money import quantize\n\nclass Line:\n    def net(self):\n        return quantize(self.q * self.p)\n\n    def label(self):\n        return 'line'\n",
        );
        write(
            "src/pkg/tax/vat.py",
            "from pkg.money import quantize as q\n\ndef vat(x):\n    return q(x * 0.2)\n",
        );
        write(
            "src/pkg/tax/local.py",
            "from ..money import quantize\n\ndef levy(x):\n    return quantize(x)\n",
        );
        // Its own quantize, and a module that only mentions the name: neither calls the focal one.
        write(
            "src/pkg/other.py",
            "def quantize(x):\n    return x\n\ndef use(x):\n    return quantize(x)\n",
        );
        write(
            "src/pkg/report.py",
            "import pkg.money\n\ndef show(x):\n    return 'quantize'\n",
        );
        write(
            "tests/test_money.py",
            "from pkg.money import quantize\n\ndef test_q():\n    assert quantize(1) == 1\n",
        );
        write(
            "src/pkg/test_inline.py",
            "from .money import quantize\n\ndef test_q():\n    assert quantize(1) == 1\n",
        );
        let focal = [FocalFunction {
            file: "src/pkg/money.py".into(),
            qualname: "quantize".into(),
        }];
        let got: Vec<(String, String, Scope)> = neighbours(dir.path(), &focal)
            .unwrap()
            .into_iter()
            .map(|(f, s)| (f.file, f.qualname, s))
            .collect();
        let caller = |f: &str, q: &str| (f.to_string(), q.to_string(), Scope::Caller);
        assert_eq!(
            got,
            vec![
                caller("src/pkg/money.py", "total"),
                caller("src/pkg/invoice.py", "Line.net"),
                caller("src/pkg/tax/local.py", "levy"),
                caller("src/pkg/tax/vat.py", "vat"),
            ]
        );
        // A method is not imported by name: only its own file is looked at.
        let method = [FocalFunction {
            file: "src/pkg/invoice.py".into(),
            qualname: "Line.net".into(),
        }];
        assert!(neighbours(dir.path(), &method).unwrap().is_empty());
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
