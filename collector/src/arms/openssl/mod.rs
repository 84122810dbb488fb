//! OpenSSL as a peer: `openssl s_server` (a process on 127.0.0.1 serving the run's
//! certificate, [`s_server`]), `openssl s_time` (run for a fixed slice of wall time, its
//! per-connection progress characters counted, [`s_time`] and [`s_time_output`]), the
//! rustls ends that face them, and the rate arms' evidence ([`rate`]). [`run`] runs them.

pub mod rate;
pub mod run;
pub mod s_server;
pub mod s_time;
pub mod s_time_output;

use std::path::Path;

use anyhow::Result;
use shared::{Arm, CertKind, Comparison, KxGroup, Mode, Protocol, Resumption, Stack};

use super::{ArmKind, ArmSpec, Cell, HandshakeMode, Unpinned};
use crate::arms::peer::servers::rustls_arm;
use crate::arms::peer::{ask_version, first_line};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool};
use crate::arms::Plan;
use crate::stats;
pub use s_time::STimeMode;

/// The file s_server serves (`-WWW`) and its content: one byte, like the rustls arms.
pub const WWW_FILE: &str = "x";
/// The request path s_time and the rustls client ask for.
pub const WWW_PATH: &str = "/x";
const RESPONSE: &[u8] = b"HTTP/1.0 200 ok\r\nContent-type: text/plain\r\n\r\nx";

/// The `openssl` program: s_server and s_time.
pub const OPENSSL: Tool = Tool {
    program: "openssl",
    version,
};

/// `openssl version`'s first line, e.g. `OpenSSL 3.0.19 27 Jan 2026 (Library: ...)`.
pub fn version(program: &Path) -> Result<String> {
    let (out, _) = ask_version(program, &["version"])?;
    first_line(program, &out)
}

/// OpenSSL's name for a group, or None where OpenSSL 3.0 has none (the ML-KEM hybrid).
pub fn group_name(g: KxGroup) -> Option<&'static str> {
    match g {
        KxGroup::X25519 => Some("X25519"),
        KxGroup::Secp256r1 => Some("P-256"),
        KxGroup::Secp384r1 => Some("P-384"),
        KxGroup::X25519Mlkem768 => None,
    }
}

/// The group the OpenSSL arms pin: the first of `groups` OpenSSL 3.0 can negotiate.
pub fn openssl_group(groups: &[KxGroup]) -> Option<KxGroup> {
    groups.iter().copied().find(|&g| group_name(g).is_some())
}

/// The server an s_time arm connects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct STimeTarget {
    /// Its name in arm ids (`s_server`, `rustls`, `nginx`).
    pub name: &'static str,
    pub stack: Stack,
    /// How it runs, for the arm's timed window.
    pub window: &'static str,
}

pub const VS_S_SERVER: STimeTarget = STimeTarget {
    name: "s_server",
    stack: Stack::OpensslSServer,
    window: "openssl s_server -WWW, one process, one connection at a time",
};
pub const VS_RUSTLS: STimeTarget = STimeTarget {
    name: "rustls",
    stack: Stack::Rustls,
    window: "the collector's rustls server (one thread), which reports each handshake's kind",
};

/// An `openssl s_time` arm (rate only), against any server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct STimeArm {
    pub mode: STimeMode,
    pub server: STimeTarget,
}

impl STimeArm {
    /// E.g. `s_time-tls13-reuse-www-rsa2048-x25519-vs-s_server`.
    pub fn id(&self, spec: &ArmSpec) -> String {
        format!(
            "s_time-{}-{}-{}-{}-vs-{}",
            if spec.protocol() == Protocol::Tls12 {
                "tls12"
            } else {
                "tls13"
            },
            self.mode.as_str(),
            spec.cert().map_or("?", CertKind::as_str),
            spec.kx_group().map_or("?", KxGroup::as_str),
            self.server.name
        )
    }

