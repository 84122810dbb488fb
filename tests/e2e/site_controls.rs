//! The viewer's controls in real headless Chromium (WebDriver through chromedriver), on a
//! site built by `cargo xtask site` from a real run (two certs × two groups, the crypto
//! floor, capacity arms with 1 in 3 connections dropped) and a copy of it under another
//! run id: the filters, sorting by every column both ways, the latency scale, the CSV of
//! the rows shown and the cert × group grid. Every expected value comes from the evidence
//! JSON, never from the viewer's own code.

use std::cmp::Ordering;

use e2e::controls_site::{fixture, open};
use e2e::page::{draws, parse_csv, pixels, table_rows, wait_redrawn, Row};
use e2e::site::assert_shows_us;
use e2e::webdriver::Browser;
use serde_json::{json, Value};

/// Every arm of every run that `keep` lets through, in load order: the table's rows.
fn rows_where(keep: impl Fn(&Value) -> bool) -> Vec<(Row, &'static Value)> {
    let fx = fixture();
    fx.runs
        .iter()
        .enumerate()
        .flat_map(|(i, run)| run["arms"].as_array().unwrap().iter().map(move |a| (i, a)))
        .filter(|(_, a)| keep(a))
        .map(|(i, a)| ((i as u64, a["id"].as_str().unwrap().to_string()), a))
        .collect()
}

/// Whether the table shows the arm's numbers: no error, not skipped, and a latency.
fn has_result(arm: &Value) -> bool {
    arm["error"].is_null() && arm["skipped"].is_null() && !arm["latency_us"].is_null()
}

/// The rows' keys alone.
fn keys(rows: &[(Row, &Value)]) -> Vec<Row> {
    rows.iter().map(|r| r.0.clone()).collect()
}

/// Clicks `css`, then waits until the table's row count `op` (`==`, `>`) `n` holds.
fn click_until_rows(b: &Browser, css: &str, op: &str, n: usize) {
    b.click(css);
    b.wait_for(
        &format!("row count {op} {n} after a click on {css}"),
        &format!("document.querySelectorAll('#arm-table tbody tr').length {op} {n}"),
    );
}

#[test]
fn filters_hide_exactly_the_arms_they_name() {
    let (_g, _s, browser) = open("filters");
    let (tls12, rsa) = (
        "#controls input[data-facet='tls1.2']",
        "#controls input[data-facet='rsa2048']",
    );
    let all = rows_where(|_| true);
    assert_eq!(table_rows(&browser), keys(&all));
    // TLS 1.2 off, then rsa2048 off too: TCP (no cert) stays.
    let no_tls12 = rows_where(|a| a["protocol"] != "tls1.2");
    click_until_rows(&browser, tls12, "==", no_tls12.len());
    assert_eq!(table_rows(&browser), keys(&no_tls12));
    let left = rows_where(|a| a["protocol"] != "tls1.2" && a["cert"] != "rsa2048");
    click_until_rows(&browser, rsa, "==", left.len());
    let shown = table_rows(&browser);
    assert_eq!(shown, keys(&left));
    assert!(
        shown.iter().any(|r| r.1 == "tcp-connect"),
        "TCP has no cert"
    );
    // The trend's arm picker offers the same arms.
    let options = browser.exec(
        "return [...document.querySelectorAll('#trend-arm option')].map(o => o.value);",
        json!([]),
    );
    let mut ids: Vec<&str> = Vec::new();
    for ((_, id), _) in &left {
        if !ids.contains(&id.as_str()) {
            ids.push(id);
        }
    }
    assert_eq!(options, json!(ids));
    // Both back on: every row again.
    click_until_rows(&browser, tls12, ">", left.len());
    click_until_rows(&browser, rsa, "==", all.len());
    assert_eq!(table_rows(&browser), keys(&all));
}

/// A column's sort key of one row, from the evidence: text, or a number (None: no number,
/// such a row goes last both ways).
enum Key {
    Text(String),
    Num(Option<f64>),
}

