//! A line diff of two texts (a test's pytest log on c_old against its log on a mutant) as data,
//! and its rendering for the Pair screen: unified or side by side, with the words that differ
//! inside a changed line emphasised, and the hunks' positions for `n`/`N`.
//!
//! Lines are made printable before they are compared (see [`printable`]), so what the screen
//! shows is exactly what was diffed: escape codes that only colour a log do not count as a change.

use std::time::{Duration, Instant};

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use similar::{Algorithm, DiffOp, DiffTag};

/// Styles the caller takes from its theme.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffStyles {
    pub context: Style,
    pub added: Style,
    pub removed: Style,
    pub added_emph: Style,
    pub removed_emph: Style,
    pub hunk: Style,
    pub line_no: Style,
}

/// A run of one line's text, emphasised when it is what differs in a changed pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub text: String,
    pub emph: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Hunk,
    Context,
    Removed,
    Added,
    Changed,
}

/// One row: unified view shows Removed/Added/Changed as -/+ lines; side by side shows old left,
/// new right (Changed: both sides, with emphasis on the words that differ).
///
/// Which fields a kind fills: `Hunk` holds its `@@ -a,b +c,d @@` header as the one segment of
/// `old` and no line numbers; `Context` and `Changed` fill both sides (a context row's two sides
/// are the same text); `Removed` only the old side, `Added` only the new one. Line numbers count
/// from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kind: RowKind,
    pub old_no: Option<usize>,
    pub new_no: Option<usize>,
    pub old: Vec<Segment>,
    pub new: Vec<Segment>,
}

/// The diff of two logs as rows, grouped in hunks.
///
/// Output lines per row: [`LogDiff::side_by_side`] draws exactly one line per row;
/// [`LogDiff::unified`] draws one line per row except a `Changed` row, which is two (the `-` line,
/// then the `+` line). [`LogDiff::next_hunk`] and [`LogDiff::prev_hunk`] count lines that way.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogDiff {
    pub rows: Vec<Row>,
    /// Index into `rows` of each `Hunk` row.
    pub hunks: Vec<usize>,
}

/// Columns a tab advances to a multiple of.
const TAB_WIDTH: usize = 4;

/// Two lines of a change block are shown as one changed pair when at least this share of their
/// (non-blank) text is common to both; below it, emphasis would cover most of the line anyway.
const PAIR_SIMILARITY: f32 = 0.5;

/// The best alignment of a change block's lines costs one comparison per (removed, added) pair;
/// beyond this many, lines are paired by position instead (a rewritten log section, where the
/// alignment matters little).
const MAX_PAIR_COMPARISONS: usize = 4096;

/// Logs can be long and very different (a crash against a pass); the diff then stops looking for
/// the smallest edit and returns a correct, coarser one rather than freeze the screen.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

