//! The top of the page: which run is shown (one picker that findings, cards and detail
//! follow), the run's headline as cards, and the two charts of the lab's question side by
//! side (p50/p95/p99 of the headline arms; their resume speedups).

use std::rc::Rc;

use yew::prelude::*;

use super::canvas::Chart;
use super::run_select::{run_words, RunSelect};
use super::shown;
use crate::charts::spec::ChartSpec;
use crate::charts::Scale;
use crate::data::headline::{headline_bars, headline_cards, headline_speedups};
use crate::data::load::{short_time, LoadedRun, RunSet};
use crate::data::trend::in_time_order;

pub struct RunPickerProps {
    pub runs: Rc<RunSet>,
    /// The run shown.
    pub focus: Option<u32>,
    pub on_pick: Callback<u32>,
}

/// The one control that picks the run the page follows, and one line naming it.
/// (A plain function: no state of its own.)
pub fn run_picker(props: &RunPickerProps) -> Html {
    let mut runs = in_time_order(&props.runs);
    runs.reverse();
    let focus = runs.iter().find(|r| Some(r.key) == props.focus);
    let choices: Vec<(u32, String)> = runs.iter().map(|r| (r.key, run_words(r))).collect();
    html! {
        <div class="run-pick">
            <label for="run-pick">{"Run shown "}</label>
            <RunSelect id="run-pick" runs={choices} chosen={props.focus} on_pick={props.on_pick.clone()} />
            if let Some(r) = focus {
                <p id="run-line" class="hint">
                    {format!("{} on host ", r.brief.run.kind.map_or("A run", |k| k.words()))}
                    <strong>{shown(&r.brief.run.host)}</strong>{", run "}
                    <code>{shown(&r.brief.run.run_id)}</code>{", started "}
                    {shown(&short_time(&r.brief.run.started_at))}{" UTC"}
                    {if r.brief.run.complete { "." } else { " — interrupted: some arms have fewer samples than asked." }}
                </p>
            }
        </div>
    }
}

/// The headline cards and the two charts of the run shown (once its summary is in), or a
/// placeholder while it loads.
pub fn headline(run: Option<LoadedRun>, scale: Scale) -> Html {
    match run {
        Some(run) => html! { <HeadlineOf {run} {scale} /> },
        None => html! {
            <section id="headline" class="headline loading" aria-busy="true">
                <p class="hint" role="status">{"Loading the run's summary…"}</p>
            </section>
        },
    }
}

#[derive(Properties, PartialEq)]
struct HeadlineOfProps {
    run: LoadedRun,
    scale: Scale,
}

#[component]
fn HeadlineOf(props: &HeadlineOfProps) -> Html {
    let run = &props.run;
    let ev = run.evidence.clone();
    let cards = use_memo(run.clone(), |r| headline_cards(&r.evidence));
    let bars = use_memo((run.clone(), props.scale), |(r, scale)| {
        ChartSpec::Percentiles(headline_bars(&r.evidence), *scale, None)
    });
    let speedups = use_memo(run.clone(), |r| {
        ChartSpec::Speedups(headline_speedups(&r.evidence))
    });
    let empty_bars = bars_empty(&bars);
    let banner = use_memo(run.clone(), |r| {
        crate::data::conditions::banner(&r.evidence)
    });
    let [run_id, host, date, conditions] = super::canvas::source(&ev);
    // The banner links the glossary terms the tagline above did not.
    let mut seen = crate::data::glossary::linked_by(&[crate::data::head_html::TAGLINE], Vec::new());
    html! {
        <section id="headline" class="headline" aria-labelledby="headline-h">
            <h2 id="headline-h" class="visually-hidden">{"Headline"}</h2>
            <div id="run-conditions" class={banner.class()} role="note">
                <p><strong>{super::termed(&banner.title, &mut seen)}</strong>{" "}{super::termed(banner.meaning, &mut seen)}</p>
                if !banner.reasons.is_empty() {
                    <ul>
                        for r in banner.reasons.iter() { <li>{super::termed(r, &mut seen)}</li> }
                    </ul>
                }
            </div>
            if cards.is_empty() {
                <p class="hint">{if ev.arms.iter().any(|a| a.rtt_ms.is_some()) {
                    "This run measured over an emulated link, not on loopback (the headline's subject): its charts and findings are under Detail below, its arms in the table."
                } else {
                    "This run has no full handshake of rustls with a result: its arms are in the table below."
                }}</p>
            }
            <div class="cards">
                for c in cards.iter() {
                    <a class="head-card" href={format!("#{}", c.chart)}>
                        <h3>{c.title}</h3>
                        <dl>
                            for l in c.lines.iter() {
                                <dt>{l.what.clone()}</dt>
                                <dd class="big">{l.value.clone()}</dd>
                                <dd class="how" title={l.more.clone()}>{l.detail.clone()}</dd>
                            }
                        </dl>
                    </a>
                }
            </div>
            <div id="head-charts" class="head-charts" tabindex="-1">
                if !empty_bars {
                    <Chart id="chart-head-percentiles" spec={bars}
                           title={AttrValue::from("Full and resumed handshakes: p50, p95, p99")}
                           label="p50, p95 and p99 per headline arm (rustls on both ends), with the p50's 95% CI"
                           run={run_id.clone()} host={host.clone()} date={date.clone()}
                           conditions={conditions.clone()} />
                }
                if speedups_any(&speedups) {
                    <Chart id="chart-head-speedups" spec={speedups}
                           title={AttrValue::from("Resume speedups: full ÷ resumed p50")}
                           label="how many times faster a resumed handshake is than a full one, per cert and mechanism, TLS 1.2 beside TLS 1.3"
                           run={run_id.clone()} host={host.clone()} date={date.clone()}
                           conditions={conditions.clone()} />
                }
            </div>
            {work(&ev)}
        </section>
    }
}

