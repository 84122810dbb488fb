//! The trend across runs: one arm's p50 with its 95% CI in every run shown, one line per
//! host, in time order, from the runs' briefs alone (no summaries or samples needed). A change from a
//! host's previous run is called slower or faster by the rule `collector compare` uses
//! ([`shared::Verdict::of`]: only an interval of the ratio that excludes 1 is a change),
//! applied to the interval of `p50(run) / p50(previous)` that the two runs' own 95% CIs
//! allow: `[low / previous high, high / previous low]`. (`collector compare` bootstraps
//! that interval from both runs' samples, which a summary does not carry; the interval here
//! contains every ratio the two CIs allow, so it claims a change less often, never more.)

use shared::conditions::briefs_apart;
use shared::setup::{comparable, differences};
use shared::{BriefArm, Verdict};

use super::format::short;
use super::load::{short_time, HistoryRun, RunSet};
use super::series::{Line, Point};

/// One run's point on a host's line.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendPoint {
    pub run_id: String,
    pub started: String,
    /// Position of the run among all visible runs in time order (1 = oldest).
    pub x: f64,
    pub p50: f64,
    pub ci: Option<[f64; 2]>,
    /// Against this host's previous point: `p50 / previous p50`, its interval and verdict.
    pub change: Option<Change>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub ratio: f64,
    pub ci: Option<[f64; 2]>,
    pub verdict: Verdict,
}

/// One host's line, or a piece of it: a change of setup that affects the arm breaks a
/// host's line, and the next piece says what changed.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendLine {
    pub host: String,
    pub points: Vec<TrendPoint>,
    /// The settings that differ from the previous piece of this host's line (`None`:
    /// the first piece).
    pub setup_change: Option<String>,
}

/// The runs shown in time order (start time, then run id: RFC 3339 UTC strings order
/// as times do; runs that tie stay in load order).
pub fn in_time_order<'a>(runs: &'a RunSet) -> Vec<&'a HistoryRun> {
    let key = |r: &'a HistoryRun| (r.brief.run.started_at.as_str(), r.brief.run.run_id.as_str());
    // Sorted by insertion (no sort's code in the wasm); runs come mostly in time order,
    // so each lands at the end.
    let mut v: Vec<(_, &HistoryRun)> = Vec::new();
    for r in runs.shown() {
        let k = key(r);
        let at = v.partition_point(|(o, _)| *o <= k);
        v.insert(at, (k, r));
    }
    v.into_iter().map(|(_, r)| r).collect()
}

/// Hosts of the runs shown, first-seen order.
pub fn hosts(runs: &RunSet) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs.shown() {
        if !out.contains(&r.brief.run.host) {
            out.push(r.brief.run.host.clone());
        }
    }
    out
}

/// The interval of `new / old` that two 95% CIs allow, and its verdict.
pub fn change(old: (f64, Option<[f64; 2]>), new: (f64, Option<[f64; 2]>)) -> Change {
    let ci = match (old.1, new.1) {
        (Some([olo, ohi]), Some([nlo, nhi])) if olo > 0.0 && ohi > 0.0 => {
            Some([nlo / ohi, nhi / olo])
        }
        _ => None,
    };
    Change {
        ratio: new.0 / old.0,
        ci,
        verdict: Verdict::of(ci),
    }
}

