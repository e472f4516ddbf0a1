//! The paper's figures from batches (`bench --summary DIR --figures OUT`, `bench --compare A B
//! --figures OUT`): each an SVG with labelled axes, a legend (one series per batch), the
//! instance count and the settings in a caption line, and its data beside it as CSV.
//!
//! - `fig6_f2p_share`: the share of F2P candidates in each generation's population, that is
//!   after each crossover (generation 0: the initial population) — the paper's Fig. 6;
//! - `fig7_f2p_per_instance`: how many instances have k F2P tests in the initial population
//!   and in the last generation's (after the crossovers) — Fig. 7;
//! - `table4_evolution`: of the instances whose initial population holds no F2P test, how many
//!   had one in a later population and how many ended with an F2P final test — Table IV;
//! - `table9_cuts`: the cuts decided by mutation score, by rescues, by the model, by the Otter
//!   rules, by chance — Table IX's right columns (for the batch's mutant pool as a whole);
//! - `fig8_golden_coverage`: per generation, the mean share of the golden patch's deleted
//!   code lines a test runs on `c_old` (its traced baseline), over the instances whose patch
//!   deletes or changes a line — Fig. 8 for the lines a fix changes; lines a fix only adds
//!   exist after the fix, where no generation runs, and are not counted;
//! - `cost_per_instance`: each instance's cost;
//! - with two batches, `gained_lost`: instances both, neither, gained and lost.
//!
//! Read from the instances' reports (each test's F2P verdict is its evaluation against the
//! golden patch after the run), never from a log.

use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one finished instance contributes.
#[derive(Debug, Clone, PartialEq)]
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
        let f2p = |t: &serde_json::Value| {
            t.as_str()
                .is_some_and(|t| tests[t]["f2p"].as_bool() == Some(true))
        };
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
        }
    }

    fn initial(&self) -> usize {
        self.generations.first().map_or(0, |g| g.0)
    }

    fn last(&self) -> usize {
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
            let initial = b.instances.iter().filter(|i| i.initial() == k).count();
            let last = b.instances.iter().filter(|i| i.last() == k).count();
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

/// Table IV: of the instances with no F2P test initially, those that had one later and those
/// that ended F2P.
pub fn evolution(batches: &[BatchFacts]) -> Table {
    let rows = batches
        .iter()
        .map(|b| {
            let none: Vec<&InstanceFacts> =
                b.instances.iter().filter(|i| i.initial() == 0).collect();
            let later = none
                .iter()
                .filter(|i| i.generations.iter().skip(1).any(|g| g.0 > 0))
                .count();
            let ended = none.iter().filter(|i| i.final_f2p).count();
            vec![
                b.label.clone(),
                s(b.instances.len()),
                s(none.len()),
                s(later),
                s(ended),
                format!("{:.4}", share(ended, none.len())),
            ]
        })
        .collect();
    Table {
        header: [
            "batch",
            "instances",
            "no_f2p_initially",
            "f2p_in_a_later_population",
            "final_test_f2p",
            "evolution_rate",
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

const SIZE: (u32, u32) = (800, 500);

fn colour(i: usize) -> RGBColor {
    // Colour-blind safe (Okabe-Ito).
    [
        RGBColor(0, 114, 178),
        RGBColor(230, 159, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
    ][i % 4]
}

type Draw = Box<dyn std::error::Error>;

/// Every chart's legend (top right) and caption line (below it).
fn legend_and_caption<'a, 'b: 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    foot: &DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
) -> Result<(), Draw> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    foot.draw_text(
        caption,
        &("sans-serif", 12).into_font().color(&BLACK),
        (12, 4),
    )?;
    Ok(())
}

/// Lines over x, one series per batch.
fn line_chart(
    title: &str,
    (x_desc, y_desc): (&str, &str),
    series: &[(String, Vec<(f64, f64)>)],
    caption: &str,
) -> Result<String, Draw> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (body, foot) = root.split_vertically(SIZE.1 - 24);
        let x_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(x, _)| *x))
            .fold(1.0, f64::max);
        let y_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(_, y)| *y))
            .fold(0.0, f64::max)
            .max(1e-9)
            * 1.1;
        let mut chart = ChartBuilder::on(&body)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_labels((x_max as usize + 1).min(12))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()?;
        for (i, (label, points)) in series.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))?
                .label(label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
            chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())))?;
        }
        legend_and_caption(&mut chart, &foot, caption)?;
        root.present()?;
    }
    Ok(out)
}

