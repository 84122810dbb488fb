//! Keep-alive arms in request mode: one connection carrying N requests, beside a new
//! connection per request (full, resumed, 0-RTT), on loopback and over an emulated RTT.
//! The checks are structural: a request on an open connection does strictly less work
//! than a new connection that resumes and then sends the same request.

use e2e::{collector, run_ok, scratch};
use shared::{Arm, Evidence, Mode, Protocol};

fn keepalive_arms(e: &Evidence) -> Vec<&Arm> {
    e.arms
        .iter()
        .filter(|a| a.mode == Mode::KeepAlive)
        .collect()
}

/// For every keep-alive arm: N recorded, the per-request median is the arm's p50 and
/// lies below every resumed (and 0-RTT) arm of the same protocol, and the first request
/// (connect + full handshake + request) costs more than a later one.
fn check(e: &Evidence, requests: u64) {
    let ka = keepalive_arms(e);
    assert_eq!(
        ka.iter().map(|a| a.protocol).collect::<Vec<_>>().len(),
        e.arms.iter().filter(|a| a.mode == Mode::KeepAlive).count()
    );
    assert!(!ka.is_empty(), "request mode adds keep-alive arms");
    for a in ka {
        assert_eq!(a.error, None, "{}", a.id);
        assert!(a.ttfb);
        let k = a.keepalive.as_ref().expect("keep-alive figures");
        assert_eq!(k.requests_per_connection, requests);
        let p50 = a.latency_us.unwrap().p50;
        assert_eq!(k.per_request_p50_us, p50);
        assert!(k.first_request_p50_us > p50, "{}: first {k:?}", a.id);
        assert!(
            k.amortized_p50_us > p50 && k.amortized_p50_us < k.first_request_p50_us,
            "{}: {k:?}",
            a.id
        );
        assert_eq!(
            a.crypto_floor_us, None,
            "no public-key work in a request's window"
        );
        let resumed: Vec<&Arm> = e
            .arms
            .iter()
            .filter(|r| r.mode == Mode::Resumed && r.protocol == a.protocol && r.rtt_ms == a.rtt_ms)
            .collect();
        assert!(!resumed.is_empty(), "{}: resumed arms beside it", a.id);
        for r in resumed {
            assert_eq!(r.error, None, "{}", r.id);
            let rp = r.latency_us.unwrap().p50;
            assert!(
                p50 < rp,
                "{}: a request on the open connection ({p50} µs) is not below {} ({rp} µs)",
                a.id,
                r.id
            );
        }
    }
    let findings = &e.run.settings.extra["keepalive_findings"];
    assert!(
        findings.contains("per request after the first"),
        "{findings}"
    );
    assert!(
        e.run.settings.extra["keepalive"]
            .starts_with(&format!("{requests} requests per connection")),
        "{}",
        e.run.settings.extra["keepalive"]
    );
}

#[test]
fn keepalive_at_ten_requests_costs_less_per_request_than_a_resumed_handshake() {
    let dir = scratch("keepalive-loopback");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--no-floor",
            "--quick",
            "--samples",
            "20",
            "--request",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
            "--keepalive-requests",
            "10",
            "--arms",
            "keepalive,resumed,0rtt,full",
        ],
        &dir,
    );
    let protocols: Vec<Protocol> = keepalive_arms(&e).iter().map(|a| a.protocol).collect();
    assert_eq!(protocols, [Protocol::Tls13, Protocol::Tls12]);
    assert_eq!(
        keepalive_arms(&e)[0].id,
        "tls13-keepalive-ecdsa-p256-x25519",
        "one arm per protocol × cert × group"
    );
    check(&e, 10);
}

#[test]
fn keepalive_needs_two_requests_or_more() {
    let out = collector()
        .args(["run", "--request", "--keepalive-requests", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--keepalive-requests"));
}

#[test]
fn keepalive_over_a_20ms_rtt_costs_one_round_trip_per_request() {
    if !e2e::needs_root("keepalive_over_a_20ms_rtt_costs_one_round_trip_per_request") {
        return;
    }
    let dir = scratch("keepalive-rtt");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--no-floor",
            "--rtt",
            "20",
            "--samples",
            "5",
            "--rounds",
            "5",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
            "--keepalive-requests",
            "3",
            "--arms",
            "tls13-keepalive,tls13-resumed-stateful",
        ],
        &dir,
    );
    check(&e, 3);
    let ka = keepalive_arms(&e)[0];
    assert_eq!(ka.id, "tls13-keepalive-ecdsa-p256-x25519-rtt20ms");
    // Every request waits for its response: at least one emulated round trip.
    assert!(
        ka.latency_us.unwrap().p50 >= 19_000.0,
        "{:?}",
        ka.latency_us
    );
}
