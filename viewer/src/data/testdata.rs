//! Evidence for the data layer's tests, built from `shared::sample`.

use shared::{sample, Evidence, Mode, Protocol, Resumption};

pub fn sample() -> Evidence {
    sample::evidence()
}

pub fn sample_json() -> String {
    sample().to_json()
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
    ev.comparisons.push(shared::Comparison {
        kind: shared::ComparisonKind::ResumeSpeedup,
        baseline: "tls12-full-ecdsa-p256-x25519".into(),
        candidate: "tls12-resumed-ticket-ecdsa-p256-x25519".into(),
        p50_ratio: 1.7,
        ci95: [1.6, 1.8],
        basis: None,
    });
    assert!(ev.violations().is_empty(), "{:?}", ev.violations());
    ev
}
