//! Which peer arms a run has: each is a value with a stable id.

use shared::{Arm, CertKind, KxGroup, Mode, Protocol, Resumption, Stack};

use crate::arms::openssl::STimeMode;
use crate::arms::{self, python, ArmSpec};
use crate::evidence::build_arm;
use crate::measure::ArmRun;

/// A peer tool, as looked up on PATH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    Openssl,
    Python,
}

impl Tool {
    pub fn program(self) -> &'static str {
        match self {
            Tool::Openssl => "openssl",
            Tool::Python => "python3",
        }
    }
}

/// Which server an s_time arm connects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum STimeServer {
    SServer,
    Rustls,
}

/// One peer arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerArm {
    /// `openssl s_time` (a rate-only arm). `spec` carries protocol, mode, resumption
    /// kind, cert and group.
    STime {
        spec: ArmSpec,
        mode: STimeMode,
        server: STimeServer,
    },
    /// The rustls client against `openssl s_server` (a latency arm).
    RustlsToSServer(ArmSpec),
    /// Python's ssl module, client and server (a latency arm).
    Python(ArmSpec),
}

impl PeerArm {
    pub fn spec(&self) -> ArmSpec {
        match *self {
            PeerArm::STime { spec, .. }
            | PeerArm::RustlsToSServer(spec)
            | PeerArm::Python(spec) => spec,
        }
    }

    pub fn tool(&self) -> Tool {
        match self {
            PeerArm::Python(_) => Tool::Python,
            _ => Tool::Openssl,
        }
    }

    /// E.g. `s_time-tls13-reuse-www-rsa2048-x25519-vs-s_server`,
    /// `rustls-vs-s_server-tls12-resumed-ticket-ecdsa-p256-x25519`, `python-tcp-connect`.
    pub fn id(&self) -> String {
        match *self {
            PeerArm::STime { spec, mode, server } => format!(
                "s_time-{}-{}-{}-{}-vs-{}",
                if spec.protocol == Protocol::Tls12 {
                    "tls12"
                } else {
                    "tls13"
                },
                match mode {
                    STimeMode::New => "new",
                    STimeMode::Reuse => "reuse",
                    STimeMode::ReuseWww => "reuse-www",
                },
                spec.cert.map_or("?", CertKind::as_str),
                spec.kx_group.map_or("?", KxGroup::as_str),
                match server {
                    STimeServer::SServer => "s_server",
                    STimeServer::Rustls => "rustls",
                }
            ),
            PeerArm::RustlsToSServer(spec) => format!("rustls-vs-s_server-{spec}"),
            PeerArm::Python(spec) => format!("python-{spec}"),
        }
    }

    /// (stack label, client stack, server stack).
    pub fn stacks(&self) -> (Stack, Stack, Stack) {
        match *self {
            PeerArm::STime { server, .. } => (
                Stack::OpensslSTime,
                Stack::OpensslSTime,
                match server {
                    STimeServer::SServer => Stack::OpensslSServer,
                    STimeServer::Rustls => Stack::Rustls,
                },
            ),
            PeerArm::RustlsToSServer(_) => {
                (Stack::OpensslSServer, Stack::Rustls, Stack::OpensslSServer)
            }
            PeerArm::Python(_) => (Stack::PythonSsl, Stack::PythonSsl, Stack::PythonSsl),
        }
    }

    pub fn timed_window(&self) -> String {
        match *self {
            PeerArm::STime { mode, server, .. } => format!(
                "rate only: openssl s_time's own connect-handshake{} cycle in a loop, one process per slice; connections = its progress characters after the first (`*` new, `r` reused), real seconds = from the collector reading that first character to killing the process, user CPU = the process's whole user time (wait4), start-up and, for -reuse, the untimed priming connection included; server: {}",
                if mode == STimeMode::ReuseWww { "-request-read (GET /x, 1-byte body)" } else { "-close (no read)" },
                match server {
                    STimeServer::SServer => "openssl s_server -WWW, one process, one connection at a time",
                    STimeServer::Rustls => "the collector's rustls server (one thread), which reports each handshake's kind",
                }
            ),
            PeerArm::RustlsToSServer(spec) => format!(
                "{} Server: openssl s_server -WWW (a separate process) gives no per-connection report, so resumption is counted by the rustls client only and resumed.server is 0 by construction; after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it)",
                spec.timed_window(false)
            ),
            PeerArm::Python(spec) if spec.protocol == Protocol::Tcp => python::TCP_WINDOW.into(),
            PeerArm::Python(_) => python::TIMED_WINDOW.into(),
        }
    }

    /// Why this arm cannot work at all, known before running it.
    pub fn known_skip(&self) -> Option<String> {
        let PeerArm::RustlsToSServer(spec) = *self else {
            return None;
        };
        let curve = match spec.cert? {
            CertKind::EcdsaP256 => KxGroup::Secp256r1,
            CertKind::EcdsaP384 => KxGroup::Secp384r1,
            _ => return None,
        };
        (spec.protocol == Protocol::Tls12 && spec.kx_group != Some(curve)).then(|| format!(
            "under TLS 1.2 OpenSSL uses an ECDSA certificate only if the client lists its curve ({curve}) in supported_groups (RFC 8422); the rustls client pins the group to {}, so s_server refuses the handshake (HandshakeFailure)",
            spec.kx_group.map_or("?", KxGroup::as_str)
        ))
    }

