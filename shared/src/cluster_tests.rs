//! The cluster bootstrap on inputs small enough to know its answer by hand. Every
//! expected value below is derived in the comment beside it, not read back from the code.

use super::*;

/// Rounds of one sample each: 1, 2, 3, 4, 5 µs.
const ONE_TO_FIVE: [&[f64]; 5] = [&[1.0], &[2.0], &[3.0], &[4.0], &[5.0]];

fn rng(seed: u64) -> fastrand::Rng {
    fastrand::Rng::with_seed(seed)
}

#[test]
fn split_cuts_the_samples_in_round_order_and_refuses_counts_that_do_not_add_up() {
    let samples = [1.0, 2.0, 3.0, 4.0, 5.0];
    let expected: Vec<&[f64]> = vec![&[1.0, 2.0], &[], &[3.0, 4.0, 5.0]];
    assert_eq!(split(&samples, &[2, 0, 3]), Some(expected));
    assert_eq!(split(&samples, &[5]), Some(vec![&samples[..]]));
    // 4 or 6 counted for 5 samples: the rounds are not these samples'.
    assert_eq!(split(&samples, &[2, 2]), None);
    assert_eq!(split(&samples, &[3, 3]), None);
    // No rounds at all, with or without samples: not taken in rounds.
    assert_eq!(split(&samples, &[]), None);
    assert_eq!(split(&[], &[]), None);
    // Rounds that all came back empty do add up to no samples.
    assert_eq!(split(&[], &[0, 0]), Some(vec![&[][..], &[][..]]));
}

#[test]
fn an_interval_needs_min_rounds_rounds_that_hold_samples() {
    assert_eq!(
        MIN_ROUNDS, 5,
        "docs/src/methods.md and the messages below say 5"
    );
    let no_rounds = unavailable(None).unwrap();
    assert!(
        no_rounds.starts_with("its samples were not taken in interleaved rounds"),
        "{no_rounds}"
    );
    // Six rounds, two of them empty: four hold samples.
    let four: [&[f64]; 6] = [&[1.0], &[], &[2.0], &[3.0], &[], &[4.0]];
    assert_eq!(
        unavailable(Some(&four)).as_deref(),
        Some("only 4 round(s) with samples; a CI that includes drift between rounds needs at least 5")
    );
    assert_eq!(unavailable(Some(&ONE_TO_FIVE)), None, "exactly 5 is enough");
    assert_eq!(median_ci95(&four, 100, &mut rng(1)), None);
    assert!(median_ci95(&ONE_TO_FIVE, 100, &mut rng(1)).is_some());
}

#[test]
fn nearest_rank_is_the_sample_at_rank_ceil_p_n() {
    let sorted = [10.0, 20.0, 30.0, 40.0, 50.0];
    // n = 5: p50 → ceil(2.5) = rank 3; p25 → ceil(1.25) = 2; p2.5 → ceil(0.125) = 1;
    // p97.5 → ceil(4.875) = 5; p0 → rank 0, raised to 1; p100 → 5.
    assert_eq!(nearest_rank(&sorted, 50.0), 30.0);
    assert_eq!(nearest_rank(&sorted, 25.0), 20.0);
    assert_eq!(nearest_rank(&sorted, 2.5), 10.0);
    assert_eq!(nearest_rank(&sorted, 97.5), 50.0);
    assert_eq!(nearest_rank(&sorted, 0.0), 10.0);
    assert_eq!(nearest_rank(&sorted, 100.0), 50.0);
    // n = 4: p50 → rank 2 (the lower middle, not the mean of the two); p75 → 3.
    assert_eq!(nearest_rank(&sorted[..4], 50.0), 20.0);
    assert_eq!(nearest_rank(&sorted[..4], 75.0), 30.0);
    // The median without sorting first, by the same rank.
    assert_eq!(median_in_place(&mut [5.0, 1.0, 4.0, 2.0, 3.0]), 3.0);
    assert_eq!(median_in_place(&mut [4.0, 1.0, 3.0, 2.0]), 2.0);
    assert_eq!(median_in_place(&mut [-7.0]), -7.0);
}

#[test]
fn containing_widens_an_interval_to_hold_its_estimate_and_only_then() {
    assert_eq!(containing([1.0, 2.0], 3.0), [1.0, 3.0]);
    assert_eq!(containing([1.0, 2.0], 0.5), [0.5, 2.0]);
    assert_eq!(containing([1.0, 2.0], 1.5), [1.0, 2.0]);
}

#[test]
fn every_bootstrap_median_of_identical_rounds_is_their_value() {
    // Each round pools to the same median, whatever is drawn.
    let rounds: [&[f64]; 5] = [&[7.0, 9.0, 8.0]; 5];
    assert_eq!(median_ci95(&rounds, 200, &mut rng(3)), Some([8.0, 8.0]));
}

