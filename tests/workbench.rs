//! The workbench, the command boundary every driver uses: steps, gates, the user's acts,
//! cancel and resume. First with the scripted executor (no Python: exact, instant results),
//! then end to end with real pytest on the tiny instance.

use crate::common;
use common::*;
use evootter::engine::{
    ActKind, ActRequest, Event, Inputs, Origin, Phase, RunConfig, SelectionStrategy, SessionDoc,
    Target, setup,
};
use evootter::exec::Outcome;
use evootter::exec::scripted::ScriptedExecutor;
use evootter::outdir::{Intent, OutDir};
use evootter::python::FocalFunction;
use evootter::testkit;
use evootter::workbench::{self, Command, Ending, Options, Prepared, RunOptions, Workbench};
use std::sync::Arc;
use std::time::Duration;

/// Four tests, four mutants, two workers, checking flakiness; scripted results by
/// `testkit::answer` (`FAILS` fails on c_old, `KILLS` kills every mutant).
fn config() -> RunConfig {
    RunConfig {
        mutants: 4,
        jobs: 2,
        timeout_secs: 10.0,
        check_flaky: true,
        reach: Default::default(),
        ..testkit::config(SelectionStrategy::Mutation)
    }
}

/// A session of the tiny repo with four scripted candidates, in a claimed out dir.
fn scripted_session(tiny: &Tiny) -> Prepared {
    let cands = vec![
        ("test_a.py", "# FAILS KILLS\ndef test_a(): pass\n"),
        ("test_b.py", "# FAILS\ndef test_b(): pass\n"),
        ("test_c.py", "# KILLS\ndef test_c(): pass\n"),
        ("test_d.py", "def test_d(): pass\n"),
    ]
    .into_iter()
    .map(|(n, s)| (tiny.cands.join(n), s.to_string()))
    .collect();
    let inputs = Inputs {
        repo: tiny.repo.clone(),
        issue_path: None,
        issue_text: "clamp is off by one".into(),
        focal: vec!["calc/ops.py::clamp".parse::<FocalFunction>().unwrap()],
        initial_tests_dir: None,
        golden_patch: None,
        instance: None,
        repo_fingerprint: String::new(),
    };
    let doc = setup::new_session(inputs, config(), cands).unwrap();
    let out = OutDir::claim(&tiny.out("wb"), Intent::New { force: false }).unwrap();
    Prepared {
        session_path: out.session_path(),
        doc,
        out,
        resumed: false,
    }
}

async fn scripted_workbench(tiny: &Tiny, pause: bool) -> (Workbench, Arc<ScriptedExecutor>) {
    let exec = Arc::new(ScriptedExecutor::new(testkit::answer));
    let wb = Workbench::start(
        scripted_session(tiny),
        Options {
            pause_before_crossover: pause,
            executor: Some(exec.clone()),
            ..Options::default()
        },
    )
    .await
    .unwrap();
    (wb, exec)
}

