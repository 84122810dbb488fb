//! The comparison of two runs, arm by arm, as plain data: no files, no printing.

use serde::Serialize;
use shared::conditions;
use shared::{Arm, ArmConditions, ArmKind, Evidence, Verdict};

use crate::measure::cluster;

/// How the interval of `p50(new) / p50(old)` is computed (printed and in `--json`).
pub const METHOD: &str = "p50(NEW) / p50(OLD) per arm id present in both runs; 95% CI by a cluster bootstrap over each run's interleaved rounds, independently (the runs share no rounds): each resample draws, with replacement, as many rounds as each arm has rounds with samples, pools them and takes the nearest-rank median; 2.5th and 97.5th percentiles of the resampled ratios. Fewer than 5 rounds with samples in either run: no CI, no claim. Verdict: slower or faster only where the CI excludes 1, else no evidence of a difference. Regression: slower and a ratio above 1 + threshold";

/// The verdicts of arms that get no ratio (the others are [`Verdict`]s).
pub const NOT_COMPARABLE: &str = "not comparable";
pub const ONLY_IN_OLD: &str = "only in OLD";
pub const ONLY_IN_NEW: &str = "only in NEW";

/// What the comparison of one arm says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmRow {
    pub arm: String,
    pub old_p50_us: Option<f64>,
    pub new_p50_us: Option<f64>,
    /// `p50(new) / p50(old)`; null when the arm is not comparable.
    pub ratio: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    /// `slower`, `faster`, `no evidence of a difference`, `no CI: no claim`,
    /// `inconclusive` (the runs' or the arm's conditions differ: `note` says how),
    /// `not comparable`, `only in OLD`, `only in NEW`.
    pub verdict: String,
    /// Why the arm is not comparable, or why it has no CI.
    pub note: Option<String>,
    /// Slower, and by more than the threshold: what makes the exit status 4.
    pub regression: bool,
}

/// One run, as the comparison names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunInfo {
    pub id: String,
    pub started_at: String,
    pub hostname: String,
    pub git_commit: Option<String>,
    /// 1-minute load average before and after the run: a busier machine in one run moves
    /// every arm, and no interval within a run can see that.
    pub load_1min: [f64; 2],
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub old: RunInfo,
    pub new: RunInfo,
    /// Settings that differ between the runs (they move numbers), as "name: old → new".
    pub differences: Vec<String>,
    /// As a fraction (0.05 for 5%).
    pub threshold: f64,
    pub method: &'static str,
    pub resamples: usize,
    pub seed: u64,
    pub arms: Vec<ArmRow>,
    pub regressions: usize,
    /// Set when most arms with a verdict moved the same way: what that likely means.
    pub common_shift: Option<String>,
    /// Each run's conditions verdict (quiet, noisy, unreliable) in words, and why the
    /// runs cannot be compared number for number (then every verdict is inconclusive).
    pub conditions: [String; 2],
    pub conditions_apart: Option<String>,
}

/// A warning when most arms with a CI moved the same way ([`shared::verdict::common_shift`]).
pub fn common_shift(arms: &[ArmRow]) -> Option<String> {
    let judged: Vec<(f64, Verdict)> = arms
        .iter()
        .filter(|r| r.ci95.is_some())
        .filter_map(|r| {
            let said = [Verdict::Slower, Verdict::Faster, Verdict::NoEvidence]
                .into_iter()
                .find(|v| v.as_str() == r.verdict)?;
            Some((r.ratio?, said))
        })
        .collect();
    shared::verdict::common_shift(&judged)
}

fn info(e: &Evidence) -> RunInfo {
    RunInfo {
        id: e.run.id.clone(),
        started_at: e.run.started_at.clone(),
        hostname: e.environment.hostname.clone(),
        git_commit: e.run.tool.git_commit.clone(),
        load_1min: [
            e.environment.load_average.before[0],
            e.environment.load_average.after[0],
        ],
    }
}