/// CPU work beside time: instructions per handshake per end next to the p50, and the
/// resume speedups in both units (nothing where the run counted no instructions).
fn work(ev: &shared::Evidence) -> Html {
    use crate::data::format::{fmt_ci_ratio, fmt_opt_us, fmt_ratio, fmt_ratio_ci};
    use crate::data::work::{fmt_count, resume_units, work_rows, TWO_UNITS, WHOLE_PROCESS};
    let rows = work_rows(ev);
    if rows.is_empty() {
        return html! {};
    }
    let units = resume_units(ev);
    let opt = |n: Option<f64>| n.map_or("–".to_string(), fmt_count);
    let opt_x = |n: Option<f64>| n.map_or("–".to_string(), fmt_ratio);
    html! {
        <div id="work" class="work">
            <h3>{"CPU work beside time: instructions per handshake, each end"}</h3>
            <p class="hint">{TWO_UNITS}</p>
            <div class="table-wrap">
                <table id="work-table" class="arms">
                    <caption>{format!("Counted under callgrind, {} build; p50 is the wall clock of the same arm.", rows[0].build)}</caption>
                    <thead><tr>
                        <th scope="col">{"arm"}</th><th scope="col">{"p50"}</th>
                        <th scope="col">{"client"}</th><th scope="col">{"server"}</th><th scope="col">{"both ends"}</th>
                    </tr></thead>
                    <tbody>
                        for r in rows.iter() {
                            <tr data-arm={r.arm.clone()}>
                                <th scope="row" title={r.arm.clone()}>{r.label.clone()}</th>
                                <td class="num">{fmt_opt_us(r.p50_us)}</td>
                                <td class="num">{if r.whole_process { "not counted".to_string() } else { opt(r.client) }}</td>
                                <td class="num">{fmt_count(r.server)}{if r.whole_process { " (whole process)" } else { "" }}</td>
                                <td class="num">{opt(r.both)}</td>
                            </tr>
                        }
                    </tbody>
                </table>
            </div>
            if rows.iter().any(|r| r.whole_process) {
                <p class="hint" id="work-whole-process">{WHOLE_PROCESS}</p>
            }
            if !units.is_empty() {
                <div class="table-wrap">
                    <table id="resume-units" class="arms">
                        <caption>{"Resume speedups in both units: full ÷ resumed."}</caption>
                        <thead><tr>
                            <th scope="col">{"resumed arm"}</th><th scope="col">{"wall clock (p50, 95% CI)"}</th>
                            <th scope="col">{"instructions: client"}</th><th scope="col">{"server"}</th><th scope="col">{"both ends"}</th>
                        </tr></thead>
                        <tbody>
                            for u in units.iter() {
                                <tr data-arm={u.resumed.clone()}>
                                    <th scope="row" title={u.resumed.clone()}>{u.label.clone()}</th>
                                    <td class="num">{match u.wall_ci {
                                        Some(ci) => format!("{} {}", fmt_ratio(u.wall), fmt_ci_ratio(ci)),
                                        None => fmt_ratio_ci(u.wall, None),
                                    }}</td>
                                    <td class="num">{opt_x(u.instructions.client)}</td>
                                    <td class="num">{fmt_ratio(u.instructions.server)}</td>
                                    <td class="num">{opt_x(u.instructions.both)}</td>
                                </tr>
                            }
                        </tbody>
                    </table>
                </div>
            }
        </div>
    }
}

fn bars_empty(spec: &ChartSpec) -> bool {
    matches!(spec, ChartSpec::Percentiles(b, ..) if b.iter().all(|b| b.percentiles.is_none()))
}

fn speedups_any(spec: &ChartSpec) -> bool {
    matches!(spec, ChartSpec::Speedups(b) if !b.is_empty())
}
