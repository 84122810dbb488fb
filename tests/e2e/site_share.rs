//! Sharing and taking away, in real headless Chromium: a permalink reopens the same view,
//! charts download as PNG and SVG (and the SVG holds the chart's marks), the table as
//! Markdown, every control has a name and every chart its data as text; the site is
//! published the way a GitHub project page is, under a deeper sub-path
//! (`/user.example/handshake-lab/`), and every request stays under it.

use std::path::PathBuf;
use std::sync::OnceLock;

use e2e::fixture::{copy_of_quick_run, one_at_a_time, shared_fixture};
use e2e::scratch;
use e2e::site::{build_site, Server};
use e2e::webdriver::Browser;
use serde_json::json;
use shared::{Evidence, Stack};

/// Where the site sits in the served folder, as on a project-pages host.
const SUB_PATH: &str = "user.example/handshake-lab/";

struct Fixture {
    www: PathBuf,
    evidence: Evidence,
}

/// The suite's quick run with peer and capacity arms (so every kind of chart is drawn;
/// [`e2e::fixture::quick_run`]) and a copy of it from a second host with its own run id;
/// the site built under [`SUB_PATH`] once per suite run and only read by the tests here.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let text = e2e::fixture::quick_run_evidence();
        let evidence = Evidence::from_json(&text).expect("valid evidence");
        let dir = shared_fixture("site-share", |dir| {
            let results = copy_of_quick_run(&dir.join("results"));
            let mut second = evidence.clone();
            second.environment.hostname = "second-host".into();
            second.run.id = format!("{}-second", second.run.id);
            std::fs::write(results.join("second.json"), second.to_json()).unwrap();
            build_site(&results, &dir.join("www").join(SUB_PATH));
        });
        Fixture {
            www: dir.join("www"),
            evidence,
        }
    })
}

/// A browser on a fresh profile at `url` (relative to the server), once the table has
/// rows, every canvas has drawn and the CDF is open and drawn.
fn open_at(server: &Server, profile: &str, url: &str) -> Browser {
    let browser = Browser::start(scratch(&format!("chromium-{profile}")), 1400, 1800, &[]);
    browser.goto(&format!("{}{url}", server.url));
    browser.wait_for(
        "rows and drawn charts",
        "document.querySelectorAll('#arm-table tbody tr').length > 0 && \
         [...document.querySelectorAll('canvas')].every(c => c.dataset.draws)",
    );
    // The CDF is folded until opened (it fetches raw samples then); its picks are part of
    // the view a link carries.
    browser.click("#cdf-section > summary");
    cdf_settled(&browser);
    browser
}

/// Waits until the CDF has drawn a curve for every picked arm. It first draws from the
/// summaries (no samples: no curve), then again once the arms' samples are in; reading the
/// state between the two draws would compare a half-loaded view.
fn cdf_settled(browser: &Browser) {
    browser.wait_for(
        "the CDF drawn with every pick",
        "(c => c && c.dataset.draws && !document.querySelector('#cdf-loading') && \
         c.dataset.items == document.querySelectorAll('#cdf-section input:checked').length)\
         (document.querySelector('#chart-cdf'))",
    );
}

/// Everything a permalink carries, read from the page itself (not from the URL).
const STATE_JS: &str = "return { \
    scale: [...document.querySelectorAll('#controls .scale button')] \
        .filter(b => b.getAttribute('aria-pressed') == 'true').map(b => b.textContent), \
    off: [...document.querySelectorAll('#controls input[data-facet]')] \
        .filter(i => !i.checked).map(i => i.closest('fieldset').querySelector('legend').textContent + ':' + i.dataset.facet), \
    sort: [...document.querySelectorAll('#arm-table th[aria-sort]')] \
        .filter(th => th.getAttribute('aria-sort') != 'none') \
        .map(th => th.querySelector('button').dataset.sort + ' ' + th.getAttribute('aria-sort')), \
    hidden: [...document.querySelectorAll('#run-list tbody tr.hidden td.run-id')].map(td => td.textContent), \
    picks: [...document.querySelectorAll('#cdf-section fieldset')].flatMap(f => \
        [...f.querySelectorAll('input:checked')].map(i => f.querySelector('legend').textContent + ' / ' + i.dataset.arm)), \
    arm: document.querySelector('#trend-arm').value, \
    rows: [...document.querySelectorAll('#arm-table tbody tr')].map(r => r.dataset.arm), \
    cdf_items: document.querySelector('#chart-cdf').dataset.items };";

