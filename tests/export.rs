//! `show --mutation-report`: the kill matrix in the mutation-testing-report-schema JSON that
//! Stryker's viewer reads, consistent with the session.

use crate::common;
use common::*;

#[test]
fn the_mutation_report_has_every_mutant_with_its_killers() {
    let tiny = Tiny::four();
    let o = tiny.run("out", &["--mutants", "6"]);
    assert!(o.status.success(), "{}", text(&o));
    let file = tiny.out("report-stryker.json");
    let o = bin()
        .arg("show")
        .arg(tiny.out("out"))
        .arg("--mutation-report")
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&file);
    assert_eq!(r["schemaVersion"], "2");
    let session = read_json(&tiny.out("out").join("session.json"));
    let pool: Vec<&str> = session["pool"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let mutants = r["files"]["calc/ops.py"]["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), pool.len());
    assert!(
        r["files"]["calc/ops.py"]["source"]
            .as_str()
            .unwrap()
            .contains("def clamp")
    );
    // test_b.py (clamp(5, 0, 10)) never runs lines 4 and 6 (`return lo`, `return hi - 1`):
    // it ran on mutants there but covers none of them.
    let inside = session["tests"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, t)| t["name"] == "test_b.py")
        .map(|(id, _)| id.as_str())
        .unwrap();
    // Executions are keyed by the first 16 characters of the test's hash.
    let inside_hash = &session["tests"][inside]["hash"].as_str().unwrap()[..16];
    let mut killed = 0;
    let mut unreached_runs = 0;
    for m in mutants {
        let id = m["id"].as_str().unwrap();
        let status = m["status"].as_str().unwrap();
        let by: Vec<&str> = m["killedBy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let covered: Vec<&str> = m["coveredBy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(by.iter().all(|t| covered.contains(t)), "{m}");
        let line = m["location"]["start"]["line"].as_u64().unwrap();
        if [4, 6].contains(&line)
            && session["executions"]
                .get(format!("{inside_hash}@{id}"))
                .is_some()
        {
            unreached_runs += 1;
            assert!(!covered.contains(&inside), "{m}");
        }
        match status {
            "Killed" | "Timeout" => {
                killed += 1;
                assert!(!by.is_empty(), "{m}");
            }
            "Survived" => assert!(by.is_empty() && !covered.is_empty(), "{m}"),
            "Ignored" | "NoCoverage" => assert!(covered.is_empty(), "{m}"),
            other => panic!("unexpected status {other}"),
        }
        assert!(line >= 1, "{m}");
    }
    assert!(killed > 0, "the F2P test kills something");
    assert!(
        unreached_runs > 0,
        "test_b.py ran on a mutant it never reaches"
    );
    let tests = r["testFiles"].as_object().unwrap();
    let n: usize = tests
        .values()
        .map(|f| f["tests"].as_array().unwrap().len())
        .sum();
    assert_eq!(n, session["tests"].as_object().unwrap().len());
}
