//! What a chart shows ([`ChartSpec`]) and its drawing on any backend, with or without an
//! export's header: the page's canvas and the PNG and SVG downloads all paint through here
//! (components/canvas.rs and components/export.rs), and it builds natively.

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};

use super::bars::Extent;
use super::{
    against, bars, cdf, flights, font, lines, loss, speedup, stacks, waterfall, DrawResult, Scale,
};
use crate::data::derive::{CdfSeries, SpeedupBar};
use crate::data::flights::{fmt_bytes, FlightChart};
use crate::data::format::fmt_us;
use crate::data::loss::{ms, LossPanel, LossView};
use crate::data::outcome::PercentileBar;
use crate::data::phases::Waterfall;
use crate::data::series::{CapacityMetric, Line};
use crate::data::stacks::{StackLatency, StackSpeedup};
use crate::data::text::{
    cdf_text, lines_text, percentile_text, speedup_text, stack_latency_text, TextLine,
};

/// What a chart canvas shows.
#[derive(Debug, Clone, PartialEq)]
pub enum ChartSpec {
    /// The bars, the value axis, and the values of the panels read against this one.
    Percentiles(Vec<PercentileBar>, Scale, Extent),
    Speedups(Vec<SpeedupBar>),
    Cdf(Vec<CdfSeries>, Scale),
    StackLatency(Vec<StackLatency>, Scale),
    StackSpeedups(Vec<StackSpeedup>),
    Capacity(Vec<Line>, CapacityMetric),
    Ttfb(Vec<Line>),
    /// Handshake p50 and p95 against loss, a panel per RTT.
    Loss(Vec<LossPanel>, LossView),
    Waterfall(Vec<Waterfall>),
    /// One arm across runs: a line per host, and the points marked as changes.
    Trend(Vec<Line>, Vec<(f64, f64, bool)>),
    /// Round trips against the server's first flight, with the initial window.
    Flights(FlightChart),
}

impl ChartSpec {
    /// Height in CSS pixels that fits the content.
    pub fn height(&self) -> u32 {
        match self {
            ChartSpec::Percentiles(b, ..) => bars::height_for(b.len(), 3),
            ChartSpec::Speedups(b) => {
                let groups = speedup::speedup_rows(b).len();
                bars::height_for(groups, 2)
            }
            ChartSpec::StackLatency(r, _) => bars::height_for(r.len(), 2),
            ChartSpec::StackSpeedups(r) => bars::height_for(r.len(), 2),
            ChartSpec::Cdf(..)
            | ChartSpec::Capacity(..)
            | ChartSpec::Ttfb(_)
            | ChartSpec::Trend(..) => lines::HEIGHT,
            ChartSpec::Waterfall(r) => waterfall::height_for(r.len()),
            ChartSpec::Flights(_) => flights::HEIGHT,
            ChartSpec::Loss(p, _) => loss::height_for(p.len()),
        }
    }

    /// The chart's data as text, one line per row or curve. (The stacks' speedups and
    /// the phases have their own list and table under the chart.)
    pub fn text(&self) -> Vec<TextLine> {
        let us = |v: f64| fmt_us(v);
        match self {
            ChartSpec::Percentiles(b, ..) => percentile_text(b),
            ChartSpec::Speedups(b) => speedup_text(b),
            ChartSpec::Cdf(s, _) => cdf_text(s),
            ChartSpec::StackLatency(r, _) => stack_latency_text(r),
            ChartSpec::Capacity(l, metric) => {
                let rate = |v: f64| format!("{v:.0}/s");
                let y: &dyn Fn(f64) -> String = match metric {
                    CapacityMetric::Rate => &rate,
                    CapacityMetric::P99 => &us,
                };
                lines_text(l, &|x| format!("{x:.0} clients"), y)
            }
            ChartSpec::Ttfb(l) => lines_text(l, &|x| format!("RTT {x} ms"), &us),
            ChartSpec::Flights(c) => {
                let mut t: Vec<TextLine> = c
                    .points
                    .iter()
                    .map(|p| {
                        let bytes = fmt_bytes(p.bytes.max(0.0).round() as u64);
                        (
                            p.label.clone(),
                            format!("{bytes}: {:.2} RTT", p.rtts),
                            false,
                        )
                    })
                    .collect();
                if let (Some((cwnd, mss)), Some(w)) = (c.window, c.window_bytes()) {
                    let w = fmt_bytes(w.round() as u64);
                    t.push((
                        "initial window".into(),
                        format!("{cwnd} segments × {mss} B = {w}"),
                        false,
                    ));
                }
                t
            }
            ChartSpec::Loss(panels, _) => {
                let mut rows = Vec::new();
                for p in panels {
                    for mut r in lines_text(&p.lines, &|x| format!("{x}% loss"), &us) {
                        r.0 = format!("RTT {} · {}", ms(p.rtt_ms), r.0);
                        rows.push(r);
                    }
                }
                rows
            }
            // The trend has its own table (run ids, verdicts) under the chart.
            ChartSpec::StackSpeedups(_) | ChartSpec::Waterfall(_) | ChartSpec::Trend(..) => {
                Vec::new()
            }
        }
    }

