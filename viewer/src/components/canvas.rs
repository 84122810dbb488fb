//! A `<canvas>` that draws one chart after it is mounted and whenever its data change,
//! sized `css × devicePixelRatio` so it stays sharp on HiDPI screens.

use std::rc::Rc;

use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::export::{download_png, download_svg};
use super::shown;
use crate::charts::spec::{paint, ChartSpec};
use crate::charts::surface::Surface;
use crate::data::export::{export_head, export_name, Provenance};

/// What a chart's export names as its source, from the run's evidence: its run id,
/// host, start and conditions (the `run`, `host`, `date` and `conditions` props).
pub fn source(ev: &shared::Evidence) -> [AttrValue; 4] {
    [
        AttrValue::from(ev.run.id.clone()),
        AttrValue::from(ev.environment.hostname.clone()),
        AttrValue::from(ev.run.started_at.clone()),
        AttrValue::from(crate::data::conditions::words(ev)),
    ]
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
    /// The run's conditions in a few words (see `data::conditions::words`), or empty.
    #[prop_or_default]
    pub conditions: AttrValue,
    /// What the export lists as its arms, when not the chart's rows (e.g. the trend's arm).
    #[prop_or_default]
    pub arms: Option<Vec<String>>,
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
            conditions: props.conditions.to_string(),
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
                            <tr class={error.then_some("error")}>
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
