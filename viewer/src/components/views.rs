//! The views a run has only when its evidence has the data for them: stacks (peer
//! arms), the cert × group grid, capacity under concurrency, TTFB against RTT, round
//! trips against the server's first flight, and time against loss.

use std::rc::Rc;

use yew::prelude::*;

use super::canvas::Chart;
use crate::charts::spec::ChartSpec;
use crate::charts::Scale;
use crate::data::filter::ArmFilter;
use crate::data::flights::flight_chart;
use crate::data::format::{fmt_ratio, fmt_us};
use crate::data::load::LoadedRun;
use crate::data::matrix::{matrices, Matrix};
use crate::data::open_loop::{sweep_tables, SweepTable, HEAD as OPEN_LOOP_HEAD};
use crate::data::phases::{waterfalls, Waterfall};
use crate::data::ranking::{rankings, Ranking, HEAD as RANKING_HEAD};
use crate::data::series::{capacity_lines, ttfb_lines, CapacityMetric};
use crate::data::stacks::{stack_latencies, stack_speedups, StackSpeedup};

pub struct ViewsProps {
    pub run: LoadedRun,
    pub filter: ArmFilter,
    pub scale: Scale,
}

/// A plain function, not a component: its only caller, `RunColumn`, is a component with
/// the same inputs, so it redraws exactly when this would (and a component of its own
/// compiles its own copy of yew's lifecycle code).
pub fn run_views(props: &ViewsProps) -> Html {
    let ev = &props.run.evidence;
    let f = &props.filter;
    let key = props.run.key;
    let stack_rows = stack_latencies(ev, f);
    let speedups = stack_speedups(ev, f);
    let grids = matrices(ev, f);
    let rate = capacity_lines(ev, f, CapacityMetric::Rate);
    let p99 = capacity_lines(ev, f, CapacityMetric::P99);
    let ttfb = ttfb_lines(ev, f);
    let flights = flight_chart(ev, f);
    let falls = waterfalls(ev, f);
    let sweeps = sweep_tables(ev, f);
    let ranked = rankings(ev, f);
    // (id, heading, what it shows, data): one `<Chart>` in a loop rather than one per
    // view keeps the generated markup code small.
    let mut charts: Vec<super::loss::ViewChart> = Vec::new();
    if !stack_rows.is_empty() {
        charts.push((
            "stacks",
            "Stacks: full handshake beside the stack's own TCP connect (else the kernel's)",
            "full-handshake p50 per stack beside that stack's TCP connect p50",
            ChartSpec::StackLatency(stack_rows, props.scale),
        ));
    }
    if !speedups.is_empty() {
        charts.push((
            "stack-speedups",
            "Stacks: resume speedups",
            "resume speedup per stack: latency ratios and openssl s_time rate ratios",
            ChartSpec::StackSpeedups(speedups.clone()),
        ));
    }
    if !rate.is_empty() {
        charts.push((
            "capacity-rate",
            "Capacity under concurrency: handshakes per second",
            "handshakes per second against concurrent clients, full and resumed",
            ChartSpec::Capacity(rate, CapacityMetric::Rate),
        ));
        charts.push((
            "capacity-p99",
            "Capacity under concurrency: p99 latency",
            "p99 latency against concurrent clients, full and resumed",
            ChartSpec::Capacity(p99, CapacityMetric::P99),
        ));
    }
    if !ttfb.is_empty() {
        // A run with --handshake-window times connect + handshake on its links, no TTFB.
        let (title, what) = if ev.arms.iter().any(|a| a.rtt_ms.is_some() && a.ttfb) {
            (
                "Time to first byte against round-trip time",
                "p50 time to first byte per arm against the emulated RTT, with 1-4 RTT guides",
            )
        } else {
            (
                "Handshake time against round-trip time",
                "p50 TCP connect + handshake per arm against the emulated RTT, with 1-4 RTT guides",
            )
        };
        charts.push(("ttfb", title, what, ChartSpec::Ttfb(ttfb)));
    }
    if let Some(c) = flights {
        charts.push((
            "flights",
            "Round trips against the server's first flight",
            "per full-handshake arm over the emulated link, its p50 (time to first byte, or connect + handshake with --handshake-window) in round trips of its own path against the median bytes of the server's first flight, with the initial congestion window the servers' sockets reported (a flight past it waits for an ACK: one round trip more)",
            ChartSpec::Flights(c),
        ));
    }
    charts.extend(super::loss::loss_charts(ev, f));
    if !falls.is_empty() {
        charts.push((
            "phases",
            "Where the time goes: each handshake phase by phase",
            "per arm, the measured critical path (connect, client work, server work, flights in transit) above the model's parts (public-key floor darker, each flight's modelled hop), with the traced connections' median as a tick",
            ChartSpec::Waterfall(falls.clone()),
        ));
    }
    // What an export of each chart names as its source.
    let [run_id, host, date, conditions] = super::canvas::source(ev);
    html! {<>
        for (id, title, label, spec) in charts {
            <Chart id={format!("chart-{id}-{key}")} title={AttrValue::from(title.to_string())}
                   label={label.to_string()} spec={Rc::new(spec)}
                   run={run_id.clone()} host={host.clone()} date={date.clone()}
                   conditions={conditions.clone()} />
        }
        if !speedups.is_empty() { {speedup_table(&speedups)} }
        if !ranked.is_empty() {
            <section class="rankings" id={format!("ranking-{key}")}>
                <h3>{"Stacks ranked: full handshake per protocol × certificate"}</h3>
                <p class="hint">{"Rank 1 + the number of stacks whose whole 95% interval of the median lies below this one's: stacks whose intervals overlap share a rank. Each stack's arms ran in rounds of their own, so a shift of the whole machine between them is not in the intervals."}</p>
                for r in ranked.iter() { {ranking_table(r)} }
            </section>
        }
        <div id={format!("grid-{key}")}>
            for grid in grids.iter() { {grid_table(grid)} }
        </div>
        if !falls.is_empty() { {phase_table(&falls)} }
        for t in sweeps.iter() { {sweep_table(t)} }
    </>}
}

