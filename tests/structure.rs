//! The shape of the source tree: every module imports only downwards. A file's dependencies
//! are the crate paths it names (`crate::`, `super::`, `self::` and its own child modules),
//! each resolved to the file that defines the item, through `pub use` re-exports; a
//! re-export alone is not a dependency (a facade names what its children define). Unit-test
//! modules are left out. A circle among the files is a failure, named file by file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// Every `.rs` file under `dir`, at any depth.
fn rs_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out
}

/// Every `.rs` file of `src/` by its module path (`exec/local/mod.rs` is `exec::local`);
/// `main.rs` is the binary's root, `lib.rs` the library's.
fn files(root: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    for p in rs_files(root) {
        let rel = p.strip_prefix(root).unwrap().with_extension("");
        let mut m: Module = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if matches!(m.last().map(String::as_str), Some("mod" | "lib")) {
            m.pop();
        }
        out.insert(m, std::fs::read_to_string(&p).unwrap());
    }
    for test in test_files(&out) {
        out.remove(&test);
    }
    out
}

/// The source as code only: comments and the insides of string and char literals become
/// spaces (a path in a message is not a dependency), and every `#[cfg(test)]` module block
/// is cut out. Everything else is read, whatever comes after a test-only item.
fn code(src: &str) -> String {
    cut_test_modules(&blank_literals(src))
}

/// Comments and literal contents as spaces, newlines kept so that lines still count.
fn blank_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == '"'
            || (c[i] == 'r' && matches!(next, Some('"' | '#')) && raw_start(&c, i))
        {
            // A string: `"..."` with escapes, or raw `r#"..."#` without.
            let raw = c[i] == 'r';
            let mut hashes = 0;
            if raw {
                out.push('r');
                i += 1;
                while c.get(i) == Some(&'#') {
                    hashes += 1;
                    out.push('#');
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
            while i < c.len() {
                if !raw && c[i] == '\\' {
                    blank(&mut out, c[i]);
                    if let Some(&e) = c.get(i + 1) {
                        blank(&mut out, e);
                    }
                    i += 2;
                } else if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
                    out.push('"');
                    out.extend(std::iter::repeat_n('#', hashes));
                    i += 1 + hashes;
                    break;
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            continue;
        } else if c[i] == '\'' {
            // A char literal (`'x'`, `'\n'`, `'\u{7f}'`), not a lifetime (`'a`).
            let close = if next == Some('\\') {
                (i + 2..c.len()).find(|&k| c[k] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    out.push_str("' ");
                    out.extend(std::iter::repeat_n(' ', k - i - 2));
                    out.push('\'');
                    i = k + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
            continue;
        } else {
            out.push(c[i]);
            i += 1;
            continue;
        }
    }
    out
}

/// `r` at `i` opens a raw string (`r"`, `r#"`, `br"`) and is not the end of a word (`for"`
/// cannot occur, but `bar#` would not be a string either).
fn raw_start(c: &[char], i: usize) -> bool {
    let word = |ch: char| ch.is_alphanumeric() || ch == '_';
    let starts_word = i == 0 || !word(c[i - 1]) || (c[i - 1] == 'b' && (i < 2 || !word(c[i - 2])));
    let mut k = i + 1;
    while c.get(k) == Some(&'#') {
        k += 1;
    }
    starts_word && c.get(k) == Some(&'"')
}

/// Every `#[cfg(test)]` module with a body (`mod tests { ... }`, at any indentation) as
/// blank lines; a test-only function or `use` stays in, since it is code that can name any
/// module. (A `#[cfg(test)] mod tests;` file is left out by `test_files`.)
fn cut_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|i| from + i) {
        let after = at + "#[cfg(test)]".len();
        let rest = &out[after..];
        let item = rest.trim_start();
        let item = item
            .strip_prefix("pub(crate) ")
            .or_else(|| item.strip_prefix("pub(super) "))
            .or_else(|| item.strip_prefix("pub "))
            .unwrap_or(item);
        let body = item.strip_prefix("mod ").and_then(|m| {
            let open = m.find(['{', ';'])?;
            (m.as_bytes()[open] == b'{').then_some(out.len() - m.len() + open)
        });
        let Some(open) = body else {
            from = after;
            continue;
        };
        let mut depth = 0;
        let mut close = out.len();
        for (k, ch) in out[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked: String = out[at..close]
            .chars()
            .map(|ch| if ch == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..close, &blanked);
        from = close;
    }
    out
}

/// The files that are a `#[cfg(test)] mod x;` of their parent, and everything under them.
fn test_files(files: &BTreeMap<Module, String>) -> BTreeSet<Module> {
    let mut out = BTreeSet::new();
    for (module, src) in files {
        let code = blank_literals(src);
        let mut from = 0;
        while let Some(at) = code[from..].find("#[cfg(test)]").map(|i| from + i) {
            from = at + "#[cfg(test)]".len();
            let item = code[from..].trim_start();
            let Some(m) = item.strip_prefix("mod ") else {
                continue;
            };
            let name: String = m
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if m[name.len()..].trim_start().starts_with(';') {
                let mut child = module.clone();
                child.push(name);
                out.extend(files.keys().filter(|k| k.starts_with(&child)).cloned());
            }
        }
    }
    out
}

/// `a::{b, c::{d, e as f}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        if !tree.is_empty() {
            let path = tree.split(" as ").next().unwrap_or(tree).trim();
            out.push(format!("{prefix}{path}"));
        }
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&inner[start..i], &head, out);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand(&inner[start..], &head, out);
}

