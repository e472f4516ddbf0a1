//! What the screens share: the context drawing reads, a scrolled pane with search hits marked,
//! a titled block, and the small text fitting (cut with `~`, hanging indents, rules).

use crate::engine::{Origin, Phase};
use crate::exec::Outcome;
use crate::tui::fit::cut;
use crate::tui::highlight::Highlighter;
use crate::tui::keymap::Keymap;
use crate::tui::state::{Measure, Screen, State};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

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

pub(super) fn centered(area: Rect, pct_w: u16, pct_h: u16) -> Rect {
    let w = area.width * pct_w / 100;
    let h = area.height * pct_h / 100;
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

pub(super) fn phase_words(s: &State) -> String {
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

/// A screen's scrollable pane: whose, its title, whether its lines wrap (else it scrolls
/// sideways), and the line hunk jumps count from.
pub(super) struct Pane<'a> {
    pub(super) screen: Screen,
    pub(super) title: &'a str,
    pub(super) wrap: bool,
    pub(super) anchor: usize,
}

impl<'a> Pane<'a> {
    pub(super) fn wrapped(screen: Screen, title: &'a str) -> Self {
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
pub(super) fn scrolled(f: &mut Frame, c: &Ctx, area: Rect, pane: Pane<'_>, lines: Vec<Line<'_>>) {
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
    let title = format!("{}{place}", cut(title.trim(), room.max(1)));
    let clip = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    f.render_widget(
        p.block(block(c, format!(" {title} ")))
            .scroll((clip(top), clip(left))),
        area,
    );
}

/// `lines` with every occurrence of `query` (any case) styled as a search hit, and the
/// display line (after wrapping to `width`, when `wrap`) of each line that holds one.
pub(super) fn mark_hits<'a>(
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
pub(super) fn split_hits<'a>(line: Line<'a>, q: &str, hit: ratatui::style::Style) -> Line<'a> {
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

pub(super) fn block<'a>(c: &Ctx, title: String) -> Block<'a> {
    Block::bordered()
        .title(title)
        .border_style(c.theme.style(Role::Border))
}

pub(super) fn origin_words(o: &Origin) -> String {
    match o {
        Origin::Initial { .. } => "initial".into(),
        Origin::Generated { prompting } => format!("generated ({prompting})"),
        Origin::Crossover { parents, .. } => format!("offspring of {}", parents.join("+")),
        Origin::UserWritten { .. } => "yours".into(),
        Origin::UserEdited { from, .. } => format!("your edit of {from}"),
        Origin::Repaired {
            from,
            generation: Some(_),
            ..
        } => format!("repair of {from} (yours)"),
        Origin::Repaired { from, round, .. } => format!("repair of {from} (round {round})"),
    }
}

/// How a test's row looks: by its fate, with a warning for a test of the user's that errors
/// on `c_old` (it was accepted, but it tests nothing yet).
pub(super) fn fate_style(
    t: &Theme,
    fate: crate::tui::state::Fate,
    old: Option<Outcome>,
) -> ratatui::style::Style {
    match fate {
        crate::tui::state::Fate::Yours if old == Some(Outcome::Error) => t.style(Role::Warning),
        _ => t.style(Role::of_fate(fate)),
    }
}

/// `text` word-wrapped to `width` columns with a hanging indent: `first` before its first
/// row, `rest` before the others, so that a wrapped explanation reads as one item. A word
/// wider than a row is left for the pane to break.
pub(super) fn hanging(text: &str, first: &str, rest: &str, width: usize) -> Vec<String> {
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
pub(super) fn fit_rule(line: &str, width: usize) -> String {
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

/// A mutant's or a test's first line, cut to 60 characters (for a one-line mention).
pub(super) fn headline(s: &str) -> String {
    let first = s.trim().lines().next().unwrap_or("");
    cut(first, 60)
}

/// What the Grid and Curate say when the session has no generation: a method that ended
/// without one (e-Otter with one test, BaseBRT), or a run that has not made one yet.
pub(super) fn no_generation_words(s: &crate::tui::state::State) -> String {
    let m = s.doc.config.method;
    let ended = matches!(
        s.doc.phase,
        crate::engine::Phase::Evaluate | crate::engine::Phase::Done
    );
    if !m.mutates() && (ended || s.doc.final_test.is_some()) {
        format!("--method {m} made one test, no generation: the Timeline tells how")
    } else if s.read_only {
        "no generation in this session".into()
    } else {
        "no generation yet: r runs to the first gate".into()
    }
}
