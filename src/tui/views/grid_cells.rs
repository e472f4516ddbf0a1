//! The test x mutant grid as a widget of its own: it writes only the cells in the viewport
//! straight into the frame's buffer (ratatui's `Table` would build every row of a 64 x 640
//! grid each frame), with frozen headers: the column numbers and kinds above, the test id,
//! `c_old` outcome and fitness to the left, and each column's kill count below.

use crate::engine::kill::Cell;
use crate::exec::Outcome;
use crate::tui::state::{CellView, State};
use crate::tui::theme::{Role, Theme};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::widgets::Widget;

use crate::tui::state::{GRID_CELL_WIDTH as CELL_WIDTH, GRID_ROW_HEADER as ROW_HEADER};

pub struct GridWidget<'a> {
    pub state: &'a State,
    pub theme: &'a Theme,
}

/// The theme role of a cell kind.
pub fn role(c: CellView) -> Role {
    match c {
        CellView::Killed(Cell::KilledStatus) => Role::CellKilledStatus,
        CellView::Killed(Cell::KilledLog) | CellView::Killed(Cell::KilledPassing) => {
            Role::CellKilledLog
        }
        CellView::Killed(Cell::Rescued) => Role::CellRescued,
        CellView::Killed(Cell::TimedOut) => Role::CellTimeout,
        CellView::Killed(Cell::Survived) => Role::CellSurvived,
        CellView::Error => Role::CellError,
        CellView::Flaky => Role::CellFlaky,
        CellView::NotReached => Role::CellNotReached,
        CellView::Running => Role::CellRunning,
        CellView::Pending => Role::CellPending,
    }
}

fn outcome_letter(o: Option<Outcome>) -> char {
    match o {
        Some(Outcome::Passed) => 'P',
        Some(Outcome::Failed) => 'F',
        Some(Outcome::Error) => 'E',
        Some(Outcome::Timeout) => 'T',
        None => '-',
    }
}

/// One letter per mutant kind, for the column header (all nine differ).
pub fn kind_letter(k: crate::mutate::MutantKind) -> char {
    use crate::mutate::MutantKind::*;
    match k {
        BinaryArithmetic => 'a',
        UnaryArithmetic => 'u',
        BinaryRelational => 'r',
        BinaryLogical => 'l',
        UnaryLogical => 'n',
        ConstantReplacement => 'c',
        ReturnValue => 'v',
        Assignment => '=',
        ForceFailure => 'f',
    }
}

