//! A batch's results, read back from its directory alone: one line per instance and the totals
//! (F2P under each rule, how cuts were decided, model calls, tokens, cost, executions, wall
//! time), as a table and as JSON; the SWT-bench predictions file; and a comparison of two
//! batches, instance by instance.

use super::score::Score;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// How one instance of a batch ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Status {
    /// Ran to the end.
    Done,
    /// `--validate` found the instance itself unsound (not counted).
    Unsound { reason: String },
    /// The row, its repository or its run failed; the rest of the batch went on.
    Error { error: String },
    /// Every test errored on `c_old` the same environmental way (a missing plugin or
    /// dependency): the environment cannot run the instance's tests, so nothing was scored
    /// and the instance is not counted as a failed reproduction.
    EnvironmentError { error: String },
}

/// What the batch records of one instance (`INSTANCE/instance.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceRecord {
    pub instance_id: String,
    #[serde(flatten)]
    pub status: Status,
    #[serde(default)]
    pub score: Option<Score>,
    /// Seconds this batch spent on it (0 when an earlier batch had finished it).
    #[serde(default)]
    pub seconds: f64,
    /// What the user should hear about this instance's run: a Docker host that failed and
    /// where its executions went.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub instance_id: String,
    pub status: String,
    pub f2p: bool,
    pub tdd: bool,
    pub swt: bool,
    pub coverage: Option<f64>,
    /// TDD-Bench-Verified's coverage-weighted score of the instance (0 when not TDD).
    #[serde(default)]
    pub tdd_score: f64,
    pub model_calls: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Input tokens written to and read from the provider's prompt cache (besides `tokens_in`).
    #[serde(default)]
    pub tokens_cache_write: u64,
    #[serde(default)]
    pub tokens_cache_read: u64,
    /// Calls answered in provider batches (`--llm-batch`), at half price.
    #[serde(default)]
    pub calls_in_provider_batches: u64,
    pub cost_usd: Option<f64>,
    pub executions: u64,
    pub wall_seconds: f64,
    /// Cuts of the instance's generations, by what decided them.
    pub cuts: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub instances: usize,
    /// Instances counted (unsound ones are not).
    pub counted: usize,
    pub unsound: usize,
    pub errors: usize,
    /// Instances whose environment could not run their tests (not counted).
    #[serde(default)]
    pub environment_errors: usize,
    /// Instances of the batch (its manifest) without a record yet: not run, stopped, or their
    /// cluster task ended without one. Counted, as not F2P.
    #[serde(default)]
    pub no_result: usize,
    /// Instances still pending or running (a batch read while it runs): not counted yet.
    #[serde(default)]
    pub in_flight: usize,
    pub f2p: usize,
    pub tdd: usize,
    pub swt: usize,
    pub f2p_rate: f64,
    pub tdd_rate: f64,
    pub swt_rate: f64,
    pub mean_coverage: Option<f64>,
    /// TDD-Bench-Verified's score of the batch: the mean of the counted instances' scores.
    #[serde(default)]
    pub tdd_score: f64,
    pub model_calls: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    #[serde(default)]
    pub tokens_cache_write: u64,
    #[serde(default)]
    pub tokens_cache_read: u64,
    /// Of all input tokens, the share read from the providers' prompt caches.
    #[serde(default)]
    pub input_read_from_cache_share: f64,
    #[serde(default)]
    pub calls_in_provider_batches: u64,
    /// `None` when some call had no known price.
    pub cost_usd: Option<f64>,
    /// The mean cost of the instances that made model calls.
    #[serde(default)]
    pub cost_per_instance_usd: Option<f64>,
    pub executions: u64,
    pub wall_seconds: f64,
    pub cuts: BTreeMap<String, u64>,
    /// The preset the batch's runs were made with and what it set (from their reports),
    /// e.g. `paper (--fitness paper, ...)`; `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// Which of the paper's systems the runs were (`--method`), from their reports;
    /// `None`: EvoOtter (or no report yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// `--validate`: per mutant kind, the focal mutants run and those the developer's tests
    /// killed, over every instance.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub golden_kills: super::golden_kills::KindKills,
    pub lines: Vec<Line>,
    /// A batch run on a cluster: each instance's last task (node, queue wait, how it ended).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster: Vec<super::slurm::report::TaskLine>,
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The short name of a status, as the table and the Batch screen show it.
pub fn status_name(s: &Status) -> &'static str {
    match s {
        Status::Done => "done",
        Status::Unsound { .. } => "unsound",
        Status::Error { .. } => "error",
        Status::EnvironmentError { .. } => "env_error",
    }
}

