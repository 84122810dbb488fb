//! The page state in the URL's query, so a shared link opens the same view:
//! `?view=<run id>&cmp=<run id>,<run id>&scale=log&sort=-p50&off=protocol:tcp,cert:rsa2048&hide=<run id>&detail=<run id>&pick=<run id>:<arm id>&arm=<arm id>`.
//!
//! Runs are named by their run id (stable across loads, unlike the page's run keys),
//! facets as `dimension:value`. Each name is percent-encoded, so the separators `,` and
//! `:` never occur inside one. A link is read by comparing these encoded names with
//! those of the loaded runs, so nothing is decoded: anything unknown or malformed matches
//! nothing and is ignored, never an error, and a link from an older or newer page still
//! opens with what this page understands.

use super::derive::ArmRef;
use super::filter::{facets_of_key, ArmFilter, Facet};
use super::load::{arm_keys, RunSet};
use super::scale::Scale;
use super::table::{Sort, SortKey};

/// The query keys this module owns; other parameters (e.g. `run`) are kept as they are.
const KEYS: [&str; 9] = [
    "view", "cmp", "scale", "sort", "off", "hide", "detail", "pick", "arm",
];

/// The URL name of each table column, in [`SortKey::ALL`] order.
const SORT_NAMES: [&str; 13] = [
    "run",
    "arm",
    "protocol",
    "mode",
    "cert",
    "group",
    "p50",
    "ci",
    "p95",
    "p99",
    "efficiency",
    "resumed",
    "failed",
];

/// The state a link carries, as encoded names (see the module's text). `None` and empty
/// lists are the page's defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Permalink {
    pub scale: Option<Scale>,
    pub sort: Option<Sort>,
    /// Facets switched off, as `dimension:value`.
    pub off: Vec<String>,
    /// Ids of hidden runs.
    pub hidden: Vec<String>,
    /// Ids of the runs picked for the detail view, in pick order; empty: the newest.
    pub detail: Vec<String>,
    /// The CDF's picked arms as `run id:arm id`; `None`: the default pick.
    pub picks: Option<Vec<String>>,
    /// The arm compared across runs; `None`: the first one.
    pub arm: Option<String>,
    /// The run that findings, cards and detail follow; `None`: the landing run.
    pub view: Option<String>,
    /// The two runs "what changed" compares (old, new); empty: the default pair.
    pub cmp: Vec<String>,
}

/// `a:b`, each part encoded.
fn pair(a: &str, b: &str) -> String {
    let mut s = encode(a);
    s.push(':');
    encode_into(&mut s, b);
    s
}

fn facet_name(f: Facet) -> String {
    pair(f.dimension(), &f.to_string())
}

/// Every facet of every known run (hidden ones too), each once.
fn all_facets(set: &RunSet) -> Vec<Facet> {
    let mut all: Vec<Facet> = Vec::new();
    for f in arm_keys(set.history.iter())
        .into_iter()
        .flat_map(facets_of_key)
    {
        if !all.contains(&f) {
            all.push(f);
        }
    }
    all
}

impl Permalink {
    /// The state of the page, as names.
    pub fn of(
        set: &RunSet,
        filter: &ArmFilter,
        scale: Scale,
        sort: Sort,
        detail: &[u32],
        picks: Option<&[ArmRef]>,
        arm: Option<&str>,
    ) -> Permalink {
        let run_id = |key: u32| {
            let run = set.history.iter().find(|r| r.key == key)?;
            Some(run.brief.run.run_id.as_str())
        };
        Permalink {
            scale: (scale != Scale::default()).then_some(scale),
            sort: (sort != Sort::default()).then_some(sort),
            off: filter.off().iter().map(|f| facet_name(*f)).collect(),
            hidden: set
                .history
                .iter()
                .filter(|r| r.hidden)
                .map(|r| encode(&r.brief.run.run_id))
                .collect(),
            detail: detail
                .iter()
                .filter_map(|k| Some(encode(run_id(*k)?)))
                .collect(),
            picks: picks.map(|p| {
                p.iter()
                    .filter_map(|r| Some(pair(run_id(r.run_key)?, &r.arm_id)))
                    .collect()
            }),
            arm: arm.map(encode),
            view: None,
            cmp: Vec::new(),
        }
    }

    /// This link with the run the page follows (`view`) and the pair "what changed"
    /// compares (`cmp`), each `None` when it is the default.
    pub fn with_runs(mut self, set: &RunSet, view: Option<u32>, cmp: Option<(u32, u32)>) -> Self {
        let id = |key: u32| {
            let run = set.history.iter().find(|r| r.key == key)?;
            Some(encode(&run.brief.run.run_id))
        };
        self.view = view.and_then(id);
        self.cmp = cmp
            .and_then(|(a, b)| Some(vec![id(a)?, id(b)?]))
            .unwrap_or_default();
        self
    }

    /// The key of the known run this link follows (`view`), if a known run has its id.
    pub fn view_key(&self, set: &RunSet) -> Option<u32> {
        let want = self.view.as_ref()?;
        set.history
            .iter()
            .find(|r| encode(&r.brief.run.run_id) == *want)
            .map(|r| r.key)
    }

    /// The pair this link compares, if both are known runs.
    pub fn cmp_keys(&self, set: &RunSet) -> Option<(u32, u32)> {
        let key = |want: &String| {
            let run = set
                .history
                .iter()
                .find(|r| encode(&r.brief.run.run_id) == *want)?;
            Some(run.key)
        };
        match &self.cmp[..] {
            [a, b] => Some((key(a)?, key(b)?)),
            _ => None,
        }
    }

