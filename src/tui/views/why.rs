//! The Why screen: why a test did or did not kill a mutant, in the engine's reasons
//! ([`crate::engine::kill_reasons`]) said with this workbench's keys for where to look further,
//! and what a traced re-run of the pair showed.

use super::common::*;
use super::grid_cells;
use crate::engine::SessionDoc;
use crate::engine::kill_reasons::{Hint, Reason};
use crate::engine::pair;
use crate::engine::pair::Pair;
use crate::engine::reach::Source;
use crate::tui::action::Rerun;
use crate::tui::state::Screen;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub(super) fn draw_why(f: &mut Frame, c: &Ctx, area: Rect) {
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
            Span::styled(cell.glyph().to_string(), t.style(grid_cells::role(cell))),
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
                Some(Ok(run)) => rerun_text(&s.doc, &m, run, &|f| s.source(f)),
                Some(Err(e)) => format!("could not run it: {e}"),
            };
            for l in text.lines() {
                lines.push(Line::raw(l.to_string()));
            }
            lines.push(Line::raw(""));
        }
        let width = usize::from(area.width.saturating_sub(2));
        for l in reasons(&s.doc, g, &p, &|f| s.source(f), !s.read_only) {
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

/// The reasons for pair `p` as the Why screen prints them, one line each; where the pair
/// can be traced again (`can_trace`: not in a read-only session), the last says how.
fn reasons(
    doc: &SessionDoc,
    g: usize,
    p: &Pair<'_>,
    source: Source<'_>,
    can_trace: bool,
) -> Vec<String> {
    let mut out: Vec<String> = crate::engine::kill_reasons::reasons(doc, g, p, source)
        .into_iter()
        .map(|r| worded(r, can_trace))
        .collect();
    if can_trace && p.old.is_some() && p.run.is_some() && !p.cell.is_some_and(|c| c.is_kill()) {
        out.push(
            "Enter runs the pair again now under a line tracer: which lines of the mutated \
             file the test runs"
                .into(),
        );
    }
    out
}

fn worded(r: Reason, can_trace: bool) -> String {
    match (r.text.is_empty(), r.hint) {
        (_, None) => r.text,
        (_, Some(Hint::Trace)) if !can_trace => r.text,
        (true, Some(Hint::WholeDiff)) => {
            "the Pair screen (Enter on the Grid) shows the whole diff".into()
        }
        (_, Some(Hint::RawLogs)) => {
            format!("{}; `v` on the Pair screen shows the raw logs", r.text)
        }
        (_, Some(Hint::Trace)) => format!(
            "{} (Enter traces whether it runs the mutated line itself)",
            r.text
        ),
        (false, Some(Hint::WholeDiff)) => {
            format!("{}; the Pair screen shows the whole diff", r.text)
        }
    }
}

/// What a traced re-run of a pair showed: the verdict, then the mutated file around the
/// mutant's line (from `source`, its `c_old` text) with the lines that ran on `c_old` marked
/// `>` (and `*` where only the mutant run reached them), and the ranges that ran.
fn rerun_text(doc: &SessionDoc, mutant: &str, run: &Rerun, source: Source<'_>) -> String {
    let mut out = format!(
        "c_old {:?}, mutant {:?}: {}\n",
        run.old,
        run.mutant,
        run.cell.verdict()
    );
    let Some(m) = doc
        .pool
        .as_ref()
        .and_then(|p| p.mutants.iter().find(|x| x.id == mutant))
    else {
        return out;
    };
    let Some((old, new)) = &run.lines else {
        out.push_str("(this executor cannot trace lines)\n");
        return out;
    };
    let reached = old.contains(&(m.line as u32));
    out.push_str(&format!(
        "traced {}: on c_old the test {} the mutated line {}; on the mutant it {}\n",
        m.file,
        if reached { "runs" } else { "never runs" },
        m.line,
        if new.contains(&(m.line as u32)) {
            "runs it"
        } else {
            "never runs it"
        }
    ));
    out.push_str(&format!(
        "lines that ran on c_old: {}\n",
        crate::engine::reach::ranges(old)
    ));
    if let Some(src) = source(&m.file) {
        let lines: Vec<&str> = src.lines().collect();
        let from = m.line.saturating_sub(4).max(1);
        let to = (m.line + 4).min(lines.len());
        for n in from..=to {
            let mark = match (old.contains(&(n as u32)), new.contains(&(n as u32))) {
                (true, _) => '>',
                (false, true) => '*',
                _ => ' ',
            };
            let here = if n == m.line { "<- mutated" } else { "" };
            out.push_str(&format!(
                "{mark} {n:>4} | {} {here}\n",
                lines.get(n - 1).copied().unwrap_or("")
            ));
        }
    }
    out
}
