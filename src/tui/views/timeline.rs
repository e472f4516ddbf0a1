//! The Timeline screen: the run's phases and each generation's tests with their fates.

use super::common::*;
use crate::engine::{Target, explain};
use crate::exec::Outcome;
use crate::tui::fit::cut;
use crate::tui::state::Screen;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;

pub(super) fn outcome_word(o: Option<Outcome>) -> &'static str {
    o.map_or("-", Outcome::verb)
}

pub(super) fn draw_timeline(f: &mut Frame, c: &Ctx, area: Rect) {
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
    // A method without mutants has no such shape to show.
    if !shape.is_empty() && s.doc.config.method.mutates() {
        lines.push(Line::styled(
            format!("tests x mutants: {}", shape.join("  ->  ")),
            t.style(Role::Title),
        ));
    }
    // The method, when it is not EvoOtter or a preset made it, so a reader knows what ran.
    let method = s.doc.config.method;
    if !method.mutates() {
        lines.push(Line::styled(
            format!("method {method}: {}", s.doc.method_words()),
            t.style(Role::Dim),
        ));
    }
    if let Some(p) = &s.doc.config.preset {
        lines.push(Line::styled(format!("preset {p}"), t.style(Role::Dim)));
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
    // e-Otter's loops: each round's verdict, reason, and the runs before and after.
    lines.extend(repair_lines(c, usize::from(area.width.saturating_sub(2))));
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
            let fit = g
                .scores
                .get(tid)
                .filter(|_| method.mutates())
                .map_or("-".into(), |sc| {
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
        lines.extend(before_generations(c));
    }
    let title = format!("Timeline: {}", phase_words(s));
    // The figure of the run under the text, smaller on a small terminal, never gone.
    // Without mutants the figure (kills per test and per kind) would be empty.
    let fig_h = if s.doc.generations.is_empty() || !method.mutates() {
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
pub(super) struct TestRow {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) old: String,
    pub(super) fit: String,
    pub(super) fate: String,
    pub(super) origin: String,
}

impl TestRow {
    pub(super) fn header() -> Self {
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
pub(super) fn fit_test_table(width: usize, rows: &[TestRow]) -> Vec<String> {
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
                cut(&r.name, name_w),
                r.old,
                r.fit,
                r.fate
            );
            let rest = width.saturating_sub(left.chars().count()).max(1);
            format!("{left}{}", cut(&r.origin, rest))
                .trim_end()
                .to_string()
        })
        .collect()
}

/// e-Otter's loops in lines fitted to `width`: each round's verdict, reason, and the runs
/// before and after.
fn repair_lines(c: &Ctx, width: usize) -> Vec<Line<'static>> {
    let (s, t) = (c.state, c.theme);
    let mut lines = vec![];
    for l in crate::engine::repair::chain_lines(&s.doc) {
        let (style, first, rest) = if l.starts_with("repair of") {
            (t.style(Role::Header), "", "  ")
        } else if l.trim_start().starts_with('"') {
            (t.style(Role::Dim), "", "     ")
        } else {
            (t.style(Role::Text), "", "     ")
        };
        for row in hanging(&l, first, rest, width) {
            lines.push(Line::styled(row, style));
        }
    }
    lines
}

/// What the Timeline says before the first generation: the focal functions the model found,
/// and what to do next.
fn before_generations(c: &Ctx) -> Vec<Line<'static>> {
    let s = c.state;
    let t = c.theme;
    let method = s.doc.config.method;
    let mut lines = vec![];
    lines.push(Line::raw(""));
    // The functions the mutants come from (the localizer's after refinement).
    if s.doc.base_brt.is_some() && !s.doc.inputs.focal.is_empty() {
        let focal: Vec<String> = s.doc.inputs.focal.iter().map(|f| f.to_string()).collect();
        lines.push(Line::styled(
            format!(
                "focal functions (the model's, refined): {}",
                focal.join(", ")
            ),
            t.style(Role::Text),
        ));
    }
    // What to do next, while there is something to do here.
    if !s.read_only && s.doc.phase != crate::engine::Phase::Done {
        let hint = if method.mutates() {
            "r runs to the first gate (the model's steps, the mutants, generation 0's \
             executions); n runs one step"
        } else {
            "r runs the method to its end (it has no gate before a crossover); n runs one \
             step"
        };
        lines.push(Line::styled(hint, t.style(Role::Dim)));
    }
    lines
}
