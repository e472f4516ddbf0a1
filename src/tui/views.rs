//! Drawing: every screen from `&State` only (drawing never changes anything). The layout is a
//! tab line, the screen, a status line and a footer with the screen's keys; `?` lays the help
//! over it. A terminal too small for a screen says so instead of drawing garbage.

use super::action::Action;
use super::diff::{DiffStyles, LogDiff};
use super::grid::{self, GridWidget};
use super::highlight::Highlighter;
use super::keymap::Keymap;
use super::state::{CellView, ColumnFilter, HELP_HEIGHT_PCT, Measure, Screen, State};
use super::theme::{Role, Theme};
use super::update;
use crate::engine::{Origin, Phase, Target, explain, pair};
use crate::exec::Outcome;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Gauge, Paragraph, Wrap};

/// The smallest terminal the workbench draws in (80 x 24 works).
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Everything drawing needs besides the frame.
pub struct Ctx<'a> {
    pub state: &'a State,
    pub theme: &'a Theme,
    pub hl: &'a Highlighter,
    pub keymap: &'a Keymap,
    /// The text area, while the user edits or writes a test (`State::editor` says what for).
    pub editor: Option<&'a ratatui_textarea::TextArea<'static>>,
    /// What this frame measured of the screen's scrollable pane, for the app to hand to the
    /// reducer (`Action::Measured`): drawing itself changes no state.
    pub measure: &'a std::cell::Cell<Option<(Screen, Measure)>>,
}

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
        Screen::Timeline => draw_timeline(f, c, body),
        Screen::Grid => draw_grid(f, c, body),
        Screen::Pair => draw_pair(f, c, body),
        Screen::Why => draw_why(f, c, body),
        Screen::Curate => draw_curate(f, c, body),
        Screen::Transcript => draw_transcript(f, c, body),
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

