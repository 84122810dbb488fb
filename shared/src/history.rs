//! `results/history.json`: every run of a site in a few bytes per arm, for the pages that
//! show many runs (`cargo xtask site` writes it beside the evidence).
//!
//! The run list and the trend need, per run, only its card line (id, host, start, tool,
//! complete) and per arm its p50 and the p50's 95% CI; filters and pickers need each
//! arm's id and facets, which are the same in every run and so are listed once. A run's
//! whole summary (`summaries/<file>`) is fetched only when a view shows that run, and an
//! arm's raw samples (`raw/<run>/<arm index>.json.gz`) only when the CDF draws that arm. At 121 arms a run
//! is about 3 KB here against 317 KB of summary (`cargo xtask bench` on a default run:
//! 310,510 bytes of history for 100 runs).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::schema::{CertKind, Evidence, KxGroup, Mode, Protocol, RunKind, Stack};
use crate::setup::Setup;
use crate::validate::MAX_US;

/// The history of a results folder: arm keys once, then one brief per run. Written as
/// an array, `[arms, runs, unreadable]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "HistoryRow", into = "HistoryRow")]
pub struct History {
    /// Every distinct arm (id and facets) of the runs, in first-seen order.
    pub arms: Vec<ArmKey>,
    /// One per valid evidence file, in the index's order.
    pub runs: Vec<RunBrief>,
    /// Files listed in the index that are not valid evidence: the page fetches them
    /// whole to show their own errors.
    pub unreadable: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct HistoryRow(Vec<ArmKey>, Vec<RunBrief>, Vec<String>);

impl From<HistoryRow> for History {
    fn from(HistoryRow(arms, runs, unreadable): HistoryRow) -> History {
        History {
            arms,
            runs,
            unreadable,
        }
    }
}

impl From<History> for HistoryRow {
    fn from(h: History) -> HistoryRow {
        HistoryRow(h.arms, h.runs, h.unreadable)
    }
}

/// What names an arm and what the page filters it by. Written as an array,
/// `[id, stack, protocol, mode, cert, kx_group]` (an array's reader is a fraction of an
/// object's in the page's wasm, and 1,000 runs repeat no names).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "ArmKeyRow", into = "ArmKeyRow")]
pub struct ArmKey {
    pub id: String,
    pub stack: Stack,
    pub protocol: Protocol,
    pub mode: Mode,
    pub cert: Option<CertKind>,
    pub kx_group: Option<KxGroup>,
}

/// One run in brief. Written as an array, `[file, run_id, host, started_at, complete,
/// tool, arms, kind, setup, raw, conditions]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RunBriefRow", into = "RunBriefRow")]
pub struct RunBrief {
    /// The evidence file, relative to the history (as in the index).
    pub file: String,
    pub run_id: String,
    pub host: String,
    /// RFC 3339 UTC.
    pub started_at: String,
    pub complete: bool,
    /// `name version` of the collector that wrote it.
    pub tool: String,
    /// Every arm of the run, in its order.
    pub arms: Vec<BriefArm>,
    /// The kind of run ([`Evidence::kind`]); `None` in a history written before it was
    /// recorded.
    pub kind: Option<RunKind>,
    /// The setup fingerprint ([`Evidence::setup`]); empty in an older history.
    pub setup: Setup,
    /// Whether the site holds this run's raw data (its whole evidence file and each arm's
    /// samples, `raw/<run>/<arm index>.json.gz`); false for a run `cargo xtask site
    /// --max-raw-runs` left them out of (its summary and head stay). True in an older
    /// history.
    pub raw: bool,
    /// How noisy the run was ([`crate::conditions`]): what comparing it with another run
    /// needs. Unrecorded in an older history.
    pub conditions: crate::conditions::Brief,
}

/// One arm of one run: `[index into History::arms, p50 µs, 95% CI of the p50]`. The p50
/// is `null` when the arm has no latencies or an error (the trend draws no point then).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BriefArm(pub u32, pub Option<f64>, pub Option<[f64; 2]>);

#[derive(Serialize, Deserialize)]
struct ArmKeyRow(
    String,
    Stack,
    Protocol,
    Mode,
    Option<CertKind>,
    Option<KxGroup>,
);

impl From<ArmKeyRow> for ArmKey {
    fn from(r: ArmKeyRow) -> ArmKey {
        let ArmKeyRow(id, stack, protocol, mode, cert, kx_group) = r;
        ArmKey {
            id,
            stack,
            protocol,
            mode,
            cert,
            kx_group,
        }
    }
}

impl From<ArmKey> for ArmKeyRow {
    fn from(k: ArmKey) -> ArmKeyRow {
        ArmKeyRow(k.id, k.stack, k.protocol, k.mode, k.cert, k.kx_group)
    }
}

#[derive(Serialize, Deserialize)]
struct RunBriefRow(
    String,
    String,
    String,
    String,
    bool,
    String,
    Vec<BriefArm>,
    #[serde(default)] Option<RunKind>,
    #[serde(default)] Setup,
    #[serde(default = "kept")] bool,
    #[serde(default)] crate::conditions::Brief,
);

fn kept() -> bool {
    true
}

impl From<RunBriefRow> for RunBrief {
    fn from(r: RunBriefRow) -> RunBrief {
        let RunBriefRow(
            file,
            run_id,
            host,
            started_at,
            complete,
            tool,
            arms,
            kind,
            setup,
            raw,
            conditions,
        ) = r;
        RunBrief {
            file,
            run_id,
            host,
            started_at,
            complete,
            tool,
            arms,
            kind,
            setup,
            raw,
            conditions,
        }
    }
}

impl From<RunBrief> for RunBriefRow {
    fn from(b: RunBrief) -> RunBriefRow {
        RunBriefRow(
            b.file,
            b.run_id,
            b.host,
            b.started_at,
            b.complete,
            b.tool,
            b.arms,
            b.kind,
            b.setup,
            b.raw,
            b.conditions,
        )
    }
}

impl ArmKey {
    pub fn of(arm: &crate::schema::Arm) -> ArmKey {
        ArmKey {
            id: arm.id.clone(),
            stack: arm.stack,
            protocol: arm.protocol,
            mode: arm.mode,
            cert: arm.cert,
            kx_group: arm.kx_group,
        }
    }
}

impl RunBrief {
    /// The brief of `ev` (stored as `file`), its arms numbered by `index_of`.
    pub fn of(file: &str, ev: &Evidence, mut index_of: impl FnMut(ArmKey) -> u32) -> RunBrief {
        RunBrief {
            file: file.to_string(),
            run_id: ev.run.id.clone(),
            host: ev.environment.hostname.clone(),
            started_at: ev.run.started_at.clone(),
            complete: ev.run.complete,
            tool: format!("{} {}", ev.run.tool.name, ev.run.tool.version),
            arms: ev
                .arms
                .iter()
                .map(|a| {
                    let p50 = a.latency_us.filter(|_| a.error.is_none()).map(|l| l.p50);
                    BriefArm(index_of(ArmKey::of(a)), p50, p50.and(a.p50_ci95_us))
                })
                .collect(),
            kind: Some(ev.kind()),
            setup: ev.setup(),
            raw: true,
            conditions: crate::conditions::of_run(ev).brief(),
        }
    }
}

/// Builds a [`History`] run by run, each distinct arm key listed once (a map, so
/// 1,000 runs of 121 arms are linear work).
#[derive(Debug, Default)]
pub struct HistoryBuilder {
    history: History,
    seen: HashMap<ArmKey, u32>,
}

impl HistoryBuilder {
    /// Adds the valid evidence `ev` stored as `file`.
    pub fn run(&mut self, file: &str, ev: &Evidence) {
        let (arms, seen) = (&mut self.history.arms, &mut self.seen);
        let brief = RunBrief::of(file, ev, |key| {
            *seen.entry(key.clone()).or_insert_with(|| {
                arms.push(key);
                (arms.len() - 1) as u32
            })
        });
        self.history.runs.push(brief);
    }

