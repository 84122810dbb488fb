//! GnuTLS as a peer: `gnutls-serv` as a server (the rustls client against it, full and
//! resumed, its end of every connection read from its own report, [`serv`], [`output`]),
//! and `gnutls-cli --resume` as a client whose output says whether it resumed (against
//! the rustls server and against `gnutls-serv`). gnutls-cli prints no timing and makes one
//! full and one resumed connection per process: its arms check resumption and record no
//! latency (their `skipped` says so, with what was checked).

mod cli;
pub mod output;
pub mod serv;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use shared::{Arm, CertKind, KxGroup, Mode, Protocol, Resumption, Stack};

use super::openssl::s_time::rustls_server_for_s_time;
use super::rustls::www::WwwClient;
use super::{tls13_only, ArmSpec, Session};
use crate::measure::Plan;
use crate::peers::ready::presents_leaf;
use crate::peers::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use cli::{cli_check, RustlsSeen, ServSeen};
use serv::{group_name, GnutlsServ, Setup};

pub const NAME: &str = "gnutls";

/// `gnutls-serv`.
pub const SERV: Tool = Tool {
    program: "gnutls-serv",
    version,
};
/// `gnutls-cli`.
pub const CLI: Tool = Tool {
    program: "gnutls-cli",
    version,
};

/// `gnutls-cli --resume` runs per check arm.
pub const CLI_RUNS: usize = 5;

/// `--version`'s first line, e.g. `gnutls-serv 3.7.9`.
pub fn version(program: &Path) -> Result<String> {
    let out = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("could not run `{} --version`", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.lines().next().map(str::trim) {
        Some(line) if out.status.success() && !line.is_empty() => Ok(line.to_string()),
        _ => bail!("`{} --version` failed ({})", program.display(), out.status),
    }
}

/// The rustls client against gnutls-serv (a latency arm).
#[derive(Debug, Clone, Copy)]
pub struct RustlsToServ;

/// A `gnutls-cli --resume` check against the rustls server or gnutls-serv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CliCheck {
    pub vs_rustls: bool,
}

fn setup_of(spec: &ArmSpec) -> Setup {
    Setup {
        cert: spec.cert.expect("a cert"),
        protocol: spec.protocol,
        group: spec.kx_group.expect("a group"),
        tickets: spec.resumption != Some(Resumption::Stateful),
    }
}

