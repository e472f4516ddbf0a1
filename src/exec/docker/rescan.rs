//! Sealing a container's working copy: the rescan seal of `local/seal.rs`, with the copy on the far
//! side of the Docker API. The copy is listed with GNU find (type, mode, size, mtime, ctime,
//! inode, path, symlink target) after it is made; after each run it is listed again, and the
//! difference, judged exactly as `seal::Rescan::restore` judges it, becomes a plan: what the
//! test changed (named as the local backend names it), what to delete, what to upload again
//! from the local copy of the repository.
//!
//! Content is compared through SHA-256 sums the container computes, for the staged files and
//! for every file whose status changed during the run, so no file is read across the API
//! unless it is put back.

use crate::exec::pytest_run::Staged;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// `find -printf` format of one entry: the stamp fields and the path, NUL, the link target,
/// NUL. NUL never occurs in a path, so any name lists unambiguously.
pub const FIND_FORMAT: &str = r"%y %m %s %T@ %C@ %i %p\0%l\0";

/// An entry's identity as the rescan compares it (the fields of `local/seal.rs`'s `Stamp`, as find
/// prints them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// find's `%y`: `f` file, `d` directory, `l` symlink, others for the rest.
    pub kind: char,
    /// Permission bits (`%m`).
    pub mode: u32,
    /// 0 for directories, as in `local/seal.rs`.
    pub size: u64,
    pub mtime: String,
    pub ctime: String,
    pub ino: u64,
    pub link: String,
}

impl Stamp {
    pub fn is_dir(&self) -> bool {
        self.kind == 'd'
    }
}

/// Every entry below the copy's root, by path relative to it (`/` separators, no `./`).
pub type Listing = BTreeMap<String, Stamp>;

/// Parses find's output (`FIND_FORMAT`, paths printed as `./rel` or as given). Lines it
/// cannot read are skipped: an entry missing from a listing reads as deleted, which errs on
/// the side of restoring.
pub fn parse_listing(out: &[u8]) -> Listing {
    let text = String::from_utf8_lossy(out);
    let mut fields = text.split('\0');
    let mut listing = Listing::new();
    while let (Some(entry), Some(link)) = (fields.next(), fields.next()) {
        let mut parts = entry.splitn(7, ' ');
        let (Some(kind), Some(mode), Some(size), Some(mtime), Some(ctime), Some(ino), Some(path)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            continue;
        };
        let rel = path.strip_prefix("./").unwrap_or(path);
        let (Some(kind), Ok(mode), Ok(size), Ok(ino)) = (
            kind.chars().next(),
            u32::from_str_radix(mode, 8),
            size.parse::<u64>(),
            ino.parse::<u64>(),
        ) else {
            continue;
        };
        if rel.is_empty() || rel == "." {
            continue;
        }
        listing.insert(
            rel.to_owned(),
            Stamp {
                kind,
                mode,
                size: if kind == 'd' { 0 } else { size },
                mtime: mtime.to_owned(),
                ctime: ctime.to_owned(),
                ino,
                link: link.to_owned(),
            },
        );
    }
    listing
}

/// Parses `sha256sum` output (`HASH  ./path`, a leading `\` when the name was escaped) into
/// path -> hex digest.
pub fn parse_sums(out: &[u8]) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(out);
    let mut sums = BTreeMap::new();
    for line in text.lines() {
        let (escaped, line) = match line.strip_prefix('\\') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let Some((hash, path)) = line.split_once("  ") else {
            continue;
        };
        let path = if escaped {
            unescape_sum_name(path)
        } else {
            path.to_owned()
        };
        let rel = path.strip_prefix("./").unwrap_or(&path).to_owned();
        sums.insert(rel, hash.to_owned());
    }
    sums
}

