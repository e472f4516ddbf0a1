//! `evootter open` without a session: a list of the saved sessions (the user data directory's
//! sessions, and the `sessions/` folder of the current directory), newest first, with their
//! date, directory, instance, phase and final test, and the selected one's full path and what
//! opening it does. Enter opens one.

use super::action::Action;
use super::keymap::{KeyContext, Keymap};
use super::terminal::{Component, Term};
use super::theme::{Role, Theme};
use crate::engine::SessionDoc;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Size;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};
use std::path::{Path, PathBuf};

/// One saved session, as listed.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub instance: String,
    pub phase: String,
    pub final_test: String,
    pub updated_unix: u64,
    /// What opening it will do (read-only, resumed), or why it cannot be opened.
    pub opens: String,
    /// Set when the file cannot be read as a session: it is listed, not opened.
    pub problem: Option<String>,
}

/// Where sessions are looked for: the user data directory's `sessions/`, then `./sessions`.
pub fn roots() -> Vec<PathBuf> {
    let mut v = vec![];
    if let Some(d) = crate::workbench::request::default_sessions_dir() {
        v.push(d);
    }
    v.push(PathBuf::from("sessions"));
    v
}

/// Every `session.json` directly in a root or one directory below it, and the sessions made
/// or opened elsewhere (`workbench::recent`), once each, newest first. One that cannot be read
/// is listed with its reason, not left out: a session that vanished from the list would look
/// lost.
pub fn find(roots: &[PathBuf]) -> Vec<Entry> {
    let mut candidates = vec![];
    for root in roots {
        candidates.push(root.join("session.json"));
        if let Ok(rd) = std::fs::read_dir(root) {
            for e in rd.flatten() {
                candidates.push(e.path().join("session.json"));
            }
        }
    }
    candidates.extend(crate::workbench::recent::list());
    let mut seen = std::collections::BTreeSet::new();
    let mut out = vec![];
    for p in candidates {
        let key = p.canonicalize().unwrap_or_else(|_| p.clone());
        if !seen.insert(key) {
            continue;
        }
        if let Some(e) = entry(&p) {
            out.push(e);
        }
    }
    out.sort_by_key(|e| std::cmp::Reverse(e.updated_unix));
    out
}

fn entry(p: &Path) -> Option<Entry> {
    if !p.is_file() {
        return None;
    }
    let doc = match SessionDoc::load(p) {
        Ok(d) => d,
        Err(e) => {
            let modified = std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            return Some(Entry {
                path: p.to_path_buf(),
                instance: "?".into(),
                phase: "unreadable".into(),
                final_test: String::new(),
                updated_unix: modified,
                opens: format!("cannot be opened: {e:#}"),
                problem: Some(format!("{e:#}")),
            });
        }
    };
    let opens = if doc.phase == crate::engine::Phase::Done {
        "finished: opens read-only".to_string()
    } else if !doc.inputs.repo.is_dir() {
        format!(
            "opens read-only: its repository {} is not on this machine",
            doc.inputs.repo.display()
        )
    } else {
        // Whether the repository changed is known only by reading all of it (a fingerprint
        // of its files), too slow for a list: opening checks it.
        format!(
            "opens where it stopped ({}) and goes on; read-only if its repository changed since",
            doc.phase
        )
    };
    Some(Entry {
        path: p.to_path_buf(),
        instance: doc
            .inputs
            .instance
            .clone()
            .unwrap_or_else(|| doc.inputs.repo.display().to_string()),
        phase: doc.phase.to_string(),
        final_test: doc
            .final_test
            .as_ref()
            .map(|t| format!("{t} {}", doc.tests[t].name))
            .unwrap_or_default(),
        updated_unix: doc.updated_unix,
        opens,
        problem: None,
    })
}

impl Entry {
    /// The session's directory name: what tells two sessions of one instance apart.
    pub fn dir_name(&self) -> String {
        self.path
            .parent()
            .and_then(Path::file_name)
            .map_or_else(|| ".".into(), |n| n.to_string_lossy().into_owned())
    }
}

/// The list's rows: date, directory, instance, phase, final test, in columns as wide as
/// their longest entry (capped, so the final test keeps some room at 80 columns).
pub fn rows(entries: &[Entry]) -> Vec<String> {
    let width =
        |f: &dyn Fn(&Entry) -> usize, cap: usize| entries.iter().map(f).max().unwrap_or(0).min(cap);
    let dir_w = width(&|e| e.dir_name().chars().count(), 24);
    let inst_w = width(&|e| e.instance.chars().count(), 22);
    let phase_w = width(&|e| e.phase.chars().count(), 26);
    let cut = super::fit::padded;
    entries
        .iter()
        .map(|e| {
            format!(
                "{}  {} {} {} {}",
                date(e.updated_unix),
                cut(&e.dir_name(), dir_w),
                cut(&e.instance, inst_w),
                cut(&e.phase, phase_w),
                e.final_test
            )
        })
        .collect()
}

