//! The rules of an arm's wire sizes (`wire`), its round-trip multiple (`rtt_multiple`)
//! and its two ends' TCP counters (`tcp`, `server_tcp`).

use super::arm::Bad;
use crate::schema::{Arm, Protocol};
use crate::wire::FlightSizes;

/// In a `summary` the TCP counters' per-connection lists are dropped (their counts stay).
// The wasm build has no TCP counters, so no use for `summary`.
#[cfg_attr(target_arch = "wasm32", allow(unused_variables))]
pub(super) fn check(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    if let Some(m) = arm.rtt_multiple {
        if arm.rtt_ms.is_none() || arm.latency_us.is_none() {
            bad(
                at("rtt_multiple"),
                "only an arm with latencies over an emulated link (rtt_ms) has one".into(),
            );
        }
        if !(m.is_finite() && m > 0.0 && m <= super::MAX_RATIO) {
            bad(
                at("rtt_multiple"),
                format!(
                    "{m} is not a round-trip count (above 0, at most {})",
                    super::MAX_RATIO
                ),
            );
        }
    }
    if let Some(w) = &arm.wire {
        if arm.protocol == Protocol::Tcp {
            bad(at("wire"), "plain TCP has no TLS flights".into());
        }
        match (w.chain_certificates, w.chain_bytes) {
            (None, None) => {}
            (Some(n), Some(b)) if n >= 1 && b >= n => {}
            (n, b) => bad(
                at("wire.chain_bytes"),
                format!("{n:?} certificates of {b:?} bytes: both or neither, at least one certificate of at least a byte each"),
            ),
        }
        for (name, f) in [
            ("server_first_flight", &w.server_first_flight),
            ("client_hello", &w.client_hello),
        ] {
            if let Some(f) = f {
                flight(
                    f,
                    arm.succeeded,
                    &|field| at(&format!("wire.{name}.{field}")),
                    bad,
                );
            }
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    for (name, t) in [("tcp", &arm.tcp), ("server_tcp", &arm.server_tcp)] {
        let Some(t) = t else { continue };
        let n = if summary { 0 } else { t.connections as usize };
        if t.connections > arm.succeeded
            || t.retransmits.len() != n
            || t.segments_out.len() != n
            || t.cwnd.len() != n
            || !(t.rtos.is_empty() || t.rtos.len() == n)
            || t.with_retransmission > t.connections
        {
            bad(
                at(name),
                format!("{} connections (of {} succeeded) with per-connection lists of another length, or more with a retransmission than counted", t.connections, arm.succeeded),
            );
        }
    }
}

fn flight(f: &FlightSizes, succeeded: u64, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    if f.connections == 0 || f.connections > succeeded {
        bad(
            at("connections"),
            format!("{} counted of {succeeded} that succeeded", f.connections),
        );
    }
    if !(f.bytes_min <= f.bytes_p50 && f.bytes_p50 <= f.bytes_max) || f.bytes_min == 0 {
        bad(
            at("bytes_p50"),
            format!(
                "min {} ≤ p50 {} ≤ max {} does not hold, or a flight of no bytes",
                f.bytes_min, f.bytes_p50, f.bytes_max
            ),
        );
    }
    match (f.segments_p50, f.segments_max) {
        (None, None) => {}
        (Some(p), Some(m)) if p <= m => {}
        (p, m) => bad(
            at("segments_p50"),
            format!("p50 {p:?} and max {m:?}: both or neither, p50 at most max"),
        ),
    }
}
