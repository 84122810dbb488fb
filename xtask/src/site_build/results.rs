//! The site's `results/`: the evidence of one or more results folders, merged (a run is
//! taken once, by file name and run id; two different files claiming one name or one run
//! are an error naming both), each valid run's summary and head (reused from the last
//! build where the file has not changed: [`super::built`]), the index and the history.
//! The files of runs no longer in any folder are removed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use viewer::data::head::head_of;
use viewer::data::index::{index_json, parse_index, IndexEntry, ResultsIndex};

use super::built::{content_hash, Built};
use super::{par_map, HEADS, HISTORY, SUMMARIES};

/// One run of the site: the folder its file is in, and its index entry.
#[derive(Debug, Clone)]
pub struct Source {
    pub folder: PathBuf,
    pub entry: IndexEntry,
}

impl Source {
    fn path(&self) -> PathBuf {
        self.folder.join(&self.entry.file)
    }
}

/// What a build did with the runs (its log line).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// Runs whose file had not changed since the last build: summary and head kept.
    pub reused: usize,
    /// Runs read, summarised and written anew (new or changed files).
    pub built: usize,
    /// Files that are not valid evidence (listed as unreadable; the page shows why).
    pub unreadable: usize,
    /// Evidence files of the last build that are in no results folder now, removed.
    pub removed: Vec<String>,
}

impl std::fmt::Display for Done {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} run(s) unchanged since the last build (summary and head reused), {} read and summarised, {} not valid evidence, {} removed",
            self.reused,
            self.built,
            self.unreadable,
            self.removed.len()
        )?;
        if !self.removed.is_empty() {
            write!(f, " ({})", self.removed.join(", "))?;
        }
        Ok(())
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

/// Links every run's evidence into `to` and writes its summary and head (kept as they are
/// where `built` says the file has not changed), the index and the history; removes the
/// files of runs that are gone. `built` becomes the record of this build.
pub fn copy_results(
    sources: &[Source],
    to: &Path,
    built: &mut Built,
) -> Result<(ResultsIndex, shared::History, Done)> {
    for dir in [SUMMARIES, HEADS] {
        std::fs::create_dir_all(to.join(dir))
            .with_context(|| format!("could not create results/{dir}"))?;
    }
    let before = std::mem::take(&mut built.runs);
    // Each file is read, checked and summarised on its own thread; the history is built
    // from the summaries in the index's order.
    let made = par_map(sources, |src| summarise(src, to, &before));
    let mut done = Done::default();
    let mut history = shared::HistoryBuilder::default();
    for (src, made) in sources.iter().zip(made) {
        let file = &src.entry.file;
        match made? {
            Made::Reused(summary, hash) => {
                done.reused += 1;
                history.run(file, &summary);
                built.runs.insert(file.clone(), hash);
            }
            Made::Built(summary, hash) => {
                done.built += 1;
                history.run(file, &summary);
                built.runs.insert(file.clone(), hash);
            }
            Made::Unreadable => {
                done.unreadable += 1;
                history.unreadable(file);
            }
        }
    }
    let keep: BTreeSet<&str> = sources.iter().map(|s| s.entry.file.as_str()).collect();
    done.removed = remove_gone(to, &keep)?;
    let index = ResultsIndex {
        runs: sources.iter().map(|s| s.entry.clone()).collect(),
    };
    std::fs::write(to.join("index.json"), index_json(&index))
        .context("could not write results/index.json")?;
    let history = history.finish();
    std::fs::write(to.join(HISTORY), history.to_json())
        .with_context(|| format!("could not write results/{HISTORY}"))?;
    Ok((index, history, done))
}

/// What became of one run: its summary (for the history) and content hash, or unreadable.
enum Made {
    Reused(shared::Evidence, String),
    Built(shared::Evidence, String),
    Unreadable,
}

fn summarise(src: &Source, to: &Path, before: &BTreeMap<String, String>) -> Result<Made> {
    let file = &src.entry.file;
    let from = src.path();
    let bytes =
        std::fs::read(&from).with_context(|| format!("could not read {}", from.display()))?;
    let hash = content_hash(&bytes);
    link_or_copy(&from, &to.join(file)).with_context(|| format!("could not copy {file}"))?;
    let (summary, head) = (to.join(SUMMARIES).join(file), to.join(HEADS).join(file));
    if before.get(file) == Some(&hash) && head.is_file() {
        let kept = std::fs::read_to_string(&summary)
            .ok()
            .and_then(|t| shared::Evidence::from_json(&t).ok());
        if let Some(kept) = kept {
            return Ok(Made::Reused(kept, hash));
        }
    }
    let evidence = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|t| shared::Evidence::from_json(t).ok());
    let Some(ev) = evidence else {
        // A file that was valid before and is not now leaves no summary or head behind.
        let _ = std::fs::remove_file(&summary);
        let _ = std::fs::remove_file(&head);
        return Ok(Made::Unreadable);
    };
    std::fs::write(&summary, ev.summary_line())
        .with_context(|| format!("could not write the summary of {file}"))?;
    std::fs::write(&head, head_of(&ev).to_json())
        .with_context(|| format!("could not write the head of {file}"))?;
    Ok(Made::Built(ev.summary(), hash))
}

/// Removes from `to` (and its summaries and heads) every run file not in `keep`; returns
/// the evidence files removed.
fn remove_gone(to: &Path, keep: &BTreeSet<&str>) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for (dir, own) in [
        (to.to_path_buf(), true),
        (to.join(SUMMARIES), false),
        (to.join(HEADS), false),
    ] {
        let names: Vec<String> = std::fs::read_dir(&dir)
            .with_context(|| format!("could not read {}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
            .filter(|n| n != "index.json" && n != HISTORY && !keep.contains(n.as_str()))
            .collect();
        for name in names {
            std::fs::remove_file(dir.join(&name))
                .with_context(|| format!("could not remove {}", dir.join(&name).display()))?;
            if own {
                removed.push(name);
            }
        }
    }
    Ok(removed)
}

/// A hard link where the file system allows one (evidence files are never edited, and a
/// site of 1,000 default runs would otherwise hold a second copy of 1.5 GB), else a copy.
fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    // Never copy onto an existing link: that would write through to the evidence itself.
    let _ = std::fs::remove_file(to);
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map(|_| ())
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
#[path = "results_tests.rs"]
mod tests;
