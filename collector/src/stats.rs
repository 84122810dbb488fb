//! Statistics, written once for every arm: percentiles, and the i.i.d. intervals (a
//! distribution-free CI of the median, a bootstrap of ratios of medians) that treat
//! every sample as independent. The evidence's intervals resample whole rounds instead
//! (the cluster bootstrap of `shared::cluster`); these stay as the reference the cluster
//! bootstrap is tested against, and to show what the i.i.d. assumption claims on the same
//! samples. Pure functions over samples, below every layer that summarizes them (the
//! timing loop, the stacks' own rate arms, the evidence).

use shared::LatencySummary;

/// How percentiles are defined (recorded in the evidence).
pub const PERCENTILE_DEFINITION: &str = "nearest rank: the p-th percentile of n sorted samples is the sample at 1-based rank ceil(p/100 * n); min and max are ranks 1 and n; stddev is the sample standard deviation (n - 1)";

/// How confidence intervals are computed (recorded in the evidence).
pub const CI_METHOD: &str = "cluster bootstrap over the interleaved rounds, so drift between rounds widens the intervals. p50_ci95_us: each of bootstrap_resamples resamples draws, with replacement, as many rounds as the arm has rounds with samples (samples_per_round > 0), pools their samples and takes the nearest-rank median; the interval is the 2.5th and 97.5th nearest-rank percentiles of those medians, widened to include the measured p50 where it falls outside. Comparison ci95: the same for the ratio of the two arms' medians (also widened to include the measured ratio); when both arms have the same round_group (interleaved in the same rounds), the same round indices are drawn for both among the rounds where both have samples (paired: drift shared by a round hits both); otherwise each arm's rounds are drawn independently. With fewer than 5 rounds with samples (or samples not taken in rounds, e.g. capacity arms) there is no interval: null, and ci_unavailable says why. Random numbers: fastrand 2 (wyrand) seeded with bootstrap_seed + 1 for the arms in evidence order, and with bootstrap_seed for the comparisons in order";

/// Nearest-rank percentiles, one definition for the collector and the viewer.
pub use shared::cluster::{median_in_place, nearest_rank};

/// Summary statistics; None for no samples.
pub fn summarize(samples: &[f64]) -> Option<LatencySummary> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mean = sorted.iter().sum::<f64>() / n;
    let var = if sorted.len() > 1 {
        sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let summary = LatencySummary {
        min: sorted[0],
        p50: nearest_rank(&sorted, 50.0),
        p95: nearest_rank(&sorted, 95.0),
        p99: nearest_rank(&sorted, 99.0),
        max: sorted[sorted.len() - 1],
        mean,
        stddev: var.sqrt(),
    };
    Some(summary)
}

/// Distribution-free 95% CI of the median from order statistics, ranks
/// floor(n/2 - 0.98·sqrt(n)) and ceil(n/2 + 0.98·sqrt(n)) (normal approximation to
/// Binomial(n, 1/2), clamped to [1, n]); valid only for independent samples.
pub fn median_ci95(sorted: &[f64]) -> [f64; 2] {
    let n = sorted.len();
    let half = n as f64 / 2.0;
    let spread = 0.98 * (n as f64).sqrt();
    let lo = ((half - spread).floor() as usize).clamp(1, n);
    let hi = ((half + spread).ceil() as usize).clamp(1, n);
    [sorted[lo - 1], sorted[hi - 1]]
}

