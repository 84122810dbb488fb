//! Plausible bounds on every number a chart or table does arithmetic with. A value near
//! f64::MAX passes "finite" but overflows to infinity as soon as it is added, scaled or
//! padded for an axis; no real measurement comes near these bounds.

use super::arm::Bad;
use crate::schema::{Arm, Comparison, Evidence};

/// Any duration in µs: one hour. No handshake, phase or primitive takes that long (the
/// collector gives up on a connection stalled for ten minutes at most).
pub const MAX_US: f64 = 3.6e9;
/// Any wall or CPU time in seconds: about 116 days.
pub const MAX_SECONDS: f64 = 1e7;
/// Any rate (handshakes per second): a billion.
pub const MAX_RATE_PER_S: f64 = 1e9;
/// Any ratio (p50 ratios, their CIs, efficiency, prediction ratios): 1e-6 to 1e6.
pub const MAX_RATIO: f64 = 1e6;
/// Round-trip times in ms: one hour.
pub const MAX_RTT_MS: f64 = 3.6e6;

// The bounds in words, for the messages (no float formatting code in the viewer's wasm).
const US: &str = "3.6e9 µs (one hour)";
const SECS: &str = "1e7 s";
const RATE: &str = "1e9 per s";
const RATIO: &str = "1e6";
const RTT: &str = "3.6e6 ms (one hour)";

/// `|v| <= max` (false for NaN and infinities).
fn within(v: f64, max: f64) -> bool {
    v.abs() <= max
}

fn check(path: String, v: f64, max: f64, unit: &str, bad: &mut Bad<'_>) {
    if !within(v, max) {
        bad(
            path,
            format!("{v} is not a plausible value (finite, at most {unit} in size)"),
        );
    }
}

/// The first value of `values` out of bounds, reported once for the list.
fn check_all(path: &str, values: &[f64], max: f64, unit: &str, bad: &mut Bad<'_>) {
    if let Some(j) = values.iter().position(|v| !within(*v, max)) {
        check(format!("{path}[{j}]"), values[j], max, unit, bad);
    }
}

fn ratio(path: String, v: f64, bad: &mut Bad<'_>) {
    if v.is_finite() && v != 0.0 && !(1.0 / MAX_RATIO..=MAX_RATIO).contains(&v.abs()) {
        bad(
            path,
            format!("{v} is not a plausible ratio (between 1e-6 and 1e6)"),
        );
    } else if !v.is_finite() {
        bad(path, format!("{v} is not a finite ratio"));
    }
}

