//! Chart drawing with plotters. Each function draws one chart on a drawing area of any
//! backend (a `<canvas>` in the page, a recorder in the tests) and only draws: the
//! series come ready-made from [`crate::data::derive`].
//!
//! Sizes are given in CSS pixels and multiplied by `scale` (the device pixel ratio), so a
//! canvas sized `css × devicePixelRatio` stays sharp on HiDPI screens.

pub mod against;
pub mod bars;
pub mod cdf;
pub mod flights;
pub mod labels;
pub mod legend;
pub mod lines;
pub mod loss;
pub mod spec;
pub mod speedup;
pub mod stacks;
pub mod surface;
pub mod waterfall;

#[cfg(not(target_arch = "wasm32"))]
pub mod recorder;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::data::format::fmt_us;

pub const P50: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
pub const P95: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
pub const P99: RGBColor = RGBColor(0x94, 0x67, 0xbd);
pub const TLS12: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
pub const TLS13: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
pub const ERROR: RGBColor = RGBColor(0xc6, 0x28, 0x28);
/// A change for the better (the trend's faster marks).
pub const FASTER: RGBColor = RGBColor(0x2e, 0x7d, 0x32);
pub const MUTED: RGBColor = RGBColor(0x70, 0x70, 0x70);
pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
pub const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);

/// Colors for CDF lines, cycled.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The reader's choice of value axis (a setting of the page, in its links).
pub use crate::data::scale::Scale;

/// What a [`Scale`] means on an axis: where values go, the range and the ticks.
pub trait AxisScale {
    /// Where `v` goes on the axis (log10 for a log axis, so plain f64 coordinates work).
    fn to_axis(self, v: f64) -> f64;
    fn value_at(self, a: f64) -> f64;
    /// Axis range (in axis units) covering `lo..hi` in values, with some room; always
    /// finite (values near `f64::MAX` that a file may hold end at 1e300).
    fn range(self, lo: f64, hi: f64) -> std::ops::Range<f64>;
    /// Tick positions (axis units) for `range`: 1-2-5 steps per decade on a log axis,
    /// 1/2/5 × 10ⁿ steps on a linear one, so labels are round numbers.
    fn ticks(self, range: &std::ops::Range<f64>) -> Vec<f64>;
    /// Tick label for a latency axis in axis units.
    fn latency_label(self, a: f64) -> String;
    /// `log scale` or `linear scale`, for a chart's text.
    fn describe(self) -> &'static str;
}

impl AxisScale for Scale {
    fn to_axis(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log => v.max(1e-3).log10(),
        }
    }

    fn value_at(self, a: f64) -> f64 {
        match self {
            Scale::Linear => a,
            Scale::Log => 10f64.powf(a),
        }
    }

    fn range(self, lo: f64, hi: f64) -> std::ops::Range<f64> {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo <= hi {
            (lo.min(1e300), hi.min(1e300))
        } else {
            (1.0, 10.0)
        };
        match self {
            Scale::Linear => 0.0..(hi * 1.08).max(1e-9),
            Scale::Log => {
                let (a, b) = (self.to_axis(lo * 0.85), self.to_axis(hi * 1.15));
                if b - a < 0.2 {
                    (a - 0.1)..(b + 0.1)
                } else {
                    a..b
                }
            }
        }
    }

    fn ticks(self, range: &std::ops::Range<f64>) -> Vec<f64> {
        let (a, b) = (range.start, range.end);
        if !(a.is_finite() && b.is_finite() && a < b) {
            return Vec::new();
        }
        match self {
            Scale::Log => {
                let decades = (a.floor() as i32)..=(b.ceil() as i32);
                let with = |mantissas: &[f64]| -> Vec<f64> {
                    decades
                        .clone()
                        .flat_map(|d| mantissas.iter().map(move |m| (m * 10f64.powi(d)).log10()))
                        .filter(|t| *t >= a && *t <= b)
                        .collect()
                };
                let ticks = with(&[1.0, 2.0, 5.0]);
                if ticks.len() > 9 {
                    // Every decade, or every k-th when there are many (at most ~9).
                    let every = ((b - a) / 8.0).ceil().max(1.0) as usize;
                    return with(&[1.0]).into_iter().step_by(every).collect();
                }
                if ticks.len() >= 3 {
                    return ticks;
                }
                let fine = with(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
                if fine.len() >= 3 {
                    return fine;
                }
                // A narrow range: round values as on a linear axis, placed on the log axis.
                let (lo, hi) = (self.value_at(a), self.value_at(b));
                Scale::Linear
                    .ticks(&(lo..hi))
                    .into_iter()
                    .filter(|v| *v > 0.0)
                    .map(|v| self.to_axis(v))
                    .collect()
            }
            Scale::Linear => {
                let raw = (b - a) / 6.0;
                let mag = 10f64.powf(raw.log10().floor());
                let step = [1.0, 2.0, 5.0, 10.0]
                    .into_iter()
                    .map(|m| m * mag)
                    .find(|s| *s >= raw)
                    .unwrap_or(10.0 * mag);
                let first = (a / step).ceil() as i64;
                let last = (b / step).floor() as i64;
                (first..=last).map(|i| i as f64 * step).collect()
            }
        }
    }

    /// Tick label for a latency axis in axis units.
    fn latency_label(self, a: f64) -> String {
        fmt_us(self.value_at(a))
    }

    fn describe(self) -> &'static str {
        match self {
            Scale::Log => "log scale",
            Scale::Linear => "linear scale",
        }
    }
}

