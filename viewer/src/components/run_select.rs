//! A drop-down of runs, newest first, a page of [`PAGE`] at a time: the run picker on top
//! and the two of "What changed". A history of a thousand runs is not a thousand options;
//! "older runs" and "newer runs" page through it, and the run chosen stays in the list
//! whichever page is open.

use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::data::format::short;
use crate::data::load::{short_time, HistoryRun};
use crate::data::pages::{thousands, Page, PAGE};

/// `default run · host · 2026-12-01 02:15:00`: a run as the drop-downs name it.
pub fn run_words(r: &HistoryRun) -> String {
    let b = &r.brief.run;
    let kind = b.kind.map_or("run", |k| k.words());
    let cut = if b.complete { "" } else { " · interrupted" };
    format!(
        "{kind} · {} · {}{cut}",
        short(&b.host),
        short(&short_time(&b.started_at))
    )
}

#[derive(Properties, PartialEq)]
pub struct RunSelectProps {
    pub id: AttrValue,
    /// The runs to pick from, newest first: (key, words).
    pub runs: Vec<(u32, String)>,
    pub chosen: Option<u32>,
    /// The first line while nothing is chosen (e.g. "pick a run").
    #[prop_or_default]
    pub placeholder: Option<AttrValue>,
    pub on_pick: Callback<u32>,
}

const OLDER: &str = "older";
const NEWER: &str = "newer";

#[component]
pub fn RunSelect(props: &RunSelectProps) -> Html {
    let page = use_state(|| 0usize);
    let at = Page::of(props.runs.len(), *page, PAGE);
    let on_change = {
        let (on_pick, page, chosen) = (props.on_pick.clone(), page.clone(), props.chosen);
        let n = at.page;
        Callback::from(move |e: Event| {
            let Some(select) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
            else {
                return;
            };
            let value = select.value();
            let to = match value.as_str() {
                OLDER => n + 1,
                NEWER => n.saturating_sub(1),
                _ => {
                    if let Ok(k) = value.parse::<u32>() {
                        on_pick.emit(k);
                    }
                    return;
                }
            };
            // Paging picks nothing: the box goes back to the run chosen (or the
            // placeholder), and opens on the next page's runs.
            match chosen {
                Some(k) => select.set_value(&k.to_string()),
                None => select.set_selected_index(0),
            }
            page.set(to);
        })
    };
    let shown = &props.runs[at.items.clone()];
    let chosen_off_page = props
        .chosen
        .and_then(|k| props.runs.iter().find(|(key, _)| *key == k))
        .filter(|(k, _)| !shown.iter().any(|(s, _)| s == k));
    let later = props.runs.len() - at.items.end;
    html! {
        <select id={props.id.clone()} onchange={on_change}>
            if props.chosen.is_none() {
                if let Some(p) = &props.placeholder {
                    <option selected=true disabled=true>{p.clone()}</option>
                }
            }
            if let Some((k, words)) = chosen_off_page {
                <option value={k.to_string()} selected=true>{words.clone()}</option>
            }
            if at.page > 0 {
                <option value={NEWER}>{format!("▴ newer runs ({} more)", thousands(at.items.start))}</option>
            }
            for (k, words) in shown.iter() {
                <option value={k.to_string()} selected={props.chosen == Some(*k)}>{words.clone()}</option>
            }
            if later > 0 {
                <option value={OLDER}>{format!("▾ older runs ({} more)", thousands(later))}</option>
            }
        </select>
    }
}
