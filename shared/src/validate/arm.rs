//! The rules of one arm, by its shape (skipped, rate-only, latency).

use crate::schema::{Arm, Verification, MIN_CI_ROUNDS};

/// The three shapes an arm can have; each has its own rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmKind {
    /// Not run (`skipped` says why): no attempts, no numbers, no error.
    Skipped,
    /// A rate-only tool's arm: `rate`, and no latency summary or samples.
    Rate,
    /// Timed connections: `samples_us` (one per success) and their summary.
    Latency,
}

impl Arm {
    /// Which rules apply: skipped if `skipped` is set, else rate if `rate` is set, else latency.
    pub fn kind(&self) -> ArmKind {
        if self.skipped.is_some() {
            ArmKind::Skipped
        } else if self.rate.is_some() {
            ArmKind::Rate
        } else {
            ArmKind::Latency
        }
    }
}

pub(super) type Bad<'a> = dyn FnMut(String, String) + 'a;

/// Every rule of `arm`'s shape, plus the rules of its rounds and CI. In a `summary`
/// (see [`crate::Evidence::summary`]) the samples are left out: the rules that count or
/// read them are replaced by "no samples here".
pub(super) fn check(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    match arm.kind() {
        ArmKind::Skipped => check_skipped(arm, at, bad),
        ArmKind::Rate => check_rate(arm, at, bad),
        ArmKind::Latency => {
            check_latency(arm, summary, at, bad);
            check_rounds(arm, summary, at, bad);
        }
    }
    if let Some(v) = arm.verified {
        for (end, how, resumed) in [
            ("client", v.client, arm.resumed.client),
            ("server", v.server, arm.resumed.server),
        ] {
            if how != Verification::PerConnection && resumed > 0 {
                bad(
                    at(&format!("resumed.{end}")),
                    format!("{resumed} counted by an end that is {how} (verified.{end})"),
                );
            }
        }
    }
    if arm.kind() != ArmKind::Latency {
        for (field, present) in [
            ("samples_per_round", !arm.samples_per_round.is_empty()),
            ("round_medians_us", !arm.round_medians_us.is_empty()),
            ("ci_unavailable", arm.ci_unavailable.is_some()),
        ] {
            if present {
                bad(at(field), "only an arm with latencies has it".into());
            }
        }
    }
}

/// A skipped arm has a reason, attempted 0 and nothing measured.
fn check_skipped(arm: &Arm, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    if arm.skipped.as_deref().is_some_and(|r| r.trim().is_empty()) {
        bad(at("skipped"), "a skipped arm must say why".into());
    }
    if arm.attempted != 0 {
        bad(
            at("attempted"),
            format!("a skipped arm attempted nothing, not {}", arm.attempted),
        );
    }
    let measured = [
        ("latency_us", arm.latency_us.is_some()),
        ("p50_ci95_us", arm.p50_ci95_us.is_some()),
        ("throughput_per_s", arm.throughput_per_s.is_some()),
        ("samples_us", !arm.samples_us.is_empty()),
        ("rate", arm.rate.is_some()),
        ("error", arm.error.is_some()),
    ];
    for (field, present) in measured {
        if present {
            bad(at(field), "present on a skipped arm".into());
        }
    }
}