/// Arm `arm_id`'s p50 in each visible run of each host not in `hidden_hosts`; runs where
/// the arm is missing, has an error or no latencies give no point.
pub fn trend(runs: &RunSet, arm_id: &str, hidden_hosts: &[String]) -> Vec<TrendLine> {
    let mut lines: Vec<TrendLine> = Vec::new();
    // The run of each line's last point, whose setup the next point's is checked against.
    let mut setups: Vec<Option<&HistoryRun>> = Vec::new();
    for (i, r) in in_time_order(runs).into_iter().enumerate() {
        let run = &r.brief.run;
        let host = &run.host;
        if hidden_hosts.contains(host) {
            continue;
        }
        let Some((key, BriefArm(_, Some(p50), ci))) =
            r.brief.points().find(|(key, _)| key.id == arm_id)
        else {
            continue;
        };
        // This host's last piece, unless the setup changed in a way that affects the arm.
        let last = lines.iter().rposition(|l| &l.host == host);
        let diffs = last
            .and_then(|j| setups[j])
            .map(|prev: &HistoryRun| differences(&prev.brief.run.setup, &run.setup))
            .unwrap_or_default();
        // Between runs whose conditions differ, a change is inconclusive.
        let apart = last
            .and_then(|j| setups[j])
            .and_then(|prev| briefs_apart(&prev.brief.run.conditions, &run.conditions));
        let line = match last.filter(|_| comparable(&diffs, key.stack)) {
            Some(j) => {
                setups[j] = Some(r);
                &mut lines[j]
            }
            None => {
                let labels: Vec<&str> = diffs.iter().map(|d| d.label).collect();
                lines.push(TrendLine {
                    host: host.clone(),
                    points: Vec::new(),
                    setup_change: last.map(|_| labels.join(", ")),
                });
                setups.push(Some(r));
                lines.last_mut().expect("just pushed")
            }
        };
        let change = line
            .points
            .last()
            .map(|p| change((p.p50, p.ci), (*p50, *ci)))
            .map(|mut c| {
                c.verdict = Verdict::within(c.ci, apart.as_deref());
                c
            });
        line.points.push(TrendPoint {
            run_id: run.run_id.clone(),
            started: short_time(&run.started_at),
            x: (i + 1) as f64,
            p50: *p50,
            ci: *ci,
            change,
        });
    }
    lines
}

/// The lines as the line chart draws them (CI as the whisker), labelled by host.
pub fn chart_lines(lines: &[TrendLine]) -> Vec<Line> {
    lines
        .iter()
        .map(|l| Line {
            label: match &l.setup_change {
                None => short(&l.host),
                Some(what) => format!("{} · new setup: {}", short(&l.host), what),
            },
            points: l
                .points
                .iter()
                .map(|p| Point {
                    x: p.x,
                    y: p.p50,
                    spread: p.ci,
                })
                .collect(),
        })
        .collect()
}

