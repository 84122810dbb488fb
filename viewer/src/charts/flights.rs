//! Round trips against the server's first flight: one point per full-handshake arm over
//! an emulated link, a dashed vertical line at the initial window the servers' sockets
//! reported, and the grid at whole round trips. Only draws: the points come from
//! [`crate::data::flights::flight_chart`].

use plotters::coord::Shift;
use plotters::prelude::*;

use super::bars::no_data;
use super::legend::draw_legend;
use super::{fail, font, AxisScale, DrawResult, Scale, ERROR, GRID, PALETTE};
use crate::data::flights::{fmt_bytes, FlightChart};

/// CSS pixels of the chart's height.
pub const HEIGHT: u32 = 380;

pub fn draw_flights<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &FlightChart,
    scale: f64,
) -> DrawResult {
    let s = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(fail)?;
    let finite = |v: &f64| v.is_finite() && *v >= 0.0;
    let xs: Vec<f64> = c.points.iter().map(|p| p.bytes).filter(finite).collect();
    let ys: Vec<f64> = c.points.iter().map(|p| p.rtts).filter(finite).collect();
    if xs.is_empty() || ys.is_empty() {
        return no_data(area, scale);
    }
    let window = c.window_bytes().filter(finite);
    let x_hi = xs.iter().copied().chain(window).fold(0.0, f64::max);
    let x_range = Scale::Linear.range(0.0, x_hi);
    let y_top = (ys.iter().copied().fold(0.0, f64::max).min(1e6) + 1.0).ceil();
    let mut chart = ChartBuilder::on(area)
        .margin(s(12.0))
        .x_label_area_size(s(40.0))
        .y_label_area_size(s(56.0))
        .build_cartesian_2d(x_range.clone(), 0.0..y_top)
        .map_err(fail)?;
    let bytes_tick = |v: &f64| fmt_bytes(v.max(0.0).round() as u64);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(6)
        .x_label_formatter(&bytes_tick)
        // One label per whole round trip (at most a dozen).
        .y_labels((y_top as usize + 1).min(12))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("server's first flight (median bytes, TLS records)")
        .y_desc(if c.ttfb {
            "p50 time to first byte, in round trips"
        } else {
            "p50 connect + handshake, in round trips"
        })
        .label_style(font(11.0, scale))
        .axis_desc_style(font(12.0, scale))
        .light_line_style(GRID.mix(0.4))
        .bold_line_style(GRID)
        .draw()
        .map_err(fail)?;
    if let (Some(w), Some((cwnd, mss))) = (window, c.window) {
        // Dashes: every other tenth of the line.
        let dashes = (0..10).step_by(2).map(|i| {
            let (a, b) = (y_top * f64::from(i) / 10.0, y_top * f64::from(i + 1) / 10.0);
            PathElement::new(
                vec![(w, a), (w, b)],
                ShapeStyle::from(ERROR).stroke_width(s(1.5).max(1) as u32),
            )
        });
        chart.draw_series(dashes).map_err(fail)?;
        let (px, py) = super::local(area, chart.backend_coord(&(w, y_top)));
        area.draw(&Text::new(
            format!(
                "initial window {cwnd} × {mss} B = {}",
                fmt_bytes(cwnd.saturating_mul(mss))
            ),
            (px + s(4.0), py + s(4.0)),
            font(10.0, scale).color(&ERROR),
        ))
        .map_err(fail)?;
    }
    // Each point carries its number; the legend names it (ids are too long to sit
    // beside points that crowd together below the window).
    let mut legend: Vec<(String, ShapeStyle)> = Vec::with_capacity(c.points.len());
    for (i, p) in c.points.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = ShapeStyle::from(color).stroke_width(s(2.0).max(1) as u32);
        legend.push((format!("{} {}", i + 1, super::shorten(&p.label, 60)), style));
        if !(finite(&p.bytes) && finite(&p.rtts)) {
            continue;
        }
        let (px, py) = super::local(
            area,
            chart.backend_coord(&(p.bytes.min(x_range.end), p.rtts.min(y_top))),
        );
        let r = s(4.0);
        area.draw(&Circle::new((px, py), r, color.filled()))
            .map_err(fail)?;
        // Alternately above and below, so neighbours' numbers do not sit on each other.
        let dy = if i % 2 == 0 { -s(16.0) } else { s(5.0) };
        area.draw(&Text::new(
            (i + 1).to_string(),
            (px - s(3.0), py + dy),
            font(10.0, scale).color(&color),
        ))
        .map_err(fail)?;
    }
    draw_legend(
        &chart.plotting_area().strip_coord_spec(),
        &legend,
        &SeriesLabelPosition::LowerRight,
        &font(11.0, scale),
        (WHITE.mix(0.85).filled(), GRID.into()),
        s(18.0),
    )?;
    area.present().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;
    use crate::data::flights::FlightPoint;

    fn chart(window: Option<(u64, u64)>) -> FlightChart {
        FlightChart {
            points: vec![
                FlightPoint {
                    label: "tls13-full-ecdsa-p256-x25519-rtt50ms".into(),
                    bytes: 1900.0,
                    rtts: 3.0,
                },
                FlightPoint {
                    label: "tls13-full-ml-dsa-87-x25519-rtt50ms".into(),
                    bytes: 24_000.0,
                    rtts: 4.0,
                },
            ],
            window,
            ttfb: true,
        }
    }

    #[test]
    fn the_window_line_is_labelled_with_what_the_sockets_said() {
        let rec = Recorder::draw(700, 380, |a| draw_flights(a, &chart(Some((10, 1448))), 1.0));
        assert!(
            rec.has_text("initial window 10 × 1448 B = 14,480 B"),
            "{:?}",
            rec.texts
        );
        assert!(
            rec.has_text("2 tls13-full-ml-dsa-87-x25519-rtt50ms") && rec.has_text("2"),
            "each point numbered, the legend naming it: {:?}",
            rec.texts
        );
        assert!(
            rec.has_text("p50 time to first byte, in round trips"),
            "{:?}",
            rec.texts
        );
        let mut handshakes = chart(None);
        handshakes.ttfb = false;
        let none = Recorder::draw(700, 380, |a| draw_flights(a, &handshakes, 1.0));
        assert!(
            none.has_text("p50 connect + handshake, in round trips"),
            "a --handshake-window run has no first byte: {:?}",
            none.texts
        );
        assert!(
            !none.texts.iter().any(|t| t.0.starts_with("initial window")),
            "no window read, no line: {:?}",
            none.texts
        );
    }

    #[test]
    fn hostile_numbers_draw_without_a_panic() {
        let mut c = chart(Some((u64::MAX, u64::MAX)));
        c.points[0].bytes = f64::NAN;
        c.points[1].rtts = f64::INFINITY;
        let rec = Recorder::draw(700, 380, |a| draw_flights(a, &c, 1.0));
        assert!(!rec.texts.is_empty());
        c.points.clear();
        Recorder::draw(700, 380, |a| draw_flights(a, &c, 1.0));
    }
}