    /// The rows' (or lines') names, in order: what an export lists as its arms.
    pub fn labels(&self) -> Vec<String> {
        let rows = |r: Vec<bars::Row>| r.into_iter().map(|r| r.label).collect();
        match self {
            ChartSpec::Percentiles(b, ..) => b.iter().map(|b| b.label.clone()).collect(),
            ChartSpec::Speedups(b) => rows(speedup::speedup_rows(b)),
            ChartSpec::StackLatency(r, _) => r.iter().map(|r| r.arm.clone()).collect(),
            ChartSpec::StackSpeedups(r) => r.iter().map(|r| r.arm.clone()).collect(),
            ChartSpec::Waterfall(r) => r.iter().map(|r| r.arm.clone()).collect(),
            ChartSpec::Cdf(s, _) => s.iter().map(|s| s.label.clone()).collect(),
            ChartSpec::Capacity(l, _) | ChartSpec::Ttfb(l) | ChartSpec::Trend(l, _) => {
                l.iter().map(|l| l.label.clone()).collect()
            }
            ChartSpec::Flights(c) => c.points.iter().map(|p| p.label.clone()).collect(),
            // The curves are named once, in the legend above the panels.
            ChartSpec::Loss(p, _) => p
                .iter()
                .take(1)
                .flat_map(|p| &p.lines)
                .map(|l| l.label.clone())
                .collect(),
        }
    }

    /// The row labels as a bar chart `css_w` wide draws them (fitted and distinct);
    /// `None` for the line charts (their names are in the legend).
    pub fn drawn_labels(&self, css_w: f64) -> Option<Vec<String>> {
        match self {
            ChartSpec::Cdf(..)
            | ChartSpec::Capacity(..)
            | ChartSpec::Ttfb(_)
            | ChartSpec::Trend(..)
            | ChartSpec::Flights(_)
            | ChartSpec::Loss(..) => None,
            _ => Some(bars::drawn_labels(&self.labels(), css_w)),
        }
    }

    /// Number of series/rows, exposed as `data-items` for tests and tools.
    pub fn items(&self) -> usize {
        match self {
            ChartSpec::Percentiles(b, ..) => b.len(),
            ChartSpec::Speedups(b) => b.len(),
            ChartSpec::Cdf(s, _) => s.len(),
            ChartSpec::StackLatency(r, _) => r.len(),
            ChartSpec::StackSpeedups(r) => r.len(),
            ChartSpec::Capacity(l, _) | ChartSpec::Ttfb(l) | ChartSpec::Trend(l, _) => l.len(),
            ChartSpec::Waterfall(r) => r.len(),
            ChartSpec::Flights(c) => c.points.len(),
            ChartSpec::Loss(p, _) => p.len(),
        }
    }
}

/// CSS pixels of an export's header (three lines of text).
const HEAD_PX: f64 = 58.0;

/// `spec` drawn under its export header `head`.
pub fn paint_with_head<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    head: &[String; 3],
    dpr: f64,
) -> DrawResult {
    let (top, body) = area.split_vertically((HEAD_PX * dpr).round() as u32);
    top.fill(&plotters::style::WHITE).map_err(super::fail)?;
    let css_w = f64::from(area.dim_in_pixel().0) / dpr;
    for (i, line) in head.iter().enumerate() {
        let px = if i == 0 { 14.0 } else { 11.0 };
        let at = ((6.0 * dpr) as i32, ((4.0 + 17.0 * i as f64) * dpr) as i32);
        // Cut to the export's width (a phone's is 420 px): a line past the edge is lost
        // in a PNG.
        let fits = head_chars(css_w, px);
        top.draw(&plotters::element::Text::new(
            super::shorten(line, fits),
            at,
            font(px, dpr),
        ))
        .map_err(super::fail)?;
    }
    paint(&body, spec, dpr)
}

/// Characters of a `px` font that fit on a header line `css_w` wide (6 px margins; a
/// character is at most 0.6 em wide on average, as [`super::CHAR_PX`] is for 12 px).
pub fn head_chars(css_w: f64, px: f64) -> usize {
    ((css_w - 12.0) / (px * super::CHAR_PX / 12.0)).max(8.0) as usize
}

/// The height of an export of `spec`, in CSS pixels (the chart and its header).
pub fn export_height(spec: &ChartSpec) -> u32 {
    spec.height() + HEAD_PX as u32
}

/// Draws `spec` on `area` (the page's canvas and the SVG download both draw through
/// [`Surface`], so the charts are compiled once).
pub fn paint<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    dpr: f64,
) -> DrawResult {
    match spec {
        ChartSpec::Percentiles(b, scale, extent) => {
            bars::draw_percentiles(area, b, *scale, *extent, dpr)
        }
        ChartSpec::Speedups(b) => speedup::draw_speedups(area, b, dpr),
        ChartSpec::Cdf(s, scale) => cdf::draw_cdf(area, s, *scale, dpr),
        ChartSpec::StackLatency(r, scale) => stacks::draw_stack_latencies(area, r, *scale, dpr),
        ChartSpec::StackSpeedups(r) => stacks::draw_stack_speedups(area, r, dpr),
        ChartSpec::Capacity(l, metric) => against::draw_capacity(area, l, *metric, dpr),
        ChartSpec::Ttfb(l) => against::draw_ttfb(area, l, dpr),
        ChartSpec::Loss(p, view) => loss::draw_loss(area, p, *view, dpr),
        ChartSpec::Waterfall(r) => waterfall::draw_waterfalls(area, r, dpr),
        ChartSpec::Trend(l, marks) => against::draw_trend(area, l, marks, dpr),
        ChartSpec::Flights(c) => flights::draw_flights(area, c, dpr),
    }
}

#[cfg(test)]
#[path = "export_tests.rs"]
mod export_tests;
