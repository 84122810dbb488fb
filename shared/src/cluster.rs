//! Confidence intervals that include drift: a cluster bootstrap over the interleaved
//! rounds, written once for the collector (each arm's CI, every comparison, `collector
//! compare`) and the viewer (its run comparison). Samples of one round are taken together, so whatever slowed the machine in
//! that round slowed all of them; resampling whole rounds (not single samples) lets the
//! round-to-round spread into the interval.

/// With fewer rounds holding samples than this, no interval is given: a bootstrap over
/// two or three clusters cannot see the spread between rounds, and would look precise.
pub const MIN_ROUNDS: usize = crate::MIN_CI_ROUNDS;

/// One arm's samples split by round: `per_round[r]` samples were taken in round `r`, in
/// order. None when the counts do not add up to `samples.len()` (or there are none).
pub fn split<'a>(samples: &'a [f64], per_round: &[u64]) -> Option<Vec<&'a [f64]>> {
    if per_round.is_empty() || per_round.iter().sum::<u64>() != samples.len() as u64 {
        return None;
    }
    let mut rest = samples;
    Some(
        per_round
            .iter()
            .map(|&n| {
                let (chunk, tail) = rest.split_at(n as usize);
                rest = tail;
                chunk
            })
            .collect(),
    )
}

/// Why an arm with these rounds gets no interval; None when it gets one.
pub fn unavailable(rounds: Option<&[&[f64]]>) -> Option<String> {
    let Some(rounds) = rounds else {
        return Some("its samples were not taken in interleaved rounds (e.g. a capacity arm: concurrent clients for a fixed time), so there is no round-to-round spread to resample".into());
    };
    let with = rounds.iter().filter(|r| !r.is_empty()).count();
    (with < MIN_ROUNDS).then(|| {
        format!("only {with} round(s) with samples; a CI that includes drift between rounds needs at least {MIN_ROUNDS}")
    })
}

/// The median of the rounds `picks` pooled (`buf` is scratch space).
fn pooled_median(rounds: &[&[f64]], picks: &[usize], buf: &mut Vec<f64>) -> f64 {
    buf.clear();
    for &i in picks {
        buf.extend_from_slice(rounds[i]);
    }
    median_in_place(buf)
}

/// 2.5th and 97.5th nearest-rank percentiles.
fn percentiles(mut v: Vec<f64>) -> [f64; 2] {
    [at_rank(&mut v, 2.5), at_rank(&mut v, 97.5)]
}

/// Indices of the rounds that hold samples.
fn non_empty(rounds: &[&[f64]]) -> Vec<usize> {
    (0..rounds.len())
        .filter(|&i| !rounds[i].is_empty())
        .collect()
}

/// Draws `k` of `from` with replacement into `picks`.
fn draw(from: &[usize], k: usize, rng: &mut fastrand::Rng, picks: &mut Vec<usize>) {
    picks.clear();
    picks.extend((0..k).map(|_| from[rng.usize(..from.len())]));
}

