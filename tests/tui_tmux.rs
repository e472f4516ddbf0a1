//! The workbench in a real terminal: tmux runs `evootter demo` (120x36 and 80x24), keys are
//! sent as a person would press them, and the screen is read back with `capture-pane`: run to
//! the gate, open a pair, ask why a mutant survived, veto and edit a candidate, continue, pin
//! the final test, quit; then `evootter open` on the saved session shows the same final test.

use crate::common;
use common::tmux::Tmux;
use common::*;
use std::time::{Duration, Instant};

fn session_walkthrough(width: u16, height: u16) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let bin = env!("CARGO_BIN_EXE_evootter");
    let name = format!("evootter-{}-{width}", std::process::id());
    let t = Tmux::start(
        &name,
        width,
        height,
        &format!(
            "cd {} && {bin} demo --out {}",
            root().display(),
            out.display()
        ),
    );
    let s = t.wait_for("SCRIPTED", 60);
    assert!(s.contains("Grid") && s.contains("Timeline"), "{s}");

    // Run to the first gate: the model's steps, the mutants, generation 0's executions.
    t.keys(&["r"]);
    t.wait_for("paused before generation 0's crossover", 240);
    t.keys(&["2"]);
    let grid = t.wait_for("killed by", 10);
    assert!(grid.contains("generation 0"), "{grid}");

    // A pair, then why a survivor survived: t1 passes on c_old and kills none of generation
    // 0's mutants, so its cell under the cursor survived. (Each mutant of the reach-aware
    // sample is killed by some test, t6 kills all five, so the survivors-only filter would
    // show no column here.)
    t.keys(&["Enter"]);
    t.wait_for("the test's log, c_old -> mutant", 10);
    t.keys(&["Escape", "w"]);
    let why = t.wait_for("why did t1 not kill", 10);
    assert!(
        why.contains("raw logs") || why.contains("killed by"),
        "{why}"
    );
    // Run the pair again under the line tracer.
    t.keys(&["Enter"]);
    let traced = t.wait_for("lines that ran on c_old", 60);
    assert!(traced.contains("the mutated line"), "{traced}");

    // Curate: veto one survivor, edit the other, continue.
    t.keys(&["5"]);
    t.wait_for("Curate: the gate before generation 0", 10);
    t.keys(&["j", "x"]);
    let vetoed = t.wait_for("you vetoed", 20);
    // The selection stays on the vetoed test (it moved down the list): the same key again
    // takes the veto back, and once more vetoes it again.
    let id = vetoed
        .split("you vetoed ")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .unwrap_or_default()
        .to_string();
    assert!(vetoed.contains(&format!("┌ {id} (")), "{id}: {vetoed}");
    t.keys(&["x"]);
    let back = t.wait_for(&format!("you took back the veto of {id}"), 20);
    assert!(
        back.contains(&format!("+ {id} ")),
        "{id} goes on again: {back}"
    );
    t.keys(&["x"]);
    t.wait_for(&format!("you vetoed {id}; going to crossover"), 20);
    t.keys(&["Home", "e"]);
    t.wait_for("(Ctrl-s saves, Esc cancels)", 10);
    t.keys(&["# edited in the workbench", "Enter", "C-s"]);
    t.wait_for("you edited", 120);
    t.keys(&["c"]);
    let gate1 = t.wait_for("paused before generation 1's crossover", 300);
    assert!(!gate1.contains("EVOOTTER-EXITED"), "{gate1}");

    // Pin the first survivor as the final test: it asks first, `n` changes nothing, `u`
    // takes a pin back, and only passing the gate ends the run.
    t.keys(&["5", "p"]);
    t.wait_for("as the final test and end the run? y/n", 10);
    t.keys(&["n"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!t.screen().contains("you pinned"), "{}", t.screen());
    t.keys(&["p", "y"]);
    t.wait_for("you pinned", 60);
    t.keys(&["u"]);
    t.wait_for("you undid", 60);
    assert!(t.screen().contains("going to crossover"), "{}", t.screen());
    t.keys(&["p", "y"]);
    let pinned_screen = t.wait_for("is pinned: passing the gate", 60);
    assert!(pinned_screen.contains("pinned (you)"), "{pinned_screen}");
    t.keys(&["c"]);
    t.wait_for("done: final test", 120);
    t.keys(&["q"]);
    let end = t.wait_for("EVOOTTER-EXITED 0", 60);
    assert!(end.contains("done; final test"), "{end}");

    let doc = evootter::engine::SessionDoc::load(&out.join("session.json")).unwrap();
    let pinned = doc.final_test.clone().unwrap();
    assert!(
        doc.acts.iter().any(|a| matches!(&a.kind,
            evootter::engine::ActKind::Pin { test } if *test == pinned)),
        "{:?}",
        doc.acts
    );

    // The saved session opens again (read-only: it is finished) with the same final test.
    let name2 = format!("{name}-open");
    let t2 = Tmux::start(
        &name2,
        width,
        height,
        &format!("{bin} open {}", out.display()),
    );
    t2.keys(&["1"]);
    let tl = t2.wait_for("final test:", 20);
    assert!(tl.contains(&format!("final test: {pinned}")), "{tl}");
    assert!(tl.contains("read-only"), "{tl}");
    // The help is longer than the terminal: it scrolls to its end and closes with Esc.
    t2.keys(&["?"]);
    let help = t2.wait_for("help: lines 1-", 10);
    assert!(help.contains("killed by"), "{help}");
    t2.keys(&["End"]);
    std::thread::sleep(Duration::from_millis(300));
    let end = t2.screen();
    assert!(
        end.contains("help: lines ") && !end.contains("help: lines 1-"),
        "{end}"
    );
    t2.keys(&["Escape"]);
    t2.wait_for("final test:", 10);
    assert!(!t2.screen().contains("help: lines"), "{}", t2.screen());
    t2.keys(&["q"]);
    t2.wait_for("EVOOTTER-EXITED 0", 20);
}

