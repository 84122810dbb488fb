//! The set of loaded runs and of files that failed to load.

use std::fmt;
use std::rc::Rc;

use shared::{ArmKey, Evidence, FirstIndex, History};

pub use super::brief::{arm_keys, Brief, HistoryRun};

use super::format::short;
use super::index::{entry_url, raw_dir};

/// One evidence file that loaded and validated. Two are equal when they are the same load
/// of the same evidence (compared by pointer: a loaded run never changes), so the page's
/// property checks do not compare whole evidence files field by field, which was slow and
/// cost the wasm a deep comparison of every evidence type.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    /// Unique within a [`RunSet`], stable while the run stays loaded.
    pub key: u32,
    /// Where it came from: a URL relative to the page or a local file name.
    pub source: String,
    pub evidence: Rc<Evidence>,
}

impl PartialEq for LoadedRun {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
            && Rc::ptr_eq(&self.evidence, &other.evidence)
            && self.source == other.source
    }
}

impl LoadedRun {
    /// Short, human label: host and start time (`host · 2026-11-30 02:45`), each cut to
    /// [`SHOWN_CHARS`](super::format::SHOWN_CHARS) characters.
    pub fn label(&self) -> String {
        let env = &self.evidence.environment;
        format!(
            "{} · {}",
            short(&env.hostname),
            short(&short_time(&self.evidence.run.started_at))
        )
    }
}

/// `2026-11-30T02:45:12.123Z` → `2026-11-30 02:45:12` (UTC, as in the evidence);
/// other text is kept as it is.
pub fn short_time(rfc3339: &str) -> String {
    let t = rfc3339.replacen('T', " ", 1);
    let t = t.trim_end_matches('Z');
    match t.find('.') {
        Some(i) if i >= 19 => t[..i].to_string(),
        _ => t.to_string(),
    }
}

/// An arm of a loaded run.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArmRef {
    pub run_key: u32,
    pub arm_id: String,
}

/// A file that could not be used, and why (from [`shared::EvidenceError`] for
/// evidence, or the fetch/read error).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadFailure {
    pub source: String,
    pub reason: String,
}

impl fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.reason)
    }
}

/// How a fetched or read text joins a [`RunSet`] ([`RunSet::arrive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// A file of its own (added by the user, named by the page's URL, or listed in the
    /// history as unreadable, to show its error): [`RunSet::add_text`].
    File,
    /// The summary of a run known by its brief: [`RunSet::add_summary`].
    Summary,
    /// One arm's raw samples, for a run loaded as a summary: [`RunSet::add_arm_samples`].
    ArmSamples,
}

/// The largest evidence file the viewer reads (a default run is under 1 MB; a
/// 200,000-connection run's samples are a few MB).
pub const MAX_FILE_BYTES: usize = 64 << 20;

/// Every run known, and the evidence loaded so far, in load order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSet {
    /// The runs whose evidence (summary or whole file) is loaded.
    pub runs: Vec<LoadedRun>,
    /// Every run known: those loaded and those known only by their brief.
    pub history: Vec<HistoryRun>,
    /// Heads of runs whose summaries are not in yet ([`super::head`]): what the headline
    /// draws from until then.
    pub heads: Vec<LoadedRun>,
    pub failures: Vec<LoadFailure>,
    /// Arms' samples fetched on their own for runs loaded as summaries (see
    /// [`RunSet::raw_missing`]): by run key and arm index. Kept beside the summary, not
    /// written into it (a copy of a whole evidence tree costs the page's wasm its code).
    pub samples: Vec<(u32, usize, Rc<[f64]>)>,
    next_key: u32,
}

impl RunSet {
    /// Parses and validates `text` from `source`; a valid run is added, an invalid one
    /// becomes a [`LoadFailure`] naming the source and the reason.
    pub fn add_text(&mut self, source: &str, text: &str) -> Result<u32, LoadFailure> {
        if text.len() > MAX_FILE_BYTES {
            return Err(self.add_failure(
                source,
                format!(
                    "the file is {} MB; the viewer reads files up to {} MB",
                    text.len() >> 20,
                    MAX_FILE_BYTES >> 20
                ),
            ));
        }
        match Evidence::from_json(text) {
            Ok(evidence) => Ok(self.add(source, evidence)),
            Err(e) => Err(self.add_failure(source, e.to_string())),
        }
    }

