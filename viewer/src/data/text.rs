//! Charts as text: one line per chart row, with the numbers and messages the canvas may
//! have to cut (long arm names, error messages on a narrow screen). Read by screen readers
//! and by people who want the numbers.

use super::derive::{CdfSeries, SpeedupBar};
use super::format::{fmt_ci_ratio, fmt_ci_us, fmt_ratio, fmt_us};
use super::outcome::PercentileBar;
use super::series::Line;
use super::stacks::StackLatency;

/// One line: the row's label, its numbers (or why it has none), and whether that is an error.
pub type TextLine = (String, String, bool);

/// `p50 400 µs [390 µs – 450 µs], p95 450 µs, p99 450 µs, crypto floor 190 µs` per bar.
pub fn percentile_text(bars: &[PercentileBar]) -> Vec<TextLine> {
    bars.iter()
        .map(|b| match (&b.no_result, b.percentiles) {
            (Some(why), _) => (b.label.clone(), why.to_string(), why.is_error()),
            (None, None) => (b.label.clone(), "no data".into(), true),
            (None, Some([p50, p95, p99])) => {
                let mut t = format!(
                    "p50 {} (95% CI {}), p95 {}, p99 {}",
                    fmt_us(p50),
                    fmt_ci_us(b.p50_ci),
                    fmt_us(p95),
                    fmt_us(p99)
                );
                if let Some(f) = b.floor {
                    t += &format!(", crypto floor {}", fmt_us(f));
                }
                (b.label.clone(), t, false)
            }
        })
        .collect()
}

/// `rustls · ecdsa-p256 · x25519 · ticket · tls1.3`: `2.00× [1.50× – 2.50×]` per bar.
pub fn speedup_text(bars: &[SpeedupBar]) -> Vec<TextLine> {
    bars.iter()
        .map(|b| {
            let label = format!("{} · {}", b.group, b.protocol);
            match &b.no_result {
                Some(why) => (label, why.to_string(), why.is_error()),
                None => {
                    let ci = b.ci.map_or_else(|| "(CI n/a)".into(), fmt_ci_ratio);
                    let mut t = format!("{} {ci}", fmt_ratio(b.ratio));
                    if let Some(why) = &b.apart {
                        t.push_str(&format!(" — not a fair ratio: {why}"));
                    }
                    (label, t, false)
                }
            }
        })
        .collect()
}

/// Per curve: the latency at 50%, 90% and 99% of the samples and the largest, read from
/// the drawn curve (its points are samples, thinned for long runs).
pub fn cdf_text(series: &[CdfSeries]) -> Vec<TextLine> {
    series
        .iter()
        .map(|s| match &s.no_result {
            Some(why) => (s.label.clone(), why.to_string(), why.is_error()),
            None => {
                let at = |q: f64| {
                    let p = s.points.iter().find(|p| p.1 >= q);
                    fmt_us(p.or(s.points.last()).map_or(f64::NAN, |p| p.0))
                };
                let t = format!(
                    "50% ≤ {}, 90% ≤ {}, 99% ≤ {}, max {} (from the drawn curve)",
                    at(0.5),
                    at(0.9),
                    at(0.99),
                    at(1.0)
                );
                (s.label.clone(), t, false)
            }
        })
        .collect()
}

/// `stack · arm`: the full handshake's p50 and CI beside the TCP connect it is drawn with.
pub fn stack_latency_text(rows: &[StackLatency]) -> Vec<TextLine> {
    rows.iter()
        .map(|r| {
            let label = format!("{} · {}", r.stack, r.arm);
            match (&r.no_result, r.full_p50) {
                (Some(why), _) => (label, why.to_string(), why.is_error()),
                (None, None) => (label, "no data".into(), true),
                (None, Some(p50)) => {
                    let mut t = format!("p50 {} (95% CI {})", fmt_us(p50), fmt_ci_us(r.full_ci));
                    if let (Some(arm), Some(tcp)) = (&r.tcp_arm, r.tcp_p50) {
                        t += &format!("; TCP connect ({arm}) p50 {}", fmt_us(tcp));
                    }
                    (label, t, false)
                }
            }
        })
        .collect()
}