/// Settings and machine facts that move numbers and differ between the runs.
fn differences(old: &Evidence, new: &Evidence) -> Vec<String> {
    let facts = |e: &Evidence| {
        let s = &e.run.settings;
        [
            ("host", e.environment.hostname.clone()),
            ("cpu", e.environment.cpu_model.clone()),
            ("kernel", e.environment.kernel.clone()),
            ("tls library", e.environment.tls_library.version.clone()),
            ("samples", s.samples.to_string()),
            ("rounds", s.rounds.to_string()),
            ("warmup", s.warmup.to_string()),
            ("tcp_nodelay", s.tcp_nodelay.to_string()),
            (
                "build",
                s.extra.get("build_profile").cloned().unwrap_or_default(),
            ),
            (
                "request mode",
                s.extra.get("request_mode").cloned().unwrap_or_default(),
            ),
        ]
    };
    facts(old)
        .into_iter()
        .zip(facts(new))
        .filter(|((_, a), (_, b))| a != b)
        .map(|((name, a), (_, b))| format!("{name}: {a} → {b}"))
        .collect()
}

/// Why `arm` (of the run called `which`) has no latencies to compare; None when it has.
fn not_comparable(arm: &Arm, which: &str) -> Option<String> {
    match arm.kind() {
        ArmKind::Skipped => return Some(format!("skipped in {which}")),
        ArmKind::Rate => return Some(format!("rate-only arm in {which}: no latencies")),
        ArmKind::Latency => {}
    }
    if arm.error.is_some() {
        return Some(format!("has an error in {which}"));
    }
    arm.latency_us
        .is_none()
        .then(|| format!("no latencies in {which}"))
}

/// Compares every arm of `new` with the arm of the same id in `old`.
pub fn compare(
    old: &Evidence,
    new: &Evidence,
    threshold: f64,
    resamples: usize,
    seed: u64,
) -> Comparison {
    let mut rng = fastrand::Rng::with_seed(seed);
    let row = |arm: &str| ArmRow {
        arm: arm.to_string(),
        old_p50_us: None,
        new_p50_us: None,
        ratio: None,
        ci95: None,
        verdict: String::new(),
        note: None,
        regression: false,
    };
    let (old_conditions, new_conditions) = (conditions::of_run(old), conditions::of_run(new));
    let apart = conditions::runs_apart(&old_conditions, &new_conditions);
    let mut arms = Vec::new();
    for o in &old.arms {
        let mut r = row(&o.id);
        r.old_p50_us = o.latency_us.map(|l| l.p50);
        let Some(n) = new.arms.iter().find(|n| n.id == o.id) else {
            r.verdict = ONLY_IN_OLD.into();
            arms.push(r);
            continue;
        };
        r.new_p50_us = n.latency_us.map(|l| l.p50);
        let why = not_comparable(o, "OLD")
            .or_else(|| not_comparable(n, "NEW"))
            .or_else(|| {
                (o.timed_window != n.timed_window)
                    .then(|| "the timed window differs between the runs".to_string())
            });
        if let Some(why) = why {
            r.verdict = NOT_COMPARABLE.into();
            r.note = Some(why);
            arms.push(r);
            continue;
        }
        let Some(rr) = cluster::run_ratio(o, n, resamples, &mut rng) else {
            unreachable!("comparable arms have latencies");
        };
        (r.ratio, r.ci95, r.note) = (Some(rr.ratio), rr.ci95, rr.no_ci);
        // An arm that kept chunks over the steal threshold carries that into the
        // comparison, as runs of different conditions do.
        let noisy = |a: &Arm, e: &Evidence, which: &str| {
            ArmConditions::of(a, conditions::fast_probe_us(&e.arms))
                .and_then(|c| c.noisy())
                .map(|n| format!("{n} in {which}"))
        };
        let apart = apart
            .clone()
            .or_else(|| noisy(o, old, "OLD"))
            .or_else(|| noisy(n, new, "NEW"));
        r.verdict = Verdict::within(r.ci95, apart.as_deref()).to_string();
        if let Some(why) = apart {
            r.note = Some(why);
        } else {
            r.regression = shared::is_regression(rr.ratio, r.ci95, threshold);
        }
        arms.push(r);
    }
    for n in new
        .arms
        .iter()
        .filter(|n| !old.arms.iter().any(|o| o.id == n.id))
    {
        let mut r = row(&n.id);
        r.new_p50_us = n.latency_us.map(|l| l.p50);
        r.verdict = ONLY_IN_NEW.into();
        arms.push(r);
    }
    Comparison {
        old: info(old),
        new: info(new),
        differences: differences(old, new),
        threshold,
        method: METHOD,
        resamples,
        seed,
        regressions: arms.iter().filter(|r| r.regression).count(),
        common_shift: common_shift(&arms),
        arms,
        conditions: [old_conditions.sentence(), new_conditions.sentence()],
        conditions_apart: apart,
    }
}

