//! The table of every arm in the visible runs, and its sorting.

use std::cmp::Ordering;

use super::filter::ArmFilter;
use super::format::{fmt_share, fmt_us};
use super::load::RunSet;
use super::outcome::{no_result, NoResult};

/// One table row: an arm of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmRow {
    pub run_key: u32,
    pub run: String,
    pub run_id: String,
    pub host: String,
    pub arm: String,
    pub protocol: String,
    pub mode: String,
    pub resumption: String,
    pub cert: String,
    pub group: String,
    /// The stack under test, and the implementation on each end.
    pub stack: String,
    pub client: String,
    pub server: String,
    /// The emulated round-trip time of an RTT arm, in ms.
    pub rtt_ms: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub p50_ci: Option<[f64; 2]>,
    pub attempted: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Resumed connections by each end's own count; None for an end that did not check
    /// each connection (unverified, or nothing to verify: see `Arm::verified_ends`).
    pub resumed_client: Option<u64>,
    pub resumed_server: Option<u64>,
    /// Public-key work on the handshake's critical path (µs) and its share of the p50.
    pub crypto_floor: Option<f64>,
    pub efficiency: Option<f64>,
    /// A rate-only tool's connections per wall-clock second and per user-CPU second.
    pub rate: Option<[f64; 2]>,
    /// When set, the row's numbers are not results: shown instead of them.
    pub no_result: Option<NoResult>,
    /// The arm's wire sizes and round-trip count in words (see
    /// [`super::flights::wire_text`]), where it has them.
    pub wire: Option<String>,
}

/// Rows for every arm of the visible runs that passes the filter.
pub fn arm_rows(runs: &RunSet, filter: &ArmFilter) -> Vec<ArmRow> {
    let opt = |v: Option<String>| v.unwrap_or_default();
    runs.visible()
        .flat_map(|r| r.evidence.arms.iter().map(move |a| (r, a)))
        .filter(|(_, a)| filter.matches(a))
        .map(|(r, a)| ArmRow {
            run_key: r.key,
            run: r.label(),
            run_id: r.evidence.run.id.clone(),
            host: r.evidence.environment.hostname.clone(),
            arm: a.id.clone(),
            protocol: a.protocol.to_string(),
            mode: a.mode.to_string(),
            resumption: opt(a.resumption.map(|v| v.to_string())),
            cert: opt(a.cert.map(|v| v.to_string())),
            group: opt(a.kx_group.map(|v| v.to_string())),
            stack: a.stack.to_string(),
            client: a.client_stack.to_string(),
            server: a.server_stack.to_string(),
            rtt_ms: a.rtt_ms,
            p50: a.latency_us.map(|l| l.p50),
            p95: a.latency_us.map(|l| l.p95),
            p99: a.latency_us.map(|l| l.p99),
            p50_ci: a.p50_ci95_us,
            attempted: a.attempted,
            succeeded: a.succeeded,
            failed: a.failed,
            resumed_client: a.resumed_by_end().0,
            resumed_server: a.resumed_by_end().1,
            crypto_floor: a.crypto_floor_us,
            efficiency: a.efficiency,
            rate: a.rate.as_ref().map(|r| [r.per_real_s, r.per_user_s]),
            no_result: no_result(a),
            wire: super::flights::wire_text(a),
        })
        .collect()
}

impl ArmRow {
    /// `client/server` resumed counts, `-` for an end that did not count.
    pub fn resumed_text(&self) -> String {
        let end = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
        format!("{}/{}", end(self.resumed_client), end(self.resumed_server))
    }

    /// `71.2% (floor 312 µs)`; `n/a (floor 0 µs)` when the arm has a floor but no
    /// efficiency (a TTFB or RTT window, or a floor of 0); `–` without a floor, and nothing
    /// derived from an arm whose numbers are not results.
    pub fn efficiency_text(&self) -> String {
        match (self.crypto_floor, &self.no_result) {
            (Some(floor), None) => format!(
                "{} (floor {})",
                // A share of a zero floor is no efficiency (older files wrote 0.0).
                self.efficiency
                    .filter(|_| floor > 0.0)
                    .map_or("n/a".into(), fmt_share),
                fmt_us(floor)
            ),
            _ => "–".into(),
        }
    }
}

/// A sortable column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Run,
    Arm,
    Protocol,
    Mode,
    Cert,
    Group,
    P50,
    /// By the interval's low end.
    Ci,
    P95,
    P99,
    Efficiency,
    Resumed,
    Failed,
}

