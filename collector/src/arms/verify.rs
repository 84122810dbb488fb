//! Per-connection checks: did this connection do what its arm promises?

use shared::{Mode, Protocol};

use crate::arms::{ArmSpec, Handshake, Outcome};

/// Every way `outcome` breaks `arm`'s promise (empty when it kept it). With
/// `server_reports` false (an external peer server) only the client's report is checked.
pub fn check(arm: &ArmSpec, outcome: &Outcome, server_reports: bool) -> Vec<String> {
    if arm.protocol() == Protocol::Tcp {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let sides = [("client", &outcome.client), ("server", &outcome.server)];
    for (side, facts) in sides.into_iter().take(if server_reports { 2 } else { 1 }) {
        match facts {
            None => problems.push(format!("{side} reported no handshake")),
            Some(h) => check_side(arm, side, h, &mut problems),
        }
    }
    problems
}

/// Every way one end's report breaks `arm`'s promise.
pub fn check_side(arm: &ArmSpec, side: &str, h: &Handshake, problems: &mut Vec<String>) {
    if arm.early_data() && h.early_data.is_none_or(|(_, accepted)| !accepted) {
        problems.push(format!("{side} did not accept early data (0-RTT)"));
    }
    if h.expected_cert == Some(false) {
        problems.push(format!(
            "{side} saw a certificate other than the arm's {:?} leaf",
            arm.cert()
        ));
    }
    let expected_kind = match arm.mode() {
        Mode::Resumed => rustls::HandshakeKind::Resumed,
        _ => rustls::HandshakeKind::Full,
    };
    if h.kind != expected_kind {
        problems.push(format!(
            "{side} reported a {} handshake, expected {}",
            kind_name(h.kind),
            kind_name(expected_kind)
        ));
    }
    let expected_version = match arm.protocol() {
        Protocol::Tls12 => rustls::ProtocolVersion::TLSv1_2,
        _ => rustls::ProtocolVersion::TLSv1_3,
    };
    if h.protocol != Some(expected_version) {
        problems.push(format!(
            "{side} negotiated {:?}, expected {expected_version:?}",
            h.protocol
        ));
    }
    // A TLS 1.2 resumption runs no key exchange; every other handshake must use the pinned group.
    let needs_kx = !(arm.protocol() == Protocol::Tls12 && h.kind == rustls::HandshakeKind::Resumed);
    if let Some(pinned) = arm.kx_group().filter(|_| needs_kx) {
        let want = named_group(pinned);
        if h.kx_group != Some(want) {
            problems.push(format!(
                "{side} key exchange was {:?}, expected {want:?}",
                h.kx_group
            ));
        }
    }
}

fn kind_name(k: rustls::HandshakeKind) -> &'static str {
    match k {
        rustls::HandshakeKind::Full => "full",
        rustls::HandshakeKind::FullWithHelloRetryRequest => "full (with HelloRetryRequest)",
        rustls::HandshakeKind::Resumed => "resumed",
    }
}