/// Reads events until one matches (or the workbench ends, which fails the test).
async fn until(wb: &mut Workbench, what: &str, matches: impl Fn(&Event) -> bool) -> Event {
    loop {
        let e = tokio::time::timeout(Duration::from_secs(120), wb.next_event())
            .await
            .unwrap_or_else(|_| panic!("no {what} within 2 minutes"))
            .unwrap_or_else(|| panic!("the workbench ended before {what}"));
        if matches(&e) {
            return e;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
#[expect(
    clippy::too_many_lines,
    reason = "one gate's acts in order, each on the state the one before left"
)]
async fn the_gate_takes_acts_in_order_and_crossover_gets_the_curated_parents() {
    let tiny = Tiny::new(&[]);
    let (mut wb, exec) = scripted_workbench(&tiny, true).await;

    // Before the gate, acts are refused and nothing changes.
    wb.send(Command::Act(ActRequest::Veto { test: "t1".into() }));
    wb.send(Command::RunToGate);
    let refused = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{refused:?}").contains("not at a gate"),
        "{refused:?}"
    );
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    let doc = wb.snapshot();
    assert_eq!(doc.phase, Phase::Crossover { generation: 0 });
    assert_eq!(
        doc.generations[0].selected,
        ["t1", "t2"],
        "FAILS first, then kills"
    );

    wb.send(Command::Act(ActRequest::Veto { test: "t2".into() }));
    until(&mut wb, "the veto", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), ["t1"]);
    // The same act twice: the second says what the first did and how to take it back.
    wb.send(Command::Act(ActRequest::Veto { test: "t2".into() }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{e:?}").contains("vetoed already (an unveto takes the veto back)"),
        "{e:?}"
    );
    // The unveto: t2 goes to crossover again, in its place; once only.
    wb.send(Command::Act(ActRequest::Unveto { test: "t2".into() }));
    until(&mut wb, "the unveto", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), ["t1", "t2"]);
    wb.send(Command::Act(ActRequest::Unveto { test: "t2".into() }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{e:?}").contains("t2 (") && format!("{e:?}").contains("is not vetoed"),
        "{e:?}"
    );
    wb.send(Command::Act(ActRequest::Veto { test: "t2".into() }));
    until(&mut wb, "the veto", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), ["t1"]);
    // The last parent cannot be vetoed.
    wb.send(Command::Act(ActRequest::Veto { test: "t1".into() }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{e:?}").contains("last test going to crossover"),
        "{e:?}"
    );

    // An edit is a new test that runs on c_old and the generation's mutants at once.
    let before = exec.requests().len();
    let edited = "# FAILS KILLS edited\ndef test_a(): assert True\n";
    wb.send(Command::Act(ActRequest::Edit {
        test: "t1".into(),
        source: edited.into(),
    }));
    until(&mut wb, "the edit", |e| matches!(e, Event::Acted { .. })).await;
    let doc = wb.snapshot();
    let new = doc.tests.values().find(|c| c.source == edited).unwrap();
    assert_eq!(
        new.origin,
        Origin::UserEdited {
            generation: 0,
            from: "t1".into()
        }
    );
    let g = &doc.generations[0];
    assert!(g.tests.contains(&new.id), "the edit gets its row");
    assert_eq!(g.scores[&new.id].kills.len(), g.mutants.len());
    assert_eq!(
        exec.requests().len() - before,
        2 + g.mutants.len(),
        "c_old twice and each mutant once, nothing else"
    );
    for m in &g.mutants {
        assert!(doc.execution(&new.id, &Target::Mutant(m.clone())).is_some());
    }
    assert_eq!(doc.parents(0), std::slice::from_ref(&new.id));

    // Undo takes the edit back; an added test joins.
    wb.send(Command::Act(ActRequest::Undo));
    let undo = until(&mut wb, "the undo", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), ["t1"]);
    // The undo says which act it took back, in words, wherever acts are listed.
    let Event::Acted { act } = undo else {
        unreachable!()
    };
    assert_eq!(
        act.kind.describe(),
        format!("undid \"edited t1 into {}\"", new.id)
    );
    // Redo gives the edit back (nothing runs again), and undo takes it back once more.
    let runs = exec.requests().len();
    wb.send(Command::Act(ActRequest::Redo));
    let redo = until(&mut wb, "the redo", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), std::slice::from_ref(&new.id));
    let Event::Acted { act } = redo else {
        unreachable!()
    };
    assert_eq!(
        act.kind.describe(),
        format!("redid \"edited t1 into {}\"", new.id)
    );
    assert_eq!(
        exec.requests().len(),
        runs,
        "the edit's runs are the session's"
    );
    wb.send(Command::Act(ActRequest::Undo));
    until(&mut wb, "the undo", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), ["t1"]);
    wb.send(Command::Act(ActRequest::Add {
        name: "test_mine.py".into(),
        source: "# FAILS mine\ndef test_mine(): pass\n".into(),
    }));
    until(&mut wb, "the add", |e| matches!(e, Event::Acted { .. })).await;
    let doc = wb.snapshot();
    let mine = doc
        .tests
        .values()
        .find(|c| c.name == "test_mine.py")
        .unwrap()
        .id
        .clone();
    assert_eq!(doc.parents(0), ["t1".to_string(), mine.clone()]);
    screens_agree(&doc, &["t2"], &["t1", mine.as_str()]);
    // A new act after the undo: the edit cannot come back.
    wb.send(Command::Act(ActRequest::Redo));
    let refused = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{refused:?}").contains("nothing to redo"),
        "{refused:?}"
    );
    assert_eq!(wb.snapshot().parents(0), ["t1".to_string(), mine.clone()]);

    // Past the gate, the crossover (none) hands the curated parents on.
    wb.send(Command::Continue);
    until(&mut wb, "the next generation", |e| {
        matches!(e, Event::GenerationStarted { generation: 1, .. })
    })
    .await;
    wb.send(Command::RunToEnd);
    let finished = loop {
        if wb.next_event().await.is_none() {
            break wb.finish().await.unwrap();
        }
    };
    assert!(matches!(finished.ending, Ending::Done { .. }));
    let doc = &finished.doc;
    assert_eq!(doc.generations[1].tests, ["t1".to_string(), mine.clone()]);
    let kinds: Vec<&str> = doc
        .acts
        .iter()
        .map(|a| match a.kind {
            ActKind::Veto { .. } => "veto",
            ActKind::Unveto { .. } => "unveto",
            ActKind::Edit { .. } => "edit",
            ActKind::Repair { .. } => "repair",
            ActKind::Undo { .. } => "undo",
            ActKind::Redo { .. } => "redo",
            ActKind::Add { .. } => "add",
            ActKind::Pin { .. } => "pin",
            ActKind::Unpin { .. } => "unpin",
            ActKind::Continue => "continue",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "veto", "unveto", "veto", "edit", "undo", "redo", "undo", "add", "continue"
        ]
    );
    let report = read_json(&tiny.out("wb").join("report.json"));
    assert_eq!(report["acts"].as_array().unwrap().len(), 9, "{report:#}");
    assert_eq!(
        report["tests"][&doc.acts[7].kind.kind_test()]["origin"]["kind"],
        "user_written"
    );
    let saved = SessionDoc::load(&finished.session_path).unwrap();
    assert_eq!(saved.acts, doc.acts, "acts are in the saved session");
    // report.json says what the screens said.
    let g0 = &report["generations"][0];
    assert_eq!(g0["going_on"], serde_json::json!(["t1", mine]));
    assert_eq!(g0["vetoed"], serde_json::json!(["t2"]));
    assert_eq!(report["curated_parents"]["0"], g0["going_on"]);
    let cut: Vec<String> = serde_json::from_value(g0["cut"].clone()).unwrap();
    assert_eq!(
        cut,
        evootter::engine::explain::explain_cut(doc, 0)
            .unwrap()
            .lines
    );
}

