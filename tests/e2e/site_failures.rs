//! What the viewer does with files it cannot use or must not trust, in real headless
//! Chromium: a dropped file (a synthesised drag-and-drop), each kind of page error with
//! the file it names, and markup in arm ids, error strings, peer versions and file names
//! shown as text. The sites are copies of one built by `cargo xtask site` from a short
//! real run, each with its own `results/`.

use std::path::PathBuf;
use std::sync::OnceLock;

use e2e::fixture::{one_at_a_time, shared_fixture, Turn};
use e2e::site::{build_site, site_variant, Server};
use e2e::webdriver::Browser;
use e2e::{collector, scratch};
use serde_json::{json, Value};
use shared::Evidence;

/// Markup that would make an `<img>` (whose error handler would raise an alert) and an
/// `<hlab-probe>` element if the page took it as HTML.
fn markup(what: &str) -> String {
    format!("<img src=x onerror=alert('{what}')><hlab-probe>{what}</hlab-probe>")
}

const FILE_MARKUP: &str = "<img src=x onerror=alert('file')>.json";
const RESUMED: &str = "tls13-resumed-ticket-ecdsa-p256-x25519";
const FULL: &str = "tls13-full-ecdsa-p256-x25519";

struct Fixture {
    www: PathBuf,
    /// The run's evidence file as written.
    text: String,
}

/// A run of its own (not the suite's quick run): the markup run renames its arms by id
/// and position, so it is exactly these three arms. Built once per suite run; the tests
/// only read it.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = shared_fixture("site-failures", build);
        let text = std::fs::read_to_string(e2e::only_evidence_file(&dir.join("results"))).unwrap();
        Fixture {
            www: dir.join("www"),
            text,
        }
    })
}

fn build(dir: &std::path::Path) {
    let results = dir.join("results");
    let arms = format!("tcp-connect,{FULL},{RESUMED}");
    let out = collector()
        .args(["run", "--no-peers", "--no-floor", "--no-phases"])
        .args(["--samples", "20", "--warmup", "2", "--certs", "ecdsa-p256"])
        .args(["--groups", "x25519", "--arms", &arms, "--out"])
        .arg(&results)
        .output()
        .expect("collector runs");
    assert!(
        out.status.success(),
        "collector run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(e2e::only_evidence_file(&results)).unwrap();
    let www = dir.join("www");
    let site = www.join("site");
    build_site(&results, &site);
    let good: Value = serde_json::from_str(&text).unwrap();
    site_variant(&site, &www.join("no-history"), &[("good.json", &text)]);
    site_variant(
        &site,
        &www.join("bad-history"),
        &[("history.json", "{\"runs\": ["), ("good.json", &text)],
    );
    let mut field = good.clone();
    field["arms"][1]
        .as_object_mut()
        .unwrap()
        .remove("attempted");
    let mut invariant = good.clone();
    invariant["arms"][0]["failed"] = json!(good["arms"][0]["failed"].as_u64().unwrap() + 7);
    let (field, invariant) = (field.to_string(), invariant.to_string());
    let mut errors = history(
        &[("good.json", &text)],
        &["missing.json", "field.json", "invariant.json"],
    );
    errors.extend([
        ("good.json".to_string(), text.clone()),
        ("field.json".to_string(), field),
        ("invariant.json".to_string(), invariant),
    ]);
    site_variant(&site, &www.join("errors"), &as_refs(&errors));
    let markup_text = markup_run(&text);
    let mut marked = history(&[("markup.json", &markup_text)], &[FILE_MARKUP]);
    marked.extend([
        ("markup.json".to_string(), markup_text.clone()),
        (FILE_MARKUP.to_string(), "{".to_string()),
    ]);
    site_variant(&site, &www.join("markup"), &as_refs(&marked));
}

/// What `cargo xtask site` writes for `runs` (file, evidence text) and the files it
/// could not read: the history and each run's summary, as (name, text) under `results/`.
fn history(runs: &[(&str, &str)], unreadable: &[&str]) -> Vec<(String, String)> {
    let mut history = shared::HistoryBuilder::default();
    let mut out = Vec::new();
    for (file, text) in runs {
        let ev = Evidence::from_json(text).expect("valid evidence");
        history.run(file, &ev);
        out.push((format!("summaries/{file}"), ev.summary_line()));
    }
    for file in unreadable {
        history.unreadable(file);
    }
    out.push(("history.json".to_string(), history.finish().to_json()));
    out
}

fn as_refs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect()
}

