//! `evootter show` on a real run: each kill matrix names its columns (in the order
//! `evootter mutants` lists the pool) so a column leads to `show --test T --mutant ID`, and
//! each cut says why it went as it did, here that the test with the most kills was dropped
//! because it passes on c_old.

use crate::common;
use common::*;
use std::collections::BTreeSet;

/// t1 passes on c_old (it pins down today's behaviour, bug included), so nearly every mutant
/// of `clamp` changes its log; the others fail on c_old and kill few.
fn candidates() -> Tiny {
    Tiny::new(&[
        (
            "test_a_pins.py",
            "from calc.ops import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n\n\ndef test_high():\n    assert clamp(15, 0, 10) == 9\n\n\ndef test_edges():\n    assert clamp(0, 0, 10) == 0\n    assert clamp(10, 0, 10) == 10\n",
        ),
        (
            "test_b_upper.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
        (
            "test_c_wrong.py",
            "from calc.ops import clamp\n\ndef test_wrong():\n    assert clamp(15, 0, 10) == 11\n",
        ),
        (
            "test_d_nothing.py",
            "def test_nothing():\n    assert False\n",
        ),
    ])
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", text(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The part of `show`'s output about generation `g`.
fn block(shown: &str, g: usize) -> &str {
    let start = shown
        .find(&format!("\ngeneration {g}: "))
        .unwrap_or_else(|| panic!("no generation {g} in:\n{shown}"));
    let rest = &shown[start + 1..];
    let end = rest[1..]
        .find("\ngeneration ")
        .map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// The mutant ids of a block's column legend, column 1 first.
fn legend(block: &str) -> Vec<String> {
    let mut ids = vec![];
    for line in block.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [n, id, ..] = words.as_slice()
            && n.parse::<usize>() == Ok(ids.len() + 1)
            && id.starts_with('m')
        {
            ids.push(id.to_string());
        }
    }
    ids
}

/// The glyphs of `test`'s row in a block.
fn row(block: &str, test: &str) -> String {
    block
        .lines()
        .map(str::split_whitespace)
        .find_map(|mut w| (w.next() == Some(test)).then(|| w.next().unwrap().to_string()))
        .unwrap_or_else(|| panic!("no row for {test} in:\n{block}"))
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[expect(
    clippy::too_many_lines,
    reason = "one session read as show prints it, top to bottom: the assertions follow its lines"
)]
#[test]
fn show_names_columns_in_pool_order_and_explains_each_cut() {
    let tiny = candidates();
    let o = tiny.run("out", &["--mutants", "10", "--seed", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let session_path = tiny.out("out").join("session.json");
    let session = read_json(&session_path);
    let generations = session["generations"].as_array().unwrap();
    assert_eq!(generations.len(), 2, "4 -> 2 -> 1");

    // What the test is about: t1 has the most kills of generation 0, passes on c_old, and is
    // dropped.
    let g0 = &generations[0];
    let kills = |t: &str| g0["scores"][t]["kills"].as_array().unwrap().len();
    assert_eq!(g0["scores"]["t1"]["old_outcome"], "passed");
    assert!(
        ["t2", "t3", "t4"].iter().all(|t| kills("t1") > kills(t)),
        "{g0:#}"
    );
    assert!(!strings(&g0["selected"]).contains(&"t1".to_string()));

    // A reach-aware run (the default) draws its samples from every mutant the focal function
    // yields, not from the first `--mutants` of them: `evootter mutants` lists that pool when
    // asked for as many.
    let pool_size = session["pool"]["mutants"].as_array().unwrap().len();
    assert!(pool_size > 10, "the whole pool: {pool_size}");
    let pool_order: Vec<String> = stdout(
        &bin()
            .args(["mutants", "--repo"])
            .arg(&tiny.repo)
            .args([
                "--focal",
                "calc/ops.py::clamp",
                "--count",
                &pool_size.to_string(),
                "--seed",
                "1",
            ])
            .output()
            .unwrap(),
    )
    .lines()
    .map(|l| l.split_whitespace().next().unwrap().to_string())
    .collect();
    let in_session: Vec<String> = session["pool"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        pool_order, in_session,
        "`evootter mutants` lists the run's pool"
    );

    let shown = stdout(&bin().arg("show").arg(tiny.out("out")).output().unwrap());
    for (i, g) in generations.iter().enumerate() {
        let b = block(&shown, i);
        let columns = legend(b);
        let sample: BTreeSet<String> = strings(&g["mutants"]).into_iter().collect();
        assert_eq!(
            columns.iter().cloned().collect::<BTreeSet<_>>(),
            sample,
            "the legend lists every mutant of generation {i}:\n{b}"
        );
        let expected: Vec<String> = pool_order
            .iter()
            .filter(|id| sample.contains(*id))
            .cloned()
            .collect();
        assert_eq!(columns, expected, "columns in `mutants` order:\n{b}");
        // Each column's glyphs belong to the mutant the legend names there: a kill glyph
        // exactly where the session counts a kill.
        for t in strings(&g["tests"]) {
            let glyphs: Vec<char> = row(b, &t).chars().collect();
            let killed = strings(&g["scores"][&t]["kills"]);
            for (j, id) in columns.iter().enumerate() {
                assert_eq!(
                    "KkRTE".contains(glyphs[j]),
                    killed.contains(id),
                    "{t} column {} ({id}):\n{b}",
                    j + 1
                );
            }
        }
        // The Grid's `killed by` row: per column, the tests whose glyph is a kill fitness
        // counts (under the default BRT rule a rescue `R` and a kill in passing cases only
        // `p` are not).
        let counts: Vec<usize> = b
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("killed by, column by column: "))
            .unwrap_or_else(|| panic!("no killed by line:\n{b}"))
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        let rows: Vec<Vec<char>> = strings(&g["tests"])
            .iter()
            .map(|t| row(b, t).chars().collect())
            .collect();
        let expected: Vec<usize> = (0..columns.len())
            .map(|j| rows.iter().filter(|r| "KkTE".contains(r[j])).count())
            .collect();
        assert_eq!(counts, expected, "{b}");
        // Every glyph of the block is named on its `cells:` line, as the TUI names it.
        let cells_line = b
            .lines()
            .find(|l| l.trim_start().starts_with("cells: "))
            .unwrap_or_else(|| panic!("no cells: line in:\n{b}"));
        for t in strings(&g["tests"]) {
            for c in row(b, &t).chars() {
                assert!(
                    cells_line.contains(&format!("{c} ")),
                    "{c} is not in the legend:\n{b}"
                );
            }
        }
        let tests = g["tests"].as_array().unwrap().len();
        let kept = g["selected"].as_array().unwrap().len();
        assert!(
            b.lines().any(|l| l
                .trim_start()
                .starts_with(&format!("cut {tests} -> {kept} "))),
            "generation {i}'s cut is explained:\n{b}"
        );
    }
    let b0 = block(&shown, 0);
    // t2 (clamp(15, 0, 10)) never runs `return lo`: a mutant there cannot be killed by it,
    // and its row says so as the Grid does (`_`, not `.`), and so does the pair.
    assert!(
        b0.contains("_ not reached (survived: never runs the mutated lines)"),
        "{b0}"
    );
    let t2 = row(b0, "t2");
    let j = t2
        .find('_')
        .unwrap_or_else(|| panic!("t2 reaches every mutant:\n{b0}"));
    let pair = stdout(
        &bin()
            .arg("show")
            .arg(&session_path)
            .args(["--test", "t2", "--mutant", &legend(b0)[j]])
            .output()
            .unwrap(),
    );
    assert!(
        pair.contains("-> not reached: the mutated lines never run"),
        "{pair}"
    );
    // Why, in the Why screen's words: the reach first, then who does kill it.
    let why = pair
        .split("\nwhy (generation ")
        .nth(1)
        .unwrap_or_else(|| panic!("no why:\n{pair}"));
    let reasons: Vec<&str> = why.lines().filter(|l| l.starts_with("- ")).collect();
    assert!(
        reasons
            .first()
            .is_some_and(|r| r.starts_with("- t2's c_old run never executes the mutant's line")),
        "{pair}"
    );
    // The raw logs, before normalization, on asking.
    let raw = stdout(
        &bin()
            .arg("show")
            .arg(&session_path)
            .args(["--test", "t2", "--mutant", &legend(b0)[j], "--raw"])
            .output()
            .unwrap(),
    );
    assert!(
        raw.contains("\nraw log, c_old -> mutant:\n") && !raw.contains("normalized log, c_old"),
        "{raw}"
    );
    assert!(
        b0.lines().any(|l| l.contains("t1 has the most kills")
            && l.contains("passes on c_old")
            && l.contains("ranks last")),
        "t1's drop is explained:\n{b0}"
    );

    // A column of the legend leads to the pair's diff and logs.
    let first = &legend(b0)[0];
    let pair = stdout(
        &bin()
            .arg("show")
            .arg(&session_path)
            .args(["--test", "t1", "--mutant", first])
            .output()
            .unwrap(),
    );
    assert!(pair.contains(&format!("mutant {first}")), "{pair}");
    assert!(pair.contains("normalized log, c_old -> mutant"), "{pair}");

    // A mutant t1 never met: `show` says where it was sampled instead.
    let later = legend(block(&shown, 1))
        .into_iter()
        .find(|id| !legend(b0).contains(id))
        .expect("generation 1 samples more mutants than generation 0");
    let pair = stdout(
        &bin()
            .arg("show")
            .arg(&session_path)
            .args(["--test", "t1", "--mutant", &later])
            .output()
            .unwrap(),
    );
    assert!(
        pair.contains("never ran on this mutant") && pair.contains("generation 1's sample"),
        "{pair}"
    );
}

/// `--preset paper` is the published method in one word: the run is made with each of its
/// options, an option given explicitly wins, and report.json and `show` say what it set.
#[test]
fn the_paper_preset_runs_the_published_method_and_says_what_it_set() {
    let tiny = candidates();
    let o = tiny.run(
        "paper",
        &["--mutants", "6", "--preset", "paper", "--operators", "all"],
    );
    assert!(o.status.success(), "{}", text(&o));
    // The preset's own choices are not reported as options that change nothing.
    assert!(!text(&o).contains("changes nothing here"), "{}", text(&o));
    let out = tiny.out("paper");
    let report = read_json(&out.join("report.json"));
    assert_eq!(report["preset"]["name"], "paper");
    assert_eq!(
        report["preset"]["set"],
        serde_json::json!([
            "--fitness paper",
            "--sampling all",
            "--mutant-scope focal",
            "--no-settle-ties",
            "--no-witnesses",
            "--no-rescue-tiebreak",
            "--no-flaky-check",
            "--keep-equivalent-mutants"
        ]),
        "--operators was given, so the preset did not set it"
    );
    assert_eq!(report["fitness"], "paper");
    assert_eq!(report["mutant_reach"], "all");
    assert_eq!(report["mutant_scope"], "focal");
    assert_eq!(report["settle_ties"], false);
    assert_eq!(report["witnesses"], false);
    assert_eq!(report["rescue_tiebreak"], false);
    let session = read_json(&out.join("session.json"));
    assert_eq!(session["config"]["operators"], "all");
    assert_eq!(session["config"]["check_flaky"], false);
    assert_eq!(session["config"]["keep_equivalent_mutants"], true);
    let shown = stdout(&bin().arg("show").arg(&out).output().unwrap());
    assert!(
        shown.contains("preset paper (--fitness paper, --sampling all, --mutant-scope focal,"),
        "{shown}"
    );
    // No preset, no line.
    let plain = tiny.run("plain", &["--mutants", "6"]);
    assert!(plain.status.success(), "{}", text(&plain));
    assert!(read_json(&tiny.out("plain").join("report.json"))["preset"].is_null());
}

/// `--mutant-kinds` keeps the pool to the kinds named (the paper's Table IX runs each category
/// alone); report.json counts the pool, executions and kills per category, and a name that is
/// no kind is refused with the names there are.
#[test]
fn a_run_of_some_mutant_kinds_samples_only_them_and_counts_by_category() {
    let tiny = candidates();
    let o = tiny.run(
        "kinds",
        &[
            "--mutants",
            "6",
            "--mutant-kinds",
            "return_value,force-failure",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let report = read_json(&tiny.out("kinds").join("report.json"));
    let kinds: Vec<&str> = report["mutant_kinds"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(!kinds.is_empty(), "{report}");
    assert!(
        kinds
            .iter()
            .all(|k| ["return_value", "force_failure"].contains(k)),
        "{kinds:?}"
    );
    let cats = report["mutant_categories"].as_object().unwrap();
    assert!(
        cats.keys()
            .all(|c| c == "return_value" || c == "force_failure"),
        "{cats:?}"
    );
    let pool: u64 = cats.values().map(|c| c["pool"].as_u64().unwrap()).sum();
    assert_eq!(pool, report["mutants_total"].as_u64().unwrap());
    let executions: u64 = cats
        .values()
        .map(|c| c["executions"].as_u64().unwrap())
        .sum();
    assert!(executions > 0, "{cats:?}");
    let shown = stdout(&bin().arg("show").arg(tiny.out("kinds")).output().unwrap());
    assert!(
        shown.contains("mutant kinds: only return_value, force_failure"),
        "{shown}"
    );

    // Kinds the focal function has no site for: refused before anything runs, not an
    // evolution over no mutant.
    let none = tiny.run("none", &["--mutant-kinds", "assignment"]);
    assert!(!none.status.success());
    assert!(
        text(&none).contains("--mutant-kinds assignment: the focal functions have no site"),
        "{}",
        text(&none)
    );
    assert!(!tiny.out("none").exists());

    let bad = tiny.run("bad", &["--mutant-kinds", "operator"]);
    assert!(!bad.status.success());
    let err = text(&bad);
    assert!(
        err.contains("unknown mutant kind `operator`") && err.contains("operators"),
        "{err}"
    );
    assert!(!tiny.out("bad").exists());
}

/// The paper's other systems on the same engine: the Otter rules pick one candidate from their
/// c_old runs, BaseBRT keeps its one test; neither makes or runs a mutant, and `show` says
/// which ran. What would contradict a method is refused before anything is written.
#[test]
fn rule_select_and_basebrt_run_no_mutant_and_say_so() {
    let tiny = candidates();
    let o = tiny.run("rules", &["--method", "rule-select"]);
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&tiny.out("rules").join("report.json"));
    assert_eq!(r["method"], "rule-select");
    assert_eq!(r["mutants_total"], 0);
    let g = &r["generations"][0];
    assert_eq!(g["selected_by"], "otter");
    assert_eq!(g["selected"].as_array().unwrap().len(), 1);
    // Each of the 4 candidates on c_old, twice (the flaky check): nothing else.
    assert_eq!(r["executions_total"], 8);
    // The Otter rules: assertion failures first (t2, t3 and t4's bare `assert False`), the
    // shortest of them. The rules cannot tell a test that reproduces the issue from one that
    // fails on anything, which is why the paper measures kills.
    assert_eq!(r["final_test_id"], "t4");
    let shown = stdout(&bin().arg("show").arg(tiny.out("rules")).output().unwrap());
    assert!(
        shown.contains("method rule-select: the Otter rules pick one candidate, no mutant"),
        "{shown}"
    );
    assert!(!shown.contains("mutant pool"), "{shown}");

    let o = tiny.run("base", &["--method", "basebrt"]);
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&tiny.out("base").join("report.json"));
    assert_eq!(r["method"], "basebrt");
    assert_eq!(r["generations"].as_array().unwrap().len(), 0);
    assert_eq!(r["final_test_id"], "t1");
    assert_eq!(r["executions_total"], 0);

    for (args, says) in [
        (
            &["--method", "basebrt", "--tests", "3"][..],
            "drop --tests 3",
        ),
        (
            &["--method", "rule-select", "--selection", "random"][..],
            "drop --selection random",
        ),
        (
            &["--method", "rule-select", "--crossover", "llm"][..],
            "makes no offspring",
        ),
        (&["--method", "mutation"][..], "unknown method `mutation`"),
    ] {
        let o = tiny.run("refused", args);
        assert!(!o.status.success(), "{args:?}");
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
        assert!(!tiny.out("refused").exists());
    }
}
