//! A session as plain text, as `evootter show` prints it: the generations with their kill
//! matrices, each test's fate at its gate and the cut's explanation. A library function so
//! that what `show` says can be checked beside what the screens say.

use super::cell_view::{CellView, KillMatrix};
use super::explain::explain_cut;
use super::session::{MutantId, SessionDoc};
use std::fmt::Write;

/// `writeln!` into a `String`, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The legend of a matrix: the glyph and words of each view it holds, in the TUI's order.
fn legend(m: &KillMatrix) -> String {
    CellView::LEGEND
        .iter()
        .filter(|v| m.cells.iter().flatten().any(|c| c == *v))
        .map(|v| format!("{} {}", v.glyph(), v.name()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What `evootter show` prints of a session without options: its generations, each with
/// its kill matrix, each test's kills and fate at the gate, the cut and its explanation, then
/// the final test and the model's calls. `Err` names a generation that does not exist.
pub fn matrices(doc: &SessionDoc, only: Option<usize>) -> Result<String, String> {
    let mut out = String::new();
    write_matrices(&mut out, doc, only)?;
    Ok(out)
}

fn write_matrices(out: &mut String, doc: &SessionDoc, only: Option<usize>) -> Result<(), String> {
    // A generation that does not exist is an error before anything is printed.
    let gens: Vec<usize> = match only {
        Some(g) if g >= doc.generations.len() => {
            return Err(format!(
                "generation {g} does not exist (the session has {})",
                doc.generations.len()
            ));
        }
        Some(g) => vec![g],
        None => (0..doc.generations.len()).collect(),
    };
    w!(
        out,
        "session of {} ({}), phase: {}",
        doc.inputs.instance.as_deref().unwrap_or("a repository"),
        doc.inputs.repo.display(),
        doc.phase
    );
    if !doc.config.method.mutates() {
        w!(out, "method {}: {}", doc.config.method, doc.method_words());
    }
    if let Some(p) = &doc.config.preset {
        w!(out, "preset {p}");
    }
    for line in crate::engine::repair::chain_lines(doc) {
        w!(out, "{line}");
    }
    if let Some(kinds) = &doc.config.mutant_kinds {
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        w!(out, "mutant kinds: only {}", names.join(", "));
    }
    // A method without mutants says how it picks in its own line.
    let mutates = doc.config.method.mutates();
    if mutates {
        w!(out, "{}", doc.config.fitness_words());
    }
    if let Some(pool) = doc.pool.as_ref().filter(|_| doc.config.method.mutates()) {
        w!(
            out,
            "mutant {}",
            crate::mutate::types::pool_words(
                pool.mutants.len(),
                pool.requested,
                pool.exhausted,
                doc.config.operators
            )
        );
    }
    let source = crate::engine::reach::from_disk(doc);
    for g in gens {
        let m = KillMatrix::of(doc, g, &source).ok_or_else(|| format!("generation {g}"))?;
        let gen_ = &doc.generations[g];
        if mutates {
            w!(
                out,
                "\ngeneration {g}: {} tests x {} mutants\n  cells: {}",
                m.tests.len(),
                m.mutants.len(),
                legend(&m)
            );
            for line in column_numbers(m.mutants.len()) {
                w!(out, "       {line}");
            }
        } else {
            w!(
                out,
                "\ngeneration {g}: {} tests, each run on c_old",
                m.tests.len()
            );
        }
        let gate = doc.gate(g);
        for (i, t) in m.tests.iter().enumerate() {
            let row: String = m.cells[i].iter().map(|c| c.glyph()).collect();
            let score = gen_.scores.get(t);
            // The word every screen shows for what became of it at the gate.
            let kept = gate.fate(t).label();
            let kills = match score {
                Some(s) if mutates => format!("  kills {:>2}", s.counted(&doc.config)),
                None if mutates => "  kills  0".to_string(),
                _ => String::new(),
            };
            w!(
                out,
                "  {t:>4} {row}{kills}  c_old {:<8} {:<7} {}{}",
                score.map_or("-".into(), |s| format!("{:?}", s.old_outcome)
                    .to_lowercase()),
                kept,
                doc.tests[t].name,
                if score.is_some_and(|s| s.flaky) {
                    "  (flaky)"
                } else {
                    ""
                }
            );
        }
        // As the Grid's bottom row: how many tests kill each column's mutant.
        if !m.mutants.is_empty() {
            let counts: Vec<String> = m.killed_by.iter().map(usize::to_string).collect();
            w!(out, "  killed by, column by column: {}", counts.join(" "));
        }
        print_columns(out, doc, &m.mutants);
        match explain_cut(doc, g) {
            Some(e) => e.lines.iter().for_each(|l| w!(out, "  {l}")),
            None => w!(out, "  not cut yet"),
        }
    }
    if let Some(t) = &doc.final_test {
        let f2p = doc.evaluation.get(t).map_or(String::new(), |e| {
            format!(", F2P: {}", if e.f2p { "yes" } else { "no" })
        });
        w!(out, "\nfinal test: {t} ({}){f2p}", doc.tests[t].name);
    }
    if let Some(llm) = &doc.config.llm {
        let t = crate::llm::CallTotals::of(&doc.llm_calls);
        // Recorded replies cost nothing and count no tokens: say so rather than $0.0000.
        let cost = if crate::llm::CallRecord::all_scripted(&doc.llm_calls) {
            "scripted replies, no cost".to_string()
        } else {
            format!("cost {}", t.cost_label())
        };
        w!(
            out,
            "model: {llm}, {} calls, {cost} (`--calls` lists them)",
            t.calls
        );
    }
    Ok(())
}

/// Column numbers above a matrix, one digit per column so the header is as narrow as the
/// rows: a tens line (from column 10 on) and a units line.
fn column_numbers(n: usize) -> Vec<String> {
    let digit = |d: usize| char::from(b'0' + (d % 10) as u8);
    let mut lines = vec![];
    if n >= 10 {
        lines.push(
            (1..=n)
                .map(|j| if j < 10 { ' ' } else { digit(j / 10) })
                .collect(),
        );
    }
    lines.push((1..=n).map(digit).collect());
    lines
}

/// What each column of a matrix is: enough to look a mutant up with `--mutant ID`.
fn print_columns(out: &mut String, doc: &SessionDoc, ids: &[MutantId]) {
    if ids.is_empty() {
        return;
    }
    let pool = doc.pool.as_ref().map_or(&[][..], |p| p.mutants.as_slice());
    let found: Vec<_> = ids
        .iter()
        .map(|id| pool.iter().find(|m| &m.id == id))
        .collect();
    let wheres: Vec<String> = found
        .iter()
        .map(|m| m.map_or(String::new(), |m| format!("{}:{}", m.file, m.line)))
        .collect();
    let width = wheres.iter().map(String::len).max().unwrap_or(0);
    w!(out, "  columns (the pool order of `evootter mutants`):");
    for (j, (id, m)) in ids.iter().zip(&found).enumerate() {
        match m {
            Some(m) => w!(
                out,
                "  {:>4}  {id}  {:<21} {:<width$}  {}",
                j + 1,
                m.kind.as_str(),
                wheres[j],
                m.function
            ),
            None => w!(out, "  {:>4}  {id}  (not in the session's pool)", j + 1),
        }
    }
}
