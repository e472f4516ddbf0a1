//! Moving around: the selection, go-to, search hits, generations and the Grid's filter.

use super::writes::*;
use crate::mutate::MutantKind;
use crate::tui::state::{ColumnFilter, Screen, State};
use std::collections::BTreeSet;

/// Arrow keys and the wheel: what moves depends on the screen.
pub(super) fn move_by(s: &mut State, dx: i64, dy: i64) {
    match s.screen {
        Screen::Grid => {
            s.row = moved(s.row, dy);
            s.col = moved(s.col, dx);
            s.clamp_grid();
        }
        // Sideways: another generation; up and down: the text.
        Screen::Timeline => {
            if dx != 0 {
                switch_generation(s, dx);
            } else {
                s.scroll_by(Screen::Timeline, dy);
            }
        }
        Screen::Pair => {
            s.scroll_by(Screen::Pair, dy);
            s.shift(Screen::Pair, dx * 8);
        }
        Screen::Why => s.scroll_by(Screen::Why, dy),
        Screen::Curate => {
            let n = s.curate_list().len();
            let to = moved(s.curate_row, dy).min(n.saturating_sub(1));
            if to != s.curate_row {
                s.curate_row = to;
                s.set_top(Screen::Curate, 0);
            }
        }
        Screen::Model => {
            if dx != 0 {
                let n = s.doc.llm_calls.len();
                s.model_call = moved(s.model_call, dx).min(n.saturating_sub(1));
                s.set_top(Screen::Model, 0);
            } else {
                s.scroll_by(Screen::Model, dy);
            }
        }
    }
}

/// The test `y` and `Y` act on: the selected one of Curate or the Grid, else the final test.
pub(super) fn selected_test(s: &State) -> Option<crate::engine::TestId> {
    match s.screen {
        Screen::Curate => s.curate_list().get(s.curate_row).cloned(),
        Screen::Grid | Screen::Pair | Screen::Why => s.selected_pair().map(|(t, _)| t),
        _ => None,
    }
    .or_else(|| s.doc.final_test.clone())
}

/// `g` + an id: a test's row or a mutant's column on the Grid, in the shown generation when
/// it is there, else in the newest generation that has it. `12` finds `t12`.
pub(super) fn goto(s: &mut State, id: &str) {
    let doc = s.doc.clone();
    let test = [id.to_owned(), format!("t{id}")]
        .into_iter()
        .find(|t| doc.tests.contains_key(t));
    let mutant = doc
        .pool
        .iter()
        .flat_map(|p| p.mutants.iter())
        .find(|m| m.id == id || m.id == format!("m{id}"))
        .map(|m| m.id.clone());
    let has = |g: usize| match (&test, &mutant) {
        (Some(t), _) => doc.generations[g].tests.contains(t),
        (None, Some(m)) => doc.generations[g].mutants.contains(m),
        _ => false,
    };
    let shown = s.shown_generation();
    let Some(g) = shown
        .filter(|&g| has(g))
        .or_else(|| (0..doc.generations.len()).rev().find(|&g| has(g)))
    else {
        s.say(match (&test, &mutant) {
            (None, None) => format!("no test or mutant {id}"),
            _ => format!("{id} is in no generation yet"),
        });
        return;
    };
    if Some(g) != shown {
        s.generation = (g + 1 < doc.generations.len()).then_some(g);
        s.refresh();
    }
    s.go(Screen::Grid);
    if let Some(grid) = s.grid() {
        if let Some(t) = &test
            && let Some(r) = grid.tests.iter().position(|x| x == t)
        {
            s.row = r;
        }
        if let Some(m) = &mutant {
            match grid.mutants.iter().position(|x| x == m) {
                Some(c) => s.col = c,
                None => s.say(format!("{m} is filtered out ({})", s.filter.label())),
            }
        }
    }
    s.clamp_grid();
}

