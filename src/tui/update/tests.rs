//! The reducer driven by actions as the app sends them: replays, the context rules, acts.

use super::context::*;
use super::*;
use crate::engine::{ActRequest, Event, Phase, SessionDoc, Target, TestId};
use crate::tui::action::{Action, Effect};
use crate::tui::state::fixture;
use crate::tui::state::{
    Asking, CellView, ColumnFilter, Confirmed, Editing, Prompt, Screen, State,
};
use crate::workbench::Command;
use std::sync::Arc;

/// A finished session of the scripted engine: four tests of a small function, real
/// mutants, scripted results (no Python).
fn doc() -> SessionDoc {
    fixture::finished_session()
}

/// The finished session as if paused at generation `g`'s gate, on the Grid.
fn paused_on_the_grid(g: usize) -> State {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: g };
    let mut s = State::new(Arc::new(d), false, 40);
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::Paused { generation: g }),
        },
    );
    update(&mut s, Action::Grid);
    s
}

fn state() -> State {
    let mut s = State::new(Arc::new(doc()), false, 40);
    update(
        &mut s,
        Action::Resize {
            width: 120,
            height: 36,
        },
    );
    s
}

/// At a gate, Curate lists the gate's generation, whichever one the Grid was showing.
#[test]
fn curate_lists_the_gates_generation() {
    let mut s = paused_on_the_grid(1);
    update(&mut s, Action::PrevGeneration);
    assert_eq!(s.grid().unwrap().generation, 0);
    update(&mut s, Action::Curate);
    let mut listed = s.curate_list();
    listed.sort();
    let mut gate = s.doc.generations[1].tests.clone();
    gate.sort();
    assert_eq!(listed, gate);
}

/// A page is the pane's rows less one: at 80x24 Curate's log pane has 7, and paging by
/// the terminal's height skipped lines 8-16.
#[test]
fn a_page_is_what_the_pane_shows() {
    let mut s = state();
    update(
        &mut s,
        Action::Resize {
            width: 80,
            height: 24,
        },
    );
    update(&mut s, Action::Curate);
    let measure = crate::tui::state::Measure {
        lines: 62,
        rows: 7,
        ..crate::tui::state::Measure::default()
    };
    update(
        &mut s,
        Action::Measured {
            screen: Screen::Curate,
            measure,
        },
    );
    update(&mut s, Action::PageDown);
    assert_eq!(s.scroll_of(Screen::Curate).top, 6);
    update(&mut s, Action::PageDown);
    assert_eq!(s.scroll_of(Screen::Curate).top, 12);
    update(&mut s, Action::PageUp);
    assert_eq!(s.scroll_of(Screen::Curate).top, 6);
}

#[test]
fn tab_cycles_screens_and_esc_goes_back() {
    let mut s = state();
    assert_eq!(s.screen, Screen::Grid);
    update(&mut s, Action::NextScreen);
    assert_eq!(s.screen, Screen::Pair);
    update(&mut s, Action::PrevScreen);
    update(&mut s, Action::PrevScreen);
    assert_eq!(s.screen, Screen::Timeline);
    update(&mut s, Action::Back);
    assert_eq!(s.screen, Screen::Grid);
    update(&mut s, Action::Help);
    update(&mut s, Action::Back);
    assert!(!s.help, "Esc closes the help first");
}

#[test]
fn the_selection_stays_inside_the_grid() {
    let mut s = state();
    let g = s.grid().unwrap();
    for _ in 0..100 {
        update(&mut s, Action::Right);
        update(&mut s, Action::Down);
    }
    assert_eq!((s.row, s.col), (g.tests.len() - 1, g.mutants.len() - 1));
    for _ in 0..100 {
        update(&mut s, Action::Left);
        update(&mut s, Action::Up);
    }
    assert_eq!((s.row, s.col), (0, 0));
    update(&mut s, Action::Last);
    assert_eq!(s.row, g.tests.len() - 1);
}

#[test]
fn running_and_finished_cells_follow_the_events() {
    let mut s = state();
    let (test, m) = s.selected_pair().unwrap();
    let key = crate::engine::exec_key(&s.doc.tests[&test].hash, &Target::Mutant(m.clone()));
    let g = s.shown_generation().unwrap();
    let before = s.cell(g, &test, &m);
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::ExecutionStarted {
                generation: Some(g),
                test: test.clone(),
                target: Target::Mutant(m.clone()),
                key: key.clone(),
            }),
        },
    );
    assert_eq!(s.cell(g, &test, &m), CellView::Running);
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::ExecutionDone {
                generation: Some(g),
                test: test.clone(),
                target: Target::Mutant(m.clone()),
                outcome: crate::exec::Outcome::Failed,
                killed: Some(true),
                cell: None,
                key,
                done: 1,
                total: 2,
                kills: 1,
                timeouts: 0,
            }),
        },
    );
    assert_eq!(s.cell(g, &test, &m), before);
    assert_eq!(s.progress.unwrap().done, 1);
}