#[cfg(test)]
mod tests {
    use shared::{sample, Mode, Protocol, RateSummary};

    use super::*;

    fn judged(verdict: Verdict, ratio: f64) -> ArmRow {
        ArmRow {
            arm: "a".into(),
            old_p50_us: Some(100.0),
            new_p50_us: Some(100.0 * ratio),
            ratio: Some(ratio),
            ci95: Some([ratio - 0.01, ratio + 0.01]),
            verdict: verdict.to_string(),
            note: None,
            regression: false,
        }
    }

    #[test]
    fn most_arms_moving_together_is_said() {
        use Verdict::*;
        let rows = [
            judged(Slower, 1.10),
            judged(Slower, 1.20),
            judged(NoEvidence, 1.02),
            judged(Slower, 1.12),
        ];
        let w = common_shift(&rows).unwrap();
        assert!(
            w.starts_with("3 of 4 arms with a CI are slower (median NEW/OLD 1.100x)"),
            "{w}"
        );
        // One slower arm in four is a verdict about that arm, not the machine.
        let rows = [
            judged(Slower, 1.10),
            judged(NoEvidence, 1.0),
            judged(NoEvidence, 1.01),
            judged(Faster, 0.9),
        ];
        assert!(common_shift(&rows).is_none());
        let faster = [
            judged(Faster, 0.8),
            judged(Faster, 0.9),
            judged(NoEvidence, 1.0),
        ];
        assert!(common_shift(&faster).unwrap().contains("are faster"));
        // Too few arms to tell.
        assert!(common_shift(&[judged(Slower, 1.2), judged(Slower, 1.3)]).is_none());
    }

    /// A run with TCP and TLS arms of `rounds` rounds × 20 samples: 100 µs (TCP) or
    /// 400 µs (TLS) plus up to 5% noise, each round 1% slower than the one before.
    fn run(rounds: usize, scale: f64) -> Evidence {
        let mut e = sample::evidence();
        let mut rng = fastrand::Rng::with_seed(42);
        for a in e.arms.iter_mut() {
            let base = if a.protocol == Protocol::Tcp {
                100.0
            } else {
                400.0
            };
            let samples: Vec<f64> = (0..rounds)
                .flat_map(|r| (0..20).map(move |_| r))
                .map(|r| scale * base * (1.0 + r as f64 / 100.0) * (1.0 + rng.f64() / 20.0))
                .collect();
            *a = Arm {
                samples_per_round: vec![20; rounds],
                ..sample::arm(&a.id, a.protocol, a.mode, a.resumption, samples)
            };
        }
        e
    }

    /// `e` with steal recorded per CPU (and an idle machine before it).
    fn with_steal(mut e: Evidence, steal: f64) -> Evidence {
        e.environment.steal_percent = [("cpu0".to_string(), steal)].into();
        e.environment.load_average.before = [0.0; 3];
        e
    }

