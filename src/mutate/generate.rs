//! The mutant pool generator (paper III-C): draw a focal function and a mutant kind at
//! random, apply an unused site of that kind if there is one, and repeat until `count`
//! unique mutants exist or every site is used up.

use super::patch::unified_diff;
use super::sites::{Candidate, candidate_sites_in};
use super::types::{Mutant, MutantKind, MutantPool, Operators};
use crate::python::{
    FocalFunction, FunctionSite, LocateError, error_count, find_site, functions_in, parse,
    reparse_spliced,
};
use crate::rng::Rng;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use tree_sitter::Tree;

#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    #[error(
        "focal file `{file}` does not exist in the repository at {}; check that the path is relative to the repository root (for example `pkg/mod.py::func`)",
        .repo.display()
    )]
    FocalFileMissing { file: String, repo: PathBuf },
    #[error(transparent)]
    FunctionNotFound(#[from] LocateError),
    #[error(
        "cannot read focal file `{file}` at {}: {source}; check that it is readable UTF-8 text",
        .path.display()
    )]
    Unreadable {
        file: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("asked for 0 mutants; ask for at least 1")]
    ZeroCount,
    #[error("no focal functions given; name at least one as FILE::QUALNAME")]
    NoFocals,
}

/// A focal file as read before mutation.
struct SourceFile {
    source: String,
    tree: Tree,
    /// Syntax errors tree-sitter finds in the original.
    errors: usize,
    functions: Vec<FunctionSite>,
}

/// One focal function with its unused candidates, one list per kind (in `MutantKind::ALL` order).
struct Focal {
    focal: FocalFunction,
    unused: Vec<Vec<Candidate>>,
}

/// Generates up to `count` unique mutants of `focals` in the repository at `repo`, each site
/// with the alternatives `ops` gives it, reproducibly for a given `seed`.
pub fn generate(
    repo: &Path,
    focals: &[FocalFunction],
    count: usize,
    seed: u64,
    ops: Operators,
) -> Result<MutantPool, MutateError> {
    if count == 0 {
        return Err(MutateError::ZeroCount);
    }
    if focals.is_empty() {
        return Err(MutateError::NoFocals);
    }
    // A file tree-sitter cannot fully parse (a grammar gap, say) may still be mutated, as
    // long as a mutant adds no syntax error of its own.
    let mut files: BTreeMap<String, SourceFile> = BTreeMap::new();
    let mut pool = MutantPool {
        requested: count,
        ..MutantPool::default()
    };
    let mut functions: Vec<Focal> = Vec::new();
    for focal in focals {
        if functions.iter().any(|f| f.focal == *focal) {
            continue;
        }
        if !files.contains_key(&focal.file) {
            let source = read_focal_file(repo, &focal.file)?;
            pool.file_hashes
                .insert(focal.file.clone(), sha256_hex(source.as_bytes()));
            let tree = parse(&source);
            let file = SourceFile {
                errors: error_count(&tree),
                functions: functions_in(&tree, &source),
                source,
                tree,
            };
            files.insert(focal.file.clone(), file);
        }
        let file = &files[&focal.file];
        let site =
            find_site(&file.functions, &focal.qualname).map_err(|e| e.in_file(&focal.file))?;
        let mut unused: Vec<Vec<Candidate>> = vec![Vec::new(); MutantKind::ALL.len()];
        for c in candidate_sites_in(&file.tree, &file.source, &focal.file, &site, ops) {
            unused[kind_index(c.kind)].push(c);
        }
        functions.push(Focal {
            focal: focal.clone(),
            unused,
        });
    }

    let mut rng = Rng::derived(seed, "mutants");
    let mut remaining: usize = functions
        .iter()
        .map(|f| f.unused.iter().map(Vec::len).sum::<usize>())
        .sum();
    let mut seen: HashSet<String> = HashSet::new();
    while pool.mutants.len() < count && remaining > 0 {
        pool.attempts += 1;
        let f = rng.below(functions.len());
        let k = rng.below(MutantKind::ALL.len());
        let function = &mut functions[f];
        let unused = &mut function.unused[k];
        if unused.is_empty() {
            continue;
        }
        let candidate = unused.swap_remove(rng.below(unused.len()));
        remaining -= 1;

        let file = function.focal.file.as_str();
        let SourceFile {
            source,
            tree,
            errors: baseline_errors,
            ..
        } = &files[file];
        let mut mutant = Mutant {
            id: candidate.id,
            kind: candidate.kind,
            file: file.to_string(),
            function: function.focal.qualname.clone(),
            line: candidate.line,
            start: candidate.start,
            end: candidate.end,
            original: candidate.original,
            replacement: candidate.replacement,
            diff: String::new(),
            scope: None,
        };
        let mutated = mutant.apply(source);
        let reparsed = reparse_spliced(
            tree,
            source,
            mutant.start,
            mutant.end,
            &mutant.replacement,
            &mutated,
        );
        if error_count(&reparsed) > *baseline_errors {
            continue;
        }
        if !seen.insert(sha256_hex(format!("{file}\0{mutated}").as_bytes())) {
            continue;
        }
        mutant.diff = unified_diff(file, source, &mutated);
        *pool.kinds.entry(mutant.kind).or_insert(0) += 1;
        pool.mutants.push(mutant);
    }
    pool.exhausted = pool.mutants.len() < count;
    Ok(pool)
}

