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
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use shared::{Arm, CertKind, KindCounts, KxGroup, Mode, Protocol, Resumption, Stack};

use super::openssl::run::{s_time_slices, SliceServer};
use super::openssl::{
    ecdsa_tls12_skip, group_name, openssl_group, s_time_spec, STimeArm, STimeMode, STimeTarget,
    OPENSSL,
};
use super::rustls::www::WwwClient;
use super::{tls13_only, ArmSpec, Session};
use crate::measure::Plan;
use crate::peers::ready::presents_leaf;
use crate::peers::{PeerArgs, PeerArm, PeerStack, Tool, Work};
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
    let out = Command::new(program)
        .arg("-V")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("could not run `{} -V`", program.display()))?;
    let text = String::from_utf8_lossy(&out.stderr);
    let name = text
        .lines()
        .find_map(|l| l.strip_prefix("nginx version: "))
        .map(str::trim);
    let ssl = text.lines().find_map(|l| {
        let l = l.trim();
        l.split_once("(running with ")
            .map(|(_, r)| format!("running with {}", r.trim_end_matches(')')))
            .or_else(|| l.starts_with("built with OpenSSL").then(|| l.to_string()))
    });
    match (name, out.status.success()) {
        (Some(n), true) => Ok(match ssl {
            Some(s) => format!("{n} ({s})"),
            None => n.to_string(),
        }),
        _ => bail!(
            "`{} -V` failed ({}): {}",
            program.display(),
            out.status,
            text.trim()
        ),
    }
}

/// A rustls client → nginx arm: which server setup it connects to.
#[derive(Debug, Clone, Copy)]
pub struct RustlsToNginx;

pub struct Peer;

impl Peer {
    fn setup(spec: &ArmSpec, group: KxGroup, tickets: bool, args: &PeerArgs) -> Setup {
        Setup {
            cert: spec.cert.expect("nginx arms have a cert"),
            protocol: spec.protocol,
            group,
            // With resumption off there is one setup, tickets off.
            tickets: tickets && !args.nginx_resumption_off,
            no_resumption: args.nginx_resumption_off,
        }
    }

