//! nginx as a peer server (OpenSSL inside): the rustls client against it, full and
//! resumed (stateful: tickets off; ticket: tickets on), TLS 1.3 and 1.2, the group pinned
//! per arm, each connection checked on both ends (nginx's end from its access log,
//! [`access_log`]); and `openssl s_time -www` against it (rate arms, nginx's end counted
//! from the same log). One nginx per configuration ([`server`]).

pub mod access_log;
pub mod server;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use shared::{Arm, CertKind, KindCounts, KxGroup, Resumption, Stack};

use super::openssl::run::{s_time_slices, SliceServer};
use super::openssl::{
    ecdsa_tls12_skip, group_name, openssl_group, s_time_spec, STimeArm, STimeMode, STimeTarget,
    OPENSSL,
};
use super::rustls::www::ServerView;
use super::{Cell, HandshakeMode, Tls};
use crate::arms::peer::ask_version;
use crate::arms::peer::servers::{rustls_arm, PeerServer, ServerStack, Servers};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use crate::arms::Plan;
use access_log::AccessLog;
use server::{Nginx, Setup};

pub const NAME: &str = "nginx";

/// The `nginx` program.
pub const NGINX: Tool = Tool {
    program: "nginx",
    version,
};

/// s_time's arms against nginx.
pub const VS_NGINX: STimeTarget = STimeTarget {
    name: "nginx",
    stack: Stack::Nginx,
    window: "nginx (one process, the collector's config: shared session cache, tickets on), which logs each request's $ssl_session_reused",
};

/// `nginx -V`: its version and the OpenSSL it runs with, e.g.
/// `nginx/1.22.1 (running with OpenSSL 3.0.19 27 Jan 2026)`.
pub fn version(program: &Path) -> Result<String> {
    let (_, text) = ask_version(program, &["-V"])?;
    let name = text
        .lines()
        .find_map(|l| l.strip_prefix("nginx version: "))
        .map(str::trim)
        .ok_or_else(|| {
            anyhow!(
                "`{} -V` printed no version: {}",
                program.display(),
                text.trim()
            )
        })?;
    let ssl = text.lines().find_map(|l| {
        let l = l.trim();
        l.split_once("(running with ")
            .map(|(_, r)| format!("running with {}", r.trim_end_matches(')')))
            .or_else(|| l.starts_with("built with OpenSSL").then(|| l.to_string()))
    });
    Ok(match ssl {
        Some(s) => format!("{name} ({s})"),
        None => name.to_string(),
    })
}

pub struct Peer;

impl PeerServer for Nginx {
    fn addr(&self) -> SocketAddr {
        Nginx::addr(self)
    }

    fn view(&self) -> Result<Option<Box<dyn ServerView>>> {
        Ok(Some(Box::new(self.access_log()?)))
    }

    fn check_alive(&mut self) -> Result<()> {
        Nginx::check_alive(self)
    }

    fn pid(&self) -> Option<u32> {
        Some(Nginx::pid(self))
    }

