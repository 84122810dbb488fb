//! Charts of a number against a setting of the run, drawn by [`super::lines`]: capacity
//! against the number of clients, and time to first byte against the round-trip time.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::lines::{draw_lines, Axes, Drawn};
use super::{DrawResult, Scale};
use crate::data::format::fmt_us;
use crate::data::series::{CapacityMetric, Line};

fn drawn(lines: &[Line]) -> Vec<Drawn<'_>> {
    (0..)
        .zip(lines)
        .map(|(color, line)| Drawn {
            line,
            error: false,
            color,
            dashed: false,
        })
        .collect()
}

/// Handshakes/s (median, IQR whiskers) or p99 latency against concurrent clients.
pub fn draw_capacity<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
    metric: CapacityMetric,
    scale: f64,
) -> DrawResult {
    let rate = |v: &f64| format!("{v:.0}/s");
    let latency = |v: &f64| fmt_us(*v);
    let (y_desc, y_tick): (&str, &dyn Fn(&f64) -> String) = match metric {
        CapacityMetric::Rate => ("handshakes per second (median; whisker: IQR)", &rate),
        CapacityMetric::P99 => ("p99 latency under load", &latency),
    };
    let axes = Axes {
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        x_desc: "concurrent clients (one server worker each)".into(),
        y_desc,
        // Whole clients only: a 0.5 tick would read as a rounded duplicate.
        x_tick: &|v| match v.fract() == 0.0 {
            true => format!("{v:.0}"),
            false => String::new(),
        },
        y_tick,
        y_range: None,
        guides: Vec::new(),
        markers: true,
        legend_at: SeriesLabelPosition::LowerRight,
        legend: true,
        marks: &[],
    };
    draw_lines(area, &drawn(lines), &axes, scale)
}

/// p50 TTFB against RTT per arm, with dashed guides at 1–4 round trips.
pub fn draw_ttfb<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
    scale: f64,
) -> DrawResult {
    let axes = Axes {
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        x_desc: "emulated round-trip time (ms)".into(),
        // The heading says what the window is (time to first byte, or connect + handshake).
        y_desc: "p50 (whisker: 95% CI)",
        x_tick: &|v| format!("{} ms", (v * 10.0).round() / 10.0),
        y_tick: &|v| fmt_us(*v),
        y_range: None,
        // y is in µs, x in ms: k round trips is k × 1000 µs per ms of RTT.
        guides: (1..=4)
            .map(|k| (format!("{k}× RTT"), f64::from(k) * 1000.0))
            .collect(),
        markers: true,
        legend_at: SeriesLabelPosition::UpperLeft,
        legend: true,
        marks: &[],
    };
    draw_lines(area, &drawn(lines), &axes, scale)
}

/// One arm's p50 (whisker: 95% CI) per run in time order, one line per host; changes
/// beyond the CI ringed (see [`crate::data::trend`]).
pub fn draw_trend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
    marks: &[(f64, f64, bool)],
    scale: f64,
) -> DrawResult {
    let axes = Axes {
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        x_desc: "run, oldest to newest (ring: slower in red, faster in green than the host's previous run, beyond the CIs)".into(),
        y_desc: "p50 (whisker: 95% CI)",
        x_tick: &|v| match v.fract() == 0.0 && v > 0.0 {
            true => format!("#{v:.0}"),
            false => String::new(),
        },
        y_tick: &|v| fmt_us(*v),
        y_range: None,
        guides: Vec::new(),
        markers: true,
        legend_at: SeriesLabelPosition::LowerRight,
        legend: true,
        marks,
    };
    draw_lines(area, &drawn(lines), &axes, scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;

    fn line(label: &str, pts: &[(f64, f64)]) -> Line {
        crate::data::testdata::line(label, pts, false)
    }

    #[test]
    fn ttfb_has_round_trip_guides_and_units() {
        let lines = [line("tcp-connect", &[(0.0, 50.0), (10.0, 10_050.0)])];
        let rec = Recorder::draw(700, 340, |a| draw_ttfb(a, &lines, 1.0));
        for k in 1..=4 {
            assert!(rec.has_text(&format!("{k}× RTT")), "{:?}", rec.texts);
        }
        assert!(rec.has_text("10 ms") && rec.has_text("tcp-connect"));
        assert!(rec
            .texts
            .iter()
            .any(|t| t.0.ends_with(" ms") && t.0.contains('.')));
    }

    #[test]
    fn capacity_axes_say_their_units() {
        let lines = [line("full · tls1.3", &[(1.0, 900.0), (2.0, 1700.0)])];
        let rate = Recorder::draw(700, 340, |a| {
            draw_capacity(a, &lines, CapacityMetric::Rate, 1.0)
        });
        assert!(rate
            .texts
            .iter()
            .any(|t| t.0.starts_with("handshakes per second")));
        assert!(rate
            .texts
            .iter()
            .any(|t| t.0.ends_with("/s") && t.0 != "0/s"));
        let p99 = Recorder::draw(700, 340, |a| {
            draw_capacity(a, &lines, CapacityMetric::P99, 1.0)
        });
        assert!(p99.texts.iter().any(|t| t.0.starts_with("p99 latency")));
    }
}
