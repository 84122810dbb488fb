//! Caddy as a peer server (Go's crypto/tls, a TLS library of its own): the rustls client
//! against it, full and resumed with tickets, TLS 1.3 and 1.2, the group pinned per arm.
//! Caddy runs from a JSON config the collector writes into the run's private folder: the
//! run's certificate, no automatic HTTPS (so no ACME), the admin endpoint off, loopback
//! only. Go does not report resumption per connection: the client's count is recorded and
//! the server's end is unverified (`resumed.server` 0 by construction), as for s_server.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::json;
use shared::{Arm, CertKind, KxGroup, Mode, Protocol, Resumption, Stack};

use super::rustls::www::WwwClient;
use super::{tls13_only, ArmSpec, Session};
use crate::measure::Plan;
use crate::peers::files::PemFiles;
use crate::peers::process::{free_loopback_addr, ServerProcess};
use crate::peers::ready::presents_leaf;
use crate::peers::{PeerArgs, PeerArm, PeerStack, Tool, Work};

pub const NAME: &str = "caddy";

/// The `caddy` program.
pub const CADDY: Tool = Tool {
    program: "caddy",
    version,
};

/// `caddy version`'s first line, e.g. `2.6.2` (Debian) or `v2.6.2 h1:…`.
pub fn version(program: &Path) -> Result<String> {
    let out = Command::new(program)
        .arg("version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("could not run `{} version`", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.lines().next().map(str::trim) {
        Some(line) if out.status.success() && !line.is_empty() => Ok(format!("Caddy {line}")),
        _ => bail!(
            "`{} version` failed ({}): {}",
            program.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
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

/// A running Caddy with one server.
struct Caddy {
    process: ServerProcess,
}

impl Caddy {
    fn start(
        program: &Path,
        spec: &ArmSpec,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Caddy> {
        let (cert, group) = (spec.cert.expect("cert"), spec.kx_group.expect("group"));
        let name = format!(
            "{cert}-{}-{group}",
            if spec.protocol == Protocol::Tls12 {
                "tls12"
            } else {
                "tls13"
            }
        );
        let addr = free_loopback_addr()?;
        let home = w.dir.subdir(&format!("caddy-{name}-home"))?;
        let conf = config(
            addr,
            spec.protocol,
            group,
            &w.files[&cert],
            w.dir.path(),
            &name,
        );
        let conf = w.dir.write(
            &format!("caddy-{name}.json"),
            serde_json::to_string_pretty(&conf)?.as_bytes(),
        )?;
        let log = w.dir.path().join(format!("caddy-{name}.stderr"));
        let stderr = std::fs::File::create(&log)
            .with_context(|| format!("could not create {}", log.display()))?;
        let mut cmd = Command::new(program);
        cmd.arg("run")
            .arg("--config")
            .arg(&conf)
            // Caddy keeps state under $HOME / XDG folders: the private folder's, not ours.
            .env("HOME", &home)
            .env("XDG_DATA_HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        let process = ServerProcess::start(&mut cmd, "caddy", addr, log, w.ctx.io_timeout, ready)
            .with_context(|| format!("caddy ({name})"))?;
        Ok(Caddy { process })
    }
}

/// A rustls client → Caddy arm.
#[derive(Debug, Clone, Copy)]
pub struct RustlsToCaddy;

pub struct Peer;

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        let mut out = Vec::new();
        for &cert in certs {
            for &group in groups {
                for protocol in [Protocol::Tls13, Protocol::Tls12] {
                    if protocol == Protocol::Tls12 && tls13_only(group) {
                        continue;
                    }
                    for (mode, resumption) in [
                        (Mode::Full, None),
                        (Mode::Resumed, Some(Resumption::Ticket)),
                    ] {
                        let spec = ArmSpec {
                            protocol,
                            mode,
                            resumption,
                            cert: Some(cert),
                            kx_group: Some(group),
                            ..ArmSpec::TCP_CONNECT
                        };
                        let mut arm = PeerArm::new(
                            NAME,
                            format!("rustls-vs-caddy-{spec}"),
                            spec,
                            (Stack::Caddy, Stack::Rustls, Stack::Caddy),
                            vec![CADDY],
                            format!(
                                "{} Server: Caddy (Go crypto/tls; a separate process, one per cert, protocol and group; session tickets on, Go's default) gives no per-connection report, so resumption is counted by the rustls client only and resumed.server is 0 by construction: the server's end is unverified; after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it)",
                                spec.timed_window(false)
                            ),
                            RustlsToCaddy,
                        );
                        arm.known_skip = curve_name(group).is_none().then(|| format!(
                            "Caddy 2.6 (Go 1.19 crypto/tls) has no {group}: this cell is not measured"
                        ));
                        out.push(arm);
                    }
                }
            }
        }
        out
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        let (program, version) = w.tool(CADDY.program)?;
        type Key = (CertKind, Protocol, KxGroup);
        let mut servers: BTreeMap<Key, std::result::Result<Caddy, String>> = BTreeMap::new();
        let mut errors: BTreeMap<usize, String> = BTreeMap::new();
        let mut sessions: Vec<(usize, Box<dyn Session>)> = Vec::new();
        for &i in idx {
            let spec = w.arms[i].spec;
            let key = (
                spec.cert.expect("cert"),
                spec.protocol,
                spec.kx_group.expect("group"),
            );
            let server = servers.entry(key).or_insert_with(|| {
                let ready = |addr| presents_leaf(&spec, w.store, addr, w.ctx.io_timeout);
                Caddy::start(program, &spec, w, &ready).map_err(|e| format!("{e:#}"))
            });
            let client = match server {
                Ok(s) => WwwClient::new(
                    &spec,
                    w.store,
                    s.process.addr(),
                    w.ctx.io_timeout,
                    "caddy",
                    None,
                )
                .map_err(|e| format!("{e:#}")),
                Err(e) => Err(format!("caddy did not start: {e}")),
            };
            match client {
                Ok(c) => sessions.push((i, Box::new(c))),
                Err(e) => {
                    errors.insert(i, e);
                }
            }
        }
        w.measure_latency(
            "rustls client against Caddy",
            "peer-caddy",
            version,
            sessions,
            records,
        );
        for (key, server) in servers.iter_mut() {
            if let Ok(s) = server {
                if let Err(e) = s.process.check_alive() {
                    for &i in idx {
                        let spec = w.arms[i].spec;
                        if (spec.cert, spec.protocol, spec.kx_group)
                            == (Some(key.0), key.1, Some(key.2))
                        {
                            errors.entry(i).or_insert_with(|| format!("{e:#}"));
                        }
                    }
                }
            }
        }
        for (i, e) in errors {
            records[i] = Some(w.arms[i].error_arm(Some(version.to_string()), e));
        }
        Ok(())
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_caddy", "caddy run --config <JSON in the run's private folder> with HOME and XDG folders in that folder; one process per cert × protocol × group; admin endpoint disabled (config not persisted), automatic HTTPS disabled (no ACME, no HTTP listener), listen 127.0.0.1:<port> only, the run's leaf and key loaded from the private folder (0600), tls_connection_policies protocol_min = protocol_max = the arm's version, curves = [the arm's group], OCSP stapling off, session tickets Go's default (on; Go's server has no session-ID cache), a static_response 200 \"x\" on /x; confirmed ready by one untimed full rustls handshake that must present the run's leaf. Go logs no per-connection resumption: server side unverified".into())]
    }
}
