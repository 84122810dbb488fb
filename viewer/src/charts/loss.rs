//! Handshake time against loss as small multiples: one panel per RTT, side by side in
//! two columns where the page is wide enough, one above the other where it is not; each
//! drawn by [`super::lines`] on one shared log time axis, so panels compare at a glance.
//! A curve's p50 is solid, its p95 dashed in the same color; a legend above the panels
//! names the curves.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::lines::{draw_lines, Axes, Drawn};
use super::{fail, legend, legend_rows, AxisScale, DrawResult, Scale, PALETTE};
use crate::data::format::fmt_us;
use crate::data::loss::{ms, LossPanel, LossView};

/// CSS height of one panel when the panels are stacked.
pub const PANEL_HEIGHT: u32 = 260;
/// CSS height kept for the legend above the panels (two rows).
pub const LEGEND_HEIGHT: u32 = 44;

/// The chart's CSS height for `panels` panels (stacked: wide pages make fewer, taller rows).
pub fn height_for(panels: usize) -> u32 {
    PANEL_HEIGHT * panels.clamp(1, 8) as u32 + LEGEND_HEIGHT
}

/// Columns of panels in a chart `css_w` wide: two from 760 CSS px.
pub fn columns(css_w: f64, panels: usize) -> usize {
    if css_w >= 760.0 && panels > 1 {
        2
    } else {
        1
    }
}