    fn problem(&self) -> Option<String> {
        let bad = self.errors();
        bad.first().map(|first| {
            format!(
                "nginx's error log has {} line(s) at [error] or worse: {first}",
                bad.len()
            )
        })
    }
}

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn counts_servers(&self) -> bool {
        ServerStack::counts_under(self)
    }
    fn no_ml_dsa(&self) -> Option<&'static str> {
        Some("nginx loads keys through OpenSSL, which has ML-DSA from 3.5 on")
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        let mut out = Vec::new();
        for &cert in certs {
            for cell in Cell::matrix(&[cert], groups, &HandshakeMode::ALL) {
                let mut arm = rustls_arm(NAME, "nginx", Stack::Nginx, vec![NGINX], cell, "nginx (a separate process; one per cert, protocol, group and ticket setting), whose access log gives its end of every connection ($ssl_session_reused, $ssl_protocol, $ssl_curve), matched by the client's port and checked like a rustls server's report; after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it). Stateful arms: tickets off, so only the shared session cache can resume; ticket arms: tickets on (the shared cache is on too, and OpenSSL resumes from the ticket when one is offered)");
                arm.known_skip = if group_name(cell.group).is_none() {
                    Some(format!("nginx here runs on OpenSSL 3.0, which has no {} (OpenSSL has ML-KEM hybrids from 3.5): this cell is not measured", cell.group))
                } else {
                    ecdsa_tls12_skip(&arm.spec)
                };
                out.push(arm);
            }
            let Some(group) = openssl_group(groups) else {
                continue;
            };
            for tls in Tls::BOTH {
                for mode in [STimeMode::NewWww, STimeMode::ReuseWww] {
                    let spec = s_time_spec(tls.protocol(), mode, Resumption::Ticket, cert, group);
                    out.push(
                        STimeArm {
                            mode,
                            server: VS_NGINX,
                        }
                        .peer_arm(NAME, spec, vec![NGINX, OPENSSL]),
                    );
                }
            }
        }
        out
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        let mut servers = Servers::new(self, w)?;
        servers.run_rustls_arms(idx, records);
        let s_time: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| w.arms[i].detail::<STimeArm>().is_some())
            .collect();
        if !s_time.is_empty() {
            let (_, openssl) = w.tool(OPENSSL.program)?;
            let both = format!("{openssl}; server {}", servers.version);
            let mut target = SliceTarget {
                w,
                servers: &mut servers,
                logs: BTreeMap::new(),
            };
            s_time_slices(w, &s_time, &mut target, &both, records)?;
        }
        servers.finish(records);
        crate::arms::peer::counted::count_servers(self, w, idx, records);
        Ok(())
    }

    fn settings(&self, args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_nginx", format!("nginx -p <private folder> -c <its config> -e <error log> -g 'daemon off; master_process off;' (one process, as the collector's user: no worker that drops privileges), one per cert × protocol × group × tickets on/off; config written by the collector into the run's private folder (0700; the key 0600 there; removed at the end): listen 127.0.0.1:<port> ssl; ssl_protocols <the arm's>; ssl_ecdh_curve <the arm's group>; ssl_session_cache {}; ssl_session_timeout 1h; ssl_session_tickets on|off; location = /x {{ return 200 \"x\"; }}; access_log in the format `{}`; error_log at notice, any line at [error] or worse makes its arms errors; confirmed ready by one untimed full rustls handshake that must present the run's leaf", if args.nginx_resumption_off { "off (and tickets off: --nginx-resumption-off)" } else { "shared:hlab:1m" }, access_log::LOG_FORMAT))]
    }
}

/// nginx as the server of s_time arms.
struct SliceTarget<'a, 'w> {
    w: &'a Work<'a>,
    servers: &'a mut Servers<'w, Peer>,
    logs: BTreeMap<Setup, AccessLog>,
}

impl SliceTarget<'_, '_> {
    fn cell(&self, i: usize) -> Result<Cell> {
        let arm = &self.w.arms[i];
        arm.spec
            .cell()
            .ok_or_else(|| anyhow!("{} is not a handshake arm", arm.id))
    }
}

impl SliceServer for SliceTarget<'_, '_> {
    fn addr(&mut self, i: usize) -> Result<SocketAddr> {
        let cell = self.cell(i)?;
        let setup = Peer.setup(&cell, self.w.args);
        let Some(s) = self.servers.server(i, &cell) else {
            bail!("no nginx for {}", setup.name());
        };
        s.check_alive()?;
        let log = match self.logs.entry(setup) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(s.access_log()?),
        };
        log.skip_to_end()?;
        Ok(s.addr())
    }

    fn seen(&mut self, i: usize, connections: u64) -> Result<Option<KindCounts>> {
        let setup = Peer.setup(&self.cell(i)?, self.w.args);
        match self.logs.get_mut(&setup) {
            Some(log) => log.kinds_since(connections).map(Some),
            None => Ok(None),
        }
    }
}
