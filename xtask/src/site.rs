//! `cargo xtask site --results DIR --out SITE`: the self-contained static results site.
//!
//! Layout: `index.html`, `viewer.js`, `viewer_bg.wasm`, `results/*.json` and
//! `results/index.json`. Every URL the page uses is relative, so the folder works from any
//! static host and any sub-path.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use viewer::data::index::{index_json, parse_index, IndexEntry, ResultsIndex};

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
    std::fs::copy(root().join("index.html"), out.join("index.html"))
        .context("could not copy index.html into the site")?;
    let index = copy_results(results, &out.join("results"))?;
    step(format!(
        "site ready in {} ({} evidence file(s)); open index.html through any static server",
        out.display(),
        index.runs.len()
    ));
    Ok(())
}

/// Makes `out` an empty place for a site without ever wiping a folder that is not one.
fn prepare_out(out: &Path) -> Result<()> {
    if out.exists() {
        let is_site = out.join("index.html").is_file();
        let empty = std::fs::read_dir(out)
            .with_context(|| format!("could not read {}", out.display()))?
            .next()
            .is_none();
        if !is_site && !empty {
            bail!(
                "{} exists and is not a site built by this command; pick another --out",
                out.display()
            );
        }
        std::fs::remove_dir_all(out)
            .with_context(|| format!("could not clear the old site in {}", out.display()))?;
    }
    std::fs::create_dir_all(out.join("results"))
        .with_context(|| format!("could not create {}", out.display()))
}

/// Copies every evidence file (`*.json` except `index.json`) and writes the site's index:
/// the order and previews of `results/index.json` when it exists, then any file it does
/// not list. Files are copied as they are: a broken one is shown broken by the viewer.
fn copy_results(from: &Path, to: &Path) -> Result<ResultsIndex> {
    let listed = match std::fs::read_to_string(from.join("index.json")) {
        Ok(text) => parse_index(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", from.join("index.json").display()))?,
        Err(_) => ResultsIndex::default(),
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
    for file in files {
        if !index.runs.iter().any(|e| e.file == file) {
            let preview = preview(&from.join(&file));
            index.runs.push(IndexEntry { file, ..preview });
        }
    }
    for entry in &index.runs {
        std::fs::copy(from.join(&entry.file), to.join(&entry.file))
            .with_context(|| format!("could not copy {}", entry.file))?;
    }
    std::fs::write(to.join("index.json"), index_json(&index))
        .context("could not write results/index.json")?;
    Ok(index)
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