pub fn draw_loss<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panels: &[LossPanel],
    view: LossView,
    scale: f64,
) -> DrawResult {
    area.fill(&WHITE).map_err(fail)?;
    let css_w = f64::from(area.dim_in_pixel().0) / scale;
    let cols = columns(css_w, panels.len());
    let rows = panels.len().div_ceil(cols).max(1);
    // One y range for every panel, from the smallest to the largest value drawn.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for l in panels.iter().flat_map(|p| &p.lines) {
        for p in &l.points {
            for y in [p.y, p.spread.map_or(p.y, |s| s[1])] {
                if y.is_finite() && y > 0.0 {
                    (lo, hi) = (lo.min(y), hi.max(y));
                }
            }
        }
    }
    let r = Scale::Log.range(lo, hi);
    // The curves, named once above the panels in their colours (p50 solid, p95 dashed, as
    // the axis says): a legend inside a narrow panel would cover its lines.
    let names: Vec<&str> = panels.first().map_or(Vec::new(), |p| {
        let p50s = p.lines.iter().step_by(2);
        p50s.map(|l| l.label.trim_end_matches(view.suffixes()[0]))
            .collect()
    });
    let items: Vec<(&str, RGBColor)> = (0..)
        .zip(names)
        .map(|(i, n)| (n, PALETTE[i % PALETTE.len()]))
        .collect();
    let strip = 8.0 + 18.0 * legend_rows(&items, 4.0, css_w) as f64;
    let (top, body) = area.split_vertically((strip * scale).round() as u32);
    legend(&top, &items, 4.0, scale)?;
    let cells = body.split_evenly((rows, cols));
    for (panel, cell) in panels.iter().zip(&cells) {
        // A curve's p50 and p95 are neighbours: one color per curve, p95 dashed.
        let drawn: Vec<Drawn<'_>> = (0..)
            .zip(&panel.lines)
            .map(|(j, line)| Drawn {
                line,
                error: false,
                color: j / 2,
                dashed: j % 2 == 1,
            })
            .collect();
        let axes = Axes {
            x_scale: Scale::Linear,
            y_scale: Scale::Log,
            x_desc: format!("loss (%), RTT {}", ms(panel.rtt_ms)),
            y_desc: view.y_desc(),
            x_tick: &|v| format!("{v}%"),
            y_tick: &|a| fmt_us(Scale::Log.value_at(*a)),
            y_range: Some([r.start, r.end]),
            guides: Vec::new(),
            markers: true,
            legend_at: SeriesLabelPosition::UpperLeft,
            legend: false,
            marks: &[],
        };
        draw_lines(cell, &drawn, &axes, scale)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;
    use crate::data::testdata::line;

    fn panel(rtt: f64) -> LossPanel {
        LossPanel {
            rtt_ms: rtt,
            lines: vec![
                line("x25519 p50", &[(0.0, 9_000.0), (10.0, 10_000.0)], false),
                line("x25519 p95", &[(0.0, 9_500.0), (10.0, 1_050_000.0)], false),
                line("secp256r1 p50", &[(0.0, 9_100.0), (10.0, 11_000.0)], false),
                line("secp256r1 p95", &[(0.0, 9_600.0), (10.0, 900_000.0)], false),
            ],
        }
    }

    #[test]
    fn one_panel_per_rtt_with_the_curves_named_once_above_and_p95_dashed_in_their_color() {
        let panels = [panel(5.6), panel(31.2), panel(78.7)];
        let rec = Recorder::draw(1000, height_for(3), |a| {
            draw_loss(a, &panels, LossView::Percentiles, 1.0)
        });
        for text in [
            "loss (%), RTT 5.6 ms",
            "loss (%), RTT 31.2 ms",
            "loss (%), RTT 78.7 ms",
        ] {
            assert!(rec.has_text(text), "{text}: {:?}", rec.texts);
        }
        // The legend once, above the panels: each curve named one time, without the
        // percentile (the y axis says p50 is solid and p95 dashed).
        for name in ["x25519", "secp256r1"] {
            assert_eq!(
                rec.texts.iter().filter(|t| t.0 == name).count(),
                1,
                "{name}: {:?}",
                rec.texts
            );
        }
        assert!(
            !rec.texts.iter().any(|t| t.0.ends_with(" p50")),
            "{:?}",
            rec.texts
        );
        // Markers: 2 points × 4 lines × 3 panels, and a legend square per curve; a
        // curve's two lines share its color.
        assert_eq!(rec.filled_rects_of(PALETTE[0]), 12 + 1);
        assert_eq!(rec.filled_rects_of(PALETTE[1]), 12 + 1);
        assert_eq!(rec.filled_rects_of(PALETTE[2]), 0);
        // Dashed p95: five dashes for each segment. The same axes with the p95 line cut
        // to its last point (no segment) draw five paths fewer.
        let one = |p95: &[(f64, f64)]| LossPanel {
            rtt_ms: 5.6,
            lines: vec![
                line("a p50", &[(0.0, 9_000.0), (10.0, 10_000.0)], false),
                line("a p95", p95, false),
            ],
        };
        let dashed = Recorder::draw(1000, height_for(1), |a| {
            draw_loss(
                a,
                &[one(&[(0.0, 9_500.0), (10.0, 1_050_000.0)])],
                LossView::Percentiles,
                1.0,
            )
        });
        let cut = Recorder::draw(1000, height_for(1), |a| {
            draw_loss(
                a,
                &[one(&[(10.0, 1_050_000.0)])],
                LossView::Percentiles,
                1.0,
            )
        });
        assert_eq!(dashed.paths - cut.paths, 5);
    }

    #[test]
    fn the_second_panels_marks_and_ticks_are_drawn_in_it() {
        // Two panels side by side on 1000 px: the right one starts at x = 500.
        let rec = Recorder::draw(1000, height_for(2), |a| {
            draw_loss(a, &[panel(5.6), panel(31.2)], LossView::Percentiles, 1.0)
        });
        let right = |x: i32| (500..1000).contains(&x);
        let curve = |r: &&(_, bool, (i32, i32))| {
            let c: &plotters_backend::BackendColor = &r.0;
            r.1 && [PALETTE[0], PALETTE[1]]
                .iter()
                .any(|p| c.rgb == (p.0, p.1, p.2))
        };
        let marks: Vec<i32> = rec.rects.iter().filter(curve).map(|r| r.2 .0).collect();
        // 4 lines × 2 points in each panel (and the legend's two squares), none past the
        // canvas.
        assert_eq!(marks.iter().filter(|x| right(**x)).count(), 8, "{marks:?}");
        assert_eq!(marks.len(), 16 + 2, "{marks:?}");
        assert!(marks.iter().all(|x| *x < 1000), "{marks:?}");
        let zero: Vec<i32> = rec
            .texts
            .iter()
            .filter(|t| t.0 == "0%")
            .map(|t| t.1 .0)
            .collect();
        assert_eq!(zero.len(), 2, "{:?}", rec.texts);
        assert!(zero.iter().any(|x| right(*x)), "{zero:?}");
    }

    #[test]
    fn panels_sit_side_by_side_only_where_two_fit() {
        assert_eq!(columns(1300.0, 4), 2);
        assert_eq!(columns(400.0, 4), 1);
        assert_eq!(columns(1300.0, 1), 1);
        assert_eq!(height_for(4), 4 * PANEL_HEIGHT + LEGEND_HEIGHT);
        assert_eq!(height_for(0), PANEL_HEIGHT + LEGEND_HEIGHT);
        // Nothing to draw says so, and huge or empty values do not break the axis.
        let rec = Recorder::draw(400, 260, |a| draw_loss(a, &[], LossView::Percentiles, 1.0));
        assert!(rec.texts.is_empty(), "{:?}", rec.texts);
        let huge = [LossPanel {
            rtt_ms: f64::MAX,
            lines: vec![line("a p50", &[(0.0, 1.7e308), (100.0, 0.0)], false)],
        }];
        Recorder::draw(400, 260, |a| {
            draw_loss(a, &huge, LossView::Percentiles, 1.0)
        });
        // A file with hundreds of RTTs: panels too small to hold a chart fail to draw
        // (said under the canvas), never panic.
        let many: Vec<LossPanel> = (0..500).map(|i| panel(f64::from(i))).collect();
        let _ = Recorder::try_draw(400, height_for(many.len()), |a| {
            draw_loss(a, &many, LossView::Percentiles, 1.0)
        });
    }
}
