//! What an arm is, as a typed value: one variant per kind of arm, each holding exactly the
//! parts that kind has, so code that needs an arm's certificate or group gets it from the
//! variant instead of unwrapping an `Option`. [`ArmSpec`]'s accessors give the flat view
//! (protocol, mode, resumption, cert, group, early data) the evidence records.

use shared::{CertKind, KxGroup, Mode, Protocol, Resumption};

use super::{ArmSpec, Cell, HandshakeMode, Tls};

/// The kinds of arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmKind {
    /// Plain TCP connect: no TLS.
    Connect,
    /// A TLS handshake, full or resumed, every part pinned.
    Handshake(Cell),
    /// TLS 1.3 0-RTT: a stateful resumption whose request goes out as early data.
    ZeroRtt { cert: CertKind, group: KxGroup },
    /// One full handshake, then several requests on the one connection.
    KeepAlive {
        tls: Tls,
        cert: CertKind,
        group: KxGroup,
    },
    /// A TLS arm with a part the lab does not pin: a stack's default group (Python's
    /// ssl), or the certificate of a server the lab does not run (`collector probe`).
    Unpinned(Unpinned),
}

/// An [`ArmKind::Unpinned`] arm's parts, each as far as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpinned {
    pub protocol: Protocol,
    pub mode: Mode,
    pub resumption: Option<Resumption>,
    pub cert: Option<CertKind>,
    pub group: Option<KxGroup>,
    pub early_data: bool,
}

impl ArmKind {
    /// The kind whose flat view is these parts: the most specific one that fits (parts
    /// read back from a wire message or a probe's findings).
    pub fn from_parts(u: Unpinned) -> ArmKind {
        let tls = match u.protocol {
            Protocol::Tcp => return ArmKind::Connect,
            Protocol::Tls13 => Tls::Tls13,
            Protocol::Tls12 => Tls::Tls12,
        };
        let (Some(cert), Some(group)) = (u.cert, u.group) else {
            return ArmKind::Unpinned(u);
        };
        match (u.mode, u.resumption, u.early_data) {
            (Mode::Resumed, Some(Resumption::Stateful), true) if tls == Tls::Tls13 => {
                ArmKind::ZeroRtt { cert, group }
            }
            (Mode::KeepAlive, None, false) => ArmKind::KeepAlive { tls, cert, group },
            (Mode::Full, None, false) => ArmKind::Handshake(Cell {
                tls,
                handshake: HandshakeMode::Full,
                cert,
                group,
            }),
            (Mode::Resumed, Some(r), false) => ArmKind::Handshake(Cell {
                tls,
                handshake: HandshakeMode::Resumed(r),
                cert,
                group,
            }),
            _ => ArmKind::Unpinned(u),
        }
    }

    /// The flat view: every part, `None` where this kind has none.
    pub fn parts(&self) -> Unpinned {
        match *self {
            ArmKind::Connect => Unpinned {
                protocol: Protocol::Tcp,
                mode: Mode::Connect,
                resumption: None,
                cert: None,
                group: None,
                early_data: false,
            },
            ArmKind::Handshake(c) => Unpinned {
                protocol: c.protocol(),
                mode: c.handshake.mode(),
                resumption: c.handshake.resumption(),
                cert: Some(c.cert),
                group: Some(c.group),
                early_data: false,
            },
            ArmKind::ZeroRtt { cert, group } => Unpinned {
                protocol: Protocol::Tls13,
                mode: Mode::Resumed,
                resumption: Some(Resumption::Stateful),
                cert: Some(cert),
                group: Some(group),
                early_data: true,
            },
            ArmKind::KeepAlive { tls, cert, group } => Unpinned {
                protocol: tls.protocol(),
                mode: Mode::KeepAlive,
                resumption: None,
                cert: Some(cert),
                group: Some(group),
                early_data: false,
            },
            ArmKind::Unpinned(u) => u,
        }
    }

