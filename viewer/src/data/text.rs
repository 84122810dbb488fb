//! Charts as text: one line per chart row, with the numbers and messages the canvas may
//! have to cut (long arm names, error messages on a narrow screen). Read by screen readers
//! and by people who want the numbers.

use super::derive::{PercentileBar, SpeedupBar};
use super::format::{fmt_ci_ratio, fmt_ci_us, fmt_ratio, fmt_us};

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
                    (label, format!("{} {ci}", fmt_ratio(b.ratio)), false)
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::derive::{percentile_bars, resume_speedups};
    use crate::data::filter::ArmFilter;
    use crate::data::testdata::{sample, with_tls12};

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
    }
}
