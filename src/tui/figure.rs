//! The Timeline's figure of the run, drawn with ratatui's bar charts: the paper's Fig. 2
//! funnel (each generation's tests and mutants), the shown generation's fitness per test with
//! its fate, and its kills per mutant kind. Drawing only reads the state; at 80x24 the
//! charts get fewer rows, never none.

use super::grid::kind_letter;
use super::state::State;
use super::theme::{Role, Theme};
use crate::mutate::MutantKind;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Block};

/// Rows the figure takes on a terminal `height` rows high.
pub fn height_for(height: u16) -> u16 {
    if height >= 34 { 12 } else { 8 }
}

pub fn draw(f: &mut Frame, s: &State, t: &Theme, area: Rect) {
    if s.doc.generations.is_empty() || area.height < 4 {
        return;
    }
    let [funnel, fitness, kinds] = Layout::horizontal([
        Constraint::Percentage(30),
        Constraint::Percentage(40),
        Constraint::Percentage(30),
    ])
    .areas(area);
    draw_funnel(f, s, t, funnel);
    if let Some(g) = s.shown_generation() {
        draw_fitness(f, s, t, fitness, g);
        draw_kinds(f, s, t, kinds, g);
    }
}

fn chart_block<'a>(t: &Theme, title: String) -> Block<'a> {
    Block::bordered()
        .title(title)
        .border_style(t.style(Role::Border))
}

/// Each generation: its tests (halving) and its mutants (doubling), as in the paper's Fig. 2.
fn draw_funnel(f: &mut Frame, s: &State, t: &Theme, area: Rect) {
    let groups: Vec<BarGroup> = s
        .doc
        .generations
        .iter()
        .map(|g| {
            BarGroup::default()
                .label(Line::from(format!("g{}", g.index)))
                .bars(&[
                    Bar::default()
                        .value(g.tests.len() as u64)
                        .style(t.style(Role::Kept))
                        .text_value(g.tests.len().to_string()),
                    Bar::default()
                        .value(g.mutants.len() as u64)
                        .style(t.style(Role::Header))
                        .text_value(g.mutants.len().to_string()),
                ])
        })
        .collect();
    let mut chart = BarChart::default()
        .block(chart_block(t, " tests, mutants ".into()))
        .bar_width(3)
        .bar_gap(0)
        .group_gap(1)
        .value_style(t.style(Role::Selected));
    for g in groups {
        chart = chart.data(g);
    }
    f.render_widget(chart, area);
}

/// The shown generation's tests: their kills, coloured by what became of them.
fn draw_fitness(f: &mut Frame, s: &State, t: &Theme, area: Rect, g: usize) {
    let gen_ = &s.doc.generations[g];
    let bars: Vec<Bar> = gen_
        .tests
        .iter()
        .map(|test| {
            let kills = gen_
                .scores
                .get(test)
                .map_or(0, |sc| sc.counted(&s.doc.config));
            let role = Role::of_fate(s.fate(g, test));
            Bar::default()
                .value(kills as u64)
                .label(Line::from(test.clone()))
                .style(t.style(role))
                .text_value(kills.to_string())
        })
        .collect();
    let width = bar_width(area, bars.len());
    let chart = BarChart::default()
        .block(chart_block(t, format!(" kills, generation {g} ")))
        .data(BarGroup::default().bars(&bars))
        .bar_width(width)
        .bar_gap(1)
        .value_style(t.style(Role::Selected));
    f.render_widget(chart, area);
}

/// The shown generation's kills per mutant kind: how many (test, mutant) pairs of each kind
/// were kills, over the kinds it sampled.
fn draw_kinds(f: &mut Frame, s: &State, t: &Theme, area: Rect, g: usize) {
    let gen_ = &s.doc.generations[g];
    let kind_of = |m: &str| s.mutant(m).map(|x| x.kind);
    let bars: Vec<Bar> = MutantKind::ALL
        .iter()
        .filter(|k| gen_.mutants.iter().any(|m| kind_of(m) == Some(**k)))
        .map(|k| {
            let kills: usize = gen_
                .scores
                .values()
                .filter(|sc| !sc.flaky)
                .map(|sc| sc.kills.iter().filter(|m| kind_of(m) == Some(*k)).count())
                .sum();
            Bar::default()
                .value(kills as u64)
                .label(Line::from(kind_letter(*k).to_string()))
                .style(t.style(Role::CellKilledStatus))
                .text_value(kills.to_string())
        })
        .collect();
    let width = bar_width(area, bars.len());
    let chart = BarChart::default()
        .block(chart_block(t, " kills per kind ".into()))
        .data(BarGroup::default().bars(&bars))
        .bar_width(width)
        .bar_gap(1)
        .value_style(t.style(Role::Selected));
    f.render_widget(chart, area);
}

/// Bars as wide as fit (at least 1, at most 5), one column between them.
fn bar_width(area: Rect, bars: usize) -> u16 {
    let inner = area.width.saturating_sub(2);
    let n = u16::try_from(bars.max(1)).unwrap_or(u16::MAX);
    (inner.saturating_sub(n) / n).clamp(1, 5)
}
