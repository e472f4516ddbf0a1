//! The paper's figures from batches (`bench --summary DIR --figures OUT`, `bench --compare A B
//! --figures OUT`): each an SVG with labelled axes, a legend (one series per batch), the
//! instance count and the settings in a caption line, and its data beside it as CSV.
//!
//! - `fig6_f2p_share`: the share of F2P candidates in each generation's population, that is
//!   after each crossover (generation 0: the initial population) — the paper's Fig. 6;
//! - `fig7_f2p_per_instance`: how many instances have k F2P tests in the initial population
//!   and in the last generation's (after the crossovers) — Fig. 7;
//! - `table9_cuts`: the cuts decided by mutation score, by rescues, by the model, by the Otter
//!   rules, by chance — Table IX's right columns (for the batch's mutant pool as a whole);
//! - `fig8_golden_coverage`: per generation, the mean share of the golden patch's deleted
//!   code lines a test runs on `c_old` (its traced baseline), over the instances whose patch
//!   deletes or changes a line — Fig. 8 for the lines a fix changes; lines a fix only adds
//!   exist after the fix, where no generation runs, and are not counted;
//! - `cost_per_instance`: each instance's cost;
//! - with two batches, `gained_lost`: instances both, neither, gained and lost;
//! - the rest of the paper's tables and figures (Tables II/III, IV, VIII, Figs. 4, 5 and 8 as
//!   the paper draws it, McNemar's test between every pair): `paper_tables`.
//!
//! Read from the instances' reports (each test's F2P verdict is its evaluation against the
//! golden patch after the run), never from a log.

pub use super::charts::series_in_svg;
use super::charts::{Draw, bar_chart, line_chart};
pub use super::facts::{BatchFacts, InstanceFacts, Table, batch_facts, golden_patch, settings};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn s<T: ToString>(v: T) -> String {
    v.to_string()
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 { 0.0 } else { n as f64 / of as f64 }
}

/// Fig. 6: per batch and generation, F2P tests over all tests of the instances' populations.
pub fn f2p_share(batches: &[BatchFacts]) -> Table {
    let mut rows = vec![];
    for b in batches {
        let gens = b
            .instances
            .iter()
            .map(|i| i.generations.len())
            .max()
            .unwrap_or(0);
        for g in 0..gens {
            let (f, n) = b
                .instances
                .iter()
                .filter_map(|i| i.generations.get(g))
                .fold((0, 0), |(f, n), (a, b)| (f + a, n + b));
            rows.push(vec![
                b.label.clone(),
                s(g),
                s(f),
                s(n),
                format!("{:.4}", share(f, n)),
            ]);
        }
    }
    Table {
        header: ["batch", "generation", "f2p_tests", "tests", "share"]
            .map(s)
            .to_vec(),
        rows,
    }
}

/// Fig. 7: per batch and k, the instances with k F2P tests initially and in the last
/// generation.
pub fn f2p_per_instance(batches: &[BatchFacts]) -> Table {
    let max = batches
        .iter()
        .flat_map(|b| &b.instances)
        .flat_map(|i| i.generations.first().map(|g| g.1))
        .max()
        .unwrap_or(0);
    let mut rows = vec![];
    for b in batches {
        for k in 0..=max {
            // A method without generations (BaseBRT, e-Otter with one test) has no population
            // to count.
            let with = || b.instances.iter().filter(|i| !i.generations.is_empty());
            let initial = with().filter(|i| i.initial() == k).count();
            let last = with().filter(|i| i.last() == k).count();
            rows.push(vec![b.label.clone(), s(k), s(initial), s(last)]);
        }
    }
    Table {
        header: [
            "batch",
            "f2p_tests",
            "instances_initial",
            "instances_last_generation",
        ]
        .map(s)
        .to_vec(),
        rows,
    }
}

/// What decides a cut, in the order the figure shows them.
const DECIDERS: [&str; 5] = ["mutation", "rescues", "llm", "otter", "random"];

/// Table IX's right columns: per batch, the cuts each rule decided.
pub fn cuts(batches: &[BatchFacts]) -> Table {
    let rows = batches
        .iter()
        .flat_map(|b| {
            DECIDERS.iter().map(move |d| {
                let n: usize = b
                    .instances
                    .iter()
                    .map(|i| i.cuts.iter().filter(|c| c == d).count())
                    .sum();
                let all: usize = b.instances.iter().map(|i| i.cuts.len()).sum();
                vec![b.label.clone(), s(d), s(n), format!("{:.4}", share(n, all))]
            })
        })
        .collect();
    Table {
        header: ["batch", "decided_by", "cuts", "share"].map(s).to_vec(),
        rows,
    }
}