/// `YYYY-MM-DD HH:MM` (UTC) of a unix time.
pub fn date(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    // Civil from days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// The list's state apart from drawing: the selection among the rows shown, the search.
#[derive(Debug, Default)]
pub struct List {
    /// Each entry's row text, as [`rows`] makes it.
    texts: Vec<String>,
    /// Index into the shown rows.
    pub row: usize,
    /// The search: rows holding its query (ignoring case) are shown.
    pub search: super::search::Typed,
    /// Why the last Enter opened nothing, until the next key.
    pub message: Option<String>,
}

/// What a key did to the list.
#[derive(Debug, PartialEq, Eq)]
pub enum Picked {
    Stay,
    Open(usize),
    Quit,
}

impl List {
    pub fn new(entries: &[Entry]) -> Self {
        Self {
            texts: rows(entries),
            ..Self::default()
        }
    }

    /// The entries shown, by index: every one, or those the search finds (in the row's
    /// text or its full path).
    pub fn shown(&self, entries: &[Entry]) -> Vec<usize> {
        (0..entries.len())
            .filter(|&i| {
                let q = &self.search.query;
                q.is_empty()
                    || super::search::matches(&self.texts[i], q)
                    || super::search::matches(&entries[i].path.display().to_string(), q)
            })
            .collect()
    }

    /// A key of the list's own (not while a search is typed).
    pub fn act(&mut self, entries: &[Entry], a: Action) -> Picked {
        self.message = None;
        let shown = self.shown(entries);
        let last = shown.len().saturating_sub(1);
        match a {
            // Esc takes the search back before it quits.
            Action::Cancel if !self.search.query.is_empty() => {
                self.search.query.clear();
                self.row = 0;
            }
            Action::Cancel => return Picked::Quit,
            Action::Search => self.search.start(),
            Action::Down => self.row = (self.row + 1).min(last),
            Action::Up => self.row = self.row.saturating_sub(1),
            Action::PageDown => self.row = (self.row + 10).min(last),
            Action::PageUp => self.row = self.row.saturating_sub(10),
            Action::First => self.row = 0,
            Action::Last => self.row = last,
            Action::Open => match shown.get(self.row).map(|&i| (i, &entries[i])) {
                Some((
                    _,
                    Entry {
                        problem: Some(why), ..
                    },
                )) => {
                    // The remedy first: the reason may be longer than the room left.
                    self.message =
                        Some(format!("not opened: move it away or open another ({why})"));
                }
                Some((i, _)) => return Picked::Open(i),
                None => {}
            },
            _ => {}
        }
        Picked::Stay
    }

    /// A key while a search is typed: the prompt's keys, else the character typed.
    pub fn type_key(&mut self, a: Option<Action>, ch: Option<char>) {
        if self.search.key(a, ch) {
            self.row = 0;
        }
    }
}

/// The list in the terminal loop, until the user picks one or quits.
struct PickerScreen<'a> {
    list: List,
    entries: &'a [Entry],
    picked: Option<Picked>,
    theme: &'a Theme,
    keymap: &'a Keymap,
}

impl PickerScreen<'_> {
    /// The footer's keys; Esc takes an applied search back before it quits: the footer says
    /// which it does.
    fn footer(&self, searched: bool) -> String {
        let key = |name: &str| {
            self.keymap
                .keys(KeyContext::Picker, name)
                .first()
                .cloned()
                .unwrap_or_default()
        };
        format!(
            " {}/{} move  {} open  {} search  {} {}",
            key("down"),
            key("up"),
            key("open"),
            key("search"),
            key("cancel"),
            if searched { "show all" } else { "quit" }
        )
    }
}