#[test]
fn a_permalink_reopens_the_same_view() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let first = open_at(&server, "permalink-a", SUB_PATH);
    let history = first.exec("return history.length;", json!([]));
    let default_state = first.exec(STATE_JS, json!([]));

    // Change every part of the state the link carries.
    first.click("#controls .scale button:nth-of-type(1)");
    first.click("#controls input[data-facet='tcp']");
    first.click("#arm-table button[data-sort='p99']");
    first.click("#arm-table button[data-sort='p99']");
    first.click("#run-list tbody tr:nth-child(2) button:nth-of-type(1)");
    // An arm the CDF can draw that is not in its default pick (the first full and the
    // first resumed arm with samples) and that the TCP filter leaves.
    let drawable: Vec<&shared::Arm> = fx
        .evidence
        .arms
        .iter()
        .filter(|a| !a.samples_us.is_empty() && a.latency_us.is_some())
        .filter(|a| a.error.is_none() && a.skipped.is_none())
        .collect();
    let default_pick: Vec<&str> = [shared::Mode::Full, shared::Mode::Resumed]
        .iter()
        .filter_map(|m| drawable.iter().find(|a| a.mode == *m))
        .map(|a| a.id.as_str())
        .collect();
    let resumed = drawable
        .iter()
        .rev()
        .find(|a| a.protocol != shared::Protocol::Tcp && !default_pick.contains(&a.id.as_str()))
        .expect("a drawable arm outside the default pick")
        .id
        .clone();
    // Hiding the loaded run leaves nothing loaded until the other run's summary arrives:
    // the picker is empty until then, so wait for the box rather than race the fetch.
    let pick = format!("#cdf-section input[data-arm='{resumed}']");
    first.wait_for(
        "the other run's arms in the CDF picker",
        &format!("document.querySelector(\"{pick}\") != null"),
    );
    first.click(&pick);
    first.exec(
        "const s = document.querySelector('#trend-arm'); s.value = arguments[0]; \
         s.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([resumed]),
    );
    let state = first.wait_for(
        "the compared arm",
        &format!(
            "document.querySelector('#trend-arm').value == '{resumed}' && \
             new URLSearchParams(location.search).get('arm') == '{resumed}'"
        ),
    );
    assert_eq!(state, json!(true));
    // Hiding the newest run made the other one the detail run: its samples are fetched.
    cdf_settled(&first);
    let state = first.exec(STATE_JS, json!([]));
    assert_ne!(state, default_state, "the clicks changed the view");
    assert_eq!(state["scale"], json!(["log"]), "{state}");
    assert_eq!(state["off"], json!(["protocol:tcp"]), "{state}");
    assert_eq!(state["sort"], json!(["p99 descending"]), "{state}");
    assert_eq!(state["hidden"].as_array().unwrap().len(), 1, "{state}");
    let url = first
        .exec("return location.href;", json!([]))
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        first.exec("return history.length;", json!([])),
        history,
        "the URL is replaced, not pushed once per click"
    );
    let path = url
        .strip_prefix(&server.url)
        .expect("the URL stays on the server");
    assert!(
        path.starts_with(&format!("{SUB_PATH}?")),
        "the state is in the query under the sub-path: {path}"
    );
    drop(first);

    // A fresh browser (new profile) opening the link sees the same view.
    let second = open_at(&server, "permalink-b", path);
    let reopened = second.exec(STATE_JS, json!([]));
    assert_eq!(reopened, state, "{path}");
    let url_again = second.exec("return location.href;", json!([]));
    assert_eq!(url_again, json!(url), "the link is kept as it was");
}

