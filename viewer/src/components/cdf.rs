//! The latency-distribution section: pick arms, see their CDFs.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::canvas::Chart;
use crate::charts::spec::ChartSpec;
use crate::charts::Scale;
use crate::data::derive::{cdf_series, has_cdf, ArmRef};
use crate::data::filter::ArmFilter;
use crate::data::format::short;
use crate::data::load::RunSet;

pub struct CdfProps {
    pub runs: Rc<RunSet>,
    pub filter: ArmFilter,
    pub picked: Vec<ArmRef>,
    pub on_toggle: Callback<ArmRef>,
    pub scale: Scale,
    /// Opening the section asks for the picked arms' raw samples (summaries have none).
    pub open: bool,
    pub on_open: Callback<bool>,
}

pub fn cdf_section(props: &CdfProps) -> Html {
    let series = cdf_series(&props.runs, &props.filter, &props.picked);
    let spec = Rc::new(ChartSpec::Cdf(series, props.scale));
    let waiting = !props.runs.raw_missing(&props.picked).is_empty();
    let keys: Vec<u32> = props.runs.visible().map(|r| r.key).collect();
    let left_out: Vec<String> = props
        .runs
        .without_raw(&keys)
        .iter()
        .map(|r| r.label())
        .collect();
    let ontoggle = {
        let on_open = props.on_open.clone();
        Callback::from(move |e: Event| {
            let open = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
                .is_some_and(|d| d.open());
            on_open.emit(open);
        })
    };
    html! {
        <details id="cdf-section" open={props.open} {ontoggle}>
            <summary><h2>{"Latency distribution (CDF of raw samples)"}</h2></summary>
            if !props.open {
                <p class="hint">{"Open to fetch the raw samples of the picked arms of the runs in the detail view."}</p>
            } else {
            if waiting { <p id="cdf-loading" role="status">{"Fetching the raw samples…"}</p> }
            for label in left_out {
                <p class="hint no-raw">{label}{": no raw samples on this site (built with --max-raw-runs); the run's evidence file has them."}</p>
            }
            <a class="skip" href="#table-section">{"Skip the arm list to the table"}</a>
            <div class="cdf">
                <div class="picker">
                    for run in props.runs.visible() {
                        <fieldset>
                            <legend>{"arms of "}{run.label()}</legend>
                            for arm in run.evidence.arms.iter().filter(|a| props.filter.matches(a) && has_cdf(a)) {
                                {pick_box(ArmRef { run_key: run.key, arm_id: arm.id.clone() },
                                          &props.picked, &props.on_toggle)}
                            }
                        </fieldset>
                    }
                </div>
                <Chart id="chart-cdf" {spec} label="CDF of the latency samples of the picked arms"
                       empty="nothing to show: no arm picked among those the filters let through" />
            </div>
            }
        </details>
    }
}

fn pick_box(r: ArmRef, picked: &[ArmRef], on_toggle: &Callback<ArmRef>) -> Html {
    let checked = picked.contains(&r);
    let on_toggle = on_toggle.clone();
    let run = r.run_key.to_string();
    let (id, text) = (r.arm_id.clone(), short(&r.arm_id));
    html! {
        <label class="pick">
            <input type="checkbox" {checked} data-arm={id} data-run={run}
                   onchange={move |_| on_toggle.emit(r.clone())} />
            {text}
        </label>
    }
}
