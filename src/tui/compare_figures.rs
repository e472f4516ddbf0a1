//! The comparison screen's figures (`v`): the two batches as the paper's Tables II and III
//! give them (F2P, calls, cost) with McNemar's test between them, and per generation and
//! phase their F2P share (Fig. 6) and selection accuracy (Fig. 4), side by side, from the
//! finished instances' reports as `bench --compare ... --figures` reads them.

use super::theme::{Role, Theme};
use crate::bench::facts::BatchFacts;
use crate::bench::{figures, paper_tables};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Paragraph, Wrap};

pub fn draw(f: &mut Frame, area: Rect, a: &BatchFacts, b: &BatchFacts, theme: &Theme) {
    let block = |title: &str| {
        Block::bordered()
            .title(title.to_string())
            .border_style(theme.style(Role::Border))
    };
    let pair = [a.clone(), b.clone()];
    // The three lines wrap on a narrow terminal: room for them.
    let text_h = if area.width < 120 { 9 } else { 6 };
    let [text, charts] =
        Layout::vertical([Constraint::Length(text_h), Constraint::Min(6)]).areas(area);
    let mut lines = vec![];
    for (side, r) in ["A", "B"].iter().zip(&paper_tables::methods(&pair).rows) {
        let share: f64 = r[4].parse().unwrap_or(0.0);
        let calls = crate::bench::summary::one_decimal;
        lines.push(Line::styled(
            format!(
                "{side} {} ({}): F2P {} of {} ({:.0}%), {} model calls per instance ({} after \
                 generation), cost per instance {}",
                r[0],
                r[1],
                r[3],
                r[2],
                share * 100.0,
                calls(&r[5]),
                calls(&r[6]),
                crate::bench::summary::cost(r[8].parse::<f64>().ok())
            ),
            theme.style(Role::Text),
        ));
    }
    if let Some(m) = paper_tables::mcnemar(&pair).rows.first() {
        lines.push(Line::styled(
            format!(
                "McNemar's exact test on the {} instances both ran: F2P in A only {}, in B only \
                 {}, p = {} (two-sided)",
                m[2], m[4], m[5], m[7]
            ),
            theme.style(Role::Dim),
        ));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(" Tables II/III: the two batches ")),
        text,
    );
    let [left, right] =
        Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(charts);
    // Grouped bars: one group per generation or phase, A's bar then B's, in percent (each
    // batch's table made alone: the two may have the same name).
    let grouped = |tables: [paper_tables::Rows; 2], col: usize, prefix: &str| {
        let mut groups: Vec<(String, [u64; 2])> = vec![];
        for (side, r) in tables
            .iter()
            .enumerate()
            .flat_map(|(side, t)| t.iter().map(move |r| (side, r)))
        {
            let v = r[col]
                .parse::<f64>()
                .map_or(0, |x| (x * 100.0).round() as u64);
            let key = format!("{prefix}{}", r[1]);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, vals)) => vals[side] = v,
                None => {
                    let mut vals = [0, 0];
                    vals[side] = v;
                    groups.push((key, vals));
                }
            }
        }
        groups
    };
    let chart = |title: &str, groups: Vec<(String, [u64; 2])>| {
        let mut c = BarChart::default()
            .block(block(title))
            .bar_width(3)
            .bar_gap(0)
            .group_gap(2)
            .max(100)
            .value_style(theme.style(Role::Selected));
        for (label, [va, vb]) in groups {
            c = c.data(BarGroup::default().label(Line::from(label)).bars(&[
                Bar::default().value(va).style(theme.style(Role::Header)),
                Bar::default().value(vb).style(theme.style(Role::Kept)),
            ]));
        }
        c
    };
    let each = |t: fn(&[BatchFacts]) -> crate::bench::facts::Table| {
        [
            t(std::slice::from_ref(a)).rows,
            t(std::slice::from_ref(b)).rows,
        ]
    };
    f.render_widget(
        chart(
            " F2P share per generation, % (Fig. 6): A, B ",
            grouped(each(figures::f2p_share), 4, "g"),
        ),
        left,
    );
    f.render_widget(
        chart(
            " selection accuracy per phase, % (Fig. 4): A, B ",
            grouped(each(paper_tables::selection_accuracy), 3, "p"),
        ),
        right,
    );
}
