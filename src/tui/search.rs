//! What a search finds on the screens whose items the state holds (the Grid's tests and
//! mutants, the Curate list); the text panes report their own hits as they are drawn.
//! Matching is a case-insensitive substring.

use super::action::Action;
use super::state::State;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

/// A search typed on a one-line prompt and then applied (the session list, the Batch screen):
/// `typing` while the prompt is open, `query` once Enter applied it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Typed {
    /// The search being typed (`/`), not applied yet.
    pub typing: Option<String>,
    /// The applied search ("" for none).
    pub query: String,
}

impl Typed {
    /// Opens the prompt on the applied search, to edit it.
    pub fn start(&mut self) {
        self.typing = Some(self.query.clone());
    }

    /// A key while the prompt is open: the prompt's action (`[prompt]` keys), else the
    /// character typed. True when Enter applied the search.
    pub fn key(&mut self, a: Option<Action>, ch: Option<char>) -> bool {
        let Some(text) = self.typing.as_mut() else {
            return false;
        };
        match (a, ch) {
            (Some(Action::Submit), _) => {
                self.query = self.typing.take().unwrap_or_default();
                return true;
            }
            (Some(Action::Cancel), _) => self.typing = None,
            (Some(Action::Erase), _) => {
                text.pop();
            }
            (_, Some(c)) => text.push(c),
            _ => {}
        }
        false
    }

    /// The footer while the prompt is open.
    pub fn prompt_line(&self) -> Option<String> {
        self.typing
            .as_ref()
            .map(|text| format!(" search: {text}_   Enter apply  Esc cancel"))
    }
}

/// The character a key types, if it types one.
pub fn typed_char(k: &KeyEvent) -> Option<char> {
    match k.code {
        KeyCode::Char(c) => Some(c),
        _ => None,
    }
}

/// A hit on the Grid: a test's row, or a mutant's column (by position in the shown grid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridHit {
    Row(usize),
    Col(usize),
}

/// Whether `text` holds `query`, ignoring case.
pub fn matches(text: &str, query: &str) -> bool {
    !query.is_empty() && text.to_lowercase().contains(&query.to_lowercase())
}

/// The rows (a test's id or file name) and then the columns (a mutant's id, kind, or
/// file:line) of the shown grid that match.
pub fn grid_hits(s: &State, query: &str) -> Vec<GridHit> {
    let Some(grid) = s.grid() else {
        return vec![];
    };
    let mut hits: Vec<GridHit> = grid
        .tests
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches(t, query) || s.doc.tests.get(*t).is_some_and(|c| matches(&c.name, query))
        })
        .map(|(i, _)| GridHit::Row(i))
        .collect();
    hits.extend(
        grid.mutants
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                matches(m, query)
                    || s.mutant(m).is_some_and(|x| {
                        matches(x.kind.as_str(), query)
                            || matches(&format!("{}:{}", x.file, x.line), query)
                            || matches(&x.function, query)
                    })
            })
            .map(|(j, _)| GridHit::Col(j)),
    );
    hits
}

/// The rows of the Curate list whose test id or file name matches.
pub fn curate_hits(s: &State, query: &str) -> Vec<usize> {
    s.curate_list()
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches(t, query) || s.doc.tests.get(*t).is_some_and(|c| matches(&c.name, query))
        })
        .map(|(i, _)| i)
        .collect()
}
