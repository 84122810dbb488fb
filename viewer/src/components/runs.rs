//! The list of loaded runs (hide/remove), load failures, and one column per run with its
//! card and charts.

use std::rc::Rc;

use yew::prelude::*;

use super::canvas::Chart;
use super::shown;
use super::views::{run_views, ViewsProps};
use crate::charts::bars::{percentile_rows, shared_extents};
use crate::charts::spec::ChartSpec;
use crate::charts::Scale;
use crate::data::card::{run_card, tls_over_tcp};
use crate::data::derive::resume_speedups;
use crate::data::filter::ArmFilter;
use crate::data::format::short;
use crate::data::load::{short_time, HistoryRun, LoadFailure, LoadedRun, RunSet};
use crate::data::pages::{Page, PAGE};
use crate::data::stacks::percentile_panels;

#[derive(Properties, PartialEq)]
pub struct RunListProps {
    pub runs: Rc<RunSet>,
    pub on_toggle: Callback<u32>,
    pub on_remove: Callback<u32>,
    /// The runs in the detail view, and picking one in or out of it.
    pub detail: Vec<u32>,
    pub on_detail: Callback<u32>,
    /// False until the start-up load finished: then "loading", not "no runs".
    pub ready: bool,
}

/// Every loaded run: host, date, tool version, complete or not; hide and remove. A page
/// of [`PAGE`] runs at a time, the newest first to the eye: a long history is not drawn
/// whole.
#[component]
pub fn RunList(props: &RunListProps) -> Html {
    let page = use_state(|| 0usize);
    if !props.ready {
        return html! { <p id="loading" role="status">{"Loading evidence…"}</p> };
    }
    let all = &props.runs.history;
    if all.is_empty() {
        return html! { <p id="run-list" class="empty">{"No runs loaded yet."}</p> };
    }
    let at = Page::from_end(all.len(), *page, PAGE);
    html! {
        <>
        <table id="run-list" class="runs">
            <thead><tr>
                <th scope="col">{"kind"}</th><th scope="col">{"host"}</th><th scope="col">{"run id"}</th>
                <th scope="col">{"started"}</th><th scope="col">{"tool"}</th>
                <th scope="col">{"complete"}</th><th scope="col">{"file"}</th>
                <th scope="col">{"detail"}</th><th></th>
            </tr></thead>
            <tbody>
            for run in &all[at.items.clone()] {
                {run_line(run, props)}
            }
            </tbody>
        </table>
        if at.paged() {
            {pager("run-list-pager", &at, all.len(), page)}
        }
        </>
    }
}

/// "older runs · runs 951–1,000 of 1,000 · newer runs" under a list shown a page at a
/// time (page 0 the newest).
fn pager(id: &'static str, at: &Page, len: usize, page: UseStateHandle<usize>) -> Html {
    let (older, newer) = (page.clone(), page.clone());
    let n = *page;
    html! {
        <p class="pager" {id}>
            <button class="older" disabled={at.page + 1 >= at.pages}
                    onclick={move |_| older.set(n + 1)}>{"◂ older runs"}</button>
            <span role="status">{at.words(len)}</span>
            <button class="newer" disabled={at.page == 0}
                    onclick={move |_| newer.set(n.saturating_sub(1))}>{"newer runs ▸"}</button>
        </p>
    }
}

fn run_line(run: &HistoryRun, props: &RunListProps) -> Html {
    let brief = &run.brief.run;
    let key = run.key;
    let (toggle, remove) = (props.on_toggle.clone(), props.on_remove.clone());
    let pick = props.on_detail.clone();
    let in_detail = props.detail.contains(&key);
    // Four side by side at most: a fifth box is disabled, not swapped for another.
    let full = !in_detail && props.detail.len() >= crate::data::load::MAX_DETAIL;
    let id = short(&brief.run_id);
    let verb = if run.hidden { "show" } else { "hide" };
    html! {
        <tr class={run.hidden.then_some("hidden")} data-run={key.to_string()}>
            <td class="kind">{brief.kind.map_or("–", |k| k.words())}</td>
            <td class="host">{shown(&brief.host)}</td>
            <td class="run-id"><code>{shown(&brief.run_id)}</code></td>
            <td>{shown(&short_time(&brief.started_at))}</td>
            <td>{shown(&brief.tool)}</td>
            <td class={(!brief.complete).then_some("error")}>
                {if brief.complete { "yes" } else { "NO (interrupted)" }}
            </td>
            <td><code>{shown(&run.source)}</code>
                if let Some(first) = &run.duplicate_of {
                    <span class="error dup">{" the same run (id) as "}{shown(first)}</span>
                }
            </td>
            <td><input type="checkbox" class="detail-pick" checked={in_detail} disabled={full}
                       title={full.then_some("four runs are side by side already: untick one first")}
                       aria-label={format!("run {id} in the detail view")}
                       onchange={move |_| pick.emit(key)} /></td>
            <td>
                <button aria-label={format!("{verb} run {id}")} onclick={move |_| toggle.emit(key)}>
                    {verb}
                </button>
                <button aria-label={format!("remove run {id}")} onclick={move |_| remove.emit(key)}>{"remove"}</button>
            </td>
        </tr>
    }
}

