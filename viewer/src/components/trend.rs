//! The trend view: one arm's p50 across every visible run, a line per host, drawn from the
//! runs' briefs in the history (no summaries, no raw samples), with changes beyond the CIs
//! marked.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::canvas::Chart;
use super::shown;
use crate::charts::spec::ChartSpec;
use crate::data::format::{fmt_ci_ratio, fmt_ci_us, fmt_ratio, fmt_us, short};
use crate::data::load::short_time;
use crate::data::load::RunSet;
use crate::data::trend::{chart_lines, hosts, in_time_order, marks, trend, TrendPoint};

#[derive(Properties, PartialEq)]
pub struct TrendProps {
    pub runs: Rc<RunSet>,
    /// The arm ids to pick from, and the one shown.
    pub ids: Vec<String>,
    pub chosen: Option<String>,
    pub on_arm: Callback<String>,
    pub hidden_hosts: Vec<String>,
    pub on_host: Callback<String>,
}

#[component]
pub fn Trend(props: &TrendProps) -> Html {
    let (ids, chosen) = (&props.ids, &props.chosen);
    let all_hosts = hosts(&props.runs);
    let lines = use_memo(
        (
            chosen.clone(),
            props.hidden_hosts.clone(),
            props.runs.clone(),
        ),
        |(arm, hidden, runs)| match arm {
            Some(a) => trend(runs, a, hidden),
            None => Vec::new(),
        },
    );
    let spec = Rc::new(ChartSpec::Trend(chart_lines(&lines), marks(&lines)));
    // The table "as text" holds a row per run: drawn once it is opened, not before (a
    // thousand runs are a thousand rows nobody asked to see).
    let as_text = use_state(|| false);
    let on_as_text = {
        let as_text = as_text.clone();
        Callback::from(move |e: Event| {
            if let Some(d) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            {
                as_text.set(d.open());
            }
        })
    };
    // The runs' span, for an export's head: first start … last start.
    let order = in_time_order(&props.runs);
    let span = match (order.first(), order.last()) {
        (Some(a), Some(b)) => format!(
            "{} … {}",
            short_time(&a.brief.run.started_at),
            short_time(&b.brief.run.started_at)
        ),
        _ => String::new(),
    };
    let on_arm = {
        let on_arm = props.on_arm.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
            {
                on_arm.emit(select.value());
            }
        })
    };
    let host_box = |host: &String| {
        let on_host = props.on_host.clone();
        let h = host.clone();
        let on = !props.hidden_hosts.contains(host);
        html! {
            <label class="facet">
                <input type="checkbox" checked={on} data-host={host.clone()}
                       onchange={move |_| on_host.emit(h.clone())} />
                {shown(host)}
            </label>
        }
    };
    html! {
        <section id="trend-section">
            <h2>{"Trend: one arm across runs"}</h2>
            <p class="hint">{"The picked arm's median in each run, oldest to newest, one line per host (whisker: the \
                median's 95% interval). A ring marks a run that is slower (red) or faster (green) than the host's \
                previous run beyond both runs' intervals. A line breaks where the setup changed (other samples, \
                plan, machine…), and the new piece is labelled with what changed: runs measured differently are \
                not compared."}</p>
            if ids.is_empty() {
                <p class="empty">{"No arm passes the filters: tick a protocol, mode, cert, group or stack under Filters."}</p>
            } else if props.runs.shown().count() == 1 {
                <p class="empty" id="trend-one-run">{"One run: nothing to compare yet. The trend draws a point per run; \
                    another run of the same setup (cargo xtask lab again, or its evidence added below) makes a line."}</p>
            }
            <label>{"arm "}
                <select id="trend-arm" onchange={on_arm}>
                    for id in ids.iter() {
                        <option value={id.clone()} selected={chosen.as_ref() == Some(id)}>{short(id)}</option>
                    }
                </select>
            </label>
            <fieldset class="facets hosts">
                <legend class="dim">{"hosts"}</legend>
                for h in all_hosts.iter() { {host_box(h)} }
            </fieldset>
            <Chart id="chart-trend" {spec} title={chosen.clone().map(|a| AttrValue::from(format!("p50 of {a} across runs")))}
                   run={AttrValue::from(format!("{} runs", props.runs.shown().count()))}
                   host={AttrValue::from(all_hosts.join(", "))} date={AttrValue::from(span)}
                   arms={chosen.clone().map(|a| vec![a])}
                   label="the picked arm's p50 in each run, oldest to newest, one line per host, changes ringed"
                   empty="nothing to show: the arm has no latencies in the shown runs and hosts" />
            <details class="as-text" ontoggle={on_as_text}>
                <summary>{"as text"}</summary>
                if *as_text {
                <table id="trend-table" class="arms">
                    <thead><tr>
                        <th scope="col">{"host"}</th><th scope="col">{"#"}</th>
                        <th scope="col">{"run id"}</th><th scope="col">{"started"}</th>
                        <th scope="col">{"p50"}</th><th scope="col">{"95% CI"}</th>
                        <th scope="col">{"against the host's previous run"}</th>
                    </tr></thead>
                    <tbody>
                    for l in lines.iter() {
                        for (i, p) in l.points.iter().enumerate() {
                            {point_row(&l.host, p, if i == 0 { l.setup_change.as_deref() } else { None })}
                        }
                    }
                    </tbody>
                </table>
                }
            </details>
        </section>
    }
}

fn point_row(host: &str, p: &TrendPoint, new_setup: Option<&str>) -> Html {
    let (verdict, text) = match &p.change {
        Some(c) => (
            c.verdict.as_str(),
            format!(
                "{} {}: {}",
                fmt_ratio(c.ratio),
                c.ci.map(fmt_ci_ratio).unwrap_or_else(|| "(CI n/a)".into()),
                c.verdict
            ),
        ),
        None => match new_setup {
            Some(what) => ("", format!("not compared: the setup changed ({what})")),
            None => ("", "first run of this host".into()),
        },
    };
    html! {
        <tr data-host={host.to_string()} data-run={p.run_id.clone()} data-verdict={verdict}>
            <td>{shown(host)}</td><td class="num">{p.x as u64}</td>
            <td><code>{shown(&p.run_id)}</code></td><td>{p.started.clone()}</td>
            <td class="num p50">{fmt_us(p.p50)}</td><td class="num">{fmt_ci_us(p.ci)}</td>
            <td>{text}</td>
        </tr>
    }
}
