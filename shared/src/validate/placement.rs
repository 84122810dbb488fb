//! Invariants of an arm's CPU placement record and of its traced connections.

use crate::schema::Arm;

use super::arm::Bad;

/// Placement: `held` and `same_cpu` count among `observed`, which counts among the arm's
/// timed connections (traced ones included). Tracing: `succeeded + failed = attempted`,
/// one traced sample per success (not in a summary), rounds that add up, percentiles in
/// order, a cost interval that holds its estimate.
// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(super) fn check(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let traced_attempts = arm.tracing.as_ref().map_or(0, |t| t.attempted);
    if let Some(p) = &arm.placement {
        if p.held > p.observed || p.same_cpu > p.observed {
            bad(
                at("placement"),
                format!(
                    "held ({}) and same_cpu ({}) count among observed ({})",
                    p.held, p.same_cpu, p.observed
                ),
            );
        }
        if p.observed > arm.attempted.saturating_add(traced_attempts) {
            bad(
                at("placement.observed"),
                format!(
                    "{} observed > {} timed connections",
                    p.observed,
                    arm.attempted.saturating_add(traced_attempts)
                ),
            );
        }
    }
    let Some(t) = &arm.tracing else { return };
    let at = |f: &str| at(&format!("tracing.{f}"));
    if t.succeeded.checked_add(t.failed) != Some(t.attempted) {
        bad(
            at("attempted"),
            format!(
                "succeeded ({}) + failed ({}) ≠ attempted ({})",
                t.succeeded, t.failed, t.attempted
            ),
        );
    }
    if !summary {
        if t.samples_us.len() as u64 != t.succeeded {
            bad(
                at("samples_us"),
                format!(
                    "{} samples for {} traced successes",
                    t.samples_us.len(),
                    t.succeeded
                ),
            );
        }
        if !t.samples_per_round.is_empty()
            && t.samples_per_round.iter().sum::<u64>() != t.samples_us.len() as u64
        {
            bad(
                at("samples_per_round"),
                "must add up to the traced samples".into(),
            );
        }
        if t.samples_us.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
            bad(at("samples_us"), "must be finite and not negative".into());
        }
    }
    if let Some(l) = &t.latency_us {
        if !(l.min <= l.p50 && l.p50 <= l.p95 && l.p95 <= l.p99 && l.p99 <= l.max) {
            bad(at("latency_us"), "min ≤ p50 ≤ p95 ≤ p99 ≤ max".into());
        }
    }
    if let (Some(c), Some([lo, hi])) = (t.cost_us, t.cost_ci95_us) {
        if !(lo <= c && c <= hi) {
            bad(
                at("cost_ci95_us"),
                format!("[{lo}, {hi}] does not hold the cost {c}"),
            );
        }
    }
    if t.cost_us.is_some_and(|c| !c.is_finite()) {
        bad(at("cost_us"), "must be finite".into());
    }
}
