//! The Timeline's figure of the run, drawn with ratatui's bar charts: the paper's Fig. 2
//! funnel (each generation's tests and mutants), the shown generation's fitness per test with
//! its fate, and its kills per mutant kind. Drawing only reads the state; at 80x24 the
//! charts get fewer rows, never none.

use super::grid_cells::kind_letter;
use crate::mutate::MutantKind;
use crate::tui::state::State;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
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
    let legend = Line::from(vec![
        Span::styled(" tests ", t.style(Role::Kept)),
        Span::styled(" mutants ", t.style(Role::Header)),
    ]);
    let mut chart = BarChart::default()
        .block(chart_block(t, " per generation ".into()).title_bottom(legend))
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
    let width = bar_width(area, gen_.tests.len());
    // Bars narrower than their tests' ids are labelled by number (`10` for t10).
    let by_number = gen_
        .tests
        .iter()
        .any(|x| x.chars().count() > usize::from(width));
    let bars: Vec<Bar> = gen_
        .tests
        .iter()
        .map(|test| {
            let kills = gen_
                .scores
                .get(test)
                .map_or(0, |sc| sc.counted(&s.doc.config));
            let role = Role::of_fate(s.fate(g, test));
            let label = match by_number {
                true => test.trim_start_matches('t'),
                false => test,
            };
            Bar::default()
                .value(kills as u64)
                .label(Line::from(label.to_owned()))
                .style(t.style(role))
                .text_value(kills.to_string())
        })
        .collect();
    let legend = Line::from(vec![
        Span::styled(" kept ", t.style(Role::Kept)),
        Span::styled(" vetoed ", t.style(Role::Vetoed)),
        Span::styled(" dropped ", t.style(Role::Dropped)),
    ]);
    let title = format!(" kills per test, generation {g} ");
    let chart = BarChart::default()
        .block(chart_block(t, title).title_bottom(legend))
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
                // The kills fitness counts, as the Grid's `killed by` row and the bars
                // per test.
                .map(|sc| {
                    sc.counted_kills(&s.doc.config)
                        .into_iter()
                        .filter(|m| kind_of(m) == Some(*k))
                        .count()
                })
                .sum();
            Bar::default()
                .value(kills as u64)
                .label(Line::from(kind_letter(*k).to_string()))
                .style(t.style(Role::CellKilledStatus))
                .text_value(kills.to_string())
        })
        .collect();
    let width = bar_width(area, bars.len());
    // The letters the Grid's columns use, in words.
    let words: Vec<String> = MutantKind::ALL
        .iter()
        .filter(|k| gen_.mutants.iter().any(|m| kind_of(m) == Some(**k)))
        .map(|k| format!("{} {}", kind_letter(*k), kind_word(*k)))
        .collect();
    // Cut, the last word would read as another kind: too narrow, the help names them.
    let mut legend = format!(" {} ", words.join(" "));
    if legend.chars().count() + 2 > usize::from(area.width) {
        legend = " ? names the letters ".into();
    }
    let chart = BarChart::default()
        .block(chart_block(t, " kills per mutant kind ".into()).title_bottom(legend))
        .data(BarGroup::default().bars(&bars))
        .bar_width(width)
        .bar_gap(1)
        .value_style(t.style(Role::Selected));
    f.render_widget(chart, area);
}

/// A mutant kind in one short word, for a chart's legend.
fn kind_word(k: MutantKind) -> &'static str {
    use MutantKind::*;
    match k {
        BinaryArithmetic => "+-",
        UnaryArithmetic => "neg",
        BinaryRelational => "<=",
        BinaryLogical => "and",
        UnaryLogical => "not",
        ConstantReplacement => "lit",
        ReturnValue => "ret",
        Assignment => "=",
        ForceFailure => "raise",
    }
}

/// Bars as wide as fit (at least 1, at most 5), one column between them.
fn bar_width(area: Rect, bars: usize) -> u16 {
    let inner = area.width.saturating_sub(2);
    let n = u16::try_from(bars.max(1)).unwrap_or(u16::MAX);
    (inner.saturating_sub(n) / n).clamp(1, 5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Ten tests at 80 columns: bars two columns wide are labelled by number, so t10 does not
    /// read as t1; each chart says what its bars are.
    #[test]
    fn narrow_bars_are_labelled_by_the_tests_number() {
        let sources: Vec<(String, String)> = (1..=10)
            .map(|i| {
                (
                    format!("test_{i:02}.py"),
                    format!("# FAILS\ndef test_{i}(): pass\n"),
                )
            })
            .collect();
        let cands: Vec<(&str, &str)> = sources
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_str()))
            .collect();
        let config = crate::testkit::config(crate::engine::SelectionStrategy::Mutation);
        let doc = crate::testkit::scripted_run(&cands, config);
        let mut s = State::new(Arc::new(doc), true, 0);
        s.generation = Some(0);
        let theme = Theme::load(Some("dark"), None, false).unwrap();
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 10)).unwrap();
        term.draw(|f| draw(f, &s, &theme, f.area())).unwrap();
        let screen = format!("{}", term.backend());
        let labels = screen.lines().rev().nth(1).unwrap();
        assert!(labels.contains("10") && !labels.contains("t1 "), "{screen}");
        assert!(screen.contains("tests  mutants"), "{screen}");
        assert!(screen.contains("kept  vetoed  dropped"), "{screen}");
    }
}
