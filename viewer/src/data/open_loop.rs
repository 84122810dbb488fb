//! Open-loop capacity sweeps as small tables: per offered rate, achieved handshakes/s,
//! p50/p99 from the intended start, lateness and failures, and each sweep's knee in
//! words (the same sentence as the collector's summary: `shared::open_loop`).

use shared::{Arm, Evidence};

use super::filter::ArmFilter;
use super::format::fmt_us;

/// One sweep: its label, its knee, what its columns mean, and one row of cells (class,
/// text) per offered rate.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepTable {
    pub label: String,
    pub knee: String,
    pub caption: String,
    pub rows: Vec<Vec<(&'static str, String)>>,
}

/// The column heads of every [`SweepTable`].
pub const HEAD: [&str; 7] = [
    "offered/s",
    "achieved/s",
    "p50 (from intended start)",
    "p99",
    "late",
    "lateness p50 / max",
    "failed",
];

/// The sweeps of the arms `filter` lets through.
pub fn sweep_tables(ev: &Evidence, filter: &ArmFilter) -> Vec<SweepTable> {
    shared::open_loop::sweeps(ev.arms.iter().filter(|a| filter.matches(a)))
        .iter()
        .map(|s| SweepTable {
            label: s.label.clone(),
            knee: s.knee(),
            caption: caption(s.arms.first().copied()),
            rows: s.arms.iter().filter_map(|a| row(a)).collect(),
        })
        .collect()
}

/// What the columns mean, with the late threshold the evidence records.
fn caption(a: Option<&Arm>) -> String {
    let threshold = a
        .and_then(|a| a.capacity.as_ref()?.open_loop.as_ref())
        .map_or("–".into(), |o| fmt_us(o.late_threshold_us));
    format!(
        "latency from each connection's intended start; late: began more than {threshold} after it"
    )
}

fn row(a: &Arm) -> Option<Vec<(&'static str, String)>> {
    let o = a.capacity.as_ref()?.open_loop.as_ref()?;
    let of = |n: u64| format!("{n} of {}", a.attempted);
    let latency = |f: fn(&shared::LatencySummary) -> f64| match (&a.error, &a.latency_us) {
        (None, Some(l)) => ("num", fmt_us(f(l))),
        (Some(e), _) => ("error", e.clone()),
        (None, None) => ("num", "–".into()),
    };
    let (p50, p99) = (latency(|l| l.p50), latency(|l| l.p99));
    let lateness = o.lateness_us.map_or("–".into(), |l| {
        format!("{} / {}", fmt_us(l.p50_us), fmt_us(l.max_us))
    });
    let mut failed = of(a.failed);
    if o.not_started > 0 {
        failed.push_str(&format!(" ({} not started)", o.not_started));
    }
    Some(vec![
        ("num", shared::open_loop::rate(o.offered_per_s)),
        ("num", format!("{:.1}", o.achieved_per_s)),
        p50,
        p99,
        ("num", of(o.late)),
        ("num", lateness),
        ("num", failed),
    ])
}

#[cfg(test)]
mod tests {
    use shared::{sample, Arrival, Capacity, Lateness, Mode, OpenLoop, Protocol};

    use super::*;

    fn open(id: &str, offered: f64, samples: Vec<f64>) -> Arm {
        let mut a = sample::arm(id, Protocol::Tls13, Mode::Full, None, samples);
        a.capacity = Some(Capacity {
            clients: 2,
            server_workers: 2,
            per_second: vec![offered],
            rate_median_per_s: offered,
            rate_iqr_per_s: [offered, offered],
            after_window: 0,
            cpu_sharing: None,
            open_loop: Some(OpenLoop {
                arrival: Arrival::Poisson,
                seed: Some(3),
                offered_per_s: offered,
                window_s: 1,
                scheduled: a.attempted,
                achieved_per_s: offered,
                late_threshold_us: 1000.0,
                late: 1,
                lateness_us: Some(Lateness {
                    p50_us: 30.0,
                    p99_us: 1500.0,
                    max_us: 1500.0,
                }),
                give_up_after_us: 1e6,
                not_started: 0,
            }),
        });
        a
    }

    #[test]
    fn each_rate_is_a_row_in_order_and_the_knee_is_named() {
        let mut ev = sample::evidence();
        ev.arms.push(open("b", 2000.0, vec![900.0, 1200.0]));
        let mut broken = open("c", 4000.0, vec![1.0]);
        broken.error = Some("1 of 1 timed connections did not do what this arm measures".into());
        ev.arms.push(broken);
        ev.arms.push(open("a", 1000.0, vec![300.0, 400.0]));
        let t = sweep_tables(&ev, &ArmFilter::default());
        assert_eq!(t.len(), 1, "the other arms are not open-loop");
        assert_eq!(
            t[0].label,
            "rustls tls1.3 full ecdsa-p256 x25519 · poisson arrivals · 2 client workers"
        );
        assert_eq!(
            t[0].knee,
            "p99 more than doubles above 1,000 new connections/s: 1.20 ms at 2,000/s against 400 µs at 1,000/s; \
             achieved stays within 10% of offered up to 4,000 new connections/s"
        );
        let text = |r: &Vec<(&str, String)>| r.iter().map(|c| c.1.clone()).collect::<Vec<_>>();
        assert_eq!(
            text(&t[0].rows[0]),
            [
                "1,000",
                "1000.0",
                "300 µs",
                "400 µs",
                "1 of 2",
                "30.0 µs / 1.50 ms",
                "0 of 2"
            ]
        );
        assert_eq!(t[0].rows[1][0].1, "2,000");
        assert_eq!(
            t[0].caption,
            "latency from each connection's intended start; late: began more than 1.00 ms after it"
        );
        // An arm with an error shows it, never its latencies.
        assert_eq!(t[0].rows[2][2].0, "error");
        assert!(t[0].rows[2][2].1.starts_with("1 of 1 timed"));
        // Filtered away: no table.
        let mut f = ArmFilter::default();
        f.toggle(crate::data::filter::Facet::Protocol(Protocol::Tls13));
        assert!(sweep_tables(&ev, &f).is_empty());
    }
}
