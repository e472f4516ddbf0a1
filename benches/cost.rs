//! What an instance costs at Claude Sonnet 4.5's prices (input $3, cache writes $3.75, cache
//! reads $0.30, output $15 per million tokens), computed from the usage a simulated Anthropic
//! provider (`tests/mock_http/provider.rs`: its prompt cache as documented, a token per 4
//! bytes) records for the bundled examples' full workflow (single prompting, the examples'
//! recorded replies): each call as it comes (a workbench session), with the documented
//! minimum cacheable prefix (1,024 tokens) and without one (what caching gives prompts whose
//! shared parts are long enough), and as `bench --llm-batch` (the five instances' calls in
//! provider batches, at half price). Each against the same run's tokens without any cache.
//!
//! `cargo bench --bench cost`.

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/mock_http/mod.rs"]
mod mock_http;

use common::bench_rows::rows_file;
use common::*;
use mock_http::provider::{Faults, Provider};
use mock_http::scripted::Wire;
use std::path::Path;

const KEY: &str = "sk-cost-NEVER-STORED";

/// (cost as recorded, the same tokens without any prompt cache, input read from cache /
/// all input)
fn costs(calls: &[serde_json::Value]) -> (f64, f64, f64) {
    let n = |c: &serde_json::Value, k: &str| c[k].as_f64().unwrap_or(0.0);
    let (mut recorded, mut none, mut read, mut input) = (0.0, 0.0, 0.0, 0.0);
    for c in calls {
        recorded += n(c, "cost_usd");
        let all_in = n(c, "input_tokens") + n(c, "cache_write_tokens") + n(c, "cache_read_tokens");
        none += (all_in * 3.0 + n(c, "output_tokens") * 15.0) / 1e6;
        read += n(c, "cache_read_tokens");
        input += all_in;
    }
    (recorded, none, read / input)
}

fn sync_run(ex: &Path, min_cached: usize, tmp: &Path) -> serde_json::Value {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, _p) = rt.block_on(Provider::serve_with_minimum(
        &[ex],
        Wire::Anthropic,
        Faults::default(),
        min_cached,
    ));
    let out = tmp.join(format!("out-{min_cached}"));
    let mut run = bin();
    run.args(["run", "--start", "basebrt", "--instance"])
        .arg(ex)
        .arg("--out")
        .arg(&out);
    let home = tmp.join(format!("home-{min_cached}"));
    let o = Wire::Anthropic
        .talk(&mut run, &server.base_url, KEY, &home)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    read_json(&out.join("session.json"))
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let exs: Vec<std::path::PathBuf> = EXAMPLES.iter().map(|n| example(n)).collect();
    let mut table = String::from(
        "| example | prompt bytes repeating an earlier prompt's start | input read from cache | output's share of the cost | no caching | caching | caching, no minimum | caching + --llm-batch |\n|---|---|---|---|---|---|---|---|\n",
    );
    // The batch run: all five at once.
    let exs_ref: Vec<&Path> = exs.iter().map(|p| p.as_path()).collect();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, _p) = rt.block_on(Provider::serve(
        &exs_ref,
        Wire::Anthropic,
        Faults::default(),
    ));
    let dir = tmp.path().join("bench");
    let rows = rows_file(&dir, &dir.join("repos"), &EXAMPLES);
    let mut bench = bin();
    bench
        .args(["bench", "--parallel", "5", "--instances"])
        .arg(&rows)
        .arg("--repos")
        .arg(dir.join("repos"))
        .arg("--out")
        .arg(dir.join("batch"))
        .args(["--llm-batch", "--llm-batch-poll", "0.05"]);
    let o = Wire::Anthropic
        .talk(&mut bench, &server.base_url, KEY, &dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    for (name, ex) in EXAMPLES.iter().zip(&exs) {
        let t = tmp.path().join(name);
        let doc = sync_run(ex, 1024, &t);
        let calls = doc["llm_calls"].as_array().unwrap();
        let (cached, none, read) = costs(calls);
        let share = evootter::llm::shared_prefix_share(
            &serde_json::from_value::<Vec<evootter::llm::CallRecord>>(doc["llm_calls"].clone())
                .unwrap(),
        );
        let doc0 = sync_run(ex, 0, &t);
        let (cached0, none0, _) = costs(doc0["llm_calls"].as_array().unwrap());
        assert!((none - none0).abs() < 1e-12, "the same tokens either way");
        let b = read_json(&dir.join(format!("batch/evootter__{name}-1/session.json")));
        let (batched, _, _) = costs(b["llm_calls"].as_array().unwrap());
        let output: f64 = calls
            .iter()
            .map(|c| c["output_tokens"].as_f64().unwrap_or(0.0) * 15.0 / 1e6)
            .sum();
        table.push_str(&format!(
            "| {name} | {:.1}% | {:.1}% | {:.0}% | ${none:.4} | ${cached:.4} ({:.0}%) | ${cached0:.4} ({:.0}%) | ${batched:.4} ({:.0}%) |\n",
            share * 100.0,
            read * 100.0,
            output / none * 100.0,
            cached / none * 100.0,
            cached0 / none * 100.0,
            batched / none * 100.0
        ));
    }
    println!("{table}");
}