    /// Adds a validated run and returns its key.
    pub fn add(&mut self, source: &str, evidence: Evidence) -> u32 {
        let key = self.next_key;
        self.next_key += 1;
        self.history.push(HistoryRun {
            key,
            source: source.to_string(),
            summary: None,
            head: None,
            raw: None,
            brief: Rc::new(Brief::of(source, &evidence)),
            hidden: false,
            duplicate_of: None,
        });
        self.mark_duplicates(self.history.len() - 1);
        self.runs.push(LoadedRun {
            key,
            source: source.to_string(),
            evidence: Rc::new(evidence),
        });
        key
    }

    /// Lists the runs of a site's history (`base`: the URL its file names are relative
    /// to), known by their briefs until their summaries are loaded.
    pub fn add_history(&mut self, history: History, base: &str) {
        let arms = Rc::new(history.arms);
        let start = self.history.len();
        for run in history.runs {
            let urls = entry_url(base, &run.file).and_then(|s| {
                let summary = entry_url(base, &format!("{SUMMARIES}/{}", run.file))?;
                let head = entry_url(base, &format!("{HEADS}/{}", run.file))?;
                let raw = match run.raw {
                    true => Some(entry_url(base, &raw_dir(&run.file))?),
                    false => None,
                };
                Ok((s, summary, head, raw))
            });
            let (source, summary, head, raw) = match urls {
                Ok(urls) => urls,
                Err(e) => {
                    self.add_failure(&run.file, e);
                    continue;
                }
            };
            let key = self.next_key;
            self.next_key += 1;
            self.history.push(HistoryRun {
                key,
                source,
                summary: Some(summary),
                head: Some(head),
                raw,
                brief: Rc::new(Brief {
                    arms: arms.clone(),
                    run,
                }),
                hidden: false,
                duplicate_of: None,
            });
        }
        self.mark_duplicates(start);
    }

    /// Sets `duplicate_of` on the known runs from `start` on whose run id a run listed
    /// earlier has: by a map, linear however many runs.
    fn mark_duplicates(&mut self, start: usize) {
        let mut first = FirstIndex::with_capacity(self.history.len());
        let mut dups = Vec::new();
        for (i, r) in self.history.iter().enumerate() {
            if let Some(j) = first.insert_first(&r.brief.run.run_id, i) {
                if i >= start {
                    dups.push((i, self.history[j].source.clone()));
                }
            }
        }
        for (i, source) in dups {
            self.history[i].duplicate_of = Some(source);
        }
    }

    /// Loads the summary fetched from `url` for the history run it belongs to; one that
    /// does not read, or is of another run, becomes a failure.
    pub fn add_summary(&mut self, url: &str, text: &str) {
        let Some(h) = self
            .history
            .iter()
            .find(|h| h.summary.as_deref() == Some(url))
        else {
            return;
        };
        if self.loaded(h.key).is_some() {
            return;
        }
        let (key, source, id) = (h.key, h.source.clone(), h.brief.run.run_id.clone());
        match Evidence::from_json(text) {
            Ok(ev) if ev.run.id != id => {
                self.add_failure(
                    url,
                    format!(
                        "the summary is of run {}, not of {}",
                        short(&ev.run.id),
                        short(&id)
                    ),
                );
            }
            Ok(evidence) => self.runs.push(LoadedRun {
                key,
                source,
                evidence: Rc::new(evidence),
            }),
            Err(e) => {
                self.add_failure(url, e.to_string());
            }
        }
    }

    /// Adds every text of `items` as `how` says; a source that could not be read becomes
    /// a failure naming it.
    pub fn arrive(&mut self, items: Vec<(String, Result<String, String>)>, how: Arrival) {
        for (source, text) in items {
            match text {
                Ok(text) => match how {
                    Arrival::File => {
                        let _ = self.add_text(&source, &text);
                    }
                    Arrival::Summary => self.add_summary(&source, &text),
                    Arrival::ArmSamples => self.add_arm_samples(&source, &text),
                },
                Err(reason) => {
                    self.add_failure(&source, reason);
                }
            }
        }
    }