/// The run ids ticked for the detail view in the run list.
const DETAIL_JS: &str = "return [...document.querySelectorAll('#run-list tbody tr')] \
    .filter(tr => tr.querySelector('input.detail-pick').checked) \
    .map(tr => tr.querySelector('td.run-id').textContent);";

#[test]
fn a_permalink_reopens_the_runs_picked_for_detail() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let first = open_at(&server, "detail-a", SUB_PATH);
    let newest = first.exec(DETAIL_JS, json!([]));
    assert_eq!(
        newest.as_array().unwrap().len(),
        1,
        "the newest run alone: {newest}"
    );
    // Tick the other run too: both side by side, and the link names both.
    first.click("#run-list tbody tr:not(:has(input.detail-pick:checked)) input.detail-pick");
    first.wait_for(
        "two runs in the detail view, named in the URL",
        "document.querySelectorAll('#run-columns > *').length === 2 \
         && (new URLSearchParams(location.search).get('detail') || '').split(',').length === 2",
    );
    let picked = first.exec(DETAIL_JS, json!([]));
    assert_eq!(picked.as_array().unwrap().len(), 2, "{picked}");
    let url = first.exec("return location.href;", json!([]));
    let path = url
        .as_str()
        .unwrap()
        .strip_prefix(&server.url)
        .expect("the URL stays on the server")
        .to_string();
    let second = open_at(&server, "detail-b", &path);
    second.wait_for(
        "two runs in the reopened detail view",
        "document.querySelectorAll('#run-columns > *').length === 2",
    );
    assert_eq!(second.exec(DETAIL_JS, json!([])), picked);
}

#[test]
fn unknown_or_broken_url_state_is_ignored() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let plain = open_at(&server, "url-plain", SUB_PATH);
    let default_state = plain.exec(STATE_JS, json!([]));
    drop(plain);
    let junk = "?scale=sideways&sort=-nope&off=%zz,protocol:,:x&hide=%E9&pick=a:b,%&arm=%2&x=1&&=";
    let browser = open_at(&server, "url-junk", &format!("{SUB_PATH}{junk}"));
    let state = browser.exec(STATE_JS, json!([]));
    assert_eq!(state, default_state, "{junk}");
    let panic = browser.exec("return document.querySelector('#panic').hidden;", json!([]));
    assert_eq!(panic, json!(true), "no panic");
}

/// The section bar names every section of a two-run page, each link finds its section,
/// and the bar is still at the top of the screen at the bottom of the page.
#[test]
fn the_section_bar_links_every_section_and_stays_on_screen() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = open_at(&server, "section-bar", SUB_PATH);
    let got = browser.exec(
        "const links = [...document.querySelectorAll('nav.sections a')].map(a => a.getAttribute('href')); \
         window.scrollTo(0, document.documentElement.scrollHeight); \
         const top = document.querySelector('nav.sections').getBoundingClientRect().top; \
         return [links, links.filter(h => !document.querySelector(h)), window.scrollY > 0, top];",
        json!([]),
    );
    let sections = [
        "#headline",
        "#findings",
        "#runs-section",
        "#changes-section",
        "#trend-section",
        "#detail-section",
        "#cdf-section",
        "#table-section",
        "#glossary",
    ];
    assert_eq!(
        got,
        json!([sections, [], true, 0]),
        "links, missing, scrolled, bar top"
    );
}