    pub fn timed_window(&self) -> String {
        format!(
            "rate only: openssl s_time's own connect-handshake{} cycle in a loop, one process per slice; connections = its progress characters after the first (`*` new, `r` reused), real seconds = from the collector reading that first character to killing the process, user CPU = the process's whole user time (wait4), start-up and, for -reuse, the untimed priming connection included; server: {}",
            if self.mode.www() { "-request-read (GET /x, 1-byte body)" } else { "-close (no read)" },
            self.server.window
        )
    }

    /// The peer arm, planned by `stack`, needing `tools`.
    pub fn peer_arm(self, stack: &'static str, spec: ArmSpec, tools: Vec<Tool>) -> PeerArm {
        PeerArm::new(
            stack,
            self.id(&spec),
            spec,
            (Stack::OpensslSTime, Stack::OpensslSTime, self.server.stack),
            tools,
            self.timed_window(),
            self,
        )
    }
}

/// The spec of an s_time arm: resumed (with `resumption`) when `mode` reuses.
pub fn s_time_spec(
    protocol: Protocol,
    mode: STimeMode,
    resumption: Resumption,
    cert: CertKind,
    group: KxGroup,
) -> ArmSpec {
    ArmSpec::of(ArmKind::from_parts(Unpinned {
        protocol,
        mode: if mode.reuses() {
            Mode::Resumed
        } else {
            Mode::Full
        },
        resumption: mode.reuses().then_some(resumption),
        cert: Some(cert),
        group: Some(group),
        early_data: false,
    }))
}

/// The OpenSSL stack: s_time against s_server and against rustls, and the rustls client
/// against s_server.
pub struct Peer;

pub const NAME: &str = "openssl";

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn counts_servers(&self) -> bool {
        crate::arms::peer::servers::ServerStack::counts_under(self)
    }
    fn no_ml_dsa(&self) -> Option<&'static str> {
        Some("s_server and s_time load ML-DSA keys through OpenSSL, which has ML-DSA from 3.5 on")
    }

    /// s_time and s_server pin the first of `groups` OpenSSL 3.0 knows (none: no arms).
    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        let mut out = Vec::new();
        let Some(group) = openssl_group(groups) else {
            return out;
        };
        for &cert in certs {
            for server in [VS_S_SERVER, VS_RUSTLS] {
                // s_server issues tickets; the rustls server (defaults, no ticketer)
                // resumes from its session cache.
                let resumption = if server == VS_S_SERVER {
                    Resumption::Ticket
                } else {
                    Resumption::Stateful
                };
                for protocol in [Protocol::Tls13, Protocol::Tls12] {
                    let mut modes = vec![STimeMode::New, STimeMode::Reuse];
                    if protocol == Protocol::Tls13 {
                        modes.push(STimeMode::ReuseWww);
                    }
                    for mode in modes {
                        let spec = s_time_spec(protocol, mode, resumption, cert, group);
                        out.push(STimeArm { mode, server }.peer_arm(NAME, spec, vec![OPENSSL]));
                    }
                }
            }
            for cell in Cell::matrix(&[cert], &[group], &HandshakeMode::FULL_AND_TICKET) {
                let mut arm = rustls_arm(NAME, "s_server", Stack::OpensslSServer, vec![OPENSSL], cell, "openssl s_server -WWW (a separate process) gives no per-connection report, so resumption is counted by the rustls client only and the server's end is unverified (verified.server); after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it)");
                arm.known_skip = ecdsa_tls12_skip(&arm.spec);
                out.push(arm);
            }
        }
        out
    }

    fn run(
        &self,
        w: &crate::arms::peer::Work,
        idx: &[usize],
        records: &mut [Option<Arm>],
    ) -> Result<()> {
        run::run(w, idx, records)
    }

    fn comparisons(
        &self,
        plan: &[PeerArm],
        arms: &[Arm],
        resamples: usize,
        seed: u64,
    ) -> Vec<Comparison> {
        rate::comparisons(plan, arms, resamples, seed)
    }

    fn settings(&self, args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![
            ("peer_s_time", format!("{} s of s_time per arm in {} slices of {:.3} s, interleaved across arms in an order shuffled per slice from the seed; s_time -connect 127.0.0.1 -tls1_3|-tls1_2 -new|-reuse [-www /x] -time 3600, stopped by the collector with SIGKILL (s_time itself stops only on whole wall-clock seconds); connections and resumptions are its per-connection progress characters (`*` new, `r` reused) after the first; real seconds from the collector reading the first one to the kill (read in 20 ms batches after the first); user CPU is the process's whole user time from wait4 (start-up, certificate loading and -reuse's untimed priming connection included, which s_time's own figure leaves out); s_time's default verification (nothing enforced)", args.peer_seconds, args.peer_slices, args.peer_seconds / args.peer_slices as f64)),
            ("peer_s_server", "openssl s_server -accept 127.0.0.1:<port> -WWW -quiet -groups <the arms' group> with the run's leaf certificate and key (PEM in a private temporary folder, 0700/0600, removed at the end), serving one 1-byte file /x; one process per certificate, one connection at a time, default session cache and 2 TLS 1.3 tickets; confirmed ready by one untimed full rustls handshake that must present the run's leaf (before any warm-up)".into()),
            ("peer_rustls_server_for_s_time", "the collector's rustls server config for the arm's version, cert and group (defaults: 256-entry session cache, no ticketer, so resumption is stateful), one thread; answers a request (-www) with a 1-byte body and closes".into()),
            ("peer_rate_comparison", "resume_rate_speedup = rate(-reuse arm) / rate(-new arm) of the same version, cert, group and server, per real second and per user-CPU second of the s_time client process, only where every -reuse connection resumed. The TLS 1.3 -reuse-www arm also writes a request and reads a 1-byte answer per connection, which its -new baseline does not (against s_server and rustls): the ratio slightly understates resumption's gain".into()),
            ("peer_rate_ci_method", stats::RATE_CI_METHOD.into()),
        ]
    }
}