    #[test]
    fn runs_in_different_conditions_are_inconclusive_and_no_regression() {
        // A real 20% slowdown, but NEW ran under 20% steal (unreliable) and OLD quiet.
        let (old, new) = (
            with_steal(run(10, 1.0), 0.5),
            with_steal(run(10, 1.2), 20.0),
        );
        let c = compare(&old, &new, 0.05, 1000, 1);
        assert!(c.conditions_apart.is_some());
        for r in &c.arms {
            assert_eq!(r.verdict, Verdict::Inconclusive.as_str(), "{r:?}");
            assert!(!r.regression);
            assert!(
                r.ratio.is_some() && r.ci95.is_some(),
                "the numbers stay: {r:?}"
            );
            assert_eq!(r.note, c.conditions_apart);
        }
        assert_eq!(c.regressions, 0);
        // Both quiet: the slowdown is judged.
        let new = with_steal(run(10, 1.2), 0.4);
        let c = compare(&old, &new, 0.05, 1000, 1);
        assert_eq!(c.conditions_apart, None);
        assert_eq!(c.regressions, 3);
    }

    #[test]
    fn an_arm_that_kept_chunks_over_the_steal_threshold_is_inconclusive() {
        // Both runs noisy alike (3% steal); in NEW one arm of five kept a chunk over the
        // threshold (a fifth of the arms: the run stays noisy, not unreliable).
        let (old, mut new) = (with_steal(run(10, 1.0), 3.0), with_steal(run(10, 1.2), 3.0));
        for extra in ["x1", "x2"] {
            let mut a = new.arms[1].clone();
            a.id = extra.into();
            new.arms.push(a);
        }
        let chunk = |round, outcome| shared::Chunk {
            round,
            steal_percent: Some(0.0),
            probe_us: None,
            attempted: 20,
            samples: 20,
            outcome,
        };
        for (i, a) in new.arms.iter_mut().enumerate() {
            a.chunks = Some(shared::ArmChunks {
                list: (0..10)
                    .map(|r| {
                        let o = if i == 0 && r == 3 {
                            shared::ChunkOutcome::UsedOverBudget
                        } else {
                            shared::ChunkOutcome::Used
                        };
                        chunk(r, o)
                    })
                    .collect(),
                set_aside_us: Vec::new(),
            });
        }
        let c = compare(&old, &new, 0.05, 1000, 1);
        assert_eq!(c.conditions_apart, None);
        assert_eq!(c.arms[0].verdict, Verdict::Inconclusive.as_str());
        assert!(!c.arms[0].regression);
        assert!(c.arms[1..3]
            .iter()
            .all(|r| r.verdict == "slower" && r.regression));
        assert_eq!(c.regressions, 2);
    }

    fn nearest_rank_median(v: &[f64]) -> f64 {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s[s.len().div_ceil(2) - 1]
    }

    #[test]
    fn a_twenty_percent_slowdown_is_slower_and_a_regression() {
        let (old, new) = (run(10, 1.0), run(10, 1.2));
        let c = compare(&old, &new, 0.05, 1000, 1);
        assert_eq!(c.arms.len(), 3);
        for (r, (o, n)) in c.arms.iter().zip(old.arms.iter().zip(&new.arms)) {
            let expected = nearest_rank_median(&n.samples_us) / nearest_rank_median(&o.samples_us);
            assert!((r.ratio.unwrap() - expected).abs() < 1e-12, "{r:?}");
            assert!((expected - 1.2).abs() < 1e-9);
            let [lo, hi] = r.ci95.unwrap();
            assert!(lo > 1.0 && lo <= 1.2 && 1.2 <= hi, "{r:?}");
            assert_eq!((r.verdict.as_str(), r.regression), ("slower", true));
        }
        assert_eq!(c.regressions, 3);
        // Slower, but not by more than a 25% threshold: reported, not a regression.
        let c = compare(&old, &new, 0.25, 1000, 1);
        assert!(c
            .arms
            .iter()
            .all(|r| r.verdict == "slower" && !r.regression));
        assert_eq!(c.regressions, 0);
        // The other way round it is faster.
        let c = compare(&new, &old, 0.05, 1000, 1);
        assert!(c
            .arms
            .iter()
            .all(|r| r.verdict == "faster" && !r.regression));
        // Same inputs, same seed, same intervals.
        assert_eq!(
            compare(&old, &new, 0.05, 500, 9),
            compare(&old, &new, 0.05, 500, 9)
        );
    }

