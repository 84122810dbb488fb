//! `cargo xtask site --results DIR --out SITE`: the self-contained static results site.
//!
//! Layout: `index.html`, `viewer.js`, `viewer_bg.wasm`, `results/*.json` (the evidence,
//! whole), `results/index.json`, `results/history.json` (every run in brief:
//! [`shared::History`]), `results/summaries/*.json` (each valid run's
//! [`shared::Evidence::summary`], under its file's name) and `results/heads/*.json` (the
//! part of each summary the headline reads: [`viewer::data::head`], a few KB). The page
//! starts from the history and the run shown's head and summary (the cards and the two
//! charts draw from the head before the summary is in), fetches another summary when a
//! view shows that run, and a whole file only when a view needs its samples; a file that is not valid
//! evidence is listed in the history as unreadable and fetched whole to show why. Every
//! URL the page uses is relative, so the folder works from any static host and any
//! sub-path.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use viewer::data::head::head_of;
use viewer::data::index::{index_json, parse_index, IndexEntry, ResultsIndex};
pub use viewer::data::load::{HEADS, SUMMARIES};

use crate::tools::{root, step};
use crate::wasm;

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut results = None;
    let mut out = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .map(PathBuf::from)
                .with_context(|| format!("{arg} needs a folder"))
        };
        match arg.as_str() {
            "--results" => results = Some(value()?),
            "--out" => out = Some(value()?),
            other => bail!(
                "unknown site flag `{other}` (usage: cargo xtask site --results DIR --out SITE)"
            ),
        }
    }
    let results = results.unwrap_or_else(|| root().join("results"));
    let out = out.unwrap_or_else(default_out);
    build(&results, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// The file that marks a folder as a site this command built: only such a folder (or an
/// empty one) is ever cleared for a new site.
pub const MARKER: &str = ".handshake-lab-site";

/// The largest evidence or index file the site takes (64 MiB). A quick run with phases is
/// under 1 MB and a 100,000-sample run a few MB; a file past this is refused by name
/// rather than handed to a browser tab.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Where `cargo xtask lab` puts the site (never committed: under target/).
pub fn default_out() -> PathBuf {
    root().join("target").join("site")
}

/// Builds the site from the evidence in `results` into `out`.
pub fn build(results: &Path, out: &Path) -> Result<()> {
    if !results.is_dir() {
        bail!(
            "no results folder at {} (run `cargo xtask lab` or `collector run --out DIR` first)",
            results.display()
        );
    }
    prepare_out(out)?;
    wasm::build_viewer(out)?;
    let (index, history) = copy_results(results, &out.join("results"), MAX_FILE_BYTES)?;
    let page = std::fs::read_to_string(root().join("index.html"))
        .context("could not read the page, index.html")?;
    let page = with_landing_head(&page, history, |url| {
        let text = std::fs::read_to_string(out.join(url)).ok()?;
        shared::Evidence::from_json(&text).ok()
    })?;
    std::fs::write(out.join("index.html"), page)
        .context("could not write index.html into the site")?;
    step(format!(
        "site ready in {} ({} evidence file(s)); open index.html through any static server",
        out.display(),
        index.runs.len()
    ));
    Ok(())
}

/// Makes `out` an empty place for a site without ever wiping a folder that is not one:
/// only an empty folder, or one holding the [`MARKER`] this command leaves, is cleared.
/// (An `index.html` proves nothing: `--out ~/www` must not wipe a real site.) A site
/// built before the marker existed is recognised only at the default place, under this
/// workspace's `target/`.
fn prepare_out(out: &Path) -> Result<()> {
    if out.exists() {
        let ours = out.join(MARKER).is_file()
            || (out == default_out()
                && out.join("index.html").is_file()
                && out.join("viewer_bg.wasm").is_file());
        let empty = std::fs::read_dir(out)
            .with_context(|| format!("could not read {}", out.display()))?
            .next()
            .is_none();
        if !ours && !empty {
            bail!(
                "{} exists and is not a site built by this command (no {MARKER} in it); \
                 pick another --out, or empty it yourself",
                out.display()
            );
        }
        std::fs::remove_dir_all(out)
            .with_context(|| format!("could not clear the old site in {}", out.display()))?;
    }
    std::fs::create_dir_all(out.join("results"))
        .with_context(|| format!("could not create {}", out.display()))?;
    std::fs::write(
        out.join(MARKER),
        "made by `cargo xtask site`; the next build clears this folder\n",
    )
    .with_context(|| format!("could not mark {} as a site", out.display()))
}

/// Reads `path` as text if it is at most `cap` bytes; a larger file is an error naming it.
fn read_capped(path: &Path, cap: u64) -> Result<String> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("could not read {}", path.display()))?
        .len();
    if size > cap {
        bail!(
            "{} is {size} bytes, more than the {cap} bytes a site takes per file; move it out of the results folder",
            path.display()
        );
    }
    std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

