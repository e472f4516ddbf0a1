//! A test whose c_old log changes from run to run is marked flaky and its "kills" (log
//! differences that are only noise) do not count.

use crate::common;
use common::*;

#[test]
fn flaky_candidate_is_marked_and_loses_its_noise_kills() {
    let tiny = Tiny::new(&[
        // Fails on c_old with a random word in its message: every run's log differs.
        (
            "test_a_noisy.py",
            "import random, string\nfrom calc.ops import clamp\n\ndef test_noisy():\n    word = ''.join(random.choice(string.ascii_lowercase) for _ in range(16))\n    assert clamp(15, 0, 10) == 10, word\n",
        ),
        (
            "test_b_steady.py",
            "from calc.ops import clamp\n\ndef test_upper():\n    assert clamp(15, 0, 10) == 10\n",
        ),
    ]);
    let o = tiny.run("out", &["--mutants", "6"]);
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&tiny.out("out").join("report.json"));
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
