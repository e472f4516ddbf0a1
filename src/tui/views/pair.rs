//! The Pair screen: one test on one mutant, its log on c_old against its log on the mutant.

use super::common::*;
use super::grid_cells;
use crate::engine::pair;
use crate::tui::log_diff::{DiffStyles, LogDiff};
use crate::tui::state::Screen;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Block;

pub fn diff_styles(t: &Theme) -> DiffStyles {
    DiffStyles {
        context: t.style(Role::DiffContext),
        added: t.style(Role::DiffAdd),
        removed: t.style(Role::DiffRemove),
        added_emph: t.style(Role::DiffAddEmph),
        removed_emph: t.style(Role::DiffRemoveEmph),
        hunk: t.style(Role::DiffHunk),
        line_no: t.style(Role::Dim),
    }
}

/// The pair screen's document: header, mutant diff, log diff, statuses, test source. Also
/// gives the line where the log diff starts, for hunk navigation.
pub fn pair_lines(c: &Ctx, width: u16) -> (Vec<Line<'static>>, usize) {
    let s = c.state;
    let t = c.theme;
    let mut lines: Vec<Line<'static>> = vec![];
    let Some((test, m)) = s.selected_pair() else {
        return (
            vec![Line::raw("no cell selected (Grid: move to a cell, Enter)")],
            0,
        );
    };
    let p = match pair::find(&s.doc, &test, &m) {
        Ok(p) => p,
        Err(e) => return (vec![Line::raw(e.to_string())], 0),
    };
    let mu = p.mutant;
    // Two lines: the pair, then the mutant, so that an 80-column pane shows the whole of a
    // widened mutant's place and scope.
    lines.push(Line::styled(
        format!("{test} ({}) on mutant {}", p.test.name, mu.id),
        t.style(Role::Title),
    ));
    lines.push(Line::styled(
        format!(
            "{} at {}:{} in {}{}",
            mu.kind,
            mu.file,
            mu.line,
            mu.function,
            // As the Grid says it: a neighbour's mutant is not a focal function's.
            mu.scope
                .map_or(String::new(), |sc| format!(" (scope: {})", sc.as_str()))
        ),
        t.style(Role::Title),
    ));
    match (p.old, p.run, p.cell) {
        (Some(old), Some(run), Some(cell)) => {
            // As the Grid shows the cell (flaky, error, not reached), not only the kill.
            let view = s.cell(s.shown_generation().unwrap_or(0), &p.test.id, &mu.id);
            lines.push(Line::styled(
                format!(
                    "c_old {:?}, mutant {:?}: {}",
                    old.outcome,
                    run.outcome,
                    view.verdict()
                ),
                t.style(grid_cells::role(view)),
            ));
            if let Some(why) = cell.uncounted(&s.doc.config) {
                lines.push(Line::styled(why, t.style(Role::Dim)));
            }
            // How plausible a fix the rescuer is, as selection weighed it.
            if cell == crate::engine::kill::Cell::Rescued
                && let Some(j) = crate::engine::witness::judgement(&s.doc, &mu.id)
            {
                lines.extend(j.into_iter().map(|l| Line::styled(l, t.style(Role::Dim))));
            }
        }
        _ => lines.push(Line::styled(
            p.why_not_run(&s.doc, &|f| s.source(f)),
            t.style(Role::Warning),
        )),
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("the mutant", t.style(Role::Header)));
    // On a small terminal the mutation keeps one line of context, so that the log diff
    // below it starts on the first page.
    let context = if s.height >= 30 { 3 } else { 1 };
    lines.extend(c.hl.diff(&crate::tui::log_diff::narrow_patch(&mu.diff, context)));
    lines.push(Line::raw(""));
    let which = if s.raw_log { "raw" } else { "normalized" };
    lines.push(Line::styled(
        format!("the test's log, c_old -> mutant ({which}; v toggles, o side by side)"),
        t.style(Role::Header),
    ));
    let start = lines.len();
    let empty = LogDiff::default();
    let diff = s.pair_diff.as_ref().map_or(&empty, |d| &d.diff);
    if let (Some(old), Some(run)) = (p.old, p.run) {
        if diff.is_empty() {
            lines.push(Line::styled("identical", t.style(Role::Dim)));
        } else if s.side_by_side {
            // Each half scrolls inside its half with `<` `>`: the pane's scroll, which the
            // lines are built for.
            let left = s.scroll_of(Screen::Pair).left;
            lines.extend(diff.side_by_side_scrolled(&diff_styles(t), width, left));
        } else {
            lines.extend(diff.unified(&diff_styles(t)));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("test statuses, c_old -> mutant (in {})", p.test.rel_path),
            t.style(Role::Header),
        ));
        let ids: std::collections::BTreeSet<&String> =
            old.status_map.keys().chain(run.status_map.keys()).collect();
        // The statuses first and the test file's path left out: at 80 columns a long node id
        // cut off the statuses, which are what this list is for.
        let in_file = format!("{}::", p.test.rel_path);
        for id in ids {
            let a = old.status_map.get(id).map_or("-", String::as_str);
            let b = run.status_map.get(id).map_or("-", String::as_str);
            let style = if a == b {
                t.style(Role::Text)
            } else {
                t.style(Role::Warning)
            };
            let name = id.strip_prefix(&in_file).unwrap_or(id);
            lines.push(Line::styled(format!("  {a:<7} -> {b:<7} {name}"), style));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("the test, {}", p.test.rel_path),
        t.style(Role::Header),
    ));
    lines.extend(c.hl.python(&p.test.source));
    (lines, start)
}

pub(super) fn draw_pair(f: &mut Frame, c: &Ctx, area: Rect) {
    let inner = Block::bordered().inner(area);
    let (lines, start) = pair_lines(c, inner.width);
    let pane = Pane {
        screen: Screen::Pair,
        title: "Pair",
        wrap: false,
        anchor: start,
    };
    scrolled(f, c, area, pane, lines);
}