/// The page's sentences (the tagline, the run conditions, the findings without the
/// links to their charts, the arm table's caption, in page order) link each glossary
/// term at its first use to its entry in the
/// page's glossary; the quick run uses at least the terms asserted by name.
#[test]
fn glossary_terms_are_linked_at_their_first_use() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = open_at(&server, "glossary", SUB_PATH);
    // Each entry and the words that use it, written out here (not read from the viewer).
    let words = json!({
        "arm": [" arm ", " arms "],
        "full": ["full handshake", "Full handshake"],
        "resumed": ["resum", "Resum"],
        "stateful": ["stateful"],
        "ticket": ["ticket"],
        "floor": ["crypto floor", "public-key"],
        "efficiency": ["efficiency", "Efficiency"],
        "hop": [" hop"],
        "placement": ["cpu-same", "placement"],
        "steal": ["steal", "Steal"],
        "pq": ["x25519mlkem768", "hybrid"],
        "traced": ["traced"],
    });
    let got = browser.exec(
        "const prose = [...document.querySelectorAll('#app .tagline, #run-conditions p, #run-conditions li, \
                                                     #findings li, #arm-table caption')]; \
         const words = e => { const c = e.cloneNode(true); \
                              c.querySelectorAll('a:not(.term)').forEach(a => a.remove()); return c.textContent; }; \
         const out = {}; \
         for (const [id, ws] of Object.entries(arguments[0])) { \
           const first = prose.find(e => ws.some(w => words(e).includes(w))); \
           if (first) out[id] = [...first.querySelectorAll('a.term')].some(a => a.getAttribute('href') === '#term-' + id); \
         } \
         const links = [...document.querySelectorAll('a.term')].map(a => a.getAttribute('href')); \
         return [out, links.filter(h => !document.querySelector('#glossary dt' + h))];",
        json!([words]),
    );
    let used: std::collections::BTreeMap<String, bool> =
        serde_json::from_value(got[0].clone()).unwrap();
    for term in ["full", "resumed", "ticket", "steal", "efficiency"] {
        assert!(used.contains_key(term), "{term} is not used: {used:?}");
    }
    let unlinked: Vec<&String> = used.iter().filter(|(_, l)| !**l).map(|(t, _)| t).collect();
    assert!(
        unlinked.is_empty(),
        "first uses without a link: {unlinked:?} of {used:?}"
    );
    assert_eq!(got[1], json!([]), "every link has its entry");
}

/// A link that hides every run opens on a page that says what happened and what to do,
/// not on a blank one; the run list still offers each run back.
#[test]
fn a_link_hiding_every_run_says_how_to_show_one_again() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let ids = [
        fx.evidence.run.id.clone(),
        format!("{}-second", fx.evidence.run.id),
    ];
    let browser = Browser::start(scratch("chromium-all-hidden"), 1400, 900, &[]);
    browser.goto(&format!("{}{SUB_PATH}?hide={}", server.url, ids.join(",")));
    browser.wait_for(
        "the run list, both runs hidden",
        "document.querySelectorAll('#run-list tbody tr.hidden').length == 2",
    );
    let state = browser.exec(
        "return [!!document.querySelector('#all-hidden'),                  document.querySelectorAll('#arm-table tbody tr').length,                  document.querySelector('#panic').hidden];",
        json!([]),
    );
    assert_eq!(state, json!([true, 0, true]), "message, no rows, no panic");
}

/// Downloads are caught in the page: the anchor's click records its name and URL, an
/// object URL's blob is read as text (the page revokes the URL right after the click).
const CATCH_JS: &str = "window.__dl = []; const blobs = new Map(); \
    const make = URL.createObjectURL; \
    URL.createObjectURL = b => { const u = make(b); blobs.set(u, b); return u; }; \
    HTMLAnchorElement.prototype.click = function () { \
      const e = {name: this.download, href: this.href, text: null}; window.__dl.push(e); \
      const b = blobs.get(this.href); \
      if (b) { e.type = b.type; b.text().then(t => e.text = t); } else { e.text = ''; } };";