impl LogDiff {
    /// `context`: unchanged lines kept around each change (3 for the screen).
    pub fn new(old: &str, new: &str, context: usize) -> LogDiff {
        let old_lines: Vec<String> = old.lines().map(printable).collect();
        let new_lines: Vec<String> = new.lines().map(printable).collect();
        let ops = similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_lines,
            &new_lines,
            Some(Instant::now() + DIFF_DEADLINE),
        );
        let mut diff = LogDiff::default();
        for group in similar::group_diff_ops(ops, context) {
            diff.push_hunk(&group, &old_lines, &new_lines);
        }
        diff
    }

    /// True when the two texts have the same printable lines.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many lines [`LogDiff::unified`] or [`LogDiff::side_by_side`] draws.
    pub fn line_count(&self, side_by_side: bool) -> usize {
        self.rows.iter().map(|r| lines_of(r, side_by_side)).sum()
    }

    fn push_hunk(&mut self, group: &[DiffOp], old: &[String], new: &[String]) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            return;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        self.hunks.push(self.rows.len());
        self.rows.push(Row {
            kind: RowKind::Hunk,
            old_no: None,
            new_no: None,
            old: plain(format!(
                "@@ -{} +{} @@",
                hunk_range(&old_range),
                hunk_range(&new_range)
            )),
            new: Vec::new(),
        });
        for op in group {
            let (tag, o, n) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => {
                    for (i, j) in o.zip(n) {
                        self.rows.push(Row {
                            kind: RowKind::Context,
                            old_no: Some(i + 1),
                            new_no: Some(j + 1),
                            old: plain(old[i].clone()),
                            new: plain(new[j].clone()),
                        });
                    }
                }
                DiffTag::Delete => o.for_each(|i| self.rows.push(removed(i, &old[i]))),
                DiffTag::Insert => n.for_each(|j| self.rows.push(added(j, &new[j]))),
                DiffTag::Replace => self.push_change(o.start, &old[o], n.start, &new[n]),
            }
        }
    }

    /// A block of removed lines replaced by added ones: similar lines become `Changed` rows, in
    /// order; the others stay `Removed` (first) and `Added` between them.
    fn push_change(&mut self, old_start: usize, old: &[String], new_start: usize, new: &[String]) {
        let old_tokens: Vec<Vec<&str>> = old.iter().map(|l| tokens(l)).collect();
        let new_tokens: Vec<Vec<&str>> = new.iter().map(|l| tokens(l)).collect();
        let pairs = pair_lines(&old_tokens, &new_tokens);
        let (mut i, mut j) = (0, 0);
        // The lines before each pair, then the pair; after the last pair, the lines left over.
        for pair in pairs.into_iter().map(Some).chain([None]) {
            let (pi, pj) = pair.unwrap_or((old.len(), new.len()));
            self.rows
                .extend((i..pi).map(|k| removed(old_start + k, &old[k])));
            self.rows
                .extend((j..pj).map(|k| added(new_start + k, &new[k])));
            let Some((pi, pj)) = pair else { break };
            let (old_segments, new_segments) = emphasis(&old_tokens[pi], &new_tokens[pj]);
            self.rows.push(Row {
                kind: RowKind::Changed,
                old_no: Some(old_start + pi + 1),
                new_no: Some(new_start + pj + 1),
                old: old_segments,
                new: new_segments,
            });
            (i, j) = (pi + 1, pj + 1);
        }
    }

    /// Lines for the unified view: `@@ -a,b +c,d @@` hunk rows, ` `/`-`/`+` prefixed lines,
    /// Changed rows as a - line then a + line with emphasised segments.
    pub fn unified(&self, s: &DiffStyles) -> Vec<Line<'static>> {
        let mut lines = Vec::with_capacity(self.line_count(false));
        for row in &self.rows {
            match row.kind {
                RowKind::Hunk => lines.push(Line::from(segment_spans(&row.old, s.hunk, s.hunk))),
                RowKind::Context => lines.push(prefixed(' ', &row.old, s.context, s.context)),
                RowKind::Removed => lines.push(prefixed('-', &row.old, s.removed, s.removed)),
                RowKind::Added => lines.push(prefixed('+', &row.new, s.added, s.added)),
                RowKind::Changed => {
                    lines.push(prefixed('-', &row.old, s.removed, s.removed_emph));
                    lines.push(prefixed('+', &row.new, s.added, s.added_emph));
                }
            }
        }
        lines
    }

    /// Lines for the side-by-side view at a total `width`: old | new, each side truncated or
    /// padded to half the width, line numbers shown. Every line is exactly `width` columns.
    pub fn side_by_side(&self, s: &DiffStyles, width: u16) -> Vec<Line<'static>> {
        self.halves(s, width, 0)
    }

    /// The side-by-side view in a pane scrolled `left` columns: each half's text scrolls
    /// inside its half (the line numbers and the separator stay), so the end of either side
    /// can be reached. Every line is `width` plus as many columns as the longest side text
    /// overflows its half, with the blank the pane's scroll takes away before it: scrolled
    /// `left` columns, the pane shows the halves each scrolled `left`.
    pub fn side_by_side_scrolled(
        &self,
        s: &DiffStyles,
        width: u16,
        left: usize,
    ) -> Vec<Line<'static>> {
        let overflow = self.overflow(width);
        let left = left.min(overflow);
        self.halves(s, width, left)
            .into_iter()
            .map(|line| {
                let mut spans = vec![Span::raw(" ".repeat(left))];
                spans.extend(line.spans);
                spans.push(Span::raw(" ".repeat(overflow - left)));
                Line::from(spans)
            })
            .collect()
    }

    /// How many columns the longest side text is wider than its half at `width`.
    fn overflow(&self, width: u16) -> usize {
        let inner = usize::from(width).saturating_sub(SEPARATOR.chars().count());
        let digits = self.digits();
        let room = (inner / 2).saturating_sub(digits + 2);
        self.rows
            .iter()
            .filter(|r| r.kind != RowKind::Hunk)
            .flat_map(|r| [&r.old, &r.new])
            .map(|text| text.iter().map(|g| g.text.chars().count()).sum::<usize>())
            .map(|n| n.saturating_sub(room))
            .max()
            .unwrap_or(0)
    }

    /// The widest line number's digits.
    fn digits(&self) -> usize {
        self.rows
            .iter()
            .flat_map(|r| [r.old_no, r.new_no])
            .flatten()
            .max()
            .map_or(1, |n| n.to_string().len())
    }

    /// The side-by-side lines with each side's text scrolled `shift` characters.
    fn halves(&self, s: &DiffStyles, width: u16, shift: usize) -> Vec<Line<'static>> {
        let width = usize::from(width);
        let Some(inner) = width.checked_sub(SEPARATOR.chars().count()) else {
            return self
                .rows
                .iter()
                .map(|_| Line::from(" ".repeat(width)))
                .collect();
        };
        let left_width = inner / 2;
        let right_width = inner - left_width;
        let digits = self.digits();
        let side = |no: Option<usize>, marker: char, text: &[Segment], base, emph, w| {
            let gutter = match no {
                Some(n) => format!("{n:>digits$} "),
                None => " ".repeat(digits + 1),
            };
            let mut pieces = vec![(gutter, s.line_no), (marker.to_string(), base)];
            // The text scrolled: its first `shift` characters are off the half's left edge.
            let mut skip = shift;
            for g in text {
                let n = g.text.chars().count();
                if skip >= n {
                    skip -= n;
                    continue;
                }
                let rest: String = g.text.chars().skip(skip).collect();
                skip = 0;
                pieces.push((rest, if g.emph { emph } else { base }));
            }
            fit(pieces, w, base)
        };
        let blank = |w| fit(Vec::new(), w, s.context);
        self.rows
            .iter()
            .map(|row| {
                let (left, right) = match row.kind {
                    RowKind::Hunk => {
                        return Line::from(fit(segment_pieces(&row.old, s.hunk), width, s.hunk));
                    }
                    RowKind::Context => (
                        side(row.old_no, ' ', &row.old, s.context, s.context, left_width),
                        side(row.new_no, ' ', &row.new, s.context, s.context, right_width),
                    ),
                    RowKind::Removed => (
                        side(row.old_no, '-', &row.old, s.removed, s.removed, left_width),
                        blank(right_width),
                    ),
                    RowKind::Added => (
                        blank(left_width),
                        side(row.new_no, '+', &row.new, s.added, s.added, right_width),
                    ),
                    RowKind::Changed => (
                        side(
                            row.old_no,
                            '-',
                            &row.old,
                            s.removed,
                            s.removed_emph,
                            left_width,
                        ),
                        side(
                            row.new_no,
                            '+',
                            &row.new,
                            s.added,
                            s.added_emph,
                            right_width,
                        ),
                    ),
                };
                let mut spans = left;
                spans.push(Span::styled(SEPARATOR, s.line_no));
                spans.extend(right);
                Line::from(spans)
            })
            .collect()
    }

    /// The line index (in [`LogDiff::unified`]'s or [`LogDiff::side_by_side`]'s output, as
    /// `side_by_side` says) of the first hunk after line `from_line`, for `n`.
    pub fn next_hunk(&self, from_line: usize, side_by_side: bool) -> Option<usize> {
        self.hunk_lines(side_by_side).find(|&l| l > from_line)
    }

    /// The line index of the last hunk before line `from_line`, for `N`.
    pub fn prev_hunk(&self, from_line: usize, side_by_side: bool) -> Option<usize> {
        self.hunk_lines(side_by_side)
            .take_while(|&l| l < from_line)
            .last()
    }

    fn hunk_lines(&self, side_by_side: bool) -> impl Iterator<Item = usize> + '_ {
        self.rows
            .iter()
            .scan(0, move |line, row| {
                let at = *line;
                *line += lines_of(row, side_by_side);
                Some((row.kind, at))
            })
            .filter(|(kind, _)| *kind == RowKind::Hunk)
            .map(|(_, at)| at)
    }
}

