//! "What changed" between two runs: every arm both runs have, `p50(new) / p50(old)` with
//! its interval and verdict ([`shared::Verdict`], the rule `collector compare` uses),
//! sorted by effect; the settings in which the two setups differ come first, and an arm
//! such a difference affects gets no verdict (its numbers are not comparable).
//!
//! From the runs' briefs alone: the interval is the one the two p50 CIs allow
//! ([`super::trend::change`]), which claims a change less often than `collector
//! compare`'s bootstrap, never more.

use shared::setup::{comparable, differences};
use shared::{SetupDifference, Verdict};

use super::load::HistoryRun;
use super::trend::{change, Change};

/// One arm of both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRow {
    pub arm: String,
    pub old_p50: f64,
    pub new_p50: f64,
    /// `None`: a difference of setup affects this arm, so no verdict is given.
    pub change: Option<Change>,
}

/// The comparison of two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    pub old_id: String,
    pub new_id: String,
    /// Settings that differ, in the order of [`shared::setup::SETTINGS`].
    pub differences: Vec<SetupDifference>,
    /// Arms with a verdict first, by effect (largest `|ln ratio|` first), then the arms
    /// withheld by a difference of setup, in the new run's order.
    pub rows: Vec<ChangeRow>,
    /// Arms with a p50 in only one of the runs: (old only, new only).
    pub unmatched: (usize, usize),
    /// `collector compare`'s warning when most arms moved the same way.
    pub shift: Option<String>,
    /// Why the two runs' conditions forbid a verdict ([`shared::conditions`]): then
    /// every row's verdict is inconclusive.
    pub conditions_apart: Option<String>,
}