fn read_focal_file(repo: &Path, file: &str) -> Result<String, MutateError> {
    let path = repo.join(file);
    if !path.is_file() {
        return Err(MutateError::FocalFileMissing {
            file: file.to_string(),
            repo: repo.to_path_buf(),
        });
    }
    std::fs::read_to_string(&path).map_err(|source| MutateError::Unreadable {
        file: file.to_string(),
        path,
        source,
    })
}

fn kind_index(kind: MutantKind) -> usize {
    MutantKind::ALL
        .iter()
        .position(|k| *k == kind)
        .expect("ALL lists every kind")
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    const MODULE: &str = "\
import math


def area(shape, r, w=2):
    \"\"\"Area of a shape.\"\"\"
    if shape == \"circle\" and r > 0:
        result = math.pi * r ** 2
    elif not shape or r < 0:
        return -1
    else:
        result = r * w
    return result


class Box:
    def volume(self, a, b, c):
        total = a * b * c
        return total if total >= 0 else None

    def name(self):
        return \"box\"
";

    /// No trailing newline, so diffs at the end of the file are exercised.
    const TINY: &str = "def inc(x):\n    return x + 1";

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/shapes.py"), MODULE).unwrap();
        std::fs::write(dir.path().join("pkg/tiny.py"), TINY).unwrap();
        std::fs::write(dir.path().join("pkg/crlf.py"), CRLF).unwrap();
        dir
    }

    fn focals(names: &[&str]) -> Vec<FocalFunction> {
        names.iter().map(|n| n.parse().unwrap()).collect()
    }

    fn all_focals() -> Vec<FocalFunction> {
        focals(&[
            "pkg/shapes.py::area",
            "pkg/shapes.py::Box.volume",
            "pkg/shapes.py::Box.name",
            "pkg/tiny.py::inc",
        ])
    }

    fn ids(pool: &MutantPool) -> Vec<&str> {
        pool.mutants.iter().map(|m| m.id.as_str()).collect()
    }

    /// Windows line endings, so inserted lines must match them.
    const CRLF: &str =
        "def neg(x):\r\n    \"Doc.\"\r\n    if not x:\r\n        return 0\r\n    return -x\r\n";

    fn source_of(m: &Mutant) -> &'static str {
        match m.file.as_str() {
            "pkg/tiny.py" => TINY,
            "pkg/crlf.py" => CRLF,
            _ => MODULE,
        }
    }

    #[test]
    fn same_seed_same_mutants_and_different_seed_different_order() {
        let dir = repo();
        let a = generate(dir.path(), &all_focals(), 12, 7, Operators::All).unwrap();
        let b = generate(dir.path(), &all_focals(), 12, 7, Operators::All).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.mutants.len(), 12);
        assert!(!a.exhausted);
        let c = generate(dir.path(), &all_focals(), 12, 8, Operators::All).unwrap();
        assert_ne!(ids(&a), ids(&c));
    }

    #[test]
    fn mutants_are_unique_and_reparse_cleanly() {
        let dir = repo();
        let pool = generate(dir.path(), &all_focals(), 1000, 1, Operators::All).unwrap();
        assert!(pool.exhausted);
        assert!(pool.mutants.len() > 30, "{}", pool.mutants.len());
        let mut seen_ids = HashSet::new();
        let mut seen_sources = HashSet::new();
        for m in &pool.mutants {
            assert!(seen_ids.insert(m.id.clone()), "duplicate id {}", m.id);
            let mutated = m.apply(source_of(m));
            assert!(!parse(&mutated).root_node().has_error(), "{mutated}");
            assert!(seen_sources.insert((m.file.clone(), mutated)));
            assert_eq!(&source_of(m)[m.start..m.end], m.original);
            assert!(m.diff.ends_with('\n'));
        }
        // Every kind occurs in this module.
        assert_eq!(pool.kinds.len(), MutantKind::ALL.len(), "{:?}", pool.kinds);
        assert_eq!(pool.kinds.values().sum::<usize>(), pool.mutants.len());
        assert!(pool.attempts >= pool.mutants.len());
        assert_eq!(pool.requested, 1000);
        assert_eq!(pool.file_hashes["pkg/tiny.py"], sha256_hex(TINY.as_bytes()));
        assert_eq!(pool.file_hashes.len(), 2);
    }

    #[test]
    fn a_tiny_function_is_exhausted_early() {
        let dir = repo();
        let pool = generate(
            dir.path(),
            &focals(&["pkg/tiny.py::inc"]),
            10,
            3,
            Operators::TableI,
        )
        .unwrap();
        assert!(pool.exhausted);
        let mut kinds: Vec<MutantKind> = pool.mutants.iter().map(|m| m.kind).collect();
        kinds.sort();
        assert_eq!(
            kinds,
            [
                MutantKind::BinaryArithmetic,
                MutantKind::ConstantReplacement,
                MutantKind::ReturnValue,
                MutantKind::ForceFailure
            ]
        );
        let mutated: Vec<String> = {
            let mut v: Vec<String> = pool.mutants.iter().map(|m| m.apply(TINY)).collect();
            v.sort();
            v
        };
        assert_eq!(
            mutated,
            [
                "def inc(x):\n    raise Exception(\"Force failure mutant\")\n    return x + 1",
                "def inc(x):\n    return None",
                "def inc(x):\n    return x + 0",
                "def inc(x):\n    return x - 1",
            ]
        );
        // Asking for exactly what exists is not exhaustion.
        let exact = generate(
            dir.path(),
            &focals(&["pkg/tiny.py::inc"]),
            4,
            3,
            Operators::TableI,
        )
        .unwrap();
        assert!(!exact.exhausted);
        assert_eq!(exact.mutants.len(), 4);
    }

    #[test]
    fn every_operator_alternative_gives_a_tiny_function_a_pool() {
        let dir = repo();
        let tiny = focals(&["pkg/tiny.py::inc"]);
        let pool = generate(dir.path(), &tiny, 100, 3, Operators::All).unwrap();
        assert!(pool.exhausted);
        let mut mutated: Vec<String> = pool.mutants.iter().map(|m| m.apply(TINY)).collect();
        mutated.sort();
        let body = |b: &str| format!("def inc(x):\n    {b}");
        let mut want: Vec<String> = [
            "raise Exception(\"Force failure mutant\")\n    return x + 1",
            "return None",
            "return x % 1",
            "return x * 1",
            "return x + -1",
            "return x + 0",
            "return x + 2",
            "return x - 1",
            "return x / 1",
            "return x // 1",
        ]
        .map(body)
        .to_vec();
        want.sort();
        assert_eq!(mutated, want);
        // Every Table-I mutant is in it, under the same id.
        let table_i = generate(dir.path(), &tiny, 100, 3, Operators::TableI).unwrap();
        for m in &table_i.mutants {
            assert!(
                pool.mutants
                    .iter()
                    .any(|a| a.id == m.id && a.diff == m.diff)
            );
        }
    }

    #[test]
    fn mutant_fields_describe_the_site() {
        let dir = repo();
        let pool = generate(
            dir.path(),
            &focals(&["pkg/shapes.py::Box.name"]),
            10,
            0,
            Operators::All,
        )
        .unwrap();
        let ret = pool
            .mutants
            .iter()
            .find(|m| m.kind == MutantKind::ReturnValue)
            .unwrap();
        assert_eq!(ret.function, "Box.name");
        assert_eq!(ret.line, 21);
        assert_eq!(ret.original, "\"box\"");
        assert_eq!(ret.replacement, "None");
        assert_eq!(
            ret.id,
            super::super::sites::mutant_id(
                "pkg/shapes.py",
                "Box.name",
                MutantKind::ReturnValue,
                ret.start,
                ret.end,
                "None"
            )
        );
        assert_eq!(
            ret.diff,
            "--- a/pkg/shapes.py\n+++ b/pkg/shapes.py\n@@ -18,4 +18,4 @@\n         return total if total >= 0 else None\n \n     def name(self):\n-        return \"box\"\n+        return None\n"
        );
    }

    #[test]
    fn git_apply_accepts_every_diff() {
        let dir = repo();
        let git = |args: &[&str], stdin: Option<&str>| {
            use std::io::Write;
            let mut child = Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("git is installed");
            if let Some(input) = stdin {
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(input.as_bytes())
                    .unwrap();
            }
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "git {args:?} failed: {}\n{}",
                String::from_utf8_lossy(&out.stderr),
                stdin.unwrap_or("")
            );
        };
        git(&["init", "-q"], None);
        let mut focals = all_focals();
        focals.extend(self::focals(&["pkg/crlf.py::neg"]));
        let pool = generate(dir.path(), &focals, 1000, 5, Operators::All).unwrap();
        assert!(pool.mutants.iter().any(|m| m.file == "pkg/crlf.py"));
        for m in &pool.mutants {
            git(&["apply", "--check", "-"], Some(&m.diff));
            // Applying must give exactly the mutated file, final newline or not.
            git(&["apply", "-"], Some(&m.diff));
            let path = dir.path().join(&m.file);
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                m.apply(source_of(m))
            );
            std::fs::write(&path, source_of(m)).unwrap();
        }
    }

    #[test]
    fn errors_say_what_to_fix() {
        let dir = repo();
        let err = generate(
            dir.path(),
            &focals(&["pkg/nope.py::f"]),
            5,
            0,
            Operators::All,
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("`pkg/nope.py`"), "{msg}");
        assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
        assert!(msg.contains("relative to the repository root"), "{msg}");

        let err = generate(
            dir.path(),
            &focals(&["pkg/shapes.py::Box.area"]),
            5,
            0,
            Operators::All,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "no function `Box.area` in pkg/shapes.py; did you mean `area`? it defines: area, \
             Box.volume, Box.name. \
             Name one of these in FILE::QUALNAME"
        );

        let err = generate(dir.path(), &all_focals(), 0, 0, Operators::All).unwrap_err();
        assert!(matches!(err, MutateError::ZeroCount));
        assert!(matches!(
            generate(dir.path(), &[], 5, 0, Operators::All),
            Err(MutateError::NoFocals)
        ));

        std::fs::write(dir.path().join("pkg/bin.py"), [0xff, 0xfe, 0x00]).unwrap();
        let err = generate(
            dir.path(),
            &focals(&["pkg/bin.py::f"]),
            5,
            0,
            Operators::All,
        )
        .unwrap_err();
        assert!(matches!(err, MutateError::Unreadable { .. }), "{err}");
        assert!(err.to_string().contains("UTF-8"));
    }

    #[test]
    fn a_file_with_a_syntax_error_elsewhere_still_yields_mutants() {
        let dir = repo();
        std::fs::write(
            dir.path().join("pkg/broken.py"),
            "def ok(x):\n    return x + 1\n\ndef bad(:\n    pass\n",
        )
        .unwrap();
        let pool = generate(
            dir.path(),
            &focals(&["pkg/broken.py::ok"]),
            10,
            0,
            Operators::TableI,
        )
        .unwrap();
        assert_eq!(pool.mutants.len(), 4);
    }
}