fn sort_key(column: &str, run: u64, arm: &Value) -> Key {
    let text = |v: &Value| Key::Text(v.as_str().unwrap_or_default().to_string());
    let result = has_result(arm);
    let num = |v: &Value| Key::Num(v.as_f64().filter(|_| result));
    match column {
        "run" => Key::Num(Some(run as f64)),
        "arm" => text(&arm["id"]),
        "protocol" => text(&arm["protocol"]),
        "mode" => text(&arm["mode"]),
        "cert" => text(&arm["cert"]),
        "group" => text(&arm["kx_group"]),
        "p50" => num(&arm["latency_us"]["p50"]),
        "p50 95% CI" => num(&arm["p50_ci95_us"][0]),
        "p95" => num(&arm["latency_us"]["p95"]),
        "p99" => num(&arm["latency_us"]["p99"]),
        "efficiency (floor / p50)" => num(&arm["efficiency"]),
        "resumed (client/server)" => num(&arm["resumed"]["client"]),
        // The share of attempted connections that failed, for every row.
        "failed of attempted" => Key::Num(Some(
            arm["failed"].as_f64().unwrap() / arm["attempted"].as_f64().unwrap().max(1.0),
        )),
        other => panic!("a column this test does not know: {other:?}"),
    }
}

/// The rows in the order the book promises (docs/src/reading.md): by the column, ties in load order, rows
/// without a number (an error, skipped, no latency) last whichever the direction.
fn sorted(column: &str, descending: bool) -> Vec<Row> {
    let mut rows: Vec<(Row, Key)> = rows_where(|_| true)
        .into_iter()
        .map(|(row, arm)| {
            let key = sort_key(column, row.0, arm);
            (row, key)
        })
        .collect();
    let dir = |o: Ordering| if descending { o.reverse() } else { o };
    rows.sort_by(|(_, a), (_, b)| match (a, b) {
        (Key::Text(x), Key::Text(y)) => dir(x.cmp(y)),
        (Key::Num(Some(x)), Key::Num(Some(y))) => dir(x.total_cmp(y)),
        (Key::Num(Some(_)), Key::Num(None)) => Ordering::Less,
        (Key::Num(None), Key::Num(Some(_))) => Ordering::Greater,
        _ => Ordering::Equal,
    });
    rows.into_iter().map(|(row, _)| row).collect()
}

#[test]
fn every_column_sorts_both_ways() {
    let (_g, _s, browser) = open("sort");
    let columns = browser.exec(
        "return [...document.querySelectorAll('#arm-table thead button.sort')].map(b => b.dataset.sort);",
        json!([]),
    );
    let columns: Vec<&str> = columns
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(columns.len(), 13, "{columns:?}");
    let state = |b: &Browser, column: &str| -> String {
        b.exec(
            "return [...document.querySelectorAll('#arm-table thead th')]\
             .find(th => th.querySelector('button.sort').dataset.sort == arguments[0])\
             .getAttribute('aria-sort');",
            json!([column]),
        )
        .as_str()
        .unwrap()
        .to_string()
    };
    for column in columns {
        let mut seen = Vec::new();
        for _ in 0..2 {
            let before = state(&browser, column);
            browser.click(&format!(
                "#arm-table thead button.sort[data-sort='{column}']"
            ));
            browser.wait_for(
                "the table to re-sort",
                &format!(
                    "[...document.querySelectorAll('#arm-table thead th')].find(th => \
                     th.querySelector('button.sort').dataset.sort == {}).getAttribute('aria-sort') != {}",
                    json!(column),
                    json!(before)
                ),
            );
            let now = state(&browser, column);
            let descending = match now.as_str() {
                "ascending" => false,
                "descending" => true,
                other => panic!("{column}: aria-sort {other:?} after a click"),
            };
            assert_eq!(
                table_rows(&browser),
                sorted(column, descending),
                "{column}, {now}"
            );
            seen.push(descending);
        }
        seen.sort();
        assert_eq!(seen, [false, true], "{column}: both directions");
    }
}