    /// The pinned certificate and group of a TLS arm that has both.
    pub fn pinned(&self) -> Option<(CertKind, KxGroup)> {
        match *self {
            ArmKind::Handshake(c) => Some((c.cert, c.group)),
            ArmKind::ZeroRtt { cert, group } | ArmKind::KeepAlive { cert, group, .. } => {
                Some((cert, group))
            }
            ArmKind::Connect | ArmKind::Unpinned(_) => None,
        }
    }
}

impl Cell {
    /// The timing loop's arm for this cell (no fault, phases on, the run's placement).
    pub fn spec(&self) -> ArmSpec {
        ArmSpec::of(ArmKind::Handshake(*self))
    }
}

impl ArmSpec {
    /// This arm's cell, when it is a TLS handshake arm with a cert and a pinned group
    /// (not TCP, not 0-RTT, not a stack-default group).
    pub fn cell(&self) -> Option<Cell> {
        match self.kind {
            ArmKind::Handshake(c) => Some(c),
            _ => None,
        }
    }
}

impl ArmSpec {
    pub fn protocol(&self) -> Protocol {
        self.kind.parts().protocol
    }
    pub fn mode(&self) -> Mode {
        self.kind.parts().mode
    }
    pub fn resumption(&self) -> Option<Resumption> {
        self.kind.parts().resumption
    }
    pub fn cert(&self) -> Option<CertKind> {
        self.kind.parts().cert
    }
    pub fn kx_group(&self) -> Option<KxGroup> {
        self.kind.parts().group
    }
    /// 0-RTT: a resumed TLS 1.3 arm whose request goes out as early data.
    pub fn early_data(&self) -> bool {
        matches!(self.kind, ArmKind::ZeroRtt { .. })
            || matches!(self.kind, ArmKind::Unpinned(u) if u.early_data)
    }

    /// An arm of `kind` with no fault, phases on, the run's placement.
    pub const fn of(kind: ArmKind) -> ArmSpec {
        ArmSpec {
            kind,
            ..ArmSpec::TCP_CONNECT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_kinds_round_trip() {
        let mut kinds = vec![
            ArmKind::Connect,
            ArmKind::ZeroRtt {
                cert: CertKind::Ed25519,
                group: KxGroup::X25519,
            },
            ArmKind::KeepAlive {
                tls: Tls::Tls12,
                cert: CertKind::Rsa2048,
                group: KxGroup::Secp256r1,
            },
        ];
        kinds.extend(
            Cell::matrix(
                &[CertKind::EcdsaP256],
                &[KxGroup::X25519],
                &HandshakeMode::ALL,
            )
            .into_iter()
            .map(ArmKind::Handshake),
        );
        for k in kinds {
            assert_eq!(ArmKind::from_parts(k.parts()), k, "{k:?}");
        }
        // Python's arms: the stack's default group stays unpinned.
        let python = Unpinned {
            group: None,
            ..ArmKind::Handshake(Cell {
                tls: Tls::Tls13,
                handshake: HandshakeMode::Full,
                cert: CertKind::Rsa2048,
                group: KxGroup::X25519,
            })
            .parts()
        };
        assert_eq!(ArmKind::from_parts(python), ArmKind::Unpinned(python));
        assert_eq!(ArmKind::Unpinned(python).pinned(), None);
    }

    #[test]
    fn ids_are_what_they_were() {
        let zero = ArmSpec::of(ArmKind::ZeroRtt {
            cert: CertKind::EcdsaP256,
            group: KxGroup::X25519,
        });
        assert_eq!(zero.id(), "tls13-0rtt-ecdsa-p256-x25519");
        let ka = ArmSpec::of(ArmKind::KeepAlive {
            tls: Tls::Tls12,
            cert: CertKind::Rsa2048,
            group: KxGroup::X25519,
        });
        assert_eq!(ka.id(), "tls12-keepalive-rsa2048-x25519");
        assert_eq!(ArmSpec::TCP_CONNECT.id(), "tcp-connect");
    }
}
