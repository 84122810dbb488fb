//! `cargo xtask site [--results DIR]… [--out SITE]`: the self-contained static results site.
//!
//! Layout: `index.html`, `viewer.js`, `viewer_bg.wasm`, `results/index.json`,
//! `results/history.json` (every run in brief: [`shared::History`]), and per run, under
//! its evidence file's name gzipped (`<file>.gz`, [`gz`]): `results/summaries/` (its
//! [`shared::Evidence::summary`]), `results/heads/` (the part of the summary the headline
//! reads: [`viewer::data::head`]), `results/` (the whole evidence) and
//! `results/raw/<run>/<arm index>.json.gz` (each arm's samples, [`shared::ArmSamples`]);
//! `--max-raw-runs N` keeps those last two for the newest N runs only, and says which it
//! left out. The page starts from the history and the run shown's head and summary (the
//! cards and the two charts draw from the head before the summary is in), fetches another
//! summary when a view shows that run, and an arm's samples only when the CDF draws that
//! arm; a file that is not valid evidence is listed in the history as unreadable and
//! fetched whole to show why. Every URL the page uses is relative, so the folder works
//! from any static host and any sub-path.
//!
//! Several `--results` folders (lab boxes) make one site: [`results::gather`]. A build
//! over the site it built before updates it: what an unchanged evidence file made is
//! reused ([`built`]), the runs that are gone are removed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
pub use viewer::data::load::{HEADS, SUMMARIES};

use crate::tools::{root, step};
use crate::wasm;

mod built;
mod gather;
mod gz;
mod landing;
mod results;

use built::Built;
use landing::with_landing_head;
use results::{copy_results, gather};