#[test]
fn the_median_ci_of_rounds_one_to_five_spans_one_to_five() {
    // Five rounds holding 1..5, five drawn with replacement, median of the five values.
    // P(median = 1) = P(at least 3 of 5 draws are 1) = 10·0.2³·0.8² + 5·0.2⁴·0.8 + 0.2⁵
    // = 0.0579 > 2.5%, so the 2.5th percentile of 2,000 medians is 1 (expected count
    // 116 against the 50 needed: 6 standard deviations away); by symmetry the 97.5th
    // is 5. Any seed gives this.
    for seed in [1, 2, 99] {
        assert_eq!(
            median_ci95(&ONE_TO_FIVE, 2000, &mut rng(seed)),
            Some([1.0, 5.0])
        );
    }
    // Empty rounds are not drawn (a drawn empty round would add nothing and narrow
    // nothing, but it would make "5 rounds" out of 4).
    let gaps: [&[f64]; 7] = [&[1.0], &[], &[2.0], &[3.0], &[], &[4.0], &[5.0]];
    assert_eq!(median_ci95(&gaps, 2000, &mut rng(5)), Some([1.0, 5.0]));
}

#[test]
fn the_median_ci_pools_the_drawn_rounds_samples() {
    // Three heavy rounds of nine 100s, two light rounds of one 1. A draw of five holding
    // k ≥ 1 heavy rounds pools 9k 100s against at most 4 ones: median 100. Only k = 0
    // gives 1, with P = 0.4⁵ = 0.010 < 2.5% (expected 20 of 2,000 medians against the
    // 50 needed): the interval is [100, 100]. A median of round medians would give 1
    // whenever k ≤ 2 (P = 0.32), a lower bound of 1.
    let heavy: &[f64] = &[100.0; 9];
    let rounds: [&[f64]; 5] = [heavy, &[1.0], heavy, &[1.0], heavy];
    assert_eq!(
        median_ci95(&rounds, 2000, &mut rng(11)),
        Some([100.0, 100.0])
    );
}

#[test]
fn a_seed_gives_the_same_interval_every_time() {
    let rounds: [&[f64]; 6] = [
        &[10.0, 12.0],
        &[11.0],
        &[14.0, 9.0, 10.5],
        &[13.0],
        &[8.0, 30.0],
        &[10.0],
    ];
    let a = median_ci95(&rounds, 500, &mut rng(42));
    let b = median_ci95(&rounds, 500, &mut rng(42));
    assert_eq!(a, b);
    let (lo, hi) = (a.unwrap()[0], a.unwrap()[1]);
    // Any pooled median is one of the samples, so the bounds lie within them.
    assert!(8.0 <= lo && lo <= hi && hi <= 30.0, "{lo} {hi}");
    let n: [&[f64]; 5] = [&[2.0], &[4.0], &[6.0], &[8.0], &[10.0]];
    assert_eq!(
        ratio_ci95(&n, &ONE_TO_FIVE, false, 500, &mut rng(9)),
        ratio_ci95(&n, &ONE_TO_FIVE, false, 500, &mut rng(9))
    );
}

/// Numerator rounds exactly twice the denominator's: 2, 4, 6, 8, 10.
const TWICE: [&[f64]; 5] = [&[2.0], &[4.0], &[6.0], &[8.0], &[10.0]];

#[test]
fn paired_rounds_cancel_the_drift_both_arms_saw() {
    // Paired: the same round indices are drawn for both arms, and in every round the
    // numerator is twice the denominator, so every resampled ratio is exactly 2.
    assert_eq!(
        ratio_ci95(&TWICE, &ONE_TO_FIVE, true, 2000, &mut rng(4)),
        Some([2.0, 2.0])
    );
    // Unpaired: drawn independently. With X, Y the medians of five draws from 1..5,
    // P(ratio ≤ 1) = P(2X ≤ Y) ≥ P(X=1)·P(Y≥2) + P(X=2)·P(Y≥4) = 0.058·0.942 +
    // 0.260·0.317 = 0.137 > 2.5%, and by symmetry P(ratio ≥ 4) > 2.5%: the interval
    // holds 1 and 4.
    let [lo, hi] = ratio_ci95(&TWICE, &ONE_TO_FIVE, false, 2000, &mut rng(4)).unwrap();
    assert!(lo <= 1.0 && hi >= 4.0, "[{lo}, {hi}]");
}