/// A chart failed to draw; carries the backend's message.
pub type DrawResult = Result<(), String>;

pub(crate) fn fail<E: std::fmt::Display>(e: E) -> String {
    format!("drawing failed: {e}")
}

/// Font of `px` CSS pixels at `scale`. (The family as a value, not read from a name:
/// reading a name lowercases it, which compiles Unicode's case tables into the wasm.)
pub fn font(px: f64, scale: f64) -> TextStyle<'static> {
    TextStyle::from(FontDesc::new(
        FontFamily::SansSerif,
        px * scale,
        FontStyle::Normal,
    ))
    .color(&INK)
}

/// A backend pixel (what `chart.backend_coord` gives, from the canvas's corner) in
/// `area`'s own pixels, which `area.draw` takes: they differ on a panel of a split area
/// and on a chart drawn under an export's header.
pub fn local<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, c: (i32, i32)) -> (i32, i32) {
    let (bx, by) = area.get_base_pixel();
    (c.0 - bx, c.1 - by)
}

/// A label right-aligned at `at`, vertically centred, in `color`.
pub fn label_left_of<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    at: (i32, i32),
    color: RGBColor,
    max_chars: usize,
    scale: f64,
) -> DrawResult {
    let style = font(12.0, scale)
        .color(&color)
        .pos(Pos::new(HPos::Right, VPos::Center));
    area.draw(&Text::new(shorten_middle(text, max_chars), at, style))
        .map_err(fail)
}

/// A chart of `n` category rows (drawn top to bottom by the caller) against the value
/// axis `x_range`, with `(label_px, right_px)` CSS pixels for the row labels on the left
/// and room on the right; the mesh is only the axis and its description `desc` (tick
/// labels come from [`x_ticks`], so they fall on round values on a log axis too).
/// `legend_rows` rows of legend sit above the plot ([`legend_rows`]).
pub fn category_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x_range: std::ops::Range<f64>,
    n: usize,
    (label_px, right_px): (f64, f64),
    desc: &str,
    legend_rows: usize,
    scale: f64,
) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>, String> {
    let s = |v: f64| (v * scale).round() as i32;
    let mut chart = ChartBuilder::on(area)
        .margin_top(s(26.0 + 18.0 * legend_rows.saturating_sub(1) as f64))
        .margin_right(s(right_px))
        .margin_left(s(4.0))
        .x_label_area_size(s(40.0))
        .y_label_area_size(s(label_px))
        .build_cartesian_2d(x_range, -0.5..(n as f64 - 0.5))
        .map_err(fail)?;
    let blank = |_: &f64| String::new();
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_y_axis()
        .y_labels(2)
        .y_label_formatter(&blank)
        .x_labels(2)
        .x_label_formatter(&blank)
        .set_all_tick_mark_size(0)
        .x_desc(desc)
        .label_style(font(11.0, scale))
        .axis_desc_style(font(12.0, scale))
        .draw()
        .map_err(fail)?;
    Ok(chart)
}

