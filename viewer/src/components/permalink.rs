//! The page state in the address bar (see [`crate::data::permalink`]): read once at
//! start, rewritten in place (`history.replaceState`, so no history entry per click).

use std::rc::Rc;

use yew::prelude::*;

use crate::data::derive::ArmRef;
use crate::data::filter::ArmFilter;
use crate::data::load::RunSet;
use crate::data::permalink::{merge_query, Permalink};

/// The state named by the page's URL (the default state when there is none).
pub fn read() -> Permalink {
    let search = web_sys::window().and_then(|w| w.location().search().ok());
    Permalink::parse(&search.unwrap_or_default())
}

/// Puts `query` (this page's state) into the URL, keeping the path, the other
/// parameters and the fragment.
fn write(query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let (Ok(path), Ok(search), Ok(hash)) =
        (location.pathname(), location.search(), location.hash())
    else {
        return;
    };
    let query = merge_query(&search, query);
    let url = match query.is_empty() {
        true => format!("{path}{hash}"),
        false => format!("{path}?{query}{hash}"),
    };
    if url != format!("{path}{search}{hash}") {
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }
}

/// The state the link sets once the start-up load is in.
pub struct Targets {
    pub filter: UseStateHandle<ArmFilter>,
    pub picked: UseStateHandle<Option<Vec<ArmRef>>>,
    pub arm: UseStateHandle<Option<String>>,
    pub hide: Callback<u32>,
    pub detail: UseStateHandle<Vec<u32>>,
    pub view: UseStateHandle<Option<u32>>,
    pub cmp: UseStateHandle<Option<(u32, u32)>>,
}

/// Applies `link` when the start-up load is done (`ready`), once; from then on keeps
/// the URL's state equal to `now`, the page's current state as a query.
#[hook]
pub fn use_permalink(
    link: Rc<Permalink>,
    set: Rc<RunSet>,
    ready: bool,
    targets: Targets,
    now: String,
) {
    let applied = use_mut_ref(|| false);
    {
        let applied = applied.clone();
        use_effect_with(ready, move |ready| {
            if *ready && !*applied.borrow() {
                targets.filter.set(link.filter(&set));
                if link.picks.is_some() {
                    targets.picked.set(link.picks(&set));
                }
                if let Some(arm) = link.arm(&set) {
                    targets.arm.set(Some(arm));
                }
                let detail = link.detail_keys(&set);
                if !detail.is_empty() {
                    targets.detail.set(detail);
                }
                if let Some(k) = link.view_key(&set) {
                    targets.view.set(Some(k));
                }
                if let Some(p) = link.cmp_keys(&set) {
                    targets.cmp.set(Some(p));
                }
                for key in link.hidden_keys(&set) {
                    targets.hide.emit(key);
                }
                *applied.borrow_mut() = true;
            }
        });
    }
    use_effect_with(now, move |now| {
        if *applied.borrow() {
            write(now);
        }
    });
}

/// A link to a part of the page (`…#findings`, `…#table-section`) scrolls there once that
/// part is drawn: the sections come after the viewer has started, too late for the
/// browser's own jump at load. Tried after each render until the part is on the page;
/// a link without a fragment, or one whose part was found, leaves scrolling to the reader.
#[hook]
pub fn use_fragment() {
    let pending = use_mut_ref(|| {
        web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .map(|h| h.trim_start_matches('#').to_string())
            .filter(|h| !h.is_empty())
    });
    use_effect(move || {
        let id = pending.borrow().clone();
        let found = id
            .as_deref()
            .and_then(|id| web_sys::window()?.document()?.get_element_by_id(id));
        if let Some(part) = found {
            part.scroll_into_view();
            *pending.borrow_mut() = None;
        }
    });
}
