//! Runs known in brief: every run of a site's history ([`shared::History`]) and every file
//! loaded, with what the run list, the filters and the trend need of it.

use std::rc::Rc;

use shared::{ArmKey, BriefArm, Evidence, RunBrief};

/// A run in brief (see [`shared::History`]): its card line, and per arm its key, p50 and
/// the p50's CI. What the run list, the filters and the trend draw from.
#[derive(Debug, Clone, PartialEq)]
pub struct Brief {
    /// The arm keys the brief's arms index (shared by every run of one history).
    pub arms: Rc<Vec<ArmKey>>,
    pub run: RunBrief,
}

impl Brief {
    /// The brief of loaded evidence, with its own arm keys.
    pub fn of(source: &str, ev: &Evidence) -> Brief {
        let mut arms = Vec::with_capacity(ev.arms.len());
        let run = RunBrief::of(source, ev, |key| {
            arms.push(key);
            (arms.len() - 1) as u32
        });
        Brief {
            arms: Rc::new(arms),
            run,
        }
    }

    /// Every arm with its key (an index out of range, which a checked history never
    /// holds, is left out).
    pub fn points(&self) -> impl Iterator<Item = (&ArmKey, &BriefArm)> {
        self.run
            .arms
            .iter()
            .filter_map(|a| Some((self.arms.get(a.0 as usize)?, a)))
    }
}

/// A run the page knows of: every run of a site's history, and every file loaded.
/// Its evidence (summary or whole) is in [`RunSet::runs`] under the same key once loaded.
#[derive(Debug, Clone)]
pub struct HistoryRun {
    pub key: u32,
    /// The evidence file: a URL relative to the page or a local file name.
    pub source: String,
    /// Where its summary is (runs of a site's history), fetched when a view shows it.
    pub summary: Option<String>,
    /// Where its head is ([`super::head`]; runs of a site's history), fetched with the
    /// summary when the headline shows the run.
    pub head: Option<String>,
    /// Where its arms' raw samples are (a URL ending in `/`: runs of a site's history that
    /// kept them, see [`super::index::raw_dir`]); None for a run loaded whole, or one the
    /// site left them out of.
    pub raw: Option<String>,
    pub brief: Rc<Brief>,
    pub hidden: bool,
    /// The source of a run listed earlier with the same run id (the same file twice).
    pub duplicate_of: Option<String>,
}

impl PartialEq for HistoryRun {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
            && self.hidden == other.hidden
            && Rc::ptr_eq(&self.brief, &other.brief)
            && self.source == other.source
            && self.summary == other.summary
            && self.head == other.head
            && self.raw == other.raw
            && self.duplicate_of == other.duplicate_of
    }
}

/// The arm keys `runs` use, each once per history (loaded files each have their own), in
/// first-seen order: linear in the arms, without a facet list per arm.
pub fn arm_keys<'a>(runs: impl Iterator<Item = &'a HistoryRun>) -> Vec<&'a ArmKey> {
    let mut tables: Vec<(&Rc<Vec<ArmKey>>, Vec<bool>)> = Vec::new();
    let mut out = Vec::new();
    for r in runs {
        let table = &r.brief.arms;
        let t = match tables.iter().position(|(x, _)| Rc::ptr_eq(x, table)) {
            Some(t) => t,
            None => {
                tables.push((table, vec![false; table.len()]));
                tables.len() - 1
            }
        };
        for a in &r.brief.run.arms {
            let k = a.0 as usize;
            if let (Some(seen), Some(key)) = (tables[t].1.get_mut(k), table.get(k)) {
                if !*seen {
                    *seen = true;
                    out.push(key);
                }
            }
        }
    }
    out
}
