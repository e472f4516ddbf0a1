//! The frame around every screen: the tab line, the status line, the footer with the screen's
//! keys, the help over it, and the editor and confirm prompt laid over the screen.

use super::common::*;
use super::grid_cells;
use crate::engine::Phase;
use crate::tui::action::Action;
use crate::tui::keymap::{KeyContext, Keymap};
use crate::tui::state::{CellView, Screen, State};
use crate::tui::theme::Role;
use crate::tui::update;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Gauge, Paragraph, Wrap};

/// The editor over the screen: the text area with line numbers and Python highlighting, the
/// line a compile error names marked, and the error under the text.
pub(super) fn draw_editor(f: &mut Frame, c: &Ctx, area: Rect) {
    let (Some(text), Some(ed)) = (c.editor, &c.state.editor) else {
        return;
    };
    let t = c.theme;
    let r = centered(area, 90, 80);
    f.render_widget(Clear, r);
    let key = |name: &str| {
        c.keymap
            .keys(crate::tui::keymap::KeyContext::Editor, name)
            .first()
            .cloned()
            .unwrap_or_else(|| "?".into())
    };
    let block = Block::bordered()
        .title(format!(
            " {} ({} saves, {} cancels) ",
            ed.purpose.title(),
            key("save"),
            key("cancel")
        ))
        .border_style(t.style(Role::BorderFocused));
    let inner = block.inner(r);
    f.render_widget(block, r);
    let status = if ed.checking {
        Some((
            "compiling it with the run's interpreter...".to_owned(),
            Role::Dim,
        ))
    } else {
        ed.error.as_ref().map(|(line, msg)| {
            let at = if *line > 0 {
                format!("line {line}: ")
            } else {
                String::new()
            };
            // The template's placeholder compiles: it is refused for failing on any code.
            let verdict = if msg == "the template's placeholder" {
                "not accepted, it fails on any code"
            } else {
                "does not compile"
            };
            (format!("{verdict}: {at}{msg}"), Role::Error)
        })
    };
    let (text_area, status_area) = match &status {
        Some(_) => {
            let [a, b] = Layout::vertical([Constraint::Min(1), Constraint::Length(2)]).areas(inner);
            (a, Some(b))
        }
        None => (inner, None),
    };
    f.render_widget(text, text_area);
    if ed.purpose != crate::tui::state::Editing::Path {
        let marked = ed.error.as_ref().map(|(line, _)| *line);
        highlight_editor(f.buffer_mut(), text_area, text, c, marked);
    }
    if let (Some((msg, role)), Some(a)) = (status, status_area) {
        f.render_widget(
            Paragraph::new(msg)
                .style(t.style(role))
                .wrap(Wrap { trim: true }),
            a,
        );
    }
}

/// Colours the editor's visible text as Python (the text area draws it plain) and marks the
/// line number of `marked` (1-based), the line a compile error names.
pub(super) fn highlight_editor(
    buf: &mut ratatui::buffer::Buffer,
    area: Rect,
    text: &ratatui_textarea::TextArea<'static>,
    c: &Ctx,
    marked: Option<usize>,
) {
    let lines = text.lines();
    let styled = c.hl.python(&lines.join("\n"));
    let (top, left) = text.scroll_offset();
    let (top, left) = (usize::from(top), usize::from(left));
    let gutter = text.line_number_width();
    for row in 0..usize::from(area.height) {
        let n = top + row;
        if n >= lines.len() {
            break;
        }
        let y = area.y + row as u16;
        if marked == Some(n + 1) {
            for x in area.x..(area.x + gutter).min(area.right()) {
                buf[(x, y)].set_style(c.theme.style(Role::Error));
            }
        }
        let Some(line) = styled.get(n) else {
            continue;
        };
        let mut col = 0usize;
        for span in &line.spans {
            for _ in span.content.chars() {
                if col >= left {
                    let x = area.x + gutter + (col - left) as u16;
                    if x >= area.right() {
                        break;
                    }
                    if let Some(fg) = span.style.fg {
                        buf[(x, y)].set_fg(fg);
                    }
                }
                col += 1;
            }
        }
    }
}

/// A question in a box of its own, over everything.
pub(super) fn draw_confirm(f: &mut Frame, c: &Ctx, area: Rect, question: &str) {
    let len = question.chars().count() as u16;
    let w = (len + 4).min(area.width);
    // A question wider than the screen wraps: the box grows so that its end (`y/n`) shows
    // (word wrapping may take a line more than the characters need).
    let inner = w.saturating_sub(4).max(1);
    let h = (len.div_ceil(inner) + 1 + 2).min(area.height);
    let h = if len + 4 <= area.width { 3 } else { h };
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(question.to_owned())
            .style(c.theme.style(Role::Warning))
            .wrap(Wrap { trim: true })
            .block(
                Block::bordered()
                    .title(" answer y or n ")
                    .border_style(c.theme.style(Role::BorderFocused)),
            ),
        r,
    );
}

