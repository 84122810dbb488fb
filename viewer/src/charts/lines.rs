//! Line charts on two value axes: the CDF, capacity against clients and TTFB against RTT
//! all draw through [`draw_lines`], so they share one piece of (wasm) code.

use super::AxisScale;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::bars::no_data;
use super::legend::draw_legend;
use super::{fail, font, DrawResult, Scale, ERROR, FASTER, GRID, INK, MUTED, PALETTE};
use crate::data::series::Line;

/// One line to draw; `error` draws its legend entry in red; `color` indexes
/// [`PALETTE`] (cycled); a `dashed` line is drawn in dashes (a second statistic of the
/// same series, in its color).
pub struct Drawn<'a> {
    pub line: &'a Line,
    pub error: bool,
    pub color: usize,
    pub dashed: bool,
}

/// How the axes look. `x_scale` and `y_scale` map values to the axes (log or linear).
pub struct Axes<'a> {
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub x_desc: String,
    pub y_desc: &'a str,
    pub x_tick: &'a dyn Fn(f64) -> String,
    pub y_tick: &'a dyn Fn(&f64) -> String,
    /// Fixed y range in axis units (log10 of values on a log axis); `None`: from 0 (the
    /// smallest value on a log axis) to the largest value (whiskers included).
    pub y_range: Option<[f64; 2]>,
    /// Dashed guides through the origin, `y = slope × x`, with their label (e.g. `2× RTT`).
    pub guides: Vec<(String, f64)>,
    /// Mark every point (the CDF has too many points for that).
    pub markers: bool,
    /// Where the legend goes: where the lines are not (upper left for rising lines).
    pub legend_at: SeriesLabelPosition,
    /// Whether to draw the legend (small multiples name their lines once).
    pub legend: bool,
    /// Points ringed as a change: `(x, y, slower)`, red when slower, green when faster.
    pub marks: &'a [(f64, f64, bool)],
}

pub fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Drawn<'_>],
    axes: &Axes<'_>,
    scale: f64,
) -> DrawResult {
    let s = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(fail)?;
    let points = || lines.iter().flat_map(|l| l.line.points.iter());
    if points().next().is_none() {
        return no_data(area, scale);
    }
    let xs = || points().map(|p| p.x).filter(|x| x.is_finite());
    let lo = match axes.x_scale {
        Scale::Log => xs().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min),
        Scale::Linear => 0.0,
    };
    let x_range = axes
        .x_scale
        .range(lo, xs().fold(f64::NEG_INFINITY, f64::max));
    let [y_lo, y_hi] = axes.y_range.unwrap_or_else(|| {
        let ys = || {
            points()
                .flat_map(|p| [p.y, p.spread.map_or(p.y, |s| s[1])])
                .filter(|y| y.is_finite())
        };
        let top = ys().fold(0.0, f64::max);
        match axes.y_scale {
            Scale::Linear => [0.0, (top * 1.1).max(1e-9)],
            Scale::Log => {
                let low = ys().filter(|y| *y > 0.0).fold(f64::INFINITY, f64::min);
                let r = Scale::Log.range(low, top);
                [r.start, r.end]
            }
        }
    });
    let mut chart = ChartBuilder::on(area)
        .margin(s(12.0))
        .x_label_area_size(s(40.0))
        .y_label_area_size(s(64.0))
        .build_cartesian_2d(x_range.clone(), y_lo..y_hi)
        .map_err(fail)?;
    let blank = |_: &f64| String::new();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2)
        .x_label_formatter(&blank)
        .set_tick_mark_size(LabelAreaPosition::Bottom, 0)
        .y_labels(6)
        .y_label_formatter(axes.y_tick)
        .x_desc(axes.x_desc.clone())
        .y_desc(axes.y_desc)
        .label_style(font(11.0, scale))
        .axis_desc_style(font(12.0, scale))
        .light_line_style(GRID.mix(0.4))
        .bold_line_style(GRID)
        .draw()
        .map_err(fail)?;
    super::x_ticks(
        area,
        &chart,
        &axes.x_scale.ticks(&x_range),
        axes.x_tick,
        scale,
    )?;
    // Backend pixels → `area`'s own (they differ on a panel of a split area).
    let at = |c: (i32, i32)| super::local(area, c);
    let to_x = |x: f64| axes.x_scale.to_axis(x).clamp(x_range.start, x_range.end);
    let to_y = |y: f64| axes.y_scale.to_axis(y).clamp(y_lo, y_hi);
    let thin = ShapeStyle::from(MUTED).stroke_width(s(1.0).max(1) as u32);
    for (label, slope) in &axes.guides {
        let x_end = axes.x_scale.value_at(x_range.end);
        let end = (to_x(x_end), to_y(slope * x_end));
        let path: Vec<(f64, f64)> = (0..=20)
            .step_by(2)
            .map(|i| x_end * f64::from(i) / 20.0)
            .map(|x| (to_x(x), to_y(slope * x)))
            .collect();
        // Dashes: every other segment of the guide.
        let dashes = path.chunks(2).map(|c| PathElement::new(c.to_vec(), thin));
        chart.draw_series(dashes).map_err(fail)?;
        let (px, py) = at(chart.backend_coord(&end));
        let style = font(10.0, scale).color(&MUTED);
        area.draw(&Text::new(
            label.clone(),
            (px - s(34.0), py - s(12.0)),
            style,
        ))
        .map_err(fail)?;
    }
    let width = (2.0 * scale).round().max(1.0) as u32;
    let mut legend: Vec<(String, ShapeStyle)> = Vec::with_capacity(lines.len());
    for d in lines {
        let color = PALETTE[d.color % PALETTE.len()];
        let style = ShapeStyle::from(color).stroke_width(width);
        let path: Vec<(f64, f64)> = d
            .line
            .points
            .iter()
            .map(|p| (to_x(p.x), to_y(p.y)))
            .collect();
        if d.dashed {
            // Five dashes per segment: the even tenths of it.
            let at = |w: &[(f64, f64)], t: f64| {
                (
                    w[0].0 + (w[1].0 - w[0].0) * t,
                    w[0].1 + (w[1].1 - w[0].1) * t,
                )
            };
            let dashes = path.windows(2).flat_map(|w| {
                (0..10).step_by(2).map(move |i| {
                    let t = f64::from(i) / 10.0;
                    PathElement::new(vec![at(w, t), at(w, t + 0.1)], style)
                })
            });
            chart.draw_series(dashes).map_err(fail)?;
        } else {
            chart
                .draw_series(std::iter::once(PathElement::new(path, style)))
                .map_err(fail)?;
        }
        legend.push((super::shorten(&d.line.label, 90), style));
        for p in d.line.points.iter().filter(|_| axes.markers) {
            let (px, py) = at(chart.backend_coord(&(to_x(p.x), to_y(p.y))));
            let r = s(3.0);
            area.draw(&Rectangle::new(
                [(px - r, py - r), (px + r, py + r)],
                color.filled(),
            ))
            .map_err(fail)?;
            if let Some([lo, hi]) = p.spread {
                let (_, top) = at(chart.backend_coord(&(to_x(p.x), to_y(hi))));
                let (_, bottom) = at(chart.backend_coord(&(to_x(p.x), to_y(lo))));
                let w = ShapeStyle::from(color).stroke_width(s(1.0).max(1) as u32);
                for seg in [
                    [(px, top), (px, bottom)],
                    [(px - r, top), (px + r, top)],
                    [(px - r, bottom), (px + r, bottom)],
                ] {
                    area.draw(&PathElement::new(seg.to_vec(), w))
                        .map_err(fail)?;
                }
            }
        }
    }
    for &(x, y, slower) in axes.marks {
        let (px, py) = at(chart.backend_coord(&(to_x(x), to_y(y))));
        let r = s(7.0);
        let color = if slower { ERROR } else { FASTER };
        let ring = ShapeStyle::from(color).stroke_width(width);
        area.draw(&Rectangle::new([(px - r, py - r), (px + r, py + r)], ring))
            .map_err(fail)?;
    }
    let has_error = lines.iter().any(|d| d.error);
    if !axes.legend {
        return area.present().map_err(fail);
    }
    draw_legend(
        &chart.plotting_area().strip_coord_spec(),
        &legend,
        &axes.legend_at,
        &font(11.0, scale).color(if has_error { &ERROR } else { &INK }),
        (WHITE.mix(0.85).filled(), GRID.into()),
        s(18.0),
    )?;
    area.present().map_err(fail)
}

