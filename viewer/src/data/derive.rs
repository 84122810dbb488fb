//! Series for the charts, derived from evidence: percentile bars, resume speedups, CDFs
//! and one arm across runs.

use shared::{Arm, ArmsById, ComparisonKind, Evidence, FirstIndex, Protocol};

use super::filter::ArmFilter;
pub use super::load::ArmRef;
use super::load::RunSet;
use super::outcome::{bar, no_result, NoResult, PercentileBar};
use super::stacks::stack_pair;

/// Percentile bars of one run's arms that pass the filter, in evidence order.
pub fn percentile_bars(ev: &Evidence, filter: &ArmFilter) -> Vec<PercentileBar> {
    ev.arms
        .iter()
        .filter(|a| filter.matches(a))
        .map(|a| bar(a.id.clone(), a))
        .collect()
}

/// Arm ids in the runs shown (loaded or in brief) that pass the filter, first-seen order.
pub fn arm_ids(runs: &RunSet, filter: &ArmFilter) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    // Seen ids in a map, not by scanning `ids`: linear in the arms, however many.
    let mut seen = FirstIndex::default();
    for arm in runs.shown_arm_keys() {
        if filter.matches_key(arm) && seen.insert_first(&arm.id, ids.len()).is_none() {
            ids.push(arm.id.clone());
        }
    }
    ids
}

/// Full/resumed p50 ratio of one stack × protocol × cert × group × resumption kind.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedupBar {
    /// `stack · cert · group · resumption` (and the RTT of an RTT arm), shared by the
    /// TLS 1.2 and TLS 1.3 bars of one stack: never by two stacks' bars.
    pub group: String,
    pub protocol: Protocol,
    pub ratio: f64,
    /// None when the run gives no interval (too few rounds): never drawn as a narrow one.
    pub ci: Option<[f64; 2]>,
    /// Set when either arm has no result: then there is no speedup to show.
    pub no_result: Option<NoResult>,
    /// Why the ratio is not a fair one, where its two arms ran in other conditions (a
    /// noisy arm, or other CPU speed modes: `shared::conditions::RatiosApart`).
    pub apart: Option<String>,
}

/// The `resume_speedup` and `zero_rtt_speedup` comparisons of a run whose resumed arm
/// passes the filter, ordered so that TLS 1.2 sits beside TLS 1.3 for the same cert,
/// group and kind. A 0-RTT arm is labelled `0-RTT`, never by its (stateful) resumption,
/// also in older files that filed it as a resume speedup.
pub fn resume_speedups(ev: &Evidence, filter: &ArmFilter) -> Vec<SpeedupBar> {
    let by_id = ArmsById::new(&ev.arms);
    let arm = |id: &str| by_id.get(id);
    let apart = shared::conditions::RatiosApart::of_run(ev);
    let mut out: Vec<SpeedupBar> = ev
        .comparisons
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                ComparisonKind::ResumeSpeedup | ComparisonKind::ZeroRttSpeedup
            )
        })
        .filter_map(|c| {
            let resumed = arm(&c.candidate)?;
            let full = arm(&c.baseline)?;
            if !filter.matches(resumed) {
                return None;
            }
            let name = |v: Option<String>| v.unwrap_or_else(|| "–".into());
            let how = if c.kind == ComparisonKind::ZeroRttSpeedup || resumed.early_data.is_some() {
                Some("0-RTT".to_string())
            } else {
                resumed.resumption.map(|r| r.to_string())
            };
            let mut group = format!(
                "{} · {} · {} · {}",
                stack_pair(resumed),
                name(resumed.cert.map(|c| c.to_string())),
                name(resumed.kx_group.map(|g| g.to_string())),
                name(how),
            );
            if let Some(rtt) = resumed.rtt_ms {
                group.push_str(&format!(" · RTT {rtt} ms"));
            }
            // Under load, or timed to the first response byte, it is another series.
            if let Some(cap) = &resumed.capacity {
                match &cap.open_loop {
                    Some(o) => group.push_str(&format!(
                        " · open loop {}/s, {} workers",
                        shared::open_loop::rate(o.offered_per_s),
                        cap.clients
                    )),
                    None => group.push_str(&format!(" · {} clients", cap.clients)),
                }
            } else if resumed.ttfb && resumed.rtt_ms.is_none() {
                group.push_str(" · TTFB");
            }
            let blame = |arm: &Arm, why: NoResult| match why {
                NoResult::Error(m) => NoResult::Error(format!("{}: {m}", arm.id)),
                NoResult::Note(m) => NoResult::Note(format!("{}: {m}", arm.id)),
            };
            let no_result = match (no_result(resumed), no_result(full)) {
                (Some(e), _) => Some(blame(resumed, e)),
                (None, Some(e)) => Some(blame(full, e)),
                (None, None) => None,
            };
            Some(SpeedupBar {
                group,
                protocol: resumed.protocol,
                ratio: c.p50_ratio,
                ci: c.ci95,
                no_result,
                apart: apart.why(c),
            })
        })
        .collect();
    sort_speedups(&mut out);
    out
}