/// One instance's line from its report (`report.json`, or one made from a running session)
/// and its score, when it has one.
pub fn line(id: &str, status: &str, report: &serde_json::Value, score: Option<&Score>) -> Line {
    let mut line = Line {
        instance_id: id.to_string(),
        status: status.to_string(),
        model_calls: u(&report["llm_calls"]["total"]),
        tokens_in: u(&report["tokens"]["input"]),
        tokens_out: u(&report["tokens"]["output"]),
        tokens_cache_write: u(&report["tokens"]["cache_write"]),
        tokens_cache_read: u(&report["tokens"]["cache_read"]),
        calls_in_provider_batches: u(&report["llm_calls"]["in_provider_batches"]),
        cost_usd: report["cost_usd"].as_f64(),
        executions: u(&report["executions_total"]),
        wall_seconds: report["wall_seconds"].as_f64().unwrap_or(0.0),
        ..Default::default()
    };
    for g in report["generations"].as_array().into_iter().flatten() {
        if let Some(by) = g["selected_by"].as_str() {
            *line.cuts.entry(by.to_string()).or_default() += 1;
        }
    }
    if let Some(sc) = score {
        line.f2p = sc.f2p;
        line.tdd = sc.tdd;
        line.swt = sc.swt;
        line.coverage = sc.coverage;
        line.tdd_score = sc.tdd_score;
    }
    line
}

/// What an instance's run spent and did, added to the batch's totals.
fn add_spending(s: &mut Summary, line: &Line) {
    s.model_calls += line.model_calls;
    s.tokens_in += line.tokens_in;
    s.tokens_out += line.tokens_out;
    s.tokens_cache_write += line.tokens_cache_write;
    s.tokens_cache_read += line.tokens_cache_read;
    s.calls_in_provider_batches += line.calls_in_provider_batches;
    s.cost_usd = match (s.cost_usd, line.cost_usd, line.model_calls) {
        (Some(a), Some(b), _) => Some(a + b),
        (Some(a), None, 0) => Some(a),
        _ => None,
    };
    s.executions += line.executions;
    s.wall_seconds += line.wall_seconds;
    for (k, v) in &line.cuts {
        *s.cuts.entry(k.clone()).or_default() += v;
    }
}