    /// The setup an arm's connections go to: tickets off for the stateful arms.
    fn setup_of(arm: &PeerArm, args: &PeerArgs) -> Setup {
        let spec = arm.spec;
        let tickets = spec.resumption != Some(Resumption::Stateful);
        Peer::setup(&spec, spec.kx_group.expect("a group"), tickets, args)
    }
}

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
                        (Mode::Resumed, Some(Resumption::Stateful)),
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
                            format!("rustls-vs-nginx-{spec}"),
                            spec,
                            (Stack::Nginx, Stack::Rustls, Stack::Nginx),
                            vec![NGINX],
                            format!(
                                "{} Server: nginx (a separate process; one per cert, protocol, group and ticket setting), whose access log gives its end of every connection ($ssl_session_reused, $ssl_protocol, $ssl_curve), matched by the client's port and checked like a rustls server's report; after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it). Stateful arms: tickets off, so only the shared session cache can resume; ticket arms: tickets on (the shared cache is on too, and OpenSSL resumes from the ticket when one is offered)",
                                spec.timed_window(false)
                            ),
                            RustlsToNginx,
                        );
                        arm.known_skip = if group_name(group).is_none() {
                            Some(format!("nginx here runs on OpenSSL 3.0, which has no {group} (OpenSSL has ML-KEM hybrids from 3.5): this cell is not measured"))
                        } else {
                            ecdsa_tls12_skip(&spec)
                        };
                        out.push(arm);
                    }
                }
            }
            let Some(group) = openssl_group(groups) else {
                continue;
            };
            for protocol in [Protocol::Tls13, Protocol::Tls12] {
                for mode in [STimeMode::NewWww, STimeMode::ReuseWww] {
                    let spec = s_time_spec(protocol, mode, Resumption::Ticket, cert, group);
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
        let (program, version) = w.tool(NGINX.program)?;
        let mut servers: BTreeMap<Setup, std::result::Result<Nginx, String>> = BTreeMap::new();
        let mut errors: BTreeMap<usize, String> = BTreeMap::new();
        for &i in idx {
            let arm = &w.arms[i];
            let setup = Peer::setup_of(arm, w.args);
            let started = servers.entry(setup).or_insert_with(|| {
                let spec = arm.spec;
                let ready =
                    |addr: SocketAddr| presents_leaf(&spec, w.store, addr, w.ctx.io_timeout);
                Nginx::start(
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
                errors.insert(i, format!("nginx did not start: {e}"));
            }
        }
        let mut sessions: Vec<(usize, Box<dyn Session>)> = Vec::new();
        let mut s_time = Vec::new();
        for &i in idx {
            if errors.contains_key(&i) {
                continue;
            }
            let arm = &w.arms[i];
            if arm.detail::<STimeArm>().is_some() {
                s_time.push(i);
                continue;
            }
            let Some(Ok(server)) = servers.get(&Peer::setup_of(arm, w.args)) else {
                continue;
            };
            let client = server.access_log().and_then(|log| {
                WwwClient::new(
                    &arm.spec,
                    w.store,
                    server.addr(),
                    w.ctx.io_timeout,
                    "nginx",
                    Some(Box::new(log)),
                )
            });
            match client {
                Ok(c) => sessions.push((i, Box::new(c))),
                Err(e) => {
                    errors.insert(i, format!("{e:#}"));
                }
            }
        }
        w.measure_latency(
            "rustls client against nginx",
            "peer-nginx",
            version,
            sessions,
            records,
        );
        if !s_time.is_empty() {
            let (_, openssl) = w.tool(OPENSSL.program)?;
            let both = format!("{openssl}; server {version}");
            let mut target = SliceTarget {
                w,
                servers: &mut servers,
                logs: BTreeMap::new(),
            };
            s_time_slices(w, &s_time, &mut target, &both, records)?;
        }
        for &i in idx {
            let setup = Peer::setup_of(&w.arms[i], w.args);
            let Some(Ok(server)) = servers.get(&setup) else {
                continue;
            };
            let bad = server.errors();
            if let (Some(first), Some(Some(rec))) = (bad.first(), records.get_mut(i)) {
                if rec.error.is_none() && rec.skipped.is_none() {
                    rec.error = Some(format!(
                        "nginx's error log has {} line(s) at [error] or worse: {first}",
                        bad.len()
                    ));
                }
            }
        }
        for (i, e) in errors {
            records[i] = Some(w.arms[i].error_arm(Some(version.to_string()), e));
        }
        Ok(())
    }

    fn settings(&self, args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_nginx", format!("nginx -p <private folder> -c <its config> -e <error log> -g 'daemon off; master_process off;' (one process, as the collector's user: no worker that drops privileges), one per cert × protocol × group × tickets on/off; config written by the collector into the run's private folder (0700; the key 0600 there; removed at the end): listen 127.0.0.1:<port> ssl; ssl_protocols <the arm's>; ssl_ecdh_curve <the arm's group>; ssl_session_cache {}; ssl_session_timeout 1h; ssl_session_tickets on|off; location = /x {{ return 200 \"x\"; }}; access_log in the format `{}`; error_log at notice, any line at [error] or worse makes its arms errors; confirmed ready by one untimed full rustls handshake that must present the run's leaf", if args.nginx_resumption_off { "off (and tickets off: --nginx-resumption-off)" } else { "shared:hlab:1m" }, access_log::LOG_FORMAT))]
    }
}

/// nginx as the server of s_time arms.
struct SliceTarget<'a> {
    w: &'a Work<'a>,
    servers: &'a mut BTreeMap<Setup, std::result::Result<Nginx, String>>,
    logs: BTreeMap<Setup, AccessLog>,
}

impl SliceServer for SliceTarget<'_> {
    fn addr(&mut self, i: usize) -> Result<SocketAddr> {
        let setup = Peer::setup_of(&self.w.arms[i], self.w.args);
        match self.servers.get_mut(&setup) {
            Some(Ok(s)) => {
                s.check_alive()?;
                let log = match self.logs.entry(setup) {
                    std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::btree_map::Entry::Vacant(e) => e.insert(s.access_log()?),
                };
                log.skip_to_end()?;
                Ok(s.addr())
            }
            Some(Err(e)) => bail!("{e}"),
            None => bail!("no nginx for {}", setup.name()),
        }
    }

    fn seen(&mut self, i: usize) -> Result<Option<KindCounts>> {
        let setup = Peer::setup_of(&self.w.arms[i], self.w.args);
        match self.logs.get_mut(&setup) {
            Some(log) => log.kinds_since().map(Some),
            None => Ok(None),
        }
    }
}