/// The run with markup for an arm id (tcp-connect, everywhere it is named), an error
/// string (the resumed arm's, which then leaves the comparisons) and a peer version.
fn markup_run(text: &str) -> String {
    let renamed = text.replace(
        "\"tcp-connect\"",
        &serde_json::to_string(&markup("arm")).unwrap(),
    );
    let mut v: Value = serde_json::from_str(&renamed).unwrap();
    v["run"]["id"] = json!("markup-run");
    for arm in v["arms"].as_array_mut().unwrap() {
        if arm["id"] == RESUMED {
            arm["error"] = json!(markup("error"));
        }
        if arm["id"] == FULL {
            arm["peer_version"] = json!(markup("peer"));
        }
    }
    v["comparisons"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["baseline"] != RESUMED && c["candidate"] != RESUMED);
    let out = v.to_string();
    Evidence::from_json(&out).expect("the markup run is valid evidence");
    out
}

fn start(name: &str) -> (Turn, Server, Browser) {
    let fx = fixture();
    let guard = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = Browser::start(scratch(&format!("chromium-{name}")), 1400, 1800, &[]);
    (guard, server, browser)
}

/// The load errors' texts once there are `n`, each checked to be on screen.
fn load_errors(b: &Browser, n: usize) -> Vec<String> {
    let errors = b.wait_for(
        &format!("{n} load error(s)"),
        &format!(
            "document.querySelectorAll('#load-errors li.load-error').length == {n} && \
             [...document.querySelectorAll('#load-errors li.load-error')].map(li => \
               [li.textContent, li.getBoundingClientRect().height > 0 && \
                getComputedStyle(li).visibility == 'visible'])"
        ),
    );
    errors
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e[1], json!(true), "not visible: {e}");
            e[0].as_str().unwrap().to_string()
        })
        .collect()
}

fn listed_runs(b: &Browser) -> Value {
    b.exec(
        "return document.querySelectorAll('#run-list tbody tr').length;",
        json!([]),
    )
}

#[test]
fn each_page_error_is_shown_naming_its_file() {
    let (_g, s, browser) = start("page-errors");
    let url = &s.url;

    browser.goto(&format!("{url}site/?run=results/nope.json"));
    let errors = load_errors(&browser, 1);
    assert!(
        errors[0].starts_with("results/nope.json: could not fetch: HTTP 404 Not Found"),
        "{errors:?}"
    );
    assert_eq!(listed_runs(&browser), json!(0));

    // The site's start file missing or broken: named, with what is wrong.
    browser.goto(&format!("{url}no-history/"));
    let errors = load_errors(&browser, 1);
    assert!(
        errors[0].starts_with("results/history.json: could not fetch: HTTP 404 Not Found"),
        "{errors:?}"
    );
    assert_eq!(listed_runs(&browser), json!(0));

    browser.goto(&format!("{url}bad-history/"));
    let errors = load_errors(&browser, 1);
    assert!(
        errors[0].starts_with("results/history.json: not a run history (line 1, column "),
        "{errors:?}"
    );
    assert_eq!(listed_runs(&browser), json!(0));

    browser.goto(&format!("{url}errors/"));
    let errors = load_errors(&browser, 3);
    let arm0 = &serde_json::from_str::<Value>(&fixture().text).unwrap()["arms"][0];
    let (succeeded, failed, attempted) = (
        arm0["succeeded"].as_u64().unwrap(),
        arm0["failed"].as_u64().unwrap() + 7,
        arm0["attempted"].as_u64().unwrap(),
    );
    for want in [
        "results/missing.json: could not fetch: HTTP 404 Not Found".to_string(),
        "results/field.json: at `arms[1]`: missing field `attempted`".to_string(),
        format!(
            "results/invariant.json: at `arms[0].attempted`: succeeded ({succeeded}) + \
             failed ({failed}) != attempted ({attempted})"
        ),
    ] {
        assert!(
            errors.iter().any(|e| e.starts_with(&want)),
            "{want:?} in {errors:?}"
        );
    }
    assert_eq!(listed_runs(&browser), json!(1), "the good file still loads");
}