/// A rate arm: `rate` adds up, its connections are the arm's successes, and it has no
/// latency summary or samples (the tool reports none).
// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn check_rate(arm: &Arm, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let Some(rate) = &arm.rate else { return };
    for (field, present) in [
        ("latency_us", arm.latency_us.is_some()),
        ("p50_ci95_us", arm.p50_ci95_us.is_some()),
        ("samples_us", !arm.samples_us.is_empty()),
    ] {
        if present {
            bad(at(field), "a rate arm has no latencies".into());
        }
    }
    if rate.connections != arm.succeeded {
        bad(
            at("rate.connections"),
            format!(
                "{} connections but {} succeeded",
                rate.connections, arm.succeeded
            ),
        );
    }
    for (field, v) in [
        ("user_cpu_s", rate.user_cpu_s),
        ("real_s", rate.real_s),
        ("per_user_s", rate.per_user_s),
        ("per_real_s", rate.per_real_s),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            bad(
                at(&format!("rate.{field}")),
                "must be a finite, non-negative number".into(),
            );
        }
    }
    if !rate.slices.is_empty() {
        let sum = rate
            .slices
            .iter()
            .try_fold(0u64, |acc, s| acc.checked_add(s.connections));
        match sum {
            None => bad(
                at("rate.slices"),
                "the slices' connections add up to more than 2^64".into(),
            ),
            Some(sum) if sum != rate.connections => bad(
                at("rate.slices"),
                format!(
                    "slices add up to {sum} connections, not {}",
                    rate.connections
                ),
            ),
            Some(_) => {}
        }
        if let Some(j) = rate.slices.iter().position(|s| s.resumed > s.connections) {
            bad(
                at(&format!("rate.slices[{j}].resumed")),
                "more resumed than connections".into(),
            );
        }
    }
}

/// A latency arm: one sample per success, and a summary exactly when something succeeded.
// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn check_latency(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    if summary {
        if !arm.samples_us.is_empty() {
            bad(at("samples_us"), "a summary carries no samples".into());
        }
    } else if arm.samples_us.len() as u64 != arm.succeeded {
        bad(
            at("samples_us"),
            format!(
                "{} samples but {} succeeded connections",
                arm.samples_us.len(),
                arm.succeeded
            ),
        );
    }
    if let Some(j) = arm
        .samples_us
        .iter()
        .position(|s| !(s.is_finite() && *s >= 0.0))
    {
        bad(
            at(&format!("samples_us[{j}]")),
            "a sample must be a finite, non-negative number".into(),
        );
    }
    match (&arm.latency_us, arm.succeeded) {
        (None, 0) => {}
        (None, _) => bad(
            at("latency_us"),
            "missing although connections succeeded".into(),
        ),
        (Some(_), 0) => bad(
            at("latency_us"),
            "present although no connection succeeded".into(),
        ),
        (Some(l), _) => {
            let order = [
                ("min", l.min),
                ("p50", l.p50),
                ("p95", l.p95),
                ("p99", l.p99),
                ("max", l.max),
            ];
            for pair in order.windows(2) {
                let ((a, x), (b, y)) = (pair[0], pair[1]);
                if !(x <= y) {
                    bad(
                        at(&format!("latency_us.{b}")),
                        format!("{a} ({x}) must not exceed {b} ({y})"),
                    );
                }
            }
            if let Some([lo, hi]) = arm.p50_ci95_us {
                if !(lo <= l.p50 && l.p50 <= hi) {
                    bad(
                        at("p50_ci95_us"),
                        format!("[{lo}, {hi}] does not contain p50 ({})", l.p50),
                    );
                }
            }
        }
    }
    let has_latency = arm.latency_us.is_some();
    match (&arm.p50_ci95_us, &arm.ci_unavailable) {
        (Some(_), Some(_)) => bad(
            at("ci_unavailable"),
            "set although p50_ci95_us is given".into(),
        ),
        (None, None) if has_latency => bad(
            at("p50_ci95_us"),
            "missing, and ci_unavailable does not say why".into(),
        ),
        (None, Some(why)) if !has_latency || why.trim().is_empty() => bad(
            at("ci_unavailable"),
            "only an arm with latencies says why it has no CI, and it must say something".into(),
        ),
        _ => {}
    }
}

/// At most one steal share per round, each a percentage.
#[cfg(not(target_arch = "wasm32"))]
fn check_round_steal(arm: &Arm, rounds: usize, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let steal = &arm.round_steal_percent;
    if steal.len() > rounds {
        bad(
            at("round_steal_percent"),
            format!("{} values for {rounds} rounds", steal.len()),
        );
    }
    if let Some(j) = steal
        .iter()
        .position(|v| v.is_some_and(|v| !(0.0..=100.0).contains(&v)))
    {
        bad(
            at(&format!("round_steal_percent[{j}]")),
            "a share of CPU time is between 0 and 100 per cent".into(),
        );
    }
}

