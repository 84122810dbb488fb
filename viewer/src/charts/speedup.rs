//! Resume speedup chart: full/resumed p50 ratio per stack × cert × group × resumption kind,
//! TLS 1.2 beside TLS 1.3, with CI whiskers and a line at 1× (no speedup).

use plotters::coord::Shift;
use plotters::prelude::*;
use shared::Protocol;

use super::bars::{draw_hbars, Axis, Row, Slot};
use super::{DrawResult, Scale, TLS12, TLS13};
use crate::data::derive::SpeedupBar;
use crate::data::format::fmt_ratio_ci;
use crate::data::outcome::NoResult;

/// Rows of the chart: one per group, slots TLS 1.2 then TLS 1.3 (empty when absent).
pub fn speedup_rows(bars: &[SpeedupBar]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for b in bars {
        let i = usize::from(b.protocol != Protocol::Tls12);
        // A new row for a new key, and never one bar over another (two comparisons with
        // one key would otherwise show one's number under the other's label).
        let fresh = |r: &Row| r.label == b.group && matches!(r.slots[i], Slot::Empty);
        if !rows.last().is_some_and(fresh) {
            rows.push(Row {
                label: b.group.clone(),
                error: false,
                slots: vec![Slot::Empty, Slot::Empty],
            });
        }
        let Some(row) = rows.last_mut() else { continue };
        let color = if i == 0 { TLS12 } else { TLS13 };
        row.slots[i] = match &b.no_result {
            Some(why) => {
                row.error |= why.is_error();
                Slot::NoResult(match why {
                    NoResult::Error(m) => NoResult::Error(format!("{}: {m}", b.protocol)),
                    NoResult::Note(m) => NoResult::Note(format!("{}: {m}", b.protocol)),
                })
            }
            None => Slot::Bar {
                value: b.ratio,
                color,
                ci: b.ci,
                note: Some(fmt_ratio_ci(b.ratio, b.ci)),
                marker: None,
            },
        };
    }
    rows
}

pub fn draw_speedups<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[SpeedupBar],
    scale: f64,
) -> DrawResult {
    let axis = Axis {
        scale: Scale::Linear,
        desc: "speedup: full / resumed p50 (×); above 1× resumption is faster".into(),
        tick: &|v| format!("{v:.1}×"),
        reference: Some(1.0),
        extent: None,
    };
    draw_hbars(
        area,
        &speedup_rows(bars),
        &axis,
        &[("TLS 1.2", TLS12), ("TLS 1.3", TLS13)],
        scale,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;
    use crate::data::derive::resume_speedups;
    use crate::data::filter::ArmFilter;
    use crate::data::testdata::with_tls12;

    #[test]
    fn tls12_sits_beside_tls13_with_the_ratio_written() {
        let bars = resume_speedups(&with_tls12(), &ArmFilter::default());
        let rows = speedup_rows(&bars);
        assert_eq!(rows.len(), 1);
        assert!(matches!(rows[0].slots[0], Slot::Bar { color, .. } if color == TLS12));
        let rec = Recorder::draw(600, 200, |a| draw_speedups(a, &bars, 1.0));
        assert!(
            rec.has_text("1.70×") && rec.has_text("2.00×"),
            "{:?}",
            rec.texts
        );
    }

    #[test]
    fn a_resumed_arm_that_did_not_resume_is_no_speedup() {
        let mut ev = with_tls12();
        ev.arms[2].error = Some("0 of 4 connections resumed".into());
        let bars = resume_speedups(&ev, &ArmFilter::default());
        let rec = Recorder::draw(1000, 200, |a| draw_speedups(a, &bars, 1.0));
        assert!(!rec.has_text("2.00×"));
        assert!(rec.texts.iter().any(|t| t
            .0
            .starts_with("ERROR: tls1.3: tls13-resumed-ticket-ecdsa-p256-x25519: 0 of 4")));
        assert!(speedup_rows(&bars)[0].error);
    }
}
