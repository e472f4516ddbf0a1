//! Trivial compiler equivalence (TCE, Papadakis et al., ICSE 2015): a mutant whose function
//! compiles to the same code as the original's cannot change any run, and one that compiles
//! to the same code as an earlier mutant's can only repeat its runs. Both are dropped before
//! sampling, so no execution is spent on them, and counted per kind.
//!
//! Each mutated function is compiled on its own (its definition, with the line's indentation,
//! under `if 1:`) by the run's interpreter, and its code compared without positions: equal
//! code means equal behaviour, so dropping is always sound; unequal code says nothing (most
//! equivalent mutants are not trivially so).

use super::types::{Dropped, Mutant, MutantKind, Tce};
use crate::python::{FunctionSite, find_site, functions_in, parse};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const SCRIPT: &str = include_str!("equivalence.py");

impl Tce {
    /// Dropped mutants per kind: (equivalent to the original, duplicates).
    pub fn by_kind(&self) -> BTreeMap<MutantKind, (usize, usize)> {
        let mut out: BTreeMap<MutantKind, (usize, usize)> = BTreeMap::new();
        for d in &self.dropped {
            let e = out.entry(d.kind).or_default();
            if d.same_as.is_none() {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        out
    }

    pub fn equivalent(&self) -> usize {
        self.dropped.iter().filter(|d| d.same_as.is_none()).count()
    }

    pub fn duplicates(&self) -> usize {
        self.dropped.len() - self.equivalent()
    }

    /// One line for the run's output and the Why screen.
    pub fn summary(&self, pool: usize) -> String {
        if let Some(why) = &self.skipped {
            return format!("no mutant was checked for trivial equivalence: {why}");
        }
        let total = pool + self.dropped.len();
        let mut s = format!(
            "{} of the {total} mutants compile to the original's code and {} to an earlier \
             mutant's (python {}): not run",
            self.equivalent(),
            self.duplicates(),
            self.python
        );
        let kinds: Vec<String> = self
            .by_kind()
            .iter()
            .map(|(k, (e, d))| format!("{k} {}", e + d))
            .collect();
        if !kinds.is_empty() {
            s.push_str(&format!("; by kind: {}", kinds.join(", ")));
        }
        s
    }
}

/// The definition of `site` in `source` as a unit that compiles alone: the text from the
/// start of its first line, under `if 1:` when it is indented (a method, a nested function).
fn unit(source: &str, site: &FunctionSite, end: usize) -> String {
    let line_start = source[..site.start_byte].rfind('\n').map_or(0, |i| i + 1);
    let text = &source[line_start..end];
    if line_start == site.start_byte {
        text.to_owned()
    } else {
        format!("if 1:\n{text}")
    }
}

/// Drops from `mutants` (kept in order) those whose function compiles, with `python`, to the
/// original's code or to an earlier kept mutant's. `repo` holds the files' original sources.
/// A failure of the interpreter keeps every mutant and says why in the result.
pub fn drop_trivially_equivalent(
    repo: &Path,
    mutants: Vec<Mutant>,
    python: Option<&Path>,
) -> (Vec<Mutant>, Tce) {
    let Some(python) = python else {
        let tce = Tce {
            skipped: Some("no local python3 to compile with".into()),
            ..Tce::default()
        };
        return (mutants, tce);
    };
    // The sources to compile: each touched function's original, then each mutant's.
    let mut units: Vec<String> = vec![];
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut add = |text: String| -> usize {
        *index.entry(text.clone()).or_insert_with(|| {
            units.push(text);
            units.len() - 1
        })
    };
    let mut files: BTreeMap<String, Option<(String, Vec<FunctionSite>)>> = BTreeMap::new();
    // Per mutant: (original's unit, mutant's unit), when its function was found.
    let mut pairs: Vec<Option<(usize, usize)>> = vec![];
    for m in &mutants {
        let file = files.entry(m.file.clone()).or_insert_with(|| {
            let src = std::fs::read_to_string(repo.join(&m.file)).ok()?;
            let sites = functions_in(&parse(&src), &src);
            Some((src, sites))
        });
        let pair = file.as_ref().and_then(|(src, sites)| {
            let site = find_site(sites, &m.function).ok()?;
            if m.start < site.start_byte || m.end > site.end_byte {
                return None;
            }
            let original = add(unit(src, &site, site.end_byte));
            let mutated = m.apply(src);
            let end = site.end_byte + m.replacement.len() - (m.end - m.start);
            Some((original, add(unit(&mutated, &site, end))))
        });
        pairs.push(pair);
    }
    let digests = match compile_all(python, &units) {
        Ok(d) => d,
        Err(why) => {
            let tce = Tce {
                skipped: Some(why),
                ..Tce::default()
            };
            return (mutants, tce);
        }
    };
    let mut tce = Tce {
        python: digests.0,
        ..Tce::default()
    };
    let digests = digests.1;
    let mut first_with: HashMap<&str, &str> = HashMap::new();
    let mut kept = vec![];
    for (m, pair) in mutants.iter().zip(&pairs) {
        let Some((o, u)) = *pair else {
            kept.push(m.clone());
            continue;
        };
        let (Some(orig), Some(code)) = (digests[o].as_deref(), digests[u].as_deref()) else {
            kept.push(m.clone());
            continue;
        };
        tce.compared += 1;
        if orig == code {
            tce.dropped.push(Dropped {
                id: m.id.clone(),
                kind: m.kind,
                same_as: None,
            });
        } else if let Some(earlier) = first_with.get(code) {
            tce.dropped.push(Dropped {
                id: m.id.clone(),
                kind: m.kind,
                same_as: Some((*earlier).to_owned()),
            });
        } else {
            first_with.insert(code, &m.id);
            kept.push(m.clone());
        }
    }
    (kept, tce)
}

/// The interpreter's version and each unit's digest (`None`: it does not compile).
fn compile_all(python: &Path, units: &[String]) -> Result<(String, Vec<Option<String>>), String> {
    let run = || -> std::io::Result<std::process::Output> {
        let mut child = Command::new(python)
            .args(["-I", "-c", SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let input = serde_json::to_vec(units).unwrap_or_default();
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(&input)?;
        }
        child.wait_with_output()
    };
    let out = run().map_err(|e| format!("could not run `{}`: {e}", python.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let digests: Vec<Option<String>> = text
        .lines()
        .map(|l| (!l.starts_with('!')).then(|| l.to_owned()))
        .collect();
    if !out.status.success() || digests.len() != units.len() {
        return Err(format!(
            "`{}` did not compile the functions: {}",
            python.display(),
            crate::exec::interpreter::last_line(&String::from_utf8_lossy(&out.stderr))
        ));
    }
    let version = crate::exec::interpreter::facts(python)
        .map(|f| f.version)
        .unwrap_or_default();
    Ok((version, digests))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> Option<std::path::PathBuf> {
        crate::exec::python_env::locate_on_path("python3")
    }

    fn mutant(id: &str, src: &str, function: &str, from: &str, to: &str) -> Mutant {
        let start = src.find(from).unwrap();
        Mutant {
            id: id.into(),
            kind: MutantKind::ConstantReplacement,
            file: "m.py".into(),
            function: function.into(),
            line: crate::python::line_of(src, start),
            start,
            end: start + from.len(),
            original: from.into(),
            replacement: to.into(),
            diff: String::new(),
            scope: None,
        }
    }

    #[test]
    fn same_code_is_dropped_and_different_code_kept() {
        let Some(py) = python() else { return };
        let dir = tempfile::tempdir().unwrap();
        let src = "class C:\n    def f(self, x):\n        y = x * 1.0\n        return (y)\n\n\ndef g(a):\n    return a + 1\n";
        std::fs::write(dir.path().join("m.py"), src).unwrap();
        let mutants = vec![
            // `(y)` and `y` compile alike: equivalent.
            mutant("paren", src, "C.f", "(y)", "y"),
            // `1.0` -> `1` is a different constant (1 == 1.0, but not the same code).
            mutant("int", src, "C.f", "1.0", "1"),
            mutant("plus2", src, "g", "+ 1", "+ 2"),
            // The same code as `plus2`, written differently: a duplicate.
            mutant("plus2b", src, "g", "a + 1", "a + (2)"),
        ];
        let (kept, tce) = drop_trivially_equivalent(dir.path(), mutants, Some(&py));
        let ids: Vec<&str> = kept.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["int", "plus2"], "{tce:?}");
        assert_eq!(tce.compared, 4);
        assert_eq!(
            tce.dropped,
            [
                Dropped {
                    id: "paren".into(),
                    kind: MutantKind::ConstantReplacement,
                    same_as: None
                },
                Dropped {
                    id: "plus2b".into(),
                    kind: MutantKind::ConstantReplacement,
                    same_as: Some("plus2".into())
                }
            ]
        );
        assert!(tce.python.starts_with("3."));
        assert!(
            tce.summary(kept.len()).starts_with(
                "1 of the 4 mutants compile to the original's code and 1 to an earlier mutant's"
            ),
            "{}",
            tce.summary(kept.len())
        );
    }

    #[test]
    fn without_an_interpreter_every_mutant_is_kept_and_the_reason_said() {
        let dir = tempfile::tempdir().unwrap();
        let src = "def g(a):\n    return a + 1\n";
        std::fs::write(dir.path().join("m.py"), src).unwrap();
        let m = vec![mutant("x", src, "g", "+ 1", "+ 2")];
        let (kept, tce) = drop_trivially_equivalent(dir.path(), m.clone(), None);
        assert_eq!(kept, m);
        assert!(tce.skipped.is_some());
        let (kept, tce) =
            drop_trivially_equivalent(dir.path(), m.clone(), Some(Path::new("/nonexistent/py")));
        assert_eq!(kept, m);
        assert!(tce.skipped.unwrap().contains("/nonexistent/py"));
    }
}