#[test]
fn markup_in_arm_ids_errors_peer_versions_and_file_names_shows_as_text() {
    let (_g, s, browser) = start("markup");
    browser.goto(&format!("{}markup/", s.url));
    let errors = load_errors(&browser, 1);
    let texts = browser.wait_for(
        "the markup run",
        "document.querySelectorAll('#arm-table tbody tr').length && [\
           [...document.querySelectorAll('#arm-table th.arm')].map(th => th.textContent), \
           [...document.querySelectorAll('#arm-table td.no-result')].map(td => td.textContent), \
           [...document.querySelectorAll('.run dl.card dt')].filter(dt => \
             dt.textContent == 'peer versions (arms)').map(dt => dt.nextElementSibling.textContent), \
           [...document.querySelectorAll('#load-errors li.load-error .source')].map(s => s.textContent)]",
    );
    assert!(
        texts[0].as_array().unwrap().contains(&json!(markup("arm"))),
        "arm ids: {}",
        texts[0]
    );
    assert!(
        texts[1]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_str().is_some_and(|t| t.contains(&markup("error")))),
        "errors: {}",
        texts[1]
    );
    assert_eq!(texts[2], json!([markup("peer")]), "peer versions");
    assert_eq!(
        texts[3],
        json!([format!("results/{FILE_MARKUP}")]),
        "{errors:?}"
    );
    let made = browser.exec(
        "return document.querySelectorAll('img, hlab-probe').length;",
        json!([]),
    );
    assert_eq!(made, json!(0), "no element was made from a file's text");
    assert_eq!(browser.alert_text(), None, "no script ran");
}

#[test]
fn dropped_files_are_loaded_or_refused_by_name() {
    let (_g, s, browser) = start("drop");
    browser.goto(&format!("{}site/", s.url));
    browser.wait_for(
        "the site's run",
        "document.querySelectorAll('#run-list tbody tr').length == 1",
    );
    let mut dropped: Value = serde_json::from_str(&fixture().text).unwrap();
    dropped["run"]["id"] = json!("dropped-run");
    let name = format!("{}.json", markup("dropped"));
    // A synthesised drag: dragover (the zone shows it is a target), then the drop of a
    // DataTransfer holding a good file with a markup name and a broken one.
    browser.exec(
        "const dt = new DataTransfer(); \
         dt.items.add(new File([arguments[0]], arguments[1], {type: 'application/json'})); \
         dt.items.add(new File(['{'], 'broken-drop.json', {type: 'application/json'})); \
         window.__dt = dt; \
         document.getElementById('drop-zone').dispatchEvent(new DragEvent('dragover', \
           {dataTransfer: dt, bubbles: true, cancelable: true}));",
        json!([dropped.to_string(), name]),
    );
    browser.wait_for(
        "the drop zone to show the drag",
        "document.querySelector('#drop-zone.dragging')",
    );
    browser.exec(
        "document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', \
           {dataTransfer: window.__dt, bubbles: true, cancelable: true}));",
        json!([]),
    );
    browser.wait_for(
        "the dropped run",
        "document.querySelectorAll('#run-list tbody tr').length == 2",
    );
    let errors = load_errors(&browser, 1);
    assert!(
        errors[0].starts_with("broken-drop.json: not valid JSON at line 1"),
        "{errors:?}"
    );
    let sources = browser.exec(
        "return [...document.querySelectorAll('#run-list tbody tr')].map(tr => \
           tr.querySelector('td.run-id').textContent + ' ' + tr.querySelectorAll('code')[1].textContent);",
        json!([]),
    );
    let first = serde_json::from_str::<Value>(&fixture().text).unwrap();
    assert_eq!(
        sources,
        json!([
            format!(
                // The site's gzipped copy of the run's file.
                "{} results/{}.gz",
                first["run"]["id"].as_str().unwrap(),
                site_file(&first)
            ),
            format!("dropped-run {name}")
        ])
    );
    assert_eq!(
        browser.exec(
            "return document.querySelectorAll('#drop-zone.dragging').length;",
            json!([])
        ),
        json!(0),
        "the drag is over"
    );
    let made = browser.exec(
        "return document.querySelectorAll('img, hlab-probe').length;",
        json!([]),
    );
    assert_eq!(made, json!(0), "no element was made from the file name");
    assert_eq!(browser.alert_text(), None, "no script ran");
}

/// The file name the collector gave the run (`<run id>.json`).
fn site_file(ev: &Value) -> String {
    format!("{}.json", ev["run"]["id"].as_str().unwrap())
}