#[test]
fn the_demo_walkthrough_at_120x36() {
    session_walkthrough(120, 36);
}

#[test]
fn the_demo_walkthrough_at_80x24() {
    session_walkthrough(80, 24);
}

#[test]
fn a_terminal_too_small_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_evootter");
    let name = format!("evootter-small-{}", std::process::id());
    let t = Tmux::start(
        &name,
        40,
        10,
        &format!(
            "cd {} && {bin} demo --out {}",
            root().display(),
            dir.path().join("d").display()
        ),
    );
    let s = t.wait_for("needs at least", 60);
    assert!(s.contains("Make it larger"), "{s}");
    t.keys(&["q"]);
    t.wait_for("EVOOTTER-EXITED", 30);
}

/// The finished demo session shipped in `sessions/` opens on a machine without Python: read
/// only, every screen drawn from the session alone.
#[test]
fn the_shipped_demo_session_opens_without_python() {
    let bin = env!("CARGO_BIN_EXE_evootter");
    let name = format!("evootter-shipped-{}", std::process::id());
    let t = Tmux::start(
        &name,
        120,
        36,
        &format!(
            "cd {} && env PATH=/nonexistent {bin} open sessions/demo",
            root().display()
        ),
    );
    t.wait_for("read-only", 30);
    t.keys(&["1"]);
    let tl = t.wait_for("final test:", 10);
    let doc =
        evootter::engine::SessionDoc::load(&root().join("sessions/demo/session.json")).unwrap();
    let ft = doc.final_test.unwrap();
    assert!(tl.contains(&format!("final test: {ft}")), "{tl}");
    t.keys(&["2", "Enter"]);
    t.wait_for("the test's log, c_old -> mutant", 10);
    t.keys(&["6"]);
    t.wait_for("localize_files", 10);
    t.keys(&["q"]);
    t.wait_for("EVOOTTER-EXITED 0", 20);
}

