//! `cargo xtask bench [--evidence FILE] [--runs 10,100,1000]`: how fast the site draws
//! many runs. For each count it writes that many copies of one evidence file (distinct run
//! ids, start times a minute apart, every third run on a second host), builds the site,
//! serves it on 127.0.0.1 and opens it in headless Chromium (WebDriver; the browser has
//! opened another file of the server first, so its own start is not counted), then prints
//! the page's performance marks, in ms after navigation start: `first-chart` (the first
//! chart on the page: the landing run's charts as the site wrote them, SVG drawn by the
//! viewer's chart code at build time, else the viewer's canvas), `cards` (the run shown's
//! headline cards), `chart:chart-head-percentiles` (the viewer's own first canvas chart),
//! `interactive` (the start-up load is drawn:
//! run list, filters, trend), `answer` (the run shown's findings and detail, once its
//! summary is in) and `chart:chart-trend` (the trend view); then what the page holds
//! (elements and characters of text, in all and for its largest parts), which grows with
//! the history where a view renders more than is on screen.
//! A measurement, not a test: nothing passes or fails on a time.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::serve::{accept_loop, bind, Limits};
use crate::site_build;
use crate::tools::{ensure_apt, root, step};

// The browser tests' WebDriver client, shared: the bench uses a part of it, the rest
// would be dead code here.
#[path = "../../tests/support/webdriver.rs"]
#[allow(dead_code)]
pub mod webdriver;

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut evidence = None;
    let mut counts = vec![10usize, 100, 1000];
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--evidence" => evidence = it.next().map(PathBuf::from),
            "--runs" => {
                let list = it.next().context("--runs needs a list, e.g. 10,100")?;
                counts = list
                    .split(',')
                    .map(|n| n.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .with_context(|| format!("--runs {list}: not a list of counts"))?;
            }
            other => bail!(
                "unknown bench flag `{other}` (usage: cargo xtask bench [--evidence FILE] [--runs 10,100,1000])"
            ),
        }
    }
    let evidence = match evidence {
        Some(e) => e,
        None => newest_evidence(&root().join("results"))?,
    };
    let given = std::fs::read_to_string(&evidence)
        .with_context(|| format!("could not read {}", evidence.display()))?;
    let ev = shared::Evidence::from_json(&given)
        .map_err(|e| anyhow::anyhow!("{}: {e}", evidence.display()))?;
    // As the collector of this tree writes it (the current schema version, packed).
    let text = ev.to_json();
    ensure_apt("chromium", &["chromium"])?;
    ensure_apt("chromedriver", &["chromium-driver"])?;
    step(format!(
        "bench: copies of {} ({} bytes as given, {} as this tree writes it, schema version {}; {} arms)",
        evidence.display(),
        given.len(),
        text.len(),
        shared::SCHEMA_VERSION,
        ev.arms.len()
    ));
    let work = root().join("target").join("bench");
    let mut lines = Vec::new();
    for n in counts {
        let results = work.join(format!("results-{n}"));
        let out = work.join(format!("site-{n}"));
        let _ = std::fs::remove_dir_all(&out);
        write_copies(&text, &ev, n, &results)?;
        let started = Instant::now();
        site_build::build(std::slice::from_ref(&results), &out, None)?;
        let cold = started.elapsed();
        // One more run (the folder written again: the other files' contents are the same).
        write_copies(&text, &ev, n + 1, &results)?;
        let started = Instant::now();
        site_build::build(std::slice::from_ref(&results), &out, None)?;
        let one_more = started.elapsed();
        let history = std::fs::metadata(out.join("results").join(site_build::HISTORY))
            .map(|m| m.len())
            .unwrap_or(0);
        let (total, (_, largest)) = site_build::sizes(&out);
        let (marks, page, fetched) = measure(&out)?;
        let memory = page.memory;
        let line = format!(
            "{n} runs: first chart {} ms, cards {} ms, viewer's own first chart {} ms, interactive {} ms, answer {} ms, trend view {} ms; page memory {:.0} MB (JS heap {:.0} + wasm {:.0}); the page holds {} elements and {} characters of text; site {:.1} MB in all, largest file {:.2} MB, history.json {history} bytes; build {:.1} s cold, {:.1} s with one more run\n      largest parts of the page: {}\n      timeline (ms after navigation start; a file when its last byte arrived): {fetched}",
            marks[0], marks[4], marks[5], marks[1], marks[2], marks[3],
            (memory[0] + memory[1]) as f64 / 1e6, memory[0] as f64 / 1e6, memory[1] as f64 / 1e6,
            page.elements, page.text,
            total as f64 / 1e6, largest as f64 / 1e6,
            cold.as_secs_f64(), one_more.as_secs_f64(), page.parts
        );
        println!("{line}");
        lines.push(line);
        // 1,000 default runs are gigabytes: keep only the last site's figures.
        let _ = std::fs::remove_dir_all(&results);
        let _ = std::fs::remove_dir_all(&out);
    }
    step("bench results (ms after navigation start, headless Chromium on this machine):");
    for l in lines {
        eprintln!("    {l}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The evidence file the collector listed last in `dir/index.json`, else the newest name.
fn newest_evidence(dir: &Path) -> Result<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("no {} (pass --evidence FILE)", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name().is_some_and(|n| n != "index.json")
        })
        .collect();
    files.sort();
    files
        .pop()
        .with_context(|| format!("no evidence in {} (pass --evidence FILE)", dir.display()))
}

