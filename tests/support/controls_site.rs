//! The site the viewer-control tests share (`tests/e2e/site_controls.rs`): a real run of two
//! certs × two groups with the crypto floor and capacity arms (1 in 3 connections dropped
//! on purpose), and a copy of it under another run id, built by `cargo xtask site`.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{json, Value};
use shared::Evidence;

use crate::fixture::{one_at_a_time, shared_fixture, Turn};
use crate::site::{build_site, Server};
use crate::webdriver::Browser;
use crate::{collector, scratch};

pub struct Fixture {
    pub www: PathBuf,
    /// The two runs' evidence as JSON, in the order the site loads them.
    pub runs: Vec<Value>,
}

/// A run of its own (not the suite's quick run): two certificates × two groups for the
/// grid, and capacity drops injected for the failure columns. Built once per suite run;
/// the tests only read it.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = shared_fixture("site-controls", build);
        let results = dir.join("results");
        let index: Value =
            serde_json::from_str(&std::fs::read_to_string(results.join("index.json")).unwrap())
                .unwrap();
        let runs = index["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let file = results.join(r["file"].as_str().unwrap());
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
            })
            .collect();
        Fixture {
            www: dir.join("www"),
            runs,
        }
    })
}

fn build(dir: &std::path::Path) {
    let results = dir.join("results");
    let out = collector()
        .args(["run", "--no-peers", "--samples", "20", "--warmup", "2"])
        .args([
            "--certs",
            "rsa2048,ecdsa-p256",
            "--groups",
            "x25519,secp256r1",
        ])
        .args(["--concurrency", "1", "--capacity-seconds", "1"])
        .args(["--inject-capacity-drops", "3", "--out"])
        .arg(&results)
        .output()
        .expect("collector runs");
    assert!(
        out.status.success(),
        "collector run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index_path = results.join("index.json");
    let mut index: Value =
        serde_json::from_str(&std::fs::read_to_string(&index_path).unwrap()).unwrap();
    let file = index["runs"][0]["file"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(results.join(&file)).unwrap();
    Evidence::from_json(&text).expect("the collector's evidence is valid");
    let first: Value = serde_json::from_str(&text).unwrap();
    let mut second = first.clone();
    second["run"]["id"] = json!(format!("{}-second", first["run"]["id"].as_str().unwrap()));
    second["environment"]["hostname"] = json!("second-host");
    std::fs::write(results.join("second.json"), second.to_string()).unwrap();
    index["runs"]
        .as_array_mut()
        .unwrap()
        .push(json!({"file": "second.json"}));
    std::fs::write(&index_path, index.to_string()).unwrap();
    build_site(&results, &dir.join("www").join("site"));
}

/// Opens the site and waits until the table has rows.
pub fn open(name: &str) -> (Turn, Server, Browser) {
    let fx = fixture();
    let guard = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = Browser::start(scratch(&format!("chromium-{name}")), 1400, 1800, &[]);
    browser.goto(&format!("{}site/", server.url));
    browser.wait_for(
        "table rows",
        "document.querySelectorAll('#arm-table tbody tr').length",
    );
    // The detail view (the run columns and the table) holds the newest run until others
    // are ticked, in the order ticked: make it both runs in load order, as a reader
    // comparing them would (one click at a time: each re-renders the picks).
    let count = |r: &Value| r["arms"].as_array().map_or(0, |a| a.len());
    let all: usize = fx.runs.iter().map(count).sum();
    let rows = |n: usize| format!("document.querySelectorAll('#arm-table tbody tr').length == {n}");
    let pick = |row: usize| format!("#run-list tbody tr:nth-child({row}) input.detail-pick");
    browser.click(&pick(1));
    browser.wait_for("both runs in the table", &rows(all));
    browser.click(&pick(2));
    browser.wait_for("the first run alone", &rows(count(&fx.runs[0])));
    browser.click(&pick(2));
    browser.wait_for("both runs, in load order", &rows(all));
    (guard, server, browser)
}