#[test]
fn acts_wait_for_the_gate_and_a_read_only_session_runs_nothing() {
    let mut s = state();
    assert!(update(&mut s, Action::Veto).is_empty());
    assert!(s.messages.last().unwrap().contains("gate"));
    let mut ro = State::new(Arc::new(doc()), true, 40);
    // The first action also asks for the focal files' sources.
    assert!(matches!(
        &update(&mut ro, Action::Timeline)[..],
        [Effect::ReadSources { .. }]
    ));
    assert!(update(&mut ro, Action::Step).is_empty());
    assert!(ro.messages.last().unwrap().contains("read-only"));
    assert!(update(&mut s, Action::Step).is_empty());
    assert!(s.messages.last().unwrap().contains("finished"));
}

/// A note said as the session opens (a call waiting in a provider batch) is not wiped by
/// the gate's own message that follows it; the user's next act clears both.
#[test]
fn a_note_at_opening_stays_above_the_gate_message() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 1 };
    let mut s = State::new(Arc::new(d), false, 40);
    for event in [
        Event::Note {
            message: "a call of this run waits in llm batch msgbatch_1".into(),
        },
        Event::Paused { generation: 1 },
    ] {
        update(
            &mut s,
            Action::Event {
                event: Box::new(event),
            },
        );
    }
    let said = s.notice.clone().unwrap();
    assert!(said.starts_with("note: a call of this run waits"), "{said}");
    assert!(
        said.contains("\npaused before generation 1's crossover"),
        "{said}"
    );
    update(&mut s, Action::ToggleRaw);
    assert_eq!(s.notice, None);
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::Paused { generation: 2 }),
        },
    );
    let said = s.notice.clone().unwrap();
    assert!(said.starts_with("paused before generation 2"), "{said}");
}

#[test]
fn at_the_gate_keys_become_acts() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 1 };
    let mut s = State::new(Arc::new(d), false, 40);
    // Where the last gate's list was left.
    s.curate_row = 1;
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::Paused { generation: 1 }),
        },
    );
    assert_eq!(s.at_gate(), Some(1));
    assert_eq!(s.curate_row, 0, "a new gate starts at its first parent");
    let first = s.curate_list()[0].clone();
    // From a screen that is not the Grid, an act is on the Curate list's test and shows
    // that list.
    update(&mut s, Action::Timeline);
    assert_eq!(
        update(&mut s, Action::Veto),
        [Effect::Send(Command::Act(ActRequest::Veto {
            test: first.clone()
        }))]
    );
    assert_eq!(s.screen, Screen::Curate);
    match &update(&mut s, Action::Edit)[..] {
        [Effect::OpenEditor { text }] => {
            assert_eq!(
                s.editor.as_ref().map(|e| &e.purpose),
                Some(&Editing::Edit(first.clone()))
            );
            assert_eq!(text, &s.doc.tests[&first].source);
        }
        other => panic!("{other:?}"),
    }
    // Esc with the text unchanged closes at once.
    let unchanged = s.editor.as_ref().unwrap().original.clone();
    update(&mut s, Action::EditorCancelled { source: unchanged });
    assert_eq!(s.editor, None);
    assert_eq!(
        update(&mut s, Action::AddFile),
        [Effect::OpenEditor {
            text: String::new()
        }]
    );
    assert_eq!(s.editor.as_ref().map(|e| &e.purpose), Some(&Editing::Path));
    update(
        &mut s,
        Action::EditorCancelled {
            source: "/typed/but/not/saved".into(),
        },
    );
    assert_eq!(s.editor, None, "a path typed is no work lost");
    assert_eq!(
        update(&mut s, Action::Continue),
        [Effect::Send(Command::Continue)]
    );
}

