//! The confidence intervals of the evidence: each arm's p50 and each comparison's ratio,
//! by the cluster bootstrap over rounds ([`cluster`]).

use shared::Arm;

use crate::measure::cluster;

/// Sets every latency arm's `p50_ci95_us` by the cluster bootstrap over its rounds
/// (see [`crate::stats::CI_METHOD`]), or `ci_unavailable` with the reason there is none.
pub fn apply_cis(arms: &mut [Arm], resamples: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed.wrapping_add(1));
    for arm in arms.iter_mut() {
        let Some(p50) = arm.latency_us.map(|l| l.p50) else {
            continue;
        };
        let rounds = cluster::split(&arm.samples_us, &arm.samples_per_round);
        arm.ci_unavailable = cluster::unavailable(rounds.as_deref());
        arm.p50_ci95_us = match (&rounds, &arm.ci_unavailable) {
            (Some(r), None) => {
                cluster::median_ci95(r, resamples, &mut rng).map(|ci| cluster::containing(ci, p50))
            }
            _ => None,
        };
        if let Some(t) = arm.tracing.as_mut() {
            tracing_cost(t, p50, rounds.as_deref(), resamples, &mut rng);
        }
    }
}

/// What recording the phases costs this arm: `p50(traced) − p50(untraced)` (µs), with
/// a paired cluster bootstrap over the rounds both have samples in.
fn tracing_cost(
    t: &mut shared::Tracing,
    untraced_p50: f64,
    untraced: Option<&[&[f64]]>,
    resamples: usize,
    rng: &mut fastrand::Rng,
) {
    let Some(traced_p50) = t.latency_us.map(|l| l.p50) else {
        return;
    };
    let cost = ((traced_p50 - untraced_p50) * 10.0).round() / 10.0;
    t.cost_us = Some(cost);
    let traced = cluster::split(&t.samples_us, &t.samples_per_round);
    t.cost_ci_unavailable = cluster::unavailable(traced.as_deref())
        .map(|w| format!("traced connections: {w}"))
        .or_else(|| cluster::unavailable(untraced).map(|w| format!("untraced connections: {w}")));
    t.cost_ci95_us = match (traced, untraced, &t.cost_ci_unavailable) {
        (Some(a), Some(b), None) => {
            cluster::paired_difference_ci95(&a, b, resamples, rng).map(|[lo, hi]| {
                let r = |x: f64| (x * 10.0).round() / 10.0;
                cluster::containing([r(lo), r(hi)], cost)
            })
        }
        _ => None,
    };
    if t.cost_ci95_us.is_none() && t.cost_ci_unavailable.is_none() {
        t.cost_ci_unavailable = Some(format!(
            "fewer than {} rounds in which both have samples",
            cluster::MIN_ROUNDS
        ));
    }
}

