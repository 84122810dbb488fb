//! Horizontal grouped bar charts: one row per category (an arm, a run, a speedup group),
//! a few bars per row, optional 95% CI whiskers. Rows go top to bottom in input order.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::labels::fit_labels;
use super::AxisScale;
use super::{chars_in, fail, font, label_left_of, label_width, legend, legend_rows, x_ticks};
use super::{DrawResult, Scale};
use super::{ERROR, INK, MUTED, P50, P95, P99};
use crate::data::format::fmt_us;
use crate::data::outcome::{NoResult, PercentileBar};

/// One slot of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    Bar {
        value: f64,
        color: RGBColor,
        ci: Option<[f64; 2]>,
        /// Written right of the bar (e.g. `2.05×`).
        note: Option<String>,
        /// A value marked by a dark tick across the bar (e.g. the crypto floor).
        marker: Option<f64>,
    },
    /// Drawn as text in place of a bar (red for errors): these numbers are not results.
    NoResult(NoResult),
    Empty,
}

/// A category and its slots.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: String,
    pub error: bool,
    pub slots: Vec<Slot>,
}

impl Row {
    /// A row whose label is red when `why` (its reason for having no result) is an error.
    pub fn new(label: String, why: Option<&NoResult>, slots: Vec<Slot>) -> Row {
        Row {
            label,
            error: why.is_some_and(NoResult::is_error),
            slots,
        }
    }
}

/// How the value axis looks.
pub struct Axis<'a> {
    pub scale: Scale,
    pub desc: String,
    pub tick: &'a dyn Fn(f64) -> String,
    /// A vertical reference line (e.g. speedup 1×) in values.
    pub reference: Option<f64>,
    /// The values the axis must cover, beyond this chart's own: panels read against
    /// each other share one axis ([`Extent`]).
    pub extent: Extent,
}

/// The lowest and highest value of a set of charts that share one axis; `None` when a
/// chart has its own.
pub type Extent = Option<[f64; 2]>;

/// The values a row shows on the axis (bars and their whiskers).
fn row_values(row: &Row) -> impl Iterator<Item = f64> + '_ {
    row.slots.iter().flat_map(|slot| match slot {
        Slot::Bar { value, ci, .. } => {
            let mut v = vec![*value];
            v.extend(ci.iter().flatten().copied());
            v
        }
        _ => Vec::new(),
    })
}

/// The extent of every value of `rows` (positive and finite), for a shared axis.
pub fn extent_of<'a>(rows: impl Iterator<Item = &'a Row>) -> Extent {
    let values = rows
        .flat_map(row_values)
        .filter(|v| v.is_finite() && *v > 0.0);
    values.fold(None, |e, v| match e {
        None => Some([v, v]),
        Some([lo, hi]) => Some([lo.min(v), hi.max(v)]),
    })
}

/// Below this share of the largest value of the panels, a panel keeps an axis of its own.
pub const SHARE_MIN: f64 = 0.1;

/// The axis of each of `panels` (rows each) read against each other: one extent for all,
/// except for a panel whose largest value is under [`SHARE_MIN`] of the others' (e.g. a
/// TCP connect of 40 µs beside handshakes whose p99 reach 30 ms): on the shared axis its
/// bars would be a pixel long and it would show nothing, so it gets its own axis (`None`).
pub fn shared_extents(panels: &[Vec<Row>]) -> Vec<Extent> {
    // Plain loops over each panel's own extent: every iterator adapter over `Row`s
    // would compile `extent_of` again (kilobytes of wasm).
    let mut each: Vec<Extent> = Vec::with_capacity(panels.len());
    let mut top = 0.0f64;
    for rows in panels {
        let e = extent_of(rows.iter());
        top = top.max(e.map_or(0.0, |e| e[1]));
        each.push(e);
    }
    let own = |e: &Extent| e.is_some_and(|e| e[1] < top * SHARE_MIN);
    let mut shared: Extent = None;
    for [lo, hi] in each.iter().filter(|e| !own(e)).flatten() {
        shared = Some(shared.map_or([*lo, *hi], |[a, b]| [a.min(*lo), b.max(*hi)]));
    }
    each.iter()
        .map(|e| if own(e) { None } else { shared })
        .collect()
}