/// `evootter open` with no session lists the saved ones: each by its directory, the selected
/// one's full path and what opening it does, with a session opened before from elsewhere;
/// one that cannot be read is listed with its reason, not opened and not touched; Enter on
/// a readable one opens it.
#[test]
fn open_without_a_session_lists_them_and_opens_the_chosen_one() {
    let bin = env!("CARGO_BIN_EXE_evootter");
    let data = tempfile::tempdir().unwrap();
    let sessions = data.path().join("evootter/sessions");
    for dir in ["first-run", "second-run"] {
        let to = sessions.join(dir);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(
            root().join("sessions/demo/session.json"),
            to.join("session.json"),
        )
        .unwrap();
    }
    let broken = sessions.join("broken/session.json");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    let newer = "{\"schema_version\": 99}";
    std::fs::write(&broken, newer).unwrap();
    // Saved now, so it is the newest: listed first.
    let elsewhere = tempfile::tempdir().unwrap();
    // A session outside both places the list looks, opened once (as `demo --out DIR` or
    // `run --out DIR` would have made it).
    let mine = elsewhere.path().join("my-demo");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::copy(
        root().join("sessions/demo/session.json"),
        mine.join("session.json"),
    )
    .unwrap();
    let name = format!("evootter-picker-{}", std::process::id());
    let env = format!("XDG_DATA_HOME={}", data.path().display());
    let t = Tmux::start(
        &name,
        80,
        24,
        &format!(
            "cd {} && {env} {bin} open my-demo && {env} {bin} open",
            elsewhere.path().display(),
        ),
    );
    t.wait_for("SCRIPTED  read-only  1 Time", 30);
    t.keys(&["q"]);
    let s = t.wait_for("saved sessions (4)", 30);
    for dir in ["broken", "first-run", "second-run", "my-demo"] {
        assert!(s.contains(dir), "{dir} is listed:\n{s}");
    }
    assert!(s.contains(&broken.display().to_string()), "{s}");
    assert!(
        s.contains("schema version 99"),
        "why it cannot be opened:\n{s}"
    );
    t.keys(&["Enter"]);
    t.wait_for("move it away or open another", 10);
    assert_eq!(std::fs::read_to_string(&broken).unwrap(), newer);
    // A search narrows the list to the second run; Enter opens it.
    t.keys(&["/", "SECOND", "Enter"]);
    let s = t.wait_for("1 of 4 holding \"SECOND\"", 10);
    assert!(!s.contains("first-run") && !s.contains("broken"), "{s}");
    let chosen = "second-run";
    assert!(s.contains(&format!("{chosen}/session.json")), "{s}");
    assert!(s.contains("finished: opens read-only"), "{s}");
    t.keys(&["Enter"]);
    // The workbench's header, which the list does not have.
    t.wait_for("SCRIPTED  read-only  1 Time", 30);
    t.keys(&["1"]);
    t.wait_for("final test:", 10);
    t.keys(&["q"]);
    t.wait_for("EVOOTTER-EXITED 0", 20);
    assert!(sessions.join(chosen).join("session.json").is_file());
}

/// Whether every pane on `screen` that says where it is (`lines a-b of n`) shows its end, and
/// how many said so.
fn panes_at_end(screen: &str) -> (bool, usize) {
    let re = regex::Regex::new(r"lines (\d+)-(\d+) of (\d+)").unwrap();
    let mut n = 0;
    for c in re.captures_iter(screen) {
        n += 1;
        if c[2] != c[3] {
            return (false, n);
        }
    }
    (true, n)
}

