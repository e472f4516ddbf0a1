//! What a batch's figures and tables read of each finished instance ([`InstanceFacts`], from
//! its report.json) and of a batch ([`BatchFacts`]), and the [`Table`] each figure writes as
//! CSV.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one finished instance contributes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstanceFacts {
    pub id: String,
    /// Per generation: F2P tests of its population, and its size.
    pub generations: Vec<(usize, usize)>,
    pub final_f2p: bool,
    /// What decided each cut (`mutation`, `rescues`, `llm`, `otter`, `random`).
    pub cuts: Vec<String>,
    pub cost_usd: Option<f64>,
    /// Per generation: the mean share of the golden patch's deleted code lines that its tests
    /// run on `c_old` (their traced baselines); `None` where nothing can be measured (no
    /// golden patch, a patch that only adds lines, no traced test).
    pub coverage: Vec<Option<f64>>,
    /// Which of the paper's systems ran (`evootter`, `eotter`, ...).
    pub method: String,
    pub model_calls: u64,
    /// The calls after the initial tests were written (selection, crossover, repair), as the
    /// paper counts a method's calls ("EvoOtter requires at most 5 LLM calls").
    pub calls_after_generation: u64,
    /// Per cut: the paper's selection accuracy (Fig. 4; `None` when the population held no
    /// F2P test).
    pub accuracy: Vec<Option<f64>>,
    /// Per cut: the mean kills of the population's F2P tests and of its other tests (Fig. 5;
    /// `None` where there is no such test).
    pub kills: Vec<(Option<f64>, Option<f64>)>,
    /// Per crossover that wrote offspring: whether its parents held an F2P test and whether
    /// its offspring did (Table IV).
    pub crossovers: Vec<(bool, bool)>,
    /// The final test's coverage of the golden patch's lines, as the harness scored it
    /// (Fig. 8); set by the batch reader from the instance's score.
    pub final_coverage: Option<f64>,
    /// The row's `created_at` (Table VIII's cutoff), from the instance's record.
    pub created_at: Option<String>,
}

/// A generation's mean share of `deleted` (the golden patch's deleted code lines, by file)
/// its tests run on `c_old`, from the reach each test's report entry records (`1, 9, 11-13`,
/// read as coverage's line lists are).
fn coverage(
    report: &serde_json::Value,
    g: &serde_json::Value,
    deleted: &BTreeMap<String, Vec<u32>>,
) -> Option<f64> {
    let total: usize = deleted.values().map(Vec::len).sum();
    if total == 0 {
        return None;
    }
    let shares: Vec<f64> = g["tests"]
        .as_array()?
        .iter()
        .filter_map(|t| {
            let reach = report["tests"][t.as_str()?]["reach"].as_object()?;
            let covered: usize = deleted
                .iter()
                .map(|(file, lines)| {
                    let ran = reach
                        .get(file)
                        .and_then(|r| r.as_str())
                        .map(super::score::missing_lines)
                        .unwrap_or_default();
                    lines.iter().filter(|l| ran.contains(l)).count()
                })
                .sum();
            Some(covered as f64 / total as f64)
        })
        .collect();
    (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64)
}

