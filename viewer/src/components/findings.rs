//! The answer first: the newest shown run's findings, each linked to the chart behind it.

use yew::prelude::*;

use super::export::download_text;
use crate::data::csv::findings_csv;
use crate::data::findings::{findings, Finding, Topic};
use crate::data::load::LoadedRun;
use crate::data::markdown::findings_markdown;

#[derive(Properties, PartialEq)]
pub struct FindingsProps {
    pub run: LoadedRun,
}

/// Where a finding's chart is on the page.
fn anchor(topic: Topic, key: u32) -> String {
    match topic.chart() {
        "arm-table" => "#table-section".into(),
        stem => format!("#chart-{stem}-{key}"),
    }
}

fn items(list: &[Finding], key: u32, headline: bool) -> Html {
    list.iter()
        .filter(|f| f.headline == headline)
        .map(|f| html! { <li>{f.text.clone()}{" "}<a href={anchor(f.topic, key)}>{"chart"}</a></li> })
        .collect()
}

#[component]
pub fn Findings(props: &FindingsProps) -> Html {
    let run = &props.run;
    let list = findings(&run.evidence);
    let more = list.iter().filter(|f| !f.headline).count();
    let sentences: Vec<String> = list.iter().map(|f| f.text.clone()).collect();
    let download = move |markdown: bool| {
        let sentences = sentences.clone();
        Callback::from(move |_: MouseEvent| match markdown {
            true => download_text(
                &findings_markdown(&sentences),
                "text/markdown",
                "findings.md",
            ),
            false => download_text(&findings_csv(&sentences), "text/csv", "findings.csv"),
        })
    };
    html! {
        <section id="findings" aria-labelledby="findings-h">
            <h2 id="findings-h">{"Findings"}</h2>
            <p class="hint">{"Run "}{super::shown(&run.evidence.run.id)}{": medians with their 95% CIs, written from the evidence."}</p>
            if list.is_empty() {
                <p>{"The evidence of this run supports no finding."}</p>
            }
            <p>
                <button id="findings-md" onclick={download(true)}>{"Findings as Markdown"}</button>{" "}
                <button id="findings-csv" onclick={download(false)}>{"Findings as CSV"}</button>
            </p>
            <ul class="findings">{items(&list, run.key, true)}</ul>
            if more > 0 {
                <details>
                    <summary>{format!("{more} more: other stacks and the hybrid's details")}</summary>
                    <ul class="findings">{items(&list, run.key, false)}</ul>
                </details>
            }
        </section>
    }
}