/// Speedup bars by group, then protocol.
pub fn sort_speedups(out: &mut Vec<SpeedupBar>) {
    shared::order::sort_by(out, &|a, b| {
        (&a.group, a.protocol).cmp(&(&b.group, b.protocol))
    });
}

/// The empirical CDF of `samples` as `(µs, fraction ≤)` points, thinned to at most
/// `max_points` (keeping the first and last) so big runs stay quick to draw.
pub fn cdf_points(samples: &[f64], max_points: usize) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|s| s.is_finite()).collect();
    shared::order::sort_f64(&mut sorted);
    let n = sorted.len();
    if n == 0 || max_points == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(max_points.max(2) - 1).max(1);
    let mut out: Vec<(f64, f64)> = (0..n)
        .step_by(step)
        .map(|i| (sorted[i], (i + 1) as f64 / n as f64))
        .collect();
    if out.last().map(|p| p.1) != Some(1.0) {
        out.push((sorted[n - 1], 1.0));
    }
    out
}

/// One CDF line.
#[derive(Debug, Clone, PartialEq)]
pub struct CdfSeries {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub no_result: Option<NoResult>,
}

/// Whether the CDF can draw `arm`: it has latencies that are results (not a rate-only
/// tool, a skip or an error). Its raw samples may still have to be fetched: a run's
/// summary has none.
pub fn has_cdf(arm: &Arm) -> bool {
    arm.latency_us.is_some() && no_result(arm).is_none()
}

/// CDF lines of the picked arms that are in visible runs, pass the filter and have a
/// CDF (at most 400 points each).
pub fn cdf_series(runs: &RunSet, filter: &ArmFilter, picked: &[ArmRef]) -> Vec<CdfSeries> {
    let several = runs.visible().count() > 1;
    runs.visible()
        .flat_map(|r| {
            r.evidence
                .arms
                .iter()
                .enumerate()
                .map(move |(i, a)| (r, a, runs.samples_of(r, i)))
        })
        .filter(|(r, a, samples)| {
            filter.matches(a)
                && has_cdf(a)
                && !samples.is_empty()
                && picked.contains(&ArmRef {
                    run_key: r.key,
                    arm_id: a.id.clone(),
                })
        })
        .map(|(r, a, samples)| CdfSeries {
            label: if several {
                format!("{} ({})", a.id, r.label())
            } else {
                a.id.clone()
            },
            points: cdf_points(samples, 400),
            no_result: None,
        })
        .collect()
}

