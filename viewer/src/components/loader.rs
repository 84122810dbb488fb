//! Getting evidence text into the page: the start-up load (index or `?run=`), local files
//! from the file picker or drag-and-drop. Parsing and validation happen in the data layer.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{DragEvent, File, FileList, HtmlInputElement};
use yew::prelude::*;

use shared::History;

use crate::data::index::{check_relative, entry_url, HISTORY_URL};

/// A source (URL or file name) and its text, or why it could not be read.
pub type Fetched = (String, Result<String, String>);

/// What the start-up load found: a site's history (its runs known in brief), and files
/// fetched whole (`?run=`, or the files the history lists as unreadable, so that their
/// own errors show).
pub struct Start {
    pub history: Option<History>,
    pub files: Vec<Fetched>,
    /// The head of the run the page opens on, as the site named it (`<link
    /// id="landing-head">`): the first view draws the headline from it.
    pub head: Option<Fetched>,
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The page's `hlabText(url)` (index.html): the browser's `fetch`, and the file's text,
    /// gunzipped when it is gzip (a site's results are `.gz`).
    #[wasm_bindgen(catch, js_namespace = window, js_name = hlabText)]
    fn hlab_text(url: &str) -> Result<js_sys::Promise, JsValue>;
}

/// GETs `url` (relative to the page) as text, through the page's `hlabText`: the
/// browser's `fetch` and `DecompressionStream` (no HTTP or gzip code in the wasm).
async fn fetch_text(url: &str) -> Result<String, String> {
    let fetched =
        JsFuture::from(hlab_text(url).map_err(|e| format!("could not fetch: {}", js_error(e)))?)
            .await
            .map_err(|e| format!("could not fetch: {}", js_error(e)))?;
    fetched
        .as_string()
        .ok_or_else(|| "could not read the response: it is not text".into())
}

/// A JavaScript error's message (`HTTP 404 Not Found`, `Failed to fetch`).
fn js_error(e: JsValue) -> String {
    match e.dyn_into::<js_sys::Error>() {
        Ok(e) => String::from(e.message()),
        Err(v) => format!("{v:?}"),
    }
}

/// The `run` query parameter of the page URL, if any.
fn run_param() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get("run")
}

/// The head the site named for the run the page opens on (`<link id="landing-head">`,
/// preloaded by the browser). The page's own markup, written by `cargo xtask site` from
/// its own file names: not a URL from a file or the address bar, so not checked as those
/// are; the head fetched is checked as evidence of the run it is named for.
fn landing_head() -> Option<String> {
    web_sys::window()?
        .document()?
        .get_element_by_id("landing-head")?
        .get_attribute("href")
}

/// `url` resolved against the page by the browser's own parser: refused unless it stays
/// on the page's origin (a second check behind [`check_relative`]).
fn same_origin(url: String) -> Result<String, String> {
    let location = web_sys::window().ok_or("no window")?.location();
    let page = location.href().map_err(|_| "no page URL")?;
    let resolved =
        web_sys::Url::new_with_base(&url, &page).map_err(|_| format!("`{url}` is not a URL"))?;
    if Ok(resolved.origin()) != location.origin() {
        return Err(format!(
            "`{url}` leaves this site; only files of this site are loaded"
        ));
    }
    Ok(url)
}

/// Loads what the page shows at start: the file named by `?run=` alone, else the site's
/// `results/history.json` (every run in brief: the page then fetches the summary of each
/// run a view shows, starting with the newest) and, whole, the files it lists as
/// unreadable (so that their own errors show). `on_loaded` gets it all at once (so the
/// page renders once); failures come back as values.
pub fn initial_load(on_loaded: Callback<Start>) {
    spawn_local(async move {
        let (history, mut urls) = match start_urls().await {
            Ok(found) => found,
            Err(failure) => (None, vec![Err(failure)]),
        };
        // The landing run's head is fetched with the files, last.
        let head = history.is_some().then(landing_head).flatten();
        let with_head = head.is_some();
        urls.extend(head.map(Ok));
        // Emitted once: the history moves out then (no copy of 1,000 briefs).
        let history = RefCell::new(history);
        fetch_all(
            urls,
            Callback::from(move |mut files: Vec<Fetched>| {
                let head = if with_head { files.pop() } else { None };
                on_loaded.emit(Start {
                    history: history.take(),
                    files,
                    head,
                })
            }),
        );
    });
}