/// A path named in `module` as (defining file, first item after it).
fn resolve(
    files: &BTreeMap<Module, String>,
    module: &Module,
    path: &str,
) -> Option<(Module, Option<String>)> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (mut base, rest): (Module, &[&str]) = match segs.first()? {
        &"crate" => (vec![], &segs[1..]),
        &"self" => (module.clone(), &segs[1..]),
        &"super" => {
            let mut base = module.clone();
            let mut i = 0;
            while segs.get(i) == Some(&"super") {
                base.pop();
                i += 1;
            }
            (base, &segs[i..])
        }
        first => {
            let mut child = module.clone();
            child.push(first.to_string());
            if !files.contains_key(&child) {
                return None;
            }
            (module.clone(), &segs[..])
        }
    };
    base.extend(rest.iter().map(|s| s.to_string()));
    (0..=base.len())
        .rev()
        .find(|&k| files.contains_key(&base[..k]))
        .map(|k| (base[..k].to_vec(), base.get(k).cloned()))
}

/// Each file's dependencies on other files.
fn graph(files: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let use_stmt = |s: &str| -> Vec<(usize, usize, bool)> {
        // (start, end, is pub) of each `use ...;`
        let mut out = vec![];
        let mut from = 0;
        while let Some(i) = s[from..].find("use ") {
            let at = from + i;
            let before = &s[..at];
            let word_start = at == 0 || !s.as_bytes()[at - 1].is_ascii_alphanumeric();
            let end = s[at..].find(';').map(|e| at + e);
            match end {
                Some(end) if word_start => {
                    let line_start = before.rfind('\n').map(|n| n + 1).unwrap_or(0);
                    let lead = before[line_start..].trim();
                    if lead.is_empty() || lead.starts_with("pub") {
                        out.push((at, end, lead.starts_with("pub")));
                    }
                    from = end;
                }
                _ => from = at + 4,
            }
        }
        out
    };
    let mut uses: BTreeMap<Module, Vec<(Module, Option<String>)>> = BTreeMap::new();
    let mut reexports: BTreeMap<Module, Vec<(Module, Option<String>)>> = BTreeMap::new();
    for (module, src) in files {
        let src = code(src);
        let mut named = vec![];
        let mut rest = src.clone();
        for (start, end, public) in use_stmt(&src).into_iter().rev() {
            let mut paths = vec![];
            expand(&src[start + 4..end], "", &mut paths);
            for p in paths {
                named.push((p, public));
            }
            rest.replace_range(start..end, "");
        }
        // Paths in code: words joined by `::`.
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            if word(bytes[i]) && (i == 0 || !(word(bytes[i - 1]) || bytes[i - 1] == b':')) {
                let mut j = i;
                while j < bytes.len() && (word(bytes[j]) || rest[j..].starts_with("::")) {
                    j += if bytes[j] == b':' { 2 } else { 1 };
                }
                let path = &rest[i..j];
                if path.contains("::") {
                    named.push((path.to_string(), false));
                }
                i = j.max(i + 1);
            } else {
                i += 1;
            }
        }
        for (path, public) in named {
            if let Some((target, item)) = resolve(files, module, &path)
                && &target != module
            {
                let to = if public { &mut reexports } else { &mut uses };
                to.entry(module.clone()).or_default().push((target, item));
            }
        }
    }
    // Through re-exports to the defining file: a file that defines the item keeps it; else
    // its re-export of that name, else a glob re-export.
    let defines = |target: &Module, item: &str| {
        let src = code(&files[target]);
        [
            "fn",
            "struct",
            "enum",
            "trait",
            "type",
            "const",
            "static",
            "mod",
            "macro_rules!",
        ]
        .iter()
        .any(|kw| {
            src.match_indices(&format!("{kw} {item}")).any(|(at, m)| {
                let after = src[at + m.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
    };
    let defining = |mut target: Module, item: Option<String>| {
        let Some(item) = item else { return target };
        for _ in 0..8 {
            if defines(&target, &item) {
                break;
            }
            let r = reexports.get(&target);
            let exact = r.and_then(|r| r.iter().find(|(_, it)| it.as_deref() == Some(&item)));
            let glob = r.and_then(|r| r.iter().find(|(_, it)| it.as_deref() == Some("*")));
            match exact.or(glob) {
                Some((t, _)) if *t != target => target = t.clone(),
                _ => break,
            }
        }
        target
    };
    let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, deps) in uses {
        for (target, item) in deps {
            let t = defining(target, item);
            if t != module {
                g.entry(module.clone()).or_default().insert(t);
            }
        }
    }
    g
}

/// A circle through `start`, if there is one (depth-first search back to it).
fn circle(g: &BTreeMap<Module, BTreeSet<Module>>, start: &Module) -> Option<Vec<Module>> {
    fn walk(
        g: &BTreeMap<Module, BTreeSet<Module>>,
        at: &Module,
        start: &Module,
        path: &mut Vec<Module>,
        seen: &mut BTreeSet<Module>,
    ) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(g, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.clone()];
    walk(g, start, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("/")
    }
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = files(&root);
    let g = graph(&files);
    let circles: Vec<String> = files
        .keys()
        .filter_map(|m| circle(&g, m))
        .map(|c| {
            let mut names: Vec<String> = c.iter().map(name).collect();
            names.push(names[0].clone());
            names.join(" -> ")
        })
        .collect();
    assert!(
        circles.is_empty(),
        "modules that import each other (move what both need into a module below them):\n{}",
        circles.join("\n")
    );
    // The graph is not empty by mistake: the engine reaches the executors.
    assert!(
        g.get(&vec!["engine".to_string(), "machine".to_string()])
            .is_some_and(|d| d.iter().any(|m| m.first().is_some_and(|f| f == "exec"))),
        "{g:?}"
    );
}

#[test]
fn a_circle_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\n").unwrap();
    std::fs::write(
        src.join("a/mod.rs"),
        "mod b;\nmod c;\npub use b::B;\nfn f() { c::g(); }\n",
    )
    .unwrap();
    std::fs::write(src.join("a/b.rs"), "pub struct B;\n").unwrap();
    std::fs::write(
        src.join("a/c.rs"),
        "use super::B;\npub fn g() { super::f(); }\n",
    )
    .unwrap();
    let files = files(src);
    let g = graph(&files);
    let a = vec!["a".to_string()];
    let c = vec!["a".to_string(), "c".to_string()];
    // `use super::B` reaches b.rs through the re-export, not a.
    assert!(g[&c].contains(&vec!["a".to_string(), "b".to_string()]));
    assert_eq!(
        circle(&g, &a).map(|p| p.iter().map(name).collect::<Vec<_>>()),
        Some(vec!["a".to_string(), "a/c".to_string()])
    );
    assert_eq!(circle(&g, &vec!["a".to_string(), "b".to_string()]), None);
}

/// The layers of ARCHITECTURE.md's `layers` block, top first: each line names the top-level
/// modules of one floor (`main` is the binary's root, `lib` the library's facade).
fn layers(architecture: &str) -> Vec<Vec<String>> {
    let start = architecture
        .find("```layers\n")
        .expect("ARCHITECTURE.md has a ```layers block")
        + "```layers\n".len();
    let end = start + architecture[start..].find("```").expect("the block ends");
    architecture[start..end]
        .lines()
        .map(|l| {
            l.split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .map(String::from)
                .collect()
        })
        .filter(|l: &Vec<String>| !l.is_empty())
        .collect()
}

/// Every arrow that goes up a floor, as `from -> to (floor i -> floor j)`; a top-level module
/// no floor names is itself a finding, so a new module has to be placed.
fn upward(
    g: &BTreeMap<Module, BTreeSet<Module>>,
    files: &BTreeMap<Module, String>,
    layers: &[Vec<String>],
) -> Vec<String> {
    let top = |m: &Module| m.first().cloned().unwrap_or_else(|| "lib".into());
    let floor = |m: &Module| layers.iter().position(|l| l.contains(&top(m)));
    let mut out = vec![];
    for m in files.keys() {
        if floor(m).is_none() {
            out.push(format!(
                "{} is on no floor of ARCHITECTURE.md's layers",
                name(m)
            ));
        }
    }
    for (from, deps) in g {
        for to in deps {
            if let (Some(a), Some(b)) = (floor(from), floor(to))
                && b < a
            {
                out.push(format!(
                    "{} -> {} (from the floor of {} up to the floor of {})",
                    name(from),
                    name(to),
                    top(from),
                    top(to)
                ));
            }
        }
    }
    out
}

fn architecture() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap()
}

#[test]
fn every_import_goes_down_the_floors_of_architecture_md() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = files(&root);
    let layers = layers(&architecture());
    let up = upward(&graph(&files), &files, &layers);
    assert!(
        up.is_empty(),
        "imports that go up a floor (move what is needed down, or the module up):\n{}",
        up.join("\n")
    );
}

