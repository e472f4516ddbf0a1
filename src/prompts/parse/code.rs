//! Python code in replies: fenced and unfenced blocks, test files with their names, and
//! import statements, with a heuristic validity check (see the parent module).

use std::collections::HashSet;

use super::{ParsedTest, ParsedTests, excerpt, normalize, py_token};

/// A fenced or unfenced block of code found in a reply.
#[derive(Debug, Clone)]
struct Block {
    /// Lower-cased info string of the fence (`python`, `py`, empty for a bare fence).
    lang: String,
    body: String,
    /// Prose between the previous block and this one, where headers live.
    before: String,
    fenced: bool,
}

/// Python code blocks of a reply, in order: ```python / ```py / ```python3 fences, bare
/// fences whose content looks like Python, or the whole reply (minus surrounding prose) when it
/// has no fence at all and looks like Python. A fence left open at the end runs to the end.
pub fn extract_python_blocks(reply: &str) -> Vec<String> {
    python_blocks(reply).into_iter().map(|b| b.body).collect()
}

fn python_blocks(reply: &str) -> Vec<Block> {
    let blocks = split_blocks(reply);
    if blocks.iter().any(|b| b.fenced) {
        blocks
            .into_iter()
            .filter(|b| b.fenced && is_python_lang(&b.lang, &b.body))
            .collect()
    } else {
        unfenced_code(reply)
            .map(|body| Block {
                lang: String::new(),
                body,
                before: String::new(),
                fenced: false,
            })
            .into_iter()
            .collect()
    }
}

fn is_python_lang(lang: &str, body: &str) -> bool {
    match lang {
        "python" | "py" | "python3" | "py3" | "pytest" => true,
        "" => looks_like_python(body),
        _ => false,
    }
}

/// Splits a reply into fenced blocks (``` or ~~~), each with the prose that precedes it.
fn split_blocks(reply: &str) -> Vec<Block> {
    let text = normalize(reply);
    let mut blocks = Vec::new();
    let mut prose = String::new();
    let mut open: Option<(String, String, usize, String)> = None; // fence, lang, indent, body
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(fence) = fence_marker(trimmed) {
                    let lang = trimmed[fence.len()..]
                        .trim()
                        .split(|c: char| c.is_whitespace() || c == '{')
                        .next()
                        .unwrap_or("")
                        .to_lowercase();
                    open = Some((fence, lang, indent, String::new()));
                } else {
                    prose.push_str(line);
                    prose.push('\n');
                }
            }
            Some((fence, lang, fence_indent, body)) => {
                let t = trimmed.trim_end();
                if t.starts_with(fence.as_str()) && t.chars().all(|c| c == '`' || c == '~') {
                    blocks.push(Block {
                        lang: std::mem::take(lang),
                        body: finish_body(body),
                        before: std::mem::take(&mut prose),
                        fenced: true,
                    });
                    open = None;
                } else {
                    // Fences indented inside a list item indent their content too.
                    let cut = indent.min(*fence_indent);
                    body.push_str(&line[cut..]);
                    body.push('\n');
                }
            }
        }
    }
    if let Some((_, lang, _, body)) = open {
        // A reply cut off by the token limit leaves the last fence open.
        blocks.push(Block {
            lang,
            body: finish_body(&body),
            before: prose,
            fenced: true,
        });
    } else if !prose.trim().is_empty() {
        blocks.push(Block {
            lang: String::new(),
            body: String::new(),
            before: prose,
            fenced: false,
        });
    }
    blocks
}

fn fence_marker(trimmed: &str) -> Option<String> {
    for ch in ['`', '~'] {
        let n = trimmed.chars().take_while(|&c| c == ch).count();
        if n >= 3 {
            return Some(ch.to_string().repeat(n));
        }
    }
    None
}

fn finish_body(body: &str) -> String {
    let trimmed = body.trim_matches('\n').trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}\n")
    }
}

const CODE_STARTS: [&str; 8] = [
    "import ",
    "from ",
    "def ",
    "class ",
    "async def ",
    "@",
    "#!",
    "# -*-",
];

/// The code of a reply without fences: from the first line that starts Python code to the
/// last line that is code, dropping prose before and after.
fn unfenced_code(reply: &str) -> Option<String> {
    let text = normalize(reply);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| CODE_STARTS.iter().any(|s| l.starts_with(s)))?;
    let mut end = lines.len();
    // Trailing prose: unindented lines after the code that read like sentences.
    while end > start + 1 {
        let l = lines[end - 1];
        if l.trim().is_empty() || is_prose_line(l) {
            end -= 1;
        } else {
            break;
        }
    }
    let body = finish_body(&lines[start..end].join("\n"));
    looks_like_python(&body).then_some(body)
}

fn is_prose_line(line: &str) -> bool {
    if line.starts_with(char::is_whitespace) || line.starts_with('#') {
        return false;
    }
    let t = line.trim();
    let words = t.split_whitespace().count();
    let starts_upper = t.chars().next().is_some_and(|c| c.is_uppercase());
    let codey = t.contains('=') || t.contains('(') || t.ends_with(':') && !t.contains(' ');
    words >= 3 && starts_upper && !codey && !CODE_STARTS.iter().any(|s| t.starts_with(s))
}

/// Cheap "is this Python code" test for bare fences and unfenced replies.
fn looks_like_python(body: &str) -> bool {
    body.lines().any(|l| {
        let t = l.trim_start();
        [
            "def ",
            "class ",
            "import ",
            "from ",
            "assert ",
            "async def ",
        ]
        .iter()
        .any(|s| t.starts_with(s))
    })
}