#[test]
fn charts_download_as_png_and_svg_and_the_table_as_markdown() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = open_at(&server, "downloads", SUB_PATH);
    browser.exec(CATCH_JS, json!([]));
    // Each chart's downloads are named by its canvas's data-export (chart and run).
    let ids = browser.exec(
        "return [...document.querySelectorAll('canvas')].filter(c => c.dataset.items !== '0').map(c => c.dataset.export);",
        json!([]),
    );
    let ids: Vec<String> = serde_json::from_value(ids).unwrap();
    assert!(ids.len() >= 10, "{ids:?}");
    browser.exec(
        "document.querySelectorAll('.chart .export button').forEach(b => b.click()); \
         document.querySelector('#md-download').click();",
        json!([]),
    );
    let n = 2 * ids.len() + 1;
    browser.wait_for(
        "every download",
        &format!("window.__dl.length == {n} && window.__dl.every(d => d.text !== null)"),
    );
    // Per chart: the PNG's size and magic number, and the SVG parsed by the browser's
    // XML parser: no parse error, and its coloured marks (bars, lines, points; axes,
    // grid and text are grey or black).
    let checked = browser.exec(
        "return window.__dl.filter(d => d.name.endsWith('.png') || d.name.endsWith('.svg')).map(d => { \
           if (d.name.endsWith('.png')) { \
             const b64 = d.href.split(',')[1] || ''; \
             return {name: d.name, png: d.href.startsWith('data:image/png;base64,'), \
                     bytes: atob(b64).length, magic: atob(b64).slice(1, 4)}; } \
           const doc = new DOMParser().parseFromString(d.text, 'image/svg+xml'); \
           const grey = c => { const m = /^#([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{2})$/i.exec(c || ''); \
             if (!m) return true; const v = m.slice(1).map(h => parseInt(h, 16)); \
             return Math.max(...v) - Math.min(...v) < 50; }; \
           const marks = [...doc.querySelectorAll('rect, polyline, polygon, line, circle')] \
             .filter(e => !grey(e.getAttribute('fill')) || !grey(e.getAttribute('stroke'))).length; \
           return {name: d.name, type: d.type, root: doc.documentElement.nodeName, \
                   errors: doc.getElementsByTagName('parsererror').length, marks: marks, \
                   texts: doc.querySelectorAll('text').length}; });",
        json!([]),
    );
    let checked = checked.as_array().unwrap();
    for id in &ids {
        let png = checked
            .iter()
            .find(|d| d["name"] == json!(format!("{id}.png")))
            .unwrap_or_else(|| panic!("no PNG for {id}"));
        assert_eq!(png["png"], json!(true), "{png}");
        assert_eq!(png["magic"], json!("PNG"), "{png}");
        assert!(png["bytes"].as_u64() > Some(2_000), "{png}");
        let svg = checked
            .iter()
            .find(|d| d["name"] == json!(format!("{id}.svg")))
            .unwrap_or_else(|| panic!("no SVG for {id}"));
        assert_eq!(svg["type"], json!("image/svg+xml"), "{svg}");
        assert_eq!(svg["root"], json!("svg"), "{svg}");
        assert_eq!(svg["errors"], json!(0), "{svg}");
        assert!(svg["texts"].as_u64() >= Some(3), "axis labels: {svg}");
        assert!(
            svg["marks"].as_u64() >= Some(2),
            "only axes, no marks: {svg}"
        );
    }
    // The rustls panel (panel 1; panel 0 is the kernel's TCP connect) of the percentile
    // chart has, in its SVG, a p50 bar (#1F77B4) per rustls arm with a latency (below
    // the export's 58 px head and the legend's first row).
    let p50_bars = browser.exec(
        "const name = document.querySelector('canvas[id$=\"-1\"][id^=\"chart-percentiles-\"]').dataset.export; \
         const d = window.__dl.find(d => d.name === name + '.svg'); \
         const doc = new DOMParser().parseFromString(d.text, 'image/svg+xml'); \
         return [...doc.querySelectorAll('rect[fill=\"#1F77B4\"]')].filter(r => Number(r.getAttribute('y')) >= 58 + 19).length;",
        json!([]),
    );
    let with_latency = fx
        .evidence
        .arms
        .iter()
        .filter(|a| a.latency_us.is_some() && a.error.is_none() && a.skipped.is_none())
        .filter(|a| a.client_stack == Stack::Rustls && a.server_stack == Stack::Rustls)
        .count();
    assert_eq!(
        p50_bars,
        json!(with_latency),
        "p50 bars in the rustls panel's SVG"
    );

    let md = browser.exec(
        "const d = window.__dl.find(d => d.name == 'handshake-lab-arms.md'); return [d.type, d.text];",
        json!([]),
    );
    let text = md[1].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let rows = browser.exec(
        "return document.querySelectorAll('#arm-table tbody tr').length;",
        json!([]),
    );
    assert!(md[0].as_str().unwrap().starts_with("text/markdown"), "{md}");
    assert_eq!(Some(lines.len() as u64), rows.as_u64().map(|r| r + 2));
    assert!(
        lines[0].starts_with("| run | arm | protocol |"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("|:---|"), "{}", lines[1]);
}