/// Rounds: `samples_per_round` adds up to the samples, each round's median is the
/// nearest-rank median of its own samples, and no CI is given over too few rounds.
fn check_rounds(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let per_round = &arm.samples_per_round;
    if per_round.is_empty() {
        if !arm.round_medians_us.is_empty() {
            bad(
                at("round_medians_us"),
                "round medians without samples_per_round".into(),
            );
        }
        return;
    }
    let Some(total) = per_round
        .iter()
        .try_fold(0u64, |acc, n| acc.checked_add(*n))
    else {
        bad(at("samples_per_round"), "adds up to more than 2^64".into());
        return;
    };
    if total != arm.succeeded || (!summary && arm.samples_us.len() as u64 != total) {
        bad(
            at("samples_per_round"),
            format!(
                "adds up to {total}, not to the {} succeeded connections",
                arm.succeeded
            ),
        );
        return;
    }
    if arm.round_medians_us.len() != per_round.len() {
        bad(
            at("round_medians_us"),
            format!(
                "{} round medians for {} rounds",
                arm.round_medians_us.len(),
                per_round.len()
            ),
        );
        return;
    }
    #[cfg(not(target_arch = "wasm32"))]
    check_round_steal(arm, per_round.len(), at, bad);
    super::chunks::check(arm, summary, at, bad);
    let mut start = 0;
    let rounds = per_round.iter().zip(&arm.round_medians_us);
    for (r, (&n, median)) in rounds.enumerate().filter(|_| !summary) {
        let chunk = &arm.samples_us[start..start + n as usize];
        start += n as usize;
        if !is_median(chunk, *median) {
            bad(
                at(&format!("round_medians_us[{r}]")),
                format!("{median:?} is not the nearest-rank median of round {r}'s {n} samples"),
            );
        }
    }
    let with_samples = per_round.iter().filter(|&&n| n > 0).count();
    if with_samples < MIN_CI_ROUNDS && arm.p50_ci95_us.is_some() {
        bad(
            at("p50_ci95_us"),
            format!(
                "a CI over {with_samples} round(s) with samples; it needs at least {MIN_CI_ROUNDS}"
            ),
        );
    }
}

/// Whether `m` is the sample at rank ceil(n/2) of `chunk` (None for an empty chunk),
/// by counting: fewer than k samples below it and at least k at or below it.
fn is_median(chunk: &[f64], m: Option<f64>) -> bool {
    match m {
        None => chunk.is_empty(),
        Some(m) => {
            let k = chunk.len().div_ceil(2);
            let below = chunk.iter().filter(|&&x| x < m).count();
            let at_or_below = chunk.iter().filter(|&&x| x <= m).count();
            k > 0 && below < k && k <= at_or_below
        }
    }
}

/// A keep-alive arm carries at least two requests per connection, and its per-request
/// median is its latency median. (The viewer's wasm build does not read `keepalive`.)
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn check_keepalive(arm: &Arm, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let keepalive_mode = arm.mode == crate::schema::Mode::KeepAlive;
    let measured = arm.latency_us.is_some();
    if (keepalive_mode && measured && arm.keepalive.is_none())
        || (!keepalive_mode && arm.keepalive.is_some())
    {
        bad(
            at("keepalive"),
            "a measured keep-alive arm records what its connections carried, and only a keep-alive arm does"
                .into(),
        );
    }
    let Some(k) = &arm.keepalive else { return };
    if k.requests_per_connection < 2 {
        bad(
            at("keepalive.requests_per_connection"),
            format!(
                "{} request(s) per connection: a keep-alive arm needs at least 2",
                k.requests_per_connection
            ),
        );
    }
    if arm
        .latency_us
        .is_some_and(|l| l.p50 != k.per_request_p50_us)
    {
        bad(
            at("keepalive.per_request_p50_us"),
            "must be the arm's latency_us.p50 (the samples are per-request times)".into(),
        );
    }
}