/// Between the two sides of the side-by-side view.
const SEPARATOR: &str = "│";

fn lines_of(row: &Row, side_by_side: bool) -> usize {
    if row.kind == RowKind::Changed && !side_by_side {
        2
    } else {
        1
    }
}

/// A unified diff's range: the first line (from 1) and the count; an empty range names the line
/// it follows, as `diff -u` does.
fn hunk_range(range: &std::ops::Range<usize>) -> String {
    let len = range.len();
    let start = if len == 0 {
        range.start
    } else {
        range.start + 1
    };
    format!("{start},{len}")
}

fn plain(text: String) -> Vec<Segment> {
    vec![Segment { text, emph: false }]
}

fn removed(index: usize, text: &str) -> Row {
    Row {
        kind: RowKind::Removed,
        old_no: Some(index + 1),
        new_no: None,
        old: plain(text.to_string()),
        new: Vec::new(),
    }
}

fn added(index: usize, text: &str) -> Row {
    Row {
        kind: RowKind::Added,
        old_no: None,
        new_no: Some(index + 1),
        old: Vec::new(),
        new: plain(text.to_string()),
    }
}

fn segment_pieces(segments: &[Segment], style: Style) -> Vec<(String, Style)> {
    segments.iter().map(|g| (g.text.clone(), style)).collect()
}

fn segment_spans(segments: &[Segment], base: Style, emph: Style) -> Vec<Span<'static>> {
    segments
        .iter()
        .map(|g| Span::styled(g.text.clone(), if g.emph { emph } else { base }))
        .collect()
}

fn prefixed(marker: char, segments: &[Segment], base: Style, emph: Style) -> Line<'static> {
    let mut spans = vec![Span::styled(marker.to_string(), base)];
    spans.extend(segment_spans(segments, base, emph));
    Line::from(spans)
}