pub(super) fn draw_tabs(f: &mut Frame, c: &Ctx, area: Rect) {
    let t = c.theme;
    let width = usize::from(area.width);
    // Each tab with the key that shows it, as the keymap binds it (none if unbound).
    let keys: Vec<String> = Screen::ALL
        .iter()
        .map(|s| {
            c.keymap
                .keys(KeyContext::Global, s.action_name())
                .first()
                .map_or(String::new(), |k| format!("{k} "))
        })
        .collect();
    let tabs = |short: bool| -> usize {
        Screen::ALL
            .iter()
            .zip(&keys)
            .map(|(s, k)| (if short { s.short_title() } else { s.title() }).len() + k.len() + 2)
            .sum()
    };
    // The labels that say what the session is come first: they must show at any width, in
    // fewer words when the tabs would not fit (80 columns, a scripted read-only session),
    // the program's name last of all.
    let scripted = |long: bool| match (c.state.scripted, long) {
        (false, _) => "",
        (true, true) => " SCRIPTED model ",
        (true, false) => " SCRIPTED ",
    };
    let read_only = if c.state.read_only { " read-only " } else { "" };
    let forms = [
        (" evootter ", scripted(true), false),
        (" evootter ", scripted(true), true),
        (" evootter ", scripted(false), true),
        ("", scripted(false), true),
    ];
    let fits = |(name, model, short): &(&str, &str, bool)| {
        name.len() + model.len() + read_only.len() + tabs(*short) <= width
    };
    let (name, model, short) = forms
        .iter()
        .find(|f| fits(f))
        .copied()
        .unwrap_or(forms[forms.len() - 1]);
    let mut spans = vec![];
    if !name.is_empty() {
        spans.push(Span::styled(name, t.style(Role::Title)));
    }
    if !model.is_empty() {
        spans.push(Span::styled(model, t.style(Role::Scripted)));
    }
    if !read_only.is_empty() {
        spans.push(Span::styled(read_only, t.style(Role::Warning)));
    }
    for (s, key) in Screen::ALL.iter().zip(&keys) {
        let style = if *s == c.state.screen {
            t.style(Role::Selected)
        } else {
            t.style(Role::Dim)
        };
        let title = if short { s.short_title() } else { s.title() };
        spans.push(Span::styled(format!(" {key}{title} "), style));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub(super) fn draw_status(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let calls = crate::llm::CallTotals::of(&s.doc.llm_calls);
    // The gauge takes its room only while executions run.
    let running = s.progress.filter(|p| p.total > 0 && p.done < p.total);
    let gauge_w = if running.is_some() { 24 } else { 0 };
    let name = s.doc.inputs.instance.as_deref().unwrap_or("session");
    // A run with a budget shows how much of it is spent.
    let budget = s.doc.config.budget_usd;
    let of_budget = |long: bool| {
        budget.map_or(String::new(), |b| {
            format!(" of ${b:.2}{}", if long { " budget" } else { "" })
        })
    };
    // Scripted replies count no tokens and cost nothing: the line says they are scripted
    // rather than show a meter of zeros.
    let scripted = s.scripted;
    let cost = if scripted {
        "scripted, no cost".to_owned()
    } else {
        calls.cost_usd.map_or_else(
            || "cost unknown".to_owned(),
            |c| format!("${c:.4}{}", of_budget(false)),
        )
    };
    let usage = if scripted {
        "scripted replies, no tokens, no cost".to_owned()
    } else {
        format!(
            "tokens {}/{}, {}{}",
            calls.input_tokens,
            calls.output_tokens,
            calls.cost_label(),
            of_budget(true)
        )
    };
    // The longest form that fits: a narrow terminal gets the same facts, shorter.
    let short_phase = match &s.doc.phase {
        Phase::Crossover { generation } if s.paused_at == Some(*generation) => {
            format!(
                "gate {generation}{}",
                if s.busy { " (running)" } else { "" }
            )
        }
        _ => phase_words(s),
    };
    let forms = [
        format!(
            " {name} | {} | model calls {}, {usage}",
            phase_words(s),
            calls.calls,
        ),
        format!(
            " {name} | {} | {} calls, {cost}",
            phase_words(s),
            calls.calls
        ),
        format!(" {name} | {short_phase} | {} calls, {cost}", calls.calls),
        format!(" {short_phase} | {} calls, {cost}", calls.calls),
    ];
    let room = usize::from(area.width.saturating_sub(gauge_w));
    let left = forms
        .iter()
        .find(|f| f.chars().count() <= room)
        .unwrap_or(&forms[forms.len() - 1])
        .clone();
    let [text, gauge] =
        Layout::horizontal([Constraint::Min(10), Constraint::Length(gauge_w)]).areas(area);
    f.render_widget(Paragraph::new(left).style(t.style(Role::Footer)), text);
    if let Some(p) = running {
        let ratio = p.done as f64 / p.total as f64;
        f.render_widget(
            Gauge::default()
                .gauge_style(t.style(Role::Progress))
                .ratio(ratio.clamp(0.0, 1.0))
                .label(format!("{}/{} T{}", p.done, p.total, p.timeouts)),
            gauge,
        );
    }
}

/// What the footer calls an action here, or `None` to leave it to the help: verbs by their
/// names in words; the moving keys only where they mean something particular.
pub(super) fn footer_label(s: &State, name: &str, action: &Action) -> Option<String> {
    let label = match (action, s.screen) {
        (Action::Open, Screen::Grid) => "pair",
        (Action::Open, Screen::Timeline) => "grid",
        // Shown once, as `[ ] generation`.
        (Action::PrevGeneration, _) => return None,
        (Action::NextGeneration, _) => "generation",
        (Action::Open, Screen::Why) => "run traced",
        (Action::Open, _) => return None,
        (Action::Down, Screen::Timeline) => "scroll",
        (Action::Down, Screen::Model) => "scroll",
        (Action::Right, Screen::Model) => "next call",
        (Action::Back, _) if s.history.is_empty() && s.back_to.is_some() => {
            return s.back_to.as_ref().map(|to| format!("back to {to}"));
        }
        (Action::Back, Screen::Pair | Screen::Why) => "back",
        _ if action.in_footer() => return Some(name.replace('_', " ")),
        _ => return None,
    };
    Some(label.to_owned())
}

/// One key the footer offers: its key(s) as shown, its label and the action it does.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub key: String,
    pub label: String,
    pub action: Action,
}

/// What the footer offers here and now, in its order, before it is cut to the width: from
/// the keymap (a search's or a prompt's keys first, then the screen's, then the global
/// ones), leaving out what the reducer would refuse and a key an earlier context took (while
/// searching, `n` is the next hit, not a step). At a gate the acts and continue come first,
/// so they show at 80 columns. Help and quit are not in it: the footer always ends with them.
pub fn footer_offers(s: &State, keymap: &crate::tui::keymap::Keymap) -> Vec<Offer> {
    let mut offered: Vec<crate::tui::keymap::Shown> = vec![];
    let mut taken: Vec<String> = vec![];
    for ctx in update::key_contexts(s) {
        for mut o in keymap.offered(ctx) {
            o.keys.retain(|k| !taken.contains(k));
            if o.keys.is_empty() || offered.iter().any(|x| x.name == o.name) {
                continue;
            }
            offered.push(o);
        }
        taken.extend(offered.iter().flat_map(|o| o.keys.iter().cloned()));
    }
    let at_gate = s.at_gate().is_some();
    // At a gate: going on first, then the acts, the one that asks the model last.
    let acts_first = |a: &Action| match a {
        _ if !at_gate => 3,
        Action::Continue => 0,
        Action::Veto | Action::Edit | Action::Add | Action::Pin | Action::Undo | Action::Redo => 1,
        Action::Repair => 2,
        _ => 3,
    };
    offered.sort_by_key(|o| acts_first(&o.action));
    let mut out = vec![];
    for o in &offered {
        if matches!(o.action, Action::Help | Action::Quit)
            || update::refusal(s, &o.action).is_some()
        {
            continue;
        }
        let Some(label) = footer_label(s, &o.name, &o.action) else {
            continue;
        };
        let key = match o.action {
            Action::NextGeneration => offered
                .iter()
                .find(|p| p.action == Action::PrevGeneration)
                .map_or(o.keys[0].clone(), |p| {
                    format!("{} {}", p.keys[0], o.keys[0])
                }),
            _ => o.keys[0].clone(),
        };
        out.push(Offer {
            key,
            label,
            action: o.action.clone(),
        });
    }
    out
}

/// The footer: what keys do here and now (`footer_offers`), as many as fit, then help and
/// quit.
pub(super) fn draw_footer(f: &mut Frame, c: &Ctx, area: Rect) {
    let t = c.theme;
    let s = c.state;
    let item = |label: String, key: &str| {
        vec![
            Span::styled(format!(" {key}"), t.style(Role::Key)),
            Span::styled(format!(" {label} "), t.style(Role::Footer)),
        ]
    };
    let mut tail = vec![];
    for ctx in update::key_contexts(s) {
        for o in c.keymap.offered(ctx) {
            if matches!(o.action, Action::Help | Action::Quit)
                && !tail.iter().any(|(a, _, _): &(Action, _, _)| *a == o.action)
            {
                tail.push((o.action.clone(), o.name.clone(), o.keys[0].clone()));
            }
        }
    }
    tail.sort_by_key(|(a, _, _)| *a != Action::Help);
    let tail: Vec<Span> = tail
        .into_iter()
        .flat_map(|(_, name, key)| item(name, &key))
        .collect();
    let width = |spans: &[Span]| {
        spans
            .iter()
            .map(|x| x.content.chars().count())
            .sum::<usize>()
    };
    let room = usize::from(area.width).saturating_sub(width(&tail));
    let mut spans = vec![];
    for o in footer_offers(s, c.keymap) {
        let next = item(o.label, &o.key);
        if width(&spans) + width(&next) > room {
            break;
        }
        spans.extend(next);
    }
    spans.extend(tail);
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// What the grid's letters mean, as the help shows it (lines short enough for an 80-column
/// terminal's overlay: the help does not wrap, so its length is known and it scrolls).
pub(super) const GRID_HELP: [&str; 8] = [
    "  c: the test on c_old (P passes, F fails, E errors, T hangs)",
    "  fit: its fitness, the mutants it kills",
    "  under each mutant's number its kind:",
    "    a binary arithmetic, u unary arithmetic, r relational,",
    "    l logical, n not, c constant, v return value,",
    "    = assignment, f force failure; underlined: the mutant",
    "    is of a callee or caller (the pool widened)",
    "  killed by: how many tests kill it (kills that count)",
];

/// The words the explanations use, each in a line or two (80 columns).
pub(super) const WORDS_HELP: [&str; 12] = [
    "  kill: the test's normalized log on the mutant differs",
    "    from its log on c_old",
    "  fitness rule brt: a test failing on c_old ranks above",
    "    any that passes (it cannot reproduce a bug), then evidence",
    "  rescued: the test passes on the mutant, which may be a",
    "    fix; the repository's tests say how plausible one",
    "    (`13 of 15 repository tests still pass`)",
    "  issue values: the test's literals that the issue names",
    "  the Otter rules: failing on an assertion, then failing",
    "    otherwise, then erroring, then passing; then shorter",
    "  gate: the pause before a crossover, where you veto,",
    "    edit, add or pin tests (c continues)",
];

/// The help's lines: the grid's letters first (the key list is long), then the words the
/// explanations use, then every binding.
pub(super) fn help_lines<'a>(c: &Ctx) -> Vec<Line<'a>> {
    let t = c.theme;
    let mut lines = vec![Line::styled("Grid", t.style(Role::Title))];
    lines.extend(
        GRID_HELP
            .iter()
            .map(|l| Line::styled(*l, t.style(Role::Text))),
    );
    for cv in CellView::LEGEND {
        lines.push(Line::from(vec![
            Span::styled(format!("  {}  ", cv.glyph()), t.style(grid_cells::role(cv))),
            Span::styled(cv.name(), t.style(Role::Text)),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Words", t.style(Role::Title)));
    lines.extend(
        WORDS_HELP
            .iter()
            .map(|l| Line::styled(*l, t.style(Role::Text))),
    );
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Keys (overridable in keymap.toml in the config directory)",
        t.style(Role::Title),
    ));
    let bindings = c.keymap.bindings();
    let width = bindings
        .iter()
        .map(|b| b.keys.join(" ").chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    for b in bindings {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<12}", b.context.name()), t.style(Role::Dim)),
            Span::styled(format!("{:<width$}", b.keys.join(" ")), t.style(Role::Key)),
            Span::styled(b.name.replace('_', " "), t.style(Role::Text)),
        ]));
    }
    lines
}

/// How many lines the help has with `keymap`'s bindings (what it can scroll through).
pub fn help_len(keymap: &Keymap) -> usize {
    1 + GRID_HELP.len()
        + CellView::LEGEND.len()
        + 2
        + 2
        + WORDS_HELP.len()
        + keymap.bindings().len()
}

pub(super) fn draw_help(f: &mut Frame, c: &Ctx, area: Rect) {
    let t = c.theme;
    f.render_widget(Clear, area);
    let lines = help_lines(c);
    let rows = usize::from(area.height.saturating_sub(2));
    let top = c.state.help_scroll.min(lines.len().saturating_sub(rows));
    let title = if lines.len() > rows {
        format!(
            " help: lines {}-{} of {}, \u{2191}\u{2193} PageUp PageDown scroll ",
            top + 1,
            (top + rows).min(lines.len()),
            lines.len()
        )
    } else {
        " help (Esc closes) ".to_owned()
    };
    f.render_widget(
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .title(title)
                    .border_style(t.style(Role::BorderFocused)),
            )
            .scroll((u16::try_from(top).unwrap_or(u16::MAX), 0)),
        area,
    );
}
