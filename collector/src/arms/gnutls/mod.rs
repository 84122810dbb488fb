//! GnuTLS as a peer: `gnutls-serv` as a server (the rustls client against it, full and
//! resumed, its end of every connection read from its own report, [`serv`], [`output`]),
//! and `gnutls-cli --resume` as a client whose output says whether it resumed (against
//! the rustls server and against `gnutls-serv`). gnutls-cli prints no timing and makes one
//! full and one resumed connection per process: its arms check resumption and record no
//! latency (their `skipped` says so, with what was checked).

mod cli;
pub mod output;
pub mod serv;

use std::net::SocketAddr;
use std::path::Path;

use anyhow::Result;
use shared::{Arm, CertKind, KxGroup, Resumption, Stack};

use super::openssl::s_time::rustls_server_for_s_time;
use super::rustls::www::ServerView;
use super::{Cell, HandshakeMode, Tls};
use crate::arms::peer::servers::{rustls_arm, PeerServer, Servers};
use crate::arms::peer::{ask_version, first_line};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use crate::arms::Plan;
use cli::{cli_check, RustlsSeen, ServSeen};
use serv::{group_name, GnutlsServ};

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
    let (out, _) = ask_version(program, &["--version"])?;
    first_line(program, &out)
}

/// A `gnutls-cli --resume` check of `cell` against the rustls server or gnutls-serv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CliCheck {
    pub vs_rustls: bool,
    pub cell: Cell,
}

pub struct Peer;

impl PeerServer for GnutlsServ {
    fn addr(&self) -> SocketAddr {
        GnutlsServ::addr(self)
    }

    fn view(&self) -> Result<Option<Box<dyn ServerView>>> {
        Ok(Some(Box::new(GnutlsServ::view(self))))
    }