#[test]
fn the_scale_switch_redraws_the_latency_charts_and_back() {
    let (_g, _s, browser) = open("scale");
    let buttons = "#controls .scale button";
    let pressed = |b: &Browser| {
        b.exec(
            &format!(
                "return [...document.querySelectorAll('{buttons}')]\
                 .map(x => [x.textContent, x.getAttribute('aria-pressed')]);"
            ),
            json!([]),
        )
    };
    // Linear from zero by default: bar lengths are proportional to the values.
    assert_eq!(
        pressed(&browser),
        json!([["log", "false"], ["linear", "true"]])
    );
    // The CDF is folded until opened (it fetches the raw samples then).
    browser.click("#cdf-section > summary");
    browser.wait_for(
        "the CDF drawn from the picked arms' samples",
        "document.querySelector('#chart-cdf') && document.querySelector('#chart-cdf').dataset.draws \
         && !document.querySelector('#cdf-loading')",
    );
    browser.wait_for(
        "charts drawn",
        "[...document.querySelectorAll('canvas')].every(c => c.dataset.draws)",
    );
    // Each run's rustls panel (panel 0 is the kernel's TCP connect).
    let latency_charts = [
        "chart-cdf",
        "chart-percentiles-0-1",
        "chart-percentiles-1-1",
    ];
    let linear = pixels(&browser);
    let before = draws(&browser, &latency_charts);
    browser.click(&format!("{buttons}:nth-of-type(1)"));
    wait_redrawn(&browser, "the log charts", &before);
    assert_eq!(
        pressed(&browser),
        json!([["log", "true"], ["linear", "false"]])
    );
    let log = pixels(&browser);
    for id in latency_charts {
        assert!(!log[id].is_null(), "{id} in {log}");
        assert_ne!(log[id], linear[id], "{id} drew the same pixels");
    }
    // The trend across runs is linear from zero whatever the switch says.
    assert!(!log["chart-trend"].is_null(), "the trend is drawn: {log}");
    assert_eq!(log["chart-trend"], linear["chart-trend"]);
    let before = draws(&browser, &latency_charts);
    browser.click(&format!("{buttons}:nth-of-type(2)"));
    wait_redrawn(&browser, "the linear charts again", &before);
    let again = pixels(&browser);
    for id in latency_charts {
        assert_eq!(linear[id], again[id], "{id}: linear again");
    }
}

#[test]
fn the_csv_holds_exactly_the_rows_shown() {
    let (_g, _s, browser) = open("csv");
    // Resumed arms off, sorted by p50 from the slowest.
    let shown = rows_where(|a| a["mode"] != "resumed");
    click_until_rows(
        &browser,
        "#controls input[data-facet='resumed']",
        "==",
        shown.len(),
    );
    // One click at a time: each waits for the page to show its effect.
    browser.click("#arm-table thead button.sort[data-sort='p50']");
    browser.wait_for(
        "p50 ascending",
        "document.querySelector('#arm-table thead th[aria-sort=ascending] button.sort[data-sort=p50]')",
    );
    browser.click("#arm-table thead button.sort[data-sort='p50']");
    browser.wait_for(
        "p50 descending",
        "document.querySelector('#arm-table thead th[aria-sort=descending] button.sort[data-sort=p50]')",
    );
    let rows = table_rows(&browser);
    assert_eq!(rows.len(), shown.len());
    // Catch the download: the Blob handed to URL.createObjectURL, and no navigation.
    browser.exec(
        "window.__csv = null; const make = URL.createObjectURL.bind(URL); \
         URL.createObjectURL = b => { b.text().then(t => { window.__csv = t; }); return make(b); }; \
         HTMLAnchorElement.prototype.click = function () { window.__csvName = this.download; };",
        json!([]),
    );
    browser.click("#csv-download");
    let csv = browser.wait_for("the CSV", "window.__csv");
    let name = browser.exec("return window.__csvName;", json!([]));
    assert_eq!(name, json!("handshake-lab-arms.csv"));
    let lines = parse_csv(csv.as_str().unwrap());
    let header = &lines[0];
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no {name} column in {header:?}"))
    };
    let (run_id, arm, mode, p50) = (col("run_id"), col("arm"), col("mode"), col("p50_us"));
    let data = &lines[1..];
    assert_eq!(data.len(), rows.len(), "one CSV line per row shown");
    let fx = fixture();
    for (line, (run, id)) in data.iter().zip(&rows) {
        let ev = &fx.runs[*run as usize];
        assert_eq!(&line[run_id], ev["run"]["id"].as_str().unwrap());
        assert_eq!(&line[arm], id);
        assert_ne!(line[mode], "resumed", "filtered out");
        let a = ev["arms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == json!(id))
            .unwrap();
        match a["latency_us"]["p50"].as_f64() {
            Some(v) => assert_eq!(line[p50].parse::<f64>().ok(), Some(v), "{id}"),
            None => assert_eq!(line[p50], "", "{id}"),
        }
    }
}

