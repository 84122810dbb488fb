//! Yew function components: they hold the page state and arrange data and charts.

mod app;
mod canvas;
mod cdf;
mod changes;
mod controls;
mod export;
mod findings;
mod headline;
mod loader;
mod loss;
mod permalink;
mod run_select;
mod runs;
mod table;
mod trend;
mod verdicts;
mod views;

use yew::prelude::*;

use crate::data::format::{cut, SHOWN_CHARS};

/// Text from a file, cut to [`SHOWN_CHARS`] characters; the full text on hover (title).
pub(crate) fn shown(s: &str) -> Html {
    match cut(s, SHOWN_CHARS) {
        Some(head) => html! { <span class="cut" title={s.to_string()}>{head}{"…"}</span> },
        None => html! { {s} },
    }
}

/// `text` with each glossary term it uses first on the page (not in `seen`, which
/// gets them) linked to its entry.
pub(crate) fn termed(text: &str, seen: &mut Vec<&'static str>) -> Html {
    crate::data::glossary::first_uses(text, seen)
        .into_iter()
        .map(|(piece, term)| match term {
            Some(id) => html! { <a class="term" href={format!("#term-{id}")}>{piece}</a> },
            None => html! { {piece} },
        })
        .collect()
}

/// Renders the app into `#app` (or the body when the page has none).
pub fn mount() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<app::App>::with_root(root).render(),
        None => yew::Renderer::<app::App>::new().render(),
    };
}
