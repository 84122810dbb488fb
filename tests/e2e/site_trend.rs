//! The trend view in headless Chromium, from a site of four runs on two hosts built by
//! `cargo xtask site`: each host's points and its slower/faster marks, checked against
//! values written out here; and the raw evidence is fetched only when the CDF is opened,
//! and then only the detail run's file (seen in the page's resource timing entries); a
//! history longer than a page is drawn a page at a time.

use e2e::scratch;
use e2e::site::{build_site, Server};
use e2e::webdriver::Browser;
use serde_json::{json, Value};
use shared::{sample, Evidence};

const ARM: &str = "tls13-full-ecdsa-p256-x25519";

/// The sample run as run `id` of `host` at `hour`, its TLS 1.3 full arm at `p50` with
/// the 95% CI `ci` (the other percentiles around it, so the summary stays ordered).
fn run(id: &str, host: &str, hour: u32, p50: f64, ci: [f64; 2]) -> Evidence {
    let mut e = sample::evidence();
    e.run.id = id.into();
    e.run.started_at = format!("2026-11-30T{hour:02}:00:00Z");
    e.environment.hostname = host.into();
    let arm = e
        .arms
        .iter_mut()
        .find(|a| a.id == ARM)
        .expect("the sample has the arm");
    let l = arm.latency_us.as_mut().unwrap();
    (l.min, l.p50, l.p95, l.p99, l.max) = (p50 - 50.0, p50, p50 + 50.0, p50 + 60.0, p50 + 70.0);
    arm.p50_ci95_us = Some(ci);
    arm.ci_unavailable = None;
    e
}

fn rows(browser: &Browser) -> Value {
    browser.exec(
        "return [...document.querySelectorAll('#trend-table tbody tr')].map(r => \
         [r.dataset.host, r.dataset.run, r.dataset.verdict, r.querySelector('td.p50').textContent]);",
        json!([]),
    )
}

/// Pixels of the trend canvas in the colour `rgb` (the marks' rings).
fn pixels(browser: &Browser, rgb: [u8; 3]) -> u64 {
    browser
        .exec(
            "const c = document.querySelector('#chart-trend'); \
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
             let n = 0; const [r, g, b] = arguments[0]; \
             for (let i = 0; i < d.length; i += 4) \
               if (d[i] === r && d[i+1] === g && d[i+2] === b) n++; \
             return n;",
            json!([rgb]),
        )
        .as_u64()
        .unwrap()
}

/// Files of `folder` (`results/` for the whole evidence files, `results/summaries/` for
/// the runs' summaries; not the index or the history) the page has requested so far.
fn fetched_from(browser: &Browser, folder: &str) -> Value {
    browser.exec(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname) \
         .filter(p => p.startsWith(arguments[0]) && !p.slice(arguments[0].length).includes('/')) \
         .map(p => p.split('/').pop()) \
         .filter(n => n.endsWith('.json.gz')).sort();",
        json!([folder]),
    )
}

fn evidence_fetched(browser: &Browser) -> Value {
    fetched_from(browser, "/site/results/")
}

/// The arms' sample files the page has requested so far (`run/index.json.gz`, under
/// `results/raw/`).
fn raw_fetched(browser: &Browser) -> Vec<String> {
    let v = browser.exec(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname) \
         .filter(p => p.startsWith('/site/results/raw/')) \
         .map(p => p.split('/').slice(-2).join('/')).sort();",
        json!([]),
    );
    serde_json::from_value(v).unwrap()
}