/// Fig. 8: per batch and generation, the mean coverage of the golden patch's deleted lines on
/// `c_old` over the instances where it can be measured.
pub fn golden_coverage(batches: &[BatchFacts]) -> Table {
    let mut rows = vec![];
    for b in batches {
        let gens = b
            .instances
            .iter()
            .map(|i| i.coverage.len())
            .max()
            .unwrap_or(0);
        for g in 0..gens {
            let v: Vec<f64> = b
                .instances
                .iter()
                .filter_map(|i| i.coverage.get(g).copied().flatten())
                .collect();
            let mean = if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            };
            rows.push(vec![
                b.label.clone(),
                s(g),
                s(v.len()),
                format!("{mean:.4}"),
            ]);
        }
    }
    Table {
        header: ["batch", "generation", "instances_measured", "mean_coverage"]
            .map(s)
            .to_vec(),
        rows,
    }
}

pub fn cost(batches: &[BatchFacts]) -> Table {
    let rows = batches
        .iter()
        .flat_map(|b| {
            b.instances.iter().map(|i| {
                vec![
                    b.label.clone(),
                    i.id.clone(),
                    i.cost_usd.map_or(String::new(), |c| format!("{c:.6}")),
                ]
            })
        })
        .collect();
    Table {
        header: ["batch", "instance", "cost_usd"].map(s).to_vec(),
        rows,
    }
}

/// Two batches: instances F2P in both, neither, gained by B, lost by B.
pub fn gained_lost(a: &BatchFacts, b: &BatchFacts) -> Table {
    let by = |x: &BatchFacts| -> BTreeMap<String, bool> {
        x.instances
            .iter()
            .map(|i| (i.id.clone(), i.final_f2p))
            .collect()
    };
    let (ma, mb) = (by(a), by(b));
    let mut counts = BTreeMap::from([("both", 0), ("neither", 0), ("gained", 0), ("lost", 0)]);
    for (id, fa) in &ma {
        let Some(fb) = mb.get(id) else { continue };
        let k = match (fa, fb) {
            (true, true) => "both",
            (false, false) => "neither",
            (false, true) => "gained",
            (true, false) => "lost",
        };
        *counts.get_mut(k).unwrap_or(&mut 0) += 1;
    }
    Table {
        header: ["change", "instances"].map(s).to_vec(),
        rows: ["both", "neither", "gained", "lost"]
            .iter()
            .map(|k| vec![s(k), s(counts[k])])
            .collect(),
    }
}

// ---- drawing -------------------------------------------------------------------------------

