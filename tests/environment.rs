//! The kill matrix must not depend on where evootter runs: pytest changes its output when it
//! believes it is on a CI server (`CI`, `BUILD_NUMBER`), so those are not passed on.

use crate::common;
use common::*;

#[test]
fn logs_are_the_same_on_a_ci_server() {
    // A long multi-line string comparison: pytest truncates its explanation, except on CI.
    let tiny = Tiny::new(&[
        (
            "test_a.py",
            "from calc.ops import clamp\n\n\ndef test_many():\n    got = \"\\n\".join(str(clamp(x, 0, 10)) for x in range(30))\n    assert got == \"\\n\".join(str(min(x, 10)) for x in range(30))\n",
        ),
        (
            "test_b.py",
            "from calc.ops import clamp\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
        ),
    ]);
    let logs = |name: &str, ci: bool| {
        let mut cmd = tiny.command(name);
        if ci {
            cmd.env("CI", "true").env("BUILD_NUMBER", "7");
        } else {
            cmd.env_remove("CI").env_remove("BUILD_NUMBER");
        }
        let o = cmd
            .args(["--focal", "calc/ops.py::clamp", "--mutants", "4"])
            .arg("--initial-tests")
            .arg(&tiny.cands)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let s = read_json(&tiny.out(name).join("session.json"));
        let key = s["executions"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| {
                k.ends_with("@old")
                    && s["tests"]["t1"]["hash"]
                        .as_str()
                        .unwrap()
                        .starts_with(&k[..16])
            })
            .map(|(_, e)| e["normalized_log"].as_str().unwrap().to_string())
            .unwrap();
        s["logs"][&key].as_str().unwrap().to_string()
    };
    let here = logs("here", false);
    assert!(here.contains("Full output truncated"), "{here}");
    assert_eq!(here, logs("on_ci", true));
}