#[test]
fn filters_cycle_and_sorting_orders_rows_by_fitness() {
    let mut s = state();
    // Generation 0: four tests, one of them passing on c_old with the most kills.
    update(&mut s, Action::Timeline);
    update(&mut s, Action::Left);
    update(&mut s, Action::Grid);
    let all = s.grid().unwrap().mutants.len();
    update(&mut s, Action::FilterColumns);
    assert_eq!(s.filter, ColumnFilter::Survivors);
    assert!(s.grid().unwrap().mutants.len() <= all);
    for _ in 0..20 {
        update(&mut s, Action::FilterColumns);
        if s.filter == ColumnFilter::All {
            break;
        }
    }
    assert_eq!(s.filter, ColumnFilter::All, "the cycle comes back");
    update(&mut s, Action::SortRows);
    let g = s.grid().unwrap();
    let gen_ = &s.doc.generations[g.generation];
    // As the BRT rule ranks: every test failing on c_old above every passing one, then
    // by kills (t3 passes on c_old and kills the most, so it comes third, not first).
    let keys: Vec<(bool, usize)> = g
        .tests
        .iter()
        .map(|t| {
            let passes =
                s.doc.execution(t, &Target::Old).unwrap().outcome == crate::exec::Outcome::Passed;
            (passes, gen_.scores[t].kills.len())
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    assert_eq!(keys, sorted);
    assert!(
        keys[0].1 < keys.iter().map(|k| k.1).max().unwrap(),
        "{keys:?}"
    );
}

#[test]
fn pinning_a_test_that_passes_on_c_old_says_it_cannot_reproduce_the_bug() {
    let mut s = paused_on_the_grid(0);
    while s.grid().unwrap().generation > 0 {
        update(&mut s, Action::PrevGeneration);
    }
    let tests = s.grid().unwrap().tests;
    let passes = |t: &TestId| {
        s.doc.execution(t, &Target::Old).unwrap().outcome == crate::exec::Outcome::Passed
    };
    let (pass, fail) = (
        tests.iter().position(passes).unwrap(),
        tests.iter().position(|t| !passes(t)).unwrap(),
    );
    for (row, warned) in [(pass, true), (fail, false)] {
        s.row = row;
        update(&mut s, Action::Pin);
        let asked = s.confirm.take().unwrap().question;
        assert!(
            asked.starts_with(&format!("pin {} ", tests[row])),
            "{asked}"
        );
        assert_eq!(
            asked.contains("it passes on c_old, so it cannot reproduce the bug"),
            warned,
            "{asked}"
        );
    }
}

#[test]
fn the_selection_follows_the_test_and_mutant_through_sorts_filters_and_generations() {
    // Generation order t1..t4; by fitness t3 (fails, kills the most), t1, t2, t4.
    let cands = [
        ("test_a.py", "# FAILS KILLS 01\ndef test_a(): pass\n"),
        (
            "test_b.py",
            "# KILLS 0123456789abcdef\ndef test_b(): pass\n",
        ),
        (
            "test_c.py",
            "# FAILS KILLS 0123456789abcdef\ndef test_c(): pass\n",
        ),
        ("test_d.py", "def test_d(): pass\n"),
    ];
    let cfg = crate::testkit::config(crate::engine::SelectionStrategy::Mutation);
    let mut s = State::new(
        Arc::new(crate::testkit::scripted_run(&cands, cfg)),
        false,
        40,
    );
    update(
        &mut s,
        Action::Resize {
            width: 120,
            height: 36,
        },
    );
    update(&mut s, Action::Grid);
    while s.grid().unwrap().generation > 0 {
        update(&mut s, Action::PrevGeneration);
    }
    let unsorted = s.grid().unwrap().tests;
    update(&mut s, Action::SortRows);
    let sorted = s.grid().unwrap().tests;
    update(&mut s, Action::SortRows);
    assert_ne!(
        unsorted, sorted,
        "the sort moves some test, or this proves nothing"
    );
    for r in 0..unsorted.len() {
        s.row = r;
        s.col = r % s.grid().unwrap().mutants.len();
        let chosen = s.selected_pair().unwrap();
        update(&mut s, Action::SortRows);
        assert_eq!(s.selected_pair(), Some(chosen.clone()), "row {r}, sorted");
        update(&mut s, Action::SortRows);
        assert_eq!(s.selected_pair(), Some(chosen), "row {r}, unsorted again");
    }
    // A filter keeps the selected mutant while it shows it, and the test always.
    let row_test = |s: &State| s.grid().unwrap().tests[s.row].clone();
    let test = row_test(&s);
    for _ in 0..4 {
        let before = s.selected_pair();
        update(&mut s, Action::FilterColumns);
        assert_eq!(row_test(&s), test, "filter {:?}", s.filter);
        if let Some((_, m)) = before
            && s.grid().unwrap().mutants.contains(&m)
        {
            assert_eq!(s.selected_pair(), Some((test.clone(), m)), "{:?}", s.filter);
        }
    }
    // A survivor of generation 0 stays selected on generation 1.
    let next = s.doc.generations[1].tests.clone();
    let g0 = s.grid().unwrap();
    s.row = g0.tests.iter().position(|t| next.contains(t)).unwrap();
    let (t, _) = s.selected_pair().unwrap();
    update(&mut s, Action::NextGeneration);
    assert_eq!(s.grid().unwrap().generation, 1);
    assert_eq!(s.selected_pair().unwrap().0, t);
}

#[test]
fn actions_serialize_for_replay() {
    let a = Action::Pair;
    let j = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<Action>(&j).unwrap(), a);
}

/// Replays a recorded list of actions (the serde form the app records with
/// EVOOTTER_RECORD_ACTIONS) through the reducer.
fn replay(s: &mut State, recorded: &str) -> Vec<Effect> {
    let actions: Vec<Action> = serde_json::from_str(recorded).unwrap();
    actions.into_iter().flat_map(|a| update(s, a)).collect()
}

#[test]
fn a_recorded_walk_through_the_screens_replays_to_the_same_state() {
    let recorded = r#"[
        {"action": "resize", "width": 100, "height": 30},
        {"action": "right"}, {"action": "down"}, {"action": "open"},
        {"action": "toggle_raw"}, {"action": "next_hunk"}, {"action": "back"},
        {"action": "sort_rows"}, {"action": "help"}, {"action": "page_down"},
        {"action": "back"}, {"action": "timeline"}, {"action": "left"},
        {"action": "transcript"}, {"action": "scroll", "lines": 3},
        {"action": "grid"}, {"action": "click", "column": 15, "row": 5},
        {"action": "sources_read", "sources": {"calc/ops.py": "def clamp(): pass\n"}}
    ]"#;
    let doc = Arc::new(doc());
    let (mut a, mut b) = (
        State::new(doc.clone(), false, 40),
        State::new(doc, false, 40),
    );
    let fx = replay(&mut a, recorded);
    assert_eq!(fx, replay(&mut b, recorded), "the same effects");
    assert_eq!(a, b, "the same state");
    assert_eq!(a.screen, Screen::Grid);
    // Esc from the Pair screen went back to the Grid, which is not remembered twice.
    assert_eq!(a.history, [Screen::Grid, Screen::Timeline, Screen::Model]);
    assert!(a.raw_log && a.sort_by_fitness && !a.help);
    assert_eq!(
        a.generation,
        Some(0),
        "`left` on the timeline: the generation before"
    );
    assert_eq!(a.scroll[Screen::Model.index()].top, 3);
    // The click lands on the cell under it: row 1 (y 5 = tab line, border, 2 header lines
    // for 8 mutants: a digit and the kind; row 0), column 1 (x 15 = border, 12 header
    // columns, one 2-wide cell).
    assert_eq!((a.row, a.col), (1, 1));
    assert_eq!(a.width, 100);
    assert_eq!(
        a.source("calc/ops.py").as_deref(),
        Some("def clamp(): pass\n")
    );
    // The pair's diff was made when the Pair screen opened, of the raw logs after `v`.
    let mut at_pair = State::new(a.doc.clone(), false, 40);
    let actions: Vec<Action> = serde_json::from_str(recorded).unwrap();
    for action in actions.into_iter().take(5) {
        update(&mut at_pair, action);
    }
    assert_eq!(at_pair.screen, Screen::Pair);
    let (t, m) = at_pair.selected_pair().unwrap();
    let old = a.doc.execution(&t, &Target::Old).unwrap();
    let run = a.doc.execution(&t, &Target::Mutant(m)).unwrap();
    assert_eq!(
        a.pair_diff.as_ref().map(|d| d.logs.clone()),
        Some((old.raw_log.clone(), run.raw_log.clone()))
    );
    // Nothing was asked of the workbench or the disk but the focal sources, once.
    assert!(matches!(&fx[..], [Effect::ReadSources { files, .. }] if files == &["calc/ops.py"]));
}