pub struct Peer;

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        let mut out = Vec::new();
        let spec = |protocol, mode, resumption, cert, group| ArmSpec {
            protocol,
            mode,
            resumption,
            cert: Some(cert),
            kx_group: Some(group),
            ..ArmSpec::TCP_CONNECT
        };
        for &cert in certs {
            for &group in groups {
                for protocol in [Protocol::Tls13, Protocol::Tls12] {
                    if protocol == Protocol::Tls12 && tls13_only(group) {
                        continue;
                    }
                    for (mode, resumption) in [
                        (Mode::Full, None),
                        (Mode::Resumed, Some(Resumption::Stateful)),
                        (Mode::Resumed, Some(Resumption::Ticket)),
                    ] {
                        let spec = spec(protocol, mode, resumption, cert, group);
                        let mut arm = PeerArm::new(
                            NAME,
                            format!("rustls-vs-gnutls-serv-{spec}"),
                            spec,
                            (Stack::GnutlsServ, Stack::Rustls, Stack::GnutlsServ),
                            vec![SERV],
                            format!(
                                "{} Server: gnutls-serv --http (a separate process; one per cert, protocol, group and ticket setting), which prints its end of every connection (resumed or not, version, curve), matched by the client's port and checked like a rustls server's report; after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it). Stateful arms: --noticket (TLS 1.2 session IDs from its cache); ticket arms: tickets on (GnuTLS's default)",
                                spec.timed_window(false)
                            ),
                            RustlsToServ,
                        );
                        arm.known_skip = if group_name(group).is_none() {
                            Some(format!(
                                "GnuTLS 3.7 has no {group}: this cell is not measured"
                            ))
                        } else if protocol == Protocol::Tls13
                            && resumption == Some(Resumption::Stateful)
                        {
                            Some("GnuTLS resumes TLS 1.3 only from session tickets: with --noticket there is nothing to resume, so no stateful TLS 1.3 arm".into())
                        } else {
                            None
                        };
                        out.push(arm);
                    }
                }
            }
            let Some(group) = groups.iter().copied().find(|&g| group_name(g).is_some()) else {
                continue;
            };
            for protocol in [Protocol::Tls13, Protocol::Tls12] {
                for vs_rustls in [true, false] {
                    // The rustls server s_time faces has no ticketer: it resumes from its
                    // session cache. gnutls-serv issues tickets.
                    let resumption = if vs_rustls {
                        Resumption::Stateful
                    } else {
                        Resumption::Ticket
                    };
                    let spec = spec(protocol, Mode::Resumed, Some(resumption), cert, group);
                    let server = if vs_rustls { "rustls" } else { "gnutls-serv" };
                    let mut tools = vec![CLI];
                    if !vs_rustls {
                        tools.push(SERV);
                    }
                    out.push(PeerArm::new(
                        NAME,
                        format!("gnutls-cli-{spec}-vs-{server}"),
                        spec,
                        (
                            Stack::GnutlsCli,
                            Stack::GnutlsCli,
                            if vs_rustls { Stack::Rustls } else { Stack::GnutlsServ },
                        ),
                        tools,
                        format!("not timed: gnutls-cli --resume prints no timing and makes one full and one resumed connection per process (start-up included), so it gives no latency; {CLI_RUNS} runs check that its second connection resumed (its `*** This is a resumed session` line) and that the server ({server}) saw it resume"),
                        CliCheck { vs_rustls },
                    ));
                }
            }
        }
        out
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        let mut servers: BTreeMap<Setup, std::result::Result<GnutlsServ, String>> = BTreeMap::new();
        let mut errors: BTreeMap<usize, String> = BTreeMap::new();
        let serv = w.tool(SERV.program).ok();
        for &i in idx {
            let arm = &w.arms[i];
            if arm.detail::<CliCheck>().is_some_and(|c| c.vs_rustls) {
                continue;
            }
            let Some((program, _)) = serv else { continue };
            let setup = setup_of(&arm.spec);
            let spec = arm.spec;
            let started = servers.entry(setup).or_insert_with(|| {
                let ready =
                    |addr: SocketAddr| presents_leaf(&spec, w.store, addr, w.ctx.io_timeout);
                GnutlsServ::start(
                    program,
                    setup,
                    w.dir,
                    &w.files[&setup.cert],
                    w.ctx.io_timeout,
                    &ready,
                )
                .map_err(|e| format!("{e:#}"))
            });
            if let Err(e) = started {
                errors.insert(i, format!("gnutls-serv did not start: {e}"));
            }
        }
        let mut sessions: Vec<(usize, Box<dyn Session>)> = Vec::new();
        for &i in idx {
            let arm = &w.arms[i];
            if arm.detail::<RustlsToServ>().is_none() || errors.contains_key(&i) {
                continue;
            }
            let Some(Ok(server)) = servers.get(&setup_of(&arm.spec)) else {
                continue;
            };
            match WwwClient::new(
                &arm.spec,
                w.store,
                server.addr(),
                w.ctx.io_timeout,
                "gnutls-serv",
                Some(Box::new(server.view())),
            ) {
                Ok(c) => sessions.push((i, Box::new(c))),
                Err(e) => {
                    errors.insert(i, format!("{e:#}"));
                }
            }
        }
        if let Ok((_, version)) = w.tool(SERV.program) {
            w.measure_latency(
                "rustls client against gnutls-serv",
                "peer-gnutls-serv",
                version,
                sessions,
                records,
            );
        }
        for &i in idx {
            let Some(&check) = w.arms[i].detail::<CliCheck>() else {
                continue;
            };
            if errors.contains_key(&i) || w.stopped() {
                continue;
            }
            let (cli, cli_version) = w.tool(CLI.program)?;
            let spec = w.arms[i].spec;
            let result = if check.vs_rustls {
                let base = ArmSpec {
                    mode: Mode::Full,
                    resumption: None,
                    ..spec
                };
                rustls_server_for_s_time(&base, w.store, w.ctx.io_timeout)
                    .and_then(|s| cli_check(w, cli, &spec, s.addr(), &mut RustlsSeen(&s)))
            } else {
                match servers.get_mut(&setup_of(&spec)) {
                    Some(Ok(s)) => {
                        let mut view = s.view();
                        let addr = s.addr();
                        cli_check(w, cli, &spec, addr, &mut ServSeen(&mut view))
                    }
                    _ => continue,
                }
            };
            let version = match (check.vs_rustls, w.tool(SERV.program)) {
                (false, Ok((_, v))) => format!("{cli_version}; server {v}"),
                _ => cli_version.to_string(),
            };
            let mut arm = w.arms[i].empty_arm(Some(version));
            match result {
                Ok(verified) => {
                    arm.skipped = Some(format!("{}: {verified}", w.arms[i].timed_window))
                }
                Err(_) if w.stopped() => continue,
                Err(e) => arm.error = Some(format!("{e:#}")),
            }
            records[i] = Some(arm);
        }
        for (setup, server) in servers.iter_mut() {
            if let Ok(s) = server {
                if let Err(e) = s.check_alive() {
                    for &i in idx {
                        if w.arms[i].detail::<RustlsToServ>().is_some()
                            && setup_of(&w.arms[i].spec) == *setup
                        {
                            errors.entry(i).or_insert_with(|| format!("{e:#}"));
                        }
                    }
                }
            }
        }
        for (i, e) in errors {
            records[i] = Some(w.arms[i].error_arm(None, e));
        }
        Ok(())
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![
            ("peer_gnutls_serv", "gnutls-serv --http --httpdata=<1-byte file> -p <port> --x509certfile/--x509keyfile <the run's leaf and key, 0600 in the private folder> --priority=NORMAL:-VERS-ALL:+VERS-<the arm's>:-GROUP-ALL:+GROUP-<the arm's> [--noticket for stateful arms]; one process per cert × protocol × group × tickets; gnutls-serv has no listen-address option: it listens on every interface (0.0.0.0 and ::) on that port while its arms run; its stdout reports each connection (`* Accepted connection from … port N`, `*** This is a resumed session`, `- Using curve:`, `- Version:`), read as the server's end of each connection; confirmed ready by one untimed full rustls handshake that must present the run's leaf".into()),
            ("peer_gnutls_cli", format!("gnutls-cli -p <port> --x509cafile <the run's CA> --sni-hostname localhost --verify-hostname localhost --priority=<as gnutls-serv> --resume 127.0.0.1 < /dev/null, {CLI_RUNS} runs per arm; resumed when its output has `*** This is a resumed session` after `- Resume Handshake was completed`; not timed")),
        ]
    }
}
