//! The paper's remaining tables and figures from any number of batches, each a [`Table`]
//! (`figures::write` draws them and writes their CSV):
//!
//! - `table2_methods`: per batch its method, F2P count and share, model calls and cost per
//!   instance — Tables II and III, one row per system or strategy;
//! - `mcnemar`: every pair of batches on the instances both ran — F2P in both, in the first
//!   only, in the second only, in neither, and McNemar's exact p-value (the paper's test);
//! - `fig4_selection_accuracy`: per cut (phase 1 is the first, 8 -> 4), the mean of the
//!   paper's selection accuracy over the instances whose population held an F2P test;
//! - `fig5_kills`: per cut, the mean kills of the population's F2P tests and of its others;
//! - `table4_evolution`: the crossovers whose parents held no F2P test, and how many of them
//!   wrote one — Table IV's populations before each crossover;
//! - `table8_cutoff` (with `--cutoff DATE`): F2P before and after a date, by the rows'
//!   `created_at` — Table VIII;
//! - `fig8_final_coverage`: the final tests' coverage of the golden patch's lines, all, F2P
//!   and non-F2P apart — Fig. 8.

use super::charts::{Draw, bar_chart, line_chart};

/// A table's rows (each row's cells as text), as the screens read them.
pub type Rows = Vec<Vec<String>>;
use super::facts::{BatchFacts, InstanceFacts, Table};

/// The figures of this module for `batches` (each a name, its table and its SVG), captioned
/// `cap`; Table VIII only with a `cutoff`.
pub(super) fn figures(
    batches: &[BatchFacts],
    cap: &str,
    cutoff_date: Option<&str>,
) -> Vec<(&'static str, Table, Result<String, Draw>)> {
    let num = |r: &[String], i: usize| r[i].parse::<f64>().unwrap_or(0.0);
    let per_batch = |t: &Table, col: usize| -> Vec<(String, Vec<f64>)> {
        batches
            .iter()
            .map(|b| {
                let v = t
                    .rows
                    .iter()
                    .filter(|r| r[0] == b.label)
                    .map(|r| num(r, col));
                (b.label.clone(), v.collect())
            })
            .collect()
    };
    // Lines over the cuts (phase 1 is the first), one per batch and column.
    let over_phases = |t: &Table, cols: &[(usize, &str)]| -> Vec<(String, Vec<(f64, f64)>)> {
        let mut out = vec![];
        for b in batches {
            for (col, what) in cols {
                let points = t
                    .rows
                    .iter()
                    .filter(|r| r[0] == b.label && !r[*col].is_empty())
                    .map(|r| (num(r, 1), num(r, *col)))
                    .collect();
                let name = if what.is_empty() {
                    b.label.clone()
                } else {
                    format!("{}: {what}", b.label)
                };
                out.push((name, points));
            }
        }
        out
    };
    let mut out = vec![];

    let t = methods(batches);
    let share: Vec<(String, Vec<f64>)> = t
        .rows
        .iter()
        .map(|r| (format!("{} ({})", r[0], r[1]), vec![num(r, 4)]))
        .collect();
    let svg = bar_chart(
        false,
        "F2P rate per batch (Tables II and III)",
        ("", "share of instances whose final test is F2P"),
        &["F2P rate".to_string()],
        &share,
        cap,
    );
    out.push(("table2_methods", t, svg));

    let t = selection_accuracy(batches);
    let svg = line_chart(
        "Selection accuracy per phase (Fig. 4)",
        (
            "phase (1: the first cut, 8 -> 4)",
            "mean selection accuracy",
        ),
        &over_phases(&t, &[(3, "")]),
        cap,
    );
    out.push(("fig4_selection_accuracy", t, svg));

    let t = kills(batches);
    let svg = line_chart(
        "Mutants killed by F2P and other tests (Fig. 5)",
        ("phase (1: the first cut)", "mean kills per test"),
        &over_phases(&t, &[(3, "F2P tests"), (5, "other tests")]),
        cap,
    );
    out.push(("fig5_kills", t, svg));

    let t = evolution(batches);
    let svg = bar_chart(
        true,
        "Crossovers from parents without an F2P test (Table IV)",
        ("", "crossovers"),
        &["parents without F2P", "offspring with F2P"].map(s),
        &per_batch(&t, 2)
            .into_iter()
            .zip(per_batch(&t, 3))
            .map(|((l, a), (_, b))| (l, [a, b].concat()))
            .collect::<Vec<_>>(),
        cap,
    );
    out.push(("table4_evolution", t, svg));

    if let Some(date) = cutoff_date {
        let t = cutoff(batches, date);
        let svg = bar_chart(
            false,
            &format!("F2P rate before and after {date} (Table VIII)"),
            ("instances by created_at", "F2P rate"),
            &["pre-cutoff", "post-cutoff", "no created_at"].map(s),
            &batches
                .iter()
                .map(|b| {
                    let v = ["pre-cutoff", "post-cutoff", "no created_at"].map(|sub| {
                        t.rows
                            .iter()
                            .find(|r| r[0] == b.label && r[1] == sub)
                            .map_or(0.0, |r| num(r, 4))
                    });
                    (b.label.clone(), v.to_vec())
                })
                .collect::<Vec<_>>(),
            cap,
        );
        out.push(("table8_cutoff", t, svg));
    }

    let t = final_coverage(batches);
    let svg = bar_chart(
        false,
        "Coverage of the golden patch by the final tests (Fig. 8)",
        ("final tests", "mean coverage of the golden lines"),
        &["all", "F2P", "non-F2P"].map(s),
        &per_batch(&t, 3),
        cap,
    );
    out.push(("fig8_final_coverage", t, svg));
    out
}