/// At 80x24, every screen of a finished session scrolls to the last line of what it shows,
/// and no further: `End` (or paging) reaches it, and more keys down change nothing.
#[test]
fn every_screen_scrolls_to_its_end_at_80x24() {
    let bin = env!("CARGO_BIN_EXE_evootter");
    let name = format!("evootter-ends-{}", std::process::id());
    let t = Tmux::start(
        &name,
        80,
        24,
        &format!("cd {} && {bin} open sessions/demo", root().display()),
    );
    t.wait_for("read-only", 30);
    let settle = || std::thread::sleep(Duration::from_millis(250));
    let mut scrolled = 0;
    // (the keys to the screen, the keys to its end, what must then be on screen)
    let doc =
        evootter::engine::SessionDoc::load(&root().join("sessions/demo/session.json")).unwrap();
    let last_gen = doc.generations.last().unwrap();
    let last_test = last_gen.tests.last().unwrap().clone();
    let cases: [(&[&str], &[&str], String); 6] = [
        // The Timeline ends with the shown generation's cut.
        (&["1"], &["G"], "decided by".to_owned()),
        (&["2"], &["G"], format!(" {last_test} ")),
        (&["2", "Enter"], &["G"], "the test, ".to_owned()),
        (&["2", "w"], &["G"], "why did".to_owned()),
        (&["5"], &["PageDown"; 12], String::new()),
        (&["6"], &["G"], String::new()),
    ];
    for (to_screen, to_end, must_show) in cases {
        t.keys(to_screen);
        settle();
        t.keys(to_end);
        settle();
        let end = t.screen();
        let (at_end, panes) = panes_at_end(&end);
        assert!(
            at_end,
            "{to_screen:?} then {to_end:?} is not at the end:\n{end}"
        );
        scrolled += usize::from(panes > 0);
        if !must_show.is_empty() {
            let last_line = end.lines().any(|l| l.contains(must_show.trim_start()));
            assert!(
                last_line,
                "{to_screen:?}: `{must_show}` is not on screen:\n{end}"
            );
        }
        // Past the end there is nothing: more keys down leave the screen as it is.
        t.keys(&["j", "j", "PageDown"]);
        settle();
        if to_screen != ["2"] && to_screen != ["5"] {
            assert_eq!(t.screen(), end, "{to_screen:?} scrolled past its end");
        }
        t.keys(&["Escape"]);
    }
    assert!(
        scrolled >= 3,
        "at 80x24 most screens are longer than the terminal"
    );
    // The help too.
    t.keys(&["?", "G"]);
    settle();
    let help = t.screen();
    assert!(help.contains("help: lines"), "{help}");
    assert!(panes_at_end(&help).0, "{help}");
    t.keys(&["Escape", "q"]);
    t.wait_for("EVOOTTER-EXITED 0", 20);
}

