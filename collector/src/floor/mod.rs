//! The crypto floor: the public-key work on a handshake's critical path, timed with the
//! same provider in the same run. A handshake cannot be faster than its floor; what is
//! above it is framing, hashing, syscalls and wake-ups.

mod args;
pub mod primitives;
pub mod signatures;

use std::collections::BTreeSet;

use anyhow::Result;
use shared::{Arm, CertKind, FloorPart, KxGroup, Mode, Primitive, Protocol, Side, Stack};

use crate::arms::ArmSpec;
pub use args::FloorArgs;
use primitives::{
    ecdh_curve, ecdh_names, Timed, MLKEM_DECAPSULATE, MLKEM_ENCAPSULATE, MLKEM_KEYGEN,
};
use signatures::sig_names;

/// One public-key operation a handshake performs: (primitive, side, count).
pub type Op = (String, Side, u64);

/// The public-key operations on the critical path of one handshake of `arm`, or None
/// when the arm has no TLS handshake (or names no group).
///
/// - Full (TLS 1.2 and 1.3 alike): the client's key share, the server's key share and
///   agreement (for the hybrid, ML-KEM encapsulation), the server's signature, the
///   client's verifications (the leaf's signature by the CA — [`with_chain`] adds one per
///   intermediate — and the handshake signature), and the client's agreement (hybrid:
///   decapsulation).
/// - Resumed TLS 1.3 (psk_dhe_ke): the key exchange only.
/// - Resumed TLS 1.2: no public-key operation at all.
pub fn ops(
    protocol: Protocol,
    mode: Mode,
    cert: Option<CertKind>,
    group: Option<KxGroup>,
) -> Option<Vec<Op>> {
    // A keep-alive arm's window is a request on an open connection: no public-key work.
    if protocol == Protocol::Tcp || mode == Mode::KeepAlive {
        return None;
    }
    if protocol == Protocol::Tls12 && mode == Mode::Resumed {
        return Some(Vec::new());
    }
    let group = group?;
    let (curve, _) = ecdh_curve(group);
    let (keygen, agree) = ecdh_names(curve);
    let mut ops: Vec<Op> = vec![
        (keygen.clone(), Side::Client, 1),
        (keygen, Side::Server, 1),
        (agree.clone(), Side::Server, 1),
        (agree, Side::Client, 1),
    ];
    if group == KxGroup::X25519Mlkem768 {
        ops.push((MLKEM_KEYGEN.into(), Side::Client, 1));
        ops.push((MLKEM_ENCAPSULATE.into(), Side::Server, 1));
        ops.push((MLKEM_DECAPSULATE.into(), Side::Client, 1));
    }
    if mode != Mode::Resumed {
        let (sign, verify, chain) = sig_names(cert?);
        ops.push((sign, Side::Server, 1));
        if verify == chain {
            ops.push((verify, Side::Client, 2));
        } else {
            ops.push((verify, Side::Client, 1));
            ops.push((chain, Side::Client, 1));
        }
    }
    Some(ops)
}

/// Counts one chain verification per certificate the server sent (`sent`: the leaf,
/// signed by the first intermediate, and each intermediate, signed by the next or the
/// root), where [`ops`] counts the leaf's alone.
pub fn with_chain(ops: &mut [Op], cert: CertKind, sent: u64) {
    let (_, _, chain) = sig_names(cert);
    for op in ops
        .iter_mut()
        .filter(|o| o.0 == chain && o.1 == Side::Client)
    {
        op.2 += sent.saturating_sub(1);
    }
}

/// Times every primitive the given arms need (each cert's signatures, each group's
/// key exchange), `ops_per_primitive` operations each.
pub fn measure(arms: &[Arm], ops_per_primitive: usize) -> Result<Vec<Timed>> {
    let certs: BTreeSet<CertKind> = arms
        .iter()
        .filter(|a| a.mode != Mode::Resumed)
        .filter_map(|a| a.cert)
        .collect();
    let groups: BTreeSet<KxGroup> = arms.iter().filter_map(|a| a.kx_group).collect();
    time_for(&certs, &groups, ops_per_primitive)
}

