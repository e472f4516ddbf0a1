//! The data of a code mutant (paper Table I). Kept apart from the generator so the engine,
//! the session document and later the TUI share one definition.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The nine rule-based mutant kinds of Table I.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantKind {
    BinaryArithmetic,
    UnaryArithmetic,
    BinaryRelational,
    BinaryLogical,
    UnaryLogical,
    ConstantReplacement,
    ReturnValue,
    Assignment,
    ForceFailure,
}

impl MutantKind {
    pub const ALL: [MutantKind; 9] = [
        MutantKind::BinaryArithmetic,
        MutantKind::UnaryArithmetic,
        MutantKind::BinaryRelational,
        MutantKind::BinaryLogical,
        MutantKind::UnaryLogical,
        MutantKind::ConstantReplacement,
        MutantKind::ReturnValue,
        MutantKind::Assignment,
        MutantKind::ForceFailure,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MutantKind::BinaryArithmetic => "binary_arithmetic",
            MutantKind::UnaryArithmetic => "unary_arithmetic",
            MutantKind::BinaryRelational => "binary_relational",
            MutantKind::BinaryLogical => "binary_logical",
            MutantKind::UnaryLogical => "unary_logical",
            MutantKind::ConstantReplacement => "constant_replacement",
            MutantKind::ReturnValue => "return_value",
            MutantKind::Assignment => "assignment",
            MutantKind::ForceFailure => "force_failure",
        }
    }
}

impl MutantKind {
    /// The paper's category of the kind (Sec. V-C, Table IX): the five operator kinds are one,
    /// `operators`; each other kind is its own.
    pub fn category(self) -> &'static str {
        match self {
            MutantKind::BinaryArithmetic
            | MutantKind::UnaryArithmetic
            | MutantKind::BinaryRelational
            | MutantKind::BinaryLogical
            | MutantKind::UnaryLogical => "operators",
            other => other.as_str(),
        }
    }

    /// The kinds a comma-separated list names: categories (`operators`, `constant_replacement`,
    /// `return_value`, `assignment`, `force_failure`) or single kinds, `-` or `_` alike;
    /// sorted, each once.
    pub fn parse_list(list: &str) -> Result<Vec<MutantKind>, String> {
        let mut out = vec![];
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let name = name.replace('-', "_");
            let kinds: Vec<MutantKind> = MutantKind::ALL
                .into_iter()
                .filter(|k| k.as_str() == name || k.category() == name)
                .collect();
            if kinds.is_empty() {
                let mut names = vec!["operators"];
                names.extend(MutantKind::ALL.iter().map(|k| k.as_str()));
                return Err(format!(
                    "unknown mutant kind `{name}`; name categories or kinds, comma-separated: {}",
                    names.join(", ")
                ));
            }
            out.extend(kinds);
        }
        if out.is_empty() {
            return Err("no mutant kind named; e.g. --mutant-kinds operators,force_failure".into());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// A list of kinds as `--mutant-kinds` takes it ([`MutantKind::parse_list`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindList(pub Vec<MutantKind>);

impl std::str::FromStr for KindList {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MutantKind::parse_list(s).map(KindList)
    }
}

