//! The run comparison's verdicts as text, under the "one arm across runs" chart.

use std::rc::Rc;

use yew::prelude::*;

use crate::data::format::{fmt_ci_ratio, fmt_ratio};
use crate::data::load::RunSet;
use crate::data::verdicts::run_verdicts;

#[derive(Properties, PartialEq)]
pub struct VerdictsProps {
    pub runs: Rc<RunSet>,
    pub arm: AttrValue,
}

/// Each visible run against the first one: ratio, CI and verdict (the bootstrap runs
/// again only when the arm, the visible runs or the samples fetched change).
#[component]
pub fn Verdicts(props: &VerdictsProps) -> Html {
    let keys: Vec<u32> = props.runs.visible().map(|r| r.key).collect();
    let runs = props.runs.clone();
    // Arms' samples arrive after the summaries: their number is part of what decides.
    let fetched = props.runs.samples.len();
    let rows = use_memo((props.arm.clone(), keys, fetched), move |(arm, _, _)| {
        run_verdicts(&runs, arm)
    });
    if rows.is_empty() {
        return html! {};
    }
    html! {
        <ul class="verdicts" aria-label="each run's p50 against the first run's">
            for r in rows.iter() {
                <li data-verdict={r.verdict.clone()}>
                    {format!(
                        "{}: {} {} of the first run's p50: {}",
                        r.run,
                        fmt_ratio(r.ratio),
                        r.ci.map(fmt_ci_ratio).unwrap_or_default(),
                        r.verdict
                    )}
                </li>
            }
        </ul>
    }
}