    /// Marks the run added last as one whose raw data the site left out.
    pub fn without_raw(&mut self) {
        if let Some(r) = self.history.runs.last_mut() {
            r.raw = false;
        }
    }

    /// Records `file` as listed but not valid evidence.
    pub fn unreadable(&mut self, file: &str) {
        self.history.unreadable.push(file.to_string());
    }

    pub fn finish(self) -> History {
        self.history
    }
}

impl History {
    /// The history as compact JSON (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a history serializes")
    }

    /// Reads and checks a history: every arm index in range, every p50 and CI bound
    /// finite, positive and plausible, each CI in order. The error names the place.
    pub fn from_json(text: &str) -> Result<History, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let history: History = crate::objects::from_str(text).map_err(|e| {
            format!(
                "not a run history (line {}, column {})",
                e.line(),
                e.column()
            )
        })?;
        let n = history.arms.len();
        let plausible = |v: f64| v > 0.0 && v <= MAX_US;
        for (i, run) in history.runs.iter().enumerate() {
            for (j, BriefArm(k, p50, ci)) in run.arms.iter().enumerate() {
                let at = || format!("runs[{i}].arms[{j}]");
                if *k as usize >= n {
                    return Err(format!("at `{}`: arm index {k} of {n} arms", at()));
                }
                if p50.is_some_and(|v| !plausible(v)) {
                    return Err(format!("at `{}`: the p50 is not a plausible time", at()));
                }
                if let Some([lo, hi]) = ci {
                    if !(plausible(*lo) && plausible(*hi) && lo <= hi) || p50.is_none() {
                        return Err(format!(
                            "at `{}`: the CI is not an interval of times around a p50",
                            at()
                        ));
                    }
                }
            }
        }
        Ok(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn a_history_round_trips_and_lists_each_arm_once() {
        let a = sample::evidence();
        let mut b = sample::evidence();
        b.run.id = "second".into();
        b.arms[1].error = Some("broken".into());
        let mut builder = HistoryBuilder::default();
        builder.run("a.json", &a);
        builder.run("b.json", &b);
        builder.unreadable("c.json");
        let h = builder.finish();
        assert_eq!(h.arms.len(), a.arms.len(), "the same arms, listed once");
        assert_eq!(h.arms[1].id, a.arms[1].id);
        assert_eq!(h.arms[1].protocol, a.arms[1].protocol);
        let back = History::from_json(&h.to_json()).unwrap();
        assert_eq!(back, h);
        let (ra, rb) = (&back.runs[0], &back.runs[1]);
        assert_eq!(
            (ra.file.as_str(), ra.run_id.as_str()),
            ("a.json", a.run.id.as_str())
        );
        assert_eq!(rb.run_id, "second");
        assert_eq!(ra.host, a.environment.hostname);
        assert_eq!(
            ra.tool,
            format!("{} {}", a.run.tool.name, a.run.tool.version)
        );
        let p50 = a.arms[1].latency_us.unwrap().p50;
        assert_eq!(ra.arms[1], BriefArm(1, Some(p50), a.arms[1].p50_ci95_us));
        // An arm with an error gives no point, and no CI without a p50.
        assert_eq!(rb.arms[1], BriefArm(1, None, None));
        assert_eq!(back.unreadable, ["c.json"]);
        assert_eq!(ra.kind, Some(a.kind()));
        assert_eq!(ra.setup, a.setup());
        assert_eq!(ra.setup["host"], a.environment.hostname);
    }

    #[test]
    fn a_history_without_kinds_and_setups_still_reads() {
        let h = History::from_json(r#"[[], [["a.json", "r", "h", "t", true, "c 1", []]], []]"#)
            .unwrap();
        assert_eq!(h.runs[0].kind, None);
        assert!(h.runs[0].setup.is_empty());
        assert!(h.runs[0].raw, "an older history's runs have their raw data");
    }

    #[test]
    fn a_run_without_raw_data_says_so_and_round_trips() {
        let mut b = HistoryBuilder::default();
        b.run("a.json", &sample::evidence());
        b.run("b.json", &sample::evidence());
        b.without_raw();
        let h = b.finish();
        assert_eq!(
            h.runs.iter().map(|r| r.raw).collect::<Vec<_>>(),
            [true, false]
        );
        let text = h.to_json();
        // raw, then the run's conditions ([level, steal, probe]; this sample records none).
        assert!(
            text.contains(r#",false,["unrecorded",null,null]]"#),
            "{text}"
        );
        assert_eq!(History::from_json(&text).unwrap(), h);
    }

    #[test]
    fn bad_indexes_and_implausible_numbers_are_refused_by_place() {
        let mut b = HistoryBuilder::default();
        b.run("a.json", &sample::evidence());
        let good = b.finish();
        let n = good.arms.len();
        let mut bad = good.clone();
        bad.runs[0].arms[1].0 = n as u32;
        assert_eq!(
            History::from_json(&bad.to_json()).unwrap_err(),
            format!("at `runs[0].arms[1]`: arm index {n} of {n} arms")
        );
        let mut bad = good.clone();
        bad.runs[0].arms[1].0 = 99;
        assert_eq!(
            History::from_json(&bad.to_json()).unwrap_err(),
            format!(
                "at `runs[0].arms[1]`: arm index 99 of {} arms",
                good.arms.len()
            )
        );
        for p50 in [-1.0, 0.0, 1.5e308] {
            let mut bad = good.clone();
            bad.runs[0].arms[1].1 = Some(p50);
            assert_eq!(
                History::from_json(&bad.to_json()).unwrap_err(),
                "at `runs[0].arms[1]`: the p50 is not a plausible time",
            );
        }
        let mut bad = good.clone();
        bad.runs[0].arms[1].2 = Some([500.0, 400.0]);
        assert!(History::from_json(&bad.to_json())
            .unwrap_err()
            .contains("the CI is not an interval"));
        assert!(History::from_json("[[], 3, []]")
            .unwrap_err()
            .starts_with("not a run history (line 1"));
    }
}