/// CSS width of one legend item (square, gap, name).
fn legend_item_px(name: &str) -> f64 {
    24.0 + 7.5 * name.chars().count() as f64
}

/// How many rows the legend of `items` takes from `x` (CSS px) in an area `css_w` wide:
/// items wrap to a new row (starting at the left edge) rather than run off the chart.
pub fn legend_rows(items: &[(&str, RGBColor)], x: f64, css_w: f64) -> usize {
    legend_places(items, x, css_w).last().map_or(1, |p| p.1 + 1)
}

/// Each item's (x, row) in CSS px.
fn legend_places(items: &[(&str, RGBColor)], x: f64, css_w: f64) -> Vec<(f64, usize)> {
    let (mut at, mut row) = (x, 0);
    let mut out = Vec::new();
    for (name, _) in items {
        let w = legend_item_px(name);
        if at + w > css_w && at > 4.0 {
            (at, row) = (4.0, row + 1);
        }
        out.push((at, row));
        at += w;
    }
    out
}

/// The legend: coloured squares with names, from `x` (CSS px) at the top of `area`,
/// wrapping to more rows where the width runs out.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    items: &[(&str, RGBColor)],
    x: f64,
    scale: f64,
) -> DrawResult {
    let s = |v: f64| (v * scale).round() as i32;
    let css_w = f64::from(area.dim_in_pixel().0) / scale;
    for ((name, color), (at, row)) in items.iter().zip(legend_places(items, x, css_w)) {
        let top = 6.0 + 18.0 * row as f64;
        area.draw(&Rectangle::new(
            [(s(at), s(top)), (s(at + 12.0), s(top + 12.0))],
            color.filled(),
        ))
        .map_err(fail)?;
        let style = font(12.0, scale).pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(
            name.to_string(),
            (s(at + 16.0), s(top + 6.0)),
            style,
        ))
        .map_err(fail)?;
    }
    Ok(())
}

/// Vertical grid lines and labels at `ticks` (axis units) below the plotting area; used
/// instead of plotters' own x labels so ticks fall on round values on a log axis too.
pub fn x_ticks<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    ticks: &[f64],
    label: &dyn Fn(f64) -> String,
    scale: f64,
) -> DrawResult {
    let y = chart.y_range();
    let style = font(11.0, scale).pos(Pos::new(HPos::Center, VPos::Top));
    // Labels need about 55 CSS px each: on a narrow chart keep every n-th tick.
    let span = match (ticks.first(), ticks.last()) {
        (Some(&a), Some(&b)) => (chart.backend_coord(&(b, y.start)).0
            - chart.backend_coord(&(a, y.start)).0)
            .abs() as f64,
        _ => 0.0,
    };
    let room = span / scale / (ticks.len().max(2) - 1) as f64;
    let stride = if room > 0.0 {
        (55.0 / room).ceil().max(1.0) as usize
    } else {
        1
    };
    for &t in ticks.iter().step_by(stride) {
        let (px, top) = local(area, chart.backend_coord(&(t, y.end)));
        let (_, bottom) = local(area, chart.backend_coord(&(t, y.start)));
        area.draw(&PathElement::new(vec![(px, top), (px, bottom)], GRID))
            .map_err(fail)?;
        let gap = (4.0 * scale).round() as i32;
        area.draw(&Text::new(label(t), (px, bottom + gap), style.clone()))
            .map_err(fail)?;
    }
    Ok(())
}

/// `text` cut to `max` characters with an ellipsis.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// `text` cut to `max` characters by an ellipsis in the middle, so both ends of an arm
/// id (`s_time-tls13-…-vs-rustls`) stay readable.
pub fn shorten_middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max || max < 5 {
        return text.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let mut s: String = text.chars().take(head).collect();
    s.push('…');
    s.extend(text.chars().skip(n - tail));
    s
}

