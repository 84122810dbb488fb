//! Confidence intervals that include drift: the cluster bootstrap over rounds lives in
//! `shared::cluster` (the viewer uses it too); its tests are here, beside the i.i.d.
//! intervals they are checked against.

pub use shared::cluster::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats;

    /// `rounds` rounds of `per` samples: uniform noise around `level(r)`.
    fn rounds(n: usize, per: usize, seed: u64, level: impl Fn(usize) -> f64) -> Vec<Vec<f64>> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n)
            .map(|r| (0..per).map(|_| level(r) + rng.f64() * 10.0).collect())
            .collect()
    }

    fn slices(v: &[Vec<f64>]) -> Vec<&[f64]> {
        v.iter().map(Vec::as_slice).collect()
    }

    fn pooled(v: &[Vec<f64>]) -> Vec<f64> {
        v.concat()
    }

    #[test]
    fn split_follows_the_counts_and_refuses_a_mismatch() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        let r = split(&s, &[2, 0, 3]).unwrap();
        assert_eq!(r, vec![&[1.0, 2.0][..], &[][..], &[3.0, 4.0, 5.0][..]]);
        assert!(split(&s, &[2, 2]).is_none());
        assert!(split(&s, &[]).is_none());
    }

    #[test]
    fn a_shift_between_rounds_widens_the_interval_to_cover_it() {
        // Ten rounds of 100 samples; rounds 0-6 sit at 100-110, rounds 7-9 at 130-140:
        // the drift a run sees when the machine gets busier near its end.
        let data = rounds(10, 100, 1, |r| if r < 7 { 100.0 } else { 130.0 });
        let all = pooled(&data);
        let mut rng = fastrand::Rng::with_seed(2);
        let [lo, hi] = median_ci95(&slices(&data), 2000, &mut rng).unwrap();
        // The pooled median sits in the quiet rounds (~107). Another run of the same
        // machine could as well have had no slow round, or six: the interval reaches
        // from the quiet level up into the shifted one.
        assert!(lo < 106.0 && hi > 130.0, "cluster CI [{lo}, {hi}]");
        // The i.i.d. order-statistic interval treats 1000 samples as independent and
        // stays narrow around the pooled median: it does not cover the shift.
        let mut sorted = all.clone();
        sorted.sort_by(f64::total_cmp);
        let [ilo, ihi] = stats::median_ci95(&sorted);
        assert!(ilo > 105.0 && ihi < 110.0, "i.i.d. CI [{ilo}, {ihi}]");
        // Nor does the plain bootstrap of single samples.
        let [blo, bhi] = plain_median_ci95(&all, 1000, &mut fastrand::Rng::with_seed(2));
        assert!(blo > 105.0 && bhi < 110.0, "plain bootstrap [{blo}, {bhi}]");
    }

    /// The plain percentile bootstrap of the median, every sample drawn independently,
    /// written out here as the reference.
    fn plain_median_ci95(all: &[f64], resamples: usize, rng: &mut fastrand::Rng) -> [f64; 2] {
        let mut medians: Vec<f64> = (0..resamples)
            .map(|_| {
                let mut r: Vec<f64> = (0..all.len())
                    .map(|_| all[rng.usize(..all.len())])
                    .collect();
                r.sort_by(f64::total_cmp);
                r[r.len().div_ceil(2) - 1]
            })
            .collect();
        medians.sort_by(f64::total_cmp);
        // Nearest rank: ceil(0.025 n) and ceil(0.975 n).
        let at = |p: f64| medians[((p * resamples as f64).ceil() as usize).max(1) - 1];
        [at(0.025), at(0.975)]
    }

    #[test]
    fn on_iid_rounds_it_matches_the_plain_bootstrap() {
        // No drift: every round draws from the same distribution. The cluster bootstrap
        // then estimates the same spread as resampling single samples.
        let data = rounds(20, 50, 3, |_| 100.0);
        let all = pooled(&data);
        let mut rng = fastrand::Rng::with_seed(4);
        let [lo, hi] = median_ci95(&slices(&data), 2000, &mut rng).unwrap();
        let [plo, phi] = plain_median_ci95(&all, 2000, &mut fastrand::Rng::with_seed(5));
        let (w, pw) = (hi - lo, phi - plo);
        assert!(
            (w / pw - 1.0).abs() < 0.25,
            "cluster width {w}, plain width {pw}"
        );
        assert!((lo - plo).abs() < 0.5 * pw && (hi - phi).abs() < 0.5 * pw);
    }

    #[test]
    fn fewer_than_five_rounds_give_no_interval() {
        let data = rounds(4, 50, 6, |_| 100.0);
        let mut rng = fastrand::Rng::with_seed(1);
        assert_eq!(median_ci95(&slices(&data), 100, &mut rng), None);
        assert!(unavailable(Some(&slices(&data)))
            .unwrap()
            .contains("only 4 round"));
        // Empty rounds do not count.
        let mut five = data.clone();
        five.push(Vec::new());
        assert_eq!(median_ci95(&slices(&five), 100, &mut rng), None);
        five.push(vec![100.0]);
        assert!(median_ci95(&slices(&five), 100, &mut rng).is_some());
        assert_eq!(unavailable(Some(&slices(&five))), None);
        assert!(unavailable(None)
            .unwrap()
            .contains("not taken in interleaved rounds"));
        let d = slices(&data);
        assert_eq!(ratio_ci95(&d, &d, true, 100, &mut rng), None);
        assert_eq!(ratio_ci95(&slices(&five), &d, false, 100, &mut rng), None);
    }

    #[test]
    fn pairing_cancels_drift_that_hits_both_arms() {
        // Both arms slow down together in the same rounds; the ratio is 2 in every round.
        let level = |r: usize| 100.0 + 8.0 * r as f64;
        let den = rounds(10, 100, 7, level);
        let num: Vec<Vec<f64>> = den
            .iter()
            .map(|r| r.iter().map(|x| 2.0 * x).collect())
            .collect();
        let mut rng = fastrand::Rng::with_seed(8);
        let [plo, phi] = ratio_ci95(&slices(&num), &slices(&den), true, 2000, &mut rng).unwrap();
        let [ulo, uhi] = ratio_ci95(&slices(&num), &slices(&den), false, 2000, &mut rng).unwrap();
        assert!(
            plo <= 2.0 && 2.0 <= phi && phi - plo < 1e-9,
            "paired [{plo}, {phi}]"
        );
        assert!(ulo < 1.9 && uhi > 2.1, "independent [{ulo}, {uhi}]");
        // Same seed, same interval: the evidence records the seed for this reason.
        let again =
            |seed| median_ci95(&slices(&den), 500, &mut fastrand::Rng::with_seed(seed)).unwrap();
        assert_eq!(again(9), again(9));
    }
}
