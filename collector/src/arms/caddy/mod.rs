//! Caddy as a peer server (Go's crypto/tls, a TLS library of its own): the rustls client
//! against it, full and resumed with tickets, TLS 1.3 and 1.2, the group pinned per arm.
//! Caddy runs from a JSON config the collector writes into the run's private folder: the
//! run's certificate, no automatic HTTPS (so no ACME), the admin endpoint off, loopback
//! only. Go does not report resumption per connection: the client's count is recorded and
//! the server's end is recorded as unverified, as for s_server.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

use anyhow::Result;
use serde_json::json;
use shared::{Arm, CertKind, KxGroup, Protocol, Stack};

use super::{Cell, HandshakeMode};
use crate::arms::peer::files::PemFiles;
use crate::arms::peer::launch::{Launch, Output};
use crate::arms::peer::process::{free_loopback_addr, ServerProcess};
use crate::arms::peer::servers::{run_rustls_against, rustls_arm, setup_stem, ServerStack};
use crate::arms::peer::{ask_version, first_line};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use crate::arms::Plan;

pub const NAME: &str = "caddy";

/// The `caddy` program.
pub const CADDY: Tool = Tool {
    program: "caddy",
    version,
};

/// `caddy version`'s first line, e.g. `2.6.2` (Debian) or `v2.6.2 h1:…`.
pub fn version(program: &Path) -> Result<String> {
    let (out, _) = ask_version(program, &["version"])?;
    Ok(format!("Caddy {}", first_line(program, &out)?))
}

/// Caddy's (Go's) name for a group, where Caddy 2.6 has it.
pub fn curve_name(g: KxGroup) -> Option<&'static str> {
    match g {
        KxGroup::X25519 => Some("x25519"),
        KxGroup::Secp256r1 => Some("secp256r1"),
        KxGroup::Secp384r1 => Some("secp384r1"),
        KxGroup::X25519Mlkem768 => None,
    }
}

/// The Caddy JSON config for one server on `addr`.
pub fn config(
    addr: SocketAddr,
    protocol: Protocol,
    group: KxGroup,
    files: &PemFiles,
    dir: &Path,
    name: &str,
) -> serde_json::Value {
    let v = if protocol == Protocol::Tls12 {
        "tls1.2"
    } else {
        "tls1.3"
    };
    json!({
        "admin": {"disabled": true, "config": {"persist": false}},
        "logging": {"logs": {"default": {"level": "WARN", "writer": {
            "output": "file", "filename": dir.join(format!("caddy-{name}.log"))}}}},
        "storage": {"module": "file_system", "root": dir.join(format!("caddy-{name}-home/data"))},
        "apps": {
            "http": {"servers": {"hlab": {
                "listen": [addr.to_string()],
                "automatic_https": {"disable": true},
                "routes": [{
                    "match": [{"path": ["/x"]}],
                    "handle": [{"handler": "static_response", "status_code": 200, "body": "x"}]
                }],
                "tls_connection_policies": [{
                    "certificate_selection": {"any_tag": ["hlab"]},
                    "protocol_min": v,
                    "protocol_max": v,
                    "curves": [curve_name(group).unwrap_or("none")]
                }]
            }}},
            "tls": {
                "certificates": {"load_files": [{
                    "certificate": files.cert, "key": files.key, "tags": ["hlab"]
                }]},
                "disable_ocsp_stapling": true
            }
        }
    })
}

pub struct Peer;

impl ServerStack for Peer {
    /// One process per cert, version and group (tickets always on).
    type Setup = (CertKind, Protocol, KxGroup);
    /// Go logs no per-connection resumption: its end is unverified.
    type Server = ServerProcess;

    fn server_tool(&self) -> Tool {
        CADDY
    }

    fn setup(&self, cell: &Cell, _args: &PeerArgs) -> Self::Setup {
        (cell.cert, cell.protocol(), cell.group)
    }

    fn start(
        &self,
        program: &Path,
        (cert, protocol, group): Self::Setup,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<ServerProcess> {
        let name = setup_stem(cert, protocol, group);
        let addr = free_loopback_addr()?;
        let home = w.dir.subdir(&format!("caddy-{name}-home"))?;
        let conf = config(addr, protocol, group, &w.files[&cert], w.dir.path(), &name);
        let conf = w.dir.write(
            &format!("caddy-{name}.json"),
            serde_json::to_string_pretty(&conf)?.as_bytes(),
        )?;
        let mut cmd = Command::new(program);
        cmd.arg("run")
            .arg("--config")
            .arg(&conf)
            // Caddy keeps state under $HOME / XDG folders: the private folder's, not ours.
            .env("HOME", &home)
            .env("XDG_DATA_HOME", &home)
            .env("XDG_CONFIG_HOME", &home);
        let launch = Launch::new("caddy", "caddy", name, addr, Output::StderrOnly);
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
        Some("Caddy serves through Go's crypto/tls, which offers no ML-DSA certificates")
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        Cell::matrix(certs, groups, &HandshakeMode::FULL_AND_TICKET)
            .into_iter()
            .map(|cell| {
                let mut arm = rustls_arm(NAME, "caddy", Stack::Caddy, vec![CADDY], cell, "Caddy (Go crypto/tls; a separate process, one per cert, protocol and group; session tickets on, Go's default) gives no per-connection report, so resumption is counted by the rustls client only: the server's end is unverified (verified.server); after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it)");
                arm.known_skip = curve_name(cell.group).is_none().then(|| format!(
                    "Caddy 2.6 (Go 1.19 crypto/tls) has no {}: this cell is not measured", cell.group
                ));
                arm
            })
            .collect()
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        run_rustls_against(self, w, idx, records)
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_caddy", "caddy run --config <JSON in the run's private folder> with HOME and XDG folders in that folder; one process per cert × protocol × group; admin endpoint disabled (config not persisted), automatic HTTPS disabled (no ACME, no HTTP listener), listen 127.0.0.1:<port> only, the run's leaf and key loaded from the private folder (0600), tls_connection_policies protocol_min = protocol_max = the arm's version, curves = [the arm's group], OCSP stapling off, session tickets Go's default (on; Go's server has no session-ID cache), a static_response 200 \"x\" on /x; confirmed ready by one untimed full rustls handshake that must present the run's leaf. Go logs no per-connection resumption: server side unverified".into())]
    }
}