#[test]
fn an_engine_file_that_imports_the_workbench_fails_the_layering() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = files(&root);
    let layers = layers(&architecture());
    let engine: Vec<&Module> = files
        .keys()
        .filter(|m| m.first().is_some_and(|f| f == "engine"))
        .collect();
    assert!(engine.len() > 10, "{engine:?}");
    // Planted in every engine file at once (one graph; each arrow is found on its own), at
    // the file's end, below whatever test-only item or module it has.
    let mut planted = files.clone();
    for m in &engine {
        planted
            .get_mut(*m)
            .unwrap()
            .push_str("\nuse crate::workbench::Workbench;\nfn planted(_: Workbench) {}\n");
    }
    let up = upward(&graph(&planted), &planted, &layers);
    for m in engine {
        assert!(
            up.iter()
                .any(|u| u.starts_with(&format!("{} -> workbench", name(m)))),
            "{}: {up:?}",
            name(m)
        );
    }
}

#[test]
fn an_import_below_an_indented_test_only_item_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "pub mod engine;\npub mod workbench;\n").unwrap();
    std::fs::write(src.join("workbench.rs"), "pub struct W;\n").unwrap();
    std::fs::write(
        src.join("engine.rs"),
        "pub struct E;\nimpl E {\n    #[cfg(test)]\n    fn fixture() -> E { E }\n}\n\
         const S: &str = \"}\\\"{ // not a comment\";\nconst C: char = '{';\n\
         /* a { comment */\nfn f(_: &'static str) -> crate::workbench::W { crate::workbench::W }\n\
         #[cfg(test)]\nmod tests {\n    use crate::workbench::W;\n    fn g() { let _ = \"{\"; }\n}\n",
    )
    .unwrap();
    let files = files(src);
    let g = graph(&files);
    let layers = vec![
        vec!["lib".to_string()],
        vec!["engine".into()],
        vec!["workbench".into()],
    ];
    let engine = vec!["engine".to_string()];
    assert!(g[&engine].contains(&vec!["workbench".to_string()]), "{g:?}");
    // The module of tests is cut out, and only it.
    assert!(!code(&files[&engine]).contains("mod tests"));
    assert!(code(&files[&engine]).contains("fn f("));
    assert_eq!(upward(&g, &files, &layers), Vec::<String>::new());
    let inverted = vec![
        vec!["lib".to_string()],
        vec!["workbench".into()],
        vec!["engine".into()],
    ];
    assert_eq!(
        upward(&g, &files, &inverted),
        vec![
            "engine -> workbench (from the floor of engine up to the floor of workbench)"
                .to_string()
        ]
    );
}