const USAGE: &str = "usage: cargo xtask site [--results DIR]... [--out SITE] [--max-raw-runs N]";

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut results = Vec::new();
    let mut out = None;
    let mut max_raw_runs = None;
    let mut with_docs = true;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .map(PathBuf::from)
                .with_context(|| format!("{arg} needs a folder ({USAGE})"))
        };
        match arg.as_str() {
            "--results" => results.push(value()?),
            "--out" => out = Some(value()?),
            "--no-docs" => with_docs = false,
            "--max-raw-runs" => {
                let n = it
                    .next()
                    .with_context(|| format!("--max-raw-runs needs a number ({USAGE})"))?;
                max_raw_runs = Some(n.parse::<usize>().ok().with_context(|| {
                    format!("--max-raw-runs takes a number of runs (0 or more), not `{n}`")
                })?);
            }
            "--help" | "-h" => {
                println!(
                    "{USAGE}\n\n\
                     Builds the static results site from the evidence in each --results folder\n\
                     (default: results/; several folders, e.g. one per lab box, make one site: a run\n\
                     met again in a later folder is taken once, and two different files of one\n\
                     name or one run id in two folders are an error)\n\
                     into --out (default: target/site). Building again over a site this command\n\
                     built updates it: unchanged evidence files are not read again, runs that are\n\
                     gone are removed. Serve it with `cargo xtask serve`, or copy it to any static host.\n\n\
                     Every run's files are gzipped (the page gunzips them with the browser's own\n\
                     DecompressionStream). A run's raw data (its whole evidence and each arm's samples,\n\
                     which only the CDF draws) is most of its share of the site; --max-raw-runs N keeps\n\
                     it for the newest N runs only (summaries and heads of every run stay), lists the\n\
                     runs it left out, and the page says so where it would show them. The build warns\n\
                     when the site passes {PAGES_LIMIT_MB} MB (GitHub Pages' limit) or a file {FILE_WARN_MB} MB.\n\n\
                     The book (`cargo xtask docs`) is built into SITE/docs/ and linked from the page;\n\
                     --no-docs leaves it out (the suite's sites do)."
                );
                return Ok(ExitCode::SUCCESS);
            }
            other => bail!("unknown site flag `{other}` ({USAGE})"),
        }
    }
    if results.is_empty() {
        results.push(root().join("results"));
    }
    let out = out.unwrap_or_else(default_out);
    build(&results, &out, max_raw_runs)?;
    if with_docs {
        crate::docs::into_site(&out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The file that marks a folder as a site this command built: only such a folder (or an
/// empty one) is ever written into.
pub const MARKER: &str = ".handshake-lab-site";

/// The largest evidence or index file the site takes (64 MiB). A quick run with phases is
/// under 1 MB and a 100,000-sample run a few MB; a file past this is refused by name
/// rather than handed to a browser tab.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Where `cargo xtask lab` puts the site (never committed: under target/).
pub fn default_out() -> PathBuf {
    root().join("target").join("site")
}

/// Every run in brief ([`shared::History`]): what the run list, the filters and the
/// trend draw from, whatever the number of runs.
pub const HISTORY: &str = "history.json";

/// GitHub Pages publishes sites up to 1 GB and warns about files over 50 MB (it refuses
/// them over 100 MB): the build says when the site passes either.
const PAGES_LIMIT_MB: u64 = 1000;
const FILE_WARN_MB: u64 = 50;

/// Builds (or updates) the site in `out` from the evidence in `folders`, with raw data for
/// the newest `max_raw_runs` runs (None: all).
pub fn build(folders: &[PathBuf], out: &Path, max_raw_runs: Option<usize>) -> Result<()> {
    // The runs first: a conflict between folders stops the build before anything is written.
    let sources = gather(folders, MAX_FILE_BYTES)?;
    prepare_out(out)?;
    wasm::build_viewer(out)?;
    let mut built = Built::read(out, &built::program());
    let (index, history, done) =
        copy_results(&sources, &out.join("results"), &mut built, max_raw_runs)?;
    built
        .write(out)
        .with_context(|| format!("could not write {}", out.join(built::BUILT).display()))?;
    step(format!("site: {done}"));
    let page = std::fs::read_to_string(root().join("index.html"))
        .context("could not read the page, index.html")?;
    let page = with_landing_head(&page, history, |url| {
        // This build wrote the head from valid evidence: one that does not read back is a
        // fault of the head's derivation, said here (the page still opens, on the viewer's
        // own cards, later).
        let read = gz::read_text(&out.join(url))
            .ok_or_else(|| "it could not be read".to_string())
            .and_then(|text| shared::Evidence::from_json(&text).map_err(|e| e.to_string()));
        read.map_err(|e| {
            eprintln!(
                "xtask: warning: the landing run's head {url} is not valid evidence ({e}); \
                 the page opens without its cards written in"
            )
        })
        .ok()
    })?;
    std::fs::write(out.join("index.html"), page)
        .context("could not write index.html into the site")?;
    let (total, largest) = sizes(out);
    step(format!(
        "site ready in {} ({} evidence file(s), {:.1} MB, largest file {:.2} MB); open index.html through any static server",
        out.display(),
        index.runs.len(),
        total as f64 / 1e6,
        largest.1 as f64 / 1e6
    ));
    if total > PAGES_LIMIT_MB * 1_000_000 {
        eprintln!(
            "xtask: warning: the site is {:.0} MB, over the {PAGES_LIMIT_MB} MB GitHub Pages publishes; \
             --max-raw-runs N keeps raw data for the newest N runs only",
            total as f64 / 1e6
        );
    }
    if largest.1 > FILE_WARN_MB * 1_000_000 {
        eprintln!(
            "xtask: warning: {} is {:.0} MB, over the {FILE_WARN_MB} MB GitHub warns about",
            largest.0.display(),
            largest.1 as f64 / 1e6
        );
    }
    Ok(())
}

/// The bytes of every file under `dir`, and its largest file.
pub fn sizes(dir: &Path) -> (u64, (PathBuf, u64)) {
    let mut total = 0;
    let mut largest = (PathBuf::new(), 0);
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                todo.push(e.path());
            } else {
                total += meta.len();
                if meta.len() > largest.1 {
                    largest = (e.path(), meta.len());
                }
            }
        }
    }
    (total, largest)
}

/// Makes `out` a place for the site without ever writing into a folder that is not one:
/// only an empty folder, or one holding the [`MARKER`] this command leaves, is used (and
/// a site built there before is updated, not wiped). (An `index.html` proves nothing:
/// `--out ~/www` must not be written into.) A site built before the marker existed is
/// recognised only at the default place, under this workspace's `target/`.
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
    }
    std::fs::create_dir_all(out.join("results"))
        .with_context(|| format!("could not create {}", out.display()))?;
    std::fs::write(
        out.join(MARKER),
        "made by `cargo xtask site`; the next build updates this folder\n",
    )
    .with_context(|| format!("could not mark {} as a site", out.display()))
}

/// `f` over `items` on as many threads as there are CPUs (at most 8), results in order.
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
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
    fn a_marked_site_is_kept_for_the_build_to_update_and_marked_again() {
        let site = scratch("site");
        prepare_out(&site).unwrap(); // empty: fine
        assert!(site.join(MARKER).is_file());
        std::fs::write(site.join("index.html"), "old").unwrap();
        prepare_out(&site).unwrap();
        assert!(
            site.join("index.html").exists(),
            "updated by the build, not wiped"
        );
        assert!(site.join(MARKER).is_file() && site.join("results").is_dir());
    }
}