/// Points marked slower (`true`) or faster (`false`) than their host's previous run:
/// `(x, p50, slower)`.
pub fn marks(lines: &[TrendLine]) -> Vec<(f64, f64, bool)> {
    let mut out = Vec::new();
    for p in lines.iter().flat_map(|l| &l.points) {
        match p.change.map(|c| c.verdict) {
            Some(Verdict::Slower) => out.push((p.x, p.p50, true)),
            Some(Verdict::Faster) => out.push((p.x, p.p50, false)),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;

    /// A run of `host` at `started` whose TLS 1.3 full arm has p50 `p50` and CI `ci`.
    fn run(set: &mut RunSet, id: &str, host: &str, started: &str, p50: f64, ci: [f64; 2]) {
        let mut e = sample();
        e.run.id = id.into();
        e.run.started_at = started.into();
        e.environment.hostname = host.into();
        let arm = &mut e.arms[1];
        arm.latency_us.as_mut().unwrap().p50 = p50;
        arm.p50_ci95_us = Some(ci);
        set.add(&format!("{id}.json"), e);
    }

    #[test]
    fn lines_per_host_in_time_order_with_changes_beyond_the_ci_marked() {
        let mut set = RunSet::default();
        // Loaded out of time order on purpose.
        run(
            &mut set,
            "a3",
            "alpha",
            "2026-11-30T03:00:00Z",
            500.0,
            [480.0, 520.0],
        );
        run(
            &mut set,
            "a1",
            "alpha",
            "2026-11-30T01:00:00Z",
            400.0,
            [390.0, 410.0],
        );
        run(
            &mut set,
            "b2",
            "beta",
            "2026-11-30T02:00:00Z",
            300.0,
            [290.0, 310.0],
        );
        run(
            &mut set,
            "a4",
            "alpha",
            "2026-11-30T04:00:00Z",
            505.0,
            [470.0, 530.0],
        );
        run(
            &mut set,
            "b5",
            "beta",
            "2026-11-30T05:00:00Z",
            250.0,
            [240.0, 260.0],
        );
        let id = sample().arms[1].id.clone();
        let lines = trend(&set, &id, &[]);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].host, "alpha");
        let ids: Vec<&str> = lines[0].points.iter().map(|p| p.run_id.as_str()).collect();
        assert_eq!(ids, ["a1", "a3", "a4"]);
        let xs: Vec<f64> = lines[0].points.iter().map(|p| p.x).collect();
        assert_eq!(xs, [1.0, 3.0, 4.0]);
        assert_eq!(lines[0].points[0].change, None);
        // a3 against a1: [480/410, 520/390] = [1.17, 1.33]: slower.
        let c = lines[0].points[1].change.unwrap();
        assert_eq!(c.verdict, Verdict::Slower);
        assert_eq!(c.ratio, 500.0 / 400.0);
        assert_eq!(c.ci, Some([480.0 / 410.0, 520.0 / 390.0]));
        // a4 against a3: [470/520, 530/480] includes 1: no change claimed.
        assert_eq!(
            lines[0].points[2].change.unwrap().verdict,
            Verdict::NoEvidence
        );
        // b5 against b2: [240/310, 260/290] = [0.77, 0.90]: faster.
        assert_eq!(lines[1].points[1].change.unwrap().verdict, Verdict::Faster);
        assert_eq!(marks(&lines), [(3.0, 500.0, true), (5.0, 250.0, false)]);
        // Hosts can be left out.
        let only_beta = trend(&set, &id, &["alpha".to_string()]);
        assert_eq!(only_beta.len(), 1);
        assert_eq!(only_beta[0].host, "beta");
        assert_eq!(hosts(&set), ["alpha", "beta"]);
    }

    #[test]
    fn a_change_of_setup_breaks_the_line_and_says_what_changed() {
        let mut set = RunSet::default();
        run(
            &mut set,
            "a1",
            "alpha",
            "2026-11-30T01:00:00Z",
            400.0,
            [390.0, 410.0],
        );
        let mut e = sample();
        e.run.id = "a2".into();
        e.run.started_at = "2026-11-30T02:00:00Z".into();
        e.environment.hostname = "alpha".into();
        e.run.settings.samples = 99;
        e.arms[1].latency_us.as_mut().unwrap().p50 = 800.0;
        e.arms[1].p50_ci95_us = Some([790.0, 810.0]);
        set.add("a2.json", e);
        run(
            &mut set,
            "a3",
            "alpha",
            "2026-11-30T03:00:00Z",
            400.0,
            [390.0, 410.0],
        );
        let lines = trend(&set, &sample().arms[1].id, &[]);
        let pieces: Vec<(usize, Option<&str>)> = lines
            .iter()
            .map(|l| (l.points.len(), l.setup_change.as_deref()))
            .collect();
        assert_eq!(
            pieces,
            [
                (1, None),
                (1, Some("samples per arm, warm-up, rounds")),
                (1, Some("samples per arm, warm-up, rounds"))
            ]
        );
        // No verdict across a change of setup: 800 against 400 is not called slower.
        assert!(lines.iter().all(|l| l.points[0].change.is_none()));
        assert!(marks(&lines).is_empty());
        assert_eq!(
            chart_lines(&lines)[1].label,
            "alpha · new setup: samples per arm, warm-up, rounds"
        );
    }

    #[test]
    fn no_interval_no_claim_and_error_arms_give_no_point() {
        let c = change((400.0, None), (800.0, Some([790.0, 810.0])));
        assert_eq!(c.verdict, Verdict::NoInterval);
        let mut set = RunSet::default();
        run(
            &mut set,
            "a1",
            "alpha",
            "2026-11-30T01:00:00Z",
            400.0,
            [390.0, 410.0],
        );
        let mut e = sample();
        e.run.id = "a2".into();
        e.run.started_at = "2026-11-30T02:00:00Z".into();
        e.environment.hostname = "alpha".into();
        e.arms[1].error = Some("broken".into());
        set.add("a2.json", e);
        let lines = trend(&set, &sample().arms[1].id, &[]);
        assert_eq!(lines[0].points.len(), 1);
    }
}