/// `n` copies of the evidence `text` in `dir`: run `i` gets id `<id>-b<i>`, starts `i`
/// minutes after 2026-01-01T00:00:00Z, and every third run is on host `<host>-2`.
fn write_copies(text: &str, ev: &shared::Evidence, n: usize, dir: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    let field = |name: &str, value: &str| format!("\"{name}\": {}", json!(value));
    let (id, started, host) = (
        field("id", &ev.run.id),
        field("started_at", &ev.run.started_at),
        field("hostname", &ev.environment.hostname),
    );
    for needle in [&id, &started, &host] {
        if !text.contains(needle.as_str()) {
            bail!("the evidence does not hold {needle} as the collector writes it");
        }
    }
    // The index the collector would write, so the site does not read 4 MB per file to
    // preview it.
    let mut index = Vec::with_capacity(n);
    for i in 0..n {
        let at = format!(
            "2026-01-{:02}T{:02}:{:02}:00Z",
            1 + i / 1440,
            i / 60 % 24,
            i % 60
        );
        let run_id = format!("{}-b{i:04}", ev.run.id);
        let hostname = match i % 3 {
            2 => format!("{}-2", ev.environment.hostname),
            _ => ev.environment.hostname.clone(),
        };
        let copy = text
            .replacen(&id, &field("id", &run_id), 1)
            .replacen(&started, &field("started_at", &at), 1)
            .replacen(&host, &field("hostname", &hostname), 1);
        std::fs::write(dir.join(format!("{run_id}.json")), copy)
            .with_context(|| format!("could not write into {}", dir.display()))?;
        index.push(json!({"file": format!("{run_id}.json"), "run_id": run_id,
            "host": hostname, "started_at": at, "complete": ev.run.complete}));
    }
    std::fs::write(dir.join("index.json"), json!({ "runs": index }).to_string())
        .with_context(|| format!("could not write {}/index.json", dir.display()))
}

