//! The loss process held against what was asked, from a direction's own counts: the
//! achieved loss of all packets and of each kind of segment within the binomial 99%
//! interval of the asked rate, and the order of the outcomes against independence (the
//! Wald–Wolfowitz runs test). For a model without bursts only: a burst model's counts
//! are neither binomial nor independent by design.

use crate::link::{ConnectionDrops, Direction, LinkCounts, PacketKind};

/// The 99% acceptance interval, in packets, of a Binomial(`n`, `p`) count: the
/// smallest `lo` with P(X ≤ lo) ≥ 0.005 and the smallest `hi` with P(X ≤ hi) ≥ 0.995 (by
/// the exact distribution, summed in log space).
pub fn binomial_interval99(n: u64, p: f64) -> (u64, u64) {
    if n == 0 || p <= 0.0 {
        return (0, 0);
    }
    if p >= 1.0 {
        return (n, n);
    }
    let (ln_p, ln_q) = (p.ln(), (1.0 - p).ln());
    let mut ln_pmf = n as f64 * ln_q;
    let mut cdf = 0.0;
    let mut lo = None;
    for k in 0..=n {
        if k > 0 {
            ln_pmf += ((n - k + 1) as f64 / k as f64).ln() + ln_p - ln_q;
        }
        cdf += ln_pmf.exp();
        if lo.is_none() && cdf >= 0.005 {
            lo = Some(k);
        }
        if cdf >= 0.995 {
            return (lo.unwrap_or(k), k);
        }
    }
    (lo.unwrap_or(n), n)
}

/// The Wald–Wolfowitz runs test's z for `runs` runs among `lost` and `kept` outcomes:
/// near 0 when the outcomes are independent, negative when losses clump (bursts).
/// None when either outcome never occurred.
pub fn runs_z(runs: u64, lost: u64, kept: u64) -> Option<f64> {
    let (a, b) = (lost as f64, kept as f64);
    let n = a + b;
    if lost == 0 || kept == 0 || n < 3.0 {
        return None;
    }
    let mean = 2.0 * a * b / n + 1.0;
    let var = (mean - 1.0) * (mean - 2.0) / (n - 1.0);
    (var > 0.0).then(|| (runs as f64 - mean) / var.sqrt())
}

/// |z| within which a runs test passes at 99% (two-sided).
pub const RUNS_Z99: f64 = 2.576;

/// What one count covers: every packet the direction drew for, or one kind of segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    All,
    Kind(PacketKind),
}

/// A count of losses beside its binomial 99% interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountCheck {
    pub scope: Scope,
    pub seen: u64,
    pub lost: u64,
    /// [`binomial_interval99`] of `seen` at the asked rate.
    pub interval: (u64, u64),
}

impl CountCheck {
    pub fn within(&self) -> bool {
        (self.interval.0..=self.interval.1).contains(&self.lost)
    }
}

/// One direction's loss process checked.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectionCheck {
    /// All packets first, then each kind seen at least once.
    pub counts: Vec<CountCheck>,
    /// The runs test's z (None: no run count recorded, or only one outcome occurred).
    pub runs_z: Option<f64>,
}

impl DirectionCheck {
    pub fn outside(&self) -> impl Iterator<Item = &CountCheck> {
        self.counts.iter().filter(|c| !c.within())
    }

    /// Whether the outcomes' order is consistent with independent draws at 99%.
    pub fn independent(&self) -> Option<bool> {
        self.runs_z.map(|z| z.abs() <= RUNS_Z99)
    }

    /// How many 99% checks were made: with k of them, one or more fails by chance
    /// with probability up to 1 − 0.99ᵏ.
    pub fn checks(&self) -> usize {
        self.counts.len() + usize::from(self.runs_z.is_some())
    }
}

/// `c` held against independent loss at rate `p`. None when no loss was asked or the
/// model has bursts.
pub fn check(c: &LinkCounts, p: f64, burst: Option<f64>) -> Option<DirectionCheck> {
    if p <= 0.0 || burst.is_some() {
        return None;
    }
    let count = |scope, seen, lost| CountCheck {
        scope,
        seen,
        lost,
        interval: binomial_interval99(seen, p),
    };
    let mut counts = vec![count(Scope::All, c.seen, c.lost)];
    if let Some(k) = &c.by_kind {
        for kind in PacketKind::ALL {
            let n = k.get(kind);
            if n.seen > 0 {
                counts.push(count(Scope::Kind(kind), n.seen, n.lost));
            }
        }
    }
    // Packets over the MTU are dropped before the draw: not among the outcomes.
    let drawn = c.seen.saturating_sub(c.too_big);
    let runs_z = c
        .runs
        .and_then(|r| runs_z(r, c.lost, drawn.saturating_sub(c.lost)));
    Some(DirectionCheck { counts, runs_z })
}

