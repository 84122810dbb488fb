//! The set of loaded runs and of files that failed to load.

use std::fmt;
use std::rc::Rc;

use shared::Evidence;

use super::format::short;

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
    pub hidden: bool,
    /// The source of a run loaded earlier with the same run id (the same file twice).
    pub duplicate_of: Option<String>,
}

impl PartialEq for LoadedRun {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
            && self.hidden == other.hidden
            && Rc::ptr_eq(&self.evidence, &other.evidence)
            && self.source == other.source
            && self.duplicate_of == other.duplicate_of
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

/// The largest evidence file the viewer reads (a default run is under 1 MB; a
/// 200,000-connection run's samples are a few MB).
pub const MAX_FILE_BYTES: usize = 64 << 20;

/// Everything loaded so far, in load order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSet {
    pub runs: Vec<LoadedRun>,
    pub failures: Vec<LoadFailure>,
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
        let duplicate_of = self
            .runs
            .iter()
            .find(|r| r.evidence.run.id == evidence.run.id)
            .map(|r| r.source.clone());
        self.runs.push(LoadedRun {
            duplicate_of,
            key,
            source: source.to_string(),
            evidence: Rc::new(evidence),
            hidden: false,
        });
        key
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
    }

    pub fn toggle_hidden(&mut self, key: u32) {
        if let Some(run) = self.runs.iter_mut().find(|r| r.key == key) {
            run.hidden = !run.hidden;
        }
    }

    pub fn dismiss_failure(&mut self, index: usize) {
        if index < self.failures.len() {
            self.failures.remove(index);
        }
    }

    /// The runs not hidden, in load order.
    pub fn visible(&self) -> impl Iterator<Item = &LoadedRun> {
        self.runs.iter().filter(|r| !r.hidden)
    }

    /// Puts the whole evidence read from `source` in place of that run's summary (same
    /// key, same place); a file that does not read becomes a failure.
    pub fn add_full(&mut self, source: &str, text: &str) {
        let Some(i) = self
            .runs
            .iter()
            .position(|r| r.source == source && r.evidence.summary)
        else {
            return;
        };
        match Evidence::from_json(text) {
            Ok(evidence) => self.runs[i].evidence = Rc::new(evidence),
            Err(e) => {
                self.add_failure(source, e.to_string());
            }
        }
    }

    /// The runs the detail view shows: those in `picked` that are loaded and visible (at
    /// most [`MAX_DETAIL`], the latest picks), else the newest visible run.
    pub fn detail(&self, picked: &[u32]) -> RunSet {
        let mut runs: Vec<LoadedRun> = picked
            .iter()
            .rev()
            .filter_map(|k| self.visible().find(|r| r.key == *k))
            .take(MAX_DETAIL)
            .cloned()
            .collect();
        runs.reverse();
        if runs.is_empty() {
            let newest = self.visible().max_by(|a, b| {
                let (ra, rb) = (&a.evidence.run, &b.evidence.run);
                (&ra.started_at, &ra.id).cmp(&(&rb.started_at, &rb.id))
            });
            runs.extend(newest.cloned());
        }
        RunSet {
            runs,
            failures: Vec::new(),
            next_key: self.next_key,
        }
    }
}

