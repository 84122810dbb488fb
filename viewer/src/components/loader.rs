//! Getting evidence text into the page: the start-up load (index or `?run=`), local files
//! from the file picker or drag-and-drop. Parsing and validation happen in the data layer.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{DragEvent, File, FileList, HtmlInputElement};
use yew::prelude::*;

use crate::data::index::{check_relative, entry_url, RunIndex, DEFAULT_INDEX_URL};

/// A source (URL or file name) and its text, or why it could not be read.
pub type Fetched = (String, Result<String, String>);

async fn fetch_text(url: &str) -> Result<String, String> {
    let resp = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| format!("could not fetch: {e}"))?;
    if !resp.ok() {
        return Err(format!(
            "could not fetch: HTTP {} {}",
            resp.status(),
            resp.status_text()
        ));
    }
    resp.text()
        .await
        .map_err(|e| format!("could not read the response: {e}"))
}

/// The `run` query parameter of the page URL, if any.
fn run_param() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get("run")
}

/// What the page loads at start: the file named by `?run=` alone, or every file listed
/// in `results/index.json`, fetched concurrently. Failures come back as values.
pub async fn initial_load() -> Vec<Fetched> {
    if let Some(url) = run_param() {
        if let Err(e) = check_relative(&url) {
            return vec![(url, Err(e))];
        }
        let text = fetch_text(&url).await;
        return vec![(url, text)];
    }
    let index = match fetch_text(DEFAULT_INDEX_URL).await {
        Ok(text) => RunIndex::from_json(&text),
        Err(e) => Err(e),
    };
    let index = match index {
        Ok(index) => index,
        Err(e) => return vec![(DEFAULT_INDEX_URL.to_string(), Err(e))],
    };
    let loads = index.runs.iter().map(|entry| async move {
        match entry_url(DEFAULT_INDEX_URL, &entry.file) {
            Ok(url) => {
                let text = fetch_text(&url).await;
                (url, text)
            }
            Err(e) => (entry.file.clone(), Err(e)),
        }
    });
    futures::future::join_all(loads).await
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
        <div id="drop-zone" class={classes!("loader", dragging.then_some("dragging"))}
             {ondragover} {ondragleave} {ondrop}>
            <label>
                {"Add evidence files "}
                <input id="file-input" type="file" accept=".json,application/json" multiple=true {onchange} />
            </label>
            <span class="hint">
                {" or drop them here. One file by URL: "}
                <code>{"?run=results/<run-id>.json"}</code>
            </span>
        </div>
    }
}
