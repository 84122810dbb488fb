//! `collector spread FILE…`: how much each arm's p50 moves from run to run. Back-to-back
//! runs of one setup on one machine should agree; the spread, `(max − min) / median` of
//! the arm's p50 over the runs, says how far a single run can be trusted to stand for the
//! next one. The arithmetic is in [`rows`] (plain data, tested), the printing in [`table`].

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use shared::{Arm, Evidence, Mode};

/// `collector spread`'s arguments.
#[derive(Debug, clap::Args)]
pub struct SpreadArgs {
    /// Evidence files of runs of one setup (e.g. five back-to-back default runs).
    #[arg(value_name = "FILE", num_args = 2..)]
    pub files: Vec<PathBuf>,
}

/// One arm's p50 over the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    pub mode: Mode,
    /// p50 in each run that measured the arm soundly, in file order.
    pub p50s: Vec<f64>,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// `(max − min) / median`.
    pub spread: f64,
}

/// Every arm measured soundly (no error, a latency) in at least two of `runs`, in the
/// order of the first run's arms.
pub fn rows(runs: &[Evidence]) -> Vec<Row> {
    let mut order: Vec<String> = Vec::new();
    let mut by_id: BTreeMap<String, (Mode, Vec<f64>)> = BTreeMap::new();
    for e in runs {
        for a in e.arms.iter().filter(|a| sound(a)) {
            let entry = by_id.entry(a.id.clone()).or_insert_with(|| {
                order.push(a.id.clone());
                (a.mode, Vec::new())
            });
            entry.1.push(a.latency_us.expect("sound").p50);
        }
    }
    order
        .into_iter()
        .filter_map(|id| {
            let (mode, p50s) = by_id.remove(&id)?;
            if p50s.len() < 2 {
                return None;
            }
            let mut sorted = p50s.clone();
            sorted.sort_by(f64::total_cmp);
            let median = shared::cluster::nearest_rank(&sorted, 50.0);
            let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
            Some(Row {
                id,
                mode,
                p50s,
                median,
                min,
                max,
                spread: (max - min) / median,
            })
        })
        .collect()
}

fn sound(a: &Arm) -> bool {
    a.error.is_none() && a.skipped.is_none() && a.latency_us.is_some()
}

/// The settings that must agree for a spread to mean anything, per run, as one line.
fn setup(e: &Evidence) -> String {
    let s = &e.run.settings;
    format!(
        "host {}, placement {}, {} samples × {} rounds, {} arms",
        e.environment.hostname,
        s.placement
            .as_ref()
            .map_or("not recorded".into(), |p| p.applied.to_string()),
        s.samples,
        s.rounds,
        e.arms.len()
    )
}

/// The table: per arm the runs' p50s and the spread, then the largest spread of the
/// full-handshake arms and of the resumed ones.
pub fn table(runs: &[Evidence], rows: &[Row]) -> String {
    let mut out = String::new();
    for (i, e) in runs.iter().enumerate() {
        let _ = writeln!(out, "run {}: {} ({})", i + 1, e.run.id, setup(e));
    }
    let setups: std::collections::BTreeSet<String> = runs.iter().map(setup).collect();
    if setups.len() > 1 {
        let _ = writeln!(
            out,
            "WARNING: the runs' setups differ, so the spread mixes setups with noise"
        );
    }
    let w = rows.iter().map(|r| r.id.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        out,
        "\n{:w$}  {:>4}  {:>10}  {:>10}  {:>10}  {:>7}",
        "arm", "runs", "median p50", "min", "max", "spread"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:w$}  {:>4}  {:>10}  {:>10}  {:>10}  {:>6.1}%",
            r.id,
            r.p50s.len(),
            crate::human::us(r.median),
            crate::human::us(r.min),
            crate::human::us(r.max),
            r.spread * 100.0
        );
    }
    for (what, mode) in [("full handshakes", Mode::Full), ("resumed", Mode::Resumed)] {
        if let Some(worst) = rows
            .iter()
            .filter(|r| r.mode == mode)
            .max_by(|a, b| a.spread.total_cmp(&b.spread))
        {
            let _ = writeln!(
                out,
                "largest spread of the {what}: {:.1}% ({})",
                worst.spread * 100.0,
                worst.id
            );
        }
    }
    out
}

pub fn command(args: &SpreadArgs) -> Result<ExitCode> {
    let runs = args
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| crate::compare::read(f, &format!("run {}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let rows = rows(&runs);
    if rows.is_empty() {
        bail!("no arm was measured soundly in at least two of the files");
    }
    print!("{}", table(&runs, &rows));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(p50s: &[(&str, f64)]) -> Evidence {
        let mut e = shared::sample::evidence();
        let template = e.arms[0].clone();
        e.arms = p50s
            .iter()
            .map(|(id, p50)| {
                let mut a = template.clone();
                a.id = id.to_string();
                a.error = None;
                if let Some(l) = a.latency_us.as_mut() {
                    l.p50 = *p50;
                }
                a
            })
            .collect();
        e
    }

    #[test]
    fn spread_is_range_over_median() {
        let runs = [
            run_with(&[("a", 100.0), ("b", 50.0)]),
            run_with(&[("a", 104.0), ("b", 50.0)]),
            run_with(&[("a", 98.0)]),
        ];
        let r = rows(&runs);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].id, "a");
        assert_eq!(r[0].p50s, vec![100.0, 104.0, 98.0]);
        assert_eq!((r[0].median, r[0].min, r[0].max), (100.0, 98.0, 104.0));
        assert!((r[0].spread - 0.06).abs() < 1e-12);
        assert_eq!((r[1].p50s.len(), r[1].spread), (2, 0.0));
    }

    #[test]
    fn arms_with_errors_or_in_one_run_only_are_left_out() {
        let mut bad = run_with(&[("a", 100.0), ("c", 7.0)]);
        bad.arms[0].error = Some("did not resume".into());
        let runs = [bad, run_with(&[("a", 90.0), ("d", 1.0)])];
        assert!(rows(&runs).is_empty());
    }

    #[test]
    fn the_table_warns_when_setups_differ() {
        let a = run_with(&[("x", 10.0)]);
        let mut b = a.clone();
        b.run.settings.samples += 1;
        let runs = [a.clone(), b];
        assert!(table(&runs, &rows(&runs)).contains("WARNING"));
        let same = [a.clone(), a];
        let t = table(&same, &rows(&same));
        assert!(!t.contains("WARNING"), "{t}");
        assert!(t.contains("0.0%"));
    }
}