/// CSS pixels per character of the 11–12 px labels, for fitting text in a width.
pub const CHAR_PX: f64 = 7.2;

/// How many label characters fit in `css_px`.
pub fn chars_in(css_px: f64) -> usize {
    (css_px / CHAR_PX).max(0.0) as usize
}

/// Width in CSS pixels to reserve for category labels of these texts.
/// On a phone-sized chart (under 500 CSS px) labels may take 60% of the width, else 45%:
/// a narrow chart's bars still read, where a label cut to a few characters does not.
pub fn label_width(labels: impl Iterator<Item = usize>, css_width: f64) -> f64 {
    let longest = labels.max().unwrap_or(4).min(60) as f64;
    let share = if css_width < 500.0 { 0.6 } else { 0.45 };
    (longest * CHAR_PX + 16.0).clamp(60.0, css_width * share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_round_trips_and_labels_in_units() {
        let s = Scale::Log;
        assert!((s.value_at(s.to_axis(420.0)) - 420.0).abs() < 1e-9);
        assert_eq!(s.latency_label(3.0), "1.00 ms");
        assert_eq!(Scale::Linear.latency_label(420.0), "420 µs");
        let r = s.range(100.0, 1000.0);
        assert!(r.start < 2.0 && r.end > 3.0);
        let r = Scale::Linear.range(f64::NAN, 1.0);
        assert!(r.start < r.end);
    }

    #[test]
    fn huge_values_give_a_finite_axis_with_ticks() {
        for s in [Scale::Linear, Scale::Log] {
            let r = s.range(10.0, 1.7e308);
            assert!(
                r.start.is_finite() && r.end.is_finite() && r.start < r.end,
                "{s:?} {r:?}"
            );
            let ticks = s.ticks(&r);
            assert!(!ticks.is_empty() && ticks.len() < 20, "{s:?} {ticks:?}");
        }
        let bars = crate::data::derive::percentile_bars(
            &{
                let mut ev = crate::data::testdata::sample();
                if let Some(l) = ev.arms[1].latency_us.as_mut() {
                    (l.p95, l.p99, l.max) = (1.5e308, 1.7e308, 1.7e308);
                }
                ev
            },
            &crate::data::filter::ArmFilter::default(),
        );
        let rec = recorder::Recorder::draw(640, 300, |a| {
            bars::draw_percentiles(a, &bars, Scale::Linear, None, 1.0)
        });
        assert!(
            rec.has_text("tls13-full-ecdsa-p256-x25519"),
            "{:?}",
            rec.texts
        );
    }

    #[test]
    fn ticks_are_round_numbers() {
        let values = |s: Scale, r| -> Vec<String> {
            s.ticks(&r)
                .into_iter()
                .map(|t| format!("{:.4}", s.value_at(t)))
                .collect()
        };
        let log = Scale::Log;
        assert_eq!(
            values(log, log.to_axis(15.0)..log.to_axis(1500.0)),
            [
                "20.0000",
                "50.0000",
                "100.0000",
                "200.0000",
                "500.0000",
                "1000.0000"
            ]
        );
        assert_eq!(
            values(log, log.to_axis(350.0)..log.to_axis(900.0)),
            ["400.0000", "500.0000", "600.0000", "700.0000", "800.0000", "900.0000"]
        );
        assert_eq!(
            values(log, log.to_axis(17.0)..log.to_axis(33.0)),
            ["20.0000", "25.0000", "30.0000"]
        );
        assert_eq!(
            values(Scale::Linear, 0.0..4.3),
            ["0.0000", "1.0000", "2.0000", "3.0000", "4.0000"]
        );
        assert!(Scale::Linear.ticks(&(1.0..1.0)).is_empty());
    }

    #[test]
    fn long_labels_are_shortened() {
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abc", 4), "abc");
        assert_eq!(
            shorten_middle("s_time-tls13-reuse-www-vs-rustls", 15),
            "s_time-…-rustls"
        );
        assert_eq!(shorten_middle("short", 15), "short");
        assert_eq!(chars_in(72.0), 10);
    }
}