/// sha256sum escapes `\` and newline in names it prints.
fn unescape_sum_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('n')) => {
                out.push('\n');
                chars.next();
            }
            ('\\', Some('\\')) => {
                out.push('\\');
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// How to put a container's copy back after one run, and what the run changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// `created X`, `modified X`, `deleted X/`: sorted, as `seal::Rescan::restore` says it.
    pub changed: Vec<String>,
    /// Entries to delete (`rm -rf`): what the test created, and what was made for staging.
    pub remove: Vec<String>,
    /// Entries of the repository to upload again (whole subtrees for directories).
    pub upload: Vec<String>,
    /// Directories whose permissions to set back.
    pub chmod: Vec<(String, u32)>,
}

/// What the diff needs to know about the repository copy and the run.
pub struct Run<'a> {
    /// The local copy the container's copy was made from.
    pub base: &'a Path,
    pub staged: &'a Staged,
    /// SHA-256 of the files the container summed: the staged ones and those whose status
    /// changed during the run.
    pub sums: &'a BTreeMap<String, String>,
}

/// Compares the copy as listed after the run (`now`) with its record and plans the
/// restoration. Mirrors `seal::Rescan::restore` step by step, so both backends name the same
/// changes the same way.
pub fn plan(recorded: &Listing, now: &Listing, run: &Run<'_>) -> Plan {
    let mut plan = Plan::default();
    for (rel, was) in recorded {
        if let Some(is) = now.get(rel)
            && was.is_dir()
            && is.is_dir()
            && was.mode != is.mode
        {
            plan.chmod.push((rel.clone(), was.mode));
            plan.changed.push(format!("modified {rel}/"));
        }
    }
    let children = children(now);
    let mut seen = BTreeSet::new();
    compare(recorded, now, &children, run, "", &mut seen, &mut plan);
    for rel in recorded.keys() {
        if seen.contains(rel) {
            continue;
        }
        // The parent was put back as a whole, or the entry vanished.
        let parent_seen = rel.rsplit_once('/').is_none_or(|(p, _)| seen.contains(p));
        if !parent_seen {
            continue;
        }
        if !run.staged.removed.contains(rel) {
            plan.changed.push(deleted(run.base, rel));
        }
        plan.upload.push(rel.clone());
    }
    plan.changed.sort();
    plan.changed.dedup();
    plan
}