pub(super) fn check_arm(arm: &Arm, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let us = |field: &str, v: f64, bad: &mut Bad<'_>| check(at(field), v, MAX_US, US, bad);
    check_all(&at("samples_us"), &arm.samples_us, MAX_US, US, bad);
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(k) = &arm.keepalive {
        for (f, v) in [
            ("keepalive.first_request_p50_us", k.first_request_p50_us),
            ("keepalive.per_request_p50_us", k.per_request_p50_us),
            ("keepalive.amortized_p50_us", k.amortized_p50_us),
        ] {
            us(f, v, bad);
        }
    }
    if let Some(l) = &arm.latency_us {
        for (f, v) in [
            ("min", l.min),
            ("p50", l.p50),
            ("p95", l.p95),
            ("p99", l.p99),
            ("max", l.max),
            ("mean", l.mean),
            ("stddev", l.stddev),
        ] {
            us(&format!("latency_us.{f}"), v, bad);
        }
    }
    if let Some(ci) = arm.p50_ci95_us {
        check_all(&at("p50_ci95_us"), &ci, MAX_US, US, bad);
    }
    let medians: Vec<f64> = arm.round_medians_us.iter().flatten().copied().collect();
    check_all(&at("round_medians_us"), &medians, MAX_US, US, bad);
    if let Some(v) = arm.throughput_per_s {
        check(at("throughput_per_s"), v, MAX_RATE_PER_S, RATE, bad);
    }
    if let Some(v) = arm.crypto_floor_us {
        us("crypto_floor_us", v, bad);
    }
    for (j, p) in arm.crypto_floor_parts.iter().enumerate() {
        us(&format!("crypto_floor_parts[{j}].us"), p.us, bad);
    }
    if let Some(v) = arm.efficiency {
        check(at("efficiency"), v, MAX_RATIO, RATIO, bad);
    }
    for (f, v) in [
        ("rtt_ms", arm.rtt_ms),
        ("rtt_measured_ms", arm.rtt_measured_ms),
    ] {
        if let Some(v) = v {
            check(at(f), v, MAX_RTT_MS, RTT, bad);
        }
    }
    if let Some(r) = &arm.rate {
        check(at("rate.user_cpu_s"), r.user_cpu_s, MAX_SECONDS, SECS, bad);
        check(at("rate.real_s"), r.real_s, MAX_SECONDS, SECS, bad);
        check(
            at("rate.per_user_s"),
            r.per_user_s,
            MAX_RATE_PER_S,
            RATE,
            bad,
        );
        check(
            at("rate.per_real_s"),
            r.per_real_s,
            MAX_RATE_PER_S,
            RATE,
            bad,
        );
        for (j, s) in r.slices.iter().enumerate() {
            check(
                at(&format!("rate.slices[{j}].user_cpu_s")),
                s.user_cpu_s,
                MAX_SECONDS,
                SECS,
                bad,
            );
            check(
                at(&format!("rate.slices[{j}].real_s")),
                s.real_s,
                MAX_SECONDS,
                SECS,
                bad,
            );
        }
    }
    if let Some(c) = &arm.capacity {
        check_all(
            &at("capacity.per_second"),
            &c.per_second,
            MAX_RATE_PER_S,
            RATE,
            bad,
        );
        check(
            at("capacity.rate_median_per_s"),
            c.rate_median_per_s,
            MAX_RATE_PER_S,
            RATE,
            bad,
        );
        check_all(
            &at("capacity.rate_iqr_per_s"),
            &c.rate_iqr_per_s,
            MAX_RATE_PER_S,
            RATE,
            bad,
        );
    }
    if let Some(p) = &arm.phases {
        for (side, stats) in [("client", &p.client), ("server", &p.server)] {
            for (j, s) in stats.iter().enumerate() {
                us(
                    &format!("phases.{side}[{j}].wall_p50_us"),
                    s.wall_p50_us,
                    bad,
                );
                us(&format!("phases.{side}[{j}].cpu_p50_us"), s.cpu_p50_us, bad);
            }
        }
        for (f, rows) in [
            ("client_wall_us", &p.client_wall_us),
            ("client_cpu_us", &p.client_cpu_us),
            ("server_wall_us", &p.server_wall_us),
            ("server_cpu_us", &p.server_cpu_us),
        ] {
            for (j, row) in rows.iter().enumerate() {
                check_all(&at(&format!("phases.{f}[{j}]")), row, MAX_US, US, bad);
            }
        }
        if let Some(d) = &p.decomposition {
            for (f, v) in [
                ("tcp_connect_us", d.tcp_connect_us),
                ("client_cpu_us", d.client_cpu_us),
                ("client_floor_us", d.client_floor_us),
                ("client_thread_cpu_us", d.client_thread_cpu_us),
                ("server_cpu_us", d.server_cpu_us),
                ("server_floor_us", d.server_floor_us),
                ("server_thread_cpu_us", d.server_thread_cpu_us),
                ("hop_us", d.hop_us),
                ("waiting_us", d.waiting_us),
                ("waiting_measured_us", d.waiting_measured_us),
                ("predicted_us", d.predicted_us),
                ("measured_p50_us", d.measured_p50_us),
            ] {
                us(&format!("phases.decomposition.{f}"), v, bad);
            }
            for (j, s) in d.path.iter().enumerate() {
                let fields = [
                    ("p50_us", Some(s.p50_us)),
                    ("idle_us", s.idle_us),
                    ("modelled_us", s.modelled_us),
                ];
                for (f, v) in fields {
                    if let Some(v) = v {
                        us(&format!("phases.decomposition.path[{j}].{f}"), v, bad);
                    }
                }
            }
            ratio(
                at("phases.decomposition.prediction_ratio"),
                d.prediction_ratio,
                bad,
            );
        }
    }
}

pub(super) fn check_comparison(i: usize, c: &Comparison, bad: &mut Bad<'_>) {
    ratio(format!("comparisons[{i}].p50_ratio"), c.p50_ratio, bad);
    if let Some(ci) = c.ci95 {
        for (j, v) in ci.into_iter().enumerate() {
            ratio(format!("comparisons[{i}].ci95[{j}]"), v, bad);
        }
    }
}

pub(super) fn check_rest(e: &Evidence, bad: &mut Bad<'_>) {
    #[cfg(not(target_arch = "wasm32"))]
    for (i, p) in e.primitives.iter().enumerate() {
        let at = |f: &str| format!("primitives[{i}].{f}");
        check(at("median_us"), p.median_us, MAX_US, US, bad);
        for (f, v) in [
            ("median_before_us", p.median_before_us),
            ("median_after_us", p.median_after_us),
        ] {
            if let Some(v) = v {
                check(at(f), v, MAX_US, US, bad);
            }
        }
    }
    if let Some(h) = &e.hop {
        for (f, v) in [
            ("before_us", h.before_us),
            ("after_us", h.after_us),
            ("one_way_us", h.one_way_us),
        ] {
            check(format!("hop.{f}"), v, MAX_US, US, bad);
        }
        for (j, p) in h.curve.iter().enumerate() {
            check(
                format!("hop.curve[{j}].idle_us"),
                p.idle_us,
                MAX_US,
                US,
                bad,
            );
            check(
                format!("hop.curve[{j}].one_way_us"),
                p.one_way_us,
                MAX_US,
                US,
                bad,
            );
        }
    }
}
