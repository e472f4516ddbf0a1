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
    let mut killed = 0;
    for m in mutants {
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
        match status {
            "Killed" | "Timeout" => {
                killed += 1;
                assert!(!by.is_empty(), "{m}");
            }
            "Survived" => assert!(by.is_empty() && !covered.is_empty(), "{m}"),
            "Ignored" => assert!(covered.is_empty(), "{m}"),
            other => panic!("unexpected status {other}"),
        }
        let line = m["location"]["start"]["line"].as_u64().unwrap();
        assert!(line >= 1, "{m}");
    }
    assert!(killed > 0, "the F2P test kills something");
    let tests = r["testFiles"].as_object().unwrap();
    let n: usize = tests
        .values()
        .map(|f| f["tests"].as_array().unwrap().len())
        .sum();
    assert_eq!(n, session["tests"].as_object().unwrap().len());
}
