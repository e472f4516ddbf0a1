//! Robust parsing of model replies: code blocks, tests, id lists, paths, focal functions.
//!
//! Models wrap answers in prose, forget closing fences, number their lists and answer with
//! more or fewer items than asked. Every function here accepts any string without panicking
//! and reports what it had to drop, so a bad reply costs one candidate, never the run.
//!
//! Python validity is a heuristic (balanced brackets and string literals, a `def test_` or a
//! `class Test`): tree-sitter is not a dependency of this module, and the engine runs every
//! test anyway, so a test that slips through fails visibly at execution.

mod code;
mod lists;
mod verdict;

pub use self::code::{extract_python_blocks, parse_imports, parse_tests};
pub use lists::{parse_focal, parse_id_list, parse_paths, parse_single_path};
pub use verdict::{Verdict, parse_verdict};

/// One test file taken from a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedTest {
    /// File name from a header such as `### test_x.py` or `# file: test_x.py`, if any.
    pub name: Option<String>,
    /// The complete file, with `\n` line endings and a final newline.
    pub source: String,
}

/// The tests of a reply plus what was wrong with it, in words fit for a log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedTests {
    pub tests: Vec<ParsedTest>,
    pub problems: Vec<String>,
}

/// Ids chosen by the model, plus notes about what was dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedIds {
    pub ids: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the reply is empty")]
    Empty,
    #[error("the reply names none of the expected ids ({allowed}); it starts with: {excerpt}")]
    NoIds { allowed: String, excerpt: String },
    #[error("the reply names no usable relative `.py` path; it starts with: {excerpt}")]
    NoPath { excerpt: String },
}

pub(super) fn normalize(reply: &str) -> String {
    reply.replace("\r\n", "\n").replace('\r', "\n")
}

/// The first token ending in `.py` on a line, cleaned of Markdown decoration.
pub(super) fn py_token(line: &str) -> Option<String> {
    tokens(line).find(|t| t.ends_with(".py") && t.len() > 3 && !t.contains("://"))
}

pub(super) fn tokens(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ',' | '"' | '\'' | '`' | '[' | ']' | '*' | '|' | '<' | '>'
            )
    })
    .map(clean_token)
    .filter(|t| !t.is_empty())
}

pub(super) fn clean_token(t: &str) -> String {
    let t = t.trim_end_matches(['.', ',', ';', ':', ')', '(', '!', '?']);
    let t = t.strip_suffix("()").unwrap_or(t);
    let t = t.trim_start_matches(['(', '-', '+']);
    let mut t = t.replace('\\', "/");
    while t.contains("//") && !t.contains("://") {
        t = t.replace("//", "/");
    }
    let t = t.strip_prefix("./").unwrap_or(&t).to_string();
    // `file.py:` (a label) and `FILE:` (a key) both lose the colon above; `TEST_FILE:path` not.
    t.rsplit_once("FILE:")
        .map_or(t.clone(), |(_, p)| p.to_string())
}

pub(super) fn excerpt(reply: &str) -> String {
    let one_line: String = reply.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return "(empty)".into();
    }
    let cut: String = one_line.chars().take(80).collect();
    if cut.len() < one_line.len() {
        format!("{cut}...")
    } else {
        cut
    }
}

/// Every JSON array in the reply (in order), parsed leniently from each `[`.
pub(super) fn json_arrays(reply: &str) -> Vec<Vec<serde_json::Value>> {
    let mut found = Vec::new();
    let mut skip_to = 0;
    for (i, _) in reply.match_indices('[') {
        if i < skip_to {
            continue;
        }
        let mut stream =
            serde_json::Deserializer::from_str(&reply[i..]).into_iter::<serde_json::Value>();
        if let Some(Ok(serde_json::Value::Array(items))) = stream.next() {
            skip_to = i + stream.byte_offset();
            found.push(items);
        }
    }
    found
}

pub(super) fn json_scalar(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(super) fn is_path_like(t: &str) -> bool {
    let ext_ok = t
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && matches!(ext, "py" | "pyi"));
    ext_ok
        && !t.contains("://")
        && !t.contains("::")
        && t.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}