/// CSS height of a line chart.
pub const HEIGHT: u32 = 340;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;

    fn line(label: &str, pts: &[(f64, f64)]) -> Line {
        crate::data::testdata::line(label, pts, true)
    }

    #[test]
    fn lines_guides_and_whiskers_are_drawn_and_named() {
        let (a, b) = (
            line("full", &[(1.0, 10.0), (2.0, 18.0)]),
            line("resumed", &[(1.0, 30.0)]),
        );
        let lines = [
            Drawn {
                line: &a,
                error: false,
                color: 0,
                dashed: false,
            },
            Drawn {
                line: &b,
                error: false,
                color: 1,
                dashed: false,
            },
        ];
        let axes = Axes {
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            x_desc: "clients".into(),
            y_desc: "handshakes/s",
            x_tick: &|v| format!("{v:.0}"),
            y_tick: &|v| format!("{v:.0}/s"),
            y_range: None,
            guides: vec![("1× RTT".into(), 1.0), ("2× RTT".into(), 2.0)],
            markers: true,
            legend_at: SeriesLabelPosition::UpperLeft,
            legend: true,
            marks: &[(2.0, 18.0, true)],
        };
        let rec = Recorder::draw(600, 300, |area| draw_lines(area, &lines, &axes, 1.0));
        for text in [
            "full",
            "resumed",
            "1× RTT",
            "2× RTT",
            "clients",
            "handshakes/s",
        ] {
            assert!(rec.has_text(text), "{text}: {:?}", rec.texts);
        }
        assert_eq!(rec.filled_rects_of(PALETTE[0]), 2, "one marker per point");
        assert_eq!(rec.rects_of(ERROR), 1, "one ring for the one mark");
        let empty = Line {
            label: "x".into(),
            points: Vec::new(),
        };
        let none = [Drawn {
            line: &empty,
            error: false,
            color: 0,
            dashed: false,
        }];
        let nothing = Recorder::draw(600, 300, |area| draw_lines(area, &none, &axes, 1.0));
        assert!(nothing
            .texts
            .iter()
            .any(|t| t.0.starts_with("nothing to show")));
        let bare = Recorder::draw(600, 300, |area| {
            draw_lines(
                area,
                &lines,
                &Axes {
                    markers: false,
                    guides: Vec::new(),
                    ..axes
                },
                1.0,
            )
        });
        assert!(bare.paths < rec.paths, "whiskers and guides are paths");
    }
}
