//! The arithmetic of `collector spread`, on plain data: per arm the spread of its p50
//! ([`Row`]), of its instructions per handshake per end ([`CountRow`]) and of its resume
//! speedup ([`SpeedupRow`]) over the runs, and what each run says of its host
//! ([`RunLine`]).

use std::collections::BTreeMap;

use shared::{Arm, ComparisonKind, Evidence, Level, Mode};

/// Values of one quantity over the runs (in file order) and how far they spread.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    pub values: Vec<f64>,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// `(max − min) / median`.
    pub spread: f64,
}

impl Spread {
    /// The spread of `values`; None with fewer than two, or a median of 0.
    pub fn of(values: Vec<f64>) -> Option<Spread> {
        if values.len() < 2 {
            return None;
        }
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let median = shared::cluster::nearest_rank(&sorted, 50.0);
        let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
        (median > 0.0).then(|| Spread {
            values,
            median,
            min,
            max,
            spread: (max - min) / median,
        })
    }
}

/// One arm's p50 over the runs that measured it soundly.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    pub mode: Mode,
    pub p50: Spread,
}

/// One arm's instructions per handshake at one end over the runs that counted it.
#[derive(Debug, Clone, PartialEq)]
pub struct CountRow {
    pub id: String,
    pub end: &'static str,
    pub per_handshake: Spread,
}

/// One resumed arm's speedup over its full arm (wall-clock p50 ratio) over the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedupRow {
    pub resumed: String,
    pub wall: Spread,
}

/// What one run says of its host: the verdict, the worst CPU's steal, and how many of
/// its chunks were set aside and measured again.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLine {
    pub level: Level,
    pub steal_percent: Option<f64>,
    pub chunks: u64,
    pub set_aside: u64,
}

/// Values keyed by a name, in the order names first appear; rows for names with at least
/// two values.
fn spreads<K: Ord + Clone>(pairs: impl Iterator<Item = (K, f64)>) -> Vec<(K, Spread)> {
    let mut order = Vec::new();
    let mut by: BTreeMap<K, Vec<f64>> = BTreeMap::new();
    for (k, v) in pairs {
        by.entry(k.clone())
            .or_insert_with(|| {
                order.push(k);
                Vec::new()
            })
            .push(v);
    }
    order
        .into_iter()
        .filter_map(|k| {
            let values = by.remove(&k)?;
            Some((k, Spread::of(values)?))
        })
        .collect()
}

fn sound(a: &Arm) -> bool {
    a.error.is_none() && a.skipped.is_none() && a.latency_us.is_some()
}

/// Every arm measured soundly (no error, a latency) in at least two of `runs`, in the
/// order of the first run's arms.
pub fn rows(runs: &[Evidence]) -> Vec<Row> {
    let modes: BTreeMap<&str, Mode> = runs
        .iter()
        .flat_map(|e| e.arms.iter().map(|a| (a.id.as_str(), a.mode)))
        .collect();
    let p50s = runs.iter().flat_map(|e| {
        e.arms
            .iter()
            .filter(|a| sound(a))
            .filter_map(|a| Some((a.id.clone(), a.latency_us?.p50)))
    });
    spreads(p50s)
        .into_iter()
        .map(|(id, p50)| Row {
            mode: modes[id.as_str()],
            id,
            p50,
        })
        .collect()
}

/// Every arm and end counted in at least two of `runs` (of one build profile: counts of
/// different builds never compare; the first run's wins).
pub fn count_rows(runs: &[Evidence]) -> Vec<CountRow> {
    let profile = runs
        .iter()
        .flat_map(|e| &e.arms)
        .find_map(|a| Some(a.instructions.as_ref()?.build_profile));
    let counts = runs.iter().flat_map(|e| {
        e.arms.iter().flat_map(|a| {
            let ins = a
                .instructions
                .as_ref()
                .filter(|i| Some(i.build_profile) == profile);
            let c = ins.and_then(|i| i.counted());
            let ends = c.map(|c| [("client", c.client), ("server", Some(c.server))]);
            ends.into_iter()
                .flatten()
                .filter_map(|(end, e)| Some(((a.id.clone(), end), e?.per_handshake)))
        })
    });
    spreads(counts)
        .into_iter()
        .map(|((id, end), per_handshake)| CountRow {
            id,
            end,
            per_handshake,
        })
        .collect()
}

