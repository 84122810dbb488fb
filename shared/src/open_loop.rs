//! Open-loop capacity: connections started on a schedule (an arrival rate), each timed
//! from the moment the schedule meant it to start, so a server that falls behind shows
//! as queueing delay instead of silently slowing the clients down (coordinated
//! omission). The evidence of one offered rate ([`OpenLoop`], under an arm's
//! `capacity`), and the sweep over rates read back from the arms, with its knee named in
//! words ([`sweeps`], [`knee_sentence`]): one definition for the collector's summary and
//! the viewer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema::{Arm, Arrival, Mode};

/// Lateness of the connections that started: how long after its intended start each one
/// really began (waiting for a free client worker, or for the dispatcher to wake up).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Lateness {
    /// Nearest-rank percentiles and the largest, in µs.
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// One offered rate of an open-loop sweep. The arm's `samples_us` and `latency_us` are
/// measured from each connection's INTENDED start (lateness + connect + handshake); its
/// `attempted` counts the scheduled connections a worker took, `failed` includes the
/// ones given up on (`not_started`). `capacity.per_second` counts handshakes completed
/// in each whole second of the window, which opens at the first intended start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpenLoop {
    pub arrival: Arrival,
    /// Seed of a Poisson schedule (absent for constant arrivals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The arrival rate asked for: new connections per second.
    pub offered_per_s: f64,
    /// Seconds the schedule spans (its window).
    pub window_s: u64,
    /// Connections the schedule meant to start inside the window.
    pub scheduled: u64,
    /// Handshakes completed inside the window, per second of it (`Σ per_second / window_s`).
    pub achieved_per_s: f64,
    /// A connection counts as `late` when it began more than this after its intended start.
    pub late_threshold_us: f64,
    /// Connections that began more than `late_threshold_us` after their intended start.
    pub late: u64,
    /// Lateness over every connection that began (null if none did).
    pub lateness_us: Option<Lateness>,
    /// A connection whose worker would begin it more than this after its intended start
    /// is not made: it is counted in `not_started` and as a failed connection.
    pub give_up_after_us: f64,
    /// Connections given up on (see `give_up_after_us`): failed, never started.
    pub not_started: u64,
}

/// p99 more than this many times its value at the lowest offered rate is past the knee.
pub const KNEE_P99_FACTOR: f64 = 2.0;
/// Achieved below this share of offered is past the knee (the server no longer keeps up).
pub const KNEE_ACHIEVED_SHARE: f64 = 0.9;

/// One offered rate of a sweep, as the knee reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub offered_per_s: f64,
    pub achieved_per_s: f64,
    /// None when the arm has no result (an error, or no connection succeeded).
    pub p99_us: Option<f64>,
}

/// The open-loop arms of one kind of handshake (same stacks, protocol, mode, cert, group,
/// arrival and workers), in order of offered rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep<'a> {
    /// E.g. `tls1.3 full ecdsa-p256 x25519 · constant arrivals · 16 client workers`.
    pub label: String,
    pub arms: Vec<&'a Arm>,
}

impl Sweep<'_> {
    /// The sweep as the knee reads it.
    pub fn points(&self) -> Vec<Point> {
        self.arms
            .iter()
            .filter_map(|a| {
                let o = a.capacity.as_ref()?.open_loop.as_ref()?;
                Some(Point {
                    offered_per_s: o.offered_per_s,
                    achieved_per_s: o.achieved_per_s,
                    p99_us: a
                        .latency_us
                        .filter(|_| a.error.is_none() && a.succeeded > 0)
                        .map(|l| l.p99),
                })
            })
            .collect()
    }

    /// The knee of this sweep in words ([`knee_sentence`]).
    pub fn knee(&self) -> String {
        knee_sentence(&self.points())
    }
}

/// The open-loop arms of `arms`, one sweep per kind of handshake, each in order of
/// offered rate; sweeps in the order their first arm appears.
pub fn sweeps<'a>(arms: impl IntoIterator<Item = &'a Arm>) -> Vec<Sweep<'a>> {
    let mut out: Vec<Sweep> = Vec::new();
    for arm in arms {
        let Some(cap) = &arm.capacity else { continue };
        let Some(open) = &cap.open_loop else { continue };
        let label = label(arm, open, cap.clients);
        match out.iter_mut().find(|s| s.label == label) {
            Some(s) => s.arms.push(arm),
            None => out.push(Sweep {
                label,
                arms: vec![arm],
            }),
        }
    }
    let offered = |a: &Arm| {
        a.capacity
            .as_ref()
            .and_then(|c| c.open_loop.as_ref())
            .map_or(0.0, |o| o.offered_per_s)
    };
    for s in &mut out {
        crate::order::sort_by(&mut s.arms, &|a, b| offered(a).total_cmp(&offered(b)));
    }
    out
}

