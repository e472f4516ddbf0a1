//! The Model screen: every call to the model, its prompt and its reply.

use super::common::*;
use crate::tui::fit::cut;
use crate::tui::state::Screen;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

pub(super) fn draw_model(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let calls = &s.doc.llm_calls;
    if calls.is_empty() {
        f.render_widget(
            Paragraph::new("this session made no model calls").block(block(c, " Model ".into())),
            area,
        );
        return;
    }
    let [list, detail] =
        Layout::vertical([Constraint::Percentage(35), Constraint::Percentage(65)]).areas(area);
    // One model for all calls (the common case): named in the title, so each line keeps
    // room for its cost at 80 columns. The cache and batch details are the selected call's.
    let one_model = calls.iter().all(|x| x.model == calls[0].model);
    let mut lines = vec![];
    for (i, call) in calls.iter().enumerate() {
        let style = if i == s.model_call {
            t.style(Role::Selected)
        } else {
            t.style(Role::Text)
        };
        let model = if one_model {
            String::new()
        } else {
            format!("{:<22} ", cut(&call.model, 22))
        };
        let marks = format!(
            "{}{}",
            // In words: letters read as keys (`c` is continue).
            if call.cache_read_tokens + call.cache_write_tokens > 0 {
                " cached"
            } else {
                ""
            },
            if call.batch.is_some() { " batch" } else { "" }
        );
        // A recorded reply has no tokens or latency to show: zeros would read as a free call.
        if call.is_scripted() {
            lines.push(Line::styled(
                format!(
                    "{:>3} {:<20} {model}scripted reply: no tokens, no cost",
                    i + 1,
                    call.step
                ),
                style,
            ));
            continue;
        }
        lines.push(Line::styled(
            format!(
                "{:>3} {:<20} {model}{:>7} in {:>6} out {:>5.1} s {:>9}{marks}",
                i + 1,
                call.step,
                call.input_tokens,
                call.output_tokens,
                call.latency_ms as f64 / 1000.0,
                call.cost_label()
            ),
            style,
        ));
    }
    let skip = s
        .model_call
        .saturating_sub(usize::from(list.height.saturating_sub(3)));
    let title = if one_model {
        format!(
            " Model: {}, {} calls (h/l: previous, next) ",
            calls[0].model,
            calls.len()
        )
    } else {
        format!(" Model: {} calls (h/l: previous, next) ", calls.len())
    };
    f.render_widget(
        Paragraph::new(lines)
            .block(block(c, title))
            .scroll((skip as u16, 0)),
        list,
    );
    let call = &calls[s.model_call.min(calls.len() - 1)];
    let mut d: Vec<Line> = vec![];
    // What it cost, as the provider counted it, first (it wraps, so it is read whole).
    let step = crate::llm::CallTotals::of(calls.iter().filter(|x| x.step == call.step));
    d.push(Line::styled("usage", t.style(Role::Header)));
    if call.is_scripted() {
        d.push(Line::styled(
            "a scripted reply (recorded in the instance, no provider called): no tokens \
             counted, nothing paid",
            t.style(Role::Scripted),
        ));
    } else {
        d.push(Line::raw(format!(
            "{} new input tokens, {} written to the provider's prompt cache, {} read from it, {} \
         output; {}{}",
            call.input_tokens,
            call.cache_write_tokens,
            call.cache_read_tokens,
            call.output_tokens,
            call.cost_label(),
            call.batch.as_deref().map_or(String::new(), |b| format!(
                " (answered in provider batch {b}, at half price)"
            ))
        )));
    }
    if step.calls > 1 && !call.is_scripted() {
        d.push(Line::raw(format!(
            "its step, {}: {} calls, {} new input tokens, {} written to the cache, {} read \
             from it, {} output; {}",
            call.step,
            step.calls,
            step.input_tokens,
            step.cache_write_tokens,
            step.cache_read_tokens,
            step.output_tokens,
            step.cost_label()
        )));
    }
    if let Some(sys) = &call.request.system {
        d.push(Line::styled("system", t.style(Role::Header)));
        d.extend(sys.lines().map(|l| Line::raw(l.to_string())));
    }
    for m in &call.request.messages {
        d.push(Line::styled(
            format!("{:?}", m.role).to_lowercase(),
            t.style(Role::Header),
        ));
        d.extend(m.content.lines().map(|l| Line::raw(l.to_string())));
    }
    d.push(Line::styled(
        if s.scripted {
            "reply (scripted)"
        } else {
            "reply"
        },
        t.style(Role::Header),
    ));
    d.extend(call.reply.lines().map(|l| Line::raw(l.to_string())));
    let title = format!("call {}: {}", s.model_call + 1, call.step);
    scrolled(f, c, detail, Pane::wrapped(Screen::Model, &title), d);
}