impl InstanceFacts {
    /// From an instance's `report.json` (what `evootter run` writes beside the session: every
    /// test's F2P verdict and every generation's population and cut), not from its session,
    /// which is a hundred times larger.
    pub fn from_report(id: &str, report: &serde_json::Value, golden: Option<&str>) -> Self {
        let tests = &report["tests"];
        let f2p_id = |t: &str| tests[t]["f2p"].as_bool() == Some(true);
        let f2p = |t: &serde_json::Value| t.as_str().is_some_and(f2p_id);
        let gens = report["generations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        Self {
            id: id.to_string(),
            generations: gens
                .iter()
                .map(|g| {
                    let pop = g["tests"].as_array().cloned().unwrap_or_default();
                    (pop.iter().filter(|t| f2p(t)).count(), pop.len())
                })
                .collect(),
            final_f2p: report["f2p"]["f2p"].as_bool() == Some(true),
            cuts: gens
                .iter()
                .filter_map(|g| g["selected_by"].as_str().map(str::to_string))
                .collect(),
            cost_usd: report["cost_usd"].as_f64(),
            coverage: {
                let deleted = golden.map(|p| super::score::patch_lines(p, false));
                gens.iter()
                    .map(|g| coverage(report, g, deleted.as_ref()?))
                    .collect()
            },
            method: report["method"].as_str().unwrap_or("evootter").to_string(),
            model_calls: report["llm_calls"]["total"].as_u64().unwrap_or(0),
            calls_after_generation: ["select", "crossover", "repair"]
                .iter()
                .filter_map(|s| report["llm_calls"]["by_step"][s].as_u64())
                .sum(),
            accuracy: gens
                .iter()
                .filter(|g| g["selected_by"].is_string())
                .map(|g| g["selection_accuracy"].as_f64())
                .collect(),
            kills: gens
                .iter()
                .filter(|g| g["selected_by"].is_string())
                .map(|g| {
                    let (mut yes, mut no) = (vec![], vec![]);
                    for (t, k) in g["scores"].as_object().into_iter().flatten() {
                        let k = k.as_f64().unwrap_or(0.0);
                        if f2p_id(t) {
                            yes.push(k);
                        } else {
                            no.push(k);
                        }
                    }
                    let mean =
                        |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
                    (mean(&yes), mean(&no))
                })
                .collect(),
            crossovers: gens
                .iter()
                .enumerate()
                .filter_map(|(i, g)| {
                    let parents = report["curated_parents"][i.to_string()]
                        .as_array()
                        .or_else(|| g["selected"].as_array())?;
                    let offspring = g["offspring"].as_array()?;
                    // A crossover that ran: offspring that are not the parents again.
                    (!offspring.is_empty() && offspring != parents)
                        .then(|| (parents.iter().any(&f2p), offspring.iter().any(&f2p)))
                })
                .collect(),
            final_coverage: None,
            created_at: None,
        }
    }

    pub(super) fn initial(&self) -> usize {
        self.generations.first().map_or(0, |g| g.0)
    }

    pub(super) fn last(&self) -> usize {
        self.generations.last().map_or(0, |g| g.0)
    }
}

/// One batch, as its figures read it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchFacts {
    /// The series' name: the directory's.
    pub label: String,
    /// The settings of its runs, for the caption (`selection mutation, fitness brt, n 8, m 20`).
    pub settings: String,
    pub instances: Vec<InstanceFacts>,
}

/// Where a batch keeps an instance's golden patch (beside its checkout, `bench`'s work
/// directory).
pub fn golden_patch(batch: &Path, id: &str) -> PathBuf {
    batch.join(".work").join(id).join("golden.patch")
}

/// The settings of a run as its report gives them, for a caption.
pub fn settings(report: &serde_json::Value) -> String {
    let n = report["generations"][0]["tests"]
        .as_array()
        .map_or(0, Vec::len);
    // The paper's other systems have no mutants or fitness to name.
    match report["method"].as_str() {
        Some("eotter") => {
            return format!(
                "method eotter, up to {} repair calls per test",
                report["repair_rounds"]
            );
        }
        Some(m) if m != "evootter" => return format!("method {m}"),
        _ => {}
    }
    format!(
        "selection {}, fitness {}, n {n}, m {}, crossover {}",
        report["selection"].as_str().unwrap_or("?"),
        report["fitness"].as_str().unwrap_or("?"),
        report["mutants_requested"],
        report["crossover"].as_str().unwrap_or("?")
    )
}

/// The facts of finished instances with their settings: the most common settings name the
/// batch (a batch resumed with others would mix them, and says so).
pub fn batch_facts(label: String, instances: Vec<(InstanceFacts, String)>) -> BatchFacts {
    let mut counts = BTreeMap::<&str, usize>::new();
    for (_, s) in &instances {
        *counts.entry(s).or_default() += 1;
    }
    let mut by_count: Vec<(&str, usize)> = counts.into_iter().collect();
    by_count.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let mut settings = by_count
        .first()
        .map_or(String::new(), |(s, _)| s.to_string());
    if by_count.len() > 1 {
        settings.push_str(" (and others)");
    }
    BatchFacts {
        label,
        settings,
        instances: instances.into_iter().map(|(f, _)| f).collect(),
    }
}

/// A table: its header and rows, written as CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn csv(&self) -> String {
        let line = |v: &[String]| {
            v.iter()
                .map(|c| {
                    if c.contains([',', '"', '\n']) {
                        format!("\"{}\"", c.replace('"', "\"\""))
                    } else {
                        c.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut out = line(&self.header);
        for r in &self.rows {
            out.push('\n');
            out.push_str(&line(r));
        }
        out.push('\n');
        out
    }
}