/// Grouped bars: one group per category, one bar per series; `counts`: whole numbers on the
/// y axis.
fn bar_chart(
    counts: bool,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    categories: &[String],
    series: &[(String, Vec<f64>)],
    caption: &str,
) -> Result<String, Draw> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (body, foot) = root.split_vertically(SIZE.1 - 24);
        let y_max = series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .fold(0.0, f64::max)
            .max(1.0)
            * 1.15;
        let n = categories.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&body)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..n, 0f64..y_max)?;
        let names = categories.to_vec();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .y_label_formatter(&|y| match counts {
                true if (y - y.round()).abs() > 1e-9 => String::new(),
                true => format!("{y:.0}"),
                false => format!("{y:.3}"),
            })
            .x_labels(categories.len() * 2 + 1)
            .x_label_formatter(&move |x| {
                // Labels at the groups' centres only.
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 0.01 {
                    names.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .draw()?;
        let width = 0.8 / series.len().max(1) as f64;
        for (si, (label, values)) in series.iter().enumerate() {
            let c = colour(si);
            chart
                .draw_series(values.iter().enumerate().map(|(ci, v)| {
                    let x0 = ci as f64 + 0.1 + si as f64 * width;
                    Rectangle::new([(x0, 0.0), (x0 + width * 0.95, *v)], c.filled())
                }))?
                .label(label.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        legend_and_caption(&mut chart, &foot, caption)?;
        root.present()?;
    }
    Ok(out)
}

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

/// How many series an SVG of ours draws: each has a colour of its own (the axes, ticks and
/// frames are black), for its lines or bars and its legend's sample.
pub fn series_in_svg(svg: &str) -> anyhow::Result<usize> {
    let doc = roxmltree::Document::parse(svg)?;
    let colours: std::collections::BTreeSet<&str> = doc
        .descendants()
        .filter(|n| matches!(n.tag_name().name(), "polyline" | "rect"))
        .filter_map(|n| {
            n.attribute("stroke")
                .filter(|c| *c != "none")
                .or(n.attribute("fill"))
        })
        .filter(|c| !matches!(*c, "#000000" | "#FFFFFF" | "none"))
        .collect();
    Ok(colours.len())
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

/// Every figure of `batches` into `out` (SVG and CSV); the files written.
pub fn write(batches: &[BatchFacts], out: &Path) -> anyhow::Result<Vec<PathBuf>> {
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

    let t = evolution(batches);
    let cats = [
        "no F2P test initially",
        "an F2P test later",
        "final test F2P",
    ]
    .map(s);
    let series: Vec<(String, Vec<f64>)> = batches
        .iter()
        .map(|b| {
            let r = t.rows.iter().find(|r| r[0] == b.label);
            let v = r.map_or(vec![0.0; 3], |r| {
                r[2..5].iter().map(|x| x.parse().unwrap_or(0.0)).collect()
            });
            (b.label.clone(), v)
        })
        .collect();
    put(
        "table4_evolution",
        &t,
        bar_chart(
            true,
            "Evolution from populations with no F2P test",
            (
                "instances whose initial population has no F2P test",
                "instances",
            ),
            &cats,
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
        let t = evolution(&b);
        assert_eq!(t.rows[0][1..], ["3", "2", "1", "1", "0.5000"].map(s));
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
        let files = write(&[batch("A"), batch("B")], d.path()).unwrap();
        assert_eq!(files.len(), 14, "seven figures, each with its CSV");
        let svg = std::fs::read_to_string(d.path().join("fig6_f2p_share.svg")).unwrap();
        assert_eq!(series_in_svg(&svg).unwrap(), 2, "{svg}");
        let bars = std::fs::read_to_string(d.path().join("table9_cuts.svg")).unwrap();
        assert_eq!(series_in_svg(&bars).unwrap(), 2);
        for text in [
            "A",
            "B",
            "generation (0: the initial population)",
            "3 instances",
        ] {
            assert!(svg.contains(text), "{text}");
        }
    }
}