/// The Timeline's rows and cut lines and the Curate list, drawn from `doc` at its gate, say
/// the same of every test of generation 0: `vetoed` are out by the user's veto (and no line
/// calls them simply kept), `going_on` go to crossover.
/// A test that does not go to crossover (vetoed here) can be edited: the edit goes on beside
/// the parents, every screen says so, and undo takes it back.
#[tokio::test(flavor = "multi_thread")]
async fn an_edit_rescues_a_test_that_does_not_go_to_crossover() {
    let tiny = Tiny::new(&[]);
    let (mut wb, _exec) = scripted_workbench(&tiny, true).await;
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    wb.send(Command::Act(ActRequest::Veto { test: "t2".into() }));
    until(&mut wb, "the veto", |e| matches!(e, Event::Acted { .. })).await;
    let fixed = "# FAILS KILLS fixed by hand\ndef test_b(): assert True\n";
    wb.send(Command::Act(ActRequest::Edit {
        test: "t2".into(),
        source: fixed.into(),
    }));
    let acted = until(&mut wb, "the edit", |e| {
        matches!(e, Event::Acted { .. } | Event::ActRefused { .. })
    })
    .await;
    assert!(matches!(acted, Event::Acted { .. }), "{acted:?}");
    let doc = wb.snapshot();
    let new = doc
        .tests
        .values()
        .find(|c| c.source == fixed)
        .unwrap()
        .id
        .clone();
    assert_eq!(doc.parents(0), ["t1".to_string(), new.clone()]);
    // t2 itself stays out (its row says it was edited), its edit goes on.
    screens_agree(&doc, &[], &["t1", new.as_str()]);
    // A test that is not the generation's is refused, by name.
    wb.send(Command::Act(ActRequest::Edit {
        test: "t99".into(),
        source: fixed.into(),
    }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{e:?}").contains("t99 is not a test of generation 0"),
        "{e:?}"
    );
    wb.send(Command::Act(ActRequest::Undo));
    until(&mut wb, "the undo", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), ["t1"]);
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
}