/// Two vetoes at gate `g` of a test selection dropped, the second undone: an undo and a
/// redo both have work there.
fn with_undo_and_redo(d: &mut SessionDoc, g: usize) {
    let gen_ = &d.generations[g];
    let dropped = gen_
        .tests
        .iter()
        .find(|t| !gen_.selected.contains(t))
        .cloned()
        .unwrap();
    let tests = [dropped.clone(), dropped];
    for kind in [
        crate::engine::ActKind::Veto {
            test: tests[0].clone(),
        },
        crate::engine::ActKind::Veto {
            test: tests[1].clone(),
        },
        crate::engine::ActKind::Undo {
            undone: d.acts.len() + 1,
            what: None,
        },
    ] {
        d.acts.push(crate::engine::Act {
            at_unix: 0,
            generation: g,
            kind,
        });
    }
}

#[test]
fn a_recorded_curation_replays_to_the_commands_the_workbench_gets() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 0 };
    d.acts.clear();
    with_undo_and_redo(&mut d, 0);
    let mut s = State::new(Arc::new(d), false, 40);
    let recorded = r#"[
        {"action": "event", "event": {"event": "paused", "generation": 0}},
        {"action": "curate"}, {"action": "down"}, {"action": "veto"},
        {"action": "edit"}, {"action": "editor_cancelled", "source": "changed"},
        {"action": "no"},
        {"action": "editor_saved", "source": "def test_x(:\n    pass"},
        {"action": "syntax_checked", "source": "def test_x(:\n    pass",
         "result": {"Ok": ["test_b.py:1:11: invalid syntax"]}},
        {"action": "editor_saved", "source": "def test_x(): pass"},
        {"action": "syntax_checked", "source": "def test_x(): pass", "result": {"Ok": []}},
        {"action": "add_file"}, {"action": "editor_saved", "source": " /no/such.py "},
        {"action": "file_read", "path": "/no/such.py", "result": {"Err": "not found"}},
        {"action": "add_file"}, {"action": "editor_saved", "source": "/tmp/test_mine.py"},
        {"action": "file_read", "path": "/tmp/test_mine.py", "result": {"Ok": "def test_m(): pass"}},
        {"action": "editor_saved", "source": "def test_m(): pass"},
        {"action": "syntax_checked", "source": "def test_m(): pass", "result": {"Err": "no python3"}},
        {"action": "pin"}, {"action": "no"}, {"action": "pin"}, {"action": "yes"},
        {"action": "undo"}, {"action": "redo"}, {"action": "continue"}
    ]"#;
    let mut effects = vec![];
    let actions: Vec<Action> = serde_json::from_str(recorded).unwrap();
    let mut editor_after_error = None;
    for a in actions {
        let was_check = matches!(&a, Action::SyntaxChecked { result: Ok(c), .. } if !c.is_empty());
        effects.extend(update(&mut s, a));
        if was_check {
            editor_after_error = s.editor.clone();
        }
    }
    let fx = effects;
    let second = s.curate_list()[1].clone();
    let sent: Vec<&Command> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::Send(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(
        sent,
        [
            &Command::Act(ActRequest::Veto {
                test: second.clone()
            }),
            &Command::Act(ActRequest::Edit {
                test: second.clone(),
                source: "def test_x(): pass\n".into()
            }),
            &Command::Act(ActRequest::Add {
                name: "test_mine.py".into(),
                source: "def test_m(): pass\n".into()
            }),
            &Command::Act(ActRequest::Pin {
                test: second.clone()
            }),
            &Command::Act(ActRequest::Undo),
            &Command::Act(ActRequest::Redo),
            &Command::Continue,
        ],
        "Esc on a changed text asked first; the edit that does not compile was not sent; \
         the first pin was answered no"
    );
    // The text that did not compile kept the editor open, with its error and line.
    let ed = editor_after_error.expect("the editor stayed open");
    assert_eq!(ed.purpose, Editing::Edit(second));
    assert_eq!(ed.error, Some((1, "invalid syntax".into())));
    assert!(
        fx.contains(&Effect::EditorCursor { line: 1 }),
        "the cursor goes to the line"
    );
    // A path that cannot be read opens the prompt again on it, to be corrected.
    assert!(
        fx.contains(&Effect::OpenEditor {
            text: "/no/such.py".into()
        }),
        "{fx:?}"
    );
    // Each save of a test was compiled first, with the session's interpreter.
    let checks = fx
        .iter()
        .filter(|f| matches!(f, Effect::CheckSyntax { python: Some(p), .. } if p.as_os_str() == "python3"))
        .count();
    assert_eq!(checks, 3);
    assert!(fx.contains(&Effect::ReadFile {
        path: "/no/such.py".into()
    }));
    assert!(
        s.messages
            .iter()
            .any(|m| m.contains("cannot read /no/such.py: not found"))
    );
    assert!(
        s.messages
            .iter()
            .any(|m| m.contains("could not compile the test to check it"))
    );
    assert_eq!(s.editor, None);
    assert_eq!(s.confirm, None);
    assert!(s.busy && s.paused_at.is_none());
}