impl Component for PickerScreen<'_> {
    type Exit = Option<PathBuf>;

    fn draw(&self, f: &mut Frame) {
        let entries = self.entries;
        let shown = self.list.shown(entries);
        let [head, body, detail, foot] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(4),
            Constraint::Length(1),
        ])
        .areas(f.area());
        let title = if self.list.search.query.is_empty() {
            format!(
                "evootter: saved sessions ({}), newest first",
                self.entries.len()
            )
        } else {
            format!(
                "evootter: saved sessions, {} of {} holding \"{}\" (Esc shows all)",
                shown.len(),
                self.entries.len(),
                self.list.search.query
            )
        };
        f.render_widget(
            Paragraph::new(title).style(self.theme.style(Role::Title)),
            head,
        );
        let lines: Vec<Line> = shown
            .iter()
            .enumerate()
            .map(|(r, &i)| {
                let style = if r == self.list.row {
                    self.theme.style(Role::Selected)
                } else if self.entries[i].problem.is_some() {
                    self.theme.style(Role::Warning)
                } else {
                    self.theme.style(Role::Text)
                };
                Line::styled(self.list.texts[i].clone(), style)
            })
            .collect();
        let skip = self
            .list
            .row
            .saturating_sub(usize::from(body.height.saturating_sub(3)));
        f.render_widget(
            Paragraph::new(lines)
                .block(Block::bordered().border_style(self.theme.style(Role::Border)))
                .scroll((skip as u16, 0)),
            body,
        );
        // The selected session in full: where it is and what opening it does (a row
        // cut at the terminal's width still names it exactly here).
        match shown.get(self.list.row).map(|&i| &self.entries[i]) {
            Some(e) => {
                let what = self.list.message.clone().unwrap_or_else(|| e.opens.clone());
                let role = if e.problem.is_some() || self.list.message.is_some() {
                    Role::Warning
                } else {
                    Role::Dim
                };
                let mut lines = vec![
                    Line::styled(e.path.display().to_string(), self.theme.style(Role::Text)),
                    Line::styled(what, self.theme.style(role)),
                ];
                // The row's last column is the one an 80-column terminal cuts.
                if !e.final_test.is_empty() {
                    lines.push(Line::styled(
                        format!("final test: {}", e.final_test),
                        self.theme.style(Role::Dim),
                    ));
                }
                f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail);
            }
            None => f.render_widget(
                Paragraph::new("no saved session holds that (Esc shows them all)")
                    .style(self.theme.style(Role::Warning)),
                detail,
            ),
        }
        let foot_text = self
            .list
            .search
            .prompt_line()
            .unwrap_or_else(|| self.footer(!self.list.search.query.is_empty()));
        f.render_widget(
            Paragraph::new(foot_text).style(self.theme.style(Role::Footer)),
            foot,
        );
    }

    fn hang_up(&mut self) {
        self.picked = Some(Picked::Quit);
    }

    fn key(&mut self, k: KeyEvent, _: Size) {
        if self.list.search.typing.is_some() {
            self.list.type_key(
                self.keymap.action(KeyContext::Prompt, &k),
                super::search::typed_char(&k),
            );
            return;
        }
        let Some(a) = self.keymap.action(KeyContext::Picker, &k) else {
            return;
        };
        self.picked = Some(self.list.act(self.entries, a));
    }

    fn exit(&mut self) -> Option<Option<PathBuf>> {
        match self.picked.take()? {
            Picked::Stay => None,
            Picked::Open(i) => Some(Some(self.entries[i].path.clone())),
            Picked::Quit => Some(None),
        }
    }
}

/// Shows the list until the user picks one (its session file) or quits (`None`). Keys are the
/// keymap's `[picker]` bindings; a search is typed with the `[prompt]` ones.
pub async fn pick(
    term: &mut Term,
    entries: &[Entry],
    theme: &Theme,
    keymap: &Keymap,
) -> anyhow::Result<Option<PathBuf>> {
    let mut screen = PickerScreen {
        list: List::new(entries),
        entries,
        picked: None,
        theme,
        keymap,
    };
    term.run(&mut screen).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: &str, instance: &str, problem: Option<&str>) -> Entry {
        Entry {
            path: PathBuf::from(format!("/data/sessions/{dir}/session.json")),
            instance: instance.into(),
            phase: "done".into(),
            final_test: String::new(),
            updated_unix: 0,
            opens: "finished: opens read-only".into(),
            problem: problem.map(str::to_string),
        }
    }

    #[test]
    fn a_search_narrows_the_list_and_esc_takes_it_back_before_quitting() {
        let entries = [
            entry("a", "envconf_errors", None),
            entry("b", "pagekit_orphans", None),
            entry("c", "envconf_errors", None),
        ];
        let mut l = List::new(&entries);
        assert_eq!(l.shown(&entries), [0, 1, 2]);
        l.act(&entries, Action::Search);
        for c in "PAGE".chars() {
            l.type_key(None, Some(c));
        }
        assert_eq!(l.shown(&entries), [0, 1, 2], "not applied while typed");
        l.type_key(Some(Action::Submit), None);
        assert_eq!(l.shown(&entries), [1], "ignoring case");
        // Enter opens the entry the shown row is, not the row's index among all.
        assert_eq!(l.act(&entries, Action::Open), Picked::Open(1));
        assert_eq!(l.act(&entries, Action::Cancel), Picked::Stay);
        assert_eq!(l.shown(&entries), [0, 1, 2]);
        assert_eq!(l.act(&entries, Action::Cancel), Picked::Quit);
    }

    #[test]
    fn an_unreadable_session_is_not_opened_and_says_what_to_do() {
        let entries = [entry("x", "?", Some("schema version 99"))];
        let mut l = List::new(&entries);
        assert_eq!(l.act(&entries, Action::Open), Picked::Stay);
        let m = l.message.clone().unwrap();
        assert!(m.starts_with("not opened: move it away") && m.contains("schema version 99"));
        l.act(&entries, Action::Down);
        assert_eq!(l.message, None, "until the next key");
    }
}