/// The editor over the screen: the text area with line numbers and Python highlighting, the
/// line a compile error names marked, and the error under the text.
fn draw_editor(f: &mut Frame, c: &Ctx, area: Rect) {
    let (Some(text), Some(ed)) = (c.editor, &c.state.editor) else {
        return;
    };
    let t = c.theme;
    let r = centered(area, 90, 80);
    f.render_widget(Clear, r);
    let key = |name: &str| {
        c.keymap
            .keys(super::keymap::KeyContext::Editor, name)
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
    if ed.purpose != super::state::Editing::Path {
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
fn highlight_editor(
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
fn draw_confirm(f: &mut Frame, c: &Ctx, area: Rect, question: &str) {
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

fn centered(area: Rect, pct_w: u16, pct_h: u16) -> Rect {
    let w = area.width * pct_w / 100;
    let h = area.height * pct_h / 100;
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_tabs(f: &mut Frame, c: &Ctx, area: Rect) {
    let t = c.theme;
    let width = usize::from(area.width);
    let tabs = |short: bool| -> usize {
        Screen::ALL
            .iter()
            .map(|s| (if short { s.short_title() } else { s.title() }).len() + 4)
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
    for (i, s) in Screen::ALL.iter().enumerate() {
        let style = if *s == c.state.screen {
            t.style(Role::Selected)
        } else {
            t.style(Role::Dim)
        };
        let title = if short { s.short_title() } else { s.title() };
        spans.push(Span::styled(format!(" {} {title} ", i + 1), style));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn phase_words(s: &State) -> String {
    let p = &s.doc.phase;
    let mut w = match p {
        Phase::Done => "done".to_string(),
        Phase::Crossover { generation } if s.paused_at == Some(*generation) => {
            format!("at the gate before generation {generation}'s crossover")
        }
        other => other.to_string(),
    };
    if s.busy && *p != Phase::Done {
        w.push_str(" (running)");
    }
    w
}

fn draw_status(f: &mut Frame, c: &Ctx, area: Rect) {
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
fn footer_label(s: &State, name: &str, action: &Action) -> Option<String> {
    let label = match (action, s.screen) {
        (Action::Open, Screen::Grid) => "pair",
        (Action::Open, Screen::Timeline) => "grid",
        // Shown once, as `[ ] generation`.
        (Action::PrevGeneration, _) => return None,
        (Action::NextGeneration, _) => "generation",
        (Action::Open, Screen::Why) => "run traced",
        (Action::Open, _) => return None,
        (Action::Down, Screen::Timeline) => "scroll",
        (Action::Down, Screen::Transcript) => "scroll",
        (Action::Right, Screen::Transcript) => "next call",
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
pub fn footer_offers(s: &State, keymap: &super::keymap::Keymap) -> Vec<Offer> {
    let mut offered: Vec<super::keymap::Shown> = vec![];
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
    let acts_first = |a: &Action| {
        !(at_gate
            && matches!(
                a,
                Action::Continue
                    | Action::Veto
                    | Action::Edit
                    | Action::Add
                    | Action::Pin
                    | Action::Undo
                    | Action::Redo
            ))
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
fn draw_footer(f: &mut Frame, c: &Ctx, area: Rect) {
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
const GRID_HELP: [&str; 8] = [
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
const WORDS_HELP: [&str; 12] = [
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
fn help_lines<'a>(c: &Ctx) -> Vec<Line<'a>> {
    let t = c.theme;
    let mut lines = vec![Line::styled("Grid", t.style(Role::Title))];
    lines.extend(
        GRID_HELP
            .iter()
            .map(|l| Line::styled(*l, t.style(Role::Text))),
    );
    for cv in CellView::LEGEND {
        lines.push(Line::from(vec![
            Span::styled(format!("  {}  ", cv.glyph()), t.style(grid::role(cv))),
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

fn draw_help(f: &mut Frame, c: &Ctx, area: Rect) {
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

/// A screen's scrollable pane: whose, its title, whether its lines wrap (else it scrolls
/// sideways), and the line hunk jumps count from.
struct Pane<'a> {
    screen: Screen,
    title: &'a str,
    wrap: bool,
    anchor: usize,
}

impl<'a> Pane<'a> {
    fn wrapped(screen: Screen, title: &'a str) -> Self {
        Self {
            screen,
            title,
            wrap: true,
            anchor: 0,
        }
    }
}

/// Draws `screen`'s scrollable pane: `lines` in a bordered block titled `title` (plus where
/// it is, when there is more than fits), wrapped or scrolled sideways, from the state's
/// scroll position kept inside the text, and reports what it measured.
fn scrolled(f: &mut Frame, c: &Ctx, area: Rect, pane: Pane<'_>, lines: Vec<Line<'_>>) {
    let Pane {
        screen,
        title,
        wrap,
        anchor,
    } = pane;
    let inner = Block::bordered().inner(area);
    // The active search's hits on this pane: marked in the text, and their display lines
    // reported so that n / N can jump to them.
    let query = c
        .state
        .search
        .as_ref()
        .filter(|q| q.screen == screen)
        .map(|q| q.query.clone());
    let (lines, hits) = match &query {
        Some(q) => mark_hits(lines, q, wrap, inner.width, c.theme),
        None => (lines, vec![]),
    };
    let mut p = Paragraph::new(lines);
    if wrap {
        p = p.wrap(Wrap { trim: false });
    }
    let measure = Measure {
        lines: p.line_count(inner.width),
        rows: usize::from(inner.height),
        width: if wrap { 0 } else { p.line_width() },
        cols: usize::from(inner.width),
        anchor,
        hits,
    };
    let (max_top, max_left) = (measure.max_top(), measure.max_left());
    let (total, rows) = (measure.lines, measure.rows);
    c.measure.set(Some((screen, measure)));
    let pos = c.state.scroll_of(screen);
    let top = pos.top.min(max_top);
    let left = pos.left.min(max_left);
    // Where the pane is comes first: a narrow pane cuts its title's name, not its place.
    let mut place = String::new();
    if total > rows {
        place.push_str(&format!(
            " | lines {}-{} of {}",
            top + 1,
            (top + rows).min(total),
            total
        ));
    }
    if left > 0 {
        place.push_str(&format!(" | from column {}", left + 1));
    }
    let room = usize::from(area.width.saturating_sub(4)).saturating_sub(place.chars().count());
    let title = format!("{}{place}", truncate(title.trim(), room.max(1)));
    let clip = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    f.render_widget(
        p.block(block(c, format!(" {title} ")))
            .scroll((clip(top), clip(left))),
        area,
    );
}

/// `lines` with every occurrence of `query` (any case) styled as a search hit, and the
/// display line (after wrapping to `width`, when `wrap`) of each line that holds one.
fn mark_hits<'a>(
    lines: Vec<Line<'a>>,
    query: &str,
    wrap: bool,
    width: u16,
    t: &Theme,
) -> (Vec<Line<'a>>, Vec<usize>) {
    let hit = t.style(Role::SearchHit);
    let q = query.to_lowercase();
    let mut out = Vec::with_capacity(lines.len());
    let mut hits = vec![];
    let mut row = 0usize;
    for line in lines {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let height = if wrap {
            Paragraph::new(line.clone())
                .wrap(Wrap { trim: false })
                .line_count(width)
                .max(1)
        } else {
            1
        };
        if !q.is_empty() && text.to_lowercase().contains(&q) {
            hits.push(row);
            out.push(split_hits(line, &q, hit));
        } else {
            out.push(line);
        }
        row += height;
    }
    (out, hits)
}

/// A line's spans cut so that each occurrence of `q` (lower case) carries `hit` over its
/// own style. Works on characters, so the lower-cased text lines up with the original.
fn split_hits<'a>(line: Line<'a>, q: &str, hit: ratatui::style::Style) -> Line<'a> {
    let chars: Vec<char> = line.spans.iter().flat_map(|s| s.content.chars()).collect();
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let qc: Vec<char> = q.chars().collect();
    let mut marked = vec![false; chars.len()];
    let mut i = 0;
    while !qc.is_empty() && i + qc.len() <= lower.len() {
        if lower[i..i + qc.len()] == qc[..] {
            marked[i..i + qc.len()].iter_mut().for_each(|m| *m = true);
            i += qc.len();
        } else {
            i += 1;
        }
    }
    let mut spans = vec![];
    let mut at = 0;
    for span in line.spans {
        let n = span.content.chars().count();
        let mut piece = String::new();
        let mut piece_hit = None;
        for (k, ch) in span.content.chars().enumerate() {
            let h = marked[at + k];
            if piece_hit.is_some_and(|p| p != h) {
                let style = if piece_hit == Some(true) {
                    span.style.patch(hit)
                } else {
                    span.style
                };
                spans.push(Span::styled(std::mem::take(&mut piece), style));
            }
            piece.push(ch);
            piece_hit = Some(h);
        }
        if !piece.is_empty() {
            let style = if piece_hit == Some(true) {
                span.style.patch(hit)
            } else {
                span.style
            };
            spans.push(Span::styled(piece, style));
        }
        at += n;
    }
    Line::from(spans).style(line.style)
}

fn block<'a>(c: &Ctx, title: String) -> Block<'a> {
    Block::bordered()
        .title(title)
        .border_style(c.theme.style(Role::Border))
}

// ---- Timeline -----------------------------------------------------------------------------

fn origin_words(o: &Origin) -> String {
    match o {
        Origin::Initial { .. } => "initial".into(),
        Origin::Generated { prompting } => format!("generated ({prompting})"),
        Origin::Crossover { parents, .. } => format!("offspring of {}", parents.join("+")),
        Origin::UserWritten { .. } => "yours".into(),
        Origin::UserEdited { from, .. } => format!("your edit of {from}"),
    }
}

fn outcome_word(o: Option<Outcome>) -> &'static str {
    match o {
        Some(Outcome::Passed) => "passes",
        Some(Outcome::Failed) => "fails",
        Some(Outcome::Error) => "errors",
        Some(Outcome::Timeout) => "hangs",
        None => "-",
    }
}

fn draw_timeline(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let shown = s.shown_generation();
    let mut lines = vec![];
    // Fig. 2 in one line: the population halves while the mutant sample doubles.
    let mut shape = vec![];
    for g in &s.doc.generations {
        shape.push(format!("{} x {}", g.tests.len(), g.mutants.len()));
    }
    if s.doc.final_test.is_some() {
        shape.push("1".into());
    }
    if !shape.is_empty() {
        lines.push(Line::styled(
            format!("tests x mutants: {}", shape.join("  ->  ")),
            t.style(Role::Title),
        ));
    }
    // The result first: what a finished run ended with.
    if let Some(ft) = &s.doc.final_test {
        let f2p = s.doc.evaluation.get(ft).map_or(String::new(), |e| {
            format!(", F2P: {}", if e.f2p { "yes" } else { "no" })
        });
        lines.push(Line::styled(
            format!("final test: {ft} ({}){f2p}", s.doc.tests[ft].name),
            t.style(Role::Kept),
        ));
    }
    for g in &s.doc.generations {
        let current = Some(g.index) == shown;
        let head = format!(
            "{} generation {}: {} tests x {} mutants, {} executions ({} cached)",
            if current { ">" } else { " " },
            g.index,
            g.tests.len(),
            g.mutants.len(),
            g.executions,
            g.cached
        );
        lines.push(Line::styled(
            head,
            if current {
                t.style(Role::Selected)
            } else {
                t.style(Role::Header)
            },
        ));
        if !current {
            continue;
        }
        let width = usize::from(area.width.saturating_sub(2));
        let mut rows = vec![TestRow::header()];
        let mut styles = vec![t.style(Role::Dim)];
        for tid in &g.tests {
            let cand = &s.doc.tests[tid];
            let old = s.doc.execution(tid, &Target::Old).map(|e| e.outcome);
            let fit = g.scores.get(tid).map_or("-".into(), |sc| {
                format!(
                    "{}{}",
                    sc.counted(&s.doc.config),
                    if sc.flaky { "~" } else { "" }
                )
            });
            let fate = s.fate(g.index, tid);
            rows.push(TestRow {
                id: format!("{} {tid}", fate.mark()),
                name: cand.name.clone(),
                old: outcome_word(old).into(),
                fit,
                fate: fate.label().into(),
                origin: origin_words(&cand.origin),
            });
            styles.push(fate_style(t, fate, old));
        }
        for (row, style) in fit_test_table(width, &rows).into_iter().zip(styles) {
            lines.push(Line::styled(row, style));
        }
        if let Some(e) = explain::explain_cut(&s.doc, g.index) {
            for l in e.lines {
                for row in hanging(&l, "   ", "     ", width) {
                    lines.push(Line::styled(row, t.style(Role::Dim)));
                }
            }
        }
        // Every act at this gate, undone ones too: the cut line above says what still counts.
        let acts: Vec<String> = s
            .doc
            .acts
            .iter()
            .filter(|a| a.generation == g.index)
            .map(|a| a.kind.describe())
            .collect();
        if !acts.is_empty() {
            let text = format!("your acts, in order: {}", acts.join("; "));
            for row in hanging(&text, "   ", "     ", width) {
                lines.push(Line::styled(row, t.style(Role::Warning)));
            }
        }
    }
    if s.doc.generations.is_empty() {
        lines.push(Line::raw(""));
        if let Some(b) = &s.doc.base_brt {
            lines.push(Line::styled(
                format!("the model localized: {}", b.functions.join(", ")),
                t.style(Role::Text),
            ));
        }
        lines.push(Line::styled(
            "r runs to the first gate (the model's steps, the mutants, generation 0's \
             executions); n runs one step",
            t.style(Role::Dim),
        ));
    }
    let title = format!("Timeline: {}", phase_words(s));
    // The figure of the run under the text, smaller on a small terminal, never gone.
    let fig_h = if s.doc.generations.is_empty() {
        0
    } else {
        super::figure::height_for(s.height)
    };
    let [text, figure] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(fig_h)]).areas(area);
    scrolled(f, c, text, Pane::wrapped(Screen::Timeline, &title), lines);
    super::figure::draw(f, s, c.theme, figure);
}

/// One row of the Timeline's test table, before it is fitted to the pane.
struct TestRow {
    id: String,
    name: String,
    old: String,
    fit: String,
    fate: String,
    origin: String,
}

impl TestRow {
    fn header() -> Self {
        Self {
            id: "test".into(),
            name: "name".into(),
            old: "c_old".into(),
            fit: "fit".into(),
            fate: "fate".into(),
            origin: "origin".into(),
        }
    }
}

/// The Timeline's test table fitted to `width`: the short columns as wide as they are, the
/// name and the origin as wide as their longest when both fit; when they do not, the origin
/// gives way first, down to what leaves the name 20 columns, then both are cut.
fn fit_test_table(width: usize, rows: &[TestRow]) -> Vec<String> {
    let widest = |f: fn(&TestRow) -> &str| rows.iter().map(|r| f(r).chars().count()).max();
    let fate_w = widest(|r| &r.fate).unwrap_or(0);
    let name_max = widest(|r| &r.name).unwrap_or(0);
    let origin_max = widest(|r| &r.origin).unwrap_or(0);
    // id, c_old and fit columns and the five gaps between the six columns.
    let fixed = 6 + 6 + 4 + fate_w + 5;
    let room = width.saturating_sub(fixed);
    let name_w = name_max
        .min(room.saturating_sub(origin_max))
        .max(name_max.min(20))
        .min(room.saturating_sub(1))
        .max(4);
    rows.iter()
        .map(|r| {
            let left = format!(
                "{:<6} {:<name_w$} {:<6} {:>4} {:<fate_w$} ",
                r.id,
                truncate(&r.name, name_w),
                r.old,
                r.fit,
                r.fate
            );
            let rest = width.saturating_sub(left.chars().count()).max(1);
            format!("{left}{}", truncate(&r.origin, rest))
                .trim_end()
                .to_string()
        })
        .collect()
}

/// How a test's row looks: by its fate, with a warning for a test of the user's that errors
/// on `c_old` (it was accepted, but it tests nothing yet).
fn fate_style(t: &Theme, fate: super::state::Fate, old: Option<Outcome>) -> ratatui::style::Style {
    match fate {
        super::state::Fate::Yours if old == Some(Outcome::Error) => t.style(Role::Warning),
        _ => t.style(Role::of_fate(fate)),
    }
}

/// `text` word-wrapped to `width` columns with a hanging indent: `first` before its first
/// row, `rest` before the others, so that a wrapped explanation reads as one item. A word
/// wider than a row is left for the pane to break.
fn hanging(text: &str, first: &str, rest: &str, width: usize) -> Vec<String> {
    let mut rows = vec![];
    let mut row = first.to_owned();
    let mut row_len = first.chars().count();
    let mut empty = true;
    for word in text.split(' ') {
        let len = word.chars().count();
        if !empty && row_len + 1 + len > width {
            rows.push(std::mem::replace(&mut row, rest.to_owned()));
            row_len = rest.chars().count();
            empty = true;
        }
        if !empty {
            row.push(' ');
            row_len += 1;
        }
        row.push_str(word);
        row_len += len;
        empty = false;
    }
    rows.push(row);
    rows
}

/// A pytest rule line (`==== 2 failed in 0.1s ====`, `____ test_x ____`) or progress line
/// narrowed to `width` by its padding, so that a pane narrower than the terminal pytest ran in shows it
/// on one line instead of wrapping it in two. Other lines are left as they are.
fn fit_rule(line: &str, width: usize) -> String {
    let len = line.chars().count();
    // A progress line (`tests/test_x.py FF      [100%]`): pytest pads it to its terminal's
    // width; the padding goes down to one space.
    if len > width
        && line.ends_with("%]")
        && let Some(at) = line.rfind("  [")
    {
        let (file, pct) = (line[..at].trim_end(), line[at..].trim_start());
        let gap = width.saturating_sub(file.chars().count() + pct.chars().count());
        return format!("{file}{}{pct}", " ".repeat(gap.max(1)));
    }
    let Some(pad) = line.chars().next().filter(|c| matches!(c, '=' | '_' | '-')) else {
        return line.to_owned();
    };
    let rule = |n: usize| pad.to_string().repeat(n);
    if len <= width || !line.starts_with(&rule(3)) || !line.ends_with(&rule(3)) {
        return line.to_owned();
    }
    let middle = line.trim_matches(pad);
    if middle.trim().is_empty() {
        return rule(width);
    }
    // Each side keeps at least three of its characters, so that it still reads as a rule.
    let room = width.saturating_sub(middle.chars().count());
    if room < 6 {
        return line.to_owned();
    }
    format!("{}{middle}{}", rule(room / 2), rule(room - room / 2))
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
        out.push('~');
        out
    }
}

// ---- Grid ---------------------------------------------------------------------------------

fn draw_grid(f: &mut Frame, c: &Ctx, area: Rect) {
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
                ColumnFilter::Kind(k) => format!(" (kind {}{sort})", super::grid::kind_letter(*k)),
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
fn cell_lines(c: &Ctx) -> Vec<Line<'static>> {
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
                Span::styled(format!("{} ", cell.name()), t.style(grid::role(cell))),
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
                    one_line(&mu.original),
                    one_line(&mu.replacement)
                ),
                t.style(Role::Text),
            ));
        }
    }
    lines
}

fn one_line(s: &str) -> String {
    let first = s.trim().lines().next().unwrap_or("");
    truncate(first, 60)
}

// ---- Pair and why-not-killed ---------------------------------------------------------------

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
                t.style(grid::role(view)),
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
    lines.extend(c.hl.diff(&super::diff::narrow_patch(&mu.diff, context)));
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

fn draw_pair(f: &mut Frame, c: &Ctx, area: Rect) {
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

fn draw_why(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let mut lines: Vec<Line> = vec![];
    if let (Some((test, m)), Some(g)) = (s.selected_pair(), s.shown_generation())
        && let Ok(p) = pair::find(&s.doc, &test, &m)
    {
        let killed = p.cell.is_some_and(|c| c.is_kill());
        lines.push(Line::styled(
            if killed {
                format!("why did {test} kill {m}?")
            } else {
                format!("why did {test} not kill {m}?")
            },
            t.style(Role::Title),
        ));
        let cell = s.cell(g, &test, &m);
        lines.push(Line::from(vec![
            Span::styled("the grid shows ", t.style(Role::Dim)),
            Span::styled(cell.glyph().to_string(), t.style(grid::role(cell))),
            Span::styled(format!(": {}", cell.name()), t.style(Role::Dim)),
        ]));
        // A traced re-run is what the user just asked for: it comes first, above the
        // reasons the session gives, so a small terminal shows it without scrolling.
        if let Some(r) = &s.rerun
            && r.test == test
            && r.mutant == m
        {
            lines.push(Line::styled("run again just now", t.style(Role::Header)));
            let text = match &r.result {
                None => "running...".to_owned(),
                Some(Ok(run)) => super::why::rerun_text(&s.doc, &m, run, &|f| s.source(f)),
                Some(Err(e)) => format!("could not run it: {e}"),
            };
            for l in text.lines() {
                lines.push(Line::raw(l.to_string()));
            }
            lines.push(Line::raw(""));
        }
        let width = usize::from(area.width.saturating_sub(2));
        for l in super::why::reasons(&s.doc, g, &p, &|f| s.source(f), !s.read_only) {
            // An indented line continues the reason before it: it keeps its own indent.
            let rows = match l.strip_prefix("  ") {
                Some(rest) => hanging(rest, "  ", "    ", width),
                None => hanging(&l, "- ", "  ", width),
            };
            for row in rows {
                lines.push(Line::styled(row, t.style(Role::Text)));
            }
        }
    } else {
        lines.push(Line::raw("select a cell on the Grid and press w"));
    }
    scrolled(f, c, area, Pane::wrapped(Screen::Why, "Why"), lines);
}

// ---- Curate -------------------------------------------------------------------------------

fn draw_curate(f: &mut Frame, c: &Ctx, area: Rect) {
    let s = c.state;
    let t = c.theme;
    let g = s.curate_generation();
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
        let fate = g.map_or(super::state::Fate::Pending, |g| s.fate(g, tid));
        let kills = g
            .and_then(|g| s.doc.generations[g].scores.get(tid))
            .map_or(0, |sc| sc.counted(&s.doc.config));
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
                truncate(&cand.name, name_w),
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
        "+ goes on  x vetoed  e edited  P pinned  u undone; kills, then fate",
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

// ---- Transcript ---------------------------------------------------------------------------

fn draw_transcript(f: &mut Frame, c: &Ctx, area: Rect) {
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
        let style = if i == s.transcript_call {
            t.style(Role::Selected)
        } else {
            t.style(Role::Text)
        };
        let model = if one_model {
            String::new()
        } else {
            format!("{:<22} ", truncate(&call.model, 22))
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
        .transcript_call
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
    let call = &calls[s.transcript_call.min(calls.len() - 1)];
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
    let title = format!("call {}: {}", s.transcript_call + 1, call.step);
    scrolled(f, c, detail, Pane::wrapped(Screen::Transcript, &title), d);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::state::fixture;
    use crate::tui::state::{GRID_CELL_WIDTH, GRID_ROW_HEADER};
    use crate::tui::update::update;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::style::Modifier;
    use std::sync::Arc;

    struct Looks {
        theme: Theme,
        keymap: Keymap,
        hl: Highlighter,
    }

    fn looks() -> Looks {
        Looks {
            theme: Theme::load(Some("dark"), None, false).unwrap(),
            keymap: Keymap::load(None).unwrap(),
            hl: Highlighter::new(true, true),
        }
    }

    fn state(w: u16, h: u16) -> State {
        let keymap = Keymap::load(None).unwrap();
        let mut s = State::new(
            Arc::new(fixture::finished_session()),
            true,
            help_len(&keymap),
        );
        update(
            &mut s,
            Action::Resize {
                width: w,
                height: h,
            },
        );
        s
    }

    fn drawn(s: &State, l: &Looks) -> Terminal<TestBackend> {
        let mut term = Terminal::new(TestBackend::new(s.width, s.height)).unwrap();
        term.draw(|f| {
            draw(
                f,
                &Ctx {
                    state: s,
                    theme: &l.theme,
                    hl: &l.hl,
                    keymap: &l.keymap,
                    editor: None,
                    measure: &std::cell::Cell::new(None),
                },
            )
        })
        .unwrap();
        term
    }

    #[test]
    fn the_timeline_table_shows_whole_names_and_origins_when_80_columns_hold_them() {
        let row = |id: &str, name: &str, fate: &str, origin: &str| TestRow {
            id: id.into(),
            name: name.into(),
            old: "fails".into(),
            fit: "4".into(),
            fate: fate.into(),
            origin: origin.into(),
        };
        let rows = [
            TestRow::header(),
            row(
                "+ t3",
                "test_invalid_bool_raises_conf.py",
                "kept",
                "generated (single)",
            ),
            row(
                "  t1",
                "test_dotenv_loading.py",
                "dropped",
                "generated (single)",
            ),
        ];
        // An 80-column terminal's pane: a 32-character name and the origin both fit.
        let fitted = fit_test_table(78, &rows);
        assert!(
            fitted.iter().all(|l| l.chars().count() <= 78),
            "{fitted:#?}"
        );
        assert!(
            fitted[1].contains("test_invalid_bool_raises_conf.py"),
            "{fitted:#?}"
        );
        assert!(fitted[1].ends_with("generated (single)"), "{fitted:#?}");
        // Narrower, the origin gives way before the name is cut below 20 columns.
        let narrow = fit_test_table(60, &rows);
        assert!(
            narrow.iter().all(|l| l.chars().count() <= 60),
            "{narrow:#?}"
        );
        assert!(narrow[1].contains("test_invalid_bool_r"), "{narrow:#?}");
        assert!(!narrow[1].ends_with("generated (single)"), "{narrow:#?}");
        // Columns line up: every row's c_old column starts where the header's does.
        let at = fitted[0].find("c_old").unwrap();
        assert_eq!(&fitted[1][at..at + 5], "fails");
    }

    #[test]
    fn a_wrapped_explanation_hangs_under_its_first_row() {
        let text = "cut 4 -> 2 decided by the model (fitness tied at the cut): kept t10";
        let rows = hanging(text, "   ", "     ", 40);
        assert_eq!(
            rows,
            [
                "   cut 4 -> 2 decided by the model",
                "     (fitness tied at the cut): kept t10"
            ]
        );
        assert!(rows.iter().all(|r| r.chars().count() <= 40));
        assert_eq!(hanging("short", "- ", "  ", 40), ["- short"]);
        // Words keep their inner spacing and nothing is lost.
        let joined: Vec<String> = rows.iter().map(|r| r.trim().to_string()).collect();
        assert_eq!(joined.join(" "), text);
    }

    #[test]
    fn a_pytest_rule_wider_than_the_pane_is_narrowed_by_its_padding() {
        let header = format!("{} test session starts {}", "=".repeat(29), "=".repeat(30));
        assert_eq!(header.chars().count(), 80);
        let fitted = fit_rule(&header, 76);
        assert_eq!(fitted.chars().count(), 76);
        assert!(fitted.starts_with("===") && fitted.contains(" test session starts "));
        assert_eq!(fit_rule(&"_".repeat(80), 50), "_".repeat(50));
        // A line that fits, a line of text and a rule too long to narrow stay as they are.
        assert_eq!(fit_rule("=== 1 failed ===", 76), "=== 1 failed ===");
        assert_eq!(fit_rule(&"x".repeat(90), 76), "x".repeat(90));
        let long = format!("=== {} ===", "y".repeat(80));
        assert_eq!(fit_rule(&long, 76), long);
        let progress = format!("tests/test_x.py FF{}[100%]", " ".repeat(57));
        assert_eq!(
            fit_rule(&progress, 76),
            format!("tests/test_x.py FF{}[100%]", " ".repeat(52))
        );
        assert_eq!(fit_rule(&progress, 20), "tests/test_x.py FF [100%]");
    }

    #[test]
    fn every_screen_at_120x36() {
        let l = looks();
        let mut s = state(120, 36);
        // A cell with a story: the second test on the second mutant.
        update(&mut s, Action::Right);
        update(&mut s, Action::Down);
        for (screen, go) in Screen::ALL.into_iter().zip([
            Action::Timeline,
            Action::Grid,
            Action::Pair,
            Action::Why,
            Action::Curate,
            Action::Transcript,
        ]) {
            update(&mut s, go);
            assert_eq!(s.screen, screen);
            let term = drawn(&s, &l);
            insta::assert_snapshot!(format!("screen_{screen:?}").to_lowercase(), term.backend());
        }
        update(&mut s, Action::Help);
        insta::assert_snapshot!("help_overlay", drawn(&s, &l).backend());
    }

    /// The Curate list has half the screen's height (a generation of eight does not fit at
    /// 80x24; the fixture's first generation of four does not at 80x16): its title says which tests show,
    /// and moving down brings the rest into view.
    #[test]
    fn the_curate_list_says_which_tests_show() {
        let l = looks();
        let mut s = state(80, 16);
        let title = |s: &State| {
            let text = format!("{}", drawn(s, &l).backend());
            text.lines().nth(1).unwrap_or_default().to_string()
        };
        update(&mut s, Action::Curate);
        // Generation 0: four tests.
        update(&mut s, Action::PrevGeneration);
        let n = s.curate_list().len();
        let first = title(&s);
        assert!(first.contains("tests 1-"), "{first}");
        assert!(first.contains(&format!(" of {n}, j/k")), "{first}");
        update(&mut s, Action::Last);
        let last = title(&s);
        assert!(last.contains(&format!("-{n} of {n}")), "{last}");
    }

    /// A run with a budget shows, on its status line, how much of it is spent, at both sizes.
    #[test]
    fn the_status_line_shows_the_budget_spent() {
        let l = looks();
        for (w, h, words) in [(120, 36, "of $0.05 budget"), (80, 24, "of $0.05")] {
            let mut s = state(w, h);
            let mut doc = (*s.doc).clone();
            doc.config.budget_usd = Some(0.05);
            s.doc = std::sync::Arc::new(doc);
            let text = format!("{}", drawn(&s, &l).backend());
            let status = text
                .lines()
                .find(|l| l.contains(" calls"))
                .unwrap_or_default();
            assert!(status.contains(words), "{w}x{h}: {status}");
        }
    }

    /// The Why screen offers a traced re-run of a survivor only where one can be made: not in
    /// a read-only session (Enter is refused there).
    #[test]
    fn the_why_screen_offers_a_trace_only_where_enter_makes_one() {
        let l = looks();
        for read_only in [true, false] {
            let mut s = state(120, 36);
            s.read_only = read_only;
            let grid = s.grid().unwrap();
            let (row, col) = (0..grid.tests.len())
                .flat_map(|r| (0..grid.mutants.len()).map(move |c| (r, c)))
                .find(|&(r, c)| {
                    matches!(
                        s.cell(grid.generation, &grid.tests[r], &grid.mutants[c]),
                        CellView::Killed(crate::engine::kill::Cell::Survived)
                            | CellView::NotReached
                    )
                })
                .expect("a survivor in the fixture");
            s.row = row;
            s.col = col;
            update(&mut s, Action::Explain);
            assert_eq!(s.screen, Screen::Why);
            let text = format!("{}", drawn(&s, &l).backend());
            assert!(text.contains(" not kill "), "{text}");
            assert_eq!(
                text.contains("Enter runs the pair again"),
                !read_only,
                "read-only {read_only}:\n{text}"
            );
        }
    }

    /// The tab line names every screen at 80 columns, a scripted read-only session too: the
    /// labels say less before a tab is cut.
    #[test]
    fn the_tab_line_names_every_screen_at_80_columns() {
        let l = looks();
        for (scripted, read_only) in [(false, false), (true, false), (true, true)] {
            let mut s = state(80, 24);
            s.scripted = scripted;
            s.read_only = read_only;
            let text = format!("{}", drawn(&s, &l).backend());
            let tabs = text.lines().next().unwrap_or_default();
            assert!(tabs.contains("6 Model"), "{tabs}");
            assert_eq!(tabs.contains("SCRIPTED"), scripted, "{tabs}");
            assert_eq!(tabs.contains("read-only"), read_only, "{tabs}");
        }
    }

    /// Why a run stopped is read whole at 80x24: the message line wraps.
    #[test]
    fn a_long_message_wraps_instead_of_being_cut() {
        let l = looks();
        let mut s = state(80, 24);
        let why = "the run stopped: budget reached: the next model call (generate, about \
                   $0.0075: 1417 tokens in, up to 215 out) would take the run's spending from \
                   $0.0265 past --budget-usd 0.03; the call was not made";
        s.notice = Some(why.to_string());
        let text = format!("{}", drawn(&s, &l).backend());
        for word in ["generate,", "$0.0265", "--budget-usd", "not made"] {
            assert!(text.contains(word), "{word}: {text}");
        }
        // The footer still shows, last.
        let last = text.lines().last().unwrap_or_default();
        assert!(last.contains("quit"), "{last}");
    }

    /// The Model screen at 80 columns: every call's cost, whether the provider's cache or a
    /// batch was at work, and the selected call's usage in words.
    #[test]
    fn the_model_screen_shows_each_calls_cost_at_80_columns() {
        let l = looks();
        let keymap = Keymap::load(None).unwrap();
        let mut doc = fixture::finished_session();
        let req = crate::llm::LlmRequest::single("crossover", None, "the prompt", 100);
        let reply = crate::llm::LlmReply {
            text: "the reply".into(),
            input_tokens: 1200,
            output_tokens: 3400,
            cache_write_tokens: 0,
            cache_read_tokens: 2048,
            model: "claude-sonnet-4-5-20250929".into(),
            stop_reason: None,
            latency_ms: 41_000,
            cached: false,
            batch: Some("msgbatch_0123456789abcdef".into()),
        };
        let prices = crate::llm::price::PriceTable::builtin();
        doc.llm_calls = vec![crate::llm::CallRecord::new(&req, &reply, &prices); 2];
        let mut s = State::new(Arc::new(doc), true, help_len(&keymap));
        update(
            &mut s,
            Action::Resize {
                width: 80,
                height: 24,
            },
        );
        update(&mut s, Action::Transcript);
        let text = format!("{}", drawn(&s, &l).backend());
        // (1200 x 3 + 2048 x 0.30 + 3400 x 15) / 1e6, halved.
        assert!(text.contains("$0.0276 cached batch"), "{text}");
        assert!(
            text.contains("Model: claude-sonnet-4-5-20250929, 2 calls"),
            "{text}"
        );
        assert!(
            text.contains("0 written to the provider's prompt cache, 2048 read"),
            "{text}"
        );
        assert!(
            text.contains("msgbatch_0123456789abcdef") && text.contains("at half price)"),
            "{text}"
        );
        // And the step's calls together.
        assert!(
            text.contains("its step, crossover: 2 calls, 2400 new input"),
            "{text}"
        );
    }

    /// `doc` on the Grid at 120x36, showing generation 0.
    fn grid_of_generation_0(doc: &crate::engine::SessionDoc, keymap: &Keymap) -> State {
        let mut s = State::new(Arc::new(doc.clone()), true, help_len(keymap));
        update(
            &mut s,
            Action::Resize {
                width: 120,
                height: 36,
            },
        );
        update(&mut s, Action::Grid);
        while s.shown_generation() != Some(0) {
            update(&mut s, Action::PrevGeneration);
        }
        s
    }

    /// A generation whose sample tied its cut: the grid's title counts the mutants drawn to
    /// settle it, and a cell of one of them says so.
    #[test]
    fn the_grid_names_the_mutants_drawn_for_a_tie() {
        let l = looks();
        let keymap = Keymap::load(None).unwrap();
        let doc = crate::testkit::tied_session(true);
        let (sample, settling) = {
            let g = &doc.generations[0];
            (g.mutants.len() - g.settling.len(), g.settling.len())
        };
        let mut s = grid_of_generation_0(&doc, &keymap);
        let text = format!("{}", drawn(&s, &l).backend());
        assert!(
            text.contains(&format!("; {settling} drawn for a tie)")),
            "{text}"
        );
        // Walking every column: exactly the drawn mutants' cells say so.
        let mut marked = 0;
        for _ in 0..sample + settling {
            let text = format!("{}", drawn(&s, &l).backend());
            marked += usize::from(text.contains("(drawn for a tie)"));
            update(&mut s, Action::Right);
        }
        assert_eq!(marked, settling);
    }

    /// Mutants of a callee or caller (a widened pool): their kind letters are underlined,
    /// the title counts them, the cell line names the scope; the others look as before.
    #[test]
    fn the_grid_marks_the_mutants_of_a_widened_pool() {
        let l = looks();
        let keymap = Keymap::load(None).unwrap();
        let plain = crate::testkit::tied_session(true);
        let mut widened = plain.clone();
        let picked: Vec<String> = widened.generations[0].mutants[..2].to_vec();
        for m in &mut widened.pool.as_mut().unwrap().mutants {
            if picked.contains(&m.id) {
                m.scope = Some(crate::mutate::Scope::Caller);
            }
        }
        let grid = |doc: &crate::engine::SessionDoc| grid_of_generation_0(doc, &keymap);
        let underlined = |s: &State| {
            drawn(s, &l)
                .backend()
                .buffer()
                .content()
                .iter()
                .filter(|c| c.modifier.contains(Modifier::UNDERLINED))
                .count()
        };
        let (p, mut w) = (grid(&plain), grid(&widened));
        assert_eq!(underlined(&w), underlined(&p) + 2);
        let text = format!("{}", drawn(&w, &l).backend());
        assert!(text.contains("; 2 widened)"), "{text}");
        assert!(!format!("{}", drawn(&p, &l).backend()).contains("widened"));
        // At 80 columns the title is shortened where it says least: the count stays.
        let mut narrow = w.clone();
        update(
            &mut narrow,
            Action::Resize {
                width: 80,
                height: 24,
            },
        );
        let text = format!("{}", drawn(&narrow, &l).backend());
        // The first line naming the Grid is the tab bar; the second is the pane's title.
        let title = text.lines().filter(|l| l.contains("Grid")).nth(1).unwrap();
        assert!(title.contains("2 widened"), "{title}");
        assert!(title.contains("drawn for a tie"), "{title}");
        // And the selected cell's line wraps rather than losing the scope at its end.
        let mut named = 0;
        for _ in 0..widened.generations[0].mutants.len() {
            // Read as a user reads it: the rows joined, wherever the wrap broke them.
            let text = format!("{}", drawn(&narrow, &l).backend());
            let read: Vec<&str> = text
                .lines()
                .map(|r| r.trim_matches(|c: char| c == '"' || c == '│' || c == ' '))
                .collect();
            named += usize::from(read.join(" ").contains("(scope: caller)"));
            update(&mut narrow, Action::Right);
        }
        assert_eq!(named, 2);
        let mut named = 0;
        for _ in 0..widened.generations[0].mutants.len() {
            named +=
                usize::from(format!("{}", drawn(&w, &l).backend()).contains("(scope: caller)"));
            update(&mut w, Action::Right);
        }
        assert_eq!(named, 2);
        // The Pair screen of such a cell says it too.
        let mut paired = 0;
        for _ in 0..widened.generations[0].mutants.len() {
            update(&mut w, Action::Left);
            let mut pair = w.clone();
            update(&mut pair, Action::Open);
            let text = format!("{}", drawn(&pair, &l).backend());
            assert!(text.contains("Pair"), "{text}");
            paired += usize::from(text.contains("(scope: caller)"));
        }
        assert_eq!(paired, 2);
    }

    /// At 80x24 the help is longer than its overlay: it says where it is and the moving keys
    /// scroll it to its last binding, and no further.
    #[test]
    fn the_help_scrolls_on_a_small_terminal() {
        let l = looks();
        let mut s = state(80, 24);
        update(&mut s, Action::Help);
        let first = format!("{}", drawn(&s, &l).backend());
        assert!(first.contains("help: lines 1-18 of"), "{first}");
        assert!(
            first.contains("PageDown scroll"),
            "the whole title fits:\n{first}"
        );
        // Every line of the grid's legend fits the overlay of an 80-column terminal.
        for l in GRID_HELP {
            assert!(first.contains(l.trim_end()), "`{l}` is cut:\n{first}");
        }
        let bindings = l.keymap.bindings();
        let last = bindings.last().unwrap();
        // The last binding's line as the help writes it: its context, then its keys.
        let last_words = format!("{:<12}{}", last.context.name(), last.keys.join(" "));
        assert!(!first.contains(&last_words), "{first}");
        update(&mut s, Action::PageDown);
        update(&mut s, Action::Last);
        let end = format!("{}", drawn(&s, &l).backend());
        assert!(end.contains(&last_words), "the last binding shows:\n{end}");
        let n = help_len(&l.keymap);
        assert!(end.contains(&format!("of {n},")), "{end}");
        // Past the end there is nothing to scroll to: one line up shows another line.
        update(&mut s, Action::Scroll { lines: 5 });
        update(&mut s, Action::Up);
        assert_ne!(format!("{}", drawn(&s, &l).backend()), end);
        // The grid underneath did not move.
        assert_eq!((s.row, s.col), (0, 0));
        update(&mut s, Action::First);
        assert_eq!(format!("{}", drawn(&s, &l).backend()), first);
        insta::assert_snapshot!("help_overlay_80x24_end", {
            update(&mut s, Action::Last);
            drawn(&s, &l).backend().to_string()
        });
    }

    /// A filter to one kind at 80 columns: the title still says which kind, and the columns
    /// keep the numbers they have unfiltered (column 1 is the same mutant either way).
    #[test]
    fn a_filtered_grid_at_80_columns_names_its_kind_and_keeps_column_numbers() {
        let l = looks();
        let mut s = state(80, 24);
        let all = s.grid().unwrap();
        loop {
            update(&mut s, Action::FilterColumns);
            if matches!(s.filter, ColumnFilter::Kind(_)) {
                break;
            }
        }
        let ColumnFilter::Kind(k) = s.filter else {
            unreachable!()
        };
        let text = format!("{}", drawn(&s, &l).backend());
        let title = text.lines().nth(1).unwrap();
        let letter = crate::tui::grid::kind_letter(k);
        assert!(
            title.contains(&format!("(kind {letter}")) || title.contains(&format!("kind {k}")),
            "{title}"
        );
        let grid = s.grid().unwrap();
        let first = &grid.mutants[0];
        let number = all.mutants.iter().position(|m| m == first).unwrap() + 1;
        assert_eq!(grid.numbers[0], number);
        // The header's digits, read down the first column, spell that number.
        let x = text
            .lines()
            .nth(2)
            .unwrap()
            .chars()
            .position(|c| c.is_ascii_digit());
        let digits: String = text
            .lines()
            .skip(2)
            .take(4)
            .filter_map(|l| l.chars().nth(x.unwrap()))
            .filter(char::is_ascii_digit)
            .collect();
        assert_eq!(digits, number.to_string(), "{text}");
    }

    #[test]
    fn the_grid_at_80x24_and_a_tiny_terminal() {
        let l = looks();
        let s = state(80, 24);
        insta::assert_snapshot!("grid_80x24", drawn(&s, &l).backend());
        let small = state(40, 10);
        let text = format!("{}", drawn(&small, &l).backend());
        assert!(text.contains("needs at least"), "{text}");
    }

    /// Snapshots show glyphs only: where colour carries meaning (the cell kinds), check the
    /// buffer's styles against the theme.
    #[test]
    fn each_cell_kind_has_its_colour() {
        let l = looks();
        let s = state(120, 36);
        let term = drawn(&s, &l);
        let buf = term.backend().buffer();
        let grid = s.grid().unwrap();
        let g = grid.generation;
        let mut seen = std::collections::BTreeSet::new();
        for (i, t) in grid.tests.iter().enumerate() {
            for (j, m) in grid.mutants.iter().enumerate() {
                let cv = s.cell(g, t, m);
                let x = 1 + GRID_ROW_HEADER + (j as u16) * GRID_CELL_WIDTH;
                let y = 2 + s.grid_col_header() + i as u16;
                let cell = &buf[(x, y)];
                assert_eq!(cell.symbol(), cv.glyph().to_string(), "({i}, {j})");
                let want = l.theme.style(grid::role(cv)).fg;
                if (i, j) != (s.row, s.col) {
                    assert_eq!(Some(cell.fg), want.or(Some(ratatui::style::Color::Reset)));
                }
                seen.insert(cv.glyph());
            }
        }
        assert!(
            seen.len() >= 2,
            "the fixture shows more than one kind: {seen:?}"
        );
    }
}