/// [`measure`] for arms about to run.
pub fn measure_planned(specs: &[ArmSpec], ops_per_primitive: usize) -> Result<Vec<Timed>> {
    let certs: BTreeSet<CertKind> = specs
        .iter()
        .filter(|a| a.mode() != Mode::Resumed)
        .filter_map(|a| a.cert())
        .collect();
    let groups: BTreeSet<KxGroup> = specs.iter().filter_map(|a| a.kx_group()).collect();
    time_for(&certs, &groups, ops_per_primitive)
}

/// One pass over `certs` and `groups`, as evidence records.
pub fn measure_for(
    certs: &BTreeSet<CertKind>,
    groups: &BTreeSet<KxGroup>,
    ops: usize,
) -> Result<Vec<Primitive>> {
    Ok(time_for(certs, groups, ops)?
        .iter()
        .map(Timed::primitive)
        .collect())
}

fn time_for(
    certs: &BTreeSet<CertKind>,
    groups: &BTreeSet<KxGroup>,
    ops: usize,
) -> Result<Vec<Timed>> {
    let mut out: Vec<Timed> = Vec::new();
    for &c in certs {
        out.extend(signatures::time_signatures(c, ops)?);
    }
    for &g in groups {
        for p in primitives::time_key_exchange(g, ops)? {
            if !out.iter().any(|q| q.name == p.name) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// `collector floor`: times the primitives and prints the table.
pub fn command(args: &FloorArgs) -> Result<std::process::ExitCode> {
    let certs: BTreeSet<CertKind> = args.certs.iter().copied().collect();
    let groups: BTreeSet<KxGroup> = args.groups.iter().copied().collect();
    eprintln!(
        "collector: timing {} cert kinds and {} groups, {} operations per primitive (aws-lc-rs {})",
        certs.len(),
        groups.len(),
        args.ops,
        env!("LAB_AWS_LC_RS_VERSION")
    );
    let prims = measure_for(&certs, &groups, args.ops as usize)?;
    print!("{}", crate::report::primitives(&prims));
    Ok(std::process::ExitCode::SUCCESS)
}

/// Fills `arm`'s `crypto_floor_us`, `crypto_floor_parts` and `efficiency` from `primitives`.
/// Leaves them empty when the arm has no handshake or a primitive is missing. The
/// efficiency (floor / p50) is only for handshake windows with public-key work: not for
/// a TTFB window, an emulated RTT (mostly waiting) or a floor of 0 (resumed TLS 1.2).
pub fn apply(arm: &mut Arm, primitives: &[Primitive]) {
    // The primitives were timed with aws-lc-rs: a floor for rustls on both ends only.
    if arm.client_stack != Stack::Rustls || arm.server_stack != Stack::Rustls {
        return;
    }
    let Some(mut ops) = ops(arm.protocol, arm.mode, arm.cert, arm.kx_group) else {
        return;
    };
    // With intermediates the client verifies one signature per certificate sent.
    if let (Some(cert), Some(sent)) = (
        arm.cert,
        arm.wire.as_ref().and_then(|w| w.chain_certificates),
    ) {
        with_chain(&mut ops, cert, sent);
    }
    let mut parts = Vec::new();
    for (name, side, count) in ops {
        let Some(p) = primitives.iter().find(|p| p.name == name) else {
            return;
        };
        parts.push(FloorPart {
            primitive: name,
            side,
            count,
            us: count as f64 * p.median_us,
        });
    }
    // A fold from +0.0: an empty float sum is -0.0, which would print as "-0".
    let floor = parts.iter().fold(0.0, |sum, p| sum + p.us);
    arm.crypto_floor_us = Some(floor);
    arm.crypto_floor_parts = parts;
    // An open-loop arm's window starts at the intended start: it includes queueing.
    let open_loop = arm.capacity.as_ref().is_some_and(|c| c.open_loop.is_some());
    let handshake_window = !arm.ttfb && arm.rtt_ms.is_none() && !open_loop;
    arm.efficiency = arm
        .latency_us
        .filter(|l| l.p50 > 0.0 && floor > 0.0 && handshake_window)
        .map(|l| floor / l.p50);
}

#[cfg(test)]
mod tests {
    use shared::{sample, Resumption};

    use super::*;

    fn prim(name: &str, us: f64) -> Primitive {
        Primitive {
            name: name.into(),
            ops: 1,
            median_us: us,
            median_before_us: None,
            median_after_us: None,
        }
    }

    fn names(ops: &[Op]) -> Vec<&str> {
        ops.iter().map(|o| o.0.as_str()).collect()
    }

    fn ops_of(p: Protocol, m: Mode, c: CertKind) -> Vec<String> {
        ops(p, m, Some(c), Some(KxGroup::X25519))
            .unwrap()
            .into_iter()
            .map(|o| o.0)
            .collect()
    }

    #[test]
    fn full_handshake_has_signature_verifications_and_key_exchange() {
        let ops = ops(
            Protocol::Tls13,
            Mode::Full,
            Some(CertKind::EcdsaP256),
            Some(KxGroup::X25519),
        )
        .unwrap();
        assert_eq!(
            names(&ops),
            [
                "x25519-keygen",
                "x25519-keygen",
                "x25519-agree",
                "x25519-agree",
                "ecdsa-p256-sign-ecdsa_nistp256_sha256",
                "ecdsa-p256-verify-ecdsa_nistp256_sha256"
            ]
        );
        assert_eq!(ops.last().unwrap().2, 2, "chain + handshake verification");
        let rsa = ops_of(Protocol::Tls12, Mode::Full, CertKind::Rsa2048);
        for name in [
            "rsa2048-verify-rsa_pkcs1_sha256",
            "rsa2048-verify-rsa_pss_sha512",
            "rsa2048-sign-rsa_pss_sha512",
        ] {
            assert!(rsa.iter().any(|n| n == name), "{rsa:?} lacks {name}");
        }
    }

    #[test]
    fn intermediates_add_one_chain_verification_each() {
        let full = |c| ops(Protocol::Tls13, Mode::Full, Some(c), Some(KxGroup::X25519)).unwrap();
        let count = |o: &[Op], name: &str| o.iter().find(|x| x.0 == name).unwrap().2;
        let mut ec = full(CertKind::EcdsaP256);
        with_chain(&mut ec, CertKind::EcdsaP256, 3);
        // One scheme for chain and handshake: 3 certificates + CertificateVerify.
        assert_eq!(count(&ec, "ecdsa-p256-verify-ecdsa_nistp256_sha256"), 4);
        let mut rsa = full(CertKind::Rsa4096);
        with_chain(&mut rsa, CertKind::Rsa4096, 3);
        assert_eq!(count(&rsa, "rsa4096-verify-rsa_pkcs1_sha256"), 3);
        assert_eq!(count(&rsa, "rsa4096-verify-rsa_pss_sha512"), 1);
        let mut leaf_only = full(CertKind::Rsa2048);
        with_chain(&mut leaf_only, CertKind::Rsa2048, 1);
        assert_eq!(leaf_only, full(CertKind::Rsa2048));
    }

    #[test]
    fn resumed_arms_sign_nothing() {
        let r13 = ops_of(Protocol::Tls13, Mode::Resumed, CertKind::Rsa2048);
        assert_eq!(
            r13,
            [
                "x25519-keygen",
                "x25519-keygen",
                "x25519-agree",
                "x25519-agree"
            ]
        );
        assert!(ops(
            Protocol::Tls12,
            Mode::Resumed,
            Some(CertKind::Rsa2048),
            Some(KxGroup::X25519)
        )
        .unwrap()
        .is_empty());
        assert!(ops(Protocol::Tcp, Mode::Connect, None, None).is_none());
    }

    #[test]
    fn hybrid_adds_mlkem_on_the_right_sides() {
        let o = ops(
            Protocol::Tls13,
            Mode::Resumed,
            None,
            Some(KxGroup::X25519Mlkem768),
        )
        .unwrap();
        assert!(o.contains(&(MLKEM_KEYGEN.into(), Side::Client, 1)));
        assert!(o.contains(&(MLKEM_ENCAPSULATE.into(), Side::Server, 1)));
        assert!(o.contains(&(MLKEM_DECAPSULATE.into(), Side::Client, 1)));
    }

    #[test]
    fn floor_arithmetic_on_known_timings() {
        let prims = [
            prim("x25519-keygen", 10.0),
            prim("x25519-agree", 20.0),
            prim("ecdsa-p256-sign-ecdsa_nistp256_sha256", 30.0),
            prim("ecdsa-p256-verify-ecdsa_nistp256_sha256", 50.0),
        ];
        let mut e = sample::evidence();
        for arm in &mut e.arms {
            apply(arm, &prims);
        }
        let [tcp, full, resumed] = &e.arms[..] else {
            panic!()
        };
        assert_eq!(tcp.crypto_floor_us, None);
        // 2 keygens + 2 agrees + sign + 2 verifies
        assert_eq!(
            full.crypto_floor_us,
            Some(2.0 * 10.0 + 2.0 * 20.0 + 30.0 + 2.0 * 50.0)
        );
        assert_eq!(full.efficiency, Some(190.0 / full.latency_us.unwrap().p50));
        assert_eq!(resumed.resumption, Some(Resumption::Ticket));
        assert_eq!(resumed.crypto_floor_us, Some(60.0));
        assert!(resumed
            .crypto_floor_parts
            .iter()
            .all(|p| !p.primitive.contains("sign")));
    }

    #[test]
    fn efficiency_is_only_for_handshake_windows_with_public_key_work() {
        let prims = [
            prim("x25519-keygen", 10.0),
            prim("x25519-agree", 20.0),
            prim("ecdsa-p256-sign-ecdsa_nistp256_sha256", 30.0),
            prim("ecdsa-p256-verify-ecdsa_nistp256_sha256", 50.0),
        ];
        let full = sample::evidence().arms[1].clone();
        let with = |f: &dyn Fn(&mut Arm)| {
            let mut a = full.clone();
            f(&mut a);
            apply(&mut a, &prims);
            (a.crypto_floor_us, a.efficiency)
        };
        assert!(with(&|_| {}).1.is_some(), "a handshake window has one");
        // The floor stays (a lower bound for any window); the share of the p50 does not.
        assert_eq!(with(&|a| a.ttfb = true), (Some(190.0), None));
        assert_eq!(with(&|a| a.rtt_ms = Some(10.0)), (Some(190.0), None));
        let open_loop = |a: &mut Arm| {
            let o = crate::measure::open_loop::test_arm("o", Mode::Full, 1.0, 1.0, vec![1.0]);
            a.capacity = o.capacity;
        };
        assert_eq!(
            with(&open_loop),
            (Some(190.0), None),
            "its p50 includes queueing"
        );
        let tls12_resumed = |a: &mut Arm| {
            a.protocol = Protocol::Tls12;
            a.mode = Mode::Resumed;
            a.resumption = Some(shared::Resumption::Ticket);
        };
        assert_eq!(with(&tls12_resumed), (Some(0.0), None), "null, not 0");
    }

    #[test]
    fn a_missing_primitive_leaves_no_floor() {
        let mut e = sample::evidence();
        apply(&mut e.arms[1], &[prim("x25519-keygen", 1.0)]);
        assert_eq!(e.arms[1].crypto_floor_us, None);
    }

    #[test]
    fn measured_primitives_are_positive() {
        let prims = measure_for(
            &[CertKind::Ed25519].into(),
            &[KxGroup::X25519Mlkem768].into(),
            20,
        )
        .unwrap();
        let names: Vec<&str> = prims.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "ed25519-sign-ed25519",
                "ed25519-verify-ed25519",
                "x25519-keygen",
                "x25519-agree",
                MLKEM_KEYGEN,
                MLKEM_ENCAPSULATE,
                MLKEM_DECAPSULATE
            ]
        );
        assert!(prims.iter().all(|p| p.median_us > 0.0 && p.ops >= 10));
    }
}