/// The instance ids the batch's manifest (`batch.json`) lists, in its order.
fn manifest_ids(dir: &Path) -> Vec<String> {
    let v: serde_json::Value = std::fs::read(dir.join("batch.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    v["instances"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect()
}

/// Reads every `INSTANCE/instance.json` (and its report) under `dir`, and counts the
/// manifest's instances that have none.
pub fn read(dir: &Path) -> std::io::Result<Summary> {
    let mut records = vec![];
    for e in std::fs::read_dir(dir)?.flatten() {
        let p = e.path().join("instance.json");
        if let Ok(b) = std::fs::read(&p)
            && let Ok(r) = serde_json::from_slice::<InstanceRecord>(&b)
        {
            records.push((e.path(), r));
        }
    }
    records.sort_by(|a, b| a.1.instance_id.cmp(&b.1.instance_id));
    let mut s = Summary {
        cost_usd: Some(0.0),
        ..Default::default()
    };
    for (path, r) in records {
        let report: serde_json::Value = std::fs::read(path.join("report.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        if let Ok(p) = serde_json::from_value::<crate::engine::PresetUse>(report["preset"].clone())
        {
            s.preset.get_or_insert(p.to_string());
        }
        if let Some(m) = report["method"].as_str().filter(|m| *m != "evootter") {
            s.method.get_or_insert(m.to_string());
        }
        let line = line(
            &r.instance_id,
            status_name(&r.status),
            &report,
            r.score.as_ref(),
        );
        s.instances += 1;
        match r.status {
            Status::Unsound { .. } => s.unsound += 1,
            Status::EnvironmentError { .. } => s.environment_errors += 1,
            Status::Error { .. } => {
                s.errors += 1;
                s.counted += 1;
            }
            Status::Done => s.counted += 1,
        }
        s.f2p += usize::from(line.f2p);
        s.tdd += usize::from(line.tdd);
        s.swt += usize::from(line.swt);
        add_spending(&mut s, &line);
        for (kind, (n, killed)) in r.score.iter().flat_map(|sc| &sc.golden_kills) {
            let e = s.golden_kills.entry(kind.clone()).or_default();
            e.0 += n;
            e.1 += killed;
        }
        s.lines.push(line);
    }
    // The batch's instances that have no record: what their sessions spent counts; one that
    // has ended (stopped, its cluster task over) counts as not F2P, so that a rate is over
    // the batch; one still pending or running is not counted yet.
    let have: std::collections::BTreeSet<String> =
        s.lines.iter().map(|l| l.instance_id.clone()).collect();
    let tasks = super::slurm::ledger::by_instance(&super::slurm::ledger::read(dir));
    for id in manifest_ids(dir)
        .into_iter()
        .filter(|id| !have.contains(id))
    {
        let idir = dir.join(&id);
        let task = tasks.get(&id);
        let status = if crate::outdir::is_locked(&idir) || task.is_some_and(|t| t.state.running()) {
            "running"
        } else if task.is_some_and(|t| !t.state.ended()) {
            "pending"
        } else {
            "no result"
        };
        let report = crate::engine::SessionDoc::load(&idir.join(crate::outdir::SESSION_FILE))
            .map(|doc| crate::engine::report::report(&doc))
            .unwrap_or_default();
        let line = line(&id, status, &report, None);
        add_spending(&mut s, &line);
        s.instances += 1;
        if status == "no result" {
            s.counted += 1;
            s.no_result += 1;
        } else {
            s.in_flight += 1;
        }
        s.lines.push(line);
    }
    let rate = |n: usize| {
        if s.counted == 0 {
            0.0
        } else {
            n as f64 / s.counted as f64
        }
    };
    s.f2p_rate = rate(s.f2p);
    s.tdd_rate = rate(s.tdd);
    s.swt_rate = rate(s.swt);
    if s.counted > 0 {
        let counted = s
            .lines
            .iter()
            .filter(|l| l.status != "unsound" && l.status != "env_error");
        s.tdd_score = counted.map(|l| l.tdd_score).sum::<f64>() / s.counted as f64;
    }
    let input = s.tokens_in + s.tokens_cache_write + s.tokens_cache_read;
    if input > 0 {
        s.input_read_from_cache_share = s.tokens_cache_read as f64 / input as f64;
    }
    let paying = s.lines.iter().filter(|l| l.model_calls > 0).count();
    if paying > 0 {
        s.cost_per_instance_usd = s.cost_usd.map(|c| c / paying as f64);
    }
    let covs: Vec<f64> = s.lines.iter().filter_map(|l| l.coverage).collect();
    if !covs.is_empty() {
        s.mean_coverage = Some(covs.iter().sum::<f64>() / covs.len() as f64);
    }
    s.cluster = super::slurm::report::lines(dir);
    Ok(s)
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "-" }
}

/// A cost as the summaries show it: `$0.1234`, or `unpriced` when some price is unknown.
pub fn cost(c: Option<f64>) -> String {
    c.map_or("unpriced".into(), |c| format!("${c:.4}"))
}

/// The summary as a table for people.
pub fn table(s: &Summary) -> String {
    let mut out = String::new();
    if let Some(m) = &s.method {
        out += &format!("method: {m}\n");
    }
    if let Some(p) = &s.preset {
        out += &format!("method: preset {p}\n");
    }
    out += &format!(
        "{:<34} {:<8} {:>4} {:>4} {:>4} {:>6} {:>6} {:>10} {:>6} {:>8}\n",
        "instance", "status", "f2p", "tdd", "swt", "cover", "calls", "cost", "execs", "seconds"
    );
    for l in &s.lines {
        out.push_str(&format!(
            "{:<34} {:<8} {:>4} {:>4} {:>4} {:>6} {:>6} {:>10} {:>6} {:>8.1}\n",
            l.instance_id,
            l.status,
            yes(l.f2p),
            yes(l.tdd),
            yes(l.swt),
            l.coverage
                .map_or("-".into(), |c| format!("{:.0}%", c * 100.0)),
            l.model_calls,
            cost(l.cost_usd),
            l.executions,
            l.wall_seconds
        ));
    }
    let cuts: Vec<String> = s.cuts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    out.push_str(&format!(
        "\n{} instance{}, {} counted ({} unsound and {} environment errors not counted; {} errors{}): F2P {} ({:.0}%), TDD-Bench {} ({:.0}%, coverage-weighted score {:.1}%), SWT-bench {} ({:.0}%){}\n",
        s.instances,
        if s.instances == 1 { "" } else { "s" },
        s.counted,
        s.unsound,
        s.environment_errors,
        s.errors,
        [
            (s.no_result, "without a result"),
            (s.in_flight, "still pending or running, not counted yet"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!(", {n} {w}"))
        .collect::<String>(),
        s.f2p,
        s.f2p_rate * 100.0,
        s.tdd,
        s.tdd_rate * 100.0,
        s.tdd_score * 100.0,
        s.swt,
        s.swt_rate * 100.0,
        s.mean_coverage
            .map_or(String::new(), |c| format!(", mean coverage {:.0}%", c * 100.0))
    ));
    out.push_str(&format!(
        "model calls {}, tokens {} in / {} out, cost {}; executions {}; {:.0} s in runs; cuts decided by: {}\n",
        s.model_calls,
        s.tokens_in,
        s.tokens_out,
        cost(s.cost_usd),
        s.executions,
        s.wall_seconds,
        if cuts.is_empty() { "-".into() } else { cuts.join(", ") }
    ));
    if let Some(per) = s.cost_per_instance_usd {
        out.push_str(&format!(
            "cost per instance {}; input read from the providers' prompt caches {:.0}% ({} tokens, {} written); {} calls answered in provider batches (half price)\n",
            cost(Some(per)),
            s.input_read_from_cache_share * 100.0,
            s.tokens_cache_read,
            s.tokens_cache_write,
            s.calls_in_provider_batches
        ));
    }
    if !s.golden_kills.is_empty() {
        out.push_str(&format!(
            "the developer's tests killed, of the focal mutants they reach (--validate): {}; by \
             the paper's categories: {}\n",
            super::golden_kills::words(&s.golden_kills),
            super::golden_kills::words(&super::golden_kills::by_category(&s.golden_kills))
        ));
    }
    out + &super::slurm::report::table(&s.cluster)
}

/// Per instance of two batches: which became F2P (under TDD-Bench's rule), which were lost, and
/// the cost difference.
/// A table's number with one decimal (`6.0`), or `-` for none.
pub fn one_decimal(x: &str) -> String {
    x.parse::<f64>().map_or("-".into(), |v| format!("{v:.1}"))
}

/// Batches side by side as the paper's Tables II and III give them (F2P count and share, model
/// calls and cost per instance), then McNemar's exact test between every pair on the
/// instances both ran.
pub fn side_by_side(batches: &[super::figures::BatchFacts]) -> String {
    let t = super::paper_tables::methods(batches);
    let width = batches
        .iter()
        .map(|b| b.label.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!(
        "{:<width$} {:<12} {:>9} {:>13} {:>11} {:>16} {:>12}\n",
        "batch", "method", "instances", "F2P", "calls/inst.", "after gen. (max)", "cost/inst."
    );
    for r in &t.rows {
        let share: f64 = r[4].parse().unwrap_or(0.0);
        out.push_str(&format!(
            "{:<width$} {:<12} {:>9} {:>13} {:>11} {:>16} {:>12}\n",
            r[0],
            r[1],
            r[2],
            format!("{} ({:.1}%)", r[3], share * 100.0),
            one_decimal(&r[5]),
            format!("{} ({})", one_decimal(&r[6]), r[7]),
            cost(r[8].parse::<f64>().ok())
        ));
    }
    let pairs = super::paper_tables::mcnemar(batches);
    if !pairs.rows.is_empty() {
        out.push_str(
            "\nMcNemar's exact test on F2P, each pair on the instances both ran (two-sided):\n",
        );
        for r in &pairs.rows {
            out.push_str(&format!(
                "  {} vs {}: {} instances, F2P in both {}, in {} only {}, in {} only {}, in \
                 neither {}; p = {}\n",
                r[0], r[1], r[2], r[3], r[0], r[4], r[1], r[5], r[6], r[7]
            ));
        }
    }
    out
}

pub fn compare(a: &Summary, b: &Summary) -> String {
    let by_id = |s: &Summary| -> BTreeMap<String, Line> {
        s.lines
            .iter()
            .map(|l| (l.instance_id.clone(), l.clone()))
            .collect()
    };
    let (ma, mb) = (by_id(a), by_id(b));
    let ids: std::collections::BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    let mut out = format!(
        "{:<34} {:<16} {:>10} {:>10} {:>10}\n",
        "instance", "F2P (TDD)", "cost A", "cost B", "B - A"
    );
    let (mut gained, mut lost) = (0, 0);
    for id in ids {
        let (la, lb) = (ma.get(id), mb.get(id));
        let fa = la.is_some_and(|l| l.tdd);
        let fb = lb.is_some_and(|l| l.tdd);
        let change = match (fa, fb) {
            (false, true) => {
                gained += 1;
                "became F2P"
            }
            (true, false) => {
                lost += 1;
                "lost"
            }
            (true, true) => "both",
            (false, false) => "neither",
        };
        let ca = la.and_then(|l| l.cost_usd);
        let cb = lb.and_then(|l| l.cost_usd);
        let diff = match (ca, cb) {
            (Some(x), Some(y)) => format!("{:+.4}", y - x),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "{id:<34} {change:<16} {:>10} {:>10} {diff:>10}\n",
            cost(ca),
            cost(cb)
        ));
    }
    out.push_str(&format!(
        "\n{gained} became F2P, {lost} lost; TDD-Bench {} -> {}, cost {} -> {}\n",
        a.tdd,
        b.tdd,
        cost(a.cost_usd),
        cost(b.cost_usd)
    ));
    // The paper's significance test, on the instances both batches ran.
    let both: Vec<(bool, bool)> = ma
        .iter()
        .filter_map(|(id, la)| mb.get(id).map(|lb| (la.tdd, lb.tdd)))
        .collect();
    let only_a = both.iter().filter(|(x, y)| *x && !*y).count();
    let only_b = both.iter().filter(|(x, y)| !*x && *y).count();
    out.push_str(&format!(
        "McNemar's exact test on F2P over the {} instances both ran: F2P in A only {only_a}, in B \
         only {only_b}, p = {:.4} (two-sided)\n",
        both.len(),
        super::paper_tables::mcnemar_exact(only_a, only_b)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `DIR/ID/instance.json` with this status and score; the instance's directory.
    fn write_record(
        dir: &Path,
        id: &str,
        status: Status,
        score: Option<Score>,
    ) -> std::path::PathBuf {
        let d = dir.join(id);
        std::fs::create_dir_all(&d).unwrap();
        let r = InstanceRecord {
            instance_id: id.into(),
            status,
            score,
            seconds: 1.0,
            notes: vec![],
        };
        std::fs::write(d.join("instance.json"), serde_json::to_vec(&r).unwrap()).unwrap();
        d
    }

    /// An instance whose environment cannot run its tests is counted apart: neither a failed
    /// reproduction nor an error of evootter's.
    #[test]
    fn environment_errors_are_counted_apart() {
        let dir = tempfile::tempdir().unwrap();
        let write = |id: &str, status: Status| {
            write_record(dir.path(), id, status, None);
        };
        write("a", Status::Done);
        write(
            "b",
            Status::EnvironmentError {
                error: "every test errors on c_old: No module named 'numpy'".into(),
            },
        );
        write("c", Status::Error { error: "x".into() });
        let s = read(dir.path()).unwrap();
        assert_eq!(
            (s.instances, s.counted, s.environment_errors, s.errors),
            (3, 2, 1, 1)
        );
        assert_eq!(s.lines[1].status, "env_error");
        assert!(
            table(&s).contains("1 environment errors not counted"),
            "{}",
            table(&s)
        );
        let json = std::fs::read_to_string(dir.path().join("b/instance.json")).unwrap();
        assert!(json.contains(r#""status":"environment_error""#), "{json}");
    }

    /// An instance of the batch without a record (its cluster task cancelled, or not run yet)
    /// is counted, as not F2P: the rates are over the whole batch.
    #[test]
    fn instances_without_a_result_count_in_the_rates() {
        let dir = tempfile::tempdir().unwrap();
        write_record(
            dir.path(),
            "a",
            Status::Done,
            Some(Score {
                f2p: true,
                ..Default::default()
            }),
        );
        std::fs::write(
            dir.path().join("batch.json"),
            r#"{"instances": [{"id": "a", "repo": "o/a"}, {"id": "b", "repo": "o/b"}]}"#,
        )
        .unwrap();
        let s = read(dir.path()).unwrap();
        assert_eq!((s.instances, s.counted, s.no_result, s.f2p), (2, 2, 1, 1));
        assert!((s.f2p_rate - 0.5).abs() < 1e-9);
        let t = table(&s);
        assert!(t.contains("1 without a result"), "{t}");
        let b = t.lines().find(|l| l.starts_with("b ")).unwrap();
        assert!(b.contains("no result"), "{b}");
    }

    /// A batch made with a preset says so first, as its runs' reports record it.
    #[test]
    fn the_summary_names_the_batch_s_preset() {
        let dir = tempfile::tempdir().unwrap();
        let d = write_record(dir.path(), "a", Status::Done, None);
        assert!(!table(&read(dir.path()).unwrap()).contains("preset"));
        let report = serde_json::json!({
            "preset": {"name": "paper", "set": ["--fitness paper", "--no-witnesses"]}
        });
        std::fs::write(d.join("report.json"), report.to_string()).unwrap();
        let s = read(dir.path()).unwrap();
        assert!(
            table(&s).starts_with("method: preset paper (--fitness paper, --no-witnesses)\n"),
            "{}",
            table(&s)
        );
        // Another of the paper's systems is named too.
        let report = serde_json::json!({"method": "rule-select"});
        std::fs::write(d.join("report.json"), report.to_string()).unwrap();
        let s = read(dir.path()).unwrap();
        assert!(
            table(&s).starts_with("method: rule-select\n"),
            "{}",
            table(&s)
        );
    }
}
