//! The results site at a glance, in headless Chromium, from a site of four runs built by
//! `cargo xtask site`: two default runs of one setup, a newer `--no-peers` run with other
//! samples, and a newest probe. The page opens on the newest default run (not the probe),
//! compares runs only where their setups allow, says full / resumed on the speedup axis,
//! exports charts that name themselves, downloads CSV with data columns, keeps labels
//! distinct at 420 px, and never hides a focused control. The landing run's cards are in
//! the page as served, before the viewer has loaded.

use std::sync::OnceLock;

use e2e::scratch;
use e2e::site::{build_site, Server};
use e2e::webdriver::Browser;
use serde_json::{json, Value};
use shared::{sample, CertKind, Evidence, KxGroup, Mode, Protocol, Resumption};

const FULL: &str = "tls13-full-ecdsa-p256-x25519";

/// The sample run as run `id` at `hour` with the default plan's certs and groups (so it
/// is of the default kind), its TLS 1.3 full p50 scaled by `scale`, and a stateful
/// resumed arm beside the ticket one (ids that differ only in the middle).
fn run(id: &str, hour: u32, scale: f64) -> Evidence {
    let mut e = sample::evidence();
    e.run.id = id.into();
    e.run.started_at = format!("2026-12-01T{hour:02}:00:00Z");
    e.environment.hostname = "lab".into();
    e.run.settings.certs = vec![CertKind::Rsa2048, CertKind::EcdsaP256];
    e.run.settings.kx_groups = vec![KxGroup::X25519, KxGroup::X25519Mlkem768];
    e.arms.push(sample::arm(
        "tls13-resumed-stateful-ecdsa-p256-x25519",
        Protocol::Tls13,
        Mode::Resumed,
        Some(Resumption::Stateful),
        vec![210.0, 220.0, 200.0, 270.0],
    ));
    for a in &mut e.arms {
        let l = a.latency_us.as_mut().unwrap();
        let k = if a.id == FULL { scale } else { 1.0 };
        (l.min, l.p50, l.p95, l.p99, l.max) =
            (l.min * k, l.p50 * k, l.p95 * k, l.p99 * k, l.max * k);
        a.samples_us.iter_mut().for_each(|s| *s *= k);
        a.p50_ci95_us = Some([l.p50 * 0.99, l.p50 * 1.01]);
        a.ci_unavailable = None;
    }
    e
}

struct Fixture {
    www: std::path::PathBuf,
}

/// One site for every test here (building it compiles the viewer).
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = e2e::fixture::shared_fixture("site-glance", build);
        Fixture {
            www: dir.join("www"),
        }
    })
}

fn build(dir: &std::path::Path) {
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let mut subset = run("s3", 3, 1.0);
    subset.run.command_line.push("--no-peers".into());
    subset.run.settings.samples = 9;
    let mut probe = run("p4", 4, 1.0);
    probe.run.command_line = vec!["collector".into(), "probe".into(), "x:443".into()];
    for e in [run("d1", 1, 1.0), run("d2", 2, 1.5), subset, probe] {
        let v = e.violations();
        assert!(v.is_empty(), "{}: {v:?}", e.run.id);
        std::fs::write(results.join(format!("{}.json", e.run.id)), e.to_json()).unwrap();
    }
    build_site(&results, &dir.join("www").join("site"));
}

fn open(server: &Server, profile: &str, width: u32, query: &str) -> Browser {
    let browser = Browser::start(scratch(profile), width, 900, &[]);
    browser.goto(&format!("{}site/{query}", server.url));
    browser.wait_for(
        "the headline charts",
        "document.querySelector('#chart-head-speedups')?.dataset.draws",
    );
    browser
}

/// The run the picker shows, as the page names it (its option's text and the run line).
fn shown_run(browser: &Browser) -> Value {
    browser.exec(
        "const s = document.querySelector('#run-pick'); \
         return [s.options[s.selectedIndex].textContent, document.querySelector('#run-line').textContent];",
        json!([]),
    )
}