impl Widget for GridWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let s = self.state;
        let t = self.theme;
        let Some(grid) = s.grid() else {
            let words = super::common::no_generation_words(s);
            buf.set_stringn(
                area.x,
                area.y,
                words,
                usize::from(area.width),
                t.style(Role::Dim),
            );
            return;
        };
        let g = grid.generation;
        let gen_ = &s.doc.generations[g];
        let cols_fit = (area.width.saturating_sub(ROW_HEADER) / CELL_WIDTH) as usize;
        let col_header = s.grid_col_header();
        let rows_fit = area.height.saturating_sub(col_header + 1) as usize;
        let cols = grid
            .mutants
            .iter()
            .enumerate()
            .skip(s.col_scroll)
            .take(cols_fit);
        let pool = s.doc.pool.as_ref();
        let header = t.style(Role::Header);
        let selected = t.style(Role::Selected);
        // The active search's hits: their row and column headers stand out.
        let (hit_rows, hit_cols): (Vec<usize>, Vec<usize>) = match &s.search {
            Some(q) if q.screen == crate::tui::state::Screen::Grid => {
                let hits = crate::tui::search::grid_hits(s, &q.query);
                (
                    hits.iter()
                        .filter_map(|h| match h {
                            crate::tui::search::GridHit::Row(r) => Some(*r),
                            _ => None,
                        })
                        .collect(),
                    hits.iter()
                        .filter_map(|h| match h {
                            crate::tui::search::GridHit::Col(c) => Some(*c),
                            _ => None,
                        })
                        .collect(),
                )
            }
            _ => (vec![], vec![]),
        };
        let found = t.style(Role::SearchHit);
        for (j, m) in cols.clone() {
            let x = area.x + ROW_HEADER + ((j - s.col_scroll) as u16) * CELL_WIDTH;
            let n = grid.numbers[j];
            let style = if j == s.col {
                selected
            } else if hit_cols.contains(&j) {
                found
            } else {
                header
            };
            // The number read top down, right-aligned on the header's digit rows; leading
            // zeros stay blank so short numbers read as numbers.
            let rows = col_header - 1;
            for line in 0..rows {
                let place = 10usize.pow(u32::from(rows - 1 - line));
                let ch = if n >= place || place == 1 {
                    char::from(b'0' + (n / place % 10) as u8)
                } else {
                    ' '
                };
                buf.set_string(x, area.y + line, ch.to_string(), style);
            }
            let kind = match s.cache.kinds.get(grid.cols[j]) {
                Some(k) if s.cache.generation == g => kind_letter(*k),
                _ => pool
                    .and_then(|p| p.mutants.iter().find(|x| &x.id == m))
                    .map_or('?', |m| kind_letter(m.kind)),
            };
            // A mutant of a callee or caller (the widened scope) has its kind underlined.
            let widened = match s.cache.widened.get(grid.cols[j]) {
                Some(w) if s.cache.generation == g => *w,
                _ => pool
                    .and_then(|p| p.mutants.iter().find(|x| &x.id == m))
                    .is_some_and(|m| m.scope.is_some()),
            };
            let style = if widened {
                style.add_modifier(Modifier::UNDERLINED)
            } else {
                style
            };
            buf.set_string(x, area.y + col_header - 1, kind.to_string(), style);
        }
        buf.set_string(area.x, area.y + col_header - 1, "test c fit", header);

        for (i, test) in grid
            .tests
            .iter()
            .enumerate()
            .skip(s.row_scroll)
            .take(rows_fit)
        {
            let y = area.y + col_header + (i - s.row_scroll) as u16;
            let old = s
                .doc
                .execution(test, &crate::engine::Target::Old)
                .map(|e| e.outcome);
            let score = gen_.scores.get(test);
            let fate = s.fate(g, test);
            // A method without mutants has no fitness: its rows say so rather than a 0.
            let fitness = score
                .filter(|_| s.doc.config.method.mutates())
                .map_or(String::from("-"), |sc| {
                    sc.counted(&s.doc.config).to_string()
                });
            let label = format!(
                "{}{test:<4} {} {fitness:>3}",
                fate.mark(),
                outcome_letter(old)
            );
            let style = if i == s.row {
                selected
            } else if hit_rows.contains(&i) {
                found
            } else {
                t.style(Role::of_fate(fate))
            };
            buf.set_stringn(area.x, y, &label, (ROW_HEADER - 1) as usize, style);
            let ti = grid.rows[i];
            for (j, m) in cols.clone() {
                let x = area.x + ROW_HEADER + ((j - s.col_scroll) as u16) * CELL_WIDTH;
                let c = if s.cache.generation == g && s.running_pairs.is_empty() {
                    s.cache.at(ti, grid.cols[j])
                } else {
                    s.cell(g, test, m)
                };
                let mut style = t.style(role(c));
                if i == s.row && j == s.col {
                    style = style.add_modifier(Modifier::REVERSED);
                }
                buf.set_string(x, y, c.glyph().to_string(), style);
            }
        }

        let y = area.y + col_header + rows_fit.min(grid.tests.len()) as u16;
        if y < area.y + area.height {
            bottom_row(s, t, &grid, buf, (area, y), cols);
        }
    }
}

/// The row under the tests: how many tests kill each column's mutant (one digit, `+` beyond
/// 9), or, for a method that runs no mutant, that it runs none.
fn bottom_row<'m>(
    s: &crate::tui::state::State,
    t: &crate::tui::theme::Theme,
    grid: &crate::tui::state::GridModel,
    buf: &mut Buffer,
    (area, y): (Rect, u16),
    cols: impl Iterator<Item = (usize, &'m crate::engine::MutantId)>,
) {
    let method = s.doc.config.method;
    if !method.mutates() {
        let words =
            format!("--method {method} runs no mutant: the Timeline says how the test was picked");
        buf.set_stringn(
            area.x,
            y,
            words,
            usize::from(area.width),
            t.style(Role::Dim),
        );
        return;
    }
    let g = grid.generation;
    let gen_ = &s.doc.generations[g];
    buf.set_string(area.x, y, "killed by", t.style(Role::Dim));
    for (j, m) in cols {
        let x = area.x + ROW_HEADER + ((j - s.col_scroll) as u16) * CELL_WIDTH;
        let n = if s.cache.generation == g {
            s.cache.killed_by.get(grid.cols[j]).copied().unwrap_or(0)
        } else {
            gen_.scores
                .values()
                .filter(|sc| !sc.flaky && sc.kills.contains(m))
                .count()
        };
        let ch = match n {
            0..=9 => char::from(b'0' + n as u8),
            _ => '+',
        };
        buf.set_string(x, y, ch.to_string(), t.style(Role::Dim));
    }
}