/// The add template saved as it is (or with its placeholder kept) would fail on any code
/// and go to crossover: it stays in the editor with the placeholder's line marked.
#[test]
fn a_new_test_that_keeps_the_templates_placeholder_is_not_sent() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 0 };
    let mut s = State::new(Arc::new(d), false, 40);
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::Paused { generation: 0 }),
        },
    );
    let template = match &update(&mut s, Action::Add)[..] {
        [Effect::OpenEditor { text }] => text.clone(),
        other => panic!("{other:?}"),
    };
    let at = template
        .lines()
        .position(|l| l.contains("write the reproduction here"));
    let fx = update(
        &mut s,
        Action::EditorSaved {
            source: template.clone(),
        },
    );
    // Nothing checked or sent; the cursor goes to the placeholder's line.
    assert_eq!(
        fx,
        [Effect::EditorCursor {
            line: at.unwrap() + 1
        }]
    );
    let ed = s.editor.clone().expect("the editor stays open");
    assert_eq!(ed.error.map(|e| e.0), at.map(|i| i + 1));
    assert!(
        s.notice
            .as_deref()
            .unwrap_or_default()
            .contains("template's placeholder"),
        "{:?}",
        s.notice
    );
    // Replaced, it goes on to the compile check.
    let written = template.replace(
        "assert False, \"write the reproduction here\"",
        "assert 1 + 1 == 3",
    );
    let fx = update(&mut s, Action::EditorSaved { source: written });
    assert!(matches!(&fx[..], [Effect::CheckSyntax { .. }]), "{fx:?}");
}