/// Under TLS 1.2, OpenSSL uses an ECDSA certificate only if the client lists its curve.
pub fn ecdsa_tls12_skip(spec: &ArmSpec) -> Option<String> {
    let curve = match spec.cert()? {
        CertKind::EcdsaP256 => KxGroup::Secp256r1,
        CertKind::EcdsaP384 => KxGroup::Secp384r1,
        _ => return None,
    };
    (spec.protocol() == Protocol::Tls12 && spec.kx_group() != Some(curve)).then(|| format!(
        "under TLS 1.2 OpenSSL uses an ECDSA certificate only if the client lists its curve ({curve}) in supported_groups (RFC 8422); the rustls client pins the group to {}, so the OpenSSL server refuses the handshake (HandshakeFailure)",
        spec.kx_group().map_or("?", KxGroup::as_str)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_has_every_arm_of_the_issue_with_unique_ids() {
        let arms = Peer.plan(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519],
        );
        let ids: Vec<&str> = arms.iter().map(|a| a.id.as_str()).collect();
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        // Per cert: 5 s_time arms × 2 servers, 4 rustls→s_server arms.
        assert_eq!(ids.len(), 2 * (10 + 4));
        for id in [
            "s_time-tls13-reuse-rsa2048-x25519-vs-s_server",
            "s_time-tls13-reuse-www-ecdsa-p256-x25519-vs-rustls",
            "s_time-tls12-new-rsa2048-x25519-vs-rustls",
            "rustls-vs-s_server-tls13-resumed-ticket-rsa2048-x25519",
        ] {
            assert!(ids.contains(&id), "{id} missing from {ids:#?}");
        }
        assert!(arms
            .iter()
            .all(|a| a.tools.iter().any(|t| t.program == "openssl")));
        assert_eq!(
            crate::peers::plan::filtered(arms.clone(), Some("s_time-tls13-reuse-www")).len(),
            4
        );
        let skipped: Vec<&str> = arms
            .iter()
            .filter(|a| a.known_skip.is_some())
            .map(|a| a.id.as_str())
            .collect();
        assert_eq!(
            skipped,
            [
                "rustls-vs-s_server-tls12-full-ecdsa-p256-x25519",
                "rustls-vs-s_server-tls12-resumed-ticket-ecdsa-p256-x25519"
            ]
        );
        assert!(Peer
            .plan(&[CertKind::Rsa2048], &[KxGroup::X25519Mlkem768])
            .is_empty());
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
