//! `cargo xtask site [--results DIR]… [--out SITE]`: the self-contained static results site.
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
mod landing;
mod results;

use built::Built;
use landing::with_landing_head;
use results::{copy_results, gather};

const USAGE: &str = "usage: cargo xtask site [--results DIR]... [--out SITE]";

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut results = Vec::new();
    let mut out = None;
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
            "--help" | "-h" => {
                println!(
                    "{USAGE}\n\n\
                     Builds the static results site from the evidence in each --results folder\n\
                     (default: results/; several folders, e.g. one per lab box, make one site: a run\n\
                     met again in a later folder is taken once, and two different files of one\n\
                     name or one run id in two folders are an error)\n\
                     into --out (default: target/site). Building again over a site this command\n\
                     built updates it: unchanged evidence files are not read again, runs that are\n\
                     gone are removed. Serve it with `cargo xtask serve`, or copy it to any static host."
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
    build(&results, &out)?;
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

/// Builds (or updates) the site in `out` from the evidence in `folders`.
pub fn build(folders: &[PathBuf], out: &Path) -> Result<()> {
    // The runs first: a conflict between folders stops the build before anything is written.
    let sources = gather(folders, MAX_FILE_BYTES)?;
    prepare_out(out)?;
    wasm::build_viewer(out)?;
    let mut built = Built::read(out, &built::program());
    let (index, history, done) = copy_results(&sources, &out.join("results"), &mut built)?;
    built
        .write(out)
        .with_context(|| format!("could not write {}", out.join(built::BUILT).display()))?;
    step(format!("site: {done}"));
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