fn caption(batches: &[BatchFacts]) -> String {
    batches
        .iter()
        .map(|b| {
            format!(
                "{}: {} instances; {}",
                b.label,
                b.instances.len(),
                b.settings
            )
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn column(t: &Table, batch: &str, col: usize) -> Vec<f64> {
    t.rows
        .iter()
        .filter(|r| r[0] == batch)
        .map(|r| r[col].parse().unwrap_or(0.0))
        .collect()
}

/// One line per batch over the generations: column `col` of a per-generation table.
fn per_generation(batches: &[BatchFacts], t: &Table, col: usize) -> Vec<(String, Vec<(f64, f64)>)> {
    batches
        .iter()
        .map(|b| {
            let points = column(t, &b.label, col)
                .into_iter()
                .enumerate()
                .map(|(g, y)| (g as f64, y))
                .collect();
            (b.label.clone(), points)
        })
        .collect()
}

/// The cost per instance and batch: a bar per named instance, or past a few dozen the costs
/// sorted and unnamed (their distribution; the CSV names them).
fn cost_figure(batches: &[BatchFacts], cap: &str) -> (Table, Result<String, Draw>) {
    let t = cost(batches);
    let mut ids: Vec<String> = batches[0].instances.iter().map(|i| i.id.clone()).collect();
    // Past a few dozen instances a bar per named instance is unreadable: the costs sorted,
    // unnamed, show their distribution instead (the CSV names them).
    let many = ids.len() > 30;
    if many {
        let cost_of = |id: &String| {
            batches[0]
                .instances
                .iter()
                .find(|i| &i.id == id)
                .and_then(|i| i.cost_usd)
                .unwrap_or(0.0)
        };
        ids.sort_by(|a, b| cost_of(a).total_cmp(&cost_of(b)));
    }
    let series: Vec<(String, Vec<f64>)> = batches
        .iter()
        .map(|b| {
            let by: BTreeMap<&str, f64> = b
                .instances
                .iter()
                .map(|i| (i.id.as_str(), i.cost_usd.unwrap_or(0.0)))
                .collect();
            (
                b.label.clone(),
                ids.iter()
                    .map(|id| by.get(id.as_str()).copied().unwrap_or(0.0))
                    .collect(),
            )
        })
        .collect();
    let short: Vec<String> = ids
        .iter()
        .map(|i| {
            if many {
                String::new()
            } else {
                i.chars().take(18).collect()
            }
        })
        .collect();
    let svg = bar_chart(
        false,
        if many {
            "Cost per instance (sorted by the first batch's cost)"
        } else {
            "Cost per instance"
        },
        ("instance", "cost (USD)"),
        &short,
        &series,
        cap,
    );
    (t, svg)
}

/// Every figure of `batches` into `out` (SVG and CSV); the files written. `cutoff`: the date
/// that splits Table VIII (`--cutoff`), none without one.
pub fn write(
    batches: &[BatchFacts],
    out: &Path,
    cutoff: Option<&str>,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out)?;
    let cap = caption(batches);
    let mut written = vec![];
    let mut put = |name: &str, table: &Table, svg: Result<String, Draw>| -> anyhow::Result<()> {
        let svg = svg.map_err(|e| anyhow::anyhow!("drawing {name}: {e}"))?;
        for (ext, body) in [("csv", table.csv()), ("svg", svg)] {
            let p = out.join(format!("{name}.{ext}"));
            std::fs::write(&p, body)?;
            written.push(p);
        }
        Ok(())
    };

    let t = f2p_share(batches);
    put(
        "fig6_f2p_share",
        &t,
        line_chart(
            "F2P candidates in each generation (after each crossover)",
            (
                "generation (0: the initial population)",
                "share of F2P tests",
            ),
            &per_generation(batches, &t, 4),
            &cap,
        ),
    )?;

    let t = f2p_per_instance(batches);
    let ks: Vec<String> = t
        .rows
        .iter()
        .filter(|r| r[0] == batches[0].label)
        .map(|r| r[1].clone())
        .collect();
    let mut series = vec![];
    for b in batches {
        series.push((format!("{}: initial", b.label), column(&t, &b.label, 2)));
        series.push((
            format!("{}: last generation", b.label),
            column(&t, &b.label, 3),
        ));
    }
    put(
        "fig7_f2p_per_instance",
        &t,
        bar_chart(
            true,
            "F2P tests per instance, initially and after the crossovers",
            ("F2P tests in the population", "instances"),
            &ks,
            &series,
            &cap,
        ),
    )?;

    let t = cuts(batches);
    let series: Vec<(String, Vec<f64>)> = batches
        .iter()
        .map(|b| (b.label.clone(), column(&t, &b.label, 2)))
        .collect();
    put(
        "table9_cuts",
        &t,
        bar_chart(
            true,
            "What decided each cut",
            ("decided by", "cuts"),
            &DECIDERS.map(s),
            &series,
            &cap,
        ),
    )?;

    let t = golden_coverage(batches);
    put(
        "fig8_golden_coverage",
        &t,
        line_chart(
            "Coverage of the golden patch's deleted lines on c_old",
            ("generation", "mean share of the lines a test runs"),
            &per_generation(batches, &t, 3),
            &cap,
        ),
    )?;

    let (t, svg) = cost_figure(batches, &cap);
    put("cost_per_instance", &t, svg)?;

    for (name, t, svg) in super::paper_tables::figures(batches, &cap, cutoff) {
        put(name, &t, svg)?;
    }

    if let [a, b] = batches {
        let t = gained_lost(a, b);
        let cats: Vec<String> = t.rows.iter().map(|r| r[0].clone()).collect();
        let v: Vec<f64> = t.rows.iter().map(|r| r[1].parse().unwrap_or(0.0)).collect();
        put(
            "gained_lost",
            &t,
            bar_chart(
                true,
                &format!(
                    "{} against {}: instances whose final test is F2P",
                    b.label, a.label
                ),
                ("F2P in A and B", "instances"),
                &cats,
                &[(format!("{} vs {}", b.label, a.label), v)],
                &cap,
            ),
        )?;
    }
    // The significance of every pair: a table, no picture.
    if batches.len() > 1 {
        let p = out.join("mcnemar.csv");
        std::fs::write(&p, super::paper_tables::mcnemar(batches).csv())?;
        written.push(p);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(id: &str, gens: &[(usize, usize)], f2p: bool, cuts: &[&str]) -> InstanceFacts {
        InstanceFacts {
            id: id.into(),
            generations: gens.to_vec(),
            final_f2p: f2p,
            cuts: cuts.iter().map(|c| c.to_string()).collect(),
            cost_usd: Some(0.5),
            coverage: vec![Some(0.5); gens.len()],
            ..Default::default()
        }
    }

    fn batch(label: &str) -> BatchFacts {
        BatchFacts {
            label: label.into(),
            settings: "selection mutation".into(),
            instances: vec![
                inst(
                    "a",
                    &[(0, 8), (1, 4), (1, 2)],
                    true,
                    &["mutation", "llm", "mutation"],
                ),
                inst(
                    "b",
                    &[(0, 8), (0, 4), (0, 2)],
                    false,
                    &["otter", "otter", "mutation"],
                ),
                inst(
                    "c",
                    &[(3, 8), (2, 4), (2, 2)],
                    true,
                    &["mutation", "rescues", "mutation"],
                ),
            ],
        }
    }

    #[test]
    fn the_tables_count_what_the_sessions_hold() {
        let b = [batch("A")];
        let t = f2p_share(&b);
        assert_eq!(t.rows[0][2..], ["3", "24", "0.1250"].map(s));
        assert_eq!(t.rows[2][2..], ["3", "6", "0.5000"].map(s));
        let t = f2p_per_instance(&b);
        // k = 0: a and b initially; b at the end.
        assert_eq!(t.rows[0][1..], ["0", "2", "1"].map(s));
        let t = cuts(&b);
        assert_eq!(t.rows[0][1..3], ["mutation", "5"].map(s));
        assert!(
            t.csv()
                .starts_with("batch,decided_by,cuts,share\nA,mutation,5,0.5556\n")
        );
    }

    #[test]
    fn golden_coverage_reads_the_tests_reach() {
        let report = serde_json::json!({
            "tests": {
                "t1": {"reach": {"p/m.py": "1-3, 10"}},
                "t2": {"reach": {"p/m.py": "1-2"}},
            },
            "generations": [{"tests": ["t1", "t2"]}],
        });
        // The patch changes lines 3 and 10 of p/m.py: t1 runs both, t2 neither.
        let patch = "--- a/p/m.py\n+++ b/p/m.py\n@@ -3,1 +3,1 @@\n-    x = 1\n+    x = 2\n@@ -10,1 +10,1 @@\n-    y = 1\n+    y = 2\n";
        let f = InstanceFacts::from_report("i", &report, Some(patch));
        assert_eq!(f.coverage, vec![Some(0.5)]);
        assert_eq!(
            InstanceFacts::from_report("i", &report, None).coverage,
            vec![None]
        );
    }

    #[test]
    fn every_figure_is_an_svg_with_one_series_per_batch() {
        let d = tempfile::tempdir().unwrap();
        let files = write(
            &[batch("A"), batch("B"), batch("C")],
            d.path(),
            Some("2025-09-29"),
        )
        .unwrap();
        assert_eq!(
            files.len(),
            23,
            "eleven figures with three batches (gained and lost is for two), each with its CSV, \
             and McNemar's table"
        );
        let svg = std::fs::read_to_string(d.path().join("fig6_f2p_share.svg")).unwrap();
        assert_eq!(series_in_svg(&svg).unwrap(), 3, "{svg}");
        let bars = std::fs::read_to_string(d.path().join("table9_cuts.svg")).unwrap();
        assert_eq!(series_in_svg(&bars).unwrap(), 3);
        let pairs = std::fs::read_to_string(d.path().join("mcnemar.csv")).unwrap();
        assert_eq!(pairs.lines().count(), 4, "A-B, A-C, B-C: {pairs}");
        for text in [
            "A",
            "B",
            "C",
            "generation (0: the initial population)",
            "3 instances",
        ] {
            assert!(svg.contains(text), "{text}");
        }
    }
}