/// Percentile-bootstrap 95% CI of `median(numerator) / median(denominator)`, every
/// sample resampled independently (valid only for independent samples).
pub fn ratio_ci95(
    numerator: &[f64],
    denominator: &[f64],
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> [f64; 2] {
    let mut ratios = Vec::with_capacity(resamples);
    let mut a = vec![0.0; numerator.len()];
    let mut b = vec![0.0; denominator.len()];
    for _ in 0..resamples {
        a.iter_mut()
            .for_each(|x| *x = numerator[rng.usize(..numerator.len())]);
        b.iter_mut()
            .for_each(|x| *x = denominator[rng.usize(..denominator.len())]);
        ratios.push(median_in_place(&mut a) / median_in_place(&mut b));
    }
    ratios.sort_by(f64::total_cmp);
    [nearest_rank(&ratios, 2.5), nearest_rank(&ratios, 97.5)]
}

/// How the 95% CI of a rate ratio is computed (recorded in the evidence).
pub const RATE_CI_METHOD: &str = "resume_rate_speedup ci95: each rate arm runs in slices (separate tool runs, interleaved across arms); percentile bootstrap over slices: both arms' slices resampled independently with replacement, rate = sum of connections / sum of seconds (real or user CPU) over the resampled slices, 2.5th and 97.5th percentiles of the resampled ratios. With few slices the interval is coarse, and it is only as wide as the slice-to-slice spread";

/// Percentile-bootstrap 95% CI of `rate(numerator) / rate(denominator)`, where each arm
/// is a set of slices `(connections, seconds)` and a rate is Σ connections / Σ seconds
/// (see [`RATE_CI_METHOD`]).
pub fn rate_ratio_ci95(
    numerator: &[(f64, f64)],
    denominator: &[(f64, f64)],
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> [f64; 2] {
    let mut draw = |slices: &[(f64, f64)]| {
        let (c, s) = (0..slices.len())
            .map(|_| slices[rng.usize(..slices.len())])
            .fold((0.0, 0.0), |(c, s), (dc, ds)| (c + dc, s + ds));
        c / s
    };
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| draw(numerator) / draw(denominator))
        .filter(|r| r.is_finite())
        .collect();
    if ratios.is_empty() {
        return [f64::NAN, f64::NAN];
    }
    ratios.sort_by(f64::total_cmp);
    [nearest_rank(&ratios, 2.5), nearest_rank(&ratios, 97.5)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_to(n: usize) -> Vec<f64> {
        (1..=n).map(|x| x as f64).collect()
    }

    #[test]
    fn nearest_rank_on_known_data() {
        let s = one_to(100);
        assert_eq!(nearest_rank(&s, 50.0), 50.0);
        assert_eq!(nearest_rank(&s, 95.0), 95.0);
        assert_eq!(nearest_rank(&s, 99.0), 99.0);
        assert_eq!(nearest_rank(&s, 100.0), 100.0);
        assert_eq!(nearest_rank(&s, 0.0), 1.0);
        let s = one_to(10);
        assert_eq!(nearest_rank(&s, 50.0), 5.0);
        assert_eq!(nearest_rank(&s, 95.0), 10.0);
        assert_eq!(nearest_rank(&[7.0], 99.0), 7.0);
    }

    #[test]
    fn median_in_place_agrees_with_sorting() {
        let mut rng = fastrand::Rng::with_seed(7);
        for n in [1, 2, 3, 10, 101, 1000] {
            let v: Vec<f64> = (0..n).map(|_| rng.f64() * 1000.0).collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(
                median_in_place(&mut v.clone()),
                nearest_rank(&sorted, 50.0),
                "n={n}"
            );
        }
    }

    #[test]
    fn summary_on_known_data() {
        let mut v = one_to(1000);
        v.reverse();
        let s = summarize(&v).unwrap();
        assert_eq!(
            (s.min, s.p50, s.p95, s.p99, s.max),
            (1.0, 500.0, 950.0, 990.0, 1000.0)
        );
        assert!((s.mean - 500.5).abs() < 1e-9);
        // sd of 1..=n is sqrt(n(n+1)/12) with the n-1 denominator.
        assert!((s.stddev - (1000.0f64 * 1001.0 / 12.0).sqrt()).abs() < 1e-6);
        // n = 1000: ranks floor(500 - 30.99) = 469 and ceil(530.99) = 531.
        assert_eq!(median_ci95(&one_to(1000)), [469.0, 531.0]);
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn median_ci_covers_the_median_near_95_percent() {
        // Coverage check on a known distribution (uniform on [0, 1), true median 0.5).
        let mut rng = fastrand::Rng::with_seed(11);
        let trials = 2000;
        let covered = (0..trials)
            .filter(|_| {
                let mut v: Vec<f64> = (0..200).map(|_| rng.f64()).collect();
                v.sort_by(f64::total_cmp);
                let [lo, hi] = median_ci95(&v);
                lo <= 0.5 && 0.5 <= hi
            })
            .count();
        let rate = covered as f64 / trials as f64;
        assert!((0.93..=0.98).contains(&rate), "coverage {rate}");
    }

    #[test]
    fn ratio_ci_brackets_a_known_ratio() {
        let mut rng = fastrand::Rng::with_seed(3);
        let full: Vec<f64> = (0..500).map(|_| 400.0 + rng.f64() * 40.0).collect();
        let resumed: Vec<f64> = (0..500).map(|_| 100.0 + rng.f64() * 10.0).collect();
        let [lo, hi] = ratio_ci95(&full, &resumed, 500, &mut fastrand::Rng::with_seed(1));
        assert!(lo <= 4.0 && 4.0 <= hi && hi - lo < 0.2, "[{lo}, {hi}]");
        // Same seed, same interval: the evidence records the seed for this reason.
        assert_eq!(
            ratio_ci95(&full, &resumed, 500, &mut fastrand::Rng::with_seed(1)),
            [lo, hi]
        );
    }

    #[test]
    fn rate_ratio_ci_brackets_the_ratio_and_is_reproducible() {
        let reuse = [(300.0, 0.4), (310.0, 0.4), (290.0, 0.4)];
        let new = [(100.0, 0.4), (104.0, 0.4), (96.0, 0.4)];
        let ci = rate_ratio_ci95(&reuse, &new, 1000, &mut fastrand::Rng::with_seed(5));
        assert!(
            ci[0] <= 3.0 && 3.0 <= ci[1] && ci[1] - ci[0] < 0.5,
            "{ci:?}"
        );
        assert_eq!(
            rate_ratio_ci95(&reuse, &new, 1000, &mut fastrand::Rng::with_seed(5)),
            ci
        );
        // No spread between slices, no width.
        let same = [(100.0, 1.0); 3];
        assert_eq!(
            rate_ratio_ci95(&same, &same, 100, &mut fastrand::Rng::with_seed(1)),
            [1.0, 1.0]
        );
    }
}