/// Every resume speedup given in at least two of `runs`.
pub fn speedup_rows(runs: &[Evidence]) -> Vec<SpeedupRow> {
    let ratios = runs.iter().flat_map(|e| {
        e.comparisons
            .iter()
            .filter(|c| c.kind == ComparisonKind::ResumeSpeedup)
            .map(|c| (c.candidate.clone(), c.p50_ratio))
    });
    spreads(ratios)
        .into_iter()
        .map(|(resumed, wall)| SpeedupRow { resumed, wall })
        .collect()
}

/// What `e` says of its host.
pub fn run_line(e: &Evidence) -> RunLine {
    let c = shared::conditions::of_run(e);
    let chunks = e.arms.iter().filter_map(|a| a.chunks.as_ref());
    RunLine {
        level: c.level,
        steal_percent: c.steal_percent,
        chunks: chunks.clone().map(|c| c.list.len() as u64).sum(),
        set_aside: chunks.map(|c| c.set_aside()).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::sample::instructions as counted;

    pub(super) fn run_with(p50s: &[(&str, f64)]) -> Evidence {
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
        let a = &r[0].p50;
        assert_eq!(a.values, vec![100.0, 104.0, 98.0]);
        assert_eq!((a.median, a.min, a.max), (100.0, 98.0, 104.0));
        assert!((a.spread - 0.06).abs() < 1e-12);
        assert_eq!((r[1].p50.values.len(), r[1].p50.spread), (2, 0.0));
    }

    #[test]
    fn arms_with_errors_or_in_one_run_only_are_left_out() {
        let mut bad = run_with(&[("a", 100.0), ("c", 7.0)]);
        bad.arms[0].error = Some("did not resume".into());
        let runs = [bad, run_with(&[("a", 90.0), ("d", 1.0)])];
        assert!(rows(&runs).is_empty());
    }

    #[test]
    fn counts_spread_per_arm_and_end_within_one_build() {
        let mut runs = [run_with(&[("a", 1.0)]), run_with(&[("a", 1.0)])];
        runs[0].arms[0].instructions = Some(counted(1_000_000.0, 4_000_000.0));
        runs[1].arms[0].instructions = Some(counted(1_002_000.0, 4_000_000.0));
        let r = count_rows(&runs);
        let ends: Vec<(&str, &str)> = r.iter().map(|r| (r.id.as_str(), r.end)).collect();
        assert_eq!(ends, [("a", "client"), ("a", "server")]);
        // 2,000 of a median of 1,000,000 (the 50th percentile's nearest rank of two
        // values is the first, ⌈0.5 × 2⌉ = 1: the lower).
        assert_eq!(r[0].per_handshake.median, 1_000_000.0);
        assert!((r[0].per_handshake.spread - 0.002).abs() < 1e-12);
        assert_eq!(r[1].per_handshake.spread, 0.0);
        // A debug count beside a release one is left out, not spread.
        runs[1].arms[0].instructions.as_mut().unwrap().build_profile = shared::BuildProfile::Debug;
        assert!(count_rows(&runs).is_empty());
    }

    #[test]
    fn resume_speedups_spread_by_their_resumed_arm() {
        let mut runs = [shared::sample::evidence(), shared::sample::evidence()];
        let c = runs[0]
            .comparisons
            .iter()
            .position(|c| c.kind == ComparisonKind::ResumeSpeedup)
            .expect("the sample has a resume speedup");
        runs[0].comparisons[c].p50_ratio = 4.0;
        runs[1].comparisons[c].p50_ratio = 5.0;
        let r = speedup_rows(&runs);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].resumed, runs[0].comparisons[c].candidate);
        assert_eq!(r[0].wall.values, [4.0, 5.0]);
        // (5 − 4) / 4: the median of two is the lower.
        assert_eq!(r[0].wall.spread, 0.25);
    }
}
