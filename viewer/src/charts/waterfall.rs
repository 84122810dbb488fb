//! Where the time goes, per arm: two stacked bars on one linear axis from zero. The
//! upper bar is the measured critical path in order (connect, each side's work, each
//! flight in transit); the lower one the model's parts (connect, each side's public-key
//! floor in a darker shade and its other work, the modelled hops), with a tick at the
//! measured p50.

use super::AxisScale;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::bars::no_data;
use super::{chars_in, fail, font, label_left_of, label_width, legend, x_ticks};
use super::{DrawResult, Scale, INK, MUTED};
use crate::data::format::{fmt_ratio, fmt_us};
use crate::data::phases::{Part, Waterfall};
use shared::StepKind;

pub const CONNECT: RGBColor = RGBColor(0x9e, 0x9e, 0x9e);
pub const CLIENT: RGBColor = RGBColor(0x42, 0x8b, 0xca);
pub const CLIENT_FLOOR: RGBColor = RGBColor(0x15, 0x4c, 0x85);
pub const SERVER: RGBColor = RGBColor(0xf0, 0x9a, 0x3e);
pub const SERVER_FLOOR: RGBColor = RGBColor(0xa8, 0x5a, 0x08);
pub const WIRE: RGBColor = RGBColor(0xd8, 0xd8, 0xd8);

fn step_color(kind: StepKind) -> RGBColor {
    match kind {
        StepKind::Connect => CONNECT,
        StepKind::Client => CLIENT,
        StepKind::Server => SERVER,
        StepKind::Wire => WIRE,
    }
}

fn part_color(part: Part) -> RGBColor {
    match part {
        Part::Connect => CONNECT,
        Part::ClientFloor => CLIENT_FLOOR,
        Part::ClientRest => CLIENT,
        Part::ServerFloor => SERVER_FLOOR,
        Part::ServerRest => SERVER,
        Part::Waiting => WIRE,
    }
}

/// Height in CSS pixels for `n` arms.
pub fn height_for(n: usize) -> u32 {
    (90.0 + 40.0 * n.max(1) as f64).clamp(140.0, 2400.0) as u32
}

