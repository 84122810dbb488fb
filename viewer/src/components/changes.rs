//! "What changed": two runs compared arm by arm (see [`crate::data::changes`]), the
//! differences of setup first.

use std::rc::Rc;

use yew::prelude::*;

use super::run_select::{run_words, RunSelect};
use super::shown;
use crate::data::changes::{changes, ChangeRow};
use crate::data::format::{fmt_ci_ratio, fmt_ratio, fmt_us};
use crate::data::load::RunSet;
use crate::data::trend::in_time_order;

pub struct ChangesProps {
    pub runs: Rc<RunSet>,
    /// The pair compared (old, new), if any.
    pub pair: Option<(u32, u32)>,
    pub on_pair: Callback<(u32, u32)>,
}

fn row(r: &ChangeRow) -> Html {
    let (verdict, text) = match &r.change {
        Some(c) => (
            c.verdict.as_str(),
            format!(
                "{} {} — {}",
                fmt_ratio(c.ratio),
                c.ci.map(fmt_ci_ratio).unwrap_or_else(|| "(no CI)".into()),
                c.verdict
            ),
        ),
        None => (
            "",
            "not compared: the setups differ in a way that moves this arm".to_string(),
        ),
    };
    html! {
        <tr data-arm={r.arm.clone()} data-verdict={verdict}>
            <th scope="row">{shown(&r.arm)}</th>
            <td class="num">{fmt_us(r.old_p50)}</td><td class="num">{fmt_us(r.new_p50)}</td>
            <td>{text}</td>
        </tr>
    }
}

pub fn changes_section(props: &ChangesProps) -> Html {
    let mut runs = in_time_order(&props.runs);
    runs.reverse();
    let choices: Vec<(u32, String)> = runs.iter().map(|r| (r.key, run_words(r))).collect();
    let first = runs.first().map(|r| r.key);
    let select = |which: usize, id: &'static str| {
        let chosen = props.pair.map(|p| if which == 0 { p.0 } else { p.1 });
        let (on_pair, pair) = (props.on_pair.clone(), props.pair);
        let on_pick = Callback::from(move |k: u32| {
            let (old, new) = pair.unwrap_or((k, first.unwrap_or(k)));
            on_pair.emit(if which == 0 { (k, new) } else { (old, k) });
        });
        html! {
            <RunSelect {id} runs={choices.clone()} {chosen} placeholder="pick a run" {on_pick} />
        }
    };
    let find = |k: u32| props.runs.shown().find(|r| r.key == k);
    let result = props
        .pair
        .and_then(|(a, b)| Some(changes(find(a)?, find(b)?)))
        .filter(|_| props.pair.is_some_and(|(a, b)| a != b));
    html! {
        <section id="changes-section" aria-labelledby="changes-h">
            <h2 id="changes-h">{"What changed between two runs"}</h2>
            <p class="hint">{"Each arm both runs measured: the newer run's p50 as a multiple of the older one's, \
                with the range both runs' 95% intervals allow. Slower or faster is said only when that whole range \
                is above or below 1×."}</p>
            <p class="pair">
                <label for="changes-old">{"older "}</label>{select(0, "changes-old")}{" "}
                <label for="changes-new">{"newer "}</label>{select(1, "changes-new")}
            </p>
            if props.pair.is_none() {
                <p class="empty">{"No earlier run of the same setup and host as the run shown: pick two runs to compare."}</p>
            }
            if let Some(c) = result {
                if !c.differences.is_empty() {
                    <div id="setup-differences" class="differences">
                        <h3>{"The two runs were not measured alike"}</h3>
                        <ul>
                            for d in c.differences.iter() {
                                <li data-setting={d.name.clone()}>
                                    <strong>{d.label}</strong>{": "}
                                    {shown(d.values[0].as_deref().unwrap_or("not recorded"))}{" → "}
                                    {shown(d.values[1].as_deref().unwrap_or("not recorded"))}
                                    {match d.affects {
                                        shared::Affects::Every => " (moves every arm: no verdicts)",
                                        shared::Affects::PeerArms => " (moves the peer tools' arms: no verdicts for them)",
                                        shared::Affects::Nothing => " (the code measured: verdicts kept)",
                                    }}
                                </li>
                            }
                        </ul>
                    </div>
                }
                if let Some(why) = &c.conditions_apart {
                    <p id="conditions-apart" class="warning" role="note">
                        {format!("Inconclusive: {why}. No arm is called slower or faster between these two runs; measure both again on a quiet machine.")}
                    </p>
                }
                if let Some(w) = &c.shift {
                    <p class="warning" role="note">{w.clone()}</p>
                }
                if c.unmatched != (0, 0) {
                    <p class="hint">{format!("{} arms only in the older run, {} only in the newer one: not compared.", c.unmatched.0, c.unmatched.1)}</p>
                }
                <div class="table-wrap">
                    <table id="changes-table" class="arms">
                        <caption>{"Largest change first; arms the setups' differences move last, without a verdict."}</caption>
                        <thead><tr>
                            <th scope="col">{"arm"}</th><th scope="col">{"older p50"}</th>
                            <th scope="col">{"newer p50"}</th><th scope="col">{"newer ÷ older (95% range) — verdict"}</th>
                        </tr></thead>
                        <tbody>{c.rows.iter().map(row).collect::<Html>()}</tbody>
                    </table>
                </div>
            }
        </section>
    }
}
