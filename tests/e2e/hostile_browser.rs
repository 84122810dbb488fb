//! Every hostile evidence file in `tests/hostile/` (see its README) opened in real
//! headless Chromium with `?run=hostile/<file>` on a site built by `cargo xtask site`.
//! Each must end, within a deadline (no hang), in a visible error naming the file
//! (`error-*`) or in a render of its arms (`render-*`); never in the viewer's panic
//! message, and never with markup from the file turned into elements.

use std::path::PathBuf;
use std::sync::OnceLock;

use e2e::site::{build_site, Server};
use e2e::webdriver::Browser;
use e2e::{root, scratch};
use serde_json::{json, Value};
use shared::Evidence;

/// The site (built from the hostile base run) with every hostile file under `hostile/`.
fn site() -> &'static PathBuf {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(|| e2e::fixture::shared_fixture("hostile-browser", build).join("www"))
}

fn build(dir: &std::path::Path) {
    let hostile = root().join("tests").join("hostile");
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::copy(
        hostile.join("render-valid-base.json"),
        results.join("base.json"),
    )
    .unwrap();
    let www = dir.join("www");
    build_site(&results, &www);
    std::fs::create_dir_all(www.join("hostile")).unwrap();
    for entry in std::fs::read_dir(&hostile).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "json") {
            std::fs::copy(&path, www.join("hostile").join(path.file_name().unwrap())).unwrap();
        }
    }
}

fn hostile_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("tests").join("hostile"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

/// What the page ended in: `null` while it is still loading, else its state.
const STATE: &str = "
    if (document.getElementById('loading') || document.getElementById('boot')) return null;
    const panic = document.getElementById('panic');
    const errors = [...document.querySelectorAll('#load-errors li.load-error')];
    const runs = document.querySelectorAll('#run-list tbody tr').length;
    if (!errors.length && !runs && !(panic && !panic.hidden)) return null;
    return {
        panic: panic && !panic.hidden ? panic.textContent : null,
        errors: errors.map(li => [li.querySelector('.source').textContent,
                                  li.querySelector('.reason').textContent]),
        runs,
        rows: document.querySelectorAll('#arm-table tbody tr').length,
        host: (document.querySelector('#run-list td.host') || {}).textContent || null,
        host_title: ((document.querySelector('#run-list td.host .cut') || {}).title) || null,
        arms: [...document.querySelectorAll('#arm-table tbody th.arm code')].map(c => c.textContent),
        imgs: document.querySelectorAll('img').length,
        scripts: document.querySelectorAll('script').length,
        bold: [...document.querySelectorAll('b')].map(b => b.textContent),
        handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
    };";

/// Text as the page shows it: up to 120 characters, else the first 120 and `…`.
fn shown(text: &str) -> String {
    if text.chars().count() > 120 {
        format!("{}…", text.chars().take(120).collect::<String>())
    } else {
        text.to_string()
    }
}

#[test]
fn every_hostile_file_ends_in_an_error_naming_it_or_in_a_render_without_markup() {
    let names = hostile_names();
    assert!(names.len() >= 30, "only {} hostile files", names.len());
    let server = Server::start(site());
    // The page's own scripts, as served (its module and its inline script), counted in
    // the file: a hostile file must add none.
    let page = std::fs::read_to_string(site().join("index.html")).unwrap();
    let own_scripts = page.matches("<script").count();
    assert!(own_scripts >= 1, "{page}");
    let browser = Browser::start(scratch("chromium-hostile"), 1400, 1800, &[]);
    for name in &names {
        browser.goto(&format!("{}?run=hostile/{name}", server.url));
        // `wait_for` fails after its deadline: a page that never settles is a hang.
        let state = browser.wait_for(
            &format!("{name} to load or fail"),
            &format!("(() => {{ {STATE} }})()"),
        );
        assert_eq!(
            state["panic"],
            Value::Null,
            "{name}: the viewer panicked: {state}"
        );
        // Nothing from the file became an element: the page has no <img>, no <b>, no
        // inline handlers, and only its own <script>; no payload ran.
        assert_eq!(state["imgs"], json!(0), "{name}: {state}");
        assert_eq!(state["scripts"], json!(own_scripts), "{name}: {state}");
        assert_eq!(state["bold"], json!([]), "{name}: {state}");
        assert_eq!(state["handlers"], json!(0), "{name}: {state}");
        assert_eq!(state["pwned"], Value::Null, "{name}: {state}");
        let source = format!("hostile/{name}");
        if name.starts_with("error-") {
            let errors = state["errors"].as_array().unwrap();
            assert_eq!(errors.len(), 1, "{name}: {state}");
            assert_eq!(
                errors[0][0],
                json!(source),
                "{name}: the error names the file"
            );
            assert!(
                !errors[0][1].as_str().unwrap().is_empty(),
                "{name}: a reason"
            );
            assert_eq!(state["runs"], json!(0), "{name}: {state}");
        } else {
            // The strings the page must show, read with the evidence parser (what is
            // under test here is how the page shows them; tests/e2e/hostile.rs checks the
            // reading): bytes that are not UTF-8 as U+FFFD, as the page decodes them.
            let bytes = std::fs::read(root().join("tests/hostile").join(name)).unwrap();
            let ev = Evidence::from_json(&String::from_utf8_lossy(&bytes)).unwrap();
            assert_eq!(state["errors"], json!([]), "{name}: {state}");
            assert_eq!(state["runs"], json!(1), "{name}: {state}");
            assert_eq!(
                state["rows"],
                json!(ev.arms.len()),
                "{name}: one table row per arm"
            );
            // File text shows as the text it is (cut at 120 characters, whole on hover).
            let host = &ev.environment.hostname;
            assert_eq!(
                state["host"],
                json!(shown(host)),
                "{name}: host name as text"
            );
            if host.chars().count() > 120 {
                assert_eq!(
                    state["host_title"],
                    json!(host),
                    "{name}: the whole name on hover"
                );
            }
            let mut want: Vec<String> = ev.arms.iter().map(|a| shown(&a.id)).collect();
            let mut shown_ids: Vec<String> = state["arms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            shown_ids.sort();
            want.sort();
            assert_eq!(shown_ids, want, "{name}: arm ids as text");
        }
    }
}
