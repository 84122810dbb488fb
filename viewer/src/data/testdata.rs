//! Evidence for the data layer's tests, built from `shared::sample`.

use shared::{sample, Comparison, ComparisonKind, Evidence, Mode, Protocol, RateBasis};
use shared::{Resumption, Stack};

/// Phases holding only `d` (the decomposition is all the viewer's views read).
pub fn phases_of(d: shared::Decomposition) -> shared::Phases {
    shared::Phases {
        client_events: vec!["start".into(), "done".into()],
        server_events: Vec::new(),
        client: Vec::new(),
        server: Vec::new(),
        decomposition: Some(d),
        irregular: 0,
        client_wall_us: Vec::new(),
        client_cpu_us: Vec::new(),
        server_wall_us: Vec::new(),
        server_cpu_us: Vec::new(),
    }
}

pub fn sample() -> Evidence {
    sample::evidence()
}

pub fn sample_json() -> String {
    sample().to_json()
}

/// A line through `pts`; with `spread`, each point has a ±10% whisker.
pub fn line(label: &str, pts: &[(f64, f64)], spread: bool) -> crate::data::series::Line {
    crate::data::series::Line {
        label: label.into(),
        points: pts
            .iter()
            .map(|&(x, y)| crate::data::series::Point {
                x,
                y,
                spread: spread.then_some([y * 0.9, y * 1.1]),
            })
            .collect(),
    }
}

/// The sample plus a TLS 1.2 pair, so speedups have both protocols.
pub fn with_tls12() -> Evidence {
    let mut ev = sample();
    ev.arms.push(sample::arm(
        "tls12-full-ecdsa-p256-x25519",
        Protocol::Tls12,
        Mode::Full,
        None,
        vec![500.0, 520.0, 510.0, 600.0],
    ));
    ev.arms.push(sample::arm(
        "tls12-resumed-ticket-ecdsa-p256-x25519",
        Protocol::Tls12,
        Mode::Resumed,
        Some(Resumption::Ticket),
        vec![300.0, 310.0, 290.0, 330.0],
    ));
    ev.comparisons.push(Comparison {
        kind: ComparisonKind::ResumeSpeedup,
        baseline: "tls12-full-ecdsa-p256-x25519".into(),
        candidate: "tls12-resumed-ticket-ecdsa-p256-x25519".into(),
        p50_ratio: 1.7,
        ci95: Some([1.6, 1.8]),
        ci_unavailable: None,
        basis: None,
    });
    assert!(ev.violations().is_empty(), "{:?}", ev.violations());
    ev
}

/// The sample plus peer arms: Python's ssl (with its own TCP connect), a rustls client
/// against `openssl s_server`, and rate-only `openssl s_time` arms: TLS 1.2 new/reuse with
/// rate ratios, and the TLS 1.3 plain reuse that never resumes (a known pitfall).
pub fn with_peers() -> Evidence {
    let mut ev = sample();
    let peer = |id: &str, protocol, mode, client, server, samples: Vec<f64>| {
        let mut a = sample::arm(id, protocol, mode, None, samples);
        (a.client_stack, a.server_stack) = (client, server);
        a.stack = if client == Stack::Rustls {
            server
        } else {
            client
        };
        a.peer_version = Some("OpenSSL 3.0.19 27 Jan 2026".into());
        a
    };
    use Stack::{OpensslSServer as SServer, OpensslSTime as STime, PythonSsl as Py};
    ev.arms.extend([
        peer(
            "python-tcp-connect",
            Protocol::Tcp,
            Mode::Connect,
            Py,
            Py,
            vec![90.0, 95.0],
        ),
        peer(
            "python-tls13-full",
            Protocol::Tls13,
            Mode::Full,
            Py,
            Py,
            vec![900.0, 950.0],
        ),
        peer(
            "rustls-vs-s_server-tls13-full",
            Protocol::Tls13,
            Mode::Full,
            Stack::Rustls,
            SServer,
            vec![700.0, 720.0],
        ),
    ]);
    let rate = |per_real_s: f64| {
        serde_json::from_value(serde_json::json!({"connections": 100, "user_cpu_s": 1.0,
            "real_s": 2.0, "per_user_s": per_real_s * 2.0, "per_real_s": per_real_s}))
        .ok()
    };
    for (id, protocol, mode, r) in [
        (
            "s_time-tls12-new-vs-s_server",
            Protocol::Tls12,
            Mode::Full,
            100.0,
        ),
        (
            "s_time-tls12-reuse-vs-s_server",
            Protocol::Tls12,
            Mode::Resumed,
            400.0,
        ),
        (
            "s_time-tls13-reuse-vs-s_server",
            Protocol::Tls13,
            Mode::Resumed,
            100.0,
        ),
    ] {
        let mut a = peer(id, protocol, mode, STime, SServer, Vec::new());
        a.rate = rate(r);
        (a.attempted, a.succeeded) = (100, 100);
        a.resumption = (mode == Mode::Resumed).then_some(Resumption::Ticket);
        ev.arms.push(a);
    }
    if let Some(a) = ev.arms.last_mut() {
        a.error = Some("0 of 100 connections resumed".into());
        a.known_pitfall = Some("s_time -reuse under TLS 1.3 without reading".into());
    }
    for (basis, ratio) in [(RateBasis::PerRealS, 4.0), (RateBasis::PerUserS, 6.0)] {
        ev.comparisons.push(Comparison {
            kind: ComparisonKind::ResumeRateSpeedup,
            baseline: "s_time-tls12-new-vs-s_server".into(),
            candidate: "s_time-tls12-reuse-vs-s_server".into(),
            p50_ratio: ratio,
            ci95: Some([ratio * 0.9, ratio * 1.1]),
            ci_unavailable: None,
            basis: Some(basis),
        });
    }
    assert!(ev.violations().is_empty(), "{:?}", ev.violations());
    ev
}