impl fmt::Display for MutantKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MutantKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MutantKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<_> = MutantKind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown mutant kind `{s}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Which alternatives each mutation site gets. Table I names one or two per operator, which
/// leaves a small focal function with a pool too small to separate tests; `All` gives every
/// alternative of the operator's class and the usual constant replacements, so the same sites
/// yield more mutants. `All` is a superset of `TableI`: every Table-I candidate is also an
/// `All` candidate, with its id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operators {
    /// The replacements of paper Table I, as evootter made them before `All` existed.
    TableI,
    /// Every alternative of each operator's class, and more constant replacements.
    #[default]
    All,
}

/// Where a mutant's function stands to the focal functions. A mutant of a focal function has
/// none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// A function a focal function calls (or reads as a property).
    Callee,
    /// A function that calls a focal function.
    Caller,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Callee => "callee",
            Scope::Caller => "caller",
        }
    }
}

/// Which functions the pool is made from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutantScope {
    /// The focal functions only (the paper's scope).
    #[default]
    Focal,
    /// The focal functions, and their callees and callers (in the focal files, and the
    /// callers in modules that import a focal function) when the focal functions yield fewer
    /// mutants than `m`.
    Widened,
}

impl MutantScope {
    pub fn as_str(self) -> &'static str {
        match self {
            MutantScope::Focal => "focal",
            MutantScope::Widened => "widened",
        }
    }
}

/// One code mutant: a single byte-range replacement in one file of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// Stable id: a hash of (file, function, kind, byte range, replacement).
    pub id: String,
    pub kind: MutantKind,
    /// File relative to the repo root, `/` separators.
    pub file: String,
    /// Qualified name of the focal function the mutant is in.
    pub function: String,
    /// 1-based line of the mutation site.
    pub line: usize,
    /// Byte range in the original file that is replaced.
    pub start: usize,
    pub end: usize,
    /// The original text of that range and what replaces it.
    pub original: String,
    pub replacement: String,
    /// Unified diff (`--- a/FILE` / `+++ b/FILE`) that `git apply` accepts at the repo root.
    pub diff: String,
    /// A mutant of a focal function's callee or caller (the widened scope); `None`: of a
    /// focal function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
}

impl Mutant {
    /// The mutated file content, given the original content of `self.file`.
    pub fn apply(&self, original_source: &str) -> String {
        let mut out = String::with_capacity(original_source.len() + self.replacement.len());
        out.push_str(&original_source[..self.start]);
        out.push_str(&self.replacement);
        out.push_str(&original_source[self.end..]);
        out
    }
}

/// The initial mutant set of a run (paper III-C: generated until `m` unique mutants exist).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantPool {
    pub mutants: Vec<Mutant>,
    /// How many were asked for (`m`).
    pub requested: usize,
    /// Random draws (function, kind) made, including inapplicable ones.
    pub attempts: usize,
    /// True when the focal functions cannot yield `requested` unique mutants.
    pub exhausted: bool,
    /// The mix of kinds in `mutants`.
    pub kinds: BTreeMap<MutantKind, usize>,
    /// SHA-256 of each focal file's original content, so a resumed session can tell that the
    /// repository changed under it.
    pub file_hashes: BTreeMap<String, String>,
    /// The trivially equivalent and duplicate mutants left out of `mutants` (`None`: a
    /// session from before the check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tce: Option<Tce>,
}

impl MutantPool {
    /// How many mutants of the focal functions' callees and callers the pool holds, per
    /// scope (empty: none, the focal functions yielded enough).
    pub fn widened(&self) -> BTreeMap<Scope, usize> {
        let mut out = BTreeMap::new();
        for s in self.mutants.iter().filter_map(|m| m.scope) {
            *out.entry(s).or_insert(0) += 1;
        }
        out
    }

    /// Of the focal functions only.
    pub fn focal_count(&self) -> usize {
        self.mutants.iter().filter(|m| m.scope.is_none()).count()
    }
}

/// The pool's size against `m` in words a reader takes at face value: with every operator
/// alternative the pool is usually larger than `m`, which then bounds each generation's
/// sample, not the pool ("52 of 20" read as an error).
pub fn pool_words(count: usize, requested: usize, exhausted: bool, operators: Operators) -> String {
    let made = match operators {
        Operators::All => "every alternative",
        Operators::TableI => "Table I's replacements",
    };
    if count >= requested {
        format!("pool {count} mutants ({made}); each generation samples up to {requested}")
    } else {
        format!(
            "pool {count} mutants, fewer than the {requested} asked{}",
            if exhausted {
                " (the focal functions yield no more)"
            } else {
                ""
            }
        )
    }
}

/// What trivial compiler equivalence (`equivalence`) did to a pool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tce {
    /// The interpreter that compiled the functions (`3.11.2`); empty when none did.
    pub python: String,
    /// Why nothing was compared, when nothing was (no interpreter, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Mutants compiled (the others are kept unexamined).
    pub compared: usize,
    /// Dropped mutants, in pool order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<Dropped>,
}

/// A mutant that was not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    pub id: String,
    pub kind: MutantKind,
    /// `None`: its code is the original's (trivially equivalent); `Some(id)`: the earlier
    /// mutant whose code it has (a duplicate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_named_by_category_or_one_by_one() {
        use MutantKind::*;
        assert_eq!(
            MutantKind::parse_list("operators").unwrap(),
            [
                BinaryArithmetic,
                UnaryArithmetic,
                BinaryRelational,
                BinaryLogical,
                UnaryLogical
            ]
        );
        assert_eq!(
            MutantKind::parse_list("force-failure, return_value,force_failure").unwrap(),
            [ReturnValue, ForceFailure]
        );
        assert_eq!(
            MutantKind::parse_list("binary_logical").unwrap(),
            [BinaryLogical]
        );
        let e = MutantKind::parse_list("operator").unwrap_err();
        assert!(
            e.contains("`operator`") && e.contains("force_failure"),
            "{e}"
        );
        assert!(MutantKind::parse_list(" , ").is_err());
        let categories: std::collections::BTreeSet<&str> =
            MutantKind::ALL.iter().map(|k| k.category()).collect();
        assert_eq!(categories.len(), 5, "the paper's five categories");
    }

    /// The pool's words name the replacements it was made with (a Table I pool said "every
    /// alternative" once).
    #[test]
    fn the_pool_s_words_name_its_operators() {
        assert_eq!(
            pool_words(52, 20, false, Operators::All),
            "pool 52 mutants (every alternative); each generation samples up to 20"
        );
        assert_eq!(
            pool_words(24, 20, false, Operators::TableI),
            "pool 24 mutants (Table I's replacements); each generation samples up to 20"
        );
        assert_eq!(
            pool_words(7, 20, true, Operators::TableI),
            "pool 7 mutants, fewer than the 20 asked (the focal functions yield no more)"
        );
    }
}