fn label(arm: &Arm, open: &OpenLoop, workers: u64) -> String {
    let name = |v: Option<String>| v.map(|v| format!(" {v}")).unwrap_or_default();
    let mode = match (arm.mode, arm.resumption) {
        (Mode::Resumed, Some(r)) => format!("resumed ({r})"),
        (m, _) => m.to_string(),
    };
    let stacks = if arm.client_stack == arm.server_stack {
        arm.client_stack.to_string()
    } else {
        format!("{} → {}", arm.client_stack, arm.server_stack)
    };
    format!(
        "{stacks} {} {mode}{}{} · {} arrivals · {workers} client workers",
        arm.protocol,
        name(arm.cert.map(|c| c.to_string())),
        name(arm.kx_group.map(|g| g.to_string())),
        open.arrival
    )
}

/// The knee of a sweep in one sentence, from the measured points only, in two clauses:
/// where latency breaks (the first offered rate above the lowest whose p99 is more than
/// [`KNEE_P99_FACTOR`] times its value at the lowest rate, or where no connection
/// succeeded) and where throughput does (the first rate whose achieved rate falls below
/// [`KNEE_ACHIEVED_SHARE`] of offered), each named as "above" the rate before it. Says
/// so when there is no knee inside the sweep, or too little to tell.
pub fn knee_sentence(points: &[Point]) -> String {
    let mut sorted = points.to_vec();
    crate::order::sort_by(&mut sorted, &|a, b| {
        a.offered_per_s.total_cmp(&b.offered_per_s)
    });
    let (Some(first), Some(last)) = (sorted.first().copied(), sorted.last().copied()) else {
        return "no open-loop rate was measured".into();
    };
    if sorted.len() < 2 {
        return format!(
            "one offered rate ({}/s): naming a knee needs a sweep of at least two",
            rate(first.offered_per_s)
        );
    }
    let Some(base) = first.p99_us else {
        return format!(
            "no result at the lowest offered rate ({}/s): no baseline, no knee",
            rate(first.offered_per_s)
        );
    };
    let above = |p: &Point| format!("above {} new connections/s", rate(p.offered_per_s));
    let short = |p: &Point| p.achieved_per_s < KNEE_ACHIEVED_SHARE * p.offered_per_s;
    let share = (KNEE_ACHIEVED_SHARE * 100.0).round();
    let latency = sorted.windows(2).find_map(|w| {
        let (before, p) = (&w[0], &w[1]);
        match p.p99_us {
            None => Some(format!(
                "no connection succeeded {} (none of them at {}/s)",
                above(before),
                rate(p.offered_per_s)
            )),
            Some(p99) if p99 > KNEE_P99_FACTOR * base => Some(format!(
                "p99 more than doubles {}: {} at {}/s against {} at {}/s",
                above(before),
                us(p99),
                rate(p.offered_per_s),
                us(base),
                rate(first.offered_per_s)
            )),
            Some(_) => None,
        }
    });
    let throughput = if short(&first) {
        Some(format!(
            "achieved is below {share}% of offered already at the lowest rate ({}/s of {}/s): offer lower rates",
            rate(first.achieved_per_s),
            rate(first.offered_per_s)
        ))
    } else {
        sorted.windows(2).find(|w| short(&w[1])).map(|w| {
            format!(
                "achieved falls below {share}% of offered {}: {}/s achieved of {}/s offered",
                above(&w[0]),
                rate(w[1].achieved_per_s),
                rate(w[1].offered_per_s)
            )
        })
    };
    let up_to = format!("up to {} new connections/s", rate(last.offered_per_s));
    match (latency, throughput) {
        (None, None) => format!(
            "no knee {up_to}: p99 stays within {KNEE_P99_FACTOR}× of {} (at {}/s) and achieved within {}% of offered; offer higher rates to find it",
            us(base),
            rate(first.offered_per_s),
            ((1.0 - KNEE_ACHIEVED_SHARE) * 100.0).round()
        ),
        (Some(l), Some(t)) => format!("{l}; {t}"),
        (Some(l), None) => format!(
            "{l}; achieved stays within {}% of offered {up_to}",
            ((1.0 - KNEE_ACHIEVED_SHARE) * 100.0).round()
        ),
        (None, Some(t)) => format!(
            "p99 stays within {KNEE_P99_FACTOR}× of {} (at {}/s) {up_to}; {t}",
            us(base),
            rate(first.offered_per_s)
        ),
    }
}

/// A rate for people: rounded, with thousands separators (`1,800`).
pub fn rate(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let digits = format!("{:.0}", v.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if v < 0.0 && digits != "0" {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A latency for people: `87.5 µs`, `412 µs`, `1.23 ms`, `2.50 s`.
pub fn us(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} s", v / 1e6)
    } else if v >= 1000.0 {
        format!("{:.2} ms", v / 1000.0)
    } else if v >= 100.0 {
        format!("{v:.0} µs")
    } else {
        format!("{v:.1} µs")
    }
}

#[cfg(test)]
#[path = "open_loop_tests.rs"]
mod tests;
