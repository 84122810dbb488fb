//! The cert × group grid: full-handshake p50 of rustls per certificate and key-exchange
//! group, and the post-quantum hybrid's cost as a ratio to X25519.

use shared::{CertKind, Evidence, KxGroup, Mode, Protocol, Stack};

use super::filter::ArmFilter;
use super::outcome::no_result;

/// One protocol's grid. `cells[i][j]` is the p50 (µs) of cert `certs[i]` with group
/// `groups[j]`; `None` where the run has no sound arm for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    pub protocol: Protocol,
    pub certs: Vec<CertKind>,
    pub groups: Vec<KxGroup>,
    pub cells: Vec<Vec<Option<f64>>>,
    /// Per cert: `p50(x25519mlkem768) / p50(x25519)`, same cert and mode (full).
    pub pq_ratio: Vec<Option<f64>>,
    /// Smallest and largest p50 in the grid, for shading.
    pub range: [f64; 2],
}

impl Matrix {
    /// Where `p50` lies between the grid's smallest and largest p50, on a log scale (0..1).
    pub fn shade(&self, p50: f64) -> f64 {
        let [lo, hi] = self.range;
        if !(lo > 0.0 && hi > lo && p50 > 0.0) {
            return 0.0;
        }
        ((p50 / lo).ln() / (hi / lo).ln()).clamp(0.0, 1.0)
    }
}

/// Grids of the run's loopback full rustls handshakes, one per protocol that has at
/// least two cells (a single cell is no grid); arms with an error or no latency are left
/// out, so they never enter a ratio.
pub fn matrices(ev: &Evidence, filter: &ArmFilter) -> Vec<Matrix> {
    let arms: Vec<(Protocol, CertKind, KxGroup, f64)> = ev
        .arms
        .iter()
        .filter(|a| a.mode == Mode::Full && a.client_stack == Stack::Rustls)
        .filter(|a| a.server_stack == Stack::Rustls)
        .filter(|a| a.rtt_ms.is_none() && a.capacity.is_none() && filter.matches(a))
        .filter(|a| no_result(a).is_none())
        .filter_map(|a| Some((a.protocol, a.cert?, a.kx_group?, a.latency_us?.p50)))
        .collect();
    let mut out = Vec::new();
    for protocol in [Protocol::Tls13, Protocol::Tls12] {
        let mine: Vec<_> = arms.iter().filter(|a| a.0 == protocol).collect();
        if mine.len() < 2 {
            continue;
        }
        // In declaration order, without sorting (a sort costs wasm size).
        let certs: Vec<CertKind> = CertKind::ALL
            .iter()
            .copied()
            .filter(|c| mine.iter().any(|a| a.1 == *c))
            .collect();
        let groups: Vec<KxGroup> = KxGroup::ALL
            .iter()
            .copied()
            .filter(|g| mine.iter().any(|a| a.2 == *g))
            .collect();
        let p50 = |c: CertKind, g: KxGroup| mine.iter().find(|a| a.1 == c && a.2 == g).map(|a| a.3);
        let cells: Vec<Vec<Option<f64>>> = certs
            .iter()
            .map(|&c| groups.iter().map(|&g| p50(c, g)).collect())
            .collect();
        let pq_ratio = certs
            .iter()
            .map(|&c| {
                let (pq, classic) = (p50(c, KxGroup::X25519Mlkem768)?, p50(c, KxGroup::X25519)?);
                (classic > 0.0).then(|| pq / classic)
            })
            .collect();
        let values = || mine.iter().map(|a| a.3);
        out.push(Matrix {
            protocol,
            certs,
            groups,
            cells,
            pq_ratio,
            range: [
                values().fold(f64::INFINITY, f64::min),
                values().fold(f64::NEG_INFINITY, f64::max),
            ],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;
    use shared::sample::arm;

    fn grid() -> Evidence {
        let mut ev = sample();
        for (cert, group, p50) in [
            (CertKind::EcdsaP256, KxGroup::X25519Mlkem768, 600.0),
            (CertKind::Rsa2048, KxGroup::X25519, 1000.0),
            (CertKind::Rsa2048, KxGroup::X25519Mlkem768, 1500.0),
        ] {
            let id = format!("tls13-full-{cert}-{group}");
            let mut a = arm(&id, Protocol::Tls13, Mode::Full, None, vec![p50]);
            (a.cert, a.kx_group) = (Some(cert), Some(group));
            ev.arms.push(a);
        }
        ev
    }

    #[test]
    fn cells_and_pq_ratios_per_cert() {
        let ev = grid();
        let m = &matrices(&ev, &ArmFilter::default())[0];
        assert_eq!(m.certs, [CertKind::Rsa2048, CertKind::EcdsaP256]);
        assert_eq!(m.groups, [KxGroup::X25519, KxGroup::X25519Mlkem768]);
        let classic = ev.arms[1].latency_us.unwrap().p50;
        assert_eq!(m.cells[1], [Some(classic), Some(600.0)]);
        assert_eq!(m.pq_ratio, [Some(1.5), Some(600.0 / classic)]);
        assert_eq!(m.shade(m.range[0]), 0.0);
        assert_eq!(m.shade(m.range[1]), 1.0);
    }

    #[test]
    fn error_arms_leave_holes_not_ratios() {
        let mut ev = grid();
        ev.arms[4].error = Some("wrong group".into());
        let m = &matrices(&ev, &ArmFilter::default())[0];
        assert_eq!(m.cells[0], [None, Some(1500.0)]);
        assert_eq!(m.pq_ratio[0], None);
    }

    #[test]
    fn a_single_cell_is_no_grid() {
        assert!(matrices(&sample(), &ArmFilter::default()).is_empty());
        let degenerate = Matrix {
            protocol: Protocol::Tls13,
            certs: Vec::new(),
            groups: Vec::new(),
            cells: Vec::new(),
            pq_ratio: Vec::new(),
            range: [5.0, 5.0],
        };
        assert_eq!(degenerate.shade(5.0), 0.0);
    }
}