/// What the CDF shows before the user picks: the first run's first full and first
/// resumed TLS arm that has a CDF.
pub fn default_cdf_pick(runs: &RunSet) -> Vec<ArmRef> {
    let Some(run) = runs.visible().next() else {
        return Vec::new();
    };
    [shared::Mode::Full, shared::Mode::Resumed]
        .into_iter()
        .filter_map(|mode| {
            run.evidence
                .arms
                .iter()
                .find(|a| a.mode == mode && has_cdf(a))
        })
        .map(|a| ArmRef {
            run_key: run.key,
            arm_id: a.id.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::filter::Facet;
    use crate::data::testdata::{sample, with_tls12};
    use shared::{Mode, Resumption, Stack};

    #[test]
    fn percentile_bars_follow_the_evidence_and_the_filter() {
        let ev = sample();
        let bars = percentile_bars(&ev, &ArmFilter::default());
        assert_eq!(bars.len(), 3);
        assert_eq!(bars[1].label, "tls13-full-ecdsa-p256-x25519");
        let l = ev.arms[1].latency_us.unwrap();
        assert_eq!(bars[1].percentiles, Some([l.p50, l.p95, l.p99]));
        assert_eq!(bars[1].p50_ci, ev.arms[1].p50_ci95_us);
        let mut f = ArmFilter::default();
        f.toggle(Facet::Protocol(Protocol::Tcp));
        assert_eq!(percentile_bars(&ev, &f).len(), 2);
    }

    #[test]
    fn speedups_pair_tls12_with_tls13_and_carry_arm_errors() {
        let mut ev = with_tls12();
        let bars = resume_speedups(&ev, &ArmFilter::default());
        let got: Vec<(&str, Protocol, f64)> = bars
            .iter()
            .map(|b| (b.group.as_str(), b.protocol, b.ratio))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "rustls · ecdsa-p256 · x25519 · ticket",
                    Protocol::Tls12,
                    1.7
                ),
                (
                    "rustls · ecdsa-p256 · x25519 · ticket",
                    Protocol::Tls13,
                    2.0
                ),
            ]
        );
        assert!(bars.iter().all(|b| b.no_result.is_none()));

        ev.arms[2].error = Some("0 of 4 connections resumed".into());
        let bars = resume_speedups(&ev, &ArmFilter::default());
        assert_eq!(
            bars[1].no_result.as_ref().map(|e| e.to_string()).as_deref(),
            Some("ERROR: tls13-resumed-ticket-ecdsa-p256-x25519: 0 of 4 connections resumed")
        );
        let mut f = ArmFilter::default();
        f.toggle(Facet::Protocol(Protocol::Tls12));
        assert_eq!(resume_speedups(&ev, &f).len(), 1);
    }

    #[test]
    fn each_stack_has_its_own_speedup_rows() {
        // rustls↔rustls (1.7×, 2.0×) from `with_tls12`, plus a rustls client against
        // s_server with the same cert, group and kind, and Python (no group recorded).
        let mut ev = with_tls12();
        let pairs = [
            ("sserver-tls12", Protocol::Tls12, Stack::OpensslSServer, 5.3),
            (
                "sserver-tls13",
                Protocol::Tls13,
                Stack::OpensslSServer,
                2.33,
            ),
            ("python-tls13", Protocol::Tls13, Stack::PythonSsl, 1.5),
        ];
        for (id, protocol, server, ratio) in pairs {
            let client = if server == Stack::PythonSsl {
                server
            } else {
                Stack::Rustls
            };
            for (mode, resumption) in [
                (Mode::Full, None),
                (Mode::Resumed, Some(Resumption::Ticket)),
            ] {
                let mut a = shared::sample::arm(
                    &format!("{id}-{mode}"),
                    protocol,
                    mode,
                    resumption,
                    vec![400.0, 410.0],
                );
                (a.stack, a.client_stack, a.server_stack) = (server, client, server);
                if server == Stack::PythonSsl {
                    a.kx_group = None;
                }
                ev.arms.push(a);
            }
            let mut c = ev.comparisons[0].clone();
            (c.baseline, c.candidate) = (format!("{id}-full"), format!("{id}-resumed"));
            (c.p50_ratio, c.ci95) = (ratio, Some([ratio - 0.1, ratio + 0.1]));
            ev.comparisons.push(c);
        }
        assert!(ev.violations().is_empty(), "{:?}", ev.violations());
        let got: Vec<(String, Protocol, f64)> = resume_speedups(&ev, &ArmFilter::default())
            .into_iter()
            .map(|b| (b.group, b.protocol, b.ratio))
            .collect();
        let row = |s: &str| s.to_string();
        assert_eq!(
            got,
            [
                (
                    row("python-ssl · ecdsa-p256 · – · ticket"),
                    Protocol::Tls13,
                    1.5
                ),
                (
                    row("rustls · ecdsa-p256 · x25519 · ticket"),
                    Protocol::Tls12,
                    1.7
                ),
                (
                    row("rustls · ecdsa-p256 · x25519 · ticket"),
                    Protocol::Tls13,
                    2.0
                ),
                (
                    row("rustls → openssl-s_server · ecdsa-p256 · x25519 · ticket"),
                    Protocol::Tls12,
                    5.3
                ),
                (
                    row("rustls → openssl-s_server · ecdsa-p256 · x25519 · ticket"),
                    Protocol::Tls13,
                    2.33
                ),
            ]
        );
        // The chart: one row per stack, each slot holding its own stack's ratio.
        let rows =
            crate::charts::speedup::speedup_rows(&resume_speedups(&ev, &ArmFilter::default()));
        let values: Vec<(&str, Vec<Option<f64>>)> = rows
            .iter()
            .map(|r| {
                let v = r.slots.iter().map(|s| match s {
                    crate::charts::bars::Slot::Bar { value, .. } => Some(*value),
                    _ => None,
                });
                (r.label.as_str(), v.collect())
            })
            .collect();
        assert_eq!(
            values,
            [
                (
                    "python-ssl · ecdsa-p256 · – · ticket",
                    vec![None, Some(1.5)]
                ),
                (
                    "rustls · ecdsa-p256 · x25519 · ticket",
                    vec![Some(1.7), Some(2.0)]
                ),
                (
                    "rustls → openssl-s_server · ecdsa-p256 · x25519 · ticket",
                    vec![Some(5.3), Some(2.33)]
                ),
            ]
        );
    }

    #[test]
    fn a_0rtt_speedup_never_takes_the_stateful_label() {
        let mut ev = sample();
        let mut stateful = ev.arms[2].clone();
        stateful.id = "tls13-resumed-stateful-ecdsa-p256-x25519".into();
        stateful.resumption = Some(shared::Resumption::Stateful);
        let mut zero = stateful.clone();
        zero.id = "tls13-0rtt-ecdsa-p256-x25519".into();
        zero.early_data = Some(shared::EarlyData {
            offered: 4,
            accepted: 4,
        });
        let mut c = ev.comparisons[0].clone();
        c.candidate = stateful.id.clone();
        let mut z = c.clone();
        (z.kind, z.candidate, z.p50_ratio) = (ComparisonKind::ZeroRttSpeedup, zero.id.clone(), 3.0);
        ev.arms.extend([stateful, zero]);
        ev.comparisons = vec![c, z];
        assert!(ev.violations().is_empty(), "{:?}", ev.violations());
        let labels = |ev: &Evidence| {
            resume_speedups(ev, &ArmFilter::default())
                .into_iter()
                .map(|b| (b.group, b.ratio))
                .collect::<Vec<_>>()
        };
        let want = [
            ("rustls · ecdsa-p256 · x25519 · 0-RTT".to_string(), 3.0),
            ("rustls · ecdsa-p256 · x25519 · stateful".to_string(), 2.0),
        ];
        assert_eq!(labels(&ev), want);
        // Files written before `zero_rtt_speedup` existed filed it as a resume speedup.
        ev.comparisons[1].kind = ComparisonKind::ResumeSpeedup;
        assert_eq!(labels(&ev), want);
    }

    #[test]
    fn capacity_and_ttfb_speedups_are_rows_of_their_own() {
        let mut ev = sample();
        let mut loaded = Vec::new();
        for (id, clients) in [("cap-full-c4", 4), ("cap-resumed-c4", 4)] {
            let mut a = ev.arms[if id.contains("full") { 1 } else { 2 }].clone();
            a.id = id.into();
            a.capacity = serde_json::from_str(&format!(
                r#"{{"clients": {clients}, "server_workers": 1, "per_second": [10.0],
                    "rate_median_per_s": 10.0, "rate_iqr_per_s": [9.0, 11.0]}}"#
            ))
            .ok();
            loaded.push(a);
        }
        let mut ttfb = ev.arms[2].clone();
        ttfb.id = "tls13-resumed-ticket-ecdsa-p256-x25519-ttfb".into();
        ttfb.ttfb = true;
        let mut c = ev.comparisons[0].clone();
        (c.baseline, c.candidate, c.p50_ratio) =
            ("cap-full-c4".into(), "cap-resumed-c4".into(), 5.09);
        let mut t = ev.comparisons[0].clone();
        (t.candidate, t.p50_ratio) = (ttfb.id.clone(), 1.5);
        ev.arms.extend(loaded);
        ev.arms.push(ttfb);
        ev.comparisons.extend([c, t]);
        let rows: Vec<(String, f64)> = resume_speedups(&ev, &ArmFilter::default())
            .into_iter()
            .map(|b| (b.group, b.ratio))
            .collect();
        assert_eq!(
            rows,
            [
                ("rustls · ecdsa-p256 · x25519 · ticket".to_string(), 2.0),
                (
                    "rustls · ecdsa-p256 · x25519 · ticket · 4 clients".to_string(),
                    5.09
                ),
                (
                    "rustls · ecdsa-p256 · x25519 · ticket · TTFB".to_string(),
                    1.5
                ),
            ]
        );
    }

    #[test]
    fn arms_without_results_say_why() {
        let mut ev = sample();
        let arm = &mut ev.arms[1];
        assert_eq!(no_result(arm), None);
        arm.latency_us = None;
        arm.first_failure = Some("connection refused".into());
        assert_eq!(
            no_result(arm),
            Some(NoResult::Error(
                "no connection succeeded: connection refused".into()
            ))
        );
        // Through JSON so fields the schema adds later (with defaults) need no change here.
        arm.rate = serde_json::from_str(
            r#"{"connections": 10, "user_cpu_s": 1.0, "real_s": 2.0,
                "per_user_s": 10.0, "per_real_s": 5.0}"#,
        )
        .unwrap();
        let why = no_result(arm).unwrap();
        assert!(!why.is_error());
        assert_eq!(
            why.to_string(),
            "rate only: 5 connections per wall-clock second, 10 per user-CPU second of the s_time client process"
        );
        arm.skipped = Some("openssl is not on PATH".into());
        assert_eq!(
            no_result(arm).unwrap().to_string(),
            "skipped: openssl is not on PATH"
        );
        arm.error = Some("never resumed".into());
        arm.known_pitfall = Some("s_time -reuse under TLS 1.3".into());
        assert_eq!(
            no_result(arm).unwrap().to_string(),
            "ERROR: never resumed (known pitfall, reproduced on purpose: s_time -reuse under TLS 1.3)"
        );
    }

    #[test]
    fn cdf_is_sorted_ends_at_one_and_is_thinned() {
        assert_eq!(
            cdf_points(&[3.0, 1.0, 2.0, 4.0], 100),
            [(1.0, 0.25), (2.0, 0.5), (3.0, 0.75), (4.0, 1.0)]
        );
        let many: Vec<f64> = (0..10_000).map(f64::from).collect();
        let pts = cdf_points(&many, 400);
        assert!(pts.len() <= 401, "{}", pts.len());
        assert_eq!(pts.first(), Some(&(0.0, 1e-4)));
        assert_eq!(pts.last(), Some(&(9999.0, 1.0)));
        assert!(pts.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
        assert!(cdf_points(&[], 10).is_empty());
    }

    #[test]
    fn the_cdf_follows_the_filters_and_draws_only_arms_with_samples() {
        let mut set = RunSet::default();
        let mut ev = crate::data::testdata::with_peers();
        ev.arms[2].error = Some("0 of 4 connections resumed".into());
        let key = set.add("a", ev);
        let pick: Vec<ArmRef> = [
            "tls13-full-ecdsa-p256-x25519",
            "tls13-resumed-ticket-ecdsa-p256-x25519",
            "tcp-connect",
            "s_time-tls12-new-vs-s_server",
        ]
        .iter()
        .map(|id| ArmRef {
            run_key: key,
            arm_id: id.to_string(),
        })
        .collect();
        let labels = |f: &ArmFilter| -> Vec<String> {
            cdf_series(&set, f, &pick)
                .into_iter()
                .map(|s| s.label)
                .collect()
        };
        // The error arm and the rate-only arm draw nothing, even when picked.
        assert_eq!(
            labels(&ArmFilter::default()),
            ["tcp-connect", "tls13-full-ecdsa-p256-x25519"]
        );
        let mut f = ArmFilter::default();
        f.toggle(Facet::Protocol(Protocol::Tcp));
        assert_eq!(labels(&f), ["tls13-full-ecdsa-p256-x25519"]);
        f.toggle(Facet::Protocol(Protocol::Tls13));
        assert!(labels(&f).is_empty());
        // Nor are they the default pick.
        let ids: Vec<String> = default_cdf_pick(&set)
            .into_iter()
            .map(|r| r.arm_id)
            .collect();
        assert_eq!(ids, ["tls13-full-ecdsa-p256-x25519"]);
    }

    #[test]
    fn cdf_series_cover_visible_runs_with_samples() {
        let mut set = RunSet::default();
        let a = set.add("a", sample());
        let b = set.add("b", sample());
        let pick = default_cdf_pick(&set);
        assert_eq!(
            pick.iter().map(|p| p.arm_id.as_str()).collect::<Vec<_>>(),
            [
                "tls13-full-ecdsa-p256-x25519",
                "tls13-resumed-ticket-ecdsa-p256-x25519"
            ]
        );
        let all = ArmFilter::default();
        let series = cdf_series(&set, &all, &pick);
        assert_eq!(series.len(), 2);
        assert!(series[0].label.contains("sample-host"));
        let mut pick_b = pick.clone();
        pick_b.push(ArmRef {
            run_key: b,
            arm_id: "tcp-connect".into(),
        });
        assert_eq!(cdf_series(&set, &all, &pick_b).len(), 3);
        // A summary has no samples: its arms can be picked, but draw nothing until the
        // whole file is in.
        let mut summaries = RunSet::default();
        summaries.add("s", sample().summary());
        let pick_s = default_cdf_pick(&summaries);
        assert_eq!(pick_s.len(), 2);
        assert!(cdf_series(&summaries, &all, &pick_s).is_empty());

        set.toggle_hidden(a);
        assert_eq!(cdf_series(&set, &all, &pick_b).len(), 1);
        assert_eq!(arm_ids(&set, &ArmFilter::default()).len(), 3);
    }
}