/// The 95% CI of `p50(numerator) / p50(denominator)` over both arms' rounds (paired when
/// they share a `round_group`), or why there is none.
pub(super) fn ratio_ci(
    numerator: &Arm,
    denominator: &Arm,
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> (Option<[f64; 2]>, Option<String>) {
    fn rounds(a: &Arm) -> Option<Vec<&[f64]>> {
        cluster::split(&a.samples_us, &a.samples_per_round)
    }
    let (n, d) = (rounds(numerator), rounds(denominator));
    for (arm, r) in [(numerator, &n), (denominator, &d)] {
        if let Some(why) = cluster::unavailable(r.as_deref()) {
            return (None, Some(format!("{}: {why}", arm.id)));
        }
    }
    let (Some(n), Some(d)) = (n, d) else {
        unreachable!("unavailable() is Some for an arm without rounds")
    };
    let paired =
        numerator.round_group.is_some() && numerator.round_group == denominator.round_group;
    let ratio = match (numerator.latency_us, denominator.latency_us) {
        (Some(n), Some(d)) => n.p50 / d.p50,
        _ => f64::NAN,
    };
    match cluster::ratio_ci95(&n, &d, paired, resamples, rng) {
        Some(ci) if ratio.is_finite() => (Some(cluster::containing(ci, ratio)), None),
        Some(ci) => (Some(ci), None),
        None => (
            None,
            Some(format!(
                "fewer than {} rounds in which both arms have samples",
                cluster::MIN_ROUNDS
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use shared::Mode;

    use super::*;
    use crate::arms::ArmRun;
    use crate::evidence::build_arm;

    /// An arm run over `rounds` (sample counts per round) of `group`: round r's i-th
    /// sample is `base × (1 + r/20) + i/100` µs (drift of 5% per round).
    fn run_in_rounds(spec: crate::arms::ArmSpec, base: f64, rounds: &[u64], group: &str) -> ArmRun {
        let mut run = ArmRun::new(spec, 0);
        for (r, &n) in rounds.iter().enumerate() {
            run.begin_round(group);
            for i in 0..n {
                let us = base * (1.0 + r as f64 / 20.0) + i as f64 / 100.0;
                run.attempted += 1;
                run.record_sample(std::time::Duration::from_nanos((us * 1000.0).round() as u64));
            }
        }
        run
    }

    #[test]
    fn rounds_reach_the_evidence_with_their_medians_and_a_cluster_ci() {
        use crate::arms::ArmSpec;
        let tcp = run_in_rounds(ArmSpec::TCP_CONNECT, 20.0, &[3, 0, 3, 3, 3, 3], "loopback");
        let mut arms = vec![build_arm(&tcp)];
        let a = &arms[0];
        assert_eq!(a.samples_per_round, [3, 0, 3, 3, 3, 3]);
        assert_eq!(a.round_group.as_deref(), Some("loopback"));
        // Round r holds 20 + r, + 0.01, + 0.02: its median is 20 + r + 0.01.
        assert_eq!(
            a.round_medians_us,
            [
                Some(20.01),
                None,
                Some(22.01),
                Some(23.01),
                Some(24.01),
                Some(25.01)
            ]
        );
        assert_eq!((a.p50_ci95_us, a.ci_unavailable.as_deref()), (None, None));
        apply_cis(&mut arms, 500, 7);
        let [lo, hi] = arms[0].p50_ci95_us.expect("five rounds with samples");
        let p50 = arms[0].latency_us.unwrap().p50;
        assert!(lo <= p50 && p50 <= hi, "[{lo}, {hi}] around {p50}");
        // Rounds sit 1-5 µs apart: the interval spans rounds, not the 0.01 µs steps within one.
        assert!(hi - lo >= 1.0, "[{lo}, {hi}]");
        // Four rounds with samples: no interval, and the reason.
        let few = run_in_rounds(ArmSpec::TCP_CONNECT, 20.0, &[3, 3, 0, 3, 3], "loopback");
        let mut arms = vec![build_arm(&few)];
        apply_cis(&mut arms, 500, 7);
        assert_eq!(arms[0].p50_ci95_us, None);
        assert!(arms[0]
            .ci_unavailable
            .as_deref()
            .unwrap()
            .contains("only 4 round(s)"));
        // Not taken in rounds at all (as capacity arms are).
        let mut flat = ArmRun::new(ArmSpec::TCP_CONNECT, 0);
        flat.attempted = 1;
        flat.record_sample(std::time::Duration::from_micros(20));
        let mut arms = vec![build_arm(&flat)];
        assert!(arms[0].samples_per_round.is_empty() && arms[0].round_group.is_none());
        apply_cis(&mut arms, 500, 7);
        assert!(arms[0]
            .ci_unavailable
            .as_deref()
            .unwrap()
            .contains("not taken in interleaved rounds"));
    }

    #[test]
    fn a_ratio_is_paired_only_within_one_round_group() {
        use crate::arms::ArmSpec;
        let full = ArmSpec {
            kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
                protocol: shared::Protocol::Tls13,
                mode: Mode::Full,
                resumption: None,
                cert: Some(shared::CertKind::EcdsaP256),
                group: Some(shared::KxGroup::X25519),
                early_data: false,
            }),
            ..ArmSpec::TCP_CONNECT
        };
        let rounds = [20; 8];
        // Both arms drift by 5% per round, in step: TLS takes 6 times as long as TCP in
        // every round.
        let tcp = build_arm(&run_in_rounds(
            ArmSpec::TCP_CONNECT,
            20.0,
            &rounds,
            "loopback",
        ));
        let tls = build_arm(&run_in_rounds(full, 120.0, &rounds, "loopback"));
        let (paired, why) = ratio_ci(&tls, &tcp, 1000, &mut fastrand::Rng::with_seed(1));
        assert_eq!(why, None);
        let other = Arm {
            round_group: Some("peer-python".into()),
            ..tcp.clone()
        };
        let (independent, _) = ratio_ci(&tls, &other, 1000, &mut fastrand::Rng::with_seed(1));
        let width = |c: Option<[f64; 2]>| c.map(|[lo, hi]| hi - lo).unwrap();
        // Paired, a round's shared drift moves numerator and denominator together.
        assert!(
            width(paired) < width(independent) / 2.0,
            "paired {paired:?}, independent {independent:?}"
        );
        let few = build_arm(&run_in_rounds(
            ArmSpec::TCP_CONNECT,
            20.0,
            &[5; 3],
            "loopback",
        ));
        let (ci, why) = ratio_ci(&tls, &few, 100, &mut fastrand::Rng::with_seed(1));
        assert_eq!(ci, None);
        assert!(why.unwrap().starts_with("tcp-connect: only 3 round(s)"));
    }
}