#[test]
fn the_trend_marks_each_hosts_changes_and_raw_files_wait_for_the_cdf() {
    let dir = scratch("site-trend");
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    // alpha: 400 → 500 µs, CIs apart ([480/410, 520/390] > 1): slower.
    // beta: 300 → 250 µs, CIs apart ([240/310, 260/290] < 1): faster.
    for e in [
        run("a1", "alpha", 1, 400.0, [390.0, 410.0]),
        run("b1", "beta", 2, 300.0, [290.0, 310.0]),
        run("a2", "alpha", 3, 500.0, [480.0, 520.0]),
        run("b2", "beta", 4, 250.0, [240.0, 260.0]),
    ] {
        std::fs::write(results.join(format!("{}.json", e.run.id)), e.to_json()).unwrap();
    }
    let site = dir.join("www").join("site");
    build_site(&results, &site);
    let server = Server::start(&dir.join("www"));
    let browser = Browser::start(scratch("chromium-trend"), 1400, 1800, &[]);
    browser.goto(&format!("{}site/", server.url));
    browser.wait_for("the trend view", "document.querySelector('#trend-arm')");
    browser.exec(
        "const s = document.querySelector('#trend-arm'); s.value = arguments[0]; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([ARM]),
    );
    browser.click("#trend-section details.as-text > summary");
    browser.wait_for(
        "the arm's trend rows",
        "[...document.querySelectorAll('#trend-table td.p50')].some(td => td.textContent === '500 µs')",
    );
    assert_eq!(
        rows(&browser),
        json!([
            ["alpha", "a1", "", "400 µs"],
            ["alpha", "a2", "slower", "500 µs"],
            ["beta", "b1", "", "300 µs"],
            ["beta", "b2", "faster", "250 µs"],
        ])
    );
    browser.wait_for(
        "the trend chart drawn with two lines",
        "document.querySelector('#chart-trend').dataset.items === '2' \
         && document.querySelector('#chart-trend').dataset.draws",
    );
    let (red, green) = ([0xc6, 0x28, 0x28], [0x2e, 0x7d, 0x32]);
    assert!(
        pixels(&browser, red) > 0,
        "a red ring for alpha's slower run"
    );
    assert!(
        pixels(&browser, green) > 0,
        "a green ring for beta's faster run"
    );

    // The trend came from the history: the only summary fetched is the detail run's
    // (the newest, b2), and no evidence file was fetched.
    assert_eq!(
        fetched_from(&browser, "/site/results/summaries/"),
        json!(["b2.json.gz"])
    );
    assert_eq!(evidence_fetched(&browser), json!([]));
    assert!(raw_fetched(&browser).is_empty());

    // Hosts are picked: without beta, its rows and its green ring go.
    browser.click("#trend-section input[data-host='beta']");
    browser.wait_for(
        "beta's rows gone",
        "document.querySelectorAll('#trend-table tbody tr').length === 2",
    );
    assert_eq!(pixels(&browser, green), 0, "no faster mark without beta");
    assert!(pixels(&browser, red) > 0);

    // Opening the CDF fetches the samples of the arms it draws, of the detail run (the
    // newest: b2), one small file each (its full and its resumed arm), and no whole file.
    browser.click("#cdf-section > summary");
    browser.wait_for(
        "the CDF drawn from b2's samples",
        "document.querySelector('#chart-cdf') \
         && Number(document.querySelector('#chart-cdf').dataset.items) === 2",
    );
    let raw = raw_fetched(&browser);
    assert_eq!(raw.len(), 2, "{raw:?}");
    assert!(raw.iter().all(|f| f.starts_with("b2/")), "{raw:?}");
    assert_eq!(evidence_fetched(&browser), json!([]));

    // Picking a1 into the detail view fetches its summary, then (the CDF is open) the
    // samples of the arms it draws; the other runs stay in brief.
    browser.click("#run-list tbody tr:first-child input.detail-pick");
    browser.wait_for(
        "a1 and b2 side by side",
        "document.querySelectorAll('#run-columns > *').length === 2 \
         && !document.querySelector('.detail-loading')",
    );
    assert_eq!(
        fetched_from(&browser, "/site/results/summaries/"),
        json!(["a1.json.gz", "b2.json.gz"])
    );
    browser.wait_for(
        "a1's samples fetched for the CDF",
        "performance.getEntriesByType('resource').some(e => e.name.includes('/results/raw/a1/'))",
    );
    assert_eq!(evidence_fetched(&browser), json!([]));
}