/// Draws one row per arm. `scale` is device pixels per CSS pixel.
pub fn draw_waterfalls<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Waterfall],
    scale: f64,
) -> DrawResult {
    let s = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(fail)?;
    if rows.is_empty() {
        return no_data(area, scale);
    }
    let (w, _) = area.dim_in_pixel();
    let css_w = f64::from(w) / scale;
    let lw = label_width(rows.iter().map(|r| r.arm.chars().count()), css_w);
    let hi = rows
        .iter()
        .flat_map(|r| {
            [
                r.measured_p50,
                r.predicted,
                r.path.iter().map(|p| p.2).sum(),
            ]
        })
        .filter(|v: &f64| v.is_finite())
        .fold(1.0, f64::max);
    let x_range = Scale::Linear.range(0.0, hi);
    let n = rows.len();
    let desc =
        "time (linear, from 0); upper bar: measured path; lower: model, tick = traced median";
    let items = [
        ("connect", CONNECT),
        ("client", CLIENT),
        ("client floor", CLIENT_FLOOR),
        ("server", SERVER),
        ("server floor", SERVER_FLOOR),
        ("in transit / hops", WIRE),
    ];
    let legend_rows = super::legend_rows(&items, lw + 8.0, css_w);
    let mut chart = super::category_chart(
        area,
        x_range.clone(),
        n,
        (lw, 70.0),
        desc,
        legend_rows,
        scale,
    )?;
    x_ticks(
        area,
        &chart,
        &Scale::Linear.ticks(&x_range),
        &|v| fmt_us(v),
        scale,
    )?;
    legend(area, &items, lw + 8.0, scale)?;
    let fits = chars_in(lw - 10.0);
    for (i, row) in rows.iter().enumerate() {
        let center = (n - 1 - i) as f64;
        let (lx, ly) = super::local(area, chart.backend_coord(&(0.0, center)));
        let color = if row.miss.is_some() {
            super::ERROR
        } else {
            INK
        };
        label_left_of(area, &row.arm, (lx - s(6.0), ly), color, fits, scale)?;
        let upper: Vec<(f64, RGBColor)> = row
            .path
            .iter()
            .map(|(k, _, v)| (*v, step_color(*k)))
            .collect();
        let lower: Vec<(f64, RGBColor)> = row
            .model
            .iter()
            .map(|(p, v)| (*v, part_color(*p)))
            .collect();
        for (bar, y) in [(upper, center + 0.19), (lower, center - 0.19)] {
            let mut x = 0.0;
            let rects = bar
                .into_iter()
                .filter(|(v, _)| v.is_finite() && *v > 0.0)
                .map(|(v, c)| {
                    let r = Rectangle::new([(x, y - 0.16), (x + v, y + 0.16)], c.filled());
                    x += v;
                    r
                });
            chart.draw_series(rects.collect::<Vec<_>>()).map_err(fail)?;
        }
        let tick = ShapeStyle::from(INK).stroke_width((2.0 * scale).round().max(1.0) as u32);
        let m = row.measured_p50;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(m, center - 0.4), (m, center + 0.02)],
                tick,
            )))
            .map_err(fail)?;
        let end = row.predicted.max(m);
        let (px, py) = super::local(area, chart.backend_coord(&(end, center - 0.19)));
        let style = font(11.0, scale)
            .color(if row.miss.is_some() {
                &super::ERROR
            } else {
                &MUTED
            })
            .pos(Pos::new(HPos::Left, VPos::Center));
        let note = format!("{} of p50", fmt_ratio(row.ratio));
        area.draw(&Text::new(note, (px + s(4.0), py), style))
            .map_err(fail)?;
    }
    area.present().map_err(fail)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::charts::recorder::Recorder;

    /// A waterfall row of hand-written steps and parts (`miss`: the model missed).
    pub(crate) fn row(miss: bool) -> Waterfall {
        Waterfall {
            arm: "tls13-full-rsa2048-x25519".into(),
            path: vec![
                (StepKind::Connect, "start → connected".into(), 20.0),
                (StepKind::Client, "connected → c1_ready".into(), 40.0),
                (StepKind::Wire, "c1_ready → c1_read".into(), 30.0),
                (StepKind::Server, "c1_read → s1_ready".into(), 300.0),
                (StepKind::Wire, "s1_ready → s1_read".into(), 30.0),
                (StepKind::Client, "s1_read → done".into(), 80.0),
            ],
            model: vec![
                (Part::Connect, 20.0),
                (Part::ClientFloor, 70.0),
                (Part::ClientRest, 50.0),
                (Part::ServerFloor, 250.0),
                (Part::ServerRest, 50.0),
                (Part::Waiting, 40.0),
            ],
            measured_p50: 500.0,
            predicted: 480.0,
            ratio: 0.96,
            hops: 2,
            hop_us: 20.0,
            waiting_measured: 60.0,
            miss: miss.then(|| "off".into()),
        }
    }

    #[test]
    fn every_step_and_part_is_a_bar_in_its_color() {
        let rec = Recorder::draw(900, height_for(1), |a| {
            draw_waterfalls(a, &[row(false)], 1.0)
        });
        // Path: two client steps, two wire steps; model: one wire part. The legend adds
        // one square of each color.
        assert_eq!(rec.filled_rects_of(CLIENT), 2 + 1 + 1);
        assert_eq!(rec.filled_rects_of(WIRE), 2 + 1 + 1);
        assert_eq!(rec.filled_rects_of(SERVER_FLOOR), 1 + 1);
        assert_eq!(rec.filled_rects_of(CLIENT_FLOOR), 1 + 1);
        assert!(rec.has_text("0.96× of p50"), "{:?}", rec.texts);
    }

    #[test]
    fn nothing_to_draw_says_so() {
        let rec = Recorder::draw(600, 200, |a| draw_waterfalls(a, &[], 1.0));
        assert!(rec.texts.iter().any(|t| t.0.starts_with("nothing to show")));
    }
}
