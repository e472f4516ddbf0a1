//! Lists in replies: ids chosen by selection, file paths, the test location and focal
//! functions.

use std::collections::HashSet;

use super::{
    ParseError, ParsedIds, clean_token, excerpt, is_path_like, json_arrays, json_scalar, normalize,
    tokens,
};

/// Ids chosen by the model, limited to `allowed_ids`. Reads the last JSON list of the reply
/// (the prompt asks to end with it; earlier lists are often examples or drafts), else lines
/// that start with an id (bullets, numbering, backticks and bold are tolerated). Matching is
/// exact, then case-insensitive, then a bare number `3` matches the one id ending in `3`.
pub fn parse_id_list(reply: &str, allowed_ids: &[String]) -> Result<ParsedIds, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let candidates: Vec<String> = match json_arrays(reply)
        .into_iter()
        .rev()
        .map(|a| a.iter().filter_map(json_scalar).collect::<Vec<_>>())
        .find(|a| !a.is_empty())
    {
        Some(a) => a,
        None => normalize(reply)
            .lines()
            .filter_map(|l| {
                let mut toks = tokens(strip_list_marker(l));
                let first = toks.next()?;
                if matches!(first.to_lowercase().as_str(), "test" | "id") {
                    toks.next()
                } else {
                    Some(first)
                }
            })
            .filter(|t| resolve_id(t, allowed_ids).is_some())
            .collect(),
    };
    let mut out = ParsedIds::default();
    for c in candidates {
        match resolve_id(&c, allowed_ids) {
            Some(id) if out.ids.contains(&id) => {
                out.notes.push(format!("id `{id}` was named twice"));
            }
            Some(id) => out.ids.push(id),
            None => out.notes.push(format!("dropped unknown id `{c}`")),
        }
    }
    if out.ids.is_empty() {
        return Err(ParseError::NoIds {
            allowed: allowed_ids.join(", "),
            excerpt: excerpt(reply),
        });
    }
    Ok(out)
}

/// The line without a leading bullet (`-`, `*`, `+`, `•`) or number (`1.`, `2)`), so that
/// numbering is never read as an id.
fn strip_list_marker(line: &str) -> &str {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix(['-', '*', '+', '•']) {
        return rest;
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match t[digits..].chars().next() {
        Some('.' | ')') if digits > 0 => &t[digits + 1..],
        _ => t,
    }
}

const PY_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

fn resolve_id(candidate: &str, allowed: &[String]) -> Option<String> {
    let c = candidate.trim().trim_start_matches('#');
    if let Some(a) = allowed.iter().find(|a| a.as_str() == c) {
        return Some(a.clone());
    }
    if let Some(a) = allowed.iter().find(|a| a.eq_ignore_ascii_case(c)) {
        return Some(a.clone());
    }
    if !c.is_empty() && c.chars().all(|ch| ch.is_ascii_digit()) {
        let mut ends = allowed.iter().filter(|a| {
            let digits: String = a
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.trim_start_matches('0') == c.trim_start_matches('0') && !digits.is_empty()
        });
        if let (Some(a), None) = (ends.next(), ends.next()) {
            return Some(a.clone());
        }
    }
    None
}

/// File paths named in a reply, deduplicated, in order: the first JSON list that holds
/// paths, else every `.py`/`.pyi` path found line by line (bullets, numbering, backticks,
/// trailing explanations tolerated). A leading `./` is dropped and `\` becomes `/`.
pub fn parse_paths(reply: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let from_json: Vec<String> = json_arrays(reply)
        .into_iter()
        .map(|a| {
            a.iter()
                .filter_map(json_scalar)
                .map(|s| clean_token(&s))
                .filter(|s| is_path_like(s))
                .collect::<Vec<_>>()
        })
        .find(|a| !a.is_empty())
        .unwrap_or_default();
    let all = if from_json.is_empty() {
        normalize(reply)
            .lines()
            .flat_map(|l| tokens(l).filter(|t| is_path_like(t)).collect::<Vec<_>>())
            .collect()
    } else {
        from_json
    };
    all.into_iter().filter(|p| seen.insert(p.clone())).collect()
}

/// The one test-file path of a `context_location` reply. The prompt asks for the path at the
/// end, on a line of its own; prose before it often names existing test files ("the settings
/// tests live in `tests/test_settings.py`"), which must not be taken. So: the path after
/// `TEST_FILE:` if present; else the last line that is a path and nothing else; else the last
/// relative `.py` path named (a code span at the end). Absolute paths and paths with `..` are
/// skipped because the test is written inside the repository by this path.
pub fn parse_single_path(reply: &str) -> Result<String, ParseError> {
    if reply.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let text = normalize(reply);
    let usable = |t: &String| is_path_like(t) && !t.split('/').any(|c| c == "..");
    let clean = |t: String| t.trim_start_matches('/').to_string();
    let marked = text
        .lines()
        .filter(|l| l.to_uppercase().contains("TEST_FILE"))
        .flat_map(|l| tokens(l).collect::<Vec<_>>())
        .map(clean)
        .find(usable);
    let alone = || {
        text.lines().rev().find_map(|l| {
            let mut toks = tokens(l.trim_start_matches(['-', '*', '+', '>']).trim());
            let only = toks.next().map(clean)?;
            (toks.next().is_none() && usable(&only)).then_some(only)
        })
    };
    let last = || {
        text.lines()
            .flat_map(|l| tokens(l).collect::<Vec<_>>())
            .map(clean)
            .rfind(usable)
    };
    marked
        .or_else(alone)
        .or_else(last)
        .ok_or_else(|| ParseError::NoPath {
            excerpt: excerpt(reply),
        })
}

/// `FILE::QUALNAME` focal functions named in a reply, deduplicated, in order. Tolerates
/// bullets, numbering, backticks, quotes, JSON lists, `()` after the name and a pytest-style
/// `file.py::Class::method` (read as `Class.method`). Entries whose file is not a relative
/// `.py` path or whose name is not a dotted identifier are skipped.
pub fn parse_focal(reply: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    normalize(reply)
        .lines()
        .flat_map(|l| tokens(l).collect::<Vec<_>>())
        .filter_map(|t| {
            let (file, qual) = t.split_once("::")?;
            let file = file.trim_start_matches('/').to_string();
            let qual = qual.replace("::", ".");
            let qual = qual.trim_end_matches("()");
            let name_ok = !qual.is_empty()
                && qual.split('.').all(|p| {
                    !p.is_empty()
                        && p.chars().all(|c| c.is_alphanumeric() || c == '_')
                        && !p.starts_with(|c: char| c.is_ascii_digit())
                        && !PY_KEYWORDS.contains(&p)
                });
            let file_ok = is_path_like(&file) && !file.split('/').any(|c| c == "..");
            (name_ok && file_ok).then(|| format!("{file}::{qual}"))
        })
        .filter(|f| seen.insert(f.clone()))
        .collect()
}