/// What a TUI user reaches for, on the shipped session at both sizes: the figure of the run on
/// the Timeline, `/` with `n` on a text screen and on the Grid, `g` + id, `[` `]` between
/// generations, the not-reached glyph, and `y` writing the selected test to a file.
#[test]
fn search_go_to_generations_figure_and_write_at_both_sizes() {
    let bin = env!("CARGO_BIN_EXE_evootter");
    let doc =
        evootter::engine::SessionDoc::load(&root().join("sessions/demo/session.json")).unwrap();
    for (w, h) in [(80u16, 24u16), (120, 36)] {
        let dir = tempfile::tempdir().unwrap();
        let name = format!("evootter-find-{}-{w}", std::process::id());
        let t = Tmux::start(
            &name,
            w,
            h,
            &format!(
                "cd {} && {bin} open {}",
                dir.path().display(),
                root().join("sessions/demo").display()
            ),
        );
        t.wait_for("read-only", 30);
        let settle = || std::thread::sleep(Duration::from_millis(250));
        // The figure: its three charts, whatever the size.
        t.keys(&["1"]);
        let tl = t.wait_for("per generation", 10);
        assert!(tl.contains("kills per mutant kind") || w < 100, "{tl}");
        assert!(tl.contains("kills per test, generation"), "{tl}");
        // Each chart says what its bars are.
        assert!(
            tl.contains("tests  mutants") && tl.contains("kept  vetoed"),
            "{tl}"
        );
        // Generation 0 by `[`, then a search of its text: every hit on screen after `n`.
        t.keys(&["[", "[", "/", "b", "r", "t", "Enter"]);
        settle();
        let found = t.screen();
        assert!(found.contains("kills per test, generation 0"), "{found}");
        assert!(
            found.contains("fitness rule brt"),
            "the hit is on screen:\n{found}"
        );
        assert!(found.contains("n next hit"), "{found}");
        // `g` + id from anywhere: t4 lives in generation 0 only.
        t.keys(&["6", "g", "4", "Enter"]);
        let grid = t.wait_for("Grid: generation 0 of", 10);
        assert!(grid.contains("t4"), "{grid}");
        // The grid's legend has a glyph for "never runs the mutated lines", and the sampled
        // mutants of a reach-aware run that a test does not execute show it.
        let g0 = &doc.generations[0];
        let unreached = g0.tests.iter().any(|test| {
            let lines = evootter::engine::reach::test_lines(&doc, test);
            lines.is_some() && g0.scores[test].kills.len() < g0.mutants.len()
        });
        if unreached {
            assert!(grid.contains(" _"), "{grid}");
        }
        // A search on the grid selects the matching row.
        t.keys(&["/", "t", "6", "Enter"]);
        settle();
        let row = t.screen();
        assert!(
            row.contains("t6 x "),
            "the detail line names the selected row:\n{row}"
        );
        // `y` writes the selected test to the file named.
        t.keys(&["Escape", "y"]);
        t.wait_for("write t6 to:", 10);
        t.keys(&["C-u"]);
        for _ in 0..40 {
            t.keys(&["BSpace"]);
        }
        t.keys(&["mine.py", "Enter"]);
        t.wait_for("wrote mine.py", 10);
        let written = std::fs::read_to_string(dir.path().join("mine.py")).unwrap();
        assert_eq!(written, doc.tests["t6"].source);
        // Again: it asks before writing over it; `n` leaves it.
        t.keys(&["y"]);
        t.wait_for("write t6 to:", 10);
        for _ in 0..40 {
            t.keys(&["BSpace"]);
        }
        t.keys(&["mine.py", "Enter"]);
        t.wait_for("write over it? y/n", 10);
        t.keys(&["n"]);
        t.keys(&["q"]);
        t.wait_for("EVOOTTER-EXITED 0", 20);
    }
}

