//! One cell of the handshake matrix, as a typed value: a TLS version, full or resumed (and
//! how), a certificate and a key-exchange group, every part known. The matrix loop
//! (cert × group × protocol × handshake) is written once, here ([`Cell::matrix`]); the
//! rustls arms and every peer stack plan their handshake arms from it.

use std::fmt;

use shared::{CertKind, KxGroup, Mode, Protocol, Resumption};

/// A TLS version (the cell of a TLS arm cannot be plain TCP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tls {
    Tls13,
    Tls12,
}

impl Tls {
    /// TLS 1.3 first: the order arms are planned in.
    pub const BOTH: [Tls; 2] = [Tls::Tls13, Tls::Tls12];

    pub fn protocol(self) -> Protocol {
        match self {
            Tls::Tls13 => Protocol::Tls13,
            Tls::Tls12 => Protocol::Tls12,
        }
    }

    /// `tls13` / `tls12`, as in arm ids and file names.
    pub fn short(self) -> &'static str {
        match self {
            Tls::Tls13 => "tls13",
            Tls::Tls12 => "tls12",
        }
    }
}

/// Whether a handshake is full or resumed, and how it resumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HandshakeMode {
    Full,
    Resumed(Resumption),
}

impl HandshakeMode {
    /// Full, resumed from server state, resumed from a ticket: the rustls arms' set.
    pub const ALL: [HandshakeMode; 3] = [
        HandshakeMode::Full,
        HandshakeMode::Resumed(Resumption::Stateful),
        HandshakeMode::Resumed(Resumption::Ticket),
    ];
    /// Full and ticket resumption: for servers that resume only from tickets.
    pub const FULL_AND_TICKET: [HandshakeMode; 2] = [
        HandshakeMode::Full,
        HandshakeMode::Resumed(Resumption::Ticket),
    ];

    pub fn mode(self) -> Mode {
        match self {
            HandshakeMode::Full => Mode::Full,
            HandshakeMode::Resumed(_) => Mode::Resumed,
        }
    }

    pub fn resumption(self) -> Option<Resumption> {
        match self {
            HandshakeMode::Full => None,
            HandshakeMode::Resumed(r) => Some(r),
        }
    }
}

/// One TLS handshake arm's identity: version, handshake, certificate and group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    pub tls: Tls,
    pub handshake: HandshakeMode,
    pub cert: CertKind,
    pub group: KxGroup,
}

impl Cell {
    /// Every cell of cert × group × (TLS 1.3, TLS 1.2) × `handshakes`, in that nesting
    /// order; TLS 1.2 skips the groups it cannot negotiate ([`tls13_only`]) and the
    /// certificates it cannot sign with ([`tls13_only_cert`]: ML-DSA).
    pub fn matrix(
        certs: &[CertKind],
        groups: &[KxGroup],
        handshakes: &[HandshakeMode],
    ) -> Vec<Cell> {
        let mut out = Vec::new();
        for &cert in certs {
            for &group in groups {
                for tls in Tls::BOTH {
                    if tls == Tls::Tls12 && (tls13_only(group) || tls13_only_cert(cert)) {
                        continue;
                    }
                    out.extend(handshakes.iter().map(|&handshake| Cell {
                        tls,
                        handshake,
                        cert,
                        group,
                    }));
                }
            }
        }
        out
    }

    pub fn protocol(&self) -> Protocol {
        self.tls.protocol()
    }

    /// The same cell with a full handshake (a server's readiness probe, a base arm).
    pub fn full(self) -> Cell {
        Cell {
            handshake: HandshakeMode::Full,
            ..self
        }
    }
}

impl fmt::Display for Cell {
    /// The cell's part of an arm id, e.g. `tls13-resumed-ticket-rsa2048-x25519`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.spec(), f)
    }
}

/// Groups TLS 1.2 cannot negotiate.
pub fn tls13_only(group: KxGroup) -> bool {
    matches!(group, KxGroup::X25519Mlkem768)
}

/// Certificates TLS 1.2 cannot sign with: ML-DSA has TLS 1.3 signature schemes only.
pub fn tls13_only_cert(cert: CertKind) -> bool {
    !crate::certs::tls12_capable(cert)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arms::ArmSpec;

    #[test]
    fn the_matrix_nests_cert_group_version_handshake_and_skips_tls12_hybrids() {
        let cells = Cell::matrix(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519, KxGroup::X25519Mlkem768],
            &HandshakeMode::FULL_AND_TICKET,
        );
        // Per cert: x25519 × 2 versions × 2 + the hybrid × TLS 1.3 × 2.
        assert_eq!(cells.len(), 2 * (4 + 2));
        assert!(!cells
            .iter()
            .any(|c| c.tls == Tls::Tls12 && c.group == KxGroup::X25519Mlkem768));
        assert_eq!(
            cells[1].to_string(),
            "tls13-resumed-ticket-rsa2048-x25519",
            "{cells:?}"
        );
        assert_eq!(cells[2].to_string(), "tls12-full-rsa2048-x25519");
        let pq = Cell::matrix(
            &[CertKind::MlDsa65],
            &[KxGroup::X25519],
            &[HandshakeMode::Full],
        );
        assert_eq!(pq.len(), 1, "ML-DSA: TLS 1.3 only: {pq:?}");
        assert_eq!(pq[0].tls, Tls::Tls13);
    }

    #[test]
    fn a_cell_and_its_spec_round_trip() {
        for c in Cell::matrix(
            &[CertKind::Ed25519],
            &[KxGroup::Secp256r1],
            &HandshakeMode::ALL,
        ) {
            assert_eq!(c.spec().cell(), Some(c));
        }
        assert_eq!(ArmSpec::TCP_CONNECT.cell(), None);
    }
}