/// The row labels as drawn on a chart `css_w` CSS pixels wide: fitted to the label
/// area, and distinct ([`fit_labels`]). Also what the page exposes for tests.
pub fn drawn_labels(labels: &[String], css_w: f64) -> Vec<String> {
    let lw = label_width(labels.iter().map(|l| l.chars().count()), css_w);
    fit_labels(labels, chars_in(lw - 10.0))
}

/// Draws `rows` as horizontal bars. `scale` is device pixels per CSS pixel.
pub fn draw_hbars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Row],
    axis: &Axis<'_>,
    legend_items: &[(&str, RGBColor)],
    scale: f64,
) -> DrawResult {
    let s = |v: f64| (v * scale).round() as i32;
    area.fill(&WHITE).map_err(fail)?;
    if rows.is_empty() {
        return no_data(area, scale);
    }
    let (w, _) = area.dim_in_pixel();
    let css_w = f64::from(w) / scale;
    let lw = label_width(rows.iter().map(|r| r.label.chars().count()), css_w);
    let values: Vec<f64> = rows
        .iter()
        .flat_map(row_values)
        .chain(axis.reference)
        .chain(axis.extent.into_iter().flatten())
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let x_range = axis.scale.range(lo, hi);
    let n = rows.len();
    let lrows = legend_rows(legend_items, lw + 8.0, css_w);
    // The axis title is centred under the plot: where the plot is too narrow for it,
    // its first clause (before `;`) says what the axis is, uncut.
    let room = super::chars_in(css_w - lw - 30.0) + 8;
    let desc = match axis.desc.chars().count() > room {
        true => axis.desc.split(';').next().unwrap_or_default(),
        false => axis.desc.as_str(),
    };
    let mut chart =
        super::category_chart(area, x_range.clone(), n, (lw, 20.0), desc, lrows, scale)?;
    // Zero is `0`, whatever the unit.
    let tick = |v: f64| {
        let x = axis.scale.value_at(v);
        if x == 0.0 {
            "0".to_string()
        } else {
            (axis.tick)(x)
        }
    };
    x_ticks(area, &chart, &axis.scale.ticks(&x_range), &tick, scale)?;
    legend(area, legend_items, lw + 8.0, scale)?;
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let labels = drawn_labels(&labels, css_w);

    let x0 = x_range.start;
    let to_x = |v: f64| axis.scale.to_axis(v).clamp(x_range.start, x_range.end);
    let inside =
        |v: f64| axis.scale.to_axis(v) >= x_range.start && axis.scale.to_axis(v) <= x_range.end;
    for (i, (row, label)) in rows.iter().zip(&labels).enumerate() {
        let center = (n - 1 - i) as f64;
        let (lx, ly) = super::local(area, chart.backend_coord(&(x0, center)));
        let color = if row.error { ERROR } else { INK };
        let fits = label.chars().count();
        label_left_of(area, label, (lx - s(6.0), ly), color, fits, scale)?;
        let k = row.slots.len().max(1) as f64;
        let slot_h = 0.8 / k;
        for (j, slot) in row.slots.iter().enumerate() {
            let y = center + 0.4 - (j as f64 + 0.5) * slot_h;
            let half = slot_h * 0.42;
            match slot {
                Slot::Empty => {}
                Slot::NoResult(why) => {
                    let (px, py) = super::local(area, chart.backend_coord(&(x0, y)));
                    let color = if why.is_error() { ERROR } else { MUTED };
                    let style = font(12.0, scale)
                        .color(&color)
                        .pos(Pos::new(HPos::Left, VPos::Center));
                    let text = super::shorten(&why.to_string(), chars_in(css_w - lw - 40.0));
                    area.draw(&Text::new(text, (px + s(4.0), py), style))
                        .map_err(fail)?;
                }
                Slot::Bar {
                    value,
                    color,
                    ci,
                    note,
                    marker,
                } => {
                    let v = to_x(*value);
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(x0, y - half), (v, y + half)],
                            color.filled(),
                        )))
                        .map_err(fail)?;
                    if let Some([lo, hi]) = ci {
                        whisker(&mut chart, to_x(*lo), to_x(*hi), y, half, scale)?;
                    }
                    // A floor below the axis's start is not drawn at its edge as if it
                    // were there (the table has its number).
                    if let Some(m) = marker.filter(|m| m.is_finite() && *m > 0.0 && inside(*m)) {
                        let m = to_x(m);
                        whisker(&mut chart, m, m, y, half * 1.3, 2.0 * scale)?;
                    }
                    if let Some(note) = note {
                        let end = ci.map_or(v, |c| v.max(to_x(c[1])));
                        let (px, py) = super::local(area, chart.backend_coord(&(end, y)));
                        let style = font(11.0, scale).pos(Pos::new(HPos::Left, VPos::Center));
                        area.draw(&Text::new(note.clone(), (px + s(4.0), py), style))
                            .map_err(fail)?;
                    }
                }
            }
        }
    }
    if let Some(r) = axis.reference {
        let x = to_x(r);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, -0.5), (x, n as f64 - 0.5)],
                ShapeStyle::from(INK.mix(0.6)).stroke_width(s(1.0).max(1) as u32),
            )))
            .map_err(fail)?;
    }
    area.present().map_err(fail)
}