#[test]
fn a_test_module_file_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(
        src.join("a/mod.rs"),
        "#[cfg(test)]\nmod tests;\npub fn f() {}\n",
    )
    .unwrap();
    std::fs::write(src.join("a/tests.rs"), "use crate::b::B;\n").unwrap();
    std::fs::write(src.join("b.rs"), "pub struct B;\n").unwrap();
    let files = files(src);
    assert!(!files.contains_key(&vec!["a".to_string(), "tests".to_string()]));
    assert!(files.contains_key(&vec!["a".to_string()]));
}

/// The `.rs` files ARCHITECTURE.md's map names (the one fenced block opened by a bare fence):
/// a line at column 0 names paths from the repository root and sets the directory heading
/// (its one `src/.../` name); a line indented two spaces names paths under that heading.
/// A name is what comes before the first two spaces; `a, b` and `a + b` name two.
fn mapped(architecture: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let (mut inside, mut is_map, mut heading) = (false, false, String::new());
    for line in architecture.lines() {
        if line.starts_with("```") {
            inside = !inside;
            is_map = inside && line.trim() == "```";
            continue;
        }
        if !is_map {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if indent != 0 && indent != 2 {
            continue;
        }
        let field = line.trim_start().split("  ").next().unwrap_or("");
        let names: Vec<&str> = field
            .split([',', '+'])
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        if indent == 0 {
            heading = names
                .iter()
                .find(|n| n.starts_with("src/") && n.ends_with('/'))
                .map(|n| n.to_string())
                .unwrap_or_default();
        }
        for n in names {
            let path = if indent == 0 {
                n.to_string()
            } else {
                format!("{heading}{n}")
            };
            if path.ends_with(".rs") {
                out.insert(path);
            }
        }
    }
    out
}

#[test]
fn architecture_md_maps_every_source_file_and_no_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let on_disk: BTreeSet<String> = rs_files(&root.join("src"))
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
        .collect();
    let mapped = mapped(&architecture());
    let missing: Vec<_> = on_disk.difference(&mapped).collect();
    let gone: Vec<_> = mapped.difference(&on_disk).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "ARCHITECTURE.md's map misses {missing:?} and names files that do not exist: {gone:?}"
    );
}