#[test]
fn paired_ratios_draw_only_rounds_where_both_arms_have_samples() {
    // Shared rounds with samples on both sides: 0, 3, 4 and 5 (round 6 exists only in
    // the numerator): four, too few.
    let n: [&[f64]; 7] = [&[2.0], &[], &[6.0], &[8.0], &[10.0], &[12.0], &[14.0]];
    let d: [&[f64]; 6] = [&[1.0], &[2.0], &[], &[4.0], &[5.0], &[6.0]];
    assert_eq!(ratio_ci95(&n, &d, true, 200, &mut rng(1)), None);
    // Unpaired, each side has six rounds with samples: enough.
    assert!(ratio_ci95(&n, &d, false, 200, &mut rng(1)).is_some());
    // A fifth shared round: enough, and still exactly 2 (the numerator-only round 6 is
    // never drawn, or its 14 against nothing would move the ratio).
    let d5: [&[f64]; 7] = [&[1.0], &[2.0], &[], &[4.0], &[5.0], &[6.0], &[]];
    let n5: [&[f64]; 7] = [&[2.0], &[4.0], &[6.0], &[8.0], &[10.0], &[12.0], &[14.0]];
    assert_eq!(
        ratio_ci95(&n5, &d5, true, 500, &mut rng(1)),
        Some([2.0, 2.0])
    );
}

#[test]
fn unpaired_ratios_need_min_rounds_on_each_side() {
    let four: [&[f64]; 4] = [&[1.0], &[2.0], &[3.0], &[4.0]];
    assert_eq!(
        ratio_ci95(&four, &ONE_TO_FIVE, false, 200, &mut rng(1)),
        None
    );
    assert_eq!(
        ratio_ci95(&ONE_TO_FIVE, &four, false, 200, &mut rng(1)),
        None
    );
    assert_eq!(ratio_ci95(&four, &four, true, 200, &mut rng(1)), None);
    // Identical rounds on both sides, unpaired: every ratio is 8 / 4 = 2.
    let eights: [&[f64]; 5] = [&[8.0]; 5];
    let fours: [&[f64]; 5] = [&[4.0]; 5];
    assert_eq!(
        ratio_ci95(&eights, &fours, false, 200, &mut rng(1)),
        Some([2.0, 2.0])
    );
}

/// An arm whose p50 is `p50` and whose samples are `rounds` (empty: not in rounds).
fn arm(p50: Option<f64>, rounds: &[&[f64]]) -> crate::Arm {
    let mut a = crate::sample::evidence().arms[0].clone();
    a.latency_us = p50.map(|p50| crate::LatencySummary {
        min: p50,
        p50,
        p95: p50,
        p99: p50,
        max: p50,
        mean: p50,
        stddev: 0.0,
    });
    a.samples_us = rounds.iter().flat_map(|r| r.iter().copied()).collect();
    a.samples_per_round = rounds.iter().map(|r| r.len() as u64).collect();
    a
}

#[test]
fn a_run_ratio_is_new_over_old_with_the_reason_it_has_no_interval() {
    let old = arm(Some(4.0), &[]);
    let new = arm(Some(10.0), &ONE_TO_FIVE);
    let r = run_ratio(&old, &new, 200, &mut rng(1)).unwrap();
    assert_eq!(r.ratio, 2.5);
    assert_eq!(r.ci95, None);
    assert!(
        r.no_ci
            .as_deref()
            .unwrap()
            .starts_with("OLD: its samples were not taken in interleaved rounds"),
        "{r:?}"
    );
    let three: [&[f64]; 3] = [&[1.0], &[2.0], &[3.0]];
    let r = run_ratio(
        &arm(Some(4.0), &ONE_TO_FIVE),
        &arm(Some(10.0), &three),
        200,
        &mut rng(1),
    )
    .unwrap();
    assert_eq!(
        r.no_ci.as_deref(),
        Some("NEW: only 3 round(s) with samples; a CI that includes drift between rounds needs at least 5")
    );
    assert_eq!(r.ci95, None);
    // Either side without latencies: no ratio at all.
    assert_eq!(run_ratio(&arm(None, &[]), &new, 200, &mut rng(1)), None);
    assert_eq!(run_ratio(&new, &arm(None, &[]), 200, &mut rng(1)), None);
}

#[test]
fn a_run_ratio_interval_is_drawn_from_both_runs_and_holds_the_ratio() {
    // Identical rounds in both runs: every resampled ratio is 8 / 4 = 2.
    let eights: [&[f64]; 5] = [&[8.0]; 5];
    let fours: [&[f64]; 5] = [&[4.0]; 5];
    let r = run_ratio(
        &arm(Some(4.0), &fours),
        &arm(Some(8.0), &eights),
        200,
        &mut rng(1),
    )
    .unwrap();
    assert_eq!(
        r,
        RunRatio {
            ratio: 2.0,
            ci95: Some([2.0, 2.0]),
            no_ci: None
        }
    );
    // A p50 the rounds do not hold (the summary says 20, the rounds 8): the interval
    // is widened to contain the ratio 20 / 4 = 5 rather than exclude its own estimate.
    let r = run_ratio(
        &arm(Some(4.0), &fours),
        &arm(Some(20.0), &eights),
        200,
        &mut rng(1),
    )
    .unwrap();
    assert_eq!((r.ratio, r.ci95), (5.0, Some([2.0, 5.0])));
}
