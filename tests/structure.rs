//! The shape of the source tree: every module imports only downwards. A file's dependencies
//! are the crate paths it names (`crate::`, `super::`, `self::` and its own child modules),
//! each resolved to the file that defines the item, through `pub use` re-exports; a
//! re-export alone is not a dependency (a facade names what its children define). Unit-test
//! modules are left out. A circle among the files is a failure, named file by file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// Every `.rs` file of `src/` by its module path (`exec/local/mod.rs` is `exec::local`);
/// `main.rs` is the binary's root, `lib.rs` the library's.
fn files(root: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
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
        }
    }
    out
}

/// The source without comments and without its `#[cfg(test)]` modules (kept at a file's end
/// in this codebase, so everything after one goes).
fn code(src: &str) -> String {
    let mut out = String::new();
    for line in src.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        let line = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(line);
        out.push('\n');
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