#[test]
fn a_traced_rerun_is_asked_for_and_shown_only_for_its_own_pair() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 0 };
    let mut s = State::new(Arc::new(d), false, 40);
    update(&mut s, Action::Why);
    let fx = update(&mut s, Action::Open);
    let (test, mutant) = s.selected_pair().unwrap();
    assert!(fx.contains(&Effect::RunPair {
        test: test.clone(),
        mutant: mutant.clone(),
        file: "calc/ops.py".into()
    }));
    assert_eq!(s.rerun.as_ref().unwrap().result, None, "running");
    let other = Action::PairRan {
        test: "t9".into(),
        mutant: mutant.clone(),
        result: Err("late".into()),
    };
    update(&mut s, other);
    assert_eq!(
        s.rerun.as_ref().unwrap().result,
        None,
        "a stale answer is dropped"
    );
    update(
        &mut s,
        Action::PairRan {
            test,
            mutant,
            result: Err("no executor".into()),
        },
    );
    assert_eq!(
        s.rerun.as_ref().unwrap().result,
        Some(Err("no executor".into()))
    );
    let mut ro = State::new(Arc::new(doc()), true, 40);
    update(&mut ro, Action::Why);
    assert!(update(&mut ro, Action::Open).is_empty());
}

/// On the Grid at a gate, the act keys act on the selected row's test, and only when the
/// Grid shows the gate's generation: a veto of an older generation's test would be
/// nothing the run can use.
#[test]
fn on_the_grid_at_a_gate_the_act_keys_act_on_the_selected_row() {
    let mut s = paused_on_the_grid(1);
    assert_eq!(s.screen, Screen::Grid);
    update(&mut s, Action::Down);
    let row_test = s.grid().unwrap().tests[s.row].clone();
    assert_eq!(
        update(&mut s, Action::Veto),
        [Effect::Send(Command::Act(ActRequest::Veto {
            test: row_test.clone()
        }))]
    );
    assert_eq!(s.screen, Screen::Grid, "the act keeps the Grid");
    assert!(s.confirm.is_none(), "a veto asks nothing");
    update(&mut s, Action::Pin);
    assert_eq!(
        s.confirm.as_ref().map(|c| c.then.clone()),
        Some(Confirmed::Pin(row_test.clone()))
    );
    update(&mut s, Action::No);
    // The generation before the gate's: refused, with the key that shows the gate's.
    update(&mut s, Action::PrevGeneration);
    assert_eq!(s.grid().unwrap().generation, 0);
    assert!(update(&mut s, Action::Veto).is_empty());
    let said = s.notice.clone().unwrap_or_default();
    assert!(said.contains("acts are on generation 1's tests"), "{said}");
    // Undo names no test: it works whatever generation the Grid shows.
    let mut d = (*s.doc).clone();
    d.acts.clear();
    with_undo_and_redo(&mut d, 1);
    update(&mut s, Action::Snapshot { doc: Arc::new(d) });
    assert_eq!(
        update(&mut s, Action::Undo),
        [Effect::Send(Command::Act(ActRequest::Undo))]
    );
}

/// The workbench reports an act before the snapshot that holds it arrives: the message
/// waits for the snapshot, so what it says goes to crossover is what does.
#[test]
fn an_act_is_announced_with_the_snapshot_that_holds_it() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 0 };
    let before = Arc::new(d.clone());
    let mut s = State::new(before, false, 40);
    let act = crate::engine::Act {
        at_unix: 1,
        generation: 0,
        kind: crate::engine::ActKind::Veto {
            test: d.generations[0].selected[1].clone(),
        },
    };
    let acted = Event::Acted { act: act.clone() };
    update(
        &mut s,
        Action::Event {
            event: Box::new(acted),
        },
    );
    assert_eq!(
        s.notice, None,
        "not yet: the document does not hold the act"
    );
    d.acts.push(act);
    let kept = d.generations[0].selected[0].clone();
    d.generations[0].parents = Some(vec![kept.clone()]);
    update(&mut s, Action::Snapshot { doc: Arc::new(d) });
    let said = s.notice.clone().unwrap();
    assert!(
        said.ends_with(&format!(
            "going to crossover: {kept}; x again takes it back"
        )),
        "{said}"
    );
    // The next act makes it stale.
    update(&mut s, Action::ToggleRaw);
    assert_eq!(s.notice, None);
}