#[test]
fn controls_are_named_and_every_chart_has_its_data_as_text() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = open_at(&server, "a11y", SUB_PATH);
    let unnamed = browser.exec(
        "return [...document.querySelectorAll('button, input, select, summary, a[href]')] \
         .filter(e => !(e.getAttribute('aria-label') || (e.labels && e.labels.length) || e.textContent.trim())) \
         .map(e => e.outerHTML.slice(0, 120));",
        json!([]),
    );
    assert_eq!(unnamed, json!([]), "controls without a name");
    // The trend's table is drawn once opened.
    browser.click("#trend-section details.as-text > summary");
    browser.wait_for(
        "the trend's table",
        "document.querySelectorAll('#trend-table tbody tr').length > 0",
    );
    let charts = browser.exec(
        "return [...document.querySelectorAll('.chart')].map(c => { const cv = c.querySelector('canvas'); \
           return {id: cv.id, label: cv.getAttribute('aria-label') || '', role: cv.getAttribute('role'), \
                   items: Number(cv.dataset.items), \
                   rows: c.querySelectorAll('details.as-text tbody tr').length, \
                   after: c.parentElement.querySelectorAll('details.stack-speedups li, details.phases tbody tr, #trend-table tbody tr').length, \
                   buttons: [...c.querySelectorAll('.export button')].map(b => b.getAttribute('aria-label'))}; });",
        json!([]),
    );
    for c in charts.as_array().unwrap() {
        assert_eq!(c["role"], json!("img"), "{c}");
        assert!(c["label"].as_str().unwrap().len() > 10, "{c}");
        let id = c["id"].as_str().unwrap();
        // The stacks' speedups, the phases and the trend have their own list or table.
        if id.starts_with("chart-stack-speedups-")
            || id.starts_with("chart-phases-")
            || id == "chart-trend"
        {
            assert!(c["after"].as_u64() >= Some(1), "{c}");
        } else {
            assert_eq!(c["rows"], c["items"], "one text row per chart row: {c}");
        }
        let buttons = c["buttons"].as_array().unwrap();
        assert_eq!(buttons.len(), 2, "{c}");
        assert!(buttons[0].as_str().unwrap().ends_with("as PNG"), "{c}");
        assert!(buttons[1].as_str().unwrap().ends_with("as SVG"), "{c}");
    }
}

#[test]
fn the_site_works_under_a_project_pages_sub_path() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    let browser = open_at(&server, "sub-path", SUB_PATH);
    let ink = browser.exec(
        "return [...document.querySelectorAll('canvas')].map(c => { \
           const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let ink = 0; \
           for (let i = 0; i < d.length; i += 4 * 7) if (d[i] < 200 || d[i+1] < 200 || d[i+2] < 200) ink++; \
           return ink; });",
        json!([]),
    );
    let ink = ink.as_array().unwrap();
    assert!(ink.len() >= 10, "{ink:?}");
    assert!(
        ink.iter().all(|n| n.as_u64() > Some(100)),
        "a blank canvas: {ink:?}"
    );
    let runs = browser.exec(
        "return document.querySelectorAll('#run-list tbody tr').length;",
        json!([]),
    );
    assert_eq!(runs, json!(2));
    // Every file the page fetched (wasm, JS, the history, a run's summary) came from under
    // the sub-path.
    let fetched = browser.exec(
        "return [location.href, performance.getEntriesByType('resource').map(e => e.name)];",
        json!([]),
    );
    let base = format!("{}{SUB_PATH}", server.url);
    let names: Vec<String> = serde_json::from_value(fetched[1].clone()).unwrap();
    for file in ["viewer.js", "viewer_bg.wasm", "results/history.json"] {
        assert!(
            names.contains(&format!("{base}{file}")),
            "{file} from {base}: {names:?}"
        );
    }
    let summary = format!("{base}results/summaries/");
    assert!(
        names.iter().any(|n| n.starts_with(&summary)),
        "the detail run's summary from {summary}: {names:?}"
    );
    // (The browser's own request for the host's /favicon.ico aside.)
    let favicon = format!("{}favicon.ico", server.url);
    for name in names.iter().filter(|n| **n != favicon) {
        assert!(name.starts_with(&base), "{name} is outside {base}");
    }
}

