//! The Grid screen: the test x mutant matrix (drawn by `grid_cells`) and the cell's words.

use super::common::*;
use super::grid_cells::{self, GridWidget};
use crate::tui::state::ColumnFilter;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub(super) fn draw_grid(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let title = match s.grid() {
        Some(g) => {
            let gen_ = &s.doc.generations[g.generation];
            let (cut, short_cut) = match gen_.selected_by {
                Some(by) => {
                    let gate = s.doc.gate(g.generation);
                    let words = gate.cut_words();
                    // "cut 8 -> 4 by mutation; 5 go to crossover": the rule names the cut.
                    let long = match words.split_once("; ") {
                        Some((cut, acts)) => format!(", {cut} by {by}; {acts}"),
                        None => format!(", {words} by {by}"),
                    };
                    (long, format!(", {words}"))
                }
                None => (", not cut yet".into(), ", not cut yet".into()),
            };
            // Mutants drawn after the sample tied the cut: how many (their cells say which).
            let settling = match gen_.settling.len() {
                0 => String::new(),
                n => format!("; {n} drawn for a tie"),
            };
            // Mutants of the focal functions' callees and callers (their kinds underlined).
            let settling = match s.cache.widened.iter().filter(|w| **w).count() {
                n if n > 0 && s.cache.generation == g.generation => {
                    format!("{settling}; {n} widened")
                }
                _ => settling,
            };
            let sort = if s.sort_by_fitness {
                ", selection's order"
            } else {
                ""
            };
            // Generations count from 0: "generation 2 of 0-2".
            let (n, of) = (g.generation, s.doc.generations.len().saturating_sub(1));
            let (tests, mutants, filter) = (g.tests.len(), g.mutants.len(), s.filter.label());
            // Columns that are a subset say which, however narrow the title.
            let shown = match &s.filter {
                ColumnFilter::All if sort.is_empty() => String::new(),
                ColumnFilter::All => format!(" ({})", sort.trim_start_matches(", ")),
                ColumnFilter::Kind(k) => format!(" (kind {}{sort})", grid_cells::kind_letter(*k)),
                _ => format!(" ({filter}{sort})"),
            };
            // The widest that fits: at 80 columns the key hint and the long words go first,
            // so that the counts (ties, widened mutants) and the filter are never cut off.
            let fits = |t: &String| t.chars().count() + 2 <= usize::from(area.width);
            [
                format!(
                    " Grid: generation {n} of 0-{of} ([ ]){cut} | {tests} x {mutants} \
                     ({filter}{sort}{settling}) "
                ),
                format!(
                    " Grid: generation {n} of 0-{of}{short_cut} | {tests} x {mutants} \
                     ({filter}{sort}{settling}) "
                ),
                format!(
                    " Grid: generation {n} of 0-{of}{short_cut} | {tests}x{mutants}{shown}\
                     {settling} "
                ),
                format!(
                    " Grid: gen {n} of 0-{of}{short_cut} | {tests}x{mutants}{shown}{settling} "
                ),
                format!(" Grid {n} of 0-{of} | {tests}x{mutants}{shown}{settling} "),
            ]
            .into_iter()
            .reduce(|wide, narrow| if fits(&wide) { wide } else { narrow })
            .unwrap_or_default()
        }
        None => " Grid ".into(),
    };
    let b = block(c, title);
    let inner = b.inner(area);
    f.render_widget(b, area);
    let lines = cell_lines(c);
    // The selected cell's two lines, wrapped where the pane is narrower than they are (a
    // widened mutant's line names its file, function and scope: at 80 columns the scope
    // was cut off), on at most four rows.
    let width = usize::from(inner.width.max(1));
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(width)).sum();
    let [cells, detail] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(rows.clamp(2, 4) as u16),
    ])
    .areas(inner);
    f.render_widget(GridWidget { state: s, theme: t }, cells);
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail);
}

/// The Grid's selected cell: the pair, its verdict, the mutant (kind, place, scope), and what
/// the mutant changes.
pub(super) fn cell_lines(c: &Ctx) -> Vec<Line<'static>> {
    let s = c.state;
    let t = c.theme;
    let mut lines = vec![];
    if let (Some((test, m)), Some(g)) = (s.selected_pair(), s.shown_generation()) {
        let cell = s.cell(g, &test, &m);
        let mutant = s
            .doc
            .pool
            .as_ref()
            .and_then(|p| p.mutants.iter().find(|x| x.id == m));
        if let Some(mu) = mutant {
            lines.push(Line::from(vec![
                Span::styled(format!("{test} x {} ", mu.id), t.style(Role::Title)),
                Span::styled(format!("{} ", cell.name()), t.style(grid_cells::role(cell))),
                Span::styled(
                    if s.doc.generations[g].settling.contains(&mu.id) {
                        "(drawn for a tie) "
                    } else {
                        ""
                    },
                    t.style(Role::Key),
                ),
                Span::styled(
                    format!(
                        "{} {}:{} {}{}",
                        mu.kind,
                        mu.file,
                        mu.line,
                        mu.function,
                        mu.scope
                            .map_or(String::new(), |sc| format!(" (scope: {})", sc.as_str()))
                    ),
                    t.style(Role::Dim),
                ),
            ]));
            lines.push(Line::styled(
                format!(
                    "`{}` -> `{}`",
                    headline(&mu.original),
                    headline(&mu.replacement)
                ),
                t.style(Role::Text),
            ));
        }
        // Which heterogeneous-prompting variant wrote the row's test.
        if let Some(crate::engine::Origin::Generated { prompting }) =
            s.doc.tests.get(&test).map(|c| &c.origin)
            && let Some((_, variant)) = prompting.split_once(", variant ")
        {
            lines.push(Line::styled(
                format!("{test} was written by variant {variant}"),
                t.style(Role::Dim),
            ));
        }
    }
    lines
}