pub struct FailuresProps {
    pub failures: Vec<LoadFailure>,
    pub on_dismiss: Callback<usize>,
}

/// Files that did not load, each with its name and the reason.
/// (A plain function: no state of its own.)
pub fn failures(props: &FailuresProps) -> Html {
    if props.failures.is_empty() {
        return html! {};
    }
    html! {
        <ul id="load-errors" class="failures" role="alert">
            for (i, f) in props.failures.iter().enumerate() {
                <li class="load-error">
                    <strong class="source">{shown(&f.source)}</strong>{": "}
                    <span class="reason">{shown(&f.reason)}</span>
                    <button onclick={let d = props.on_dismiss.clone(); move |_| d.emit(i)}>
                        {"dismiss"}
                    </button>
                </li>
            }
        </ul>
    }
}

#[derive(Properties, PartialEq)]
pub struct RunColumnProps {
    pub run: LoadedRun,
    pub filter: ArmFilter,
    pub scale: Scale,
}

/// One run: its honesty label (card), its percentile chart, its resume speedups and the
/// views its data allow (stacks, cert × group grid, capacity, TTFB against RTT).
#[component]
pub fn RunColumn(props: &RunColumnProps) -> Html {
    let card = run_card(&props.run.evidence);
    let ratios = tls_over_tcp(&props.run.evidence, &props.filter);
    let key = props.run.key;
    // The panels are read against each other: one axis for all of them (but a panel
    // that would be a pixel long on it: [`shared_extents`]).
    let panels = use_memo(
        (props.run.clone(), props.filter.clone(), props.scale),
        |(run, filter, scale)| {
            let panels = percentile_panels(&run.evidence, filter);
            let rows: Vec<_> = panels.iter().map(|p| percentile_rows(&p.1)).collect();
            let extents = shared_extents(&rows);
            panels
                .into_iter()
                .zip(extents)
                .map(|((stack, bars), extent)| {
                    (stack, Rc::new(ChartSpec::Percentiles(bars, *scale, extent)))
                })
                .collect::<Vec<_>>()
        },
    );
    let speedups = use_memo(
        (props.run.clone(), props.filter.clone()),
        |(run, filter)| ChartSpec::Speedups(resume_speedups(&run.evidence, filter)),
    );
    let ev = &props.run.evidence;
    let [run_id, host, date, conditions] = super::canvas::source(ev);
    html! {
        <article class="run" data-run={key.to_string()}>
            <h3>{props.run.label()}</h3>
            if !ratios.is_empty() {
                <h4>{"TLS handshake / TCP connect (p50, 95% CI)"}</h4>
                <dl class="card ratios">
                    for (k, v) in ratios {
                        <dt>{shown(&k)}</dt><dd>{shown(&v)}</dd>
                    }
                </dl>
            }
            <details class="more">
                <summary>{"run details: id, host, versions, settings"}</summary>
                <dl class="card">
                    for (k, v) in card.main.into_iter().chain(card.more) {
                        <dt>{k}</dt><dd>{shown(&v)}</dd>
                    }
                </dl>
            </details>
            <h4>{"Percentiles per arm, one panel per stack"}</h4>
            <div class="panels" id={format!("chart-percentiles-{key}")}>
                if panels.is_empty() {
                    <p class="empty">{"nothing to show: no arm passes the filters"}</p>
                }
                for (i, (stack, spec)) in panels.iter().enumerate() {
                    <Chart id={format!("chart-percentiles-{key}-{i}")} spec={spec.clone()}
                           title={AttrValue::from(stack.clone())}
                           run={run_id.clone()} host={host.clone()} date={date.clone()}
                           conditions={conditions.clone()}
                           label={format!("{stack}: p50, p95 and p99 latency per arm, with the p50 95% CI")} />
                }
            </div>
            // A run without resumed arms (e.g. a loss grid of full handshakes) has no
            // speedup to draw whatever the filters: no empty chart for it.
            if ev.arms.iter().any(|a| a.mode == shared::Mode::Resumed) {
                <Chart id={format!("chart-speedup-{key}")} spec={speedups}
                       title={AttrValue::from("Resume speedup")}
                       run={run_id.clone()} host={host.clone()} date={date.clone()}
                           conditions={conditions.clone()}
                       label="full/resumed p50 ratio per protocol, cert and resumption kind" />
            }
            {run_views(&ViewsProps { run: props.run.clone(), filter: props.filter.clone(),
                                     scale: props.scale })}
        </article>
    }
}