fn screens_agree(doc: &Arc<SessionDoc>, vetoed: &[&str], going_on: &[&str]) {
    use evootter::tui::action::Action;
    use evootter::tui::state::{Fate, State};
    use evootter::tui::update::update;
    use evootter::tui::views::{self, Ctx};
    let theme = evootter::tui::theme::Theme::load(Some("dark"), None, false).unwrap();
    let keymap = evootter::tui::keymap::Keymap::load(None).unwrap();
    let hl = evootter::tui::highlight::Highlighter::new(true, false);
    let mut s = State::new(doc.clone(), false, views::help_len(&keymap));
    let paused = Event::Paused { generation: 0 };
    update(
        &mut s,
        Action::Event {
            event: Box::new(paused),
        },
    );
    update(
        &mut s,
        Action::Resize {
            width: 140,
            height: 40,
        },
    );
    let draw = |s: &State| {
        let mut term =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(s.width, s.height)).unwrap();
        term.draw(|f| {
            views::draw(
                f,
                &Ctx {
                    state: s,
                    theme: &theme,
                    hl: &hl,
                    keymap: &keymap,
                    editor: None,
                    measure: &std::cell::Cell::new(None),
                },
            )
        })
        .unwrap();
        format!("{}", term.backend())
    };
    update(&mut s, Action::Grid);
    let grid = draw(&s);
    let title = doc.gate(0).cut_words();
    let title = title
        .split_once("; ")
        .map_or(title.clone(), |(_, acts)| acts.to_owned());
    assert!(
        grid.contains(&title),
        "the Grid's title says `{title}`:\n{grid}"
    );
    update(&mut s, Action::Timeline);
    let timeline = draw(&s);
    update(&mut s, Action::Curate);
    let curate = draw(&s);
    let row_of = |screen: &str, t: &str| -> String {
        screen
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == t))
            .unwrap_or_else(|| panic!("no row of {t}:\n{screen}"))
            .to_owned()
    };
    for t in &doc.generations[0].tests {
        let fate = s.fate(0, t);
        if vetoed.contains(&t.as_str()) {
            assert_eq!(fate, Fate::Vetoed, "{t}");
        }
        assert_eq!(
            fate.goes_on(),
            going_on.contains(&t.as_str()),
            "{t}: {fate:?}"
        );
        for (name, screen) in [("Timeline", &timeline), ("Curate", &curate)] {
            let row = row_of(screen, t);
            assert!(
                row.contains(fate.label()),
                "{name} row of {t} lacks `{}`: {row}",
                fate.label()
            );
        }
    }
    let cut = evootter::engine::explain::explain_cut(doc, 0)
        .unwrap()
        .lines;
    for t in vetoed {
        assert!(
            cut.iter()
                .any(|l| l.contains(&format!("{t} (")) && l.contains("vetoed by you")),
            "the cut names {t} as vetoed: {cut:#?}"
        );
        assert!(!row_of(&timeline, t).contains(" kept "), "{timeline}");
    }
    let going = format!("going to crossover: {}", going_on.join(", "));
    assert!(cut.iter().any(|l| l.ends_with(&going)), "{cut:#?}");
    assert!(timeline.contains(&going), "{timeline}");
    assert!(curate.contains(&going), "{curate}");
}