type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// A 95% CI as a horizontal line with end caps.
fn whisker<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    lo: f64,
    hi: f64,
    y: f64,
    half: f64,
    scale: f64,
) -> DrawResult {
    let style = ShapeStyle::from(INK).stroke_width((1.5 * scale).round().max(1.0) as u32);
    let cap = half * 0.9;
    chart
        .draw_series([
            PathElement::new(vec![(lo, y), (hi, y)], style),
            PathElement::new(vec![(lo, y - cap), (lo, y + cap)], style),
            PathElement::new(vec![(hi, y - cap), (hi, y + cap)], style),
        ])
        .map_err(fail)?;
    Ok(())
}

/// "Nothing to show" in the middle of the area.
pub fn no_data<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, scale: f64) -> DrawResult {
    let (w, h) = area.dim_in_pixel();
    let style = font(13.0, scale).pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(
        "nothing to show",
        (w as i32 / 2, h as i32 / 2),
        style,
    ))
    .map_err(fail)?;
    area.present().map_err(fail)
}

/// Rows of p50/p95/p99 bars (p50 with its CI whisker); an arm with an error gets its
/// message instead of bars.
pub fn percentile_rows(bars: &[PercentileBar]) -> Vec<Row> {
    bars.iter()
        .map(|b| {
            let slots = match (&b.no_result, b.percentiles) {
                (Some(why), _) => vec![Slot::NoResult(why.clone())],
                (None, None) => vec![Slot::NoResult(NoResult::Error("no data".into()))],
                (None, Some([p50, p95, p99])) => vec![
                    Slot::Bar {
                        value: p50,
                        color: P50,
                        ci: b.p50_ci,
                        // The p50 written beside its bar, so rows far from the axis read.
                        note: Some(match b.p50_ci {
                            Some(_) => fmt_us(p50),
                            None => format!("{} (CI n/a)", fmt_us(p50)),
                        }),
                        marker: b.floor,
                    },
                    Slot::Bar {
                        value: p95,
                        color: P95,
                        ci: None,
                        note: None,
                        marker: None,
                    },
                    Slot::Bar {
                        value: p99,
                        color: P99,
                        ci: None,
                        note: None,
                        marker: None,
                    },
                ],
            };
            Row::new(b.label.clone(), b.no_result.as_ref(), slots)
        })
        .collect()
}