/// The Batch screen on a batch while `bench` runs it (two bundled examples, one at a time):
/// queued and running rows, then done; a filter, a search, Enter into an instance's session
/// and Esc back to the same row; then the batch compared with one selecting by the Otter
/// rules without crossover, which loses invoicekit (its wrong-expectation test is the
/// shortest); at 80x24.
#[test]
fn a_batch_is_a_screen_live_while_it_runs_and_compares_with_another() {
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let rows = common::bench_rows::rows_file(
        dir.path(),
        &repos,
        &["envconf_errors", "invoicekit_rounding"],
    );
    let out = dir.path().join("batch");
    let bench = |out: &std::path::Path, extra: &[&str]| {
        bin()
            .args(["bench", "--parallel", "1"])
            .args(extra)
            .arg("--instances")
            .arg(&rows)
            .arg("--repos")
            .arg(&repos)
            .arg("--out")
            .arg(out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut running = bench(&out, &[]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !out.join("batch.json").is_file() {
        assert!(Instant::now() < deadline, "bench wrote no manifest");
        std::thread::sleep(Duration::from_millis(50));
    }
    let bin = env!("CARGO_BIN_EXE_evootter");
    let name = format!("evootter-batch-{}", std::process::id());
    let t = Tmux::start(&name, 80, 24, &format!("{bin} open {}", out.display()));
    // Live: the second instance waits while the first runs.
    let live = t.wait_for("queued 1", 30);
    assert!(live.contains("running 1"), "{live}");
    let done = t.wait_for("done 2, running 0, queued 0", 180);
    assert!(done.contains("F2P 2/2 (100%)"), "{done}");
    assert!(running.wait().unwrap().success());

    // The figures of the rows, and back to the table.
    t.keys(&["v"]);
    let figures = t.wait_for("cuts decided by", 10);
    assert!(
        figures.contains("F2P tests per generation, 2 instances"),
        "{figures}"
    );
    t.keys(&["v"]);
    t.wait_for("rows 1-2 of 2", 10);
    // Sorted by state, then the other way round.
    t.keys(&["s"]);
    t.wait_for("sorted by state)", 10);
    t.keys(&["S"]);
    t.wait_for("sorted by state, reversed)", 10);
    // Not F2P: none; Esc takes the filter back.
    t.keys(&["f"]);
    t.wait_for("0 of 2 instances (not F2P", 10);
    t.keys(&["Escape"]);
    t.wait_for("2 of 2 instances (all", 10);
    // A search, then its session and back.
    t.keys(&["/"]);
    t.keys(&["i", "n", "v", "Enter"]);
    let found = t.wait_for("1 of 2 instances (all, matching \"inv\"", 10);
    assert!(found.contains("evootter__invoicekit_rounding-1 (evootter/invoicekit_rounding): done"));
    t.keys(&["Enter"]);
    // The workbench's screens, on the instance's session (its id in the status line).
    let session = t.wait_for("evootter__invoicekit_rounding-1 | done", 10);
    assert!(session.contains("read-only"), "{session}");
    t.keys(&["Escape"]);
    let back = t.wait_for("Batch batch", 10);
    assert!(
        back.contains("evootter__invoicekit_rounding-1 (evootter/invoicekit_rounding): done"),
        "the same row: {back}"
    );
    t.keys(&["q"]);
    t.wait_for("EVOOTTER-EXITED 0", 10);
    drop(t);

    // The second batch run behind its screen (`bench --tui`): q once it is done, and the
    // batch's summary follows.
    let otter = dir.path().join("otter");
    let behind = Tmux::start(
        &format!("{name}-tui"),
        80,
        24,
        &format!(
            "{bin} bench --tui --parallel 1 --selection otter --crossover none --instances {} \
             --repos {} --out {}",
            rows.display(),
            repos.display(),
            otter.display()
        ),
    );
    behind.wait_for("Batch otter:", 30);
    behind.wait_for("done 2, running 0, queued 0", 180);
    behind.keys(&["q"]);
    let after = behind.wait_for("EVOOTTER-EXITED 0", 30);
    assert!(after.contains("summary: "), "{after}");
    drop(behind);
    let c = Tmux::start(
        &format!("{name}-compare"),
        80,
        24,
        &format!("{bin} open --compare {} {}", out.display(), otter.display()),
    );
    let table = c.wait_for("2 instances: B gained 0, lost 1", 10);
    assert!(table.contains("both F2P"), "{table}");
    // Lost by B: invoicekit; its two sessions side by side, then their final tests' diff.
    c.keys(&["f", "f"]);
    c.wait_for("Compare A batch with B otter (lost by B)", 10);
    c.keys(&["Enter"]);
    let sides = c.wait_for("selection otter", 10);
    assert!(sides.contains("selection mutation"), "{sides}");
    // B's session in the workbench's screens, and back.
    c.keys(&["b"]);
    let b_session = c.wait_for("evootter__invoicekit_rounding-1 | done", 10);
    assert!(b_session.contains("read-only"), "{b_session}");
    c.keys(&["Escape"]);
    c.wait_for("selection otter", 10);
    c.keys(&["l"]);
    c.wait_for("the final tests, A -> B", 10);
    c.keys(&["Escape"]);
    c.wait_for("lost by B", 10);
    c.keys(&["q"]);
    c.wait_for("EVOOTTER-EXITED 0", 10);
}
