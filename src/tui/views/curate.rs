//! The Curate screen: the gate's tests, each with its fate, and the acts on them.

use super::common::*;
use crate::engine::Target;
use crate::tui::fit::cut;
use crate::tui::state::Screen;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

pub(super) fn draw_curate(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let g = s.curate_generation();
    if g.is_none() {
        f.render_widget(
            Paragraph::new(no_generation_words(s))
                .wrap(Wrap { trim: false })
                .style(t.style(Role::Dim))
                .block(block(c, " Curate ".into())),
            area,
        );
        return;
    }
    let title = match s.at_gate() {
        Some(g) => format!(" Curate: the gate before generation {g}'s crossover "),
        None if s.read_only => " Curate (read-only: nothing can be changed here) ".into(),
        None => " Curate (acts wait for the gate: r runs to it) ".into(),
    };
    // The title says which of the tests show when the list is taller than its room, so it
    // is drawn once the layout is known (the title does not change the block's inside).
    let inner = block(c, String::new()).inner(area);
    // The list takes what its names need, between 40% and 60% of the width; the log the rest.
    let longest = s
        .curate_list()
        .iter()
        .map(|t| s.doc.tests[t].name.chars().count())
        .max()
        .unwrap_or(0);
    let want = u16::try_from(longest + 26).unwrap_or(u16::MAX);
    // Side by side where both fit; on a narrow terminal the log goes under the list, at the
    // full width.
    let side_by_side = inner.width >= 100;
    let notes_h: u16 = if side_by_side { 4 } else { 3 };
    let [list, log] = if side_by_side {
        let list_w = want.clamp(inner.width * 2 / 5, inner.width * 3 / 5);
        Layout::horizontal([Constraint::Length(list_w), Constraint::Min(1)]).areas(inner)
    } else {
        let rows = u16::try_from(s.curate_list().len()).unwrap_or(u16::MAX);
        let list_h = (rows + notes_h).min(inner.height / 2).max(notes_h + 2);
        Layout::vertical([Constraint::Length(list_h), Constraint::Min(3)]).areas(inner)
    };
    let width = usize::from(list.width);
    let name_w = width.saturating_sub(26).max(6);
    let mut rows = vec![];
    for (i, tid) in s.curate_list().iter().enumerate() {
        let cand = &s.doc.tests[tid];
        let fate = g.map_or(crate::tui::state::Fate::Pending, |g| s.fate(g, tid));
        // A method without mutants kills nothing: its column says so rather than a 0.
        let kills = g
            .and_then(|g| s.doc.generations[g].scores.get(tid))
            .filter(|_| s.doc.config.method.mutates())
            .map_or("-".to_string(), |sc| sc.counted(&s.doc.config).to_string());
        let old = s.doc.execution(tid, &Target::Old).map(|e| e.outcome);
        let style = if i == s.curate_row {
            t.style(Role::Selected)
        } else {
            fate_style(t, fate, old)
        };
        rows.push(Line::styled(
            format!(
                "{} {tid:<4} {:<name_w$} {kills:>3} {}",
                fate.mark(),
                cut(&cand.name, name_w),
                fate.label()
            ),
            style,
        ));
    }
    // What passing the gate will do, in words, under the list.
    let mut notes = vec![Line::raw("")];
    if let Some(g) = g {
        let gate = s.doc.gate(g);
        let then = match &gate.pinned {
            Some(p) if s.at_gate() == Some(g) => format!(
                "{p} is pinned: passing the gate ends the run with it ({} on it takes the pin \
                 back)",
                s.act_keys.pin
            ),
            _ => gate.then_words(),
        };
        notes.push(Line::styled(then, t.style(Role::Text)));
    }
    notes.push(Line::styled(
        "+ goes on  x vetoed  e edited  r repaired  P pinned  u undone; kills, then fate",
        t.style(Role::Dim),
    ));
    let [rows_area, notes_area] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(notes_h)]).areas(list);
    // The selected row stays in view.
    let visible = usize::from(rows_area.height).max(1);
    let top = s.curate_row.saturating_sub(visible - 1);
    let title = if rows.len() > visible {
        format!(
            "{}| tests {}-{} of {}, j/k ",
            title,
            top + 1,
            (top + visible).min(rows.len()),
            rows.len()
        )
    } else {
        title
    };
    f.render_widget(block(c, title), area);
    f.render_widget(
        Paragraph::new(rows).scroll((u16::try_from(top).unwrap_or(0), 0)),
        rows_area,
    );
    f.render_widget(Paragraph::new(notes).wrap(Wrap { trim: true }), notes_area);
    let selected = s.curate_list().get(s.curate_row).cloned();
    let mut right: Vec<Line> = vec![];
    let mut title = String::new();
    if let Some(tid) = selected {
        title = format!("{tid} ({})", origin_words(&s.doc.tests[&tid].origin));
        right.push(Line::styled(
            format!("{tid} on c_old"),
            t.style(Role::Header),
        ));
        if let Some(e) = s.doc.execution(&tid, &Target::Old) {
            let width = usize::from(log.width.saturating_sub(2));
            for l in crate::exec::normalize::readable_log(s.doc.log(&e.raw_log)).lines() {
                right.push(Line::raw(fit_rule(l, width)));
            }
        }
        right.push(Line::raw(""));
        right.extend(c.hl.python(&s.doc.tests[&tid].source));
    }
    scrolled(f, c, log, Pane::wrapped(Screen::Curate, &title), right);
}