    /// Records that `source` could not be loaded.
    pub fn add_failure(&mut self, source: &str, reason: impl Into<String>) -> LoadFailure {
        let failure = LoadFailure {
            source: source.to_string(),
            reason: reason.into(),
        };
        self.failures.push(failure.clone());
        failure
    }

    pub fn remove(&mut self, key: u32) {
        self.runs.retain(|r| r.key != key);
        self.heads.retain(|r| r.key != key);
        self.history.retain(|r| r.key != key);
    }

    pub fn toggle_hidden(&mut self, key: u32) {
        if let Some(run) = self.history.iter_mut().find(|r| r.key == key) {
            run.hidden = !run.hidden;
        }
    }

    pub fn dismiss_failure(&mut self, index: usize) {
        if index < self.failures.len() {
            self.failures.remove(index);
        }
    }

    /// The loaded runs not hidden, in load order (whether a run is hidden is its
    /// [`HistoryRun`]'s to say).
    pub fn visible(&self) -> impl Iterator<Item = &LoadedRun> {
        self.runs
            .iter()
            .filter(|r| self.shown().any(|h| h.key == r.key))
    }

    /// Every known run not hidden, loaded or not, in load order.
    pub fn shown(&self) -> impl Iterator<Item = &HistoryRun> {
        self.history.iter().filter(|r| !r.hidden)
    }

    /// The newest run shown (by start time, then run id).
    pub fn newest(&self) -> Option<&HistoryRun> {
        self.shown().max_by(|a, b| {
            let (ra, rb) = (&a.brief.run, &b.brief.run);
            (&ra.started_at, &ra.run_id).cmp(&(&rb.started_at, &rb.run_id))
        })
    }

    /// The arm keys the runs shown use (see [`arm_keys`]).
    pub fn shown_arm_keys(&self) -> Vec<&ArmKey> {
        arm_keys(self.shown())
    }

    /// The loaded run of `key`.
    pub fn loaded(&self, key: u32) -> Option<&LoadedRun> {
        self.runs.iter().find(|r| r.key == key)
    }

    /// [`RunSet::detail_keys`] with `fallback` (the run the page follows) when none of
    /// `picked` is shown. A pick beyond [`MAX_DETAIL`] is not taken (the page refuses it).
    pub fn detail_keys_or(&self, picked: &[u32], fallback: Option<u32>) -> Vec<u32> {
        let mut keys: Vec<u32> = picked
            .iter()
            .filter(|k| self.shown().any(|r| r.key == **k))
            .take(MAX_DETAIL)
            .copied()
            .collect();
        if keys.is_empty() {
            keys.extend(fallback);
        }
        keys
    }

    /// The runs of `keys` (known ones; only those loaded in `runs`), in that order.
    pub fn detail_of(&self, keys: &[u32]) -> RunSet {
        RunSet {
            runs: keys
                .iter()
                .filter_map(|k| self.loaded(*k))
                .cloned()
                .collect(),
            history: keys
                .iter()
                .filter_map(|k| self.history.iter().find(|r| r.key == *k))
                .cloned()
                .collect(),
            heads: Vec::new(),
            failures: Vec::new(),
            samples: self
                .samples
                .iter()
                .filter(|(k, _, _)| keys.contains(k))
                .cloned()
                .collect(),
            next_key: self.next_key,
        }
    }

    /// Summary URLs of the runs among `keys` whose evidence is not loaded yet.
    pub fn missing(&self, keys: &[u32]) -> Vec<String> {
        keys.iter()
            .filter(|k| self.loaded(**k).is_none())
            .filter_map(|k| self.history.iter().find(|r| r.key == *k)?.summary.clone())
            .collect()
    }
}

/// The most runs the detail view shows side by side.
pub const MAX_DETAIL: usize = 4;

/// Where a site keeps its runs' summaries ([`shared::Evidence::summary`]) and heads
/// ([`super::head`]), beside the history, under each evidence file's name.
pub const SUMMARIES: &str = "summaries";
pub const HEADS: &str = "heads";

mod heads;
mod raw;

#[cfg(test)]
mod tests;