/// A link to a section (`…#findings`) opens the page at that section once it is drawn,
/// though the sections come after the viewer has started.
#[test]
fn a_link_to_a_section_opens_the_page_there() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let server = Server::start(&fx.www);
    for section in ["findings", "table-section"] {
        let browser = Browser::start(
            scratch(&format!("chromium-fragment-{section}")),
            1400,
            900,
            &[],
        );
        browser.goto(&format!("{}{SUB_PATH}#{section}", server.url));
        browser.wait_for(
            "rows, findings and drawn charts",
            "document.querySelectorAll('#arm-table tbody tr').length > 0 && \
             document.querySelectorAll('#findings li').length > 0 && \
             [...document.querySelectorAll('canvas')].every(c => c.dataset.draws)",
        );
        // Below the section bar (the page's scroll padding, 3.8rem), within a few pixels.
        let got = browser.exec(
            "return [window.scrollY, \
                     Math.round(document.getElementById(arguments[0]).getBoundingClientRect().top), \
                     Math.round(document.querySelector('nav.sections').getBoundingClientRect().bottom)];",
            json!([section]),
        );
        let (scrolled, top, bar) = (
            got[0].as_f64().unwrap(),
            got[1].as_i64().unwrap(),
            got[2].as_i64().unwrap(),
        );
        assert!(
            scrolled > 300.0,
            "#{section}: the page scrolled down ({got})"
        );
        assert!(
            top >= bar - 2 && top <= 80,
            "#{section}: its top just below the bar ({got})"
        );
    }
}

/// The lab's own questions — did Python's `ssl` resume, did `s_time -reuse` resume — are
/// answered among the findings on top, each with every resumed arm's count of resumed
/// connections, as the evidence records it (counted here from the file, not the viewer).
#[test]
fn the_python_and_s_time_answers_are_on_top_with_the_evidences_counts() {
    let fx = fixture();
    let _g = one_at_a_time("browser");
    let ev = Evidence::from_json(&e2e::fixture::quick_run_evidence()).unwrap();
    let expected = |client: Stack| -> Vec<(String, f64)> {
        ev.arms
            .iter()
            .filter(|a| a.client_stack == client && a.mode == shared::Mode::Resumed)
            .filter(|a| a.skipped.is_none())
            .map(|a| {
                let resumed = match &a.rate {
                    Some(r) if !r.slices.is_empty() => r.slices.iter().map(|s| s.resumed).sum(),
                    _ => a.resumed.client,
                };
                (a.id.clone(), resumed as f64)
            })
            .collect()
    };
    let (python, s_time) = (expected(Stack::PythonSsl), expected(Stack::OpensslSTime));
    assert!(
        !python.is_empty() && !s_time.is_empty(),
        "the quick run has both"
    );
    let server = Server::start(&fx.www);
    let browser = open_at(&server, "lab-questions", SUB_PATH);
    let top = browser.exec(
        "return [...document.querySelectorAll('#findings > ul.findings > li')].map(li => \
           [li.dataset.kind, li.dataset.values.split(';').filter(v => v).map(v => v.split('|'))]);",
        json!([]),
    );
    let answers: Vec<Vec<(String, f64)>> = top
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f[0] == "resumption")
        .map(|f| {
            f[1].as_array()
                .unwrap()
                .iter()
                .filter(|v| v[1] == "connections resumed")
                .map(|v| {
                    (
                        v[0].as_str().unwrap().to_string(),
                        v[2].as_str().unwrap().parse().unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .filter(|v: &Vec<_>| !v.is_empty())
        .collect();
    assert_eq!(answers, vec![python, s_time], "{top}");
}
