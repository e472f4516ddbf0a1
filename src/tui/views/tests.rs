//! The screens drawn into a test backend: insta snapshots and what a user would read.

use super::common::*;
use super::frame::*;
use super::grid_cells;
use super::timeline::*;
use super::*;
use crate::tui::action::Action;
use crate::tui::highlight::Highlighter;
use crate::tui::keymap::Keymap;
use crate::tui::state::fixture;
use crate::tui::state::{CellView, ColumnFilter, Screen, State};
use crate::tui::state::{GRID_CELL_WIDTH, GRID_ROW_HEADER};
use crate::tui::theme::Theme;
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
        Action::Model,
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
                    CellView::Killed(crate::engine::kill::Cell::Survived) | CellView::NotReached
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
    update(&mut s, Action::Model);
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
        named += usize::from(format!("{}", drawn(&w, &l).backend()).contains("(scope: caller)"));
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
    let letter = grid_cells::kind_letter(k);
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
            let want = l.theme.style(grid_cells::role(cv)).fg;
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

/// The tab line names the keys the keymap binds: a user who moved the Model screen to `M`
/// reads `M Model`, not a number that no longer does anything.
#[test]
fn the_tab_line_shows_the_keys_as_bound() {
    let s = state(120, 36);
    let tabs = |l: &Looks| {
        let text = drawn(&s, l).backend().to_string();
        text.lines().next().unwrap_or_default().to_string()
    };
    let l = looks();
    assert!(tabs(&l).contains(" 1 Timeline  2 Grid "), "{}", tabs(&l));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keymap.toml");
    std::fs::write(&path, "[global]\nmodel = \"M\"\ngrid = []\n").unwrap();
    let rebound = Looks {
        keymap: Keymap::load(Some(&path)).unwrap(),
        ..looks()
    };
    let line = tabs(&rebound);
    assert!(line.contains(" M Model "), "{line}");
    assert!(
        line.contains(" Grid ") && !line.contains(" 2 Grid"),
        "{line}"
    );
    assert!(!line.contains(" 6 Model"), "{line}");
}