/// An act moves its test in the Curate list (a vetoed parent goes among the rest): the
/// selection goes with it, so the same key twice falls on the same test; an edit selects
/// the test it made.
#[test]
fn the_curate_selection_follows_the_test_an_act_moved() {
    let mut d = doc();
    // At generation 0's gate (the newest, which the list shows).
    let g = 0;
    d.generations.truncate(1);
    d.final_test = None;
    d.phase = Phase::Crossover { generation: g };
    let mut s = State::new(Arc::new(d.clone()), false, 40);
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::Paused { generation: g }),
        },
    );
    update(&mut s, Action::Curate);
    // A parent that a veto moves to another row (the rest follow the generation's order).
    let g0 = &d.generations[g];
    let list_without = |p: &crate::engine::TestId| {
        let mut l: Vec<_> = g0.selected.iter().filter(|t| *t != p).cloned().collect();
        let rest: Vec<_> = g0
            .tests
            .iter()
            .filter(|t| !l.contains(t))
            .cloned()
            .collect();
        l.extend(rest);
        l
    };
    let (row, vetoed) = g0
        .selected
        .iter()
        .enumerate()
        .find(|(i, p)| list_without(p).iter().position(|t| t == *p) != Some(*i))
        .map(|(i, p)| (i, p.clone()))
        .expect("a parent that a veto moves");
    for _ in 0..row {
        update(&mut s, Action::Down);
    }
    assert_eq!(
        update(&mut s, Action::Veto),
        [Effect::Send(Command::Act(ActRequest::Veto {
            test: vetoed.clone()
        }))]
    );
    // A snapshot from before the act changes nothing.
    update(
        &mut s,
        Action::Snapshot {
            doc: Arc::new(d.clone()),
        },
    );
    assert_eq!(s.curate_list()[s.curate_row], vetoed);
    let act = crate::engine::Act {
        at_unix: 1,
        generation: g,
        kind: crate::engine::ActKind::Veto {
            test: vetoed.clone(),
        },
    };
    d.acts.push(act);
    let parents: Vec<_> = d.generations[g]
        .selected
        .iter()
        .filter(|t| **t != vetoed)
        .cloned()
        .collect();
    d.generations[g].parents = Some(parents);
    update(
        &mut s,
        Action::Snapshot {
            doc: Arc::new(d.clone()),
        },
    );
    assert_ne!(s.curate_row, row, "the vetoed test moved in the list");
    assert_eq!(
        s.curate_list()[s.curate_row],
        vetoed,
        "and the selection with it"
    );
    // The same key again, on the vetoed test: its veto is taken back.
    assert_eq!(
        update(&mut s, Action::Veto),
        [Effect::Send(Command::Act(ActRequest::Unveto {
            test: vetoed.clone()
        }))]
    );
    // An edit: once the act is reported, its new test is selected where it is listed.
    let edited = d.parents(g)[0].clone();
    let new_test: crate::engine::TestId = d.generations[g]
        .tests
        .iter()
        .find(|t| !d.generations[g].selected.contains(t) && **t != vetoed)
        .cloned()
        .unwrap();
    let act = crate::engine::Act {
        at_unix: 2,
        generation: g,
        kind: crate::engine::ActKind::Edit {
            test: edited.clone(),
            new_test: new_test.clone(),
        },
    };
    // Reported before the snapshot that holds it, the new test listed among the rest.
    update(
        &mut s,
        Action::Event {
            event: Box::new(Event::Acted { act: act.clone() }),
        },
    );
    d.acts.push(act);
    let parents = d.generations[g].parents.clone().unwrap_or_default();
    d.generations[g].parents = Some(
        parents
            .into_iter()
            .map(|t| if t == edited { new_test.clone() } else { t })
            .collect(),
    );
    update(&mut s, Action::Snapshot { doc: Arc::new(d) });
    assert_eq!(s.curate_list()[s.curate_row], new_test);
}

#[test]
fn a_search_finds_tests_and_mutants_on_the_grid_and_n_moves_between_them() {
    let mut s = state();
    update(&mut s, Action::Timeline);
    update(&mut s, Action::Left);
    update(&mut s, Action::Grid);
    // Typing searches as it goes; Enter jumps to the first hit.
    let recorded = r#"[
        {"action": "search"}, {"action": "type", "text": "t"}, {"action": "type", "text": "3"},
        {"action": "submit"}
    ]"#;
    replay(&mut s, recorded);
    assert_eq!(s.prompt, None);
    let q = s.search.clone().unwrap();
    assert_eq!((q.screen, q.query.as_str()), (Screen::Grid, "t3"));
    let grid = s.grid().unwrap();
    assert_eq!(grid.tests[s.row], "t3");
    assert_eq!(
        crate::tui::keymap::KeyContext::Search,
        key_contexts(&s)[0],
        "n and N are the search's now"
    );
    // A kind matches columns: n walks them, N walks back, wrapping.
    update(&mut s, Action::Cancel);
    assert_eq!(s.search, None, "Esc ends the search");
    replay(
        &mut s,
        r#"[{"action": "search"}, {"action": "type", "text": "binary_arithmetic"}, {"action": "submit"}]"#,
    );
    let hits = crate::tui::search::grid_hits(&s, "binary_arithmetic");
    assert!(hits.len() >= 2, "{hits:?}");
    let first = s.col;
    update(&mut s, Action::NextHit);
    assert_ne!(s.col, first);
    update(&mut s, Action::PrevHit);
    assert_eq!(s.col, first);
    let mutant = &grid.mutants[s.col];
    assert_eq!(s.mutant(mutant).unwrap().kind.as_str(), "binary_arithmetic");
    // Nothing found says so.
    replay(
        &mut s,
        r#"[{"action": "search"}, {"action": "type", "text": "zzz"}, {"action": "submit"}]"#,
    );
    assert!(
        s.notice
            .as_deref()
            .unwrap()
            .contains("no test or mutant matches `zzz`")
    );
}

