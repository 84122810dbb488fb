//! The site's `results/`: the runs of one or more results folders ([`gather`]), each
//! valid run's summary and head (reused from the last
//! build where the file has not changed: [`super::built`]) and raw data (its whole
//! evidence and each arm's samples, unless `--max-raw-runs` leaves them out), all gzipped
//! ([`super::gz`]), the index and the history. The files of runs no longer in any folder
//! are removed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use viewer::data::head::head_of;
use viewer::data::index::{index_json, raw_dir, raw_name, IndexEntry, ResultsIndex, RAW};

use super::built::{content_hash, Built};
use super::gz;
use super::{par_map, HEADS, HISTORY, SUMMARIES};

pub use super::gather::{gather, Source};

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
    /// Runs whose raw data (whole evidence, per-arm samples) `--max-raw-runs` left out.
    pub left_out: Vec<String>,
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
        if !self.left_out.is_empty() {
            const NAMED: usize = 10;
            let n = self.left_out.len();
            write!(
                f,
                "; raw data (whole evidence, per-arm samples) left out for {n} run(s), summary and head kept: {}",
                self.left_out[..n.min(NAMED)].join(", ")
            )?;
            if n > NAMED {
                write!(f, " and {} more (the history marks each)", n - NAMED)?;
            }
        }
        Ok(())
    }
}

/// The name a run's files have in the site: its evidence file's, gzipped.
pub fn site_name(file: &str) -> String {
    format!("{file}.gz")
}

/// Which runs keep their raw data in the site (`--max-raw-runs N`: the newest N, by start
/// time then run id; None: every run).
fn raw_kept(sources: &[Source], max_raw_runs: Option<usize>) -> Vec<bool> {
    let Some(n) = max_raw_runs else {
        return vec![true; sources.len()];
    };
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&sources[a].entry, &sources[b].entry);
        (&b.started_at, &b.run_id).cmp(&(&a.started_at, &a.run_id))
    });
    let mut kept = vec![false; sources.len()];
    for &i in order.iter().take(n) {
        kept[i] = true;
    }
    kept
}

