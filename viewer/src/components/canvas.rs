//! A `<canvas>` that draws one chart after it is mounted and whenever its data change,
//! sized `css × devicePixelRatio` so it stays sharp on HiDPI screens.

use std::rc::Rc;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::export::{download_png, download_svg};
use super::shown;
use crate::charts::bars::Extent;
use crate::charts::surface::Surface;
use crate::charts::{
    against, bars, cdf, font, lines, speedup, stacks, waterfall, DrawResult, Scale,
};
use crate::data::derive::{CdfSeries, PercentileBar, SpeedupBar};
use crate::data::export::{export_head, export_name, Provenance};
use crate::data::format::fmt_us;
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
    Waterfall(Vec<Waterfall>),
    /// One arm across runs: a line per host, and the points marked as changes.
    Trend(Vec<Line>, Vec<(f64, f64, bool)>),
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
        }
    }

    /// The chart's data as text, one line per row or curve. (The stacks' speedups and
    /// the phases have their own list and table under the chart.)
    fn text(&self) -> Vec<TextLine> {
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
            // The trend has its own table (run ids, verdicts) under the chart.
            ChartSpec::StackSpeedups(_) | ChartSpec::Waterfall(_) | ChartSpec::Trend(..) => {
                Vec::new()
            }
        }
    }

    /// The rows' (or lines') names, in order: what an export lists as its arms.
    fn labels(&self) -> Vec<String> {
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
        }
    }

    /// The row labels as a bar chart `css_w` wide draws them (fitted and distinct);
    /// `None` for the line charts (their names are in the legend).
    fn drawn_labels(&self, css_w: f64) -> Option<Vec<String>> {
        match self {
            ChartSpec::Cdf(..)
            | ChartSpec::Capacity(..)
            | ChartSpec::Ttfb(_)
            | ChartSpec::Trend(..) => None,
            _ => Some(bars::drawn_labels(&self.labels(), css_w)),
        }
    }

    /// Number of series/rows, exposed as `data-items` for tests and tools.
    fn items(&self) -> usize {
        match self {
            ChartSpec::Percentiles(b, ..) => b.len(),
            ChartSpec::Speedups(b) => b.len(),
            ChartSpec::Cdf(s, _) => s.len(),
            ChartSpec::StackLatency(r, _) => r.len(),
            ChartSpec::StackSpeedups(r) => r.len(),
            ChartSpec::Capacity(l, _) | ChartSpec::Ttfb(l) | ChartSpec::Trend(l, _) => l.len(),
            ChartSpec::Waterfall(r) => r.len(),
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub id: AttrValue,
    pub spec: Rc<ChartSpec>,
    /// Accessible description of the chart.
    pub label: AttrValue,
    /// A heading above the chart, if any.
    #[prop_or_default]
    pub title: Option<AttrValue>,
    /// Said as text (not only drawn) when the chart has nothing to show.
    #[prop_or(AttrValue::Static("nothing to show: no arm passes the filters"))]
    pub empty: AttrValue,
    /// Where the data come from, written at the head of an export.
    #[prop_or_default]
    pub run: AttrValue,
    #[prop_or_default]
    pub host: AttrValue,
    #[prop_or_default]
    pub date: AttrValue,
    /// What the export lists as its arms, when not the chart's rows (e.g. the trend's arm).
    #[prop_or_default]
    pub arms: Option<Vec<String>>,
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
    top.fill(&plotters::style::WHITE)
        .map_err(crate::charts::fail)?;
    for (i, line) in head.iter().enumerate() {
        let px = if i == 0 { 14.0 } else { 11.0 };
        let at = ((6.0 * dpr) as i32, ((4.0 + 17.0 * i as f64) * dpr) as i32);
        top.draw(&plotters::element::Text::new(
            line.clone(),
            at,
            font(px, dpr),
        ))
        .map_err(crate::charts::fail)?;
    }
    paint(&body, spec, dpr)
}

fn draw(canvas: &HtmlCanvasElement, spec: &ChartSpec) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let dpr = window.device_pixel_ratio().clamp(1.0, 4.0);
    let css_w = canvas
        .parent_element()
        .map(|p| p.client_width())
        .filter(|w| *w > 0)
        .unwrap_or(640)
        .max(240) as f64;
    let css_h = f64::from(spec.height());
    canvas.set_width((css_w * dpr).round() as u32);
    canvas.set_height((css_h * dpr).round() as u32);
    canvas
        .set_attribute("style", &format!("width:{css_w}px;height:{css_h}px"))
        .map_err(|_| "could not size the canvas")?;
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("this browser gave no 2D canvas context")?;
    paint(&Surface::Screen(backend).into_drawing_area(), spec, dpr)
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
        ChartSpec::Waterfall(r) => waterfall::draw_waterfalls(area, r, dpr),
        ChartSpec::Trend(l, marks) => against::draw_trend(area, l, marks, dpr),
    }
}