/// Spans of exactly `width` columns: the pieces cut where they overflow, then spaces in `pad`.
/// Columns are chars: [`printable`] text has only single-column chars.
fn fit(pieces: Vec<(String, Style)>, width: usize, pad: Style) -> Vec<Span<'static>> {
    let mut spans = Vec::with_capacity(pieces.len() + 1);
    let mut left = width;
    for (text, style) in pieces {
        if left == 0 {
            break;
        }
        let n = text.chars().count();
        if n <= left {
            left -= n;
            spans.push(Span::styled(text, style));
        } else {
            spans.push(Span::styled(
                text.chars().take(left).collect::<String>(),
                style,
            ));
            left = 0;
        }
    }
    if left > 0 {
        spans.push(Span::styled(" ".repeat(left), pad));
    }
    spans
}

/// The units emphasis works on: runs of word characters, runs of blanks, and every other char on
/// its own, so `test_a.py:12:` against `test_a.py:13:` marks only `12`.
fn tokens(line: &str) -> Vec<&str> {
    #[derive(PartialEq)]
    enum Class {
        Word,
        Blank,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Blank
        } else {
            Class::Other
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<Class> = None;
    for (i, c) in line.char_indices() {
        let k = class(c);
        let joins = prev.as_ref().is_some_and(|p| *p == k && k != Class::Other);
        if !joins && i > start {
            out.push(&line[start..i]);
            start = i;
        }
        prev = Some(k);
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out
}

fn is_blank(token: &str) -> bool {
    token.chars().all(char::is_whitespace)
}

/// The share of two lines' non-blank text that is common to both, from 0 to 1.
fn similarity(old: &[&str], new: &[&str]) -> f32 {
    let text_len = |ts: &[&str]| -> usize {
        ts.iter()
            .filter(|t| !is_blank(t))
            .map(|t| t.chars().count())
            .sum()
    };
    let total = text_len(old) + text_len(new);
    if total == 0 {
        return 0.0;
    }
    let common: usize = similar::capture_diff_slices(Algorithm::Myers, old, new)
        .iter()
        .filter(|op| op.tag() == DiffTag::Equal)
        .map(|op| text_len(&old[op.old_range()]))
        .sum();
    (2 * common) as f32 / total as f32
}

/// Which (removed, added) lines of a change block to show as changed pairs, in order: the
/// alignment with the most similarity among pairs that are similar enough.
fn pair_lines(old: &[Vec<&str>], new: &[Vec<&str>]) -> Vec<(usize, usize)> {
    let (m, n) = (old.len(), new.len());
    let similar_enough = |i: usize, j: usize| {
        let s = similarity(&old[i], &new[j]);
        (s >= PAIR_SIMILARITY).then_some(s)
    };
    if m * n > MAX_PAIR_COMPARISONS {
        return (0..m.min(n))
            .filter(|&i| similar_enough(i, i).is_some())
            .map(|i| (i, i))
            .collect();
    }
    let sim: Vec<Vec<Option<f32>>> = (0..m)
        .map(|i| (0..n).map(|j| similar_enough(i, j)).collect())
        .collect();
    // best[i][j]: the most similarity the lines from old[i..] and new[j..] can pair up for.
    let mut best = vec![vec![0.0f32; n + 1]; m + 1];
    for i in (0..m).rev() {
        for j in (0..n).rev() {
            let paired = sim[i][j].map_or(0.0, |s| s + best[i + 1][j + 1]);
            best[i][j] = paired.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < m && j < n {
        match sim[i][j] {
            Some(s) if s + best[i + 1][j + 1] >= best[i][j] => {
                pairs.push((i, j));
                i += 1;
                j += 1;
            }
            _ if best[i + 1][j] >= best[i][j + 1] => i += 1,
            _ => j += 1,
        }
    }
    pairs
}

/// The two sides of a changed pair as segments, the tokens that differ emphasised.
fn emphasis(old: &[&str], new: &[&str]) -> (Vec<Segment>, Vec<Segment>) {
    let mut old_segments = Vec::new();
    let mut new_segments = Vec::new();
    for op in similar::capture_diff_slices(Algorithm::Myers, old, new) {
        let (tag, o, n) = op.as_tag_tuple();
        let emph = tag != DiffTag::Equal;
        push_segment(&mut old_segments, &old[o], emph);
        push_segment(&mut new_segments, &new[n], emph);
    }
    (old_segments, new_segments)
}

fn push_segment(segments: &mut Vec<Segment>, tokens: &[&str], emph: bool) {
    if tokens.is_empty() {
        return;
    }
    let text = tokens.concat();
    match segments.last_mut() {
        Some(last) if last.emph == emph => last.text.push_str(&text),
        _ => segments.push(Segment { text, emph }),
    }
}

/// A line as the screen can show it, one column per char: tabs expanded to stops of 4, escape
/// sequences (colour codes in logs) dropped, other control chars shown as `^X`, zero-width chars
/// dropped and wide ones or emoji shown as `?`, as terminals disagree on their widths.
/// The highlighter cleans source lines the same way.
pub fn printable(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut col = 0;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape(&mut chars),
            '\t' => {
                let n = TAB_WIDTH - col % TAB_WIDTH;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            // A lone carriage return rewrites a progress line in place; its last state remains.
            '\r' => {}
            '\0'..='\x1f' | '\x7f' => {
                out.push('^');
                out.push(char::from(c as u8 ^ 0x40));
                col += 2;
            }
            ' '..='~' => {
                out.push(c);
                col += 1;
            }
            c if c.is_control() => {}
            c => match char_width(c) {
                0 => {}
                1 if !is_emoji(c) => {
                    out.push(c);
                    col += 1;
                }
                _ => {
                    out.push('?');
                    col += 1;
                }
            },
        }
    }
    out
}

/// Skips what follows an ESC: a CSI sequence (`ESC [ ... final`), a string sequence (OSC, DCS,
/// ...) up to its terminator, or a short `ESC [intermediates] final` one.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            while let Some(c) = chars.next() {
                if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                    break;
                }
            }
        }
        Some(' '..='/') => {
            while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
            chars.next();
        }
        _ => {}
    }
}