/// One open-loop sweep: its knee in words, then a row per offered rate.
fn sweep_table(t: &SweepTable) -> Html {
    cells_table(
        "open-loop",
        format!("Open-loop capacity: {}", t.label),
        format!("Knee: {}", t.knee),
        Some(t.caption.clone()),
        &OPEN_LOOP_HEAD,
        &t.rows,
        &[],
    )
}

/// One protocol × certificate cell of the stack ranking: its verdict, what else differs
/// between the rows, then a row per arm, fastest first.
fn ranking_table(r: &Ranking) -> Html {
    cells_table(
        "ranking",
        r.label.clone(),
        format!("{} {}", r.verdict, r.differs),
        None,
        &RANKING_HEAD,
        &r.rows,
        &r.arms,
    )
}

/// A titled table of text cells, (class, text) each, with a sentence above it; rows
/// carry `data-arm` where `arms` names them. One function for every such table keeps
/// the generated markup code small.
fn cells_table(
    class: &'static str,
    title: String,
    lead: String,
    caption: Option<String>,
    head: &[&str],
    rows: &[Vec<(&'static str, String)>],
    arms: &[String],
) -> Html {
    html! {
        <div {class}>
            <h4>{title}</h4>
            <p class="lead">{lead}</p>
            <table class={format!("arms {class}")}>
                if let Some(c) = caption { <caption>{c}</caption> }
                <thead><tr>
                    for h in head { <th scope="col">{*h}</th> }
                </tr></thead>
                <tbody>
                for (i, r) in rows.iter().enumerate() {
                    <tr data-arm={arms.get(i).cloned()}>
                        {r.iter().map(|(c, text)| td(c, None, text.clone())).collect::<Html>()}
                    </tr>
                }
                </tbody>
            </table>
        </div>
    }
}

/// "Where the time goes" as a table: the traced median, the model's prediction and parts.
fn phase_table(rows: &[Waterfall]) -> Html {
    let head = [
        "arm",
        "traced median",
        "predicted (× traced median)",
        "connect",
        "client work (floor)",
        "server work (floor)",
        "hops × mean modelled hop (measured)",
        "model",
    ];
    html! {
        <details class="phases" open=true>
            <summary>{"Where the time goes: as a table"}</summary>
            <table class="arms phases">
                <thead><tr>
                    for h in head { <th scope="col">{h}</th> }
                </tr></thead>
                <tbody>
                for r in rows {
                    <tr data-arm={r.arm.clone()}>
                        {phase_cells(r).into_iter().map(|(c, t)| td(c, None, t)).collect::<Html>()}
                    </tr>
                }
                </tbody>
            </table>
        </details>
    }
}

/// The table's cells for one arm: (class, text).
fn phase_cells(r: &Waterfall) -> Vec<(&'static str, String)> {
    let part = |i: usize| r.model.get(i).map_or(0.0, |p| p.1);
    vec![
        ("", r.arm.clone()),
        ("num", fmt_us(r.measured_p50)),
        (
            "num",
            format!("{} ({})", fmt_us(r.predicted), fmt_ratio(r.ratio)),
        ),
        ("num", fmt_us(part(0))),
        (
            "num",
            format!("{} ({})", fmt_us(part(1) + part(2)), fmt_us(part(1))),
        ),
        (
            "num",
            format!("{} ({})", fmt_us(part(3) + part(4)), fmt_us(part(3))),
        ),
        (
            "num",
            format!(
                "{} × {} = {} ({})",
                r.hops,
                fmt_us(r.hop_us),
                fmt_us(part(5)),
                fmt_us(r.waiting_measured)
            ),
        ),
        match &r.miss {
            Some(m) => ("error", m.clone()),
            None => ("", "within 10% of p50".into()),
        },
    ]
}

/// The stack speedups as text, one line per chart row (also what tests read).
fn speedup_table(rows: &[StackSpeedup]) -> Html {
    html! {
        <details class="stack-speedups">
            <summary>{"as text"}</summary>
            <ul>
                for r in rows {
                    <li data-arm={r.arm.clone()}
                        class={r.no_speedup.is_some().then_some("error")}>
                        {speedup_text(r)}
                    </li>
                }
            </ul>
        </details>
    }
}

/// `stack · arm: 2.40× (p50 full / resumed)`, the rate ratios, or why there is none.
fn speedup_text(r: &StackSpeedup) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (ratio, what) in [
        (r.latency, "p50 full / resumed"),
        (r.rate_real, "rate per wall-clock s"),
        (
            r.rate_user,
            "rate per user-CPU second of the s_time client process",
        ),
    ] {
        if let Some(v) = ratio {
            parts.push(format!("{} ({what})", fmt_ratio(v.value)));
        }
    }
    let what = match &r.no_speedup {
        Some(why) => why.to_string(),
        None => parts.join(", "),
    };
    format!("{} · {}: {what}", r.stack, r.arm)
}

/// A table cell with text, optional class and style (one place, so the markup code is
/// generated once).
fn td(class: &'static str, style: Option<String>, text: String) -> Html {
    html! { <td {class} {style}>{text}</td> }
}

/// The cert × group grid as a shaded table (light: fastest, dark: slowest p50).
fn grid_table(m: &Matrix) -> Html {
    let cell = |p50: &Option<f64>| match p50 {
        Some(v) => {
            let light = 96.0 - 36.0 * m.shade(*v);
            let style = format!("background:hsl(210,70%,{light:.0}%)");
            td("num cell", Some(style), fmt_us(*v))
        }
        None => td("num cell", None, "–".into()),
    };
    let pq = |i: usize| {
        let ratio = m.pq_ratio.get(i).copied().flatten();
        td(
            "num pq",
            None,
            ratio.map(fmt_ratio).unwrap_or_else(|| "–".into()),
        )
    };
    let pq_column = m.pq_ratio.iter().any(Option::is_some);
    html! {
        <div class="grid-wrap">
            <h4>{format!("Full handshake p50 by cert × group ({})", m.protocol)}</h4>
            <table class="grid arms" data-protocol={m.protocol.to_string()}>
                <thead><tr>
                    <th>{"cert \\ group"}</th>
                    for g in m.groups.iter() { <th>{g.to_string()}</th> }
                    if pq_column { <th>{"PQ cost (x25519mlkem768 / x25519 p50)"}</th> }
                </tr></thead>
                <tbody>
                for (i, c) in m.certs.iter().enumerate() {
                    <tr>
                        <th>{c.to_string()}</th>
                        for v in m.cells.get(i).into_iter().flatten() { {cell(v)} }
                        if pq_column { {pq(i)} }
                    </tr>
                }
                </tbody>
            </table>
        </div>
    }
}