/// The percentile chart (also used for one arm across runs); `extent`: the values of
/// the panels it is read against.
pub fn draw_percentiles<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bars: &[PercentileBar],
    value_scale: Scale,
    extent: Extent,
    scale: f64,
) -> DrawResult {
    let axis = Axis {
        scale: value_scale,
        desc: format!(
            "latency ({}); whisker: 95% CI of the p50",
            value_scale.describe()
        ),
        tick: &fmt_us,
        reference: None,
        extent,
    };
    draw_hbars(
        area,
        &percentile_rows(bars),
        &axis,
        &[
            ("p50", P50),
            ("p95", P95),
            ("p99", P99),
            ("dark tick: crypto floor", INK),
        ],
        scale,
    )
}

/// CSS height for a bar chart of `rows` rows with `slots` bars each.
pub fn height_for(rows: usize, slots: usize) -> u32 {
    // Three bars a row (p50, p95, p99) are a little thinner, so a run's headline arms
    // fit the first screen beside the speedups.
    let bar = if slots >= 3 { 7.0 } else { 9.0 };
    let per_row = 8.0 + bar * slots as f64;
    (80.0 + per_row * rows.max(1) as f64).clamp(140.0, 2400.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_far_below_the_others_keeps_its_own_axis() {
        let row = |v: f64| Row {
            label: format!("{v}"),
            error: false,
            slots: vec![Slot::Bar {
                value: v,
                color: P50,
                ci: None,
                note: None,
                marker: None,
            }],
        };
        let panels = vec![
            vec![row(40.0)],
            vec![row(900.0), row(30_000.0)],
            vec![row(5_000.0)],
        ];
        let e = shared_extents(&panels);
        assert_eq!(e[0], None, "40 µs beside 30 ms: its own axis");
        assert_eq!(e[1], Some([900.0, 30_000.0]));
        assert_eq!(
            e[2],
            Some([900.0, 30_000.0]),
            "5 ms is read on the shared axis"
        );
        // Panels of one magnitude all share it.
        let e = shared_extents(&panels[1..]);
        assert!(e.iter().all(|e| *e == Some([900.0, 30_000.0])), "{e:?}");
    }
    use crate::charts::recorder::Recorder;
    use crate::data::derive::percentile_bars;
    use crate::data::filter::ArmFilter;
    use crate::data::testdata::sample;

    #[test]
    fn every_arm_gets_its_label_and_three_bars() {
        let bars = percentile_bars(&sample(), &ArmFilter::default());
        let rec = Recorder::draw(640, 300, |a| {
            draw_percentiles(a, &bars, Scale::Log, None, 1.0)
        });
        for b in &bars {
            assert!(rec.has_text(&b.label), "{:?}", rec.texts);
        }
        // Bars only: the legend squares sit in the top 18 px.
        assert_eq!(rec.filled_rects_of_below(P50, 19), bars.len());
        assert_eq!(rec.filled_rects_of_below(P99, 19), bars.len());
        // Each p50 is written beside its bar (sample: 21.0 µs / 400 µs / 200 µs).
        for p50 in ["21.0 µs", "400 µs", "200 µs"] {
            assert!(rec.has_text(p50), "{p50}: {:?}", rec.texts);
        }
        assert!(!rec.texts.iter().any(|t| t.0.starts_with("ERROR")));
    }

    #[test]
    fn the_crypto_floor_is_a_tick_on_the_p50_bar() {
        let mut bars = percentile_bars(&sample(), &ArmFilter::default());
        let without = Recorder::draw(640, 300, |a| {
            draw_percentiles(a, &bars, Scale::Log, None, 1.0)
        });
        bars[1].floor = Some(100.0);
        let rows = percentile_rows(&bars);
        assert!(matches!(rows[1].slots[0], Slot::Bar { marker: Some(m), .. } if m == 100.0));
        let with = Recorder::draw(640, 300, |a| {
            draw_percentiles(a, &bars, Scale::Log, None, 1.0)
        });
        assert!(with.paths > without.paths, "the floor tick is drawn");
    }

    #[test]
    fn an_arm_with_an_error_shows_the_error_not_bars() {
        let mut ev = sample();
        ev.arms[2].error = Some("0 of 4 connections resumed".into());
        let bars = percentile_bars(&ev, &ArmFilter::default());
        let rows = percentile_rows(&bars);
        assert_eq!(
            rows[2].slots,
            [Slot::NoResult(NoResult::Error(
                "0 of 4 connections resumed".into()
            ))]
        );
        let rec = Recorder::draw(1600, 600, |a| {
            draw_percentiles(a, &bars, Scale::Linear, None, 2.0)
        });
        assert!(rec.has_text("ERROR: 0 of 4 connections resumed"));
        // The legend square sits in the top 18 px (at scale 2: 36 px); bars are below it.
        assert_eq!(
            rec.filled_rects_of_below(P50, 37),
            2,
            "one p50 bar for each of the two sound arms, none for the errored one"
        );
        assert_eq!(
            rec.filled_rects_of(P50),
            3,
            "the two bars and the legend square"
        );
    }

    #[test]
    fn long_labels_and_messages_fit_a_narrow_chart() {
        let mut bars = percentile_bars(&sample(), &ArmFilter::default());
        bars[0].label = "s_time-tls13-reuse-www-ecdsa-p256-x25519-vs-s_server".into();
        bars[1].no_result = Some(NoResult::Note(format!("rate only: {}", "x".repeat(200))));
        let rec = Recorder::draw(500, 300, |a| {
            draw_percentiles(a, &bars, Scale::Log, None, 1.0)
        });
        let label = rec
            .texts
            .iter()
            .find(|t| t.0.starts_with("s_time-"))
            .expect("the long label");
        assert!(
            label.0.contains('…') && label.0.ends_with("s_server"),
            "{label:?}"
        );
        assert!(label.0.chars().count() as f64 * 6.6 < 500.0 * 0.45);
        let note = rec
            .texts
            .iter()
            .find(|t| t.0.starts_with("rate only"))
            .expect("the note");
        assert!(note.0.chars().count() < 60, "{}", note.0);
        let ticks = rec
            .texts
            .iter()
            .filter(|t| t.0.ends_with(" µs") || t.0.ends_with(" ms"))
            .count()
            - 2; // the p50s written beside the two bars with results
        assert!(
            (2..=5).contains(&ticks),
            "{ticks} tick labels on a 500 px chart"
        );
    }

    #[test]
    fn a_narrow_chart_keeps_its_axis_title_whole_and_starts_at_zero() {
        let bars = percentile_bars(&sample(), &ArmFilter::default());
        let wide = Recorder::draw(900, 300, |a| {
            draw_percentiles(a, &bars, Scale::Linear, None, 1.0)
        });
        assert!(wide.has_text("latency (linear scale); whisker: 95% CI of the p50"));
        let narrow = Recorder::draw(380, 300, |a| {
            draw_percentiles(a, &bars, Scale::Linear, None, 1.0)
        });
        assert!(
            narrow.has_text("latency (linear scale)"),
            "{:?}",
            narrow.texts
        );
        assert!(!narrow.texts.iter().any(|t| t.0.contains("whisker")));
        assert!(narrow.has_text("0") && !narrow.has_text("0.00 µs"));
    }

    #[test]
    fn empty_input_says_so() {
        let rec = Recorder::draw(300, 150, |a| {
            draw_percentiles(a, &[], Scale::Log, None, 1.0)
        });
        assert!(rec.texts.iter().any(|t| t.0.starts_with("nothing to show")));
    }
}