/// Serves `site`, opens it, and returns the marks `[first chart, interactive, answer,
/// trend, cards, the viewer's own first chart]` in ms (`cards`: the run shown's headline
/// cards are on the page; `first chart`: the first chart on the page, the landing run's
/// written SVG where the site wrote one, else the viewer's canvas), and
/// where the time went: each file the page fetched, with the moment its last byte arrived.
fn measure(site: &Path) -> Result<([u64; 6], Page, String)> {
    let listener = bind(0)?;
    let port = listener.local_addr()?.port();
    let dir = site.to_path_buf();
    std::thread::spawn(move || accept_loop(listener, &dir, Limits::default()));
    let profile = root().join("target").join("bench").join("chromium-profile");
    let _ = std::fs::remove_dir_all(&profile);
    let browser = webdriver::Browser::start(profile, 1400, 1000, &["--enable-precise-memory-info"]);
    // A visitor's browser is running already: open a file of the same server first (one
    // the page never fetches), so the figures time the page, not the browser's start. The
    // page's own files are not in the browser's cache.
    browser.goto(&format!("http://127.0.0.1:{port}/results/index.json"));
    browser.goto(&format!("http://127.0.0.1:{port}/"));
    let names = [
        "first-chart",
        "interactive",
        "answer",
        "chart:chart-trend",
        "cards",
        "chart:chart-head-percentiles",
    ];
    let script = "return arguments[0].map(n => { const e = performance.getEntriesByName(n)[0]; \
                  return e ? Math.round(e.startTime) : null; });";
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let v: Value = browser.exec(script, json!([names]));
        let got: Vec<Option<u64>> = (0..6).map(|i| v[i].as_u64()).collect();
        if let [Some(a), Some(b), Some(c), Some(d), Some(e), Some(f)] = got[..] {
            return Ok(([a, b, c, d, e, f], page(&browser), fetched(&browser)));
        }
        if Instant::now() > deadline {
            bail!("the page did not set every mark within 300 s: {v}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// What the page holds once every mark is set.
struct Page {
    /// The page's JS heap and the viewer's linear memory (wasm), in bytes.
    memory: [u64; 2],
    /// Elements in the document, and characters of text in it (`textContent`, so a
    /// collapsed section's text counts: it is rendered, only not shown).
    elements: u64,
    text: u64,
    /// The same two per part of the page (the header and each section with an id), the
    /// largest first: `runs-section 1,020 elements 80,311 chars, …`.
    parts: String,
}

fn page(browser: &webdriver::Browser) -> Page {
    let v: Value = browser.exec(
        "const parts = [...document.querySelectorAll('main > header, main > section[id], main > nav')] \
           .map(e => [e.id || e.tagName.toLowerCase(), e.querySelectorAll('*').length, e.textContent.length]); \
         parts.sort((a, b) => b[2] - a[2]); \
         return [performance.memory ? performance.memory.usedJSHeapSize : 0, \
                 window.hlabWasmBytes ? window.hlabWasmBytes() : 0, \
                 document.getElementsByTagName('*').length, document.body.textContent.length, parts];",
        json!([]),
    );
    let parts = v[4]
        .as_array()
        .map(|rows| {
            rows.iter()
                .take(6)
                .map(|r| {
                    format!(
                        "{} {} elements {} chars",
                        r[0].as_str().unwrap_or("?"),
                        r[1].as_u64().unwrap_or(0),
                        r[2].as_u64().unwrap_or(0)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    Page {
        memory: [v[0].as_u64().unwrap_or(0), v[1].as_u64().unwrap_or(0)],
        elements: v[2].as_u64().unwrap_or(0),
        text: v[3].as_u64().unwrap_or(0),
        parts,
    }
}

/// `viewer_bg.wasm 212, history.json 240, (wasm-ready) 260, …`: each resource the page
/// fetched, in the order its last byte arrived, with the DOM's ready moment and the page's
/// marks, so a slow mark can be read against the fetches and steps it waited for.
fn fetched(browser: &webdriver::Browser) -> String {
    let script = "const n = performance.getEntriesByType('navigation')[0]; \
                  const r = performance.getEntriesByType('resource').map(e => \
                    [e.name.split('/').slice(-2).join('/'), Math.round(e.responseEnd), e.encodedBodySize]); \
                  r.push(['(DOM ready)', Math.round(n ? n.domContentLoadedEventEnd : 0), 0]); \
                  for (const m of performance.getEntriesByType('mark')) \
                    if (!m.name.startsWith('chart:')) r.push(['(' + m.name + ')', Math.round(m.startTime), 0]); \
                  r.sort((a, b) => a[1] - b[1]); return r;";
    let v: Value = browser.exec(script, json!([]));
    v.as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| match r[2].as_u64() {
                    Some(b) if b > 0 => {
                        format!("{} {} ({b} B)", r[0].as_str().unwrap_or("?"), r[1])
                    }
                    _ => format!("{} {}", r[0].as_str().unwrap_or("?"), r[1]),
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}