    /// The filter this link names, as far as the loaded runs have its facets.
    pub fn filter(&self, set: &RunSet) -> ArmFilter {
        let mut filter = ArmFilter::default();
        for f in all_facets(set) {
            if self.off.contains(&facet_name(f)) {
                filter.toggle(f);
            }
        }
        filter
    }

    /// Keys of the known runs this link hides.
    pub fn hidden_keys(&self, set: &RunSet) -> Vec<u32> {
        set.history
            .iter()
            .filter(|r| self.hidden.contains(&encode(&r.brief.run.run_id)))
            .map(|r| r.key)
            .collect()
    }

    /// Keys of the known runs this link picks for the detail view, in its order.
    pub fn detail_keys(&self, set: &RunSet) -> Vec<u32> {
        let ids: Vec<(String, u32)> = set
            .history
            .iter()
            .map(|r| (encode(&r.brief.run.run_id), r.key))
            .collect();
        self.detail
            .iter()
            .filter_map(|d| ids.iter().find(|(id, _)| id == d).map(|(_, k)| *k))
            .collect()
    }

    /// The CDF pick among the known runs' arms (their briefs name them, so a pick holds
    /// before the run's summary is in), in the link's order; `None` (the default pick)
    /// when the link names arms but none of them is known.
    pub fn picks(&self, set: &RunSet) -> Option<Vec<ArmRef>> {
        let picks = self.picks.as_ref()?;
        let mut found: Vec<(usize, ArmRef)> = Vec::new();
        for run in &set.history {
            for (arm, _) in run.brief.points() {
                let name = pair(&run.brief.run.run_id, &arm.id);
                if let Some(i) = picks.iter().position(|p| *p == name) {
                    if !found.iter().any(|f| f.0 == i) {
                        let at = found.iter().position(|f| f.0 > i).unwrap_or(found.len());
                        let r = ArmRef {
                            run_key: run.key,
                            arm_id: arm.id.clone(),
                        };
                        found.insert(at, (i, r));
                    }
                }
            }
        }
        if found.is_empty() && !picks.is_empty() {
            return None;
        }
        Some(found.into_iter().map(|f| f.1).collect())
    }

    /// The compared arm, if a known run has it.
    pub fn arm(&self, set: &RunSet) -> Option<String> {
        let want = self.arm.as_ref()?;
        let arms = set.history.iter().flat_map(|r| r.brief.points());
        arms.map(|(a, _)| &a.id)
            .find(|id| encode(id) == *want)
            .cloned()
    }

    /// The query (without `?`): only what differs from the defaults.
    pub fn to_query(&self) -> String {
        let mut q: Vec<String> = Vec::new();
        if let Some(view) = &self.view {
            q.push(format!("view={view}"));
        }
        if !self.cmp.is_empty() {
            q.push(format!("cmp={}", self.cmp.join(",")));
        }
        if let Some(scale) = self.scale {
            q.push(format!("scale={}", scale_name(scale)));
        }
        if let Some(sort) = self.sort {
            let i = SortKey::ALL
                .iter()
                .position(|k| *k == sort.key)
                .unwrap_or(0);
            let dir = if sort.descending { "-" } else { "" };
            q.push(format!("sort={dir}{}", SORT_NAMES[i]));
        }
        for (key, list) in [
            ("off", &self.off),
            ("hide", &self.hidden),
            ("detail", &self.detail),
        ] {
            if !list.is_empty() {
                q.push(format!("{key}={}", list.join(",")));
            }
        }
        if let Some(picks) = &self.picks {
            q.push(format!("pick={}", picks.join(",")));
        }
        if let Some(arm) = &self.arm {
            q.push(format!("arm={arm}"));
        }
        q.join("&")
    }

    /// Reads a query (with or without `?`); unknown keys and values are skipped.
    pub fn parse(query: &str) -> Permalink {
        let mut link = Permalink::default();
        let query = query.strip_prefix('?').unwrap_or(query);
        for item in query.split('&') {
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            let list = || -> Vec<String> {
                let items = value.split(',').filter(|s| !s.is_empty());
                items.map(String::from).collect()
            };
            match key {
                "scale" => {
                    link.scale = [Scale::Log, Scale::Linear]
                        .into_iter()
                        .find(|s| scale_name(*s) == value)
                }
                "sort" => {
                    let name = value.strip_prefix('-');
                    link.sort = SORT_NAMES
                        .iter()
                        .position(|n| *n == name.unwrap_or(value))
                        .map(|i| Sort {
                            key: SortKey::ALL[i],
                            descending: name.is_some(),
                        });
                }
                "off" => link.off = list(),
                "hide" => link.hidden = list(),
                "detail" => link.detail = list(),
                "pick" => link.picks = Some(list()),
                "arm" => link.arm = Some(value.to_string()).filter(|a| !a.is_empty()),
                "view" => link.view = Some(value.to_string()).filter(|a| !a.is_empty()),
                "cmp" => link.cmp = list(),
                _ => {}
            }
        }
        link
    }
}

fn scale_name(scale: Scale) -> &'static str {
    match scale {
        Scale::Log => "log",
        Scale::Linear => "linear",
    }
}

/// `existing` (a page's query, with or without `?`) with this module's keys replaced by
/// `ours`; other parameters are kept, in order and as they were written.
pub fn merge_query(existing: &str, ours: &str) -> String {
    let existing = existing.strip_prefix('?').unwrap_or(existing);
    let mut kept: Vec<&str> = existing
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| !KEYS.contains(&p.split_once('=').map_or(*p, |kv| kv.0)))
        .collect();
    if !ours.is_empty() {
        kept.push(ours);
    }
    kept.join("&")
}

/// Percent-encodes every byte but ASCII letters, digits, `-`, `.` and `_`.
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    encode_into(&mut out, s);
    out
}

fn encode_into(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._".contains(&b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

#[cfg(test)]
mod tests;
