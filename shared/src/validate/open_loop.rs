//! Invariants of an open-loop arm ([`crate::OpenLoop`], under `capacity`).

use super::arm::Bad;
use super::bounds::{MAX_RATE_PER_S, MAX_US};
use crate::schema::{Arm, Arrival};

/// Counts that fit inside each other (late and not started ≤ attempted ≤ scheduled,
/// not started ≤ failed), a window as long as the per-second timeline, an achieved rate
/// that is the timeline's mean and never counts more handshakes than succeeded,
/// lateness percentiles in order and agreeing with the late count, plausible numbers,
/// and a seed exactly for a Poisson schedule.
// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(super) fn check(arm: &Arm, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let Some(cap) = &arm.capacity else { return };
    let Some(o) = &cap.open_loop else { return };
    let at = |f: &str| at(&format!("capacity.open_loop.{f}"));
    let plausible = |v: f64, max: f64| v >= 0.0 && v <= max;
    for (f, v, max) in [
        ("offered_per_s", o.offered_per_s, MAX_RATE_PER_S),
        ("achieved_per_s", o.achieved_per_s, MAX_RATE_PER_S),
        ("late_threshold_us", o.late_threshold_us, MAX_US),
        ("give_up_after_us", o.give_up_after_us, MAX_US),
    ] {
        if !plausible(v, max) {
            bad(
                at(f),
                format!("{v} is not a plausible value (finite, 0 or more, at most {max:e})"),
            );
        }
    }
    if !(o.offered_per_s > 0.0) {
        bad(at("offered_per_s"), "an offered rate is above 0".into());
    }
    if arm.attempted > o.scheduled {
        bad(
            at("scheduled"),
            format!(
                "{} attempted > {} scheduled: only scheduled connections are made",
                arm.attempted, o.scheduled
            ),
        );
    }
    if o.late
        .checked_add(o.not_started)
        .is_none_or(|n| n > arm.attempted)
    {
        bad(
            at("late"),
            format!(
                "{} late + {} not started > {} attempted",
                o.late, o.not_started, arm.attempted
            ),
        );
    }
    if o.not_started > arm.failed {
        bad(
            at("not_started"),
            format!(
                "{} not started > {} failed: a connection given up on is a failed one",
                o.not_started, arm.failed
            ),
        );
    }
    if cap.per_second.len() as u64 != o.window_s {
        bad(
            at("window_s"),
            format!(
                "a window of {} s has {} entries in capacity.per_second",
                o.window_s,
                cap.per_second.len()
            ),
        );
    }
    let in_window: f64 = cap.per_second.iter().sum();
    let achieved = o.achieved_per_s * o.window_s as f64;
    // Within a millionth: the mean is computed in floating point.
    if !((achieved - in_window).abs() <= 1e-6 * in_window.max(1.0)) {
        bad(
            at("achieved_per_s"),
            format!(
                "{} per s over {} s is not the {in_window} handshakes completed in the window",
                o.achieved_per_s, o.window_s
            ),
        );
    }
    if !(achieved <= arm.succeeded as f64 + 1e-6 * achieved.max(1.0)) {
        bad(
            at("achieved_per_s"),
            format!(
                "{} per s over {} s is more than the {} handshakes that succeeded",
                o.achieved_per_s, o.window_s, arm.succeeded
            ),
        );
    }
    match &o.lateness_us {
        Some(l) => {
            let ordered = plausible(l.p50_us, MAX_US)
                && l.p50_us <= l.p99_us
                && l.p99_us <= l.max_us
                && plausible(l.max_us, MAX_US);
            if !ordered {
                bad(
                    at("lateness_us"),
                    format!(
                        "0 ≤ p50 ({}) ≤ p99 ({}) ≤ max ({}) ≤ {MAX_US:e} µs does not hold",
                        l.p50_us, l.p99_us, l.max_us
                    ),
                );
            }
            if (o.late > 0) != (l.max_us > o.late_threshold_us) {
                bad(
                    at("late"),
                    format!(
                        "{} late does not agree with the largest lateness {} µs and the threshold {} µs",
                        o.late, l.max_us, o.late_threshold_us
                    ),
                );
            }
        }
        None if arm.attempted > o.not_started => bad(
            at("lateness_us"),
            "connections began, so their lateness is known".into(),
        ),
        None => {}
    }
    if (o.arrival == Arrival::Poisson) != o.seed.is_some() {
        bad(
            at("seed"),
            "a Poisson schedule names its seed, and only a Poisson schedule does".into(),
        );
    }
}