impl SortKey {
    /// Every column of the table, in its order.
    pub const ALL: [SortKey; 13] = [
        SortKey::Run,
        SortKey::Arm,
        SortKey::Protocol,
        SortKey::Mode,
        SortKey::Cert,
        SortKey::Group,
        SortKey::P50,
        SortKey::Ci,
        SortKey::P95,
        SortKey::P99,
        SortKey::Efficiency,
        SortKey::Resumed,
        SortKey::Failed,
    ];
}

impl SortKey {
    /// The column's heading on the page (and in the Markdown export).
    pub fn header(self) -> &'static str {
        match self {
            SortKey::Run => "run",
            SortKey::Arm => "arm",
            SortKey::Protocol => "protocol",
            SortKey::Mode => "mode",
            SortKey::Cert => "cert",
            SortKey::Group => "group",
            SortKey::P50 => "p50",
            SortKey::Ci => "p50 95% CI",
            SortKey::P95 => "p95",
            SortKey::P99 => "p99",
            SortKey::Efficiency => "efficiency (floor / p50)",
            SortKey::Resumed => "resumed (client/server)",
            SortKey::Failed => "failed of attempted",
        }
    }
}

/// Sort order of the table: a column and a direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub key: SortKey,
    pub descending: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort {
            key: SortKey::Run,
            descending: false,
        }
    }
}

impl Sort {
    /// Clicking a column: the same column flips direction, another starts ascending.
    pub fn clicked(self, key: SortKey) -> Sort {
        Sort {
            key,
            descending: self.key == key && !self.descending,
        }
    }
}