    #[test]
    fn a_run_against_itself_shows_no_difference() {
        let e = run(10, 1.0);
        let c = compare(&e, &e, 0.05, 1000, 1);
        for r in &c.arms {
            assert_eq!(r.ratio, Some(1.0));
            let [lo, hi] = r.ci95.unwrap();
            assert!(lo < 1.0 && 1.0 < hi, "{r:?}");
            assert_eq!(r.verdict, "no evidence of a difference");
        }
        assert_eq!((c.regressions, c.differences.len()), (0, 0));
    }

    #[test]
    fn arms_without_latencies_or_rounds_make_no_claim() {
        let old = run(10, 1.0);
        let mut new = run(10, 1.2);
        new.arms[0].error = Some("did not resume".into());
        new.arms[1].timed_window = "something else".into();
        new.arms[2].id = "renamed".into();
        let c = compare(&old, &new, 0.05, 200, 1);
        let by = |id: &str| c.arms.iter().find(|r| r.arm == id).unwrap();
        let tcp = by("tcp-connect");
        assert_eq!((tcp.verdict.as_str(), tcp.ratio), (NOT_COMPARABLE, None));
        assert_eq!(tcp.note.as_deref(), Some("has an error in NEW"));
        let full = by("tls13-full-ecdsa-p256-x25519");
        assert!(full
            .note
            .as_deref()
            .unwrap()
            .contains("timed window differs"));
        assert_eq!(
            by("tls13-resumed-ticket-ecdsa-p256-x25519").verdict,
            ONLY_IN_OLD
        );
        assert_eq!(by("renamed").verdict, ONLY_IN_NEW);
        assert_eq!(c.regressions, 0);

        // Rate-only and skipped arms have no latencies.
        let mut rate = old.clone();
        rate.arms[0].rate = Some(RateSummary {
            connections: 0,
            user_cpu_s: 0.0,
            real_s: 0.0,
            per_user_s: 0.0,
            per_real_s: 0.0,
            slices: Vec::new(),
        });
        rate.arms[1].skipped = Some("no python3".into());
        let c = compare(&old, &rate, 0.05, 200, 1);
        assert!(c.arms[0]
            .note
            .as_deref()
            .unwrap()
            .contains("rate-only arm in NEW"));
        assert_eq!(c.arms[1].note.as_deref(), Some("skipped in NEW"));

        // Three rounds in OLD: a ratio, but no interval and no claim.
        let mut few = run(3, 1.0);
        few.run.settings.samples = 60;
        let c = compare(&few, &run(10, 1.2), 0.05, 200, 1);
        let full = &c.arms[1];
        assert_eq!(full.verdict, "no CI: no claim");
        assert!(full.ratio.is_some() && full.ci95.is_none() && !full.regression);
        assert!(full
            .note
            .as_deref()
            .unwrap()
            .starts_with("OLD: only 3 round(s)"));
        assert_eq!(c.differences, ["samples: 60 → 4"]);
    }

    #[test]
    fn the_table_says_what_the_rows_say() {
        let (old, mut new) = (run(10, 1.0), run(10, 1.2));
        new.arms[0].error = Some("x".into());
        let c = compare(&old, &new, 0.05, 200, 1);
        let t = super::super::table::table(&c);
        assert!(t.contains("OLD: 20261130T000000Z-sample-0000"), "{t}");
        assert_eq!(t.matches("REGRESSION").count(), 2, "{t}");
        assert!(t.contains("^ has an error in NEW"), "{t}");
        assert!(t.contains("2 slower, 0 faster, 0 no evidence of a difference, 0 without a CI, 0 inconclusive, 1 not comparable, 0 in one run only."), "{t}");
        assert!(
            t.contains("Regressions (slower, and NEW/OLD above 1.050): 2."),
            "{t}"
        );
        assert_eq!(new.arms[1].mode, Mode::Full);
    }
}