/// Writes every run into `to`, gzipped: its whole evidence and each arm's samples (unless
/// `max_raw_runs` leaves them out: then only its summary and head), its summary and head
/// (kept as they are where `built` says the file has not changed), the index and the
/// history; removes the files of runs that are gone. `built` becomes the record of this
/// build.
pub fn copy_results(
    sources: &[Source],
    to: &Path,
    built: &mut Built,
    max_raw_runs: Option<usize>,
) -> Result<(ResultsIndex, shared::History, Done)> {
    for dir in [SUMMARIES, HEADS, RAW] {
        std::fs::create_dir_all(to.join(dir))
            .with_context(|| format!("could not create results/{dir}"))?;
    }
    let before = std::mem::take(&mut built.runs);
    let kept = raw_kept(sources, max_raw_runs);
    let jobs: Vec<(&Source, bool)> = sources.iter().zip(kept).collect();
    // Each file is read, checked and summarised on its own thread; the history is built
    // from the summaries in the index's order.
    let made = par_map(&jobs, |(src, raw)| summarise(src, to, &before, *raw));
    let mut done = Done::default();
    let mut history = shared::HistoryBuilder::default();
    for ((src, raw), made) in jobs.iter().zip(made) {
        let file = &src.entry.file;
        let name = site_name(file);
        let (summary, hash) = match made? {
            Made::Reused(summary, hash) => {
                done.reused += 1;
                (summary, hash)
            }
            Made::Built(summary, hash) => {
                done.built += 1;
                (summary, hash)
            }
            Made::Unreadable => {
                done.unreadable += 1;
                history.unreadable(&name);
                continue;
            }
        };
        history.run(&name, &summary);
        if !raw {
            history.without_raw();
            done.left_out.push(file.clone());
        }
        built.runs.insert(file.clone(), hash);
    }
    let keep: BTreeSet<String> = sources.iter().map(|s| site_name(&s.entry.file)).collect();
    done.removed = remove_gone(to, &keep)?;
    let index = ResultsIndex {
        runs: sources
            .iter()
            .map(|s| IndexEntry {
                file: site_name(&s.entry.file),
                ..s.entry.clone()
            })
            .collect(),
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

/// The run of `src` in `to`: summary and head (reused when the file is unchanged), and its
/// raw data when `raw` (else any left from an earlier build removed).
fn summarise(
    src: &Source,
    to: &Path,
    before: &BTreeMap<String, String>,
    raw: bool,
) -> Result<Made> {
    let file = &src.entry.file;
    let name = site_name(file);
    let from = src.path();
    let bytes =
        std::fs::read(&from).with_context(|| format!("could not read {}", from.display()))?;
    let hash = content_hash(&bytes);
    let whole = to.join(&name);
    let raw_dir = to.join(raw_dir(&name));
    let (summary, head) = (to.join(SUMMARIES).join(&name), to.join(HEADS).join(&name));
    let unchanged = before.get(file) == Some(&hash);
    // Raw data is rewritten whenever the file changed or was left out before.
    if unchanged && head.is_file() && (!raw || whole.is_file()) {
        if let Some(kept) =
            gz::read_text(&summary).and_then(|t| shared::Evidence::from_json(&t).ok())
        {
            if !raw {
                drop_raw(&whole, &raw_dir)?;
            }
            return Ok(Made::Reused(kept, hash));
        }
    }
    let evidence = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|t| shared::Evidence::from_json(t).ok());
    let Some(ev) = evidence else {
        // A file that was valid before and is not now leaves no summary, head or samples
        // behind; the file itself stays, for the page to show why it does not read.
        let _ = std::fs::remove_file(&summary);
        let _ = std::fs::remove_file(&head);
        let _ = std::fs::remove_dir_all(&raw_dir);
        gz::write(&whole, &bytes).with_context(|| format!("could not write {name}"))?;
        return Ok(Made::Unreadable);
    };
    gz::write(&summary, ev.summary_line().as_bytes())
        .with_context(|| format!("could not write the summary of {file}"))?;
    gz::write(&head, head_of(&ev).to_json().as_bytes())
        .with_context(|| format!("could not write the head of {file}"))?;
    drop_raw(&whole, &raw_dir)?;
    if raw {
        write_raw(&ev, &bytes, &whole, &raw_dir)
            .with_context(|| format!("could not write the raw data of {file}"))?;
    }
    Ok(Made::Built(ev.summary(), hash))
}

/// The whole evidence (`bytes`, gzipped) and each arm's samples, one file per arm that has
/// any, named by the arm's index.
fn write_raw(ev: &shared::Evidence, bytes: &[u8], whole: &Path, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (i, arm) in ev.arms.iter().enumerate() {
        if !arm.samples_us.is_empty() {
            let text = shared::ArmSamples::of(arm).to_json();
            gz::write(&dir.join(raw_name(i)), text.as_bytes())?;
        }
    }
    // Last: its presence says the run's raw data is all there.
    gz::write(whole, bytes)
}

/// Removes a run's whole evidence and per-arm samples from the site.
fn drop_raw(whole: &Path, dir: &Path) -> Result<()> {
    for r in [std::fs::remove_file(whole), std::fs::remove_dir_all(dir)] {
        match r {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("could not remove {}", whole.display()))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Removes from `to` (and its summaries, heads and raw samples) every run not in `keep`
/// (site names, `<file>.gz`), and what an older build left (plain `.json` copies);
/// returns the runs removed.
fn remove_gone(to: &Path, keep: &BTreeSet<String>) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    let names = |dir: &Path| -> Result<Vec<(String, bool)>> {
        Ok(std::fs::read_dir(dir)
            .with_context(|| format!("could not read {}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path().is_dir())))
            .collect())
    };
    for (dir, own) in [
        (to.to_path_buf(), true),
        (to.join(SUMMARIES), false),
        (to.join(HEADS), false),
    ] {
        for (name, is_dir) in names(&dir)? {
            let run = name.ends_with(".json.gz") || name.ends_with(".json");
            if is_dir
                || !run
                || name.starts_with('.')
                || name == "index.json"
                || name == HISTORY
                || keep.contains(&name)
            {
                continue;
            }
            std::fs::remove_file(dir.join(&name))
                .with_context(|| format!("could not remove {}", dir.join(&name).display()))?;
            if own && name.ends_with(".gz") {
                removed.push(name.trim_end_matches(".gz").to_string());
            }
        }
    }
    let kept_dirs: BTreeSet<String> = keep.iter().map(|n| raw_dir(n)).collect();
    for (name, is_dir) in names(&to.join(RAW))? {
        if is_dir && !kept_dirs.contains(&format!("{RAW}/{name}/")) {
            std::fs::remove_dir_all(to.join(RAW).join(&name))
                .with_context(|| format!("could not remove results/{RAW}/{name}"))?;
        }
    }
    Ok(removed)
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