/// Stable sort; rows without a number (errors, no successes) always go last.
pub fn sort_rows(rows: &mut Vec<ArmRow>, sort: Sort) {
    let num = |r: &ArmRow| -> Option<f64> {
        match sort.key {
            SortKey::P50 => r.p50,
            SortKey::P95 => r.p95,
            SortKey::P99 => r.p99,
            SortKey::Ci => r.p50_ci.map(|c| c[0]),
            SortKey::Efficiency => r.efficiency,
            // An end with nothing counted sorts as 0, as before `verified`.
            SortKey::Resumed => Some(r.resumed_client.unwrap_or(0) as f64),
            // Failed connections as a share of those attempted.
            SortKey::Failed => Some(r.failed as f64 / r.attempted.max(1) as f64),
            _ => None,
        }
        .filter(|_| r.no_result.is_none() || matches!(sort.key, SortKey::Failed))
    };
    let dir = |o: Ordering| if sort.descending { o.reverse() } else { o };
    let text = |r: &ArmRow| -> Option<String> {
        Some(match sort.key {
            SortKey::Arm => r.arm.clone(),
            SortKey::Protocol => r.protocol.clone(),
            SortKey::Mode => r.mode.clone(),
            SortKey::Cert => r.cert.clone(),
            SortKey::Group => r.group.clone(),
            _ => return None,
        })
    };
    shared::order::sort_by(rows, &|a, b| match (sort.key, text(a)) {
        (SortKey::Run, _) => dir(a.run_key.cmp(&b.run_key)),
        (_, Some(t)) => dir(t.cmp(&text(b).unwrap_or_default())),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => dir(x.total_cmp(&y)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        },
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;

    fn rows() -> Vec<ArmRow> {
        let mut set = RunSet::default();
        let mut ev = sample();
        ev.arms[2].error = Some("did not resume".into());
        set.add("a", ev);
        arm_rows(&set, &ArmFilter::default())
    }

    #[test]
    fn one_row_per_arm_with_the_evidence_numbers() {
        let rows = rows();
        let ev = sample();
        assert_eq!(rows.len(), ev.arms.len());
        for (row, arm) in rows.iter().zip(&ev.arms) {
            assert_eq!(row.arm, arm.id);
            assert_eq!(row.p50, arm.latency_us.map(|l| l.p50));
            assert_eq!(row.resumed_server, arm.resumed_by_end().1);
        }
        assert_eq!(rows[0].cert, "", "TCP has no cert");
        assert_eq!(
            rows[2].no_result,
            Some(NoResult::Error("did not resume".into()))
        );
    }

    #[test]
    fn a_server_end_that_is_not_counted_reads_as_a_dash_not_as_zero() {
        let mut ev = sample();
        let counts = |full, resumed| shared::KindCounts {
            full,
            full_with_hello_retry: 0,
            resumed,
        };
        // A rustls client against a server without a per-connection report: the arm's
        // `verified` record says its server end did not count.
        ev.arms[2].resumed = shared::ResumedCounts {
            client: 300,
            server: 0,
        };
        ev.arms[2].verified = Some(shared::Verified::CLIENT_ONLY);
        ev.arms[2].handshake_kinds = Some(shared::HandshakeKinds {
            client: counts(0, 300),
            server: counts(0, 0),
        });
        // Both ends counted: a server that saw no resumption says 0.
        ev.arms[1].handshake_kinds = Some(shared::HandshakeKinds {
            client: counts(300, 0),
            server: counts(300, 0),
        });
        let mut set = RunSet::default();
        set.add("a", ev);
        let rows = arm_rows(&set, &ArmFilter::default());
        assert_eq!(rows[2].resumed_server, None);
        assert_eq!(rows[2].resumed_text(), "300/-");
        assert_eq!(rows[1].resumed_text(), "0/0");
        let csv = crate::data::csv::to_csv(&rows);
        let line = csv.lines().nth(3).unwrap();
        assert!(line.contains(",300,,"), "{line}");
    }

    #[test]
    fn efficiency_reads_n_a_where_the_evidence_has_a_floor_but_no_share() {
        let mut rows = rows();
        rows[1].crypto_floor = Some(190.0);
        rows[1].efficiency = Some(0.475);
        assert_eq!(rows[1].efficiency_text(), "47.5% (floor 190 µs)");
        rows[1].efficiency = None;
        assert_eq!(rows[1].efficiency_text(), "n/a (floor 190 µs)");
        (rows[1].crypto_floor, rows[1].efficiency) = (Some(0.0), Some(0.0));
        assert_eq!(rows[1].efficiency_text(), "n/a (floor 0.00 µs)");
        assert_eq!(rows[0].efficiency_text(), "–", "no floor");
        rows[2].crypto_floor = Some(0.0);
        assert_eq!(rows[2].efficiency_text(), "–", "an arm with an error");
    }

    #[test]
    fn sorting_by_p50_puts_errors_last_both_ways() {
        let mut rows = rows();
        let order = |rows: &[ArmRow]| rows.iter().map(|r| r.arm.clone()).collect::<Vec<_>>();
        let sort = Sort::default().clicked(SortKey::P50);
        assert!(!sort.descending);
        sort_rows(&mut rows, sort);
        assert_eq!(
            order(&rows),
            [
                "tcp-connect",
                "tls13-full-ecdsa-p256-x25519",
                "tls13-resumed-ticket-ecdsa-p256-x25519"
            ]
        );
        let sort = sort.clicked(SortKey::P50);
        assert!(sort.descending);
        sort_rows(&mut rows, sort);
        assert_eq!(
            order(&rows),
            [
                "tls13-full-ecdsa-p256-x25519",
                "tcp-connect",
                "tls13-resumed-ticket-ecdsa-p256-x25519"
            ]
        );
        sort_rows(&mut rows, sort.clicked(SortKey::Arm));
        assert_eq!(rows[0].arm, "tcp-connect");
    }

    #[test]
    fn every_column_sorts() {
        let mut rows = rows();
        rows[0].failed = 1; // 1 of 4 failed
        rows[1].efficiency = Some(0.5);
        fn order(rows: &[ArmRow]) -> Vec<&str> {
            rows.iter().map(|r| &r.arm[..5]).collect()
        }
        let (tcp, full, resumed) = ("tcp-c", "tls13", "tls13");
        let mut want = |key, descending, expected: [&str; 3], first_mode: &str| {
            sort_rows(&mut rows, Sort { key, descending });
            assert_eq!(order(&rows), expected, "{key:?}");
            assert_eq!(rows[0].mode, first_mode, "{key:?}");
        };
        want(SortKey::Protocol, false, [tcp, full, resumed], "connect");
        want(SortKey::Mode, false, [tcp, full, resumed], "connect");
        want(SortKey::Mode, true, [resumed, full, tcp], "resumed");
        want(SortKey::Cert, true, [resumed, full, tcp], "resumed");
        want(SortKey::Group, false, [tcp, resumed, full], "connect");
        want(SortKey::Ci, true, [full, tcp, resumed], "full");
        want(SortKey::Efficiency, false, [full, tcp, resumed], "full");
        want(SortKey::Failed, true, [tcp, full, resumed], "connect");
        assert_eq!(SortKey::ALL.len(), 13);
    }
}
