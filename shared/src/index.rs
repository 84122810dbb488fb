//! `index.json`: the list of evidence files in a results folder, kept by the collector
//! and read by the viewer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A results folder's table of contents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultsIndex {
    pub runs: Vec<IndexEntry>,
}

/// One evidence file in the folder. Only `file` is needed to load it; the rest is a
/// preview, read leniently (empty / false when absent) so hand-written indexes and the
/// ones `cargo xtask site` completes from unreadable files still load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IndexEntry {
    /// File name relative to the index (e.g. `20261130T024512Z-labbox-3f9a.json`).
    pub file: String,
    #[serde(default)]
    pub run_id: String,
    #[serde(default)]
    pub host: String,
    /// RFC 3339 UTC.
    #[serde(default)]
    pub started_at: String,
    #[serde(default)]
    pub complete: bool,
}

impl ResultsIndex {
    /// Adds `entry`, replacing an entry for the same file; keeps the runs ordered by start.
    pub fn upsert(&mut self, entry: IndexEntry) {
        self.runs.retain(|e| e.file != entry.file);
        self.runs.push(entry);
        crate::order::sort_by(&mut self.runs, &|a, b| {
            a.started_at.cmp(&b.started_at).then(a.file.cmp(&b.file))
        });
    }
}
