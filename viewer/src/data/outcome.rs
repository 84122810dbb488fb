//! What an arm's numbers are: results, or why not ([`NoResult`]), and its percentile bar.
//! Below [`super::derive`], [`super::stacks`], [`super::series`] and the tables, which all
//! read an arm this way.

use shared::Arm;

use super::format::PER_USER_CPU_S;

/// Why an arm has no numbers to show as results.
#[derive(Debug, Clone, PartialEq)]
pub enum NoResult {
    /// The arm's numbers must not be trusted (its `error`), or nothing succeeded.
    Error(String),
    /// Not a failure: the arm was skipped, or its tool reports only a rate.
    Note(String),
}

impl NoResult {
    pub fn is_error(&self) -> bool {
        matches!(self, NoResult::Error(_))
    }
}

impl std::fmt::Display for NoResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoResult::Error(m) => write!(f, "ERROR: {m}"),
            NoResult::Note(m) => f.write_str(m),
        }
    }
}

/// p50/p95/p99 of one arm (or of one arm in one run), with the p50's 95% interval.
/// When `no_result` is set the numbers must not be shown as results.
#[derive(Debug, Clone, PartialEq)]
pub struct PercentileBar {
    pub label: String,
    /// `[p50, p95, p99]` in µs; `None` when no connection succeeded.
    pub percentiles: Option<[f64; 3]>,
    pub p50_ci: Option<[f64; 2]>,
    /// The arm's crypto floor (µs): public-key work on the handshake's critical path.
    pub floor: Option<f64>,
    pub no_result: Option<NoResult>,
}

pub(crate) fn bar(label: String, arm: &Arm) -> PercentileBar {
    PercentileBar {
        label,
        percentiles: arm.latency_us.map(|l| [l.p50, l.p95, l.p99]),
        p50_ci: arm.p50_ci95_us,
        floor: arm.crypto_floor_us,
        no_result: no_result(arm),
    }
}

/// Why an arm's latencies are not results, if they are not: its `error` (with the known
/// pitfall it reproduces, if any), a skip, a rate-only tool, or no successful connection.
pub fn no_result(arm: &Arm) -> Option<NoResult> {
    if let Some(e) = &arm.error {
        return Some(NoResult::Error(match &arm.known_pitfall {
            Some(p) => format!("{e} (known pitfall, reproduced on purpose: {p})"),
            None => e.clone(),
        }));
    }
    if let Some(why) = &arm.skipped {
        return Some(NoResult::Note(format!("skipped: {why}")));
    }
    if arm.latency_us.is_some() {
        return None;
    }
    if let Some(rate) = &arm.rate {
        return Some(NoResult::Note(format!(
            "rate only: {:.0} connections per wall-clock second, {:.0} {PER_USER_CPU_S}",
            rate.per_real_s, rate.per_user_s
        )));
    }
    Some(NoResult::Error(match &arm.first_failure {
        Some(f) => format!("no connection succeeded: {f}"),
        None => "no connection succeeded".into(),
    }))
}