/// Compares `new` against `old`.
pub fn changes(old: &HistoryRun, new: &HistoryRun) -> Changes {
    let (o, n) = (&old.brief, &new.brief);
    let diffs = differences(&o.run.setup, &n.run.setup);
    let old_points: Vec<_> = o.points().filter(|(_, a)| a.1.is_some()).collect();
    let mut judged: Vec<(f64, ChangeRow)> = Vec::new();
    let mut withheld: Vec<ChangeRow> = Vec::new();
    let apart = shared::conditions::briefs_apart(&o.run.conditions, &n.run.conditions);
    let mut matched = 0;
    for (key, arm) in n.points() {
        let Some(new_p50) = arm.1 else { continue };
        let Some((_, was)) = old_points.iter().find(|(k, _)| k.id == key.id) else {
            continue;
        };
        let Some(old_p50) = was.1 else { continue };
        matched += 1;
        let mut row = ChangeRow {
            arm: key.id.clone(),
            old_p50,
            new_p50,
            change: None,
        };
        if comparable(&diffs, key.stack) {
            let mut c = change((old_p50, was.2), (new_p50, arm.2));
            c.verdict = Verdict::within(c.ci, apart.as_deref());
            row.change = Some(c);
            let effect = c.ratio.ln().abs();
            let at = judged.partition_point(|(e, _)| *e >= effect);
            judged.insert(at, (effect, row));
        } else {
            withheld.push(row);
        }
    }
    let with_ci: Vec<(f64, Verdict)> = judged
        .iter()
        .filter_map(|(_, r)| r.change.filter(|c| c.ci.is_some()))
        .map(|c| (c.ratio, c.verdict))
        .collect();
    let new_count = n.points().filter(|(_, a)| a.1.is_some()).count();
    Changes {
        old_id: o.run.run_id.clone(),
        new_id: n.run.run_id.clone(),
        differences: diffs,
        shift: shared::verdict::common_shift(&with_ci),
        conditions_apart: apart,
        rows: judged.into_iter().map(|(_, r)| r).chain(withheld).collect(),
        unmatched: (old_points.len() - matched, new_count - matched),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::load::RunSet;
    use crate::data::testdata::sample;
    use shared::Stack;

    fn run(set: &mut RunSet, id: &str, scale: f64, f: impl Fn(&mut shared::Evidence)) -> u32 {
        let mut e = sample();
        e.run.id = id.into();
        for a in &mut e.arms {
            if let Some(l) = a.latency_us.as_mut() {
                l.p50 *= scale;
            }
            a.p50_ci95_us = a.latency_us.map(|l| [l.p50 * 0.99, l.p50 * 1.01]);
        }
        f(&mut e);
        set.add(&format!("{id}.json"), e)
    }

    fn get(set: &RunSet, k: u32) -> &HistoryRun {
        set.history.iter().find(|r| r.key == k).unwrap()
    }

    #[test]
    fn runs_of_different_conditions_get_inconclusive_verdicts() {
        let mut set = RunSet::default();
        let steal = |s: f64| {
            move |e: &mut shared::Evidence| {
                e.environment.steal_percent = [("cpu0".to_string(), s)].into();
                e.environment.load_average.before = [0.0; 3];
            }
        };
        let a = run(&mut set, "a", 1.0, steal(0.5));
        let b = run(&mut set, "b", 1.5, steal(20.0));
        let c = changes(get(&set, a), get(&set, b));
        assert!(c.conditions_apart.is_some());
        assert!(!c.rows.is_empty());
        assert!(c
            .rows
            .iter()
            .all(|r| r.change.unwrap().verdict == Verdict::Inconclusive));
        // Both quiet: the same 1.5× is judged slower.
        let q = run(&mut set, "q", 1.5, steal(0.4));
        let c = changes(get(&set, a), get(&set, q));
        assert_eq!(c.conditions_apart, None);
        assert_eq!(c.rows[0].change.unwrap().verdict, Verdict::Slower);
    }

    #[test]
    fn same_setup_every_common_arm_gets_a_verdict_sorted_by_effect() {
        let mut set = RunSet::default();
        let a = run(&mut set, "a", 1.0, |_| {});
        let b = run(&mut set, "b", 1.0, |e| {
            // The TLS arm 20% slower, the TCP arm unchanged.
            let l = e.arms[1].latency_us.as_mut().unwrap();
            l.p50 *= 1.2;
            e.arms[1].p50_ci95_us = Some([l.p50 * 0.99, l.p50 * 1.01]);
            e.run.tool.git_commit = Some("other".into());
        });
        let c = changes(get(&set, a), get(&set, b));
        assert_eq!(c.differences.len(), 1, "the commit is listed");
        assert_eq!(c.rows.len(), 3);
        assert_eq!(
            c.rows[0].arm,
            sample().arms[1].id,
            "the largest effect first"
        );
        assert_eq!(c.rows[0].change.unwrap().verdict, Verdict::Slower);
        assert!(c.rows[1..]
            .iter()
            .all(|r| r.change.unwrap().verdict == Verdict::NoEvidence));
        assert_eq!(c.unmatched, (0, 0));
        assert!(c.shift.is_none(), "one arm in three is not the machine");
    }

    #[test]
    fn differing_setups_are_listed_and_the_arms_they_affect_get_no_verdict() {
        let mut set = RunSet::default();
        let a = run(&mut set, "a", 1.0, |_| {});
        let b = run(&mut set, "b", 2.0, |e| {
            e.run.settings.samples = 9;
            e.run.command_line = vec!["collector".into(), "probe".into()];
        });
        let c = changes(get(&set, a), get(&set, b));
        let names: Vec<&str> = c.differences.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["kind", "samples"]);
        assert!(c.rows.iter().all(|r| r.change.is_none()), "{:?}", c.rows);
        assert!(c.shift.is_none());
        // A peer tool's version affects only its arms.
        let d = run(&mut set, "d", 1.5, |e| {
            e.environment.peers.push(shared::Library {
                name: "nginx".into(),
                version: "1".into(),
            });
            e.arms[2].stack = Stack::Nginx;
        });
        let c = changes(get(&set, a), get(&set, d));
        let withheld: Vec<&str> = c
            .rows
            .iter()
            .filter(|r| r.change.is_none())
            .map(|r| r.arm.as_str())
            .collect();
        assert_eq!(withheld, [sample().arms[2].id.as_str()]);
        // Every other arm is 1.5× slower: the machine-wide warning.
        assert_eq!(c.rows.len(), 3);
    }

    #[test]
    fn most_arms_moving_together_gets_the_warning() {
        let mut set = RunSet::default();
        let a = run(&mut set, "a", 1.0, |_| {});
        let b = run(&mut set, "b", 1.3, |_| {});
        let c = changes(get(&set, a), get(&set, b));
        assert!(c
            .shift
            .as_deref()
            .is_some_and(|s| s.starts_with("3 of 3 arms with a CI are slower")));
    }
}