/// ratatui measures text with `unicode-width`; asking it keeps this crate off a second copy.
fn char_width(c: char) -> usize {
    let mut buf = [0; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

/// Symbols that many terminals draw as emoji (two columns) though Unicode gives them one.
fn is_emoji(c: char) -> bool {
    matches!(c, '\u{2600}'..='\u{27bf}' | '\u{2b00}'..='\u{2bff}' | '\u{1f000}'..)
}

/// A unified patch (a mutant's) with at most `context` lines of context around the changes of
/// each hunk, and without the file header lines (the screen names the file above it): a
/// one-line mutation then takes a few rows on a small terminal. Hunk headers are renumbered
/// to the lines kept; a hunk whose header does not parse is left whole.
pub fn narrow_patch(patch: &str, context: usize) -> String {
    let mut out = String::new();
    let mut header: Option<&str> = None;
    let mut body: Vec<&str> = vec![];
    for line in patch.lines() {
        if line.starts_with("@@ ") {
            if let Some(h) = header.replace(line) {
                narrow_hunk(&mut out, h, &body, context);
            }
            body.clear();
        } else if header.is_some() {
            body.push(line);
        } else if !(line.starts_with("--- ") || line.starts_with("+++ ")) {
            out.push_str(line);
            out.push('\n');
        }
    }
    if let Some(h) = header {
        narrow_hunk(&mut out, h, &body, context);
    }
    out
}

fn narrow_hunk(out: &mut String, header: &str, body: &[&str], context: usize) {
    let changed = |l: &&str| l.starts_with('+') || l.starts_with('-');
    let parsed = parse_hunk_header(header);
    let (Some(first), Some(last), Some((old_start, new_start, tail))) = (
        body.iter().position(changed),
        body.iter().rposition(changed),
        parsed,
    ) else {
        out.push_str(header);
        out.push('\n');
        body.iter().for_each(|l| {
            out.push_str(l);
            out.push('\n');
        });
        return;
    };
    let from = first.saturating_sub(context);
    let to = (last + 1 + context).min(body.len());
    let kept = &body[from..to];
    let old_n = kept
        .iter()
        .filter(|l| !l.starts_with('+') && !l.starts_with('\\'))
        .count();
    let new_n = kept
        .iter()
        .filter(|l| !l.starts_with('-') && !l.starts_with('\\'))
        .count();
    out.push_str(&format!(
        "@@ -{},{old_n} +{},{new_n} @@{tail}\n",
        old_start + from,
        new_start + from
    ));
    for l in kept {
        out.push_str(l);
        out.push('\n');
    }
}

/// `@@ -a,b +c,d @@ tail` as (a, c, tail); the counts are recomputed by the caller.
fn parse_hunk_header(header: &str) -> Option<(usize, usize, &str)> {
    let rest = header.strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let start = |r: &str| r.split(',').next()?.parse::<usize>().ok();
    Some((start(old)?, start(new)?, tail))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_patch_narrows_to_its_change_and_renumbers_its_hunk() {
        let patch = "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -92,7 +92,7 @@ def get_int(\n a\n b\n c\n-x = 1\n+x = 2\n d\n e\n f\n";
        assert_eq!(
            narrow_patch(patch, 1),
            "@@ -94,3 +94,3 @@ def get_int(\n c\n-x = 1\n+x = 2\n d\n"
        );
        // With the context it had, only the file header lines go.
        assert_eq!(
            narrow_patch(patch, 3),
            patch
                .lines()
                .skip(2)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        );
        // Two hunks, a change at a hunk's first line, a header that does not parse.
        let two = "@@ -1,3 +1,3 @@\n-a\n+b\n c\n d\n@@ junk\n x\n-y\n";
        assert_eq!(
            narrow_patch(two, 1),
            "@@ -1,2 +1,2 @@\n-a\n+b\n c\n@@ junk\n x\n-y\n"
        );
    }

    use super::*;
    use ratatui::style::Color;

    const OLD_LOG: &str = "\
============================= test session starts ==============================
collected 1 item

test_calc.py F                                                           [100%]

=================================== FAILURES ===================================
__________________________________ test_add ____________________________________

    def test_add():
>       assert add(2, 2) == 5
E   assert 4 == 5
E    +  where 4 = add(2, 2)

test_calc.py:4: AssertionError
=========================== short test summary info ============================
FAILED test_calc.py::test_add - assert 4 == 5
";

    fn styles() -> DiffStyles {
        DiffStyles {
            context: Style::new(),
            added: Style::new().fg(Color::Green),
            removed: Style::new().fg(Color::Red),
            added_emph: Style::new().fg(Color::LightGreen),
            removed_emph: Style::new().fg(Color::LightRed),
            hunk: Style::new().fg(Color::Cyan),
            line_no: Style::new().fg(Color::DarkGray),
        }
    }

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn seg(text: &str, emph: bool) -> Segment {
        Segment {
            text: text.to_string(),
            emph,
        }
    }

    /// Each row's kind and line numbers.
    fn shape(diff: &LogDiff) -> Vec<(RowKind, Option<usize>, Option<usize>)> {
        diff.rows
            .iter()
            .map(|r| (r.kind, r.old_no, r.new_no))
            .collect()
    }

    fn numbered(n: usize, prefix: &str) -> String {
        (1..=n).map(|i| format!("{prefix} line {i}\n")).collect()
    }

    #[test]
    fn identical_texts_give_an_empty_diff() {
        let diff = LogDiff::new(OLD_LOG, OLD_LOG, 3);
        assert!(diff.is_empty());
        assert!(diff.hunks.is_empty());
        assert!(diff.unified(&styles()).is_empty());
        assert!(diff.side_by_side(&styles(), 80).is_empty());
        assert_eq!(diff.next_hunk(0, false), None);
        assert!(LogDiff::new("", "", 3).is_empty());
        // Colour codes alone are no change: the screen would show the same text.
        assert!(LogDiff::new("\x1b[31mFAILED\x1b[0m x\n", "FAILED x\n", 3).is_empty());
    }

    #[test]
    fn a_one_word_change_is_one_changed_row_emphasising_the_token() {
        let new = OLD_LOG.replace("E   assert 4 == 5", "E   assert 3 == 5");
        let diff = LogDiff::new(OLD_LOG, &new, 3);
        assert_eq!(diff.hunks, vec![0]);
        let changed: Vec<&Row> = diff
            .rows
            .iter()
            .filter(|r| r.kind == RowKind::Changed)
            .collect();
        assert_eq!(changed.len(), 1);
        assert!(
            diff.rows
                .iter()
                .all(|r| !matches!(r.kind, RowKind::Removed | RowKind::Added))
        );
        let row = changed[0];
        assert_eq!(
            row.old,
            vec![
                seg("E   assert ", false),
                seg("4", true),
                seg(" == 5", false)
            ]
        );
        assert_eq!(
            row.new,
            vec![
                seg("E   assert ", false),
                seg("3", true),
                seg(" == 5", false)
            ]
        );
        assert_eq!((row.old_no, row.new_no), (Some(11), Some(11)));

        let lines = diff.unified(&styles());
        let texts: Vec<String> = lines.iter().map(text).collect();
        assert_eq!(texts[0], "@@ -8,7 +8,7 @@");
        assert!(texts.contains(&"-E   assert 4 == 5".to_string()));
        assert!(texts.contains(&"+E   assert 3 == 5".to_string()));
        let minus = texts
            .iter()
            .position(|t| t == "-E   assert 4 == 5")
            .unwrap();
        assert_eq!(texts[minus + 1], "+E   assert 3 == 5");
        let emphasised: Vec<&str> = lines[minus]
            .spans
            .iter()
            .filter(|s| s.style == styles().removed_emph)
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(emphasised, vec!["4"]);
        assert!(
            lines[minus + 1]
                .spans
                .iter()
                .any(|s| s.content == "3" && s.style == styles().added_emph)
        );
    }

    #[test]
    fn added_and_removed_blocks() {
        let old = "a\nb\nc\nd\ne\nf\n";
        let new = "a\nb\nc\nnew one\nnew two\nd\nf\n";
        let diff = LogDiff::new(old, new, 1);
        use RowKind::*;
        assert_eq!(
            shape(&diff),
            vec![
                (Hunk, None, None),
                (Context, Some(3), Some(3)),
                (Added, None, Some(4)),
                (Added, None, Some(5)),
                (Context, Some(4), Some(6)),
                (Removed, Some(5), None),
                (Context, Some(6), Some(7)),
            ]
        );
        let texts: Vec<String> = diff.unified(&styles()).iter().map(text).collect();
        assert_eq!(
            texts,
            vec![
                "@@ -3,4 +3,5 @@",
                " c",
                "+new one",
                "+new two",
                " d",
                "-e",
                " f"
            ]
        );
    }

    #[test]
    fn dissimilar_lines_stay_removed_and_added() {
        let diff = LogDiff::new(
            "x\nPASSED all good\ny\n",
            "x\nTraceback (most recent call last):\ny\n",
            0,
        );
        let kinds: Vec<RowKind> = diff.rows.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, vec![RowKind::Hunk, RowKind::Removed, RowKind::Added]);
    }

    #[test]
    fn similar_lines_pair_up_inside_a_larger_block() {
        let old = "start\nFAILED test_a.py::test_x - assert 1 == 2\nend\n";
        let new =
            "start\n!!!! unrelated noise\nFAILED test_a.py::test_x - assert 1 == 3\nanother\nend\n";
        let diff = LogDiff::new(old, new, 0);
        use RowKind::*;
        assert_eq!(
            shape(&diff),
            vec![
                (Hunk, None, None),
                (Added, None, Some(2)),
                (Changed, Some(2), Some(3)),
                (Added, None, Some(4)),
            ]
        );
        assert_eq!(diff.rows[0].old, vec![seg("@@ -2,1 +2,3 @@", false)]);
    }

    #[test]
    fn empty_sides_name_the_line_they_follow() {
        let diff = LogDiff::new("a\nb\n", "a\nb\nc\n", 0);
        assert_eq!(text(&diff.unified(&styles())[0]), "@@ -2,0 +3,1 @@");
        let diff = LogDiff::new("", "x\n", 3);
        assert_eq!(text(&diff.unified(&styles())[0]), "@@ -0,0 +1,1 @@");
    }

    #[test]
    fn hunk_navigation() {
        // Changes at lines 5 and 30 of 40: two hunks with 3 lines of context.
        let old = numbered(40, "same");
        let new = old
            .replace("same line 5\n", "same line 5 changed\n")
            .replace("same line 30\n", "same line 30 changed\n");
        let diff = LogDiff::new(&old, &new, 3);
        assert_eq!(diff.hunks.len(), 2);
        // Each hunk: header, 3 context, the changed pair, 3 context.
        assert_eq!(diff.hunks, vec![0, 8]);
        assert_eq!(diff.line_count(true), 16);
        assert_eq!(diff.line_count(false), 18);
        assert_eq!(diff.unified(&styles()).len(), 18);
        assert_eq!(diff.side_by_side(&styles(), 60).len(), 16);

        // Side by side: one line a row, so hunks sit at rows 0 and 8.
        assert_eq!(diff.next_hunk(0, true), Some(8));
        assert_eq!(diff.next_hunk(3, true), Some(8));
        assert_eq!(diff.next_hunk(8, true), None);
        assert_eq!(diff.next_hunk(100, true), None);
        assert_eq!(diff.prev_hunk(100, true), Some(8));
        assert_eq!(diff.prev_hunk(8, true), Some(0));
        assert_eq!(diff.prev_hunk(1, true), Some(0));
        assert_eq!(diff.prev_hunk(0, true), None);

        // Unified: the changed pair of the first hunk is two lines, so the second hunk is at 9.
        let unified = diff.unified(&styles());
        assert!(text(&unified[9]).starts_with("@@ "));
        assert_eq!(diff.next_hunk(0, false), Some(9));
        assert_eq!(diff.next_hunk(9, false), None);
        assert_eq!(diff.prev_hunk(9, false), Some(0));
        assert_eq!(diff.prev_hunk(10, false), Some(9));
        assert_eq!(diff.prev_hunk(0, false), None);
    }

    /// Scrolled to its end, the pane shows the end of the long line in its half, with its line
    /// numbers and the separator where they were; scrolled further, nothing moves.
    #[test]
    fn each_half_scrolls_inside_its_half() {
        let long = format!("{}END", "x".repeat(60));
        let old = format!("short\n{long}\nsame\n");
        let new = "short!\ny\nsame\n";
        let diff = LogDiff::new(&old, new, 3);
        // The pane scrolls no further than its widest line allows.
        let window = |left: usize| -> Vec<String> {
            let lines = diff.side_by_side_scrolled(&styles(), 41, left);
            let widest = lines.iter().map(|l| text(l).chars().count()).max().unwrap();
            let left = left.min(widest - 41);
            lines
                .iter()
                .map(|l| text(l).chars().skip(left).take(41).collect())
                .collect()
        };
        assert_eq!(
            window(0),
            diff.side_by_side(&styles(), 41)
                .iter()
                .map(text)
                .collect::<Vec<_>>()
        );
        let overflow = diff.overflow(41);
        assert!(overflow > 0);
        let end = window(overflow);
        let row = end
            .iter()
            .find(|l| l.contains("END"))
            .expect("the end is in view");
        assert!(row.starts_with("2 -"), "the line number stays: {row:?}");
        assert_eq!(row.chars().nth(20), Some('│'), "{row:?}");
        assert!(row[..row.find('│').unwrap()].ends_with("END"), "{row:?}");
        assert_eq!(window(overflow + 10), end, "no further than the end");
    }

    #[test]
    fn side_by_side_fits_the_width() {
        let old = format!("short\n{}\n\tTAB\nsame\n", "x".repeat(200));
        let new = format!("short!\n{}\n\tTAB\nsame\n", "y".repeat(200));
        let diff = LogDiff::new(&old, &new, 3);
        for width in [0u16, 1, 2, 3, 7, 20, 41, 80, 81, 300] {
            let lines = diff.side_by_side(&styles(), width);
            assert_eq!(lines.len(), diff.rows.len());
            for line in &lines {
                let n = text(line).chars().count();
                assert_eq!(n, usize::from(width), "width {width}: {:?}", text(line));
            }
        }
        let lines = diff.side_by_side(&styles(), 41);
        // 40 columns for the sides: 20 each, the separator at column 20.
        for line in &lines[1..] {
            assert_eq!(text(line).chars().nth(20), Some('│'), "{:?}", text(line));
        }
        let both = |l: &str, r: &str| format!("{l:<20}│{r:<20}");
        assert_eq!(text(&lines[1]), both("1 -short", "1 +short!"));
        assert_eq!(text(&lines[4]), both("3      TAB", "3      TAB"));
    }

    #[test]
    fn side_by_side_line_numbers() {
        let old = numbered(12, "old");
        let mut new_lines: Vec<String> = old.lines().map(str::to_string).collect();
        new_lines.remove(1);
        new_lines.insert(9, "inserted".to_string());
        new_lines[10] = "old line 11 changed".to_string();
        let new = new_lines.join("\n") + "\n";
        let diff = LogDiff::new(&old, &new, 1);
        let lines: Vec<String> = diff.side_by_side(&styles(), 61).iter().map(text).collect();
        let expected = [
            "@@ -1,3 +1,2 @@                                              ",
            " 1  old line 1                │ 1  old line 1                ",
            " 2 -old line 2                │                              ",
            " 3  old line 3                │ 2  old line 3                ",
            "@@ -10,3 +9,4 @@                                             ",
            "10  old line 10               │ 9  old line 10               ",
            "                              │10 +inserted                  ",
            "11 -old line 11               │11 +old line 11 changed       ",
            "12  old line 12               │12  old line 12               ",
        ];
        assert_eq!(lines, expected);
        let changed = diff
            .rows
            .iter()
            .find(|r| r.kind == RowKind::Changed)
            .unwrap();
        assert_eq!(
            changed.new,
            vec![seg("old line 11", false), seg(" changed", true)]
        );
    }

    #[test]
    fn side_by_side_styles_emphasis_and_numbers() {
        let diff = LogDiff::new("E   assert 4 == 5\n", "E   assert 3 == 5\n", 3);
        let lines = diff.side_by_side(&styles(), 60);
        let spans = &lines[1].spans;
        assert_eq!(spans[0].content, "1 ");
        assert_eq!(spans[0].style, styles().line_no);
        assert!(
            spans
                .iter()
                .any(|s| s.content == "4" && s.style == styles().removed_emph)
        );
        assert!(
            spans
                .iter()
                .any(|s| s.content == "3" && s.style == styles().added_emph)
        );
    }

    #[test]
    fn printable_lines() {
        assert_eq!(printable("a\tb"), "a   b");
        assert_eq!(printable("abcd\te"), "abcd    e");
        assert_eq!(printable("\x1b[1;31mred\x1b[0m"), "red");
        assert_eq!(printable("\x1b]0;title\x07x"), "x");
        assert_eq!(printable("\x1b]8;;http://x\x1b\\link"), "link");
        assert_eq!(printable("\x1b(Bz"), "z");
        assert_eq!(printable("bell\x07 nul\0 del\x7f"), "bell^G nul^@ del^?");
        assert_eq!(printable("10%\r100%"), "10%100%");
        assert_eq!(printable("tab after ^X\x08\t|"), "tab after ^X^H  |");
        assert_eq!(
            printable("caf\u{e9} ok \u{2705} \u{4e2d} e\u{301}"),
            "caf\u{e9} ok ? ? e"
        );
        for s in ["\u{1f600}", "\u{26a0}\u{fe0f}", "\u{200b}"] {
            assert!(
                printable(s)
                    .chars()
                    .all(|c| char_width(c) == 1 && !is_emoji(c))
            );
        }
    }
}
