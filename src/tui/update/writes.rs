//! The reducer's small writes to the state: the message line, screens, scrolling, the
//! selection kept on its test and mutant when the session changes.

use super::context::*;
use crate::engine::{MutantId, SessionDoc, TestId};
use crate::tui::action::Action;
use crate::tui::state::{CellCache, Screen, Search, State};
use std::sync::Arc;

pub(super) fn moved(v: usize, d: i64) -> usize {
    if d < 0 {
        v.saturating_sub(d.unsigned_abs() as usize)
    } else {
        v.saturating_add(d as usize)
    }
}

impl State {
    pub(super) fn say(&mut self, m: impl Into<String>) {
        let m = m.into();
        self.notice = Some(match &self.note {
            Some(note) if *note != m => format!("{note}\n{m}"),
            _ => m.clone(),
        });
        self.messages.push(m);
        if self.messages.len() > 200 {
            self.messages.remove(0);
        }
    }

    /// The user acted: what the message line said (a note too) is stale.
    pub(super) fn clear_notice(&mut self) {
        self.notice = None;
        self.note = None;
    }

    /// Another screen: what the message line said belonged to the one left.
    pub(super) fn go(&mut self, s: Screen) {
        if s != self.screen {
            self.history.push(self.screen);
            self.screen = s;
            self.clear_notice();
        }
    }

    pub(super) fn scroll_help(&mut self, dy: i64) {
        let last = self.help_len.saturating_sub(self.help_rows());
        self.help_scroll = moved(self.help_scroll, dy).min(last);
    }

    /// Rebuilds what is derived from the document for the shown generation.
    pub(super) fn refresh(&mut self) {
        let sources = &self.sources;
        let source = |f: &str| sources.get(f).cloned();
        self.cache = match self.shown_generation() {
            Some(g) => CellCache::build(&self.doc, g, &source),
            None => CellCache::default(),
        };
    }

    pub(super) fn set_doc(&mut self, doc: Arc<SessionDoc>) {
        // A new generation, a new row of the user's: the selection follows its test.
        let selection = self.grid_selection();
        self.doc = doc;
        self.refresh();
        self.reselect(selection);
        self.follow_act();
        self.curate_row = self
            .curate_row
            .min(self.curate_list().len().saturating_sub(1));
    }

    /// Selects the test an act was about once the session shows the act (`curate_follow`).
    pub(super) fn follow_act(&mut self) {
        let Some((test, acts)) = &self.curate_follow else {
            return;
        };
        if self.doc.acts.len() <= *acts {
            return;
        }
        if let Some(i) = self.curate_list().iter().position(|t| t == test) {
            self.curate_row = i;
            self.curate_follow = None;
        }
    }

    /// Puts the Grid's selection back on `pair` after its rows or columns changed (a sort, a
    /// filter, another generation): the selection follows the test and the mutant, not the
    /// position, so the next act lands on the test the user chose. A test or mutant no
    /// longer shown leaves its coordinate where it was.
    pub(super) fn reselect(&mut self, (test, mutant): (Option<TestId>, Option<MutantId>)) {
        if let Some(grid) = self.grid() {
            if let Some(r) = test.and_then(|t| grid.tests.iter().position(|x| *x == t)) {
                self.row = r;
            }
            if let Some(c) = mutant.and_then(|m| grid.mutants.iter().position(|x| *x == m)) {
                self.col = c;
            }
        }
        self.clamp_grid();
    }

    /// Keeps the selection inside the grid and in view.
    pub(super) fn clamp_grid(&mut self) {
        let Some(grid) = self.grid() else {
            return;
        };
        self.row = self.row.min(grid.tests.len().saturating_sub(1));
        self.col = self.col.min(grid.mutants.len().saturating_sub(1));
        let (rows, cols) = self.grid_viewport();
        if self.row < self.row_scroll {
            self.row_scroll = self.row;
        } else if self.row >= self.row_scroll + rows {
            self.row_scroll = self.row + 1 - rows;
        }
        if self.col < self.col_scroll {
            self.col_scroll = self.col;
        } else if self.col >= self.col_scroll + cols {
            self.col_scroll = self.col + 1 - cols;
        }
    }

    /// Scrolls `screen`'s pane by `dy` lines, from where it shows (an offset kept past the
    /// end by an old frame counts as the end), never past its last line.
    pub(super) fn scroll_by(&mut self, screen: Screen, dy: i64) {
        let top = moved(self.scroll_of(screen).top, dy);
        self.set_top(screen, top);
    }

    pub(super) fn set_top(&mut self, screen: Screen, top: usize) {
        let i = screen.index();
        let max = self.measured[i]
            .as_ref()
            .map_or(usize::MAX, |m| m.max_top());
        self.scroll[i].top = top.min(max);
    }

    /// Scrolls sideways by `dx` columns (panes whose lines do not wrap).
    pub(super) fn shift(&mut self, screen: Screen, dx: i64) {
        let i = screen.index();
        let left = moved(self.scroll_of(screen).left, dx);
        let max = self.measured[i]
            .as_ref()
            .map_or(usize::MAX, |m| m.max_left());
        self.scroll[i].left = left.min(max);
    }

    /// The search of the current screen follows `query` (none when it is empty).
    pub(super) fn set_query(&mut self, query: String) {
        self.search = (!query.is_empty()).then_some(Search {
            screen: self.screen,
            query,
            current: 0,
            jump_pending: false,
        });
    }

    /// Refuses `a` with its reason when it cannot be done now (see [`refusal`]).
    pub(super) fn allowed(&mut self, a: &Action) -> bool {
        match refusal(self, a) {
            Some(reason) => {
                self.say(reason);
                false
            }
            None => true,
        }
    }
}