/// The issue's sequence: a veto taken back, then an edit of the same test and an add. The
/// veto no longer counts anywhere, the edit replaces the test, and every screen, the cut's
/// explanation, `show`'s marks and report.json count the tests that go on, with the
/// generation's executions counting the two new rows.
#[tokio::test(flavor = "multi_thread")]
async fn a_veto_taken_back_then_an_edit_and_an_add_read_the_same_everywhere() {
    let tiny = Tiny::new(&[]);
    let (mut wb, _exec) = scripted_workbench(&tiny, true).await;
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    let before = wb.snapshot().generations[0].executions;
    for req in [
        ActRequest::Veto { test: "t2".into() },
        ActRequest::Unveto { test: "t2".into() },
        ActRequest::Edit {
            test: "t2".into(),
            source: "# FAILS KILLS mended\ndef test_b(): assert True\n".into(),
        },
        ActRequest::Add {
            name: "test_mine.py".into(),
            source: "# FAILS mine\ndef test_mine(): pass\n".into(),
        },
    ] {
        wb.send(Command::Act(req));
        let e = until(&mut wb, "the act", |e| {
            matches!(e, Event::Acted { .. } | Event::ActRefused { .. })
        })
        .await;
        assert!(matches!(e, Event::Acted { .. }), "{e:?}");
    }
    let doc = wb.snapshot();
    let (edit, mine) = ("t5", "t6");
    assert_eq!(doc.parents(0), ["t1", edit, mine]);
    let gate = doc.gate(0);
    assert_eq!(gate.fate(&"t2".into()), evootter::engine::Fate::Edited);
    assert!(gate.vetoed.is_empty(), "the veto was taken back: {gate:?}");
    assert_eq!(gate.cut_words(), "cut 4 -> 2; 3 go to crossover");
    screens_agree(&doc, &[], &["t1", edit, mine]);
    let cut = evootter::engine::explain::explain_cut(&doc, 0)
        .unwrap()
        .lines;
    assert!(cut.iter().all(|l| !l.contains("vetoed by you")), "{cut:#?}");
    assert!(
        cut.iter()
            .any(|l| l.contains("t2 (") && l.contains("edited by you into t5")),
        "{cut:#?}"
    );
    // Two rows more, each on c_old (twice: flakiness is checked) and every mutant.
    let g = &doc.generations[0];
    assert_eq!(g.executions, before + 2 * (2 + g.mutants.len()));
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
    let report = read_json(&tiny.out("wb").join("report.json"));
    let g0 = &report["generations"][0];
    assert_eq!(g0["going_on"], serde_json::json!(["t1", edit, mine]));
    assert_eq!(g0["vetoed"], serde_json::json!([]));
    assert_eq!(g0["fates"]["t2"], "edited (you)");
    assert_eq!(g0["fates"][edit], "yours, goes on");
    assert_eq!(g0["fates"]["t3"], "dropped");
}

/// Helper for the assertions above: the test an act names.
trait ActTest {
    fn kind_test(&self) -> String;
}

impl ActTest for ActKind {
    fn kind_test(&self) -> String {
        match self {
            ActKind::Veto { test } | ActKind::Pin { test } => test.clone(),
            ActKind::Edit { new_test, .. } | ActKind::Add { new_test } => new_test.clone(),
            _ => String::new(),
        }
    }
}