/// The most runs the detail view shows side by side.
pub const MAX_DETAIL: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::{sample, sample_json};

    #[test]
    fn valid_files_load_and_bad_ones_are_reported_by_name() {
        let mut set = RunSet::default();
        assert!(set.add_text("results/good.json", &sample_json()).is_ok());
        let bad = set.add_text("results/bad.json", "{").unwrap_err();
        assert_eq!(bad.source, "results/bad.json");
        assert!(bad
            .to_string()
            .starts_with("results/bad.json: not valid JSON at line 1"));
        assert!(set.add_text("results/again.json", &sample_json()).is_ok());
        assert_eq!(set.runs.len(), 2);
        assert_eq!(set.failures.len(), 1);
        assert_ne!(set.runs[0].key, set.runs[1].key);
    }

    #[test]
    fn evidence_errors_pass_through_with_their_paths() {
        let mut set = RunSet::default();
        let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
        v["schema_version"] = 99.into();
        let e = set.add_text("v.json", &v.to_string()).unwrap_err();
        assert_eq!(
            e.reason,
            "unknown schema version 99 (this build reads version 1)"
        );

        let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
        v["arms"][1].as_object_mut().unwrap().remove("attempted");
        let e = set.add_text("m.json", &v.to_string()).unwrap_err();
        assert_eq!(e.reason, "at `arms[1]`: missing field `attempted`");

        let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
        v["arms"][0]["samples_us"][0] = "fast".into();
        let e = set.add_text("t.json", &v.to_string()).unwrap_err();
        assert!(e
            .reason
            .starts_with("at `arms[0].samples_us[0]`: invalid type"));

        let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
        v["arms"][0]["failed"] = 3.into();
        let e = set.add_text("i.json", &v.to_string()).unwrap_err();
        assert_eq!(
            e.reason,
            "at `arms[0].attempted`: succeeded (4) + failed (3) != attempted (4)"
        );
        assert_eq!(set.runs.len(), 0);
        assert_eq!(set.failures.len(), 4);
    }

    #[test]
    fn runs_can_be_hidden_and_removed() {
        let mut set = RunSet::default();
        let a = set.add("a.json", sample());
        let b = set.add("b.json", sample());
        set.toggle_hidden(a);
        assert_eq!(set.visible().map(|r| r.key).collect::<Vec<_>>(), vec![b]);
        set.toggle_hidden(a);
        set.remove(b);
        assert_eq!(set.visible().map(|r| r.key).collect::<Vec<_>>(), vec![a]);
        set.add_failure("x", "y");
        set.dismiss_failure(5);
        set.dismiss_failure(0);
        assert!(set.failures.is_empty());
    }

    #[test]
    fn times_are_shortened_to_seconds() {
        assert_eq!(
            short_time("2026-11-30T02:53:02.807269591Z"),
            "2026-11-30 02:53:02"
        );
        assert_eq!(short_time("yesterday"), "yesterday");
    }

    #[test]
    fn labels_show_host_and_time() {
        let mut set = RunSet::default();
        set.add("a.json", sample());
        assert_eq!(set.runs[0].label(), "sample-host · 2026-11-30 00:00:00");
        let mut ev = sample();
        ev.environment.hostname = "h".repeat(2_000_000);
        set.add("b.json", ev);
        assert_eq!(
            set.runs[1].label(),
            format!("{}… · 2026-11-30 00:00:00", "h".repeat(120))
        );
    }

    #[test]
    fn files_over_64_mb_are_refused_with_their_size() {
        let mut set = RunSet::default();
        let big = " ".repeat(65 << 20);
        let e = set.add_text("big.json", &big).unwrap_err();
        assert_eq!(
            e.to_string(),
            "big.json: the file is 65 MB; the viewer reads files up to 64 MB"
        );
        assert!(set.runs.is_empty());
    }

    #[test]
    fn the_detail_view_takes_the_latest_picks_or_the_newest_run() {
        let mut set = RunSet::default();
        let mut keys = Vec::new();
        for (id, at) in [
            ("b", "02"),
            ("c", "03"),
            ("a", "01"),
            ("d", "00"),
            ("e", "00"),
        ] {
            let mut e = sample();
            e.run.id = id.into();
            e.run.started_at = format!("2026-11-30T{at}:00:00Z");
            keys.push(set.add(&format!("{id}.json"), e));
        }
        let ids = |s: &RunSet| {
            s.runs
                .iter()
                .map(|r| r.evidence.run.id.clone())
                .collect::<Vec<_>>()
        };
        // Nothing picked: the newest (c, started 03:00), not the last loaded.
        assert_eq!(ids(&set.detail(&[])), ["c"]);
        // Five picks: the last four, in pick order; a hidden pick is left out.
        assert_eq!(ids(&set.detail(&keys)), ["c", "a", "d", "e"]);
        set.toggle_hidden(keys[3]);
        assert_eq!(ids(&set.detail(&keys)), ["b", "c", "a", "e"]);
        assert_eq!(ids(&set.detail(&[99])), ["c"]);
    }

    #[test]
    fn a_summary_is_replaced_by_its_whole_file_in_place() {
        let mut set = RunSet::default();
        let full = shared::sample::evidence();
        set.add_text("results/a.json", &full.summary_line())
            .unwrap();
        let key = set.runs[0].key;
        assert!(set.runs[0].evidence.arms[1].samples_us.is_empty());
        set.add_full("results/a.json", "{");
        assert_eq!(set.failures.len(), 1);
        assert!(set.runs[0].evidence.summary);
        set.add_full("results/a.json", &full.to_json());
        assert_eq!(set.runs[0].key, key);
        assert!(!set.runs[0].evidence.summary);
        assert_eq!(
            set.runs[0].evidence.arms[1].samples_us,
            full.arms[1].samples_us
        );
    }

    #[test]
    fn the_same_run_loaded_twice_is_flagged() {
        let mut set = RunSet::default();
        set.add("results/a.json", sample());
        let mut other = sample();
        other.run.id = "20261130T000001Z-sample-0001".into();
        set.add("results/b.json", other);
        set.add("my-copy.json", sample());
        let dups: Vec<Option<&str>> = set.runs.iter().map(|r| r.duplicate_of.as_deref()).collect();
        assert_eq!(dups, [None, None, Some("results/a.json")]);
    }
}