/// The history (none for `?run=`) and the URLs to fetch whole (or, as `Err`, what is
/// already known of one); or the failure that prevents knowing them.
async fn start_urls() -> Result<(Option<History>, Vec<Result<String, Fetched>>), Fetched> {
    if let Some(url) = run_param() {
        let one = match check_relative(&url).and_then(same_origin) {
            Ok(clean) => Ok(clean),
            Err(e) => Err((url, Err(e))),
        };
        return Ok((None, vec![one]));
    }
    let history = fetch_text(HISTORY_URL)
        .await
        .map_err(|e| format!("{e} (`cargo xtask site` writes it beside the evidence)"))
        .and_then(|text| History::from_json(&text))
        .map_err(|e| (HISTORY_URL.to_string(), Err(e)))?;
    let unreadable = history
        .unreadable
        .iter()
        .map(|f| entry_url(HISTORY_URL, f).map_err(|e| (f.clone(), Err(e))))
        .collect();
    Ok((Some(history), unreadable))
}

/// Fetches `urls` (whole files a view needs samples of, or summaries of runs a view
/// shows) concurrently; `on_loaded` gets them all at once.
pub fn fetch_urls(sources: Vec<String>, on_loaded: Callback<Vec<Fetched>>) {
    fetch_all(sources.into_iter().map(Ok).collect(), on_loaded);
}

/// Fetches every URL concurrently (one task each; no join combinator, which would cost
/// wasm size) and emits all results, in the given order, when the last one is in.
fn fetch_all(urls: Vec<Result<String, Fetched>>, on_loaded: Callback<Vec<Fetched>>) {
    if urls.is_empty() {
        return on_loaded.emit(Vec::new());
    }
    let slots: Rc<RefCell<Vec<Option<Fetched>>>> = Rc::new(RefCell::new(vec![None; urls.len()]));
    for (i, url) in urls.into_iter().enumerate() {
        let slots = slots.clone();
        let on_loaded = on_loaded.clone();
        spawn_local(async move {
            let fetched = match url {
                Ok(url) => {
                    let text = fetch_text(&url).await;
                    (url, text)
                }
                Err(failure) => failure,
            };
            let all_in = {
                let mut slots = slots.borrow_mut();
                slots[i] = Some(fetched);
                slots.iter().all(Option::is_some)
            };
            if all_in {
                let all = slots.borrow_mut().drain(..).flatten().collect();
                on_loaded.emit(all);
            }
        });
    }
}

async fn read_files(files: Vec<File>) -> Vec<Fetched> {
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        let text = match JsFuture::from(file.text()).await {
            Ok(v) => v
                .as_string()
                .ok_or_else(|| "the file did not read as text".to_string()),
            Err(e) => Err(format!("could not read the file: {e:?}")),
        };
        out.push((file.name(), text));
    }
    out
}

fn files_of(list: Option<FileList>) -> Vec<File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

#[derive(Properties, PartialEq)]
pub struct LoaderProps {
    pub on_loaded: Callback<Vec<Fetched>>,
}

/// File picker and drop zone for local evidence files.
#[component]
pub fn Loader(props: &LoaderProps) -> Html {
    let dragging = use_state(|| false);
    let load = {
        let on_loaded = props.on_loaded.clone();
        move |files: Vec<File>| {
            if files.is_empty() {
                return;
            }
            let on_loaded = on_loaded.clone();
            spawn_local(async move { on_loaded.emit(read_files(files).await) });
        }
    };
    let onchange = {
        let load = load.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            load(files_of(input.files()));
            input.set_value("");
        })
    };
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(true);
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let ondrop = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            load(files_of(e.data_transfer().and_then(|d| d.files())));
        })
    };
    html! {
        <div id="drop-zone" class={if *dragging { "loader dragging" } else { "loader" }}
             {ondragover} {ondragleave} {ondrop}>
            <label>
                {"Add evidence files "}
                <input id="file-input" type="file" accept=".json,application/json" multiple=true {onchange} />
            </label>
            <span class="hint">
                {" or drop them here. One file by URL: "}
                <code>{"?run=results/<run-id>.json.gz"}</code>
            </span>
        </div>
    }
}
