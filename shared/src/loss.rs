//! An arm's connections on a lossy link split by what the link did to them, and the
//! effect of loss measured against a control cell that loses nothing. At a few per cent
//! loss a cell holds two populations — connections that lost nothing and connections
//! that waited for a retransmission — and its median lands wherever the mix puts it; the
//! populations' own medians, shares and counts say what a median of the mix cannot.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cluster;

/// One population of an arm's timed connections.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Population {
    pub connections: u64,
    /// Its share of the arm's timed connections (0..1).
    pub share: f64,
    /// Nearest-rank median and 95th percentile (null with no connection).
    pub p50_us: Option<f64>,
    pub p95_us: Option<f64>,
}

/// The arm's timed connections: those of which the link dropped nothing, and the others.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Populations {
    pub nothing_dropped: Population,
    pub something_dropped: Population,
}

/// A ratio of medians of two arms measured in the same rounds, with its paired cluster
/// bootstrap interval (see `settings.ci_method`), or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PairedRatio {
    pub ratio: f64,
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
    #[serde(default)]
    pub ci_unavailable: Option<String>,
}

/// What loss did to a lossy cell, against the control: the cell of the same arm and
/// RTT that loses nothing, interleaved in the same rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LossEffect {
    /// The control arm's id.
    pub control: String,
    /// `p50(this arm) / p50(control)`: what loss cost the median connection.
    pub cell: PairedRatio,
    /// `p50(connections that lost nothing) / p50(control)`: near 1 when loss touches
    /// only the connections it drops from; above, when something else moved (null when
    /// none lost nothing).
    #[serde(default)]
    pub nothing_dropped: Option<PairedRatio>,
}

/// The split of `samples` by `dropped` (per connection, the same order); None when the
/// two do not line up.
pub fn populations(samples: &[f64], dropped: &[u32]) -> Option<Populations> {
    if samples.len() != dropped.len() || samples.is_empty() {
        return None;
    }
    let (mut clean, mut hit) = (Vec::new(), Vec::new());
    for (s, d) in samples.iter().zip(dropped) {
        if *d == 0 { &mut clean } else { &mut hit }.push(*s);
    }
    let n = samples.len() as f64;
    let population = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        Population {
            connections: v.len() as u64,
            share: v.len() as f64 / n,
            p50_us: (!v.is_empty()).then(|| cluster::nearest_rank(&v, 50.0)),
            p95_us: (!v.is_empty()).then(|| cluster::nearest_rank(&v, 95.0)),
        }
    };
    Some(Populations {
        nothing_dropped: population(clean),
        something_dropped: population(hit),
    })
}

/// The samples of each round kept where `keep` holds (per connection, the same order):
/// the rounds of one population, to pair with another arm's rounds. None when the
/// counts do not add up.
pub fn rounds_where(samples: &[f64], per_round: &[u64], keep: &[bool]) -> Option<Vec<Vec<f64>>> {
    if keep.len() != samples.len() {
        return None;
    }
    let rounds = cluster::split(samples, per_round)?;
    let mut at = 0;
    Some(
        rounds
            .iter()
            .map(|r| {
                let kept = r
                    .iter()
                    .zip(&keep[at..at + r.len()])
                    .filter(|(_, k)| **k)
                    .map(|(s, _)| *s)
                    .collect();
                at += r.len();
                kept
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_split_by_whether_anything_of_theirs_was_dropped() {
        // Five clean connections of 19–23 ms and three that waited about 230 ms.
        let samples = [
            19_000.0, 230_000.0, 20_000.0, 21_000.0, 240_000.0, 22_000.0, 23_000.0, 250_000.0,
        ];
        let dropped = [0, 1, 0, 0, 2, 0, 0, 1];
        let p = populations(&samples, &dropped).unwrap();
        assert_eq!(p.nothing_dropped.connections, 5);
        assert_eq!(p.nothing_dropped.share, 5.0 / 8.0);
        // Nearest rank: the 3rd of 5 and the 5th of 5.
        assert_eq!(p.nothing_dropped.p50_us, Some(21_000.0));
        assert_eq!(p.nothing_dropped.p95_us, Some(23_000.0));
        assert_eq!(p.something_dropped.connections, 3);
        assert_eq!(p.something_dropped.p50_us, Some(240_000.0));
        assert_eq!(populations(&samples, &dropped[1..]), None);
        let none = populations(&[1.0], &[0]).unwrap().something_dropped;
        assert_eq!((none.connections, none.share, none.p50_us), (0, 0.0, None));
    }

    #[test]
    fn a_population_keeps_its_rounds() {
        let samples = [1.0, 2.0, 3.0, 4.0, 5.0];
        let keep = [true, false, true, true, false];
        let r = rounds_where(&samples, &[2, 0, 3], &keep).unwrap();
        assert_eq!(r, vec![vec![1.0], vec![], vec![3.0, 4.0]]);
        assert_eq!(rounds_where(&samples, &[2, 2], &keep), None);
        assert_eq!(rounds_where(&samples, &[5], &keep[1..]), None);
    }
}