    fn check_alive(&mut self) -> Result<()> {
        GnutlsServ::check_alive(self)
    }
}

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn no_ml_dsa(&self) -> Option<&'static str> {
        Some("GnuTLS loads ML-DSA keys only when built with them (3.8 with leancrypto), which this release is not")
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        let mut out = Vec::new();
        for &cert in certs {
            for cell in Cell::matrix(&[cert], groups, &HandshakeMode::ALL) {
                let mut arm = rustls_arm(NAME, "gnutls-serv", Stack::GnutlsServ, vec![SERV], cell, "gnutls-serv --http (a separate process; one per cert, protocol, group and ticket setting), which prints its end of every connection (resumed or not, version, curve), matched by the client's port and checked like a rustls server's report; after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it). Stateful arms: --noticket (TLS 1.2 session IDs from its cache); ticket arms: tickets on (GnuTLS's default)");
                arm.known_skip = if group_name(cell.group).is_none() {
                    Some(format!(
                        "GnuTLS 3.7 has no {}: this cell is not measured",
                        cell.group
                    ))
                } else if cell.tls == Tls::Tls13
                    && cell.handshake == HandshakeMode::Resumed(Resumption::Stateful)
                {
                    Some("GnuTLS resumes TLS 1.3 only from session tickets: with --noticket there is nothing to resume, so no stateful TLS 1.3 arm".into())
                } else {
                    None
                };
                out.push(arm);
            }
            let Some(group) = groups.iter().copied().find(|&g| group_name(g).is_some()) else {
                continue;
            };
            for tls in Tls::BOTH {
                for vs_rustls in [true, false] {
                    // The rustls server s_time faces has no ticketer: it resumes from its
                    // session cache. gnutls-serv issues tickets.
                    let resumption = if vs_rustls {
                        Resumption::Stateful
                    } else {
                        Resumption::Ticket
                    };
                    let cell = Cell {
                        tls,
                        handshake: HandshakeMode::Resumed(resumption),
                        cert,
                        group,
                    };
                    let server = if vs_rustls { "rustls" } else { "gnutls-serv" };
                    let mut tools = vec![CLI];
                    if !vs_rustls {
                        tools.push(SERV);
                    }
                    out.push(PeerArm::new(
                        NAME,
                        format!("gnutls-cli-{cell}-vs-{server}"),
                        cell.spec(),
                        (
                            Stack::GnutlsCli,
                            Stack::GnutlsCli,
                            if vs_rustls { Stack::Rustls } else { Stack::GnutlsServ },
                        ),
                        tools,
                        format!("not timed: gnutls-cli --resume prints no timing and makes one full and one resumed connection per process (start-up included), so it gives no latency; {CLI_RUNS} runs check that its second connection resumed (its `*** This is a resumed session` line) and that the server ({server}) saw it resume"),
                        CliCheck { vs_rustls, cell },
                    ));
                }
            }
        }
        out
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        // gnutls-serv is not needed when only checks against rustls run.
        let mut servers = match Servers::new(self, w) {
            Ok(s) => Some(s),
            Err(_)
                if idx
                    .iter()
                    .all(|&i| w.arms[i].detail::<CliCheck>().is_some_and(|c| c.vs_rustls)) =>
            {
                None
            }
            Err(e) => return Err(e),
        };
        if let Some(s) = servers.as_mut() {
            s.run_rustls_arms(idx, records);
        }
        for &i in idx {
            let Some(&CliCheck { vs_rustls, cell }) = w.arms[i].detail::<CliCheck>() else {
                continue;
            };
            if w.stopped() {
                continue;
            }
            let (cli, cli_version) = w.tool(CLI.program)?;
            let result = if vs_rustls {
                rustls_server_for_s_time(&cell.full().spec(), w.store, w.ctx.io_timeout)
                    .and_then(|s| cli_check(w, cli, &cell, s.addr(), &mut RustlsSeen(&s)))
            } else {
                let Some(s) = servers.as_mut().and_then(|s| s.server(i, &cell)) else {
                    continue;
                };
                let mut view = GnutlsServ::view(s);
                let addr = GnutlsServ::addr(s);
                cli_check(w, cli, &cell, addr, &mut ServSeen(&mut view))
            };
            let version = match (vs_rustls, &servers) {
                (false, Some(s)) => format!("{cli_version}; server {}", s.version),
                _ => cli_version.to_string(),
            };
            let mut arm = w.empty_arm(i, Some(version));
            match result {
                Ok(verified) => {
                    arm.skipped = Some(format!("{}: {verified}", w.arms[i].timed_window))
                }
                Err(_) if w.stopped() => continue,
                Err(e) => arm.error = Some(format!("{e:#}")),
            }
            records[i] = Some(arm);
        }
        if let Some(s) = servers {
            s.finish(records);
        }
        Ok(())
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![
            ("peer_gnutls_serv", "gnutls-serv --http --httpdata=<1-byte file> -p <port> --x509certfile/--x509keyfile <the run's leaf and key, 0600 in the private folder> --priority=NORMAL:-VERS-ALL:+VERS-<the arm's>:-GROUP-ALL:+GROUP-<the arm's> [--noticket for stateful arms]; one process per cert × protocol × group × tickets; gnutls-serv has no listen-address option: it listens on every interface (0.0.0.0 and ::) on that port while its arms run; its stdout reports each connection (`* Accepted connection from … port N`, `*** This is a resumed session`, `- Using curve:`, `- Version:`), read as the server's end of each connection; confirmed ready by one untimed full rustls handshake that must present the run's leaf".into()),
            ("peer_gnutls_cli", format!("gnutls-cli -p <port> --x509cafile <the run's CA> --sni-hostname localhost --verify-hostname localhost --priority=<as gnutls-serv> [--waitresumption under TLS 1.3: it waits for the ticket] --resume 127.0.0.1 < /dev/null, {CLI_RUNS} runs per arm; resumed when its output has `*** This is a resumed session` after `- Resume Handshake was completed`; not timed")),
        ]
    }
}
