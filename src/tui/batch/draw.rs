//! The Batch screen drawn: the table of instances (its columns fitted to the width), the
//! totals, the figures beside the table when asked, and the selected instance's details.

use super::view::*;
use crate::bench::batch_dir::{Row, State};
use crate::tui::fit::padded;
use crate::tui::keymap::{KeyContext, Keymap};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};

fn tokens(n: u64) -> String {
    if n >= 10_000 {
        format!("{:.0}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

fn wall(secs: f64) -> String {
    if secs >= 600.0 {
        format!("{}m", (secs / 60.0).round())
    } else if secs >= 60.0 {
        format!("{}m{:02}", (secs / 60.0) as u64, secs as u64 % 60)
    } else {
        format!("{secs:.1}s")
    }
}

/// The row's state; on a cluster, before evootter's own record of it, the scheduler's
/// (`pending`, `running n2`, and how a task ended without a result: `timeout`, `node fail`).
fn state_word(r: &Row) -> String {
    match (&r.state, &r.task) {
        (State::Queued | State::Interrupted { .. }, Some(t)) => t.state.short(),
        (State::Running { .. }, Some(t)) if t.state.running() => t.state.short(),
        (s, _) => s.word().to_string(),
    }
}

/// The scheduler's words of the row's latest task: `Slurm task 45_3: running on n2 since
/// 17:03:05 UTC, queued 1 s`.
fn task_words(t: &crate::bench::slurm::ledger::Seen) -> String {
    let st = &t.state;
    let mut w = format!("Slurm task {}: {}", t.task(), st.words());
    if st.ended() && !st.node.is_empty() {
        w.push_str(&format!(" on {}", st.node));
    }
    if let Some(start) = st.start_unix {
        w.push_str(&format!(" since {}", crate::clock::utc_label(start)));
        if let Some(end) = st.end_unix {
            w = w.replace(" since ", " from ");
            w.push_str(&format!(" for {} s", end.saturating_sub(start)));
        }
    }
    if let Some(q) = st.queue_wait() {
        w.push_str(&format!(", queued {q} s"));
    }
    w
}

/// A column of the table: its header, width, and cell.
struct Column {
    head: &'static str,
    width: usize,
    /// Shown only on a terminal at least this wide.
    min_width: u16,
    cell: fn(&Row) -> String,
}

const COLUMNS: &[Column] = &[
    Column {
        head: "state",
        width: 11,
        min_width: 0,
        cell: state_word,
    },
    Column {
        head: "F2P",
        width: 3,
        min_width: 0,
        cell: |r| match r.state {
            State::Done => if r.f2p() { "yes" } else { "no" }.into(),
            _ => "-".into(),
        },
    },
    Column {
        head: "TDD",
        width: 4,
        min_width: 0,
        cell: |r| match r.state {
            State::Done => format!("{:.2}", r.line.tdd_score),
            _ => "-".into(),
        },
    },
    Column {
        head: "cov",
        width: 4,
        min_width: 0,
        cell: |r| {
            r.line
                .coverage
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0))
        },
    },
    Column {
        head: "SWT",
        width: 3,
        min_width: 110,
        cell: |r| match r.state {
            State::Done => if r.line.swt { "yes" } else { "no" }.into(),
            _ => "-".into(),
        },
    },
    Column {
        head: "calls",
        width: 5,
        min_width: 100,
        cell: |r| r.line.model_calls.to_string(),
    },
    Column {
        head: "tokens",
        width: 6,
        min_width: 120,
        cell: |r| tokens(r.line.tokens_in + r.line.tokens_out),
    },
    Column {
        head: "cost",
        width: 7,
        min_width: 0,
        cell: |r| r.line.cost_usd.map_or("?".into(), |c| format!("${c:.3}")),
    },
    Column {
        head: "execs",
        width: 6,
        min_width: 0,
        cell: |r| r.line.executions.to_string(),
    },
    Column {
        head: "fit",
        width: 5,
        min_width: 0,
        cell: |r| format!("{}/{}", r.fitness_cuts, r.cuts),
    },
    Column {
        head: "wall",
        width: 6,
        min_width: 0,
        cell: |r| wall(r.line.wall_seconds),
    },
    Column {
        head: "repo",
        width: 18,
        min_width: 140,
        cell: |r| r.repo.clone(),
    },
];

/// `text` cut to `width` characters, the cut marked with `~`.
fn table_line(row: &Row, cols: &[&Column], id_width: usize) -> String {
    let mut s = padded(&row.id, id_width);
    for c in cols {
        s.push(' ');
        // A queued instance has no figures yet.
        let v = if row.state == State::Queued && c.head != "state" {
            "-".to_string()
        } else {
            (c.cell)(row)
        };
        s.push_str(&format!(
            "{:>w$}",
            padded(&v, c.width).trim_end(),
            w = c.width
        ));
    }
    s
}

/// The screen, from `v` alone.
pub fn draw(f: &mut Frame, v: &BatchView, theme: &Theme, keymap: &Keymap) {
    let area = f.area();
    let shown = v.shown();
    // The selected row's words take the lines they wrap to (up to a third of the screen: an
    // error, such as a budget stop, runs long), so nothing is cut.
    let below = detail(v, &shown, theme);
    let most = usize::from(area.height / 3).max(5);
    let below_h = below
        .as_ref()
        .map_or(1, |p| p.line_count(area.width).clamp(1, most) as u16);
    let [head, table, detail_area, foot] = Layout::vertical([
        Constraint::Length(3 + u16::from(v.about.is_some())),
        Constraint::Min(3),
        Constraint::Length(below_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let t = v.totals(&shown);
    let rate = |n: usize, of: usize| {
        if of == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * n as f64 / of as f64)
        }
    };
    let name = crate::bench::batch_dir::label(&v.dir);
    let mut title = format!(
        "Batch {name}: {} of {} instances ({}",
        t.shown,
        v.rows.len(),
        v.filter.describe()
    );
    if !v.search.query.is_empty() {
        title.push_str(&format!(", matching \"{}\"", v.search.query));
    }
    title.push_str(&format!(
        "; sorted by {}{})",
        v.sort.name(),
        if v.reverse { ", reversed" } else { "" }
    ));
    // What was spent, and what may be (the budgets cover every instance, whatever shows).
    let budget = match v.budgets {
        (Some(total), Some(each)) => format!(" (budget ${total:.2} total, ${each:.2} each)"),
        (Some(total), None) => format!(" (budget ${total:.2} total)"),
        (None, Some(each)) => format!(" (budget ${each:.2} each)"),
        (None, None) => String::new(),
    };
    let totals = format!(
        "done {}, running {}, queued {}{}, errors {} | F2P {}/{} ({}) | TDD {:.2} | ${:.3}{budget} | {} execs | fitness decided {}/{} cuts",
        t.done,
        t.running,
        t.queued,
        if t.stopped > 0 {
            format!(", stopped {}", t.stopped)
        } else {
            String::new()
        },
        t.errors,
        t.f2p,
        t.done,
        rate(t.f2p, t.done),
        if t.done > 0 {
            t.tdd_score / t.done as f64
        } else {
            0.0
        },
        t.cost_usd,
        t.executions,
        t.fitness_cuts,
        t.cuts
    );
    // The totals wrap rather than lose their end at 80 columns.
    f.render_widget(
        Paragraph::new(
            [
                Some(Line::styled(title, theme.style(Role::Title))),
                v.about
                    .as_ref()
                    .map(|a| Line::styled(a.clone(), theme.style(Role::Dim))),
                Some(Line::styled(totals, theme.style(Role::Text))),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>(),
        )
        .wrap(Wrap { trim: false }),
        head,
    );
    if v.figures {
        draw_figures(f, &shown, table, theme);
    } else {
        draw_table(f, v, &shown, table, theme);
    }
    if let Some(p) = below {
        f.render_widget(p, detail_area);
    }
    let footer = match v.search.prompt_line() {
        Some(line) => line,
        None => {
            let key = |name: &str| {
                keymap
                    .keys(KeyContext::Batch, name)
                    .first()
                    .cloned()
                    .unwrap_or_default()
            };
            format!(
                " {} open  {} sort  {} reverse  {} filter  {} figures  {} search  {} clear  {} quit",
                key("open"),
                key("sort_rows"),
                key("reverse_sort"),
                key("filter_rows"),
                key("figures"),
                key("search"),
                key("back"),
                key("quit")
            )
        }
    };
    f.render_widget(
        Paragraph::new(footer).style(theme.style(Role::Footer)),
        foot,
    );
}

fn draw_table(f: &mut Frame, v: &BatchView, shown: &[&Row], area: Rect, theme: &Theme) {
    let cols: Vec<&Column> = COLUMNS
        .iter()
        .filter(|c| area.width >= c.min_width)
        .collect();
    let fixed: usize = cols.iter().map(|c| c.width + 1).sum();
    let id_width = usize::from(area.width.saturating_sub(2))
        .saturating_sub(fixed)
        .max(8);
    let mut head = padded("instance", id_width);
    for c in &cols {
        head.push_str(&format!(" {:>w$}", c.head, w = c.width));
    }
    let rows_h = usize::from(area.height.saturating_sub(3));
    let at = v.cursor(shown);
    // The selected row stays in view, a page at a time.
    let top = at.saturating_sub(rows_h.saturating_sub(1));
    let mut lines = vec![Line::styled(head, theme.style(Role::Header))];
    for (i, r) in shown.iter().enumerate().skip(top).take(rows_h) {
        let role = if i == at {
            Role::Selected
        } else {
            match r.state {
                State::Error { .. } | State::EnvironmentError { .. } => Role::Error,
                State::Running { .. } => Role::Progress,
                State::Queued | State::Unsound { .. } | State::Interrupted { .. } => Role::Dim,
                State::Done => Role::Text,
            }
        };
        lines.push(Line::styled(
            table_line(r, &cols, id_width),
            theme.style(role),
        ));
    }
    if shown.is_empty() {
        lines.push(Line::styled(
            "no instance matches (Esc clears the search, then the filter)",
            theme.style(Role::Dim),
        ));
    }
    let title = format!(
        " rows {}-{} of {} ",
        (top + 1).min(shown.len()),
        (top + rows_h).min(shown.len()),
        shown.len()
    );
    f.render_widget(
        Paragraph::new(lines).block(
            Block::bordered()
                .title(title)
                .border_style(theme.style(Role::Border)),
        ),
        area,
    );
}

/// The paper's figures of the finished rows shown, as `bench --figures` draws them: the
/// share of F2P tests per generation (Fig. 6), what decided the cuts (Table IX), and on a wide
/// terminal the F2P tests per instance initially and last (Fig. 7).
fn draw_figures(f: &mut Frame, shown: &[&Row], area: Rect, theme: &Theme) {
    use crate::bench::figures;
    use ratatui::widgets::{Bar, BarChart, BarGroup};
    let facts: Vec<(figures::InstanceFacts, String)> = shown
        .iter()
        .filter_map(|r| r.facts.clone().map(|x| (x, r.settings.clone())))
        .collect();
    let block = |title: String| {
        Block::bordered()
            .title(title)
            .border_style(theme.style(Role::Border))
    };
    if facts.is_empty() {
        f.render_widget(
            Paragraph::new("no finished instance among the rows shown")
                .block(block(" figures ".into())),
            area,
        );
        return;
    }
    let n = facts.len();
    let batch = [figures::batch_facts("shown".into(), facts)];
    let wide = area.width >= 100;
    // On a tall terminal a second row: the paper's Figs. 4 and 5 per phase.
    let (area, phases) = if area.height >= 24 {
        let [top, bottom] =
            Layout::vertical([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(area);
        (top, Some(bottom))
    } else {
        (area, None)
    };
    if let Some(bottom) = phases {
        draw_phase_figures(f, &batch, bottom, theme);
    }
    let areas = Layout::horizontal(if wide {
        vec![Constraint::Ratio(1, 3); 3]
    } else {
        vec![Constraint::Ratio(1, 2); 2]
    })
    .split(area);
    let width = |a: Rect, bars: usize| {
        let n = u16::try_from(bars.max(1)).unwrap_or(u16::MAX);
        (a.width.saturating_sub(2).saturating_sub(n) / n).clamp(1, 6)
    };
    // Fig. 6: per generation, the share of F2P tests, in percent.
    let share = figures::f2p_share(&batch);
    let bars: Vec<Bar> = share
        .rows
        .iter()
        .map(|r| {
            let pct = (r[4].parse::<f64>().unwrap_or(0.0) * 100.0).round() as u64;
            Bar::default()
                .value(pct)
                .label(Line::from(format!("g{}", r[1])))
                .text_value(format!("{pct}%"))
                .style(theme.style(Role::Kept))
        })
        .collect();
    f.render_widget(
        BarChart::default()
            .block(block(format!(" F2P tests per generation, {n} instances ")))
            .data(BarGroup::default().bars(&bars))
            .bar_width(width(areas[0], bars.len()))
            .bar_gap(1)
            .max(100)
            .value_style(theme.style(Role::Selected)),
        areas[0],
    );
    // Table IX: what decided the cuts.
    let cuts = figures::cuts(&batch);
    let bars: Vec<Bar> = cuts
        .rows
        .iter()
        .map(|r| {
            let v = r[2].parse::<u64>().unwrap_or(0);
            Bar::default()
                .value(v)
                .label(Line::from(r[1].chars().take(3).collect::<String>()))
                .text_value(v.to_string())
                .style(theme.style(Role::Header))
        })
        .collect();
    f.render_widget(
        BarChart::default()
            .block(block(" cuts decided by ".into()))
            .data(BarGroup::default().bars(&bars))
            .bar_width(width(areas[1], bars.len()))
            .bar_gap(1)
            .value_style(theme.style(Role::Selected)),
        areas[1],
    );
    if wide {
        // Fig. 7: instances with k F2P tests, initially and in the last generation.
        let per = figures::f2p_per_instance(&batch);
        let mut chart = BarChart::default()
            .block(block(" F2P tests: initial, last ".into()))
            .bar_width(1)
            .bar_gap(0)
            .group_gap(1)
            .value_style(theme.style(Role::Selected));
        for r in &per.rows {
            let v = |i: usize| r[i].parse::<u64>().unwrap_or(0);
            chart = chart.data(BarGroup::default().label(Line::from(r[1].clone())).bars(&[
                Bar::default().value(v(2)).style(theme.style(Role::Header)),
                Bar::default().value(v(3)).style(theme.style(Role::Kept)),
            ]));
        }
        f.render_widget(chart, areas[2]);
    }
}

/// The paper's Fig. 4 (mean selection accuracy per cut, in percent) and Fig. 5 (mean kills of
/// F2P tests and of the others per cut) of the rows shown, side by side.
fn draw_phase_figures(
    f: &mut Frame,
    batch: &[crate::bench::figures::BatchFacts],
    area: Rect,
    theme: &Theme,
) {
    use crate::bench::paper_tables;
    use ratatui::widgets::{Bar, BarChart, BarGroup};
    let [left, right] =
        Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(area);
    let block = |title: &str| {
        Block::bordered()
            .title(title.to_string())
            .border_style(theme.style(Role::Border))
    };
    let num = |x: &str| x.parse::<f64>().ok();
    let acc = paper_tables::selection_accuracy(batch);
    let bars: Vec<Bar> = acc
        .rows
        .iter()
        .map(|r| {
            let pct = num(&r[3]).map_or(0, |a| (a * 100.0).round() as u64);
            Bar::default()
                .value(pct)
                .label(Line::from(format!("p{}", r[1])))
                .text_value(num(&r[3]).map_or("-".into(), |_| format!("{pct}%")))
                .style(theme.style(Role::Kept))
        })
        .collect();
    f.render_widget(
        BarChart::default()
            .block(block(" selection accuracy per phase (Fig. 4) "))
            .data(BarGroup::default().bars(&bars))
            .bar_width(5)
            .bar_gap(1)
            .max(100)
            .value_style(theme.style(Role::Selected)),
        left,
    );
    let kills = paper_tables::kills(batch);
    let mut chart = BarChart::default()
        .block(block(" kills: F2P tests, others (Fig. 5) "))
        .bar_width(3)
        .bar_gap(0)
        .group_gap(2)
        .value_style(theme.style(Role::Selected));
    for r in &kills.rows {
        let v = |i: usize| num(&r[i]).map_or(0, |k| k.round() as u64);
        chart = chart.data(
            BarGroup::default()
                .label(Line::from(format!("p{}", r[1])))
                .bars(&[
                    Bar::default().value(v(3)).style(theme.style(Role::Kept)),
                    Bar::default().value(v(5)).style(theme.style(Role::Dropped)),
                ]),
        );
    }
    f.render_widget(chart, right);
}

/// What is said below the table: a failure to open an instance, or the selected row in words.
fn detail<'a>(v: &BatchView, shown: &[&Row], theme: &Theme) -> Option<Paragraph<'a>> {
    if let Some(n) = &v.notice {
        return Some(
            Paragraph::new(n.clone())
                .wrap(Wrap { trim: false })
                .style(theme.style(Role::Error)),
        );
    }
    let r = shown.get(v.cursor(shown))?;
    let mut text = format!(
        "{} ({}): {}",
        r.id,
        if r.repo.is_empty() { "-" } else { &r.repo },
        r.state.word()
    );
    if let Some(d) = r.state.detail() {
        text.push_str(&format!(" ({d})"));
    }
    if let Some(t) = &r.task {
        text.push_str(&format!("; {}", task_words(t)));
    }
    // Verdicts are a finished instance's; the figures so far are any run's (a queued
    // instance has none: the table shows `-`).
    if r.state == State::Done {
        text.push_str(&format!(
            "; F2P {}, TDD-Bench score {:.2}, SWT-bench {}, coverage of the golden lines {}",
            if r.f2p() { "yes" } else { "no" },
            r.line.tdd_score,
            if r.line.swt { "yes" } else { "no" },
            r.line
                .coverage
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0)),
        ));
    }
    if r.state != State::Queued {
        text.push_str(&format!(
            // Every other column of the table in words (a narrow table leaves some out).
            "; {} of {} cuts decided by fitness, {} model calls, {} tokens in / {} out, {} \
             executions, wall {}",
            r.fitness_cuts,
            r.cuts,
            r.line.model_calls,
            r.line.tokens_in,
            r.line.tokens_out,
            r.line.executions,
            wall(r.line.wall_seconds)
        ));
    }
    text.push_str(match (&r.session, &r.state) {
        (None, _) => "; no session yet",
        (Some(_), State::Running { .. }) => "; Enter shows its session as it stands",
        (Some(_), _) => "; Enter opens its session",
    });
    Some(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .style(theme.style(Role::Dim)),
    )
}
