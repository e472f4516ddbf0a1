//! Drawing: every screen from `&State` only (drawing never changes anything). The layout is a
//! tab line, the screen, a status line and a footer with the screen's keys; `?` lays the help
//! over it. A terminal too small for a screen says so instead of drawing garbage.

mod common;
mod curate;
mod figure;
mod frame;
mod grid;
mod grid_cells;
mod model;
mod pair;
mod timeline;
mod why;

pub use common::Ctx;
pub use frame::{Offer, footer_offers, help_len};
pub use pair::{diff_styles, pair_lines};

use super::state::{HELP_HEIGHT_PCT, Screen};
use super::theme::Role;
use common::centered;
use frame::{draw_confirm, draw_editor, draw_footer, draw_help, draw_status, draw_tabs};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// The smallest terminal the workbench draws in (80 x 24 works).
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

pub fn draw(f: &mut Frame, c: &Ctx) {
    let area = f.area();
    let t = c.theme;
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "The terminal is {}x{}; the workbench needs at least {MIN_WIDTH}x{MIN_HEIGHT}. \
             Make it larger (q quits).",
            area.width, area.height
        );
        f.render_widget(
            Paragraph::new(msg)
                .style(t.style(Role::Warning))
                .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    // A long message (why the run stopped, say) wraps onto up to a quarter of the screen
    // rather than being cut at its width.
    let notice = match (&c.state.prompt, c.state.notice.as_deref()) {
        (None, Some(n)) if !n.is_empty() => Some(
            Paragraph::new(format!(" {n}"))
                .style(t.style(Role::Warning))
                .wrap(Wrap { trim: false }),
        ),
        _ => None,
    };
    let message_lines = notice.as_ref().map_or(1, |p| {
        p.line_count(area.width)
            .clamp(1, usize::from(area.height / 4).max(1)) as u16
    });
    let [tabs, body, status, message, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(message_lines),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_tabs(f, c, tabs);
    match c.state.screen {
        Screen::Timeline => timeline::draw_timeline(f, c, body),
        Screen::Grid => grid::draw_grid(f, c, body),
        Screen::Pair => pair::draw_pair(f, c, body),
        Screen::Why => why::draw_why(f, c, body),
        Screen::Curate => curate::draw_curate(f, c, body),
        Screen::Model => model::draw_model(f, c, body),
    }
    draw_status(f, c, status);
    // The message line, or the prompt being typed (with a cursor block).
    match &c.state.prompt {
        Some(p) => f.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(format!(" {}", p.purpose.label()), t.style(Role::Key)),
                Span::styled(p.text.clone(), t.style(Role::Text)),
                Span::styled(" ", t.style(Role::Selected)),
            ])),
            message,
        ),
        None => {
            if let Some(p) = notice {
                f.render_widget(p, message);
            }
        }
    }
    draw_footer(f, c, footer);
    draw_editor(f, c, area);
    if let Some(q) = &c.state.confirm {
        draw_confirm(f, c, area, &q.question);
    }
    if c.state.help {
        draw_help(f, c, centered(area, 80, HELP_HEIGHT_PCT));
    }
}

#[cfg(test)]
mod tests;