/// 95% CI of the median: resample the rounds holding samples with replacement (as many
/// as there are), pool their samples, take the median; percentiles of those medians.
/// None with fewer than [`MIN_ROUNDS`] rounds holding samples.
pub fn median_ci95(
    rounds: &[&[f64]],
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> Option<[f64; 2]> {
    let from = non_empty(rounds);
    if from.len() < MIN_ROUNDS {
        return None;
    }
    let (mut picks, mut buf) = (Vec::new(), Vec::new());
    let medians = (0..resamples)
        .map(|_| {
            draw(&from, from.len(), rng, &mut picks);
            pooled_median(rounds, &picks, &mut buf)
        })
        .collect();
    Some(percentiles(medians))
}

/// 95% CI of `median(numerator) / median(denominator)`. `paired`: both arms were
/// interleaved in the same rounds (round `r` of one is the same stretch of time as round
/// `r` of the other), so the same round indices are drawn for both, among the rounds
/// where both have samples. Otherwise each arm's rounds are drawn independently.
/// None when either side (or, paired, the rounds they share) has fewer than
/// [`MIN_ROUNDS`] rounds with samples.
pub fn ratio_ci95(
    numerator: &[&[f64]],
    denominator: &[&[f64]],
    paired: bool,
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> Option<[f64; 2]> {
    let (mut picks, mut buf) = (Vec::new(), Vec::new());
    let ratios: Vec<f64> = if paired {
        let from: Vec<usize> = (0..numerator.len().min(denominator.len()))
            .filter(|&i| !numerator[i].is_empty() && !denominator[i].is_empty())
            .collect();
        if from.len() < MIN_ROUNDS {
            return None;
        }
        (0..resamples)
            .map(|_| {
                draw(&from, from.len(), rng, &mut picks);
                pooled_median(numerator, &picks, &mut buf)
                    / pooled_median(denominator, &picks, &mut buf)
            })
            .collect()
    } else {
        let (from_n, from_d) = (non_empty(numerator), non_empty(denominator));
        if from_n.len() < MIN_ROUNDS || from_d.len() < MIN_ROUNDS {
            return None;
        }
        (0..resamples)
            .map(|_| {
                draw(&from_n, from_n.len(), rng, &mut picks);
                let n = pooled_median(numerator, &picks, &mut buf);
                draw(&from_d, from_d.len(), rng, &mut picks);
                n / pooled_median(denominator, &picks, &mut buf)
            })
            .collect()
    };
    Some(percentiles(ratios))
}

/// 95% CI of `median(a) − median(b)` for two sets of samples taken in the same rounds
/// (e.g. an arm's traced and untraced connections): the same round indices are drawn for
/// both, among the rounds where both have samples. None with fewer than [`MIN_ROUNDS`]
/// such rounds.
pub fn paired_difference_ci95(
    a: &[&[f64]],
    b: &[&[f64]],
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> Option<[f64; 2]> {
    let from: Vec<usize> = (0..a.len().min(b.len()))
        .filter(|&i| !a[i].is_empty() && !b[i].is_empty())
        .collect();
    if from.len() < MIN_ROUNDS {
        return None;
    }
    let (mut picks, mut buf) = (Vec::new(), Vec::new());
    let diffs = (0..resamples)
        .map(|_| {
            draw(&from, from.len(), rng, &mut picks);
            pooled_median(a, &picks, &mut buf) - pooled_median(b, &picks, &mut buf)
        })
        .collect();
    Some(percentiles(diffs))
}

/// The sample at 1-based rank `ceil(p/100 * n)` of `sorted` (which must be non-empty).
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    sorted[rank_index(sorted.len(), p)]
}

fn rank_index(n: usize, p: f64) -> usize {
    ((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1
}

/// The median by nearest rank without sorting the whole slice (reorders `buf`).
pub fn median_in_place(buf: &mut [f64]) -> f64 {
    at_rank(buf, 50.0)
}

/// The value at 1-based rank `ceil(p/100 * n)` of `buf` once sorted (reorders `buf`).
/// Natively by selection (linear); in the viewer's wasm by the sort its CDF already
/// has, since a selection routine of its own would cost the download more than the
/// few extra comparisons cost there.
fn at_rank(buf: &mut [f64], p: f64) -> f64 {
    let i = rank_index(buf.len(), p);
    if cfg!(target_arch = "wasm32") {
        crate::order::sort_f64(buf);
        buf[i]
    } else {
        *buf.select_nth_unstable_by(i, f64::total_cmp).1
    }
}

/// `ci` widened to contain `point`, where the percentile bootstrap left it outside (it
/// can, with few rounds or skewed rounds): an interval never excludes its own estimate.
pub fn containing(ci: [f64; 2], point: f64) -> [f64; 2] {
    [ci[0].min(point), ci[1].max(point)]
}

/// `p50(new) / p50(old)` of one arm in two runs, with its 95% CI over each run's rounds
/// (drawn independently: the runs share no rounds).
#[derive(Debug, Clone, PartialEq)]
pub struct RunRatio {
    pub ratio: f64,
    pub ci95: Option<[f64; 2]>,
    /// Why there is no CI (`OLD: …` or `NEW: …`).
    pub no_ci: Option<String>,
}

/// The ratio of `new`'s p50 to `old`'s, or None when either has no latencies.
pub fn run_ratio(
    old: &crate::Arm,
    new: &crate::Arm,
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> Option<RunRatio> {
    run_ratio_of(
        (old, &old.samples_us),
        (new, &new.samples_us),
        resamples,
        rng,
    )
}

/// [`run_ratio`] with each arm's samples given beside it (a page holds a run's summary and
/// fetches an arm's samples on their own).
pub fn run_ratio_of(
    (old, old_samples): (&crate::Arm, &[f64]),
    (new, new_samples): (&crate::Arm, &[f64]),
    resamples: usize,
    rng: &mut fastrand::Rng,
) -> Option<RunRatio> {
    let ratio = new.latency_us?.p50 / old.latency_us?.p50;
    let (ro, rn) = (
        split(old_samples, &old.samples_per_round),
        split(new_samples, &new.samples_per_round),
    );
    let no_ci = unavailable(ro.as_deref())
        .map(|w| format!("OLD: {w}"))
        .or_else(|| unavailable(rn.as_deref()).map(|w| format!("NEW: {w}")));
    let ci95 = match (&no_ci, ro, rn) {
        (None, Some(ro), Some(rn)) => {
            ratio_ci95(&rn, &ro, false, resamples, rng).map(|ci| containing(ci, ratio))
        }
        _ => None,
    };
    Some(RunRatio { ratio, ci95, no_ci })
}

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