#[test]
fn a_newer_probe_does_not_take_the_landing_view_and_the_pick_is_kept_in_the_link() {
    let server = Server::start(&fixture().www);
    let browser = open(&server, "glance-landing", 1400, "");
    let shown = shown_run(&browser);
    assert!(
        shown[0]
            .as_str()
            .unwrap()
            .starts_with("default run · lab · 2026-12-01 02:00"),
        "{shown}"
    );
    assert!(shown[1].as_str().unwrap().contains("d2"), "{shown}");
    // Findings follow the run shown.
    let hint = browser.exec(
        "return document.querySelector('#findings .hint').textContent;",
        json!([]),
    );
    assert!(hint.as_str().unwrap().contains("d2"), "{hint}");
    // Picking the probe puts it in the link; a fresh page opens on it.
    browser.exec(
        "const s = document.querySelector('#run-pick'); \
         s.value = [...s.options].find(o => o.textContent.startsWith('probe')).value; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    );
    let search = browser.wait_for(
        "the pick in the URL",
        "location.search.includes('view=p4') && location.search",
    );
    drop(browser);
    let again = open(&server, "glance-landing-2", 1400, search.as_str().unwrap());
    let shown = shown_run(&again);
    assert!(shown[1].as_str().unwrap().contains("p4"), "{shown}");
}

/// The texts of every `<dd class="big">` in `html`, in order: the cards' large numbers.
fn big_numbers(html: &str) -> Vec<String> {
    html.split("<dd class=\"big\">")
        .skip(1)
        .map(|rest| rest.split("</dd>").next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_landing_runs_cards_are_in_the_page_before_the_viewer_and_give_way_to_its_own() {
    // The page as served: the cards of d2 (the landing run, not the newer probe), before
    // any script has run, and its head named for the browser to fetch early.
    let page = std::fs::read_to_string(fixture().www.join("site").join("index.html")).unwrap();
    let start = page
        .find("<main id=\"static-head\">")
        .expect("the cards are in the page");
    let written = &page[start..start + page[start..].find("</main>").unwrap()];
    assert!(written.contains("<code>d2</code>"), "{written}");
    assert!(page.contains("id=\"landing-head\" href=\"results/heads/d2.json.gz\""));
    let numbers = big_numbers(written);
    assert!(!numbers.is_empty(), "{written}");
    // With the two headline charts, drawn as SVG by the viewer's chart code.
    assert_eq!(written.matches("</svg>").count(), 2, "{written}");
    let server = Server::start(&fixture().www);
    let browser = open(&server, "glance-written-cards", 1400, "");
    // The viewer's own cards replaced them, with the same numbers.
    let live = browser.exec(
        "return [!!document.getElementById('static-head'), \
                 document.querySelector('#headline .cards').outerHTML];",
        json!([]),
    );
    assert_eq!(live[0], json!(false), "the written cards are gone");
    assert_eq!(big_numbers(live[1].as_str().unwrap()), numbers);
    // They were on the page before the viewer had started; a link to another view drops
    // them at once, so the first cards there are the viewer's own.
    let marks = "const t = n => performance.getEntriesByName(n)[0]?.startTime; \
                 return t('cards') < t('viewer-started') && t('first-chart') < t('viewer-started');";
    assert_eq!(browser.exec(marks, json!([])), json!(true));
    // The viewer drew its own charts in their place.
    assert_eq!(
        browser.exec(
            "return [...document.querySelectorAll('#head-charts canvas')].map(c => +c.dataset.draws > 0);",
            json!([])
        ),
        json!([true, true])
    );
    drop(browser);
    let other = open(&server, "glance-written-cards-2", 1400, "?view=p4");
    assert_eq!(other.exec(marks, json!([])), json!(false));
    assert!(shown_run(&other)[1].as_str().unwrap().contains("p4"));
}

/// The "what changed" rows: (arm, verdict).
fn change_rows(browser: &Browser) -> Value {
    browser.exec(
        "return [...document.querySelectorAll('#changes-table tbody tr')] \
           .map(r => [r.dataset.arm, r.dataset.verdict]);",
        json!([]),
    )
}

#[test]
fn runs_of_other_setups_get_no_verdict_and_their_differences_come_first() {
    let server = Server::start(&fixture().www);
    // By default: the run shown (d2) against its previous run of the same setup (d1).
    let browser = open(&server, "glance-changes", 1400, "");
    browser.wait_for("the comparison", "document.querySelector('#changes-table')");
    assert_eq!(
        browser.exec(
            "return !document.querySelector('#setup-differences');",
            json!([])
        ),
        json!(true),
        "d1 and d2 share a setup"
    );
    let rows = change_rows(&browser);
    // d2's TLS 1.3 full arm is 1.5× d1's, intervals far apart: slower, listed first.
    assert_eq!(rows[0], json!([FULL, "slower"]), "{rows}");
    assert!(
        rows.as_array().unwrap()[1..]
            .iter()
            .all(|r| r[1] == json!("no evidence of a difference")),
        "{rows}"
    );
    drop(browser);
    // d1 against the --no-peers run with other samples: the differences are listed
    // before any arm, and no arm gets a verdict.
    let browser = open(&server, "glance-changes-2", 1400, "?cmp=d1,s3");
    browser.wait_for(
        "the differences",
        "document.querySelector('#setup-differences')",
    );
    let settings = browser.exec(
        "return [...document.querySelectorAll('#setup-differences li')].map(l => l.dataset.setting);",
        json!([]),
    );
    assert_eq!(settings, json!(["kind", "samples"]));
    let before = browser.exec(
        "const d = document.querySelector('#setup-differences'); \
         const t = document.querySelector('#changes-table'); \
         return !!(d.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);",
        json!([]),
    );
    assert_eq!(before, json!(true), "the differences come before the arms");
    let rows = change_rows(&browser);
    assert_eq!(rows.as_array().unwrap().len(), 4, "{rows}");
    assert!(
        rows.as_array().unwrap().iter().all(|r| r[1] == json!("")),
        "no verdict across setups: {rows}"
    );
}

/// Catches downloads in the page: each anchor click's name and text (object URLs are read
/// back from their blobs; data URLs kept as they are).
const CATCH_JS: &str = "window.__dl = []; const blobs = new Map(); \
    const make = URL.createObjectURL; \
    URL.createObjectURL = b => { const u = make(b); blobs.set(u, b); return u; }; \
    HTMLAnchorElement.prototype.click = function () { \
      const e = {name: this.download, href: this.href, text: null}; window.__dl.push(e); \
      const b = blobs.get(this.href); \
      if (b) { b.text().then(t => e.text = t); } else { e.text = ''; } };";

/// Clicks `button` and returns the download it made: (file name, text).
fn download(browser: &Browser, button: &str) -> (String, String) {
    browser.exec(CATCH_JS, json!([]));
    browser.exec(
        "document.querySelector(arguments[0]).click();",
        json!([button]),
    );
    let d = browser.wait_for(
        "the download",
        "window.__dl.length === 1 && window.__dl[0].text !== null && window.__dl[0]",
    );
    (
        d["name"].as_str().unwrap().to_string(),
        d["text"].as_str().unwrap().to_string(),
    )
}

/// The texts of an SVG document, in order.
fn svg_texts(browser: &Browser, svg: &str) -> Vec<String> {
    let texts = browser.exec(
        "const doc = new DOMParser().parseFromString(arguments[0], 'image/svg+xml'); \
         return [...doc.querySelectorAll('text')].map(t => t.textContent.trim());",
        json!([svg]),
    );
    serde_json::from_value(texts).unwrap()
}

#[test]
fn exports_name_their_chart_arm_run_host_and_date_and_the_speedup_axis_says_full_over_resumed() {
    let server = Server::start(&fixture().www);
    let browser = open(&server, "glance-exports", 1400, "");
    let (name, svg) = download(&browser, "#head-charts > .chart:nth-child(2) button.svg");
    assert_eq!(
        name,
        "head-speedups-Resume-speedups-full-resumed-p50-d2.svg"
    );
    let texts = svg_texts(&browser, &svg);
    let has = |t: &str| texts.iter().any(|x| x.contains(t));
    assert!(has("Handshake Lab — Resume speedups"), "{texts:?}");
    assert!(has("run d2 · host lab · 2026-12-01T02:00:00Z"), "{texts:?}");
    assert!(has("ecdsa-p256 · ticket"), "the arms: {texts:?}");
    // Bars are full / resumed (2.00× = 400 / 200 µs in the sample): so says the axis.
    assert!(has("speedup: full / resumed p50"), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("resumed / full")),
        "{texts:?}"
    );

    // The trend's export names the arm it plots.
    browser.exec(
        "const s = document.querySelector('#trend-arm'); s.value = arguments[0]; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([FULL]),
    );
    browser.wait_for(
        "the trend of the arm",
        "document.querySelector('#trend-section h4')?.textContent.includes('tls13-full')",
    );
    let (name, svg) = download(&browser, "#trend-section button.svg");
    assert_eq!(name, format!("trend-p50-of-{FULL}-across-runs-4-runs.svg"));
    let texts = svg_texts(&browser, &svg);
    assert!(
        texts.iter().any(|t| t == &format!("arm: {FULL}")),
        "{texts:?}"
    );
}

#[test]
fn csv_downloads_have_data_columns() {
    let server = Server::start(&fixture().www);
    let browser = open(&server, "glance-csv", 1400, "");
    browser.wait_for("the arm table", "document.querySelector('#csv-download')");
    let (_, csv) = download(&browser, "#csv-download");
    let header = csv.lines().next().unwrap().to_string();
    for col in [
        "run_id", "host", "arm", "stack", "client", "server", "protocol", "mode", "cert",
        "kx_group", "rtt_ms", "p50_us",
    ] {
        assert!(header.split(',').any(|h| h == col), "{col} in {header}");
    }
    let (name, csv) = download(&browser, "#findings-csv");
    assert_eq!(name, "findings-d2.csv");
    assert_eq!(
        csv.lines().next().unwrap(),
        "kind,arm,metric,value,ci_low,ci_high,unit,sentence"
    );
    // d2's TLS 1.3 full p50: the sample's 400 µs × 1.5, its CI ±1%.
    assert!(
        csv.lines()
            .any(|l| l.starts_with(&format!("full handshake,{FULL},p50,600,594,606,µs,"))),
        "{csv}"
    );
}

#[test]
fn at_420_px_no_two_labels_of_a_chart_read_alike() {
    let server = Server::start(&fixture().www);
    let browser = open(&server, "glance-narrow", 420, "");
    browser.wait_for(
        "the detail charts",
        "document.querySelector('canvas[id^=chart-percentiles-]')?.dataset.labels",
    );
    let charts = browser.exec(
        "return [...document.querySelectorAll('canvas[data-labels]')] \
           .map(c => [c.id, c.dataset.labels.split('\\n'), c.getBoundingClientRect().right, \
                       document.documentElement.clientWidth]);",
        json!([]),
    );
    let charts = charts.as_array().unwrap();
    assert!(charts.len() >= 3, "{charts:?}");
    let mut middle_cut = false;
    for c in charts {
        let labels: Vec<&str> = c[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        for (i, a) in labels.iter().enumerate() {
            middle_cut |= a.contains('…');
            for b in &labels[i + 1..] {
                assert_ne!(a, b, "two labels read alike in {}: {labels:?}", c[0]);
            }
        }
        // (Headless Chromium may keep its window wider than asked: the screen is the
        // page's own client width.)
        assert!(
            c[2].as_f64().unwrap() <= c[3].as_f64().unwrap() + 1.0,
            "{} is wider than the screen: {c}",
            c[0]
        );
    }
    assert!(
        middle_cut,
        "at 420 px some labels are cut (else this tests nothing)"
    );
}

#[test]
fn a_focused_control_is_never_hidden_under_another_element() {
    let server = Server::start(&fixture().www);
    let browser = open(&server, "glance-focus", 1400, "");
    // Whether the focused element is what the page shows at its own centre (or holds it,
    // or is held by it); null when nothing is focused.
    let check = "const a = document.activeElement; \
        if (!a || a === document.body) return null; \
        const r = a.getBoundingClientRect(); \
        const x = r.left + r.width / 2, y = r.top + r.height / 2; \
        const e = document.elementFromPoint(x, y); \
        return [a.tagName + '#' + a.id + '.' + a.className + ' ' + (a.textContent || '').slice(0, 40), \
                !!e && (e === a || a.contains(e) || e.contains(a) || (a.labels && [...a.labels].some(l => l.contains(e))))];";
    let (tab, shift) = ("\u{E004}", "\u{E008}");
    let mut seen = 0;
    for (held, steps) in [(None, 70), (Some(shift), 70)] {
        for _ in 0..steps {
            browser.press(held, tab);
            let v = browser.exec(check, json!([]));
            if v.is_null() {
                continue;
            }
            seen += 1;
            assert_eq!(v[1], json!(true), "focused but covered: {v}");
        }
    }
    assert!(seen > 100, "{seen} focused steps");
    // The first Tab lands on the skip link, which leads to the charts.
    browser.exec(
        "document.activeElement.blur(); window.scrollTo(0, 0);",
        json!([]),
    );
    browser.press(None, tab);
    let first = browser.exec(
        "return [document.activeElement.textContent, document.activeElement.getAttribute('href')];",
        json!([]),
    );
    assert_eq!(first, json!(["Skip to the charts", "#head-charts"]));
}
