//! The table of every arm (sortable) and the CSV download of exactly what it shows.

use yew::prelude::*;

use super::export::download_text;
use super::shown;
use crate::data::csv::to_csv;
use crate::data::format::{fmt_ci_us, fmt_opt_us};
use crate::data::markdown::table_markdown;
use crate::data::table::{ArmRow, Sort, SortKey};

pub struct TableProps {
    /// Rows already filtered and sorted.
    pub rows: Vec<ArmRow>,
    pub sort: Sort,
    pub on_sort: Callback<SortKey>,
}

/// The table's caption. Of its terms, it links arm and efficiency to the glossary (the
/// findings above use the others, and seldom these).
const CAPTION: &str = "Every arm of the shown runs that passes the filters. Efficiency is \
    crypto floor / p50: the share of the median handshake that is public-key work. Resumed: \
    as each end counted; – where the server's end is not counted. Failed of attempted: \
    connections that failed, of those tried.";

pub fn arm_table(props: &TableProps) -> Html {
    // Made when clicked, from the rows shown then.
    let download = |markdown: bool| {
        let rows = props.rows.clone();
        Callback::from(move |_| match markdown {
            true => download_text(
                &table_markdown(&rows),
                "text/markdown;charset=utf-8",
                "handshake-lab-arms.md",
            ),
            false => download_text(
                &to_csv(&rows),
                "text/csv;charset=utf-8",
                "handshake-lab-arms.csv",
            ),
        })
    };
    let th = |key: SortKey| {
        let on_sort = props.on_sort.clone();
        let (mark, state) = match (props.sort.key == key, props.sort.descending) {
            (true, false) => (" ▲", "ascending"),
            (true, true) => (" ▼", "descending"),
            (false, _) => ("", "none"),
        };
        html! {
            <th scope="col" aria-sort={state}>
                <button class="sort" data-sort={key.header()} onclick={move |_| on_sort.emit(key)}>
                    {key.header()}{mark}
                </button>
            </th>
        }
    };
    html! {
        <section id="table-section">
            <h2>{"Every arm"}</h2>
            <p>
                <button id="csv-download" onclick={download(false)}>{"Download CSV"}</button>
                {" "}
                <button id="md-download" onclick={download(true)}>{"Download Markdown"}</button>
                <span class="hint">{" (the rows below; CSV latencies in µs, Markdown as shown)"}</span>
            </p>
            <div class="table-wrap">
            <table id="arm-table" class="arms">
                <caption>{super::termed(CAPTION, &mut crate::data::glossary::all_but(&["arm", "efficiency"]))}</caption>
                <thead><tr>
                    for key in SortKey::ALL { {th(key)} }
                </tr></thead>
                <tbody>
                    for row in &props.rows { {table_row(row)} }
                </tbody>
            </table>
            </div>
        </section>
    }
}

fn table_row(r: &ArmRow) -> Html {
    let numbers = match &r.no_result {
        Some(why) => html! {
            <td colspan="4" class={if why.is_error() { "no-result error" } else { "no-result" }}>
                {why.to_string()}
            </td>
        },
        None => html! {<>
            <td class="num p50">{fmt_opt_us(r.p50)}</td>
            <td class="num ci">{fmt_ci_us(r.p50_ci)}</td>
            <td class="num p95">{fmt_opt_us(r.p95)}</td>
            <td class="num p99">{fmt_opt_us(r.p99)}</td>
        </>},
    };
    html! {
        <tr data-arm={r.arm.clone()} data-run={r.run_key.to_string()}
            class={r.no_result.as_ref().is_some_and(|w| w.is_error()).then_some("error")}>
            <td>{r.run.clone()}</td>
            <th scope="row" class="arm"><code>{shown(&r.arm)}</code>
                if let Some(w) = &r.wire { <div class="wire hint">{w.clone()}</div> }
            </th>
            <td>{r.protocol.clone()}</td><td>{r.mode.clone()}</td>
            <td>{r.cert.clone()}</td><td>{r.group.clone()}</td>
            {numbers}
            <td class="num efficiency">{r.efficiency_text()}</td>
            <td class="num resumed" title={(r.resumed_client.is_none() || r.resumed_server.is_none()).then_some("-: that end did not count each connection (see the arm's `verified` record)")}>{r.resumed_text()}</td>
            <td class={if r.failed > 0 { "num error" } else { "num" }}>
                {format!("{} of {}", r.failed, r.attempted)}
            </td>
        </tr>
    }
}
