//! The sessions a person made or opened with `run`, `tui`, `demo` and `open`, wherever their
//! `--out` put them: a short list in the user data directory, newest first, so that `evootter
//! open` without arguments lists them beside the default location. Best effort: a list that
//! cannot be read or written costs the listing, never a run.

use std::path::{Path, PathBuf};

/// How many sessions the list keeps.
const KEEP: usize = 50;

/// The list's file: `recent.json` in the user data directory.
fn file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "evootter").map(|d| d.data_dir().join("recent.json"))
}

/// The sessions on the list that exist, newest first.
pub fn list() -> Vec<PathBuf> {
    file()
        .map_or_else(Vec::new, |f| read(&f))
        .into_iter()
        .filter(|p| p.is_file())
        .collect()
}

/// Puts `session` (a session file) first on the list.
pub fn remember(session: &Path) {
    if let Some(f) = file() {
        let _ = write(&f, session);
    }
}

fn read(file: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return vec![];
    };
    let paths: Vec<PathBuf> = serde_json::from_str(&text).unwrap_or_default();
    // A session whose directory is gone is forgotten; one whose run has not written its file
    // yet (another run just started) is kept.
    paths
        .into_iter()
        .filter(|p| p.parent().is_some_and(Path::is_dir))
        .collect()
}

fn write(file: &Path, session: &Path) -> std::io::Result<()> {
    // (A new session's file is written once its run starts.)
    let session = session
        .canonicalize()
        .or_else(|_| std::path::absolute(session))?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Two runs started together each read, add and write the list: one at a time, or the
    // second writer drops the first one's session.
    let lock = std::fs::File::create(file.with_extension("lock"))?;
    lock.lock()?;
    let mut paths = read(file);
    paths.retain(|p| *p != session);
    paths.insert(0, session);
    paths.truncate(KEEP);
    // Written whole and renamed, so two runs ending together leave one list or the other.
    let tmp = file.with_extension(format!("json.{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_vec_pretty(&paths)?)?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Newest first, once each, and a session that no longer exists drops off.
    #[test]
    fn the_list_keeps_the_newest_first_and_forgets_what_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("data/recent.json");
        let session = |n: &str| {
            let p = dir.path().join(n).join("session.json");
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "{}").unwrap();
            p.canonicalize().unwrap()
        };
        let (a, b) = (session("a"), session("b"));
        write(&list, &a).unwrap();
        write(&list, &b).unwrap();
        write(&list, &a).unwrap();
        assert_eq!(read(&list), [a.clone(), b.clone()]);
        std::fs::remove_dir_all(b.parent().unwrap()).unwrap();
        assert_eq!(read(&list), std::slice::from_ref(&a));
        // A run that has claimed its directory but not written its session yet stays on the
        // list while another run adds its own.
        let early = dir.path().join("early");
        std::fs::create_dir_all(&early).unwrap();
        write(&list, &early.join("session.json")).unwrap();
        write(&list, &a).unwrap();
        assert_eq!(
            read(&list),
            [a, early.canonicalize().unwrap().join("session.json")]
        );
    }
}
