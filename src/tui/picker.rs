//! `evootter open` without a session: a list of the saved sessions (the user data directory's
//! sessions, and the `sessions/` folder of the current directory), newest first, with their
//! instance, phase, final test and date. Enter opens one.

use super::action::Action;
use super::keymap::{KeyContext, Keymap};
use super::theme::{Role, Theme};
use crate::engine::SessionDoc;
use ratatui::crossterm::event::{self, Event};
use ratatui::layout::{Constraint, Layout};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use std::path::{Path, PathBuf};

/// One saved session, as listed.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub instance: String,
    pub phase: String,
    pub final_test: String,
    pub updated_unix: u64,
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

/// Every `session.json` directly in a root or one directory below it, newest first.
pub fn find(roots: &[PathBuf]) -> Vec<Entry> {
    let mut out = vec![];
    for root in roots {
        let mut candidates = vec![root.join("session.json")];
        if let Ok(rd) = std::fs::read_dir(root) {
            for e in rd.flatten() {
                candidates.push(e.path().join("session.json"));
            }
        }
        for p in candidates {
            if let Some(e) = entry(&p) {
                out.push(e);
            }
        }
    }
    out.sort_by_key(|e| std::cmp::Reverse(e.updated_unix));
    out
}

fn entry(p: &Path) -> Option<Entry> {
    if !p.is_file() {
        return None;
    }
    let doc = SessionDoc::load(p).ok()?;
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
    })
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

/// Shows the list until the user picks one (its session file) or quits (`None`). Keys are the
/// keymap's `[picker]` bindings.
pub fn pick(entries: &[Entry], theme: &Theme, keymap: &Keymap) -> anyhow::Result<Option<PathBuf>> {
    let key = |name: &str| {
        keymap
            .keys(KeyContext::Picker, name)
            .first()
            .cloned()
            .unwrap_or_default()
    };
    let footer = format!(
        " {}/{} move  {} open  {} quit",
        key("down"),
        key("up"),
        key("open"),
        key("cancel")
    );
    let mut terminal = ratatui::init();
    let mut row = 0usize;
    let picked = loop {
        terminal.draw(|f| {
            let [head, list, foot] = Layout::vertical([
                Constraint::Length(1),
                Constraint::Min(1),
                Constraint::Length(1),
            ])
            .areas(f.area());
            f.render_widget(
                Paragraph::new("evootter: saved sessions").style(theme.style(Role::Title)),
                head,
            );
            let lines: Vec<Line> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let style = if i == row {
                        theme.style(Role::Selected)
                    } else {
                        theme.style(Role::Text)
                    };
                    Line::styled(
                        format!(
                            "{}  {:<22} {:<16} {:<34} {}",
                            date(e.updated_unix),
                            e.instance,
                            e.phase,
                            e.final_test,
                            e.path.display()
                        ),
                        style,
                    )
                })
                .collect();
            let skip = row.saturating_sub(usize::from(list.height.saturating_sub(3)));
            f.render_widget(
                Paragraph::new(lines)
                    .block(Block::bordered().border_style(theme.style(Role::Border)))
                    .scroll((skip as u16, 0)),
                list,
            );
            f.render_widget(
                Paragraph::new(footer.as_str()).style(theme.style(Role::Footer)),
                foot,
            );
        })?;
        let Event::Key(k) = event::read()? else {
            continue;
        };
        let last = entries.len().saturating_sub(1);
        match keymap.action(KeyContext::Picker, &k) {
            Some(Action::Cancel) => break None,
            Some(Action::Down) => row = (row + 1).min(last),
            Some(Action::Up) => row = row.saturating_sub(1),
            Some(Action::PageDown) => row = (row + 10).min(last),
            Some(Action::PageUp) => row = row.saturating_sub(10),
            Some(Action::First) => row = 0,
            Some(Action::Last) => row = last,
            Some(Action::Open) => break entries.get(row).map(|e| e.path.clone()),
            _ => {}
        }
    };
    ratatui::restore();
    Ok(picked)
}
