//! A test whose c_old log changes from run to run is marked flaky and its "kills" (log
//! differences that are only noise) do not count.

mod common;
use common::*;

#[test]
fn flaky_candidate_is_marked_and_loses_its_noise_kills() {
    let dir = tempfile::tempdir().unwrap();
    let repo = tiny_repo(dir.path());
    let cands = dir.path().join("cands");
    std::fs::create_dir(&cands).unwrap();
    // Fails on c_old with a random word in its message: every run's log differs.
    std::fs::write(
        cands.join("test_a_noisy.py"),
        "import random, string\nfrom calc.ops import clamp\n\ndef test_noisy():\n    word = ''.join(random.choice(string.ascii_lowercase) for _ in range(16))\n    assert clamp(15, 0, 10) == 10, word\n",
    )
    .unwrap();
    std::fs::write(
        cands.join("test_b_steady.py"),
        "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let o = bin()
        .args(["run", "--focal", "calc/ops.py::clamp", "--mutants", "6"])
        .arg("--repo")
        .arg(&repo)
        .arg("--issue")
        .arg(dir.path().join("issue.md"))
        .arg("--initial-tests")
        .arg(&cands)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&out_dir.join("report.json"));
    let g = &r["generations"][0];
    assert_eq!(g["flaky"], serde_json::json!(["t1"]), "{g:#}");
    assert_eq!(g["selected"], serde_json::json!(["t2"]));
    assert!(r["notes"].to_string().contains("flaky"));
    // Each test ran twice on c_old, plus once per mutant.
    let mutants = g["mutants"].as_array().unwrap().len();
    assert_eq!(
        g["executions"].as_u64().unwrap() as usize,
        2 * (mutants + 2)
    );
}
