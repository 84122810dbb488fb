//! The rule that turns a ratio with its confidence interval into a claim, shared by
//! `collector compare` and the viewer: only an interval that excludes 1 is evidence of
//! a difference.

use std::fmt;

/// What a `new / old` latency ratio and its 95% CI say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval is above 1: the new run is slower.
    Slower,
    /// The whole interval is below 1: the new run is faster.
    Faster,
    /// The interval includes 1: no evidence of a difference.
    NoEvidence,
    /// No interval could be given (too few rounds, samples not taken in rounds): no claim.
    NoInterval,
    /// The two sides ran in different conditions (the host's steal, the CPU's speed
    /// mode, an arm that kept chunks over the steal threshold: [`crate::conditions`]), so
    /// whatever the interval says may be the host's doing: no claim.
    Inconclusive,
}

impl Verdict {
    /// The verdict on a ratio whose two sides ran in conditions that are `apart` (why,
    /// from [`crate::conditions`]) or not: inconclusive, or [`Verdict::of`] its interval.
    pub fn within(ci: Option<[f64; 2]>, apart: Option<&str>) -> Verdict {
        match apart {
            Some(_) => Verdict::Inconclusive,
            None => Verdict::of(ci),
        }
    }

    /// The verdict on a ratio `p50(new) / p50(old)`, from its 95% interval `ci`.
    pub fn of(ci: Option<[f64; 2]>) -> Verdict {
        match ci {
            Some([lo, _]) if lo > 1.0 => Verdict::Slower,
            Some([_, hi]) if hi < 1.0 => Verdict::Faster,
            Some(_) => Verdict::NoEvidence,
            None => Verdict::NoInterval,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::NoEvidence => "no evidence of a difference",
            Verdict::NoInterval => "no CI: no claim",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A regression worth failing a pipeline for: the new run is [`Verdict::Slower`] (its
/// interval excludes 1) *and* the measured ratio exceeds `1 + threshold` (e.g. 0.05 for
/// 5%). A significant but small slowdown is reported, not failed on; a large ratio whose
/// interval includes 1 is noise, not a regression.
pub fn is_regression(ratio: f64, ci: Option<[f64; 2]>, threshold: f64) -> bool {
    Verdict::of(ci) == Verdict::Slower && ratio > 1.0 + threshold
}

/// A warning when most arms with a CI moved the same way (at least half of them, and at
/// least 3): a machine that was busier or calmer during one whole run moves every arm,
/// and no interval within a run can see that. The median ratio says by how much.
/// `judged`: each arm with a CI, as its `new / old` ratio and verdict. `collector
/// compare` and the page's "what changed" both say it.
pub fn common_shift(judged: &[(f64, Verdict)]) -> Option<String> {
    let moved = |v: Verdict| judged.iter().filter(|r| r.1 == v).count();
    let (slower, faster) = (moved(Verdict::Slower), moved(Verdict::Faster));
    let (n, way) = if slower >= faster {
        (slower, "slower")
    } else {
        (faster, "faster")
    };
    if judged.len() < 3 || 2 * n < judged.len() {
        return None;
    }
    let mut ratios: Vec<f64> = judged.iter().map(|r| r.0).collect();
    crate::order::sort_f64(&mut ratios);
    let median = ratios[ratios.len().div_ceil(2) - 1];
    Some(format!(
        "{n} of {} arms with a CI are {way} (median NEW/OLD {median:.3}x): when most arms move \
         together, a machine that was busier or calmer during one whole run is as likely a \
         cause as the code; the intervals only cover drift within each run. Measure OLD and \
         NEW again, alternately (OLD, NEW, OLD, NEW), before trusting these verdicts",
        judged.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_interval_that_excludes_one_is_a_difference() {
        assert_eq!(Verdict::of(Some([1.01, 1.3])), Verdict::Slower);
        assert_eq!(Verdict::of(Some([0.7, 0.99])), Verdict::Faster);
        assert_eq!(Verdict::of(Some([0.9, 1.2])), Verdict::NoEvidence);
        // An interval that touches 1 does not exclude it.
        assert_eq!(Verdict::of(Some([1.0, 1.2])), Verdict::NoEvidence);
        assert_eq!(Verdict::of(Some([0.8, 1.0])), Verdict::NoEvidence);
        assert_eq!(Verdict::of(None), Verdict::NoInterval);
        // NaN bounds claim nothing.
        assert_eq!(Verdict::of(Some([f64::NAN, f64::NAN])), Verdict::NoEvidence);
    }

    #[test]
    fn a_regression_is_slower_and_beyond_the_threshold() {
        assert!(is_regression(1.2, Some([1.1, 1.3]), 0.05));
        // Slower, but by less than the threshold.
        assert!(!is_regression(1.03, Some([1.01, 1.05]), 0.05));
        // Beyond the threshold, but the interval includes 1.
        assert!(!is_regression(1.2, Some([0.95, 1.5]), 0.05));
        assert!(!is_regression(1.2, None, 0.05));
        assert!(!is_regression(0.8, Some([0.7, 0.9]), 0.05));
        assert!(is_regression(1.02, Some([1.01, 1.03]), 0.0));
    }
}