/// Copies every evidence file (`*.json` except `index.json`) and writes the site's index:
/// the order and previews of `results/index.json` when it exists, then any file it does
/// not list. Files are copied as they are: a broken one is shown broken by the viewer.
fn copy_results(from: &Path, to: &Path, cap: u64) -> Result<(ResultsIndex, shared::History)> {
    let index_path = from.join("index.json");
    let listed = if index_path.exists() {
        let text = read_capped(&index_path, cap)?;
        parse_index(&text).map_err(|e| anyhow::anyhow!("{}: {e}", index_path.display()))?
    } else {
        ResultsIndex::default()
    };
    let mut files: Vec<String> = std::fs::read_dir(from)
        .with_context(|| format!("could not read {}", from.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    files.sort();
    let mut index = ResultsIndex::default();
    for entry in listed.runs {
        if files.contains(&entry.file) {
            index.runs.push(entry);
        } else {
            eprintln!(
                "xtask: warning: {} lists {}, which is not in {} (left out)",
                from.join("index.json").display(),
                entry.file,
                from.display()
            );
        }
    }
    for file in &files {
        let size = std::fs::metadata(from.join(file))
            .map(|m| m.len())
            .unwrap_or(0);
        if size > cap {
            bail!(
                "{} is {size} bytes, more than the {cap} bytes a site takes per file; move it out of the results folder",
                from.join(file).display()
            );
        }
    }
    let unlisted: Vec<String> = files
        .into_iter()
        .filter(|file| !index.runs.iter().any(|e| &e.file == file))
        .collect();
    let previews = par_map(&unlisted, |file| preview(&from.join(file)));
    for (file, preview) in unlisted.into_iter().zip(previews) {
        index.runs.push(IndexEntry { file, ..preview });
    }
    let mut history = shared::HistoryBuilder::default();
    for dir in [SUMMARIES, HEADS] {
        std::fs::create_dir_all(to.join(dir))
            .with_context(|| format!("could not create results/{dir}"))?;
    }
    // Each file is read, checked and summarised on its own thread; the history is built
    // from the summaries in the index's order.
    let summaries = par_map(&index.runs, |entry| -> Result<Option<shared::Evidence>> {
        link_or_copy(&from.join(&entry.file), &to.join(&entry.file))
            .with_context(|| format!("could not copy {}", entry.file))?;
        let evidence = std::fs::read_to_string(from.join(&entry.file))
            .ok()
            .and_then(|t| shared::Evidence::from_json(&t).ok());
        let Some(ev) = evidence else { return Ok(None) };
        std::fs::write(to.join(SUMMARIES).join(&entry.file), ev.summary_line())
            .with_context(|| format!("could not write the summary of {}", entry.file))?;
        std::fs::write(to.join(HEADS).join(&entry.file), head_of(&ev).to_json())
            .with_context(|| format!("could not write the head of {}", entry.file))?;
        Ok(Some(ev.summary()))
    });
    for (entry, summary) in index.runs.iter().zip(summaries) {
        match summary? {
            Some(ev) => history.run(&entry.file, &ev),
            None => history.unreadable(&entry.file),
        }
    }
    std::fs::write(to.join("index.json"), index_json(&index))
        .context("could not write results/index.json")?;
    let history = history.finish();
    std::fs::write(to.join(HISTORY), history.to_json())
        .with_context(|| format!("could not write results/{HISTORY}"))?;
    Ok((index, history))
}

/// The page's preload of the history, after which the landing run's head is named.
const HISTORY_PRELOAD: &str =
    r#"<link rel="preload" href="results/history.json" as="fetch" crossorigin>"#;

/// Where the page takes the landing run's cards.
const STATIC_HEAD: &str = "<!-- static head -->";

/// `page` naming the head of the run it opens on ([`viewer::data::pick::landing_head`])
/// as `<link id="landing-head">` (the browser fetches it while the viewer loads, and the
/// viewer draws the headline from it in its first view), with that run's cards written in
/// ([`viewer::data::head_html::static_head`], from the head `read` gives for its URL).
/// Unchanged when there is no run.
fn with_landing_head(
    page: &str,
    history: shared::History,
    read: impl FnOnce(&str) -> Option<shared::Evidence>,
) -> Result<String> {
    let Some(url) = viewer::data::pick::landing_head(history) else {
        return Ok(page.to_string());
    };
    if !page.contains(HISTORY_PRELOAD) || !page.contains(STATIC_HEAD) {
        bail!("index.html no longer has `{HISTORY_PRELOAD}` and `{STATIC_HEAD}`");
    }
    let page = match read(&url) {
        Some(head) => page.replacen(STATIC_HEAD, &viewer::data::head_html::static_head(&head), 1),
        None => page.to_string(),
    };
    let attr = viewer::data::head_html::text(&url);
    let link = format!(
        "{HISTORY_PRELOAD}\n<link rel=\"preload\" id=\"landing-head\" href=\"{attr}\" as=\"fetch\" crossorigin>"
    );
    Ok(page.replacen(HISTORY_PRELOAD, &link, 1))
}

/// Every run in brief ([`shared::History`]): what the run list, the filters and the
/// trend draw from, whatever the number of runs.
pub const HISTORY: &str = "history.json";

/// A hard link where the file system allows one (evidence files are never edited, and a
/// site of 1,000 default runs would otherwise hold a second copy of 4 GB), else a copy.
fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    // Never copy onto an existing link: that would write through to the evidence itself.
    let _ = std::fs::remove_file(to);
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map(|_| ())
}

/// `f` over `items` on as many threads as there are CPUs (at most 8), results in order.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(items.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break mine };
                        mine.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a site worker panicked"))
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Index fields read from an evidence file, as far as it is readable.
fn preview(path: &Path) -> IndexEntry {
    let value: serde_json::Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let text = |ptr: &str| {
        value
            .pointer(ptr)
            .and_then(|v| v.as_str())
            .map(String::from)
            .unwrap_or_default()
    };
    IndexEntry {
        file: String::new(),
        run_id: text("/run/id"),
        host: text("/environment/hostname"),
        started_at: text("/run/started_at"),
        complete: value
            .pointer("/run/complete")
            .and_then(|v| v.as_bool())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("xtask-site-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_folder_with_an_index_html_but_no_marker_is_never_wiped() {
        let www = scratch("www");
        std::fs::write(www.join("index.html"), "<h1>my real site</h1>").unwrap();
        std::fs::write(www.join("photo.jpg"), "jpeg").unwrap();
        let err = format!("{:#}", prepare_out(&www).unwrap_err());
        assert!(err.contains("not a site built by this command"), "{err}");
        assert_eq!(
            std::fs::read_to_string(www.join("index.html")).unwrap(),
            "<h1>my real site</h1>"
        );
        assert!(www.join("photo.jpg").is_file());
    }

    #[test]
    fn a_marked_site_is_cleared_and_marked_again() {
        let site = scratch("site");
        prepare_out(&site).unwrap(); // empty: fine
        assert!(site.join(MARKER).is_file());
        std::fs::write(site.join("index.html"), "old").unwrap();
        prepare_out(&site).unwrap();
        assert!(!site.join("index.html").exists(), "the old site is gone");
        assert!(site.join(MARKER).is_file() && site.join("results").is_dir());
    }

    #[test]
    fn an_evidence_file_over_the_cap_is_refused_by_name() {
        let results = scratch("big-results");
        let to = scratch("big-to");
        std::fs::write(results.join("small.json"), "{}").unwrap();
        std::fs::write(results.join("huge.json"), vec![b' '; 2000]).unwrap();
        let err = format!("{:#}", copy_results(&results, &to, 1000).unwrap_err());
        assert!(
            err.contains("huge.json is 2000 bytes, more than the 1000 bytes"),
            "{err}"
        );
        std::fs::write(results.join("huge.json"), "{}").unwrap();
        std::fs::write(results.join("index.json"), vec![b' '; 2000]).unwrap();
        let err = format!("{:#}", copy_results(&results, &to, 1000).unwrap_err());
        assert!(err.contains("index.json is 2000 bytes"), "{err}");
        std::fs::remove_file(results.join("index.json")).unwrap();
        let (index, _) = copy_results(&results, &to, 1000).unwrap();
        assert_eq!(index.runs.len(), 2);
    }

    #[test]
    fn the_page_names_the_landing_runs_head_with_its_file_name_escaped() {
        let page = std::fs::read_to_string(root().join("index.html")).unwrap();
        let mut b = shared::HistoryBuilder::default();
        b.run("a\"<b>&.json", &shared::sample::evidence());
        let mut asked = None;
        let out = with_landing_head(&page, b.finish(), |url| {
            asked = Some(url.to_string());
            Some(shared::sample::evidence())
        })
        .unwrap();
        assert_eq!(asked.as_deref(), Some("results/heads/a\"<b>&.json"));
        assert!(
            out.contains(r#"<link rel="preload" id="landing-head" href="results/heads/a&quot;&lt;b&gt;&amp;.json" as="fetch" crossorigin>"#),
            "{}",
            &out[..out.len().min(2000)]
        );
        assert_eq!(out.matches("id=\"landing-head\"").count(), 1);
        // The run's cards, in place of the marker.
        assert!(!out.contains(STATIC_HEAD));
        assert_eq!(out.matches("<main id=\"static-head\">").count(), 1);
        assert!(out.contains("TLS 1.3 full handshake (p50)"));
        // A head that cannot be read: no cards, the page still names it.
        let mut b = shared::HistoryBuilder::default();
        b.run("a.json", &shared::sample::evidence());
        let out = with_landing_head(&page, b.finish(), |_| None).unwrap();
        assert!(out.contains("id=\"landing-head\"") && !out.contains("id=\"static-head\""));
        // No run: the page as it is.
        assert_eq!(
            with_landing_head(&page, Default::default(), |_| None).unwrap(),
            page
        );
        assert!(with_landing_head(
            "<html>",
            {
                let mut b = shared::HistoryBuilder::default();
                b.run("a.json", &shared::sample::evidence());
                b.finish()
            },
            |_| None
        )
        .is_err());
    }

    #[test]
    fn the_history_lists_every_run_in_index_order_and_each_valid_run_has_a_summary() {
        let results = scratch("sum-results");
        let to = scratch("sum-to");
        let full = shared::sample::evidence();
        std::fs::write(results.join("b-good.json"), full.to_json()).unwrap();
        std::fs::write(results.join("a-broken.json"), "{").unwrap();
        let (index, _) = copy_results(&results, &to, MAX_FILE_BYTES).unwrap();
        let files: Vec<&str> = index.runs.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(files, ["a-broken.json", "b-good.json"]);
        let history =
            shared::History::from_json(&std::fs::read_to_string(to.join(HISTORY)).unwrap())
                .unwrap();
        assert_eq!(history.unreadable, ["a-broken.json"]);
        assert_eq!(history.runs.len(), 1);
        assert_eq!(history.runs[0].file, "b-good.json");
        assert_eq!(history.runs[0].run_id, "20261130T000000Z-sample-0000");
        assert_eq!(history.runs[0].arms.len(), full.arms.len());
        assert!(!to.join(SUMMARIES).join("a-broken.json").exists());
        let text = std::fs::read_to_string(to.join(SUMMARIES).join("b-good.json")).unwrap();
        let summary = shared::Evidence::from_json(&text).unwrap();
        assert!(summary.summary);
        assert_eq!(summary.run.id, "20261130T000000Z-sample-0000");
        assert!(summary.arms.iter().all(|a| a.samples_us.is_empty()));
        assert_eq!(summary.arms[1].latency_us, full.arms[1].latency_us);
        // Its head: valid evidence of the same run, summary-only, for the headline.
        assert!(!to.join(HEADS).join("a-broken.json").exists());
        let head = std::fs::read_to_string(to.join(HEADS).join("b-good.json")).unwrap();
        let head = shared::Evidence::from_json(&head).unwrap();
        assert!(head.summary);
        assert_eq!(head.run.id, summary.run.id);
        assert_eq!(head, head_of(&full));
        // The evidence itself is in the site, whole and unchanged.
        assert_eq!(
            std::fs::read_to_string(to.join("b-good.json")).unwrap(),
            full.to_json()
        );
        // Building again over the site leaves the source evidence whole.
        copy_results(&results, &to, MAX_FILE_BYTES).unwrap();
        assert_eq!(
            std::fs::read_to_string(results.join("b-good.json")).unwrap(),
            full.to_json()
        );
    }
}