/// Per line, each point as `x: y [whisker]`, with the chart's own units.
pub fn lines_text(
    lines: &[Line],
    x: &dyn Fn(f64) -> String,
    y: &dyn Fn(f64) -> String,
) -> Vec<TextLine> {
    lines
        .iter()
        .map(|l| {
            let points: Vec<String> = l
                .points
                .iter()
                .map(|p| match p.spread {
                    Some([lo, hi]) => format!("{}: {} [{} – {}]", x(p.x), y(p.y), y(lo), y(hi)),
                    None => format!("{}: {}", x(p.x), y(p.y)),
                })
                .collect();
            (l.label.clone(), points.join("; "), false)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::derive::{cdf_series, ArmRef};
    use crate::data::derive::{percentile_bars, resume_speedups};
    use crate::data::filter::ArmFilter;
    use crate::data::load::RunSet;
    use crate::data::stacks::stack_latencies;
    use crate::data::testdata::{line, sample, with_peers, with_tls12};

    #[test]
    fn percentiles_and_speedups_read_as_text() {
        let mut ev = sample();
        ev.arms[1].crypto_floor_us = Some(190.0);
        let long = format!("did not resume: {}", "x".repeat(300));
        ev.arms[2].error = Some(long.clone());
        let lines = percentile_text(&percentile_bars(&ev, &ArmFilter::default()));
        // sample: tcp-connect 20/21/22/25 µs, full 390/400/410/450 µs (CI = min..max).
        assert_eq!(
            lines[0],
            (
                "tcp-connect".to_string(),
                "p50 21.0 µs (95% CI [20.0 µs – 25.0 µs]), p95 25.0 µs, p99 25.0 µs".to_string(),
                false
            )
        );
        assert_eq!(
            lines[1].1,
            "p50 400 µs (95% CI [390 µs – 450 µs]), p95 450 µs, p99 450 µs, crypto floor 190 µs"
        );
        // The whole message, not cut as on the canvas.
        assert_eq!(lines[2].1, format!("ERROR: {long}"));
        assert!(lines[2].2);

        let lines = speedup_text(&resume_speedups(&with_tls12(), &ArmFilter::default()));
        assert_eq!(
            lines,
            [
                (
                    "rustls · ecdsa-p256 · x25519 · ticket · tls1.2".to_string(),
                    "1.70× [1.60× – 1.80×]".to_string(),
                    false
                ),
                (
                    "rustls · ecdsa-p256 · x25519 · ticket · tls1.3".to_string(),
                    "2.00× [1.50× – 2.50×]".to_string(),
                    false
                ),
            ]
        );

        // A speedup whose resumed arm ran every chunk in the slow mode, its full arm none,
        // says so after its ratio.
        let mut ev = with_tls12();
        for a in &mut ev.arms {
            let probe = if a.mode == shared::Mode::Resumed {
                45.0
            } else {
                30.0
            };
            a.chunks = Some(shared::sample::used_chunks(10, probe));
        }
        let lines = speedup_text(&resume_speedups(&ev, &ArmFilter::default()));
        assert_eq!(lines.len(), 2);
        for l in &lines {
            assert!(l.1.contains("not a fair ratio"), "{l:?}");
            assert!(l.1.contains("speed modes"), "{l:?}");
        }
    }

    #[test]
    fn cdf_stack_and_line_charts_read_as_text() {
        let mut set = RunSet::default();
        let key = set.add("a", sample());
        let pick = [ArmRef {
            run_key: key,
            arm_id: "tls13-full-ecdsa-p256-x25519".into(),
        }];
        // The sample's full handshake: samples 390, 400, 410 and 450 µs.
        let lines = cdf_text(&cdf_series(&set, &ArmFilter::default(), &pick));
        assert_eq!(
            lines,
            [(
                "tls13-full-ecdsa-p256-x25519".to_string(),
                "50% ≤ 400 µs, 90% ≤ 450 µs, 99% ≤ 450 µs, max 450 µs (from the drawn curve)"
                    .to_string(),
                false
            )]
        );

        let lines = stack_latency_text(&stack_latencies(&with_peers(), &ArmFilter::default()));
        let rustls = lines
            .iter()
            .find(|l| l.0.starts_with("rustls · tls13-full"))
            .unwrap();
        assert_eq!(
            rustls.1,
            "p50 400 µs (95% CI [390 µs – 450 µs]); TCP connect (tcp-connect) p50 21.0 µs"
        );

        let l = [line("full", &[(1.0, 900.0), (2.0, 1500.0)], true)];
        let lines = lines_text(&l, &|x| format!("{x} clients"), &|y| format!("{y:.0}/s"));
        assert_eq!(
            lines,
            [(
                "full".to_string(),
                "1 clients: 900/s [810/s – 990/s]; 2 clients: 1500/s [1350/s – 1650/s]".to_string(),
                false
            )]
        );
    }
}