#[test]
fn go_to_an_id_from_anywhere_and_gg_is_the_top() {
    let mut s = state();
    update(&mut s, Action::Model);
    let t4 = "t4";
    replay(
        &mut s,
        r#"[{"action": "goto"}, {"action": "type", "text": "4"}, {"action": "submit"}]"#,
    );
    // t4 is in generation 0 only: the grid shows it there, its row selected.
    assert_eq!(s.screen, Screen::Grid);
    assert_eq!(s.shown_generation(), Some(0));
    assert_eq!(s.grid().unwrap().tests[s.row], t4);
    let m = s.doc.generations[0].mutants[2].clone();
    replay(
        &mut s,
        &format!(
            r#"[{{"action": "goto"}}, {{"action": "type", "text": "{m}"}}, {{"action": "submit"}}]"#
        ),
    );
    assert_eq!(s.grid().unwrap().mutants[s.col], m);
    update(&mut s, Action::Down);
    replay(
        &mut s,
        r#"[{"action": "goto"}, {"action": "type", "text": "g"}]"#,
    );
    assert_eq!((s.row, s.prompt.clone()), (0, None), "gg: the top");
    replay(
        &mut s,
        r#"[{"action": "goto"}, {"action": "type", "text": "t99"}, {"action": "submit"}]"#,
    );
    assert!(
        s.notice
            .as_deref()
            .unwrap()
            .contains("no test or mutant t99")
    );
}

#[test]
fn a_test_is_written_to_a_named_file_asking_before_it_writes_over_one() {
    let mut s = state();
    update(&mut s, Action::WriteTest);
    let (t, _) = s.selected_pair().unwrap();
    let name = s.doc.tests[&t].name.clone();
    assert_eq!(
        s.prompt,
        Some(Prompt {
            purpose: Asking::WriteTo(t.clone()),
            text: name.clone(),
        }),
        "the prompt offers the test's own file name"
    );
    let fx = replay(
        &mut s,
        r#"[{"action": "erase"}, {"action": "type", "text": "y"}, {"action": "submit"}]"#,
    );
    let path = std::path::PathBuf::from(format!("{}y", &name[..name.len() - 1]));
    let source = s.doc.tests[&t].source.clone();
    assert_eq!(
        fx,
        [Effect::WriteFile {
            path: path.clone(),
            text: source.clone(),
            overwrite: false
        }]
    );
    update(
        &mut s,
        Action::FileWritten {
            path: path.clone(),
            result: Err("exists".into()),
            exists: true,
        },
    );
    assert!(
        s.confirm
            .as_ref()
            .unwrap()
            .question
            .contains("write over it? y/n")
    );
    assert_eq!(
        update(&mut s, Action::Yes),
        [Effect::WriteFile {
            path: path.clone(),
            text: source.clone(),
            overwrite: true
        }]
    );
    update(
        &mut s,
        Action::FileWritten {
            path,
            result: Ok(source.len()),
            exists: false,
        },
    );
    assert!(s.notice.as_deref().unwrap().starts_with("wrote "));
    // Y: the clipboard.
    assert_eq!(
        update(&mut s, Action::CopyTest),
        [Effect::Clipboard { text: source }]
    );
}

#[test]
fn brackets_switch_the_grids_generation_and_its_cells() {
    let mut s = state();
    let newest = s.shown_generation().unwrap();
    update(&mut s, Action::PrevGeneration);
    assert_eq!(s.shown_generation(), Some(newest - 1));
    assert_eq!(s.cache.generation, newest - 1, "the cells follow");
    update(&mut s, Action::NextGeneration);
    assert_eq!(s.generation, None, "back at the newest, it follows again");
}

#[test]
fn the_repair_key_asks_the_model_for_the_selected_test_only_when_there_is_one() {
    let mut d = doc();
    d.phase = Phase::Crossover { generation: 0 };
    d.acts.clear();
    let sent = |d: &SessionDoc| {
        let mut s = State::new(Arc::new(d.clone()), false, 40);
        let paused: Action = serde_json::from_str(
            r#"{"action": "event", "event": {"event": "paused", "generation": 0}}"#,
        )
        .unwrap();
        let mut fx = update(&mut s, paused);
        fx.extend(update(&mut s, Action::Curate));
        fx.extend(update(&mut s, Action::Repair));
        let commands: Vec<Command> = fx
            .into_iter()
            .filter_map(|e| match e {
                Effect::Send(c) => Some(c),
                _ => None,
            })
            .collect();
        (commands, s.curate_list()[0].clone(), s.messages.clone())
    };
    let (none, _, said) = sent(&d);
    assert!(none.is_empty(), "{none:?}");
    assert!(format!("{said:?}").contains("--llm"), "{said:?}");
    d.config.llm = Some("scripted:replies.json".into());
    let (commands, first, _) = sent(&d);
    assert_eq!(commands, [Command::Act(ActRequest::Repair { test: first })]);
}