/// The SYN phase of an arm's timed connections: how many lost a SYN, a SYN-ACK, or both,
/// and how many lost neither against what independent loss at `p` predicts. A
/// connection loses neither exactly when its first SYN and its first SYN-ACK both get
/// through, probability (1 − p)²; the handshake then completes without sending either
/// again (a SYN-ACK sent again later, after the client's ACK and first data were both
/// lost, is rare: about p³).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynPhase {
    pub connections: u64,
    pub syn_only: u64,
    pub syn_ack_only: u64,
    pub both: u64,
    /// [`binomial_interval99`] of the connections that lost neither.
    pub neither_interval: (u64, u64),
}

impl SynPhase {
    pub fn neither(&self) -> u64 {
        self.connections - self.syn_only - self.syn_ack_only - self.both
    }

    pub fn within(&self) -> bool {
        (self.neither_interval.0..=self.neither_interval.1).contains(&self.neither())
    }
}

/// The SYN phase of `d`'s connections at asked loss `p` (None: no loss asked, a burst
/// model, or no connection).
pub fn syn_phase(d: &ConnectionDrops, p: f64, burst: Option<f64>) -> Option<SynPhase> {
    if p <= 0.0 || burst.is_some() || d.connections == 0 {
        return None;
    }
    let syn = d.of(Direction::ClientToServer, PacketKind::Syn);
    let syn_ack = d.of(Direction::ServerToClient, PacketKind::SynAck);
    let (mut syn_only, mut syn_ack_only, mut both) = (0, 0, 0);
    for (s, a) in syn.iter().zip(&syn_ack) {
        match (*s > 0, *a > 0) {
            (true, true) => both += 1,
            (true, false) => syn_only += 1,
            (false, true) => syn_ack_only += 1,
            (false, false) => {}
        }
    }
    Some(SynPhase {
        connections: d.connections,
        syn_only,
        syn_ack_only,
        both,
        neither_interval: binomial_interval99(d.connections, (1.0 - p) * (1.0 - p)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{ByKind, ConnectionDrop, KindCount};

    #[test]
    fn the_binomial_interval_matches_the_exact_quantiles() {
        // Binomial(10, 0.5): P(X ≤ 0) = 1/1024 < 0.005, P(X ≤ 1) = 11/1024 ≥ 0.005;
        // P(X ≤ 8) = 1013/1024 < 0.995, P(X ≤ 9) = 1023/1024 ≥ 0.995.
        assert_eq!(binomial_interval99(10, 0.5), (1, 9));
        // Binomial(100, 0.03): P(X ≤ 0) = 0.97^100 = 0.0476 ≥ 0.005; the upper bound is
        // 8 (P(X ≤ 7) = 0.9894, P(X ≤ 8) = 0.9968, summed from the pmf).
        assert_eq!(binomial_interval99(100, 0.03), (0, 8));
        assert_eq!(binomial_interval99(0, 0.03), (0, 0));
        assert_eq!(binomial_interval99(50, 0.0), (0, 0));
        // Large n does not underflow: 20,000 × 20% = 4,000, σ = 56.6, ±2.576 σ ≈ ±146.
        let (lo, hi) = binomial_interval99(20_000, 0.2);
        assert!(
            (3850..=3860).contains(&lo) && (4140..=4150).contains(&hi),
            "{lo} {hi}"
        );
    }

    #[test]
    fn the_runs_test_tells_alternation_and_clumps_from_chance() {
        // 10 lost and 10 kept, by the formula:
        // mean = 2·10·10/20 + 1 = 11, var = 10·9/19 = 4.737.
        let z = runs_z(11, 10, 10).unwrap();
        assert!(z.abs() < 1e-12);
        // All losses together (2 runs) is far below; strict alternation (20) far above.
        assert!(runs_z(2, 10, 10).unwrap() < -RUNS_Z99);
        assert!(runs_z(20, 10, 10).unwrap() > RUNS_Z99);
        assert_eq!(runs_z(5, 0, 10), None);
        assert_eq!(runs_z(5, 10, 0), None);
        assert_eq!(runs_z(2, 1, 1), None, "too few outcomes");
        // Exact values: 10 and 10 in 2 runs, z = (2 − 11)/√4.737 = −4.1352; 40 lost
        // and 60 kept in 30 runs: mean = 2·40·60/100 + 1 = 49, var = 48·47/99 = 22.788,
        // z = (30 − 49)/4.7737 = −3.9802.
        assert!((runs_z(2, 10, 10).unwrap() + 4.1352).abs() < 1e-4);
        assert!((runs_z(30, 40, 60).unwrap() + 3.9802).abs() < 1e-4);
    }

    #[test]
    fn a_direction_is_checked_in_all_and_per_kind_and_its_order() {
        let c = LinkCounts {
            seen: 100,
            lost: 3,
            by_kind: Some(ByKind {
                syn: KindCount { seen: 20, lost: 3 },
                data: KindCount { seen: 80, lost: 0 },
                ..ByKind::default()
            }),
            // 3 lost, 97 kept: mean = 2·3·97/100 + 1 = 6.82; 7 runs is close to it.
            runs: Some(7),
            ..LinkCounts::default()
        };
        let d = check(&c, 0.03, None).unwrap();
        // All: 3 of 100 in (0, 8) (the interval derived above). SYN: Binomial(20, 0.03),
        // P(X ≤ 2) = 0.9790, P(X ≤ 3) = 0.9973: 3 is the upper bound, still within.
        // Data: Binomial(80, 0.03), P(X ≤ 6) = 0.9897, P(X ≤ 7) = 0.9972; 0 of 80 is
        // within (P(X = 0) = 0.97^80 = 0.087).
        let scopes: Vec<_> = d.counts.iter().map(|c| (c.scope, c.interval)).collect();
        assert_eq!(
            scopes,
            [
                (Scope::All, (0, 8)),
                (Scope::Kind(PacketKind::Syn), (0, 3)),
                (Scope::Kind(PacketKind::Data), (0, 7)),
            ]
        );
        assert_eq!(d.outside().count(), 0);
        assert_eq!(d.independent(), Some(true));
        assert_eq!(d.checks(), 4);
        // Four SYNs lost of 20 is outside; all losses in one clump (3 runs) is not
        // independent: mean 6.82, var = 5.82·4.82/99 = 0.283, z = (3 − 6.82)/0.532 = −7.2.
        let clumped = LinkCounts {
            runs: Some(3),
            by_kind: Some(ByKind {
                syn: KindCount { seen: 20, lost: 4 },
                ..ByKind::default()
            }),
            ..c
        };
        let d = check(&clumped, 0.03, None).unwrap();
        assert_eq!(
            d.outside().map(|c| c.scope).collect::<Vec<_>>(),
            [Scope::Kind(PacketKind::Syn)]
        );
        assert_eq!(d.independent(), Some(false));
        // No loss asked, or a burst model: no claim.
        assert_eq!(check(&c, 0.0, None), None);
        assert_eq!(check(&c, 0.03, Some(3.0)), None);
    }

    #[test]
    fn the_syn_phase_is_counted_per_connection_and_held_against_one_minus_p_squared() {
        let drop = |connection, direction, kind| ConnectionDrop {
            connection,
            direction,
            kind,
            packets: 1,
        };
        let d = ConnectionDrops {
            connections: 10,
            dropped: vec![
                drop(0, Direction::ClientToServer, PacketKind::Syn),
                drop(1, Direction::ServerToClient, PacketKind::SynAck),
                drop(2, Direction::ClientToServer, PacketKind::Syn),
                drop(2, Direction::ServerToClient, PacketKind::SynAck),
                // Data lost: not the SYN phase.
                drop(3, Direction::ClientToServer, PacketKind::Data),
            ],
        };
        let s = syn_phase(&d, 0.2, None).unwrap();
        assert_eq!(
            (s.syn_only, s.syn_ack_only, s.both, s.neither()),
            (1, 1, 1, 7)
        );
        // Binomial(10, 0.64): P(X ≤ 1) = 0.0007, P(X ≤ 2) = 0.0059; P(X ≤ 9) = 0.9885,
        // P(X ≤ 10) = 1: the interval is 2–10.
        assert_eq!(s.neither_interval, (2, 10));
        assert!(s.within());
        // One of ten through where 64% are expected is outside.
        let worse = ConnectionDrops {
            connections: 10,
            dropped: (0..9)
                .map(|c| drop(c, Direction::ClientToServer, PacketKind::Syn))
                .collect(),
        };
        assert!(!syn_phase(&worse, 0.2, None).unwrap().within());
        assert_eq!(syn_phase(&d, 0.0, None), None);
        assert_eq!(syn_phase(&d, 0.2, Some(3.0)), None);
    }
}
