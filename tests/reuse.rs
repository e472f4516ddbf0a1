//! `--reuse-executions`: a second strategy on the same instance runs nothing already run.

use crate::common;
use common::*;

#[test]
fn second_strategy_reuses_every_execution() {
    let tiny = Tiny::new(&[
        (
            "test_a.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
        (
            "test_b.py",
            "from calc.ops import clamp\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
        ),
    ]);
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["--mutants", "6"];
        args.extend_from_slice(extra);
        let o = tiny.run(out, &args);
        assert!(o.status.success(), "{}", text(&o));
        read_json(&tiny.out(out).join("session.json"))
    };
    let first = run("a", &[]);
    let first_session = tiny.out("a").join("session.json");

    // `show` reads the session alone: the grid, then one pair's mutant diff and log diff.
    let o = bin().arg("show").arg(tiny.out("a")).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let grid = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(grid.contains("generation 0: 2 tests x"), "{grid}");
    assert!(
        grid.contains("test_a.py") && grid.contains("final test:"),
        "{grid}"
    );
    let mutant = first["generations"][0]["mutants"][0]
        .as_str()
        .unwrap()
        .to_string();
    let o = bin()
        .arg("show")
        .arg(&first_session)
        .args(["--test", "t1", "--mutant", &mutant[..6]])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let pair = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(pair.contains(&format!("mutant {mutant}")), "{pair}");
    assert!(pair.contains("+++ b/calc/ops.py"), "{pair}");
    assert!(pair.contains("normalized log, c_old -> mutant"), "{pair}");
    let o = bin()
        .arg("show")
        .arg(&first_session)
        .args(["--test", "t9", "--mutant", &mutant])
        .output()
        .unwrap();
    assert!(text(&o).contains("no test `t9`"), "{}", text(&o));
    let second = run(
        "b",
        &[
            "--selection",
            "otter",
            "--reuse-executions",
            first_session.to_str().unwrap(),
        ],
    );
    assert_eq!(
        first["executions"], second["executions"],
        "nothing ran again"
    );
    assert!(!first["executions"].as_object().unwrap().is_empty());
    assert_eq!(second["generations"][0]["selected_by"], "otter");
    assert!(second["notes"].to_string().contains("reused"));

    // A changed repository refuses the reuse, naming why.
    std::fs::write(tiny.repo.join("calc/extra.py"), "X = 1\n").unwrap();
    let o = tiny.run(
        "c",
        &["--reuse-executions", first_session.to_str().unwrap()],
    );
    assert!(!o.status.success());
    assert!(text(&o).contains("repository content"), "{}", text(&o));
}