/// Directory (relative path, "" for the root) -> names of its entries in `now`, sorted.
fn children(now: &Listing) -> BTreeMap<&str, Vec<&str>> {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for rel in now.keys() {
        let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        out.entry(parent).or_default().push(name);
    }
    out
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

fn compare(
    recorded: &Listing,
    now: &Listing,
    children: &BTreeMap<&str, Vec<&str>>,
    run: &Run<'_>,
    rel: &str,
    seen: &mut BTreeSet<String>,
    plan: &mut Plan,
) {
    let Some(names) = children.get(rel) else {
        return;
    };
    for name in names {
        let r = join(rel, name);
        let Some(is) = now.get(&r) else { continue };
        let was = recorded.get(&r);
        if let Some(content) = run.staged.files.get(&r) {
            seen.insert(r.clone());
            if !same_as_staged(is, run, &r, content) {
                plan.changed.push(format!("modified {r}"));
            }
            if was.is_some() {
                plan.upload.push(r);
            } else {
                plan.remove.push(r);
            }
            continue;
        }
        match was {
            None if is.is_dir() && leads_to_staged(run.staged, &r) => {
                // Made for staging: keep looking inside, then remove it.
                compare(recorded, now, children, run, &r, seen, plan);
                plan.remove.push(r);
            }
            None => {
                plan.changed
                    .push(format!("created {r}{}", if is.is_dir() { "/" } else { "" }));
                plan.remove.push(r);
            }
            Some(was) if was.is_dir() && is.is_dir() => {
                seen.insert(r.clone());
                compare(recorded, now, children, run, &r, seen, plan);
            }
            Some(was) => {
                seen.insert(r.clone());
                if was != is {
                    if !same_as_base(is, run, &r) {
                        plan.changed.push(format!("modified {r}"));
                    }
                    plan.upload.push(r);
                }
            }
        }
    }
}

fn leads_to_staged(staged: &Staged, rel: &str) -> bool {
    let prefix = format!("{rel}/");
    staged.files.keys().any(|f| f.starts_with(&prefix))
}

/// `seal::same_as_staged`: a file with the staged content and the mode the base gives the
/// path.
fn same_as_staged(is: &Stamp, run: &Run<'_>, rel: &str, content: &[u8]) -> bool {
    let expected_mode = std::fs::symlink_metadata(run.base.join(rel))
        .ok()
        .filter(|b| b.is_file())
        .map(|b| b.permissions().mode() & 0o7777);
    is.kind == 'f'
        && expected_mode.is_none_or(|mode| mode == is.mode)
        && run.sums.get(rel) == Some(&sha256_hex(content))
}

/// `seal::same_entry` between the container's entry and the base's: same kind, same target
/// for symlinks, same permissions, and for files the same content.
fn same_as_base(is: &Stamp, run: &Run<'_>, rel: &str) -> bool {
    let path = run.base.join(rel);
    let Ok(m) = std::fs::symlink_metadata(&path) else {
        return false;
    };
    let kind = if m.is_symlink() {
        'l'
    } else if m.is_dir() {
        'd'
    } else if m.is_file() {
        'f'
    } else {
        '?'
    };
    if kind != is.kind {
        return false;
    }
    if kind == 'l' {
        return std::fs::read_link(&path).is_ok_and(|t| t.to_string_lossy() == is.link);
    }
    if m.mode() & 0o7777 != is.mode {
        return false;
    }
    if kind == 'd' {
        return true;
    }
    m.len() == is.size
        && run
            .sums
            .get(rel)
            .is_some_and(|sum| std::fs::read(&path).is_ok_and(|b| &sha256_hex(&b) == sum))
}

fn deleted(base: &Path, rel: &str) -> String {
    let dir = std::fs::symlink_metadata(base.join(rel)).is_ok_and(|m| m.is_dir());
    format!("deleted {rel}{}", if dir { "/" } else { "" })
}

/// Replaces the record of the entries that were put back (and everything below them) with
/// what a fresh listing of them says.
pub fn restamp(recorded: &mut Listing, uploaded: &[String], fresh: Listing) {
    for rel in uploaded {
        let prefix = format!("{rel}/");
        recorded.retain(|k, _| k != rel && !k.starts_with(&prefix));
    }
    recorded.extend(fresh);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(kind: char, mode: u32, size: u64, ino: u64, ctime: &str) -> Stamp {
        Stamp {
            kind,
            mode,
            size,
            mtime: "1.0".into(),
            ctime: ctime.into(),
            ino,
            link: String::new(),
        }
    }

    #[test]
    fn find_and_sha256sum_output_parse() {
        let out = b"d 755 4096 1.5 1.5 10 ./pkg\0\0f 644 6 1.5 2.5 11 ./pkg/a b.py\0\0l 777 4 1 1 12 ./ln\0/etc\0";
        let l = parse_listing(out);
        assert_eq!(l.len(), 3);
        assert_eq!(l["pkg"].size, 0);
        assert_eq!(l["pkg/a b.py"].mode, 0o644);
        assert_eq!(l["ln"].link, "/etc");
        let sums = parse_sums(b"abc  ./pkg/a.py\n\\def  ./odd\\nname\n");
        assert_eq!(sums["pkg/a.py"], "abc");
        assert_eq!(sums["odd\nname"], "def");
    }

    #[test]
    fn the_plan_names_changes_as_the_local_rescan_does() {
        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(base.path().join("pkg/sub")).unwrap();
        std::fs::write(base.path().join("pkg/a.py"), "A = 1\n").unwrap();
        std::fs::write(base.path().join("pkg/sub/b.py"), "B = 2\n").unwrap();
        std::fs::write(base.path().join("setup.cfg"), "[x]\n").unwrap();
        let mode = |p: &str| {
            std::fs::metadata(base.path().join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        let recorded: Listing = [
            ("pkg", stamp('d', mode("pkg"), 0, 1, "1")),
            ("pkg/a.py", stamp('f', mode("pkg/a.py"), 6, 2, "1")),
            ("pkg/sub", stamp('d', mode("pkg/sub"), 0, 3, "1")),
            ("pkg/sub/b.py", stamp('f', mode("pkg/sub/b.py"), 6, 4, "1")),
            ("setup.cfg", stamp('f', mode("setup.cfg"), 4, 5, "1")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let mut staged = Staged::default();
        let test = b"def test(): pass\n".to_vec();
        staged
            .files
            .insert("tests/new/test_x.py".into(), test.clone());
        staged.files.insert("pkg/a.py".into(), b"A = 2\n".to_vec());

        // An untouched run: the staged files are as staged.
        let mut now = recorded.clone();
        now.insert("pkg/a.py".into(), stamp('f', mode("pkg/a.py"), 6, 20, "2"));
        now.insert("tests".into(), stamp('d', 0o755, 0, 21, "2"));
        now.insert("tests/new".into(), stamp('d', 0o755, 0, 22, "2"));
        now.insert("tests/new/test_x.py".into(), stamp('f', 0o644, 17, 23, "2"));
        let mut sums = BTreeMap::new();
        sums.insert("pkg/a.py".to_owned(), sha256_hex(b"A = 2\n"));
        sums.insert("tests/new/test_x.py".to_owned(), sha256_hex(&test));
        let run = Run {
            base: base.path(),
            staged: &staged,
            sums: &sums,
        };
        let p = plan(&recorded, &now, &run);
        assert!(p.changed.is_empty(), "{p:?}");
        assert_eq!(p.upload, ["pkg/a.py"]);
        assert_eq!(p.remove, ["tests/new/test_x.py", "tests/new", "tests"]);

        // A vandal: rewrites b.py (same size, only ctime tells), renames setup.cfg, chmods a
        // directory, rewrites the staged module, creates a file.
        now.insert(
            "pkg/sub/b.py".into(),
            stamp('f', mode("pkg/sub/b.py"), 6, 4, "3"),
        );
        now.remove("setup.cfg");
        now.insert("moved.cfg".into(), stamp('f', 0o644, 4, 5, "3"));
        now.insert("pkg/sub".into(), stamp('d', 0o500, 0, 3, "3"));
        now.insert("pkg/a.py".into(), stamp('f', mode("pkg/a.py"), 7, 20, "3"));
        now.insert("tests/new/out.txt".into(), stamp('f', 0o644, 1, 30, "3"));
        sums.insert("pkg/a.py".to_owned(), sha256_hex(b"vandal\n"));
        sums.insert("pkg/sub/b.py".to_owned(), sha256_hex(b"B = 9\n"));
        let run = Run {
            base: base.path(),
            staged: &staged,
            sums: &sums,
        };
        let p = plan(&recorded, &now, &run);
        assert_eq!(
            p.changed,
            [
                "created moved.cfg",
                "created tests/new/out.txt",
                "deleted setup.cfg",
                "modified pkg/a.py",
                "modified pkg/sub/",
                "modified pkg/sub/b.py",
            ]
        );
        assert_eq!(p.chmod, [("pkg/sub".to_owned(), mode("pkg/sub"))]);
        assert!(p.upload.contains(&"setup.cfg".to_owned()));
        assert!(p.upload.contains(&"pkg/sub/b.py".to_owned()));
        assert!(p.remove.contains(&"moved.cfg".to_owned()));
    }

    #[test]
    fn restamp_replaces_the_record_below_what_was_put_back() {
        let mut rec: Listing = [
            ("d", stamp('f', 0o644, 1, 1, "1")),
            ("d2", stamp('d', 0o755, 0, 2, "1")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let fresh: Listing = [
            ("d", stamp('d', 0o755, 0, 9, "2")),
            ("d/x", stamp('f', 0o644, 1, 10, "2")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        restamp(&mut rec, &["d".to_owned()], fresh);
        assert_eq!(rec.len(), 3);
        assert!(rec["d"].is_dir());
    }
}