#[test]
fn a_long_history_is_drawn_a_page_at_a_time() {
    // 60 runs, a minute apart: more than a page (50) of the run list and of the pickers.
    let dir = scratch("site-long-history");
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    for i in 0..60u32 {
        let mut e = run(&format!("r{i:02}"), "alpha", 0, 400.0, [390.0, 410.0]);
        e.run.started_at = format!("2026-11-30T{:02}:{:02}:00Z", i / 60, i % 60);
        std::fs::write(results.join(format!("{}.json", e.run.id)), e.to_json()).unwrap();
    }
    let site = dir.join("www").join("site");
    build_site(&results, &site);
    let server = Server::start(&dir.join("www"));
    let browser = Browser::start(scratch("chromium-long-history"), 1400, 1000, &[]);
    browser.goto(&format!("{}site/", server.url));
    browser.wait_for(
        "the run list",
        "document.querySelectorAll('#run-list tbody tr').length > 0",
    );
    let ids = |b: &Browser| -> Vec<String> {
        serde_json::from_value(b.exec(
            "return [...document.querySelectorAll('#run-list tbody tr .run-id')].map(c => c.textContent);",
            json!([]),
        ))
        .unwrap()
    };
    let newest: Vec<String> = (10..60).map(|i| format!("r{i:02}")).collect();
    assert_eq!(
        ids(&browser),
        newest,
        "the run list's first page: the newest 50"
    );
    assert_eq!(
        browser.exec(
            "return ['older', 'newer'].map(c => document.querySelector('#run-list-pager button.' + c).disabled);",
            json!([])
        ),
        json!([false, true])
    );
    browser.click("#run-list-pager button.older");
    browser.wait_for(
        "the older page",
        "document.querySelectorAll('#run-list tbody tr').length === 10",
    );
    let oldest: Vec<String> = (0..10).map(|i| format!("r{i:02}")).collect();
    assert_eq!(ids(&browser), oldest);

    // The run picker: 50 runs and "older runs"; paging keeps the run shown chosen.
    let options = "const s = document.querySelector('#run-pick'); \
                   return {value: s.value, runs: [...s.options].map(o => o.value).filter(v => /^[0-9]+$/.test(v)), \
                           paging: [...s.options].map(o => o.value).filter(v => !/^[0-9]+$/.test(v))};";
    let first = browser.exec(options, json!([]));
    assert_eq!(first["runs"].as_array().unwrap().len(), 50, "{first}");
    assert_eq!(first["paging"], json!(["older"]), "{first}");
    assert!(first["runs"].as_array().unwrap().contains(&first["value"]));
    browser.exec(
        "const s = document.querySelector('#run-pick'); s.value = 'older'; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    browser.wait_for(
        "the picker's older page",
        "[...document.querySelector('#run-pick').options].some(o => o.value === 'newer')",
    );
    let second = browser.exec(options, json!([]));
    assert_eq!(
        second["value"], first["value"],
        "paging picked no other run"
    );
    assert_eq!(second["paging"], json!(["newer"]), "{second}");
    // The run shown (kept on top) and the 10 oldest, none of them on the first page.
    let runs = second["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 11, "{second}");
    assert_eq!(runs[0], first["value"]);
    let page_one = first["runs"].as_array().unwrap();
    assert!(runs[1..].iter().all(|k| !page_one.contains(k)), "{second}");

    // The trend's table as text: no rows until it is opened, then one per run.
    browser.exec(
        "const s = document.querySelector('#trend-arm'); s.value = arguments[0]; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([ARM]),
    );
    assert_eq!(
        browser.exec(
            "return document.querySelectorAll('#trend-table tbody tr').length;",
            json!([])
        ),
        json!(0)
    );
    browser.click("#trend-section details.as-text > summary");
    browser.wait_for(
        "the trend's 60 rows",
        "document.querySelectorAll('#trend-table tbody tr').length === 60",
    );
}