/// The progress of a generation counts the kills its matrix holds, those of executions run
/// in an earlier generation (answered from the session) too.
#[tokio::test(flavor = "multi_thread")]
async fn progress_counts_every_kill_of_the_matrix() {
    let tiny = Tiny::new(&[]);
    let (mut wb, _) = scripted_workbench(&tiny, false).await;
    wb.send(Command::RunToEnd);
    let mut last: std::collections::BTreeMap<usize, usize> = Default::default();
    while let Some(e) = wb.next_event().await {
        if let Event::ExecutionDone {
            generation: Some(g),
            kills,
            ..
        } = e
        {
            last.insert(g, kills);
        }
    }
    let doc = wb.finish().await.unwrap().doc;
    assert!(doc.generations.len() > 1, "a second generation reuses runs");
    for (g, kills) in last {
        let gen_ = &doc.generations[g];
        let in_matrix = gen_
            .tests
            .iter()
            .flat_map(|t| gen_.mutants.iter().map(move |m| (t, m)))
            .filter(|(t, m)| {
                let old = doc.execution(t, &Target::Old);
                let run = doc.execution(t, &Target::Mutant((*m).clone()));
                matches!((old, run), (Some(o), Some(r)) if evootter::engine::kill::cell(o, r).is_kill())
            })
            .count();
        assert_eq!(kills, in_matrix, "generation {g}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn pinning_ends_the_run_with_the_users_choice() {
    let tiny = Tiny::new(&[]);
    let (mut wb, _) = scripted_workbench(&tiny, true).await;
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| matches!(e, Event::Paused { .. })).await;
    wb.send(Command::Act(ActRequest::Pin { test: "t4".into() }));
    until(&mut wb, "the pin", |e| matches!(e, Event::Acted { .. })).await;
    wb.send(Command::RunToEnd);
    while wb.next_event().await.is_some() {}
    let f = wb.finish().await.unwrap();
    assert!(matches!(f.ending, Ending::Done { .. }));
    assert_eq!(f.doc.final_test.as_deref(), Some("t4"));
    assert_eq!(f.doc.generations.len(), 1, "no generation after the pin");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_gate_the_run_goes_straight_through() {
    let tiny = Tiny::new(&[]);
    let (mut wb, _) = scripted_workbench(&tiny, false).await;
    wb.send(Command::RunToGate);
    let mut paused = false;
    while let Some(e) = wb.next_event().await {
        paused |= matches!(e, Event::Paused { .. });
    }
    assert!(!paused);
    let f = wb.finish().await.unwrap();
    assert!(matches!(f.ending, Ending::Done { .. }));
    assert!(f.doc.final_test.is_some());
}

/// End to end with real pytest: edit at the gate (the edit runs and gets its row), quit,
/// resume the saved session, continue to an F2P final test.
#[tokio::test(flavor = "multi_thread")]
async fn curate_quit_and_resume_with_real_pytest() {
    let tiny = Tiny::four();
    let request = RunOptions {
        repo: Some(tiny.repo.clone()),
        issue: Some(tiny.dir.path().join("issue.md")),
        focal: vec!["calc/ops.py::clamp".parse().unwrap()],
        initial_tests: Some(tiny.cands.clone()),
        mutants: Some(6),
        golden_patch: Some(tiny.golden_patch()),
        out: Some(tiny.out("real")),
        ..Default::default()
    };
    let options = || Options {
        pause_before_crossover: true,
        ..Default::default()
    };
    let mut wb = Workbench::start(request.prepare().unwrap(), options())
        .await
        .unwrap();
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    let doc = wb.snapshot();
    let kept = doc.generations[0].selected.clone();
    let wrong = doc
        .tests
        .values()
        .find(|c| c.source.contains("== 11"))
        .unwrap()
        .id
        .clone();
    assert!(
        kept.contains(&wrong),
        "the wrong expectation survives: {kept:?}"
    );
    let fixed = doc.tests[&wrong].source.replace("== 11", "== 10");
    let executions_before = doc.executions.len();
    wb.send(Command::Act(ActRequest::Edit {
        test: wrong.clone(),
        source: fixed.clone(),
    }));
    until(&mut wb, "the edit", |e| matches!(e, Event::Acted { .. })).await;
    let doc = wb.snapshot();
    let edit = doc.tests.values().find(|c| c.source == fixed).unwrap();
    let g = &doc.generations[0];
    assert_eq!(
        doc.executions.len() - executions_before,
        2 + g.mutants.len(),
        "the edit ran on c_old twice and on each mutant once; nothing else ran again"
    );
    assert_eq!(
        doc.execution(&edit.id, &Target::Old).unwrap().outcome,
        Outcome::Failed,
        "the corrected test fails on c_old, as a reproduction should"
    );
    assert!(g.scores.contains_key(&edit.id), "its row is in the grid");
    let edit_id = edit.id.clone();

    // A pair run again on demand, traced: the F2P test reaches clamp.
    let m = doc.generations[0].mutants[0].clone();
    let f2p = doc
        .tests
        .values()
        .find(|c| c.source.contains("clamp(15, 0, 10) == 10"))
        .unwrap()
        .id
        .clone();
    let m_file = doc
        .pool
        .as_ref()
        .unwrap()
        .mutants
        .iter()
        .find(|x| x.id == m)
        .unwrap()
        .file
        .clone();
    let run = wb.pair_runner().run(&f2p, &m, true).await.unwrap();
    let lines = run.old.lines_of(&m_file).expect("traced").to_vec();
    assert!(lines.contains(&3), "clamp's first check runs: {lines:?}");
    assert_eq!(
        run.old.normalized_log,
        *doc.log(&doc.execution(&f2p, &Target::Old).unwrap().normalized_log),
        "tracing does not change the log"
    );

    // Quit at the gate; the acts are saved with the session.
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
    let f = wb.finish().await.unwrap();
    assert!(matches!(f.ending, Ending::Cancelled));
    assert_eq!(f.doc.acts.len(), 1);

    let resumed = workbench::resume(&f.session_path, &RunOptions::default()).unwrap();
    assert_eq!(
        resumed
            .doc
            .parents(0)
            .iter()
            .filter(|t| **t == edit_id)
            .count(),
        1
    );
    let mut wb = Workbench::start(resumed, options()).await.unwrap();
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate again", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    wb.send(Command::Continue);
    wb.send(Command::RunToEnd);
    while wb.next_event().await.is_some() {}
    let f = wb.finish().await.unwrap();
    assert!(matches!(f.ending, Ending::Done { .. }), "{:?}", f.ending);
    assert!(f.doc.generations[1].tests.contains(&edit_id));
    let final_test = f.doc.final_test.clone().unwrap();
    assert!(f.doc.evaluation[&final_test].f2p, "{final_test}");
}

/// A pair can be run again on demand, beside the engine, without touching the session.
#[tokio::test(flavor = "multi_thread")]
async fn a_pair_runs_again_on_demand_without_being_recorded() {
    let tiny = Tiny::new(&[]);
    let (mut wb, exec) = scripted_workbench(&tiny, true).await;
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| matches!(e, Event::Paused { .. })).await;
    let doc = wb.snapshot();
    let m = doc.generations[0].mutants[0].clone();
    let before = exec.requests().len();
    let run = wb.run_pair("t1", &m[..6]).await.unwrap();
    assert_eq!(run.cell, evootter::engine::kill::Cell::KilledLog);
    assert_eq!(exec.requests().len() - before, 2);
    assert_eq!(
        wb.snapshot().executions.len(),
        doc.executions.len(),
        "not recorded"
    );
    let recorded = evootter::engine::pair::find(&doc, "t1", &m).unwrap();
    assert_eq!(
        recorded.cell,
        Some(run.cell),
        "the same verdict as the recorded run"
    );
    assert!(wb.run_pair("t1", "nope").await.is_err());
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
}

/// A session saved at a gate reopens at the gate: the workbench says it is paused there
/// before any command, so a driver offers curation at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_saved_at_a_gate_reopens_there() {
    let tiny = Tiny::new(&[]);
    let (mut wb, exec) = scripted_workbench(&tiny, true).await;
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
    let f = wb.finish().await.unwrap();
    let prepared = workbench::resume(&f.session_path, &RunOptions::default()).unwrap();
    let mut wb = Workbench::start(
        prepared,
        Options {
            pause_before_crossover: true,
            executor: Some(exec),
            ..Options::default()
        },
    )
    .await
    .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), wb.next_event())
        .await
        .expect("an event without any command")
        .unwrap();
    assert!(
        matches!(first, Event::Paused { generation: 0 }),
        "{first:?}"
    );
    // Curation works at once.
    wb.send(Command::Act(ActRequest::Veto { test: "t2".into() }));
    until(&mut wb, "the veto", |e| matches!(e, Event::Acted { .. })).await;
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repair_at_the_gate_replaces_the_test_as_an_edit_does_with_undo_and_redo() {
    use evootter::llm::scripted::{ScriptEntry, ScriptedModel};
    let tiny = Tiny::new(&[]);
    let entry = |m: &str, reply: &str| ScriptEntry {
        step: "repair".into(),
        reply: reply.into(),
        must_contain: Some(m.into()),
    };
    let repaired = "# FAILS KILLS repaired\ndef test_b(): assert clamp(5, 0, 3) == 3\n";
    let model = ScriptedModel::from_entries(
        "critic.json",
        vec![
            entry(
                "def test_b",
                &format!(
                    "VERDICT: REJECT\nREASON: it never calls clamp.\n\n### test_b.py\n```python\n{repaired}```\n"
                ),
            ),
            entry(
                "def test_a",
                "VERDICT: ACCEPT\nREASON: fails on the clamp.\n",
            ),
        ],
    );
    let exec = Arc::new(ScriptedExecutor::new(testkit::answer));
    let mut wb = Workbench::start(
        scripted_session(&tiny),
        Options {
            pause_before_crossover: true,
            executor: Some(exec),
            model: Some(Arc::new(model)),
            ..Options::default()
        },
    )
    .await
    .unwrap();
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    let before = wb.snapshot().parents(0);
    assert_eq!(before, ["t1", "t2"]);
    wb.send(Command::Act(ActRequest::Repair { test: "t2".into() }));
    let acted = until(&mut wb, "the repair", |e| {
        matches!(e, Event::Acted { .. } | Event::ActRefused { .. })
    })
    .await;
    let Event::Acted { act } = acted else {
        panic!("{acted:?}")
    };
    let ActKind::Repair {
        test,
        new_test,
        reason,
    } = act.kind
    else {
        panic!("{:?}", act.kind)
    };
    assert_eq!(
        (test.as_str(), reason.as_str()),
        ("t2", "it never calls clamp.")
    );
    let doc = wb.snapshot();
    assert_eq!(doc.tests[&new_test].source, repaired);
    assert!(matches!(
        doc.tests[&new_test].origin,
        Origin::Repaired {
            generation: Some(0),
            round: 1,
            ..
        }
    ));
    // It ran on the generation's baselines and mutants, like an edit, and took t2's place.
    assert!(doc.generations[0].scores.contains_key(&new_test));
    assert_eq!(doc.parents(0), ["t1".to_string(), new_test.clone()]);
    assert_eq!(doc.llm_calls.len(), 1);
    assert_eq!(doc.llm_calls[0].step, "repair");
    screens_agree(&doc, &[], &["t1", new_test.as_str()]);
    wb.send(Command::Act(ActRequest::Undo));
    until(&mut wb, "the undo", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), before);
    wb.send(Command::Act(ActRequest::Redo));
    until(&mut wb, "the redo", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(
        wb.snapshot().parents(0),
        ["t1".to_string(), new_test.clone()]
    );
    // A test the critic accepts is left as it is, and the user told why.
    wb.send(Command::Act(ActRequest::Repair { test: "t1".into() }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{e:?}").contains("the critic accepts t1")
            && format!("{e:?}").contains("fails on the clamp"),
        "{e:?}"
    );
    assert_eq!(wb.snapshot().llm_calls.len(), 2, "the call is accounted");
    // A model that cannot answer (here: no reply recorded for t3) fails the act alone; the
    // session stays at the gate and takes the next act.
    wb.send(Command::Act(ActRequest::Repair { test: "t3".into() }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(
        format!("{e:?}").contains("no repair of t3, nothing changed"),
        "{e:?}"
    );
    wb.send(Command::Act(ActRequest::Veto { test: "t1".into() }));
    until(&mut wb, "the veto", |e| matches!(e, Event::Acted { .. })).await;
    assert_eq!(wb.snapshot().parents(0), [new_test]);
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repair_without_a_model_is_refused_saying_how_to_have_one() {
    let tiny = Tiny::new(&[]);
    let (mut wb, _exec) = scripted_workbench(&tiny, true).await;
    wb.send(Command::RunToGate);
    until(&mut wb, "the gate", |e| {
        matches!(e, Event::Paused { generation: 0 })
    })
    .await;
    wb.send(Command::Act(ActRequest::Repair { test: "t2".into() }));
    let e = until(&mut wb, "a refusal", |e| {
        matches!(e, Event::ActRefused { .. })
    })
    .await;
    assert!(format!("{e:?}").contains("--llm"), "{e:?}");
    wb.send(Command::Cancel);
    while wb.next_event().await.is_some() {}
}