pub fn named_group(g: shared::KxGroup) -> rustls::NamedGroup {
    match g {
        shared::KxGroup::X25519 => rustls::NamedGroup::X25519,
        shared::KxGroup::Secp256r1 => rustls::NamedGroup::secp256r1,
        shared::KxGroup::Secp384r1 => rustls::NamedGroup::secp384r1,
        shared::KxGroup::X25519Mlkem768 => rustls::NamedGroup::X25519MLKEM768,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use shared::{CertKind, KxGroup, Resumption};

    use super::*;
    use crate::arms::Fault;

    fn arm(protocol: Protocol, mode: Mode) -> ArmSpec {
        ArmSpec {
            kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
                protocol,
                mode,
                resumption: (mode == Mode::Resumed).then_some(Resumption::Ticket),
                cert: Some(CertKind::EcdsaP256),
                group: Some(KxGroup::X25519),
                early_data: false,
            }),
            fault: Fault::None,
            phases: crate::arms::PhaseRecording::On,
            cpu: None,
        }
    }

    fn outcome(
        kind: rustls::HandshakeKind,
        v: rustls::ProtocolVersion,
        g: Option<rustls::NamedGroup>,
    ) -> Outcome {
        let h = Handshake {
            kind,
            protocol: Some(v),
            kx_group: g,
            cipher_suite: None,
            expected_cert: Some(true),
            early_data: None,
            trace: None,
            cpu: None,
            wire: None,
        };
        Outcome {
            elapsed: Duration::ZERO,
            connect: Duration::ZERO,
            cycle: Duration::ZERO,
            client: Some(h.clone()),
            server: Some(h),
            keepalive: None,
            tcp: None,
        }
    }

    use rustls::HandshakeKind::{Full, Resumed};
    use rustls::NamedGroup::{secp256r1, X25519};
    use rustls::ProtocolVersion::{TLSv1_2, TLSv1_3};

    #[test]
    fn kept_promises_pass() {
        assert!(check(
            &arm(Protocol::Tls13, Mode::Full),
            &outcome(Full, TLSv1_3, Some(X25519)),
            true,
        )
        .is_empty());
        assert!(check(
            &arm(Protocol::Tls13, Mode::Resumed),
            &outcome(Resumed, TLSv1_3, Some(X25519)),
            true,
        )
        .is_empty());
        // TLS 1.2 resumption has no key exchange to check.
        assert!(check(
            &arm(Protocol::Tls12, Mode::Resumed),
            &outcome(Resumed, TLSv1_2, None),
            true
        )
        .is_empty());
    }

    #[test]
    fn a_resumed_arm_that_did_not_resume_is_flagged_on_both_ends() {
        let p = check(
            &arm(Protocol::Tls13, Mode::Resumed),
            &outcome(Full, TLSv1_3, Some(X25519)),
            true,
        );
        assert_eq!(
            p,
            vec![
                "client reported a full handshake, expected resumed",
                "server reported a full handshake, expected resumed"
            ]
        );
    }

    #[test]
    fn a_full_arm_that_resumed_is_flagged() {
        let p = check(
            &arm(Protocol::Tls12, Mode::Full),
            &outcome(Resumed, TLSv1_2, Some(X25519)),
            true,
        );
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn wrong_group_or_version_is_flagged() {
        let p = check(
            &arm(Protocol::Tls13, Mode::Full),
            &outcome(Full, TLSv1_3, Some(secp256r1)),
            true,
        );
        assert!(p[0].contains("key exchange"), "{p:?}");
        let p = check(
            &arm(Protocol::Tls13, Mode::Full),
            &outcome(Full, TLSv1_2, Some(X25519)),
            true,
        );
        assert!(p[0].contains("negotiated"), "{p:?}");
    }

    #[test]
    fn a_foreign_certificate_is_flagged() {
        let mut o = outcome(Full, TLSv1_3, Some(X25519));
        o.client.as_mut().unwrap().expected_cert = Some(false);
        let p = check(&arm(Protocol::Tls13, Mode::Full), &o, true);
        assert!(p[0].contains("certificate other than"), "{p:?}");
    }

    #[test]
    fn only_a_server_that_cannot_report_is_excused_from_reporting() {
        let mut o = outcome(Full, TLSv1_3, Some(X25519));
        o.server = None;
        assert!(check(&arm(Protocol::Tls13, Mode::Full), &o, false).is_empty());
        // The client's report is still checked in full.
        o.client.as_mut().unwrap().kind = Resumed;
        assert_eq!(
            check(&arm(Protocol::Tls13, Mode::Full), &o, false),
            vec!["client reported a resumed handshake, expected full"]
        );
    }

    #[test]
    fn refused_early_data_is_flagged_on_each_end_that_refused() {
        let zero_rtt = ArmSpec::of(crate::arms::ArmKind::ZeroRtt {
            cert: CertKind::EcdsaP256,
            group: KxGroup::X25519,
        });
        let mut o = outcome(Resumed, TLSv1_3, Some(X25519));
        o.client.as_mut().unwrap().early_data = Some((true, true));
        o.server.as_mut().unwrap().early_data = Some((true, true));
        assert!(check(&zero_rtt, &o, true).is_empty());
        // Offered, but the server refused it: both ends say so.
        o.client.as_mut().unwrap().early_data = Some((true, false));
        o.server.as_mut().unwrap().early_data = Some((false, false));
        assert_eq!(
            check(&zero_rtt, &o, true),
            vec![
                "client did not accept early data (0-RTT)",
                "server did not accept early data (0-RTT)"
            ]
        );
        // An end that says nothing about early data did not accept it either.
        o.client.as_mut().unwrap().early_data = Some((true, true));
        o.server.as_mut().unwrap().early_data = None;
        assert_eq!(
            check(&zero_rtt, &o, true),
            vec!["server did not accept early data (0-RTT)"]
        );
    }

    #[test]
    fn a_hello_retry_on_a_full_arm_is_named_as_such() {
        // The group is pinned on both ends, so a HelloRetryRequest means the handshake
        // was not the one the arm measures (an extra round trip): flagged, by name.
        let o = outcome(
            rustls::HandshakeKind::FullWithHelloRetryRequest,
            TLSv1_3,
            Some(X25519),
        );
        assert_eq!(
            check(&arm(Protocol::Tls13, Mode::Full), &o, true),
            vec![
                "client reported a full (with HelloRetryRequest) handshake, expected full",
                "server reported a full (with HelloRetryRequest) handshake, expected full"
            ]
        );
    }

    #[test]
    fn missing_server_report_is_flagged() {
        let mut o = outcome(Full, TLSv1_3, Some(X25519));
        o.server = None;
        assert_eq!(
            check(&arm(Protocol::Tls13, Mode::Full), &o, true),
            vec!["server reported no handshake"]
        );
    }
}