/// Notes the time of the first drawn chart (ms since navigation start) on `<body>` as
/// `data-first-chart-ms`, and each chart's draws as performance marks `chart:<id>`, for
/// the load-time budgets (`cargo xtask bench`).
fn mark_drawn(id: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(perf) = window.performance() else {
        return;
    };
    let _ = perf.mark(&format!("chart:{id}"));
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    if !body.has_attribute("data-first-chart-ms") {
        let _ = perf.mark("first-chart");
        let _ = body.set_attribute("data-first-chart-ms", &format!("{:.0}", perf.now()));
    }
}

/// A chart canvas; a drawing failure is shown as text below it.
#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let canvas_ref = use_node_ref();
    let error = use_state(|| None::<String>);
    let draws = use_mut_ref(|| 0u32);
    {
        let canvas_ref = canvas_ref.clone();
        let error = error.clone();
        let id = props.id.clone();
        use_effect_with(props.spec.clone(), move |spec| {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                match draw(&canvas, spec) {
                    Ok(()) => {
                        *draws.borrow_mut() += 1;
                        let _ = canvas.set_attribute("data-draws", &draws.borrow().to_string());
                        let css_w = f64::from(canvas.client_width().max(240));
                        if let Some(labels) = spec.drawn_labels(css_w) {
                            let _ = canvas.set_attribute("data-labels", &labels.join("\n"));
                        }
                        mark_drawn(&id);
                        error.set(None);
                    }
                    Err(e) => error.set(Some(e)),
                }
            }
        });
    }
    let lines = props.spec.text();
    let export = |svg: bool| {
        let (canvas_ref, spec) = (canvas_ref.clone(), props.spec.clone());
        let title = props.title.clone().unwrap_or_else(|| props.label.clone());
        let from = Provenance {
            run: props.run.to_string(),
            host: props.host.to_string(),
            date: props.date.to_string(),
        };
        let arms = props.arms.clone();
        let id = props.id.clone();
        Callback::from(move |_| {
            let arms = arms.clone().unwrap_or_else(|| spec.labels());
            let head = export_head(&title, &arms, &from);
            let ext = if svg { "svg" } else { "png" };
            let name = export_name(&id, &title, &from.run, ext);
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                let css_w = canvas.client_width().max(240) as u32;
                match svg {
                    true => download_svg(css_w, &spec, &head, &name),
                    false => download_png(css_w, &spec, &head, &name),
                }
            }
        })
    };
    let what = props.title.clone().unwrap_or_else(|| props.label.clone());
    // The downloads' file name without its extension (also for tests and tools).
    let stem = export_name(&props.id, &what, &props.run, "");
    let stem = stem.trim_end_matches('.').to_string();
    html! {
        <div class="chart">
            if let Some(title) = &props.title { <h4>{title.clone()}</h4> }
            <canvas id={props.id.clone()} ref={canvas_ref.clone()} role="img"
                    aria-label={props.label.clone()}
                    data-items={props.spec.items().to_string()} data-export={stem} />
            if props.spec.items() == 0 { <p class="empty">{props.empty.clone()}</p> }
            // Nothing to take away from an empty chart.
            if props.spec.items() > 0 {
            <p class="export">
                <button class="png" onclick={export(false)}
                        aria-label={format!("download the chart ({what}) as PNG")}>{"PNG"}</button>
                <button class="svg" onclick={export(true)}
                        aria-label={format!("download the chart ({what}) as SVG")}>{"SVG"}</button>
            </p>
            }
            if !lines.is_empty() {
                <details class="as-text">
                    <summary>{"as text"}</summary>
                    <table class="arms">
                        <caption>{props.label.clone()}</caption>
                        <tbody>
                        for (label, text, error) in lines {
                            <tr class={classes!(error.then_some("error"))}>
                                <th scope="row">{shown(&label)}</th><td>{text}</td>
                            </tr>
                        }
                        </tbody>
                    </table>
                </details>
            }
            if let Some(e) = &*error {
                <p class="error">{e.clone()}</p>
            }
        </div>
    }
}