    /// The evidence record of a measured latency arm: the shared statistics of `run`,
    /// under this arm's identity (id, stacks, window, peer version).
    pub fn measured_arm(&self, peer_version: Option<String>, run: &ArmRun) -> Arm {
        let who = self.empty_arm(peer_version);
        Arm {
            id: who.id,
            stack: who.stack,
            client_stack: who.client_stack,
            server_stack: who.server_stack,
            timed_window: who.timed_window,
            peer_version: who.peer_version,
            ..build_arm(run)
        }
    }

    /// The arm's evidence record before anything is measured: nothing attempted.
    pub fn empty_arm(&self, peer_version: Option<String>) -> Arm {
        let mut arm = build_arm(&ArmRun::new(self.spec(), 0));
        let (stack, client, server) = self.stacks();
        arm.id = self.id();
        arm.stack = stack;
        arm.client_stack = client;
        arm.server_stack = server;
        arm.peer_version = peer_version;
        arm.timed_window = self.timed_window();
        arm
    }
}

/// Every peer arm for these certs and groups, before `--arms` filtering. s_time and
/// s_server pin `group` (the first of --groups OpenSSL 3.0 knows; None: no OpenSSL arms).
pub fn plan(certs: &[CertKind], group: Option<KxGroup>) -> Vec<PeerArm> {
    let mut out = Vec::new();
    if let Some(group) = group {
        for &cert in certs {
            for server in [STimeServer::SServer, STimeServer::Rustls] {
                // s_server issues tickets; the rustls server (defaults, no ticketer)
                // resumes from its session cache.
                let resumption = match server {
                    STimeServer::SServer => Resumption::Ticket,
                    STimeServer::Rustls => Resumption::Stateful,
                };
                for protocol in [Protocol::Tls13, Protocol::Tls12] {
                    let mut modes = vec![STimeMode::New, STimeMode::Reuse];
                    if protocol == Protocol::Tls13 {
                        modes.push(STimeMode::ReuseWww);
                    }
                    for mode in modes {
                        let resumed = mode != STimeMode::New;
                        let spec = ArmSpec {
                            protocol,
                            mode: if resumed { Mode::Resumed } else { Mode::Full },
                            resumption: resumed.then_some(resumption),
                            cert: Some(cert),
                            kx_group: Some(group),
                            ..ArmSpec::TCP_CONNECT
                        };
                        out.push(PeerArm::STime { spec, mode, server });
                    }
                }
            }
            for protocol in [Protocol::Tls13, Protocol::Tls12] {
                for (mode, resumption) in [
                    (Mode::Full, None),
                    (Mode::Resumed, Some(Resumption::Ticket)),
                ] {
                    out.push(PeerArm::RustlsToSServer(ArmSpec {
                        protocol,
                        mode,
                        resumption,
                        cert: Some(cert),
                        kx_group: Some(group),
                        ..ArmSpec::TCP_CONNECT
                    }));
                }
            }
        }
    }
    out.extend(python::arms(certs).into_iter().map(PeerArm::Python));
    out
}

/// The peer arms `--arms` keeps (all of them without a filter).
pub fn filtered(all: Vec<PeerArm>, filter: Option<&str>) -> Vec<PeerArm> {
    match filter {
        None => all,
        Some(f) => all
            .into_iter()
            .filter(|a| arms::id_matches(&a.id(), f))
            .collect(),
    }
}

/// The group the OpenSSL arms pin: the first of `groups` OpenSSL 3.0 can negotiate.
pub fn openssl_group(groups: &[KxGroup]) -> Option<KxGroup> {
    groups
        .iter()
        .copied()
        .find(|&g| crate::arms::openssl::group_name(g).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_has_every_arm_of_the_issue_with_unique_ids() {
        let arms = plan(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            Some(KxGroup::X25519),
        );
        let ids: Vec<String> = arms.iter().map(PeerArm::id).collect();
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        // Per cert: 5 s_time arms × 2 servers, 4 rustls→s_server arms; Python: 1 + 4 per cert.
        assert_eq!(ids.len(), 2 * (10 + 4) + 1 + 2 * 4);
        for id in [
            "s_time-tls13-reuse-rsa2048-x25519-vs-s_server",
            "s_time-tls13-reuse-www-ecdsa-p256-x25519-vs-rustls",
            "s_time-tls12-new-rsa2048-x25519-vs-rustls",
            "rustls-vs-s_server-tls13-resumed-ticket-rsa2048-x25519",
            "python-tcp-connect",
            "python-tls12-resumed-ticket-ecdsa-p256",
        ] {
            assert!(ids.iter().any(|i| i == id), "{id} missing from {ids:#?}");
        }
        let python_only = plan(&[CertKind::Rsa2048], None);
        assert!(python_only.iter().all(|a| a.tool() == Tool::Python));
        assert_eq!(filtered(arms.clone(), Some("python-tls13")).len(), 4);
        let skipped: Vec<String> = arms
            .iter()
            .filter(|a| a.known_skip().is_some())
            .map(PeerArm::id)
            .collect();
        assert_eq!(
            skipped,
            [
                "rustls-vs-s_server-tls12-full-ecdsa-p256-x25519",
                "rustls-vs-s_server-tls12-resumed-ticket-ecdsa-p256-x25519"
            ]
        );
    }

    #[test]
    fn openssl_group_skips_the_hybrid() {
        assert_eq!(
            openssl_group(&[KxGroup::X25519Mlkem768, KxGroup::Secp256r1]),
            Some(KxGroup::Secp256r1)
        );
        assert_eq!(openssl_group(&[KxGroup::X25519Mlkem768]), None);
    }
}
