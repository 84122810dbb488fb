//! The stacks charts, drawn with the shared bar chart: each stack's full handshake beside
//! its TCP connect, and each stack's resume speedups (latency ratio, or `s_time`'s rate
//! ratios per wall-clock second and per user-CPU second of the s_time client process), "did not resume" in place of a ratio.
//! Rows are labelled by arm id: peer arms' ids name their stacks (`python-…`,
//! `rustls-vs-s_server-…`, `s_time-…-vs-…`), the others are rustls on both ends.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::bars::{draw_hbars, Axis, Row, Slot};
use super::AxisScale;
use super::{DrawResult, Scale, P50, P95, P99, TLS12};
use crate::data::format::{fmt_ratio_ci, fmt_us, PER_USER_CPU_S};
use crate::data::outcome::NoResult;
use crate::data::stacks::{Ratio, StackLatency, StackSpeedup};

fn bar(value: f64, color: RGBColor, ci: Option<[f64; 2]>, note: String) -> Slot {
    Slot::Bar {
        value,
        color,
        ci,
        note: Some(note),
        marker: None,
    }
}

/// One row per full-handshake arm: TCP connect then the full handshake (p50s).
pub fn latency_rows(rows: &[StackLatency]) -> Vec<Row> {
    rows.iter()
        .map(|r| {
            let tcp = match r.tcp_p50 {
                Some(v) => bar(v, TLS12, None, fmt_us(v)),
                None => Slot::Empty,
            };
            let full = match (&r.no_result, r.full_p50) {
                (None, Some(v)) => bar(v, P50, r.full_ci, fmt_us(v)),
                (Some(why), _) => Slot::NoResult(why.clone()),
                (None, None) => Slot::NoResult(NoResult::Error("no data".into())),
            };
            Row::new(r.label.clone(), r.no_result.as_ref(), vec![tcp, full])
        })
        .collect()
}

pub fn draw_stack_latencies<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[StackLatency],
    value_scale: Scale,
    scale: f64,
) -> DrawResult {
    let axis = Axis {
        scale: value_scale,
        desc: format!(
            "p50 latency ({}); whisker: 95% CI of the p50",
            value_scale.describe()
        ),
        tick: &fmt_us,
        reference: None,
        extent: None,
    };
    let legend = [("TCP connect", TLS12), ("full handshake", P50)];
    draw_hbars(area, &latency_rows(rows), &axis, &legend, scale)
}

/// One row per resumed arm: its latency ratio, or its two rate ratios, or why none.
pub fn speedup_rows(rows: &[StackSpeedup]) -> Vec<Row> {
    let ratio = |r: Ratio, color| bar(r.value, color, r.ci, fmt_ratio_ci(r.value, r.ci));
    rows.iter()
        .map(|r| {
            let slots = match &r.no_speedup {
                Some(why) => vec![Slot::NoResult(why.clone())],
                None => [(r.latency, P50), (r.rate_real, P95), (r.rate_user, P99)]
                    .into_iter()
                    .filter_map(|(v, color)| v.map(|v| ratio(v, color)))
                    .collect(),
            };
            Row::new(r.label.clone(), r.no_speedup.as_ref(), slots)
        })
        .collect()
}

pub fn draw_stack_speedups<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[StackSpeedup],
    scale: f64,
) -> DrawResult {
    let axis = Axis {
        scale: Scale::Linear,
        desc: format!(
            "speedup (×): full / resumed p50; or s_time's resumed / full rate per wall-clock second or {PER_USER_CPU_S}"
        ),
        tick: &|v| format!("{v:.1}×"),
        reference: Some(1.0),
        extent: None,
    };
    let legend = [
        ("p50 ratio", P50),
        ("rate/wall s", P95),
        ("rate per user-CPU s (s_time client)", P99),
    ];
    draw_hbars(area, &speedup_rows(rows), &axis, &legend, scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;
    use crate::data::filter::ArmFilter;
    use crate::data::stacks::{stack_latencies, stack_speedups};
    use crate::data::testdata::with_peers;

    #[test]
    fn each_stack_row_shows_tcp_beside_the_full_handshake() {
        let rows = stack_latencies(&with_peers(), &ArmFilter::default());
        let rec = Recorder::draw(900, 400, |a| {
            draw_stack_latencies(a, &rows, Scale::Log, 1.0)
        });
        // Each row named by stack, version, mode and certificate (the test data's arms:
        // rustls on both ends, Python on both, rustls against s_server; ECDSA P-256, X25519).
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "rustls 1.3 full p256",
                "python 1.3 full p256",
                "s_server 1.3 full p256"
            ]
        );
        for r in &rows {
            assert!(rec.has_text(&r.label), "{:?}", rec.texts);
        }
        // Each full arm's p50 written out: the nearest-rank medians of the test data's
        // samples (rustls 390/400/410/450, python 900/950, s_server 700/720).
        for p50 in ["400 µs", "900 µs", "700 µs"] {
            assert!(rec.has_text(p50), "{p50}: {:?}", rec.texts);
        }
        assert!(rec.filled_rects_of(TLS12) >= rows.len());
    }

    #[test]
    fn the_pitfall_says_did_not_resume_and_rates_sit_beside_latency() {
        let rows = stack_speedups(&with_peers(), &ArmFilter::default());
        let rec = Recorder::draw(1600, 500, |a| draw_stack_speedups(a, &rows, 1.0));
        assert!(rec.has_text("4.00×") && rec.has_text("6.00×") && rec.has_text("2.00×"));
        assert!(
            rec.texts.iter().any(|t| t
                .0
                .contains("per user-CPU second of the s_time client process")),
            "the CPU basis in words: {:?}",
            rec.texts
        );
        assert!(
            rec.texts
                .iter()
                .any(|t| t.0.starts_with("ERROR: did not resume")),
            "{:?}",
            rec.texts
        );
        let pit = speedup_rows(&rows)
            .into_iter()
            .find(|r| r.label == "s_time 1.3 ticket p256")
            .unwrap();
        assert!(pit.error && matches!(pit.slots[..], [Slot::NoResult(_)]));
    }
}
