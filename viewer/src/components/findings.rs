//! The answer first: the newest shown run's findings, each linked to the chart behind it.

use yew::prelude::*;

use super::export::download_text;
use crate::data::csv::findings_csv;
use crate::data::findings::{findings, Finding};
use crate::data::glossary::before_findings;
use crate::data::load::LoadedRun;
use crate::data::markdown::findings_markdown;

pub struct FindingsProps {
    pub run: LoadedRun,
}

/// The findings of one list; `seen`: the glossary terms linked before on the page, so
/// only a term's first use links to its entry.
fn items(list: &[Finding], key: u32, headline: bool, seen: &mut Vec<&'static str>) -> Html {
    list.iter()
        .filter(|f| f.headline == headline)
        .map(|f| {
            let (href, name) = f.topic.target(f.headline, key);
            html! {
                <li data-kind={f.topic.kind()} data-values={values(f)}>
                    {super::termed(&f.text, seen)}{" "}<a {href}>{name}</a>
                </li>
            }
        })
        .collect()
}

/// A finding's numbers as data beside its sentence, for scripts and tests that read the
/// page: `arm|metric|value` per number, `;` between them (the same numbers as the
/// findings' CSV).
fn values(f: &Finding) -> String {
    f.data
        .iter()
        .map(|d| format!("{}|{}|{}", d.arm, d.metric, d.value))
        .collect::<Vec<_>>()
        .join(";")
}

pub fn findings_section(props: &FindingsProps) -> Html {
    let run = &props.run;
    let list = findings(&run.evidence);
    let more = list.iter().filter(|f| !f.headline).count();
    let all = std::rc::Rc::new(list.clone());
    let conditions = crate::data::conditions::line(&run.evidence);
    let stem = crate::data::export::export_name("findings", "", &run.evidence.run.id, "");
    let mut seen = before_findings(&run.evidence);
    let download = move |markdown: bool| {
        let (all, stem, conditions) = (all.clone(), stem.clone(), conditions.clone());
        Callback::from(move |_: MouseEvent| match markdown {
            true => download_text(
                &findings_markdown(&all, &conditions),
                "text/markdown",
                &format!("{stem}md"),
            ),
            false => download_text(&findings_csv(&all), "text/csv", &format!("{stem}csv")),
        })
    };
    html! {
        <section id="findings" aria-labelledby="findings-h">
            <h2 id="findings-h">{"Findings"}</h2>
            <p class="hint">{"Of the run shown ("}{super::shown(&run.evidence.run.id)}{"): medians, each with the range that holds the true median with 95% confidence."}</p>
            if list.is_empty() {
                <p>{"The evidence of this run supports no finding."}</p>
            }
            <p>
                <button id="findings-md" onclick={download(true)}>{"Findings as Markdown"}</button>{" "}
                <button id="findings-csv" onclick={download(false)}>{"Findings as CSV"}</button>
            </p>
            <ul class="findings">{items(&list, run.key, true, &mut seen)}</ul>
            if more > 0 {
                <details>
                    <summary>{format!("{more} more findings")}</summary>
                    <ul class="findings">{items(&list, run.key, false, &mut seen)}</ul>
                </details>
            }
        </section>
    }
}
