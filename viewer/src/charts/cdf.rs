//! Latency distribution: the empirical CDF of the raw samples of the picked arms.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::bars::no_data;
use super::{fail, font, DrawResult, Scale, ERROR, GRID, PALETTE};
use crate::data::derive::{CdfSeries, NoResult};

pub fn draw_cdf<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &[CdfSeries],
    value_scale: Scale,
    scale: f64,
) -> DrawResult {
    let s = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(fail)?;
    let all = || series.iter().flat_map(|c| c.points.iter().map(|p| p.0));
    if all().next().is_none() {
        return no_data(area, scale);
    }
    let lo = all().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let hi = all().fold(f64::NEG_INFINITY, f64::max);
    let x_range = value_scale.range(lo, hi);
    let mut chart = ChartBuilder::on(area)
        .margin(s(12.0))
        .x_label_area_size(s(40.0))
        .y_label_area_size(s(52.0))
        .build_cartesian_2d(x_range.clone(), 0.0..1.0)
        .map_err(fail)?;
    let blank = |_: &f64| String::new();
    let pct = |v: &f64| format!("{:.0}%", v * 100.0);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2)
        .x_label_formatter(&blank)
        .set_tick_mark_size(LabelAreaPosition::Bottom, 0)
        .y_labels(6)
        .y_label_formatter(&pct)
        .x_desc(format!("latency (µs/ms, {})", value_scale.describe()))
        .y_desc("samples ≤ latency")
        .label_style(font(11.0, scale))
        .axis_desc_style(font(12.0, scale))
        .light_line_style(GRID.mix(0.4))
        .bold_line_style(GRID)
        .draw()
        .map_err(fail)?;
    let tick = |a: f64| value_scale.latency_label(a);
    super::x_ticks(area, &chart, &value_scale.ticks(&x_range), &tick, scale)?;
    let width = (2.0 * scale).round().max(1.0) as u32;
    for (i, c) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let points: Vec<(f64, f64)> = c
            .points
            .iter()
            .map(|&(x, y)| (value_scale.to_axis(x).clamp(x_range.start, x_range.end), y))
            .collect();
        let label = match &c.no_result {
            Some(why) => format!("{} — {why}", c.label),
            None => c.label.clone(),
        };
        let style = ShapeStyle::from(color).stroke_width(width);
        chart
            .draw_series(LineSeries::new(points, style))
            .map_err(fail)?
            .label(super::shorten(&label, 90))
            .legend(move |(x, y)| {
                PathElement::new(
                    vec![(x, y), (x + 18, y)],
                    ShapeStyle::from(color).stroke_width(width),
                )
            });
    }
    let has_error = series
        .iter()
        .any(|c| c.no_result.as_ref().is_some_and(NoResult::is_error));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font(font(11.0, scale).color(if has_error { &ERROR } else { &super::INK }))
        .background_style(WHITE.mix(0.85))
        .border_style(GRID)
        .draw()
        .map_err(fail)?;
    area.present().map_err(fail)
}

/// CSS height of the CDF chart.
pub const HEIGHT: u32 = 340;

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
