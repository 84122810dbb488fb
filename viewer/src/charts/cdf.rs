//! Latency distribution: the empirical CDF of the raw samples of the picked arms.

use super::AxisScale;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::lines::{draw_lines, Axes, Drawn};
use super::{DrawResult, Scale};
use crate::data::derive::CdfSeries;
use crate::data::outcome::NoResult;
use crate::data::series::{Line, Point};

pub fn draw_cdf<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &[CdfSeries],
    value_scale: Scale,
    scale: f64,
) -> DrawResult {
    let lines: Vec<Line> = series
        .iter()
        .map(|c| Line {
            label: match &c.no_result {
                Some(why) => format!("{} — {why}", c.label),
                None => c.label.clone(),
            },
            points: c
                .points
                .iter()
                .map(|&(x, y)| Point { x, y, spread: None })
                .collect(),
        })
        .collect();
    let drawn: Vec<Drawn<'_>> = (0..)
        .zip(lines.iter().zip(series))
        .map(|(color, (line, c))| Drawn {
            line,
            error: c.no_result.as_ref().is_some_and(NoResult::is_error),
            color,
            dashed: false,
        })
        .collect();
    let axes = Axes {
        x_scale: value_scale,
        y_scale: Scale::Linear,
        x_desc: format!("latency ({})", value_scale.describe()),
        y_desc: "samples ≤ latency",
        x_tick: &|a| value_scale.latency_label(a),
        y_tick: &|v| format!("{:.0}%", v * 100.0),
        y_range: Some([0.0, 1.0]),
        guides: Vec::new(),
        markers: false,
        legend_at: SeriesLabelPosition::LowerRight,
        legend: true,
        marks: &[],
    };
    draw_lines(area, &drawn, &axes, scale)
}

/// CSS height of the CDF chart.
pub const HEIGHT: u32 = super::lines::HEIGHT;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;
    use crate::data::derive::cdf_points;

    #[test]
    fn every_series_is_drawn_and_named() {
        let series = vec![
            CdfSeries {
                label: "a".into(),
                points: cdf_points(&[1.0, 2.0, 3.0], 100),
                no_result: None,
            },
            CdfSeries {
                label: "b".into(),
                points: cdf_points(&[2.0, 4.0], 100),
                no_result: Some(NoResult::Error("did not resume".into())),
            },
        ];
        let rec = Recorder::draw(600, 300, |a| draw_cdf(a, &series, Scale::Log, 1.0));
        assert!(rec.has_text("a"));
        assert!(rec.has_text("b — ERROR: did not resume"), "{:?}", rec.texts);
        let empty = Recorder::draw(600, 300, |a| draw_cdf(a, &[], Scale::Linear, 1.0));
        assert!(empty
            .texts
            .iter()
            .any(|t| t.0.starts_with("nothing to show")));
    }
}