/// Why `source` cannot be a test file, or `None` if it passes the heuristic checks.
fn python_problem(source: &str) -> Option<String> {
    if let Some(p) = bracket_problem(source) {
        return Some(p);
    }
    let has_test = source.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("def test") || t.starts_with("async def test") || t.starts_with("class Test")
    });
    (!has_test).then(|| "it defines no `def test_...` function or `class Test...`".to_string())
}

/// Unbalanced brackets or an unterminated string, skipping strings and comments.
fn bracket_problem(source: &str) -> Option<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => line += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '\'' | '"' => {
                let triple = i + 2 < chars.len() && chars[i + 1] == c && chars[i + 2] == c;
                let start_line = line;
                i += if triple { 3 } else { 1 };
                let mut closed = false;
                while i < chars.len() {
                    match chars[i] {
                        '\\' => i += 1,
                        '\n' if !triple => break,
                        '\n' => line += 1,
                        q if q == c => {
                            if !triple {
                                closed = true;
                                i += 1;
                                break;
                            }
                            if i + 2 < chars.len() && chars[i + 1] == c && chars[i + 2] == c {
                                closed = true;
                                i += 3;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                if !closed {
                    return Some(format!("unterminated string starting on line {start_line}"));
                }
                continue;
            }
            '(' | '[' | '{' => stack.push((c, line)),
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match stack.pop() {
                    Some((open, _)) if open == want => {}
                    Some((open, l)) => {
                        return Some(format!(
                            "`{c}` on line {line} does not match `{open}` opened on line {l}"
                        ));
                    }
                    None => return Some(format!("unmatched `{c}` on line {line}")),
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack
        .last()
        .map(|(open, l)| format!("`{open}` opened on line {l} is never closed (truncated?)"))
}

/// Tests from a reply that was asked for `expected_n` test files (`generate_one` with 1,
/// `generate_many` and `crossover` with n). Invalid and duplicate blocks are dropped, extra
/// tests beyond `expected_n` are dropped, and each of these is said in `problems`.
pub fn parse_tests(reply: &str, expected_n: usize) -> ParsedTests {
    let mut out = ParsedTests::default();
    if reply.trim().is_empty() {
        out.problems
            .push(format!("asked for {expected_n} tests, got an empty reply"));
        return out;
    }
    let mut seen = HashSet::new();
    let blocks = python_blocks(reply);
    for (i, block) in blocks.iter().enumerate() {
        let n = i + 1;
        if let Some(p) = python_problem(&block.body) {
            out.problems
                .push(format!("block {n} is not a valid Python test file: {p}"));
            continue;
        }
        if !seen.insert(block.body.clone()) {
            out.problems
                .push(format!("block {n} repeats an earlier test; dropped"));
            continue;
        }
        let name = header_name(&block.before).or_else(|| first_line_name(&block.body));
        out.tests.push(ParsedTest {
            name,
            source: block.body.clone(),
        });
    }
    let got = out.tests.len();
    if blocks.is_empty() {
        out.problems.push(format!(
            "asked for {expected_n} tests, got no Python code: {}",
            excerpt(reply)
        ));
    } else if got < expected_n {
        out.problems
            .push(format!("asked for {expected_n} tests, got {got}"));
    } else if got > expected_n {
        out.problems.push(format!(
            "asked for {expected_n} tests, got {got}; kept the first {expected_n}"
        ));
        out.tests.truncate(expected_n);
    }
    out
}

/// The file name in the last prose line before a block that names a `.py` file.
fn header_name(prose: &str) -> Option<String> {
    prose.lines().rev().take(3).find_map(py_token)
}

/// `# file: test_x.py` or `# test_x.py` as the first line of a block.
fn first_line_name(body: &str) -> Option<String> {
    let first = body.lines().next()?.trim();
    let rest = first.strip_prefix('#')?;
    // `# Tests for parser.py` names the code under test, not this file.
    let name = py_token(rest)?;
    let base = name.rsplit('/').next().unwrap_or(&name);
    (rest.to_lowercase().contains("file") || base.starts_with("test")).then_some(name)
}

/// Import statements of a `context_imports` reply, deduplicated, in order. Reads the Python
/// blocks if there are any, else the whole reply; joins parenthesized multi-line imports.
pub fn parse_imports(reply: &str) -> Vec<String> {
    let blocks = split_blocks(reply);
    let text = if blocks.iter().any(|b| b.fenced) {
        blocks
            .iter()
            .filter(|b| b.fenced && !matches!(b.lang.as_str(), "json" | "text" | "diff"))
            .map(|b| b.body.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        normalize(reply)
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let t = line.trim().trim_matches('`');
        let t = t.trim_start_matches(['-', '*', ' ']);
        if let Some(p) = &mut pending {
            p.push(' ');
            p.push_str(t);
            if t.contains(')') {
                out.push(tidy_import(p));
                pending = None;
            }
            continue;
        }
        let is_import =
            t.starts_with("import ") || t.starts_with("from ") && t.contains(" import ");
        if !is_import {
            continue;
        }
        if t.contains('(') && !t.contains(')') {
            pending = Some(t.to_string());
        } else {
            out.push(tidy_import(t));
        }
    }
    out.into_iter().filter(|i| seen.insert(i.clone())).collect()
}

fn tidy_import(s: &str) -> String {
    let s = s.split(" #").next().unwrap_or(s);
    let s = s.replace("( ", "(").replace(", )", ")").replace(" )", ")");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