/// n / N: the next (or previous) hit of the search, wrapping around.
pub(super) fn jump_to_hit(s: &mut State, forward: bool) {
    let Some(q) = s.search.clone().filter(|q| q.screen == s.screen) else {
        return;
    };
    match s.screen {
        Screen::Grid => {
            let hits = crate::tui::search::grid_hits(s, &q.query);
            if hits.is_empty() {
                s.say(format!("no test or mutant matches `{}`", q.query));
                return;
            }
            let n = hits.len();
            let i = if forward {
                q.current % n
            } else {
                (q.current + n - 2) % n
            };
            match hits[i] {
                crate::tui::search::GridHit::Row(r) => s.row = r,
                crate::tui::search::GridHit::Col(c) => s.col = c,
            }
            s.clamp_grid();
            if let Some(q) = &mut s.search {
                q.current = i + 1;
            }
            s.say(format!("match {} of {n}", i + 1));
        }
        Screen::Curate => {
            let hits = crate::tui::search::curate_hits(s, &q.query);
            let here = s.curate_row;
            let next = if forward {
                hits.iter().find(|&&r| r > here).or(hits.first())
            } else {
                hits.iter().rev().find(|&&r| r < here).or(hits.last())
            };
            match next {
                Some(&r) => {
                    s.curate_row = r;
                    s.set_top(Screen::Curate, 0);
                }
                None => s.say(format!("no test matches `{}`", q.query)),
            }
        }
        screen => {
            let hits = s.measured[screen.index()]
                .as_ref()
                .map(|m| m.hits.clone())
                .unwrap_or_default();
            let top = s.scroll_of(screen).top;
            let next = if forward {
                hits.iter().find(|&&h| h > top).or(hits.first())
            } else {
                hits.iter().rev().find(|&&h| h < top).or(hits.last())
            };
            match next {
                Some(&h) => s.set_top(screen, h),
                None => s.say(format!("no match for `{}` on this screen", q.query)),
            }
        }
    }
}

/// Shows another generation (`None` follows the newest, which is where the arrow ends).
pub(super) fn switch_generation(s: &mut State, by: i64) {
    let n = s.doc.generations.len();
    if n == 0 {
        return;
    }
    let g = s.shown_generation().unwrap_or(0);
    let to = moved(g, by).min(n - 1);
    let pair = s.grid_selection();
    s.generation = (to + 1 < n).then_some(to);
    s.refresh();
    // A test of both generations (a survivor) stays selected.
    s.reselect(pair);
}

/// All, survivors, then each kind present, then each file present, then all again.
pub(super) fn next_filter(s: &State) -> ColumnFilter {
    let mut cycle = vec![ColumnFilter::All, ColumnFilter::Survivors];
    if let (Some(pool), Some(g)) = (&s.doc.pool, s.shown_generation()) {
        let in_gen: Vec<&crate::mutate::Mutant> = pool
            .mutants
            .iter()
            .filter(|m| s.doc.generations[g].mutants.contains(&m.id))
            .collect();
        let kinds: BTreeSet<MutantKind> = in_gen.iter().map(|m| m.kind).collect();
        cycle.extend(kinds.into_iter().map(ColumnFilter::Kind));
        let files: BTreeSet<&String> = in_gen.iter().map(|m| &m.file).collect();
        if files.len() > 1 {
            cycle.extend(files.into_iter().map(|f| ColumnFilter::File(f.clone())));
        }
    }
    let i = cycle.iter().position(|f| *f == s.filter).unwrap_or(0);
    cycle[(i + 1) % cycle.len()].clone()
}

/// Home or End: the first or last row of the Grid and Curate, the top or end of any other
/// screen's pane.
pub(super) fn ends(s: &mut State, last: bool) {
    match s.screen {
        Screen::Grid => {
            s.row = if last { usize::MAX } else { 0 };
            s.clamp_grid();
        }
        Screen::Curate => {
            s.curate_row = if last {
                s.curate_list().len().saturating_sub(1)
            } else {
                0
            };
            s.set_top(Screen::Curate, 0);
        }
        screen => s.set_top(screen, if last { usize::MAX } else { 0 }),
    }
}
