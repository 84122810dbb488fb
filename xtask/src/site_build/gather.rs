//! The runs of one or more results folders, in order, each taken once: what a site is
//! built from ([`gather`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use viewer::data::index::{parse_index, IndexEntry, ResultsIndex};

use super::par_map;

/// One run of the site: the folder its file is in, and its index entry.
#[derive(Debug, Clone)]
pub struct Source {
    pub folder: PathBuf,
    pub entry: IndexEntry,
}

impl Source {
    pub fn path(&self) -> PathBuf {
        self.folder.join(&self.entry.file)
    }
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

/// The runs of `folders`, in order: each folder's `index.json` order and previews, then
/// the files it does not list. A run met again in a later folder (same file name, or same
/// run id) is taken once if its bytes are the same, else the build stops naming both
/// files. Within one folder every file is taken (copies of one run are runs of their own).
pub fn gather(folders: &[PathBuf], cap: u64) -> Result<Vec<Source>> {
    let mut out: Vec<Source> = Vec::new();
    for folder in folders {
        if !folder.is_dir() {
            bail!(
                "no results folder at {} (run `cargo xtask lab` or `collector run --out DIR` first)",
                folder.display()
            );
        }
        for entry in folder_runs(folder, cap)? {
            let new = Source {
                folder: folder.clone(),
                entry,
            };
            // Within one folder every file is a run of its own, as in a site of one
            // folder; between folders a file name or a run id is met again.
            let same = |s: &&Source| {
                s.folder != new.folder
                    && (s.entry.file == new.entry.file
                        || (!new.entry.run_id.is_empty() && s.entry.run_id == new.entry.run_id))
            };
            let Some(taken) = out.iter().find(same) else {
                out.push(new);
                continue;
            };
            let (a, b) = (taken.path(), new.path());
            let bytes = |p: &Path| {
                std::fs::read(p).with_context(|| format!("could not read {}", p.display()))
            };
            if bytes(&a)? != bytes(&b)? {
                let why = if taken.entry.file == new.entry.file {
                    "are different files with the same name".to_string()
                } else {
                    format!("are different files of the same run, {}", new.entry.run_id)
                };
                bail!(
                    "{} and {} {why}: a site holds a run once; remove or rename one",
                    a.display(),
                    b.display()
                );
            }
            eprintln!(
                "xtask: {} is the same file as {} (taken once)",
                b.display(),
                a.display()
            );
        }
    }
    Ok(out)
}

/// One folder's runs: the order and previews of its `index.json` when it exists, then
/// any file it does not list (a listed file that is missing is left out with a warning).
fn folder_runs(from: &Path, cap: u64) -> Result<Vec<IndexEntry>> {
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
    let mut runs = Vec::new();
    for entry in listed.runs {
        if files.contains(&entry.file) {
            runs.push(entry);
        } else {
            eprintln!(
                "xtask: warning: {} lists {}, which is not in {} (left out)",
                index_path.display(),
                entry.file,
                from.display()
            );
        }
    }
    let unlisted: Vec<String> = files
        .into_iter()
        .filter(|file| !runs.iter().any(|e: &IndexEntry| &e.file == file))
        .collect();
    let previews = par_map(&unlisted, |file| preview(&from.join(file)));
    for (file, preview) in unlisted.into_iter().zip(previews) {
        runs.push(IndexEntry { file, ..preview });
    }
    Ok(runs)
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