#[test]
fn the_cert_group_grid_shows_each_cells_p50() {
    let (_g, _s, browser) = open("grid");
    let grids = browser.exec(
        "return [...document.querySelectorAll('article.run')].map(run => [Number(run.dataset.run), \
           [...run.querySelectorAll('table.grid')].map(t => [t.dataset.protocol, \
             [...t.querySelectorAll('thead th')].slice(1).map(th => th.textContent), \
             [...t.querySelectorAll('tbody tr')].map(tr => [tr.querySelector('th').textContent, \
               [...tr.querySelectorAll('td.cell')].map(td => td.textContent)])])]);",
        json!([]),
    );
    let fx = fixture();
    let grids = grids.as_array().unwrap();
    assert_eq!(grids.len(), 2, "one column per run");
    let mut cells = 0;
    for run in grids {
        let ev = &fx.runs[run[0].as_u64().unwrap() as usize];
        let tables = run[1].as_array().unwrap();
        let protocols: Vec<&str> = tables.iter().map(|t| t[0].as_str().unwrap()).collect();
        assert_eq!(protocols, ["tls1.3", "tls1.2"]);
        for t in tables {
            let protocol = t[0].as_str().unwrap();
            assert_eq!(t[1], json!(["x25519", "secp256r1"]), "groups of {protocol}");
            let certs: Vec<&str> = t[2]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r[0].as_str().unwrap())
                .collect();
            assert_eq!(certs, ["rsa2048", "ecdsa-p256"], "certs of {protocol}");
            for row in t[2].as_array().unwrap() {
                let cert = row[0].as_str().unwrap();
                for (text, group) in row[1]
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(["x25519", "secp256r1"])
                {
                    // The loopback full rustls arm of that cell, from the evidence.
                    let arm = ev["arms"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|a| {
                            a["protocol"] == protocol
                                && a["mode"] == "full"
                                && a["cert"] == cert
                                && a["kx_group"] == group
                                && a["capacity"].is_null()
                                && a["client_stack"] == "rustls"
                                && a["server_stack"] == "rustls"
                                && a["control_of"].is_null()
                        })
                        .unwrap_or_else(|| panic!("no arm for {protocol} {cert} {group}"));
                    let what = format!("{protocol} {cert} × {group}");
                    let p50 = arm["latency_us"]["p50"].as_f64().expect("measured");
                    assert_shows_us(text.as_str().unwrap(), p50, &what);
                    cells += 1;
                }
            }
        }
    }
    assert_eq!(
        cells,
        2 * 2 * 2 * 2,
        "2 runs × 2 protocols × 2 certs × 2 groups"
    );
}