fn s<T: ToString>(v: T) -> String {
    v.to_string()
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| sum / n as f64)
}

fn fixed(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x:.4}"))
}

/// McNemar's exact test (two-sided) on paired outcomes, as the paper reports significance:
/// of the `b + c` discordant pairs (`b` where only A succeeded, `c` where only B did), the
/// chance of a split at least as uneven as this one if either side were as likely, i.e. twice
/// the binomial(b + c, 1/2) tail at min(b, c), at most 1. Summed in logarithms, so that a
/// thousand discordant pairs do not underflow.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let half = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0;
    let mut tail = 0.0;
    for k in 0..=b.min(c) {
        if k > 0 {
            ln_choose += ((n - k + 1) as f64).ln() - (k as f64).ln();
        }
        tail += (ln_choose + half).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Tables II and III: a row per batch.
pub fn methods(batches: &[BatchFacts]) -> Table {
    let rows = batches
        .iter()
        .map(|b| {
            let n = b.instances.len();
            let f2p = b.instances.iter().filter(|i| i.final_f2p).count();
            let mut methods: Vec<&str> = b.instances.iter().map(|i| i.method.as_str()).collect();
            methods.sort_unstable();
            methods.dedup();
            let calls = mean(b.instances.iter().map(|i| i.model_calls as f64));
            let after = mean(b.instances.iter().map(|i| i.calls_after_generation as f64));
            let most_after = b.instances.iter().map(|i| i.calls_after_generation).max();
            // A cost is known only when every instance's is.
            let cost = b
                .instances
                .iter()
                .map(|i| i.cost_usd)
                .collect::<Option<Vec<f64>>>()
                .and_then(|c| mean(c.into_iter()));
            vec![
                b.label.clone(),
                methods.join("+"),
                s(n),
                s(f2p),
                format!("{:.4}", if n == 0 { 0.0 } else { f2p as f64 / n as f64 }),
                fixed(calls),
                fixed(after),
                most_after.map_or(String::new(), s),
                cost.map_or(String::new(), |c| format!("{c:.6}")),
            ]
        })
        .collect();
    Table {
        header: [
            "batch",
            "method",
            "instances",
            "f2p",
            "f2p_share",
            "model_calls_per_instance",
            "calls_after_generation_per_instance",
            "most_calls_after_generation",
            "cost_usd_per_instance",
        ]
        .map(s)
        .to_vec(),
        rows,
    }
}

/// McNemar's exact test between every pair of batches, on the instances both ran.
pub fn mcnemar(batches: &[BatchFacts]) -> Table {
    let mut rows = vec![];
    for (i, a) in batches.iter().enumerate() {
        for b in &batches[i + 1..] {
            let (mut both, mut a_only, mut b_only, mut neither) = (0, 0, 0, 0);
            for x in &a.instances {
                let Some(y) = b.instances.iter().find(|y| y.id == x.id) else {
                    continue;
                };
                match (x.final_f2p, y.final_f2p) {
                    (true, true) => both += 1,
                    (true, false) => a_only += 1,
                    (false, true) => b_only += 1,
                    (false, false) => neither += 1,
                }
            }
            rows.push(vec![
                a.label.clone(),
                b.label.clone(),
                s(both + a_only + b_only + neither),
                s(both),
                s(a_only),
                s(b_only),
                s(neither),
                format!("{:.4}", mcnemar_exact(a_only, b_only)),
            ]);
        }
    }
    Table {
        header: [
            "a",
            "b",
            "instances_both_ran",
            "f2p_both",
            "f2p_a_only",
            "f2p_b_only",
            "f2p_neither",
            "p_value",
        ]
        .map(s)
        .to_vec(),
        rows,
    }
}

/// The most cuts any instance of `b` made.
fn phases(b: &BatchFacts, of: impl Fn(&InstanceFacts) -> usize) -> usize {
    b.instances.iter().map(of).max().unwrap_or(0)
}

/// Fig. 4: per batch and cut, the mean selection accuracy over the instances it is defined
/// for (their population held an F2P test).
pub fn selection_accuracy(batches: &[BatchFacts]) -> Table {
    let mut rows = vec![];
    for b in batches {
        for p in 0..phases(b, |i| i.accuracy.len()) {
            let v: Vec<f64> = b
                .instances
                .iter()
                .filter_map(|i| i.accuracy.get(p).copied().flatten())
                .collect();
            rows.push(vec![
                b.label.clone(),
                s(p + 1),
                s(v.len()),
                fixed(mean(v.into_iter())),
            ]);
        }
    }
    Table {
        header: ["batch", "phase", "instances_with_f2p", "mean_accuracy"]
            .map(s)
            .to_vec(),
        rows,
    }
}

/// Fig. 5: per batch and cut, the mean kills of F2P tests and of the others (each instance's
/// means, averaged over the instances that have such tests).
pub fn kills(batches: &[BatchFacts]) -> Table {
    let mut rows = vec![];
    for b in batches {
        for p in 0..phases(b, |i| i.kills.len()) {
            // Column 0: the F2P tests' mean kills; 1: the others'.
            let at = |side: usize| {
                let v: Vec<f64> = b
                    .instances
                    .iter()
                    .filter_map(|i| i.kills.get(p).and_then(|k| [k.0, k.1][side]))
                    .collect();
                (v.len(), mean(v.into_iter()))
            };
            let (nf, f) = at(0);
            let (no, o) = at(1);
            rows.push(vec![
                b.label.clone(),
                s(p + 1),
                s(nf),
                fixed(f),
                s(no),
                fixed(o),
            ]);
        }
    }
    Table {
        header: [
            "batch",
            "phase",
            "instances_with_f2p_tests",
            "mean_kills_f2p",
            "instances_with_other_tests",
            "mean_kills_other",
        ]
        .map(s)
        .to_vec(),
        rows,
    }
}

/// Table IV as the paper counts it: the crossovers whose parents held no F2P test, and those
/// of them whose offspring held one.
pub fn evolution(batches: &[BatchFacts]) -> Table {
    let rows = batches
        .iter()
        .map(|b| {
            let all: Vec<(bool, bool)> = b
                .instances
                .iter()
                .flat_map(|i| i.crossovers.iter().copied())
                .collect();
            let from_none: Vec<&(bool, bool)> = all.iter().filter(|c| !c.0).collect();
            let evolved = from_none.iter().filter(|c| c.1).count();
            vec![
                b.label.clone(),
                s(all.len()),
                s(from_none.len()),
                s(evolved),
                // No sample, no rate (not 0%).
                fixed((!from_none.is_empty()).then(|| evolved as f64 / from_none.len() as f64)),
            ]
        })
        .collect();
    Table {
        header: [
            "batch",
            "crossovers",
            "parents_without_f2p",
            "offspring_with_f2p",
            "evolution_rate",
        ]
        .map(s)
        .to_vec(),
        rows,
    }
}

/// Table VIII: per batch, the instances created before `cutoff` and on or after it (ISO
/// dates compare as text), and those without a `created_at`.
pub fn cutoff(batches: &[BatchFacts], cutoff: &str) -> Table {
    let mut rows = vec![];
    for b in batches {
        for subset in ["pre-cutoff", "post-cutoff", "no created_at"] {
            let of: Vec<&InstanceFacts> = b
                .instances
                .iter()
                .filter(|i| {
                    let side = match &i.created_at {
                        None => "no created_at",
                        Some(d) if d.as_str() < cutoff => "pre-cutoff",
                        Some(_) => "post-cutoff",
                    };
                    side == subset
                })
                .collect();
            if of.is_empty() && subset == "no created_at" {
                continue;
            }
            let f2p = of.iter().filter(|i| i.final_f2p).count();
            rows.push(vec![
                b.label.clone(),
                subset.to_string(),
                s(of.len()),
                s(f2p),
                fixed((!of.is_empty()).then(|| f2p as f64 / of.len() as f64)),
            ]);
        }
    }
    Table {
        header: ["batch", "subset", "instances", "f2p", "f2p_share"]
            .map(s)
            .to_vec(),
        rows,
    }
}

/// Fig. 8: per batch, the mean coverage of the golden patch's lines by the final tests, of
/// all, of the F2P ones and of the others.
pub fn final_coverage(batches: &[BatchFacts]) -> Table {
    let mut rows = vec![];
    for b in batches {
        for (which, keep) in [("all", None), ("f2p", Some(true)), ("non-f2p", Some(false))] {
            let v: Vec<f64> = b
                .instances
                .iter()
                .filter(|i| keep.is_none_or(|k| i.final_f2p == k))
                .filter_map(|i| i.final_coverage)
                .collect();
            rows.push(vec![
                b.label.clone(),
                which.to_string(),
                s(v.len()),
                fixed(mean(v.into_iter())),
            ]);
        }
    }
    Table {
        header: ["batch", "final_tests", "instances", "mean_coverage"]
            .map(s)
            .to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// McNemar's exact p-values, against values computed by hand (2 * sum of C(n, k) / 2^n).
    #[test]
    fn mcnemar_matches_the_hand_computed_values() {
        // n = 7, min 1: 2 * (1 + 7) / 128.
        assert!((mcnemar_exact(1, 6) - 0.125).abs() < 1e-12);
        assert!((mcnemar_exact(6, 1) - 0.125).abs() < 1e-12);
        // n = 10, min 0: 2 / 1024.
        assert!((mcnemar_exact(0, 10) - 0.001953125).abs() < 1e-12);
        // n = 12, min 2: 2 * (1 + 12 + 66) / 4096.
        assert!((mcnemar_exact(2, 10) - 158.0 / 4096.0).abs() < 1e-12);
        // An even split, or nothing discordant: no evidence either way.
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // Large counts stay finite and tiny.
        let p = mcnemar_exact(100, 400);
        assert!(p > 0.0 && p < 1e-30, "{p}");
    }

    fn inst(id: &str, f2p: bool) -> InstanceFacts {
        InstanceFacts {
            id: id.into(),
            final_f2p: f2p,
            method: "evootter".into(),
            model_calls: 4,
            cost_usd: Some(0.25),
            ..Default::default()
        }
    }

    fn batch(label: &str, f2p: &[bool]) -> BatchFacts {
        BatchFacts {
            label: label.into(),
            settings: String::new(),
            instances: f2p
                .iter()
                .enumerate()
                .map(|(i, f)| inst(&format!("i{i}"), *f))
                .collect(),
        }
    }

    #[test]
    fn mcnemar_pairs_every_batch_with_every_other_on_common_instances() {
        // Twelve instances: A and B disagree on nine, B wins eight of them.
        let a: Vec<bool> = (0..12).map(|i| i < 3 || i == 11).collect();
        let b: Vec<bool> = (0..12).map(|i| i < 11).collect();
        let c: Vec<bool> = vec![true; 12];
        let t = mcnemar(&[batch("A", &a), batch("B", &b), batch("C", &c)]);
        assert_eq!(t.rows.len(), 3, "A-B, A-C, B-C");
        // A only: instance 11; B only: 3..=10 (8). By hand: 2 * P(X <= 1), X ~ Bin(9, 1/2)
        // = 2 * (1 + 9) / 512 = 0.0390625.
        assert_eq!(
            t.rows[0],
            ["A", "B", "12", "3", "1", "8", "0", "0.0391"].map(s)
        );
        assert_eq!(t.rows[2][..2], ["B", "C"].map(s));
        assert_eq!(t.rows[2][4..7], ["0", "1", "0"].map(s));
    }

    #[test]
    fn the_methods_table_counts_f2p_calls_and_cost() {
        let mut b = batch("eotter", &[true, false, true, true]);
        b.instances[0].method = "eotter".into();
        b.instances[0].model_calls = 12;
        b.instances[0].calls_after_generation = 10;
        let t = methods(&[b.clone()]);
        assert_eq!(
            t.rows[0],
            [
                "eotter",
                "eotter+evootter",
                "4",
                "3",
                "0.7500",
                "6.0000",
                "2.5000",
                "10",
                "0.250000"
            ]
            .map(s)
        );
        b.instances[1].cost_usd = None;
        assert_eq!(methods(&[b]).rows[0][8], "", "an unknown cost is not zero");
    }

    #[test]
    fn table_four_counts_crossovers_from_parents_without_f2p() {
        let mut b = batch("A", &[false, true]);
        b.instances[0].crossovers = vec![(false, false), (false, true)];
        b.instances[1].crossovers = vec![(true, true), (false, false)];
        assert_eq!(
            evolution(&[b]).rows[0],
            ["A", "4", "3", "1", "0.3333"].map(s)
        );
    }

    #[test]
    fn accuracy_kills_cutoff_and_coverage_per_batch() {
        let mut b = batch("A", &[true, false, true]);
        b.instances[0].accuracy = vec![Some(1.0), Some(0.5)];
        b.instances[1].accuracy = vec![None, None];
        b.instances[2].accuracy = vec![Some(0.5)];
        let t = selection_accuracy(std::slice::from_ref(&b));
        assert_eq!(t.rows[0], ["A", "1", "2", "0.7500"].map(s));
        assert_eq!(t.rows[1], ["A", "2", "1", "0.5000"].map(s));
        b.instances[0].kills = vec![(Some(4.0), Some(1.0))];
        b.instances[1].kills = vec![(None, Some(3.0))];
        let t = kills(std::slice::from_ref(&b));
        assert_eq!(t.rows[0], ["A", "1", "1", "4.0000", "2", "2.0000"].map(s));
        b.instances[0].created_at = Some("2025-09-01T00:00:00Z".into());
        b.instances[1].created_at = Some("2025-10-02".into());
        let t = cutoff(std::slice::from_ref(&b), "2025-09-29");
        assert_eq!(t.rows[0][1..], ["pre-cutoff", "1", "1", "1.0000"].map(s));
        assert_eq!(t.rows[1][1..], ["post-cutoff", "1", "0", "0.0000"].map(s));
        assert_eq!(t.rows[2][1..], ["no created_at", "1", "1", "1.0000"].map(s));
        b.instances[0].final_coverage = Some(0.9);
        b.instances[1].final_coverage = Some(0.5);
        let t = final_coverage(&[b]);
        assert_eq!(t.rows[0][2..], ["2", "0.7000"].map(s));
        assert_eq!(t.rows[1][2..], ["1", "0.9000"].map(s));
        assert_eq!(t.rows[2][2..], ["1", "0.5000"].map(s));
    }
}
