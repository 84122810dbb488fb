//! What the host did to one arm of a run ([`ArmConditions`]: chunks used over the steal
//! threshold, the share that ran in the CPU's slow mode), and whether two arms of one run
//! can be ranked or divided one by the other ([`arms_apart`], [`RatiosApart`]).

use crate::conditions::{share, MODES_APART, SLOW_MODE_FACTOR};
use crate::ids::ArmsById;
use crate::schema::{Arm, Comparison, Evidence};

/// What the host did to one arm, for comparisons that involve it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmConditions {
    /// Chunks used over the steal threshold (budget spent) and all chunks used: an arm
    /// with any is noisy.
    pub over_budget: u64,
    pub used: u64,
    /// Share of its used chunks that ran in the slow mode (null: none probed).
    pub slow_share: Option<f64>,
}

impl ArmConditions {
    /// `arm`'s conditions in a run whose fast reference is `fast_probe_us`; None when the
    /// arm has no chunk records (not measured in rounds, or an older file).
    pub fn of(arm: &Arm, fast_probe_us: Option<f64>) -> Option<ArmConditions> {
        let c = arm.chunks.as_ref()?;
        let used: Vec<_> = c.used().collect();
        let probed: Vec<f64> = used.iter().filter_map(|c| c.probe_us).collect();
        let slow_share = fast_probe_us.filter(|_| !probed.is_empty()).map(|fast| {
            let slow = probed
                .iter()
                .filter(|p| **p > fast * SLOW_MODE_FACTOR)
                .count();
            share(slow as u64, probed.len() as u64)
        });
        Some(ArmConditions {
            over_budget: c.over_budget(),
            used: used.len() as u64,
            slow_share,
        })
    }

    /// "noisy: 3 of 10 chunks above the steal threshold", or None for a clean arm.
    pub fn noisy(&self) -> Option<String> {
        (self.over_budget > 0).then(|| {
            format!(
                "noisy: {} of {} chunks used above the steal threshold",
                self.over_budget, self.used
            )
        })
    }
}

/// Why two arms of one run cannot be ranked or divided one by the other, or None when
/// they can: either is noisy, or they ran in different speed modes.
pub fn arms_apart(a: Option<ArmConditions>, b: Option<ArmConditions>) -> Option<String> {
    let (a, b) = (a?, b?);
    if let Some(n) = a.noisy().or_else(|| b.noisy()) {
        return Some(n);
    }
    match (a.slow_share, b.slow_share) {
        (Some(x), Some(y)) if (x - y).abs() > MODES_APART => Some(format!(
            "ran in different CPU speed modes ({:.0}% against {:.0}% of chunks slow)",
            x * 100.0,
            y * 100.0
        )),
        _ => None,
    }
}

/// A run's arms by id and its speed probe's fast reference, found once, for asking of
/// each of its comparisons whether its two arms can be divided one by the other.
pub struct RatiosApart<'a> {
    arms: ArmsById<'a>,
    fast: Option<f64>,
}

impl<'a> RatiosApart<'a> {
    pub fn of_run(e: &'a Evidence) -> RatiosApart<'a> {
        RatiosApart {
            arms: ArmsById::new(&e.arms),
            fast: crate::conditions::fast_probe_us(&e.arms),
        }
    }

    /// Why `c`'s two arms cannot be divided one by the other (see [`arms_apart`]), or
    /// None when they can, or when either arm is not in the run or has no chunk records.
    pub fn why(&self, c: &Comparison) -> Option<String> {
        let of = |id: &str| ArmConditions::of(self.arms.get(id)?, self.fast);
        arms_apart(of(&c.baseline), of(&c.candidate))
    }
}
