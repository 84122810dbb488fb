//! Botan's `botan tls_server` as a peer server (Botan 2.19 in Debian: a TLS implementation
//! of its own, TLS 1.2 only): the rustls client against it, full and resumed, the group
//! pinned per arm by a policy file. `tls_server` is an echo server: after the handshake
//! the client sends one line and reads it back. It prints no per-connection report of
//! resumption, so the client's count is recorded and the server's end is unverified.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

use anyhow::{anyhow, Result};
use shared::{Arm, CertKind, KxGroup, Stack};

use super::rustls::www::Exchange;
use super::{Cell, HandshakeMode, Tls};
use crate::arms::peer::launch::{Launch, Output};
use crate::arms::peer::process::{free_loopback_addr, ServerProcess};
use crate::arms::peer::servers::{run_rustls_against, rustls_arm, ServerStack};
use crate::arms::peer::{ask_version, first_line};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use crate::arms::Plan;

pub const NAME: &str = "botan";

/// The `botan` program (its `tls_server` command).
pub const BOTAN: Tool = Tool {
    program: "botan",
    version,
};

/// `botan version --full`, e.g. `Botan 2.19.3 (release, dated 20221116, revision …)`.
pub fn version(program: &Path) -> Result<String> {
    let (out, _) = ask_version(program, &["version", "--full"])?;
    first_line(program, &out)
}

/// Botan's policy name of a group, where Botan 2.19 has it.
pub fn group_name(g: KxGroup) -> Option<&'static str> {
    match g {
        KxGroup::X25519 => Some("x25519"),
        KxGroup::Secp256r1 => Some("secp256r1"),
        KxGroup::Secp384r1 => Some("secp384r1"),
        KxGroup::X25519Mlkem768 => None,
    }
}

/// The line the client sends after the handshake, which `tls_server` echoes back.
pub const LINE: &[u8] = b"x\n";

/// One line out, the same line back (the echo server never closes first).
pub const ECHO: Exchange = Exchange {
    request: LINE,
    complete: |answer| answer.ends_with(b"\n"),
    expected: |answer| answer == LINE,
};

/// The TLS policy (Botan's text format) for one server: TLS 1.2 only, one group.
pub fn policy(group: KxGroup) -> Result<String> {
    let g = group_name(group).ok_or_else(|| anyhow!("Botan 2.19 has no group {group}"))?;
    Ok(format!(
        "allow_tls10 = false\nallow_tls11 = false\nallow_tls12 = true\nallow_dtls10 = false\nallow_dtls12 = false\nkey_exchange_groups = {g}\n"
    ))
}

pub struct Peer;

impl ServerStack for Peer {
    /// One server per cert and group: its session cache and tickets serve both resumed
    /// arms.
    type Setup = (CertKind, KxGroup);
    /// `tls_server` does not say whether a session was resumed: its end is unverified.
    type Server = ServerProcess;

    fn server_name(&self) -> &'static str {
        "botan-tls_server"
    }

    fn server_tool(&self) -> Tool {
        BOTAN
    }

    fn exchange(&self) -> Exchange {
        ECHO
    }

    fn setup(&self, cell: &Cell, _args: &PeerArgs) -> Self::Setup {
        (cell.cert, cell.group)
    }

    fn start(
        &self,
        program: &Path,
        (cert, group): Self::Setup,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<ServerProcess> {
        let name = format!("{cert}-{group}");
        let files = &w.files[&cert];
        let policy = w
            .dir
            .write(&format!("botan-{name}.policy"), policy(group)?.as_bytes())?;
        let addr = free_loopback_addr()?;
        let mut cmd = Command::new(program);
        cmd.arg("tls_server")
            .arg(&files.cert)
            .arg(&files.key)
            .arg(format!("--port={}", addr.port()))
            .arg("--type=tcp")
            .arg(format!("--policy={}", policy.display()));
        let launch = Launch::new("botan tls_server", "botan", name, addr, Output::Joined);
        Ok(launch
            .start(&mut cmd, w.dir, w.ctx.io_timeout, ready)?
            .process)
    }
}

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn no_ml_dsa(&self) -> Option<&'static str> {
        Some("botan tls_server needs Botan 3 for ML-DSA; Botan 2 has none")
    }

    fn beyond_loopback(&self) -> Option<&'static str> {
        Some("`botan tls_server` has no listen-address option: it listens on every interface of this host while its arms run")
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        Cell::matrix(certs, groups, &HandshakeMode::ALL)
            .into_iter()
            .map(|cell| {
                let mut arm = rustls_arm(NAME, "botan", Stack::BotanServer, vec![BOTAN], cell, "botan tls_server (Botan 2.19's own TLS; a separate process, one per cert and group, TLS 1.2 only by its policy file; an echo server: after the timer the client sends one line and reads it back) gives no per-connection report of resumption, so resumption is counted by the rustls client only: the server's end is unverified (verified.server)");
                arm.known_skip = if cell.tls == Tls::Tls13 {
                    Some("Botan 2.19 (Debian's) has no TLS 1.3 (Botan has it from 3.0): this cell is not measured".into())
                } else if group_name(cell.group).is_none() {
                    Some(format!("Botan 2.19 has no {}: this cell is not measured", cell.group))
                } else if cell.cert == CertKind::Ed25519 {
                    Some("Botan 2.19's TLS has no Ed25519 signatures (Botan has them from 3.0): this cell is not measured".into())
                } else {
                    None
                };
                arm
            })
            .collect()
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        run_rustls_against(self, w, idx, records)
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_botan", "botan tls_server <leaf PEM> <key PEM> --port=<port> --type=tcp --policy=<policy file> (the run's leaf and key, and the policy, 0600 in the private folder, removed at the end); one process per cert × group; policy: TLS 1.2 only, key_exchange_groups = the arm's group, everything else Botan's default (in-memory session cache, session tickets on); tls_server has no listen-address option: it listens on every interface on that port while its arms run; an echo server: the client writes one line after the handshake and reads it back; confirmed ready by one untimed full rustls handshake that must present the run's leaf. It prints no per-connection resumption: server side unverified".into())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_tls12_and_one_group() {
        let p = policy(KxGroup::Secp384r1).unwrap();
        assert!(p.contains("allow_tls12 = true") && p.contains("allow_tls10 = false"));
        assert!(p.contains("key_exchange_groups = secp384r1\n"), "{p}");
        assert!(policy(KxGroup::X25519Mlkem768).is_err());
    }

    #[test]
    fn the_echo_is_complete_at_its_line_end_and_must_be_the_line() {
        assert!(!(ECHO.complete)(b"x"));
        assert!((ECHO.complete)(b"x\n"));
        assert!((ECHO.expected)(b"x\n"));
        assert!(!(ECHO.expected)(b"y\n"));
        assert!(!(ECHO.expected)(b""));
    }

    #[test]
    fn plan_runs_tls12_only_and_says_why_not_tls13() {
        let arms = Peer.plan(&[CertKind::Rsa2048], &[KxGroup::X25519]);
        assert_eq!(arms.len(), 6);
        let run: Vec<&str> = arms
            .iter()
            .filter(|a| a.known_skip.is_none())
            .map(|a| a.id.as_str())
            .collect();
        assert_eq!(
            run,
            [
                "rustls-vs-botan-tls12-full-rsa2048-x25519",
                "rustls-vs-botan-tls12-resumed-stateful-rsa2048-x25519",
                "rustls-vs-botan-tls12-resumed-ticket-rsa2048-x25519"
            ]
        );
    }
}
