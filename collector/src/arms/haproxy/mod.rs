//! HAProxy as a peer server (OpenSSL inside; the TLS terminator many sites run in front of
//! their servers): the rustls client against it, full and resumed (stateful: tickets off,
//! its session cache; ticket: tickets on), TLS 1.3 and 1.2, the group pinned per arm.
//! HAProxy's end of every connection comes from its own log (`%[ssl_fc_is_resumed]`,
//! `%[ssl_fc_protocol]`, the client's port), matched by port like nginx's access log. One
//! HAProxy per setup, from a config the collector writes into the run's private folder,
//! answering `GET /x` itself (`http-request return`): no backend.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use shared::{Arm, CertKind, KxGroup, Protocol, Stack};

use super::openssl::{ecdsa_tls12_skip, group_name};
use super::rustls::www::ServerView;
use super::{Cell, HandshakeMode};
use crate::arms::peer::launch::{Launch, Output};
use crate::arms::peer::port_log::{Line, PortLog};
use crate::arms::peer::process::{free_loopback_addr, ServerProcess};
use crate::arms::peer::servers::{
    run_rustls_against, rustls_arm, CellSetup, PeerServer, ServerStack,
};
use crate::arms::peer::{ask_version, first_line};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use crate::arms::verify::named_group;
use crate::arms::Plan;

pub const NAME: &str = "haproxy";

/// The `haproxy` program.
pub const HAPROXY: Tool = Tool {
    program: "haproxy",
    version,
};

/// The log format the collector gives HAProxy: a marker, the client's port, whether the
/// TLS session was resumed (`1`/`0`) and the version.
pub const LOG_FORMAT: &str = "hlab %cp %[ssl_fc_is_resumed] %[ssl_fc_protocol]";

/// `haproxy -vv`: its version and the OpenSSL it runs on, e.g. `HAProxy version 2.6.12-1
/// 2023/04/01 (running on OpenSSL 3.0.19 27 Jan 2026)`.
pub fn version(program: &Path) -> Result<String> {
    let (out, _) = ask_version(program, &["-vv"])?;
    let name = first_line(program, &out)?;
    let name = name.split(" - ").next().unwrap_or(&name).trim().to_string();
    Ok(
        match out
            .lines()
            .find_map(|l| l.trim().strip_prefix("Running on OpenSSL version :"))
        {
            Some(ssl) => format!("{name} (running on {})", ssl.trim()),
            None => name,
        },
    )
}

/// What one HAProxy is configured with: tickets off (`no-tls-tickets`) for the stateful
/// arms, so only its session cache resumes them.
pub type Setup = CellSetup;

/// The config for `setup`, listening on `addr`, its certificate and key in `pem`.
pub fn config(setup: &Setup, addr: SocketAddr, pem: &Path) -> Result<String> {
    let version = if setup.protocol == Protocol::Tls12 {
        "TLSv1.2"
    } else {
        "TLSv1.3"
    };
    let curve = group_name(setup.group).ok_or_else(|| {
        anyhow!(
            "HAProxy here runs on OpenSSL 3.0, which has no {}",
            setup.group
        )
    })?;
    Ok(format!(
        "# Written by the Handshake Lab collector for one run; removed with its folder.
global
log stdout format raw local0 info
nbthread 1
tune.ssl.cachesize 20000
tune.ssl.lifetime 3600
defaults
mode http
log global
log-format \"{LOG_FORMAT}\"
timeout connect 10s
timeout client 30s
timeout server 30s
frontend hlab
bind {addr} ssl crt {pem} ssl-min-ver {version} ssl-max-ver {version} curves {curve}{tickets}
http-request return status 200 content-type text/plain string x if {{ path /x }}
http-request return status 404
",
        pem = pem.display(),
        tickets = if setup.tickets { "" } else { " no-tls-tickets" },
    ))
}

/// Parses one log line written with [`LOG_FORMAT`]. The group is the one the setup pins
/// (`curves` allows no other; HAProxy 2.6 has no fetch that prints it): `group`.
pub fn parse_line(line: &str, group: KxGroup) -> Result<Line> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let ["hlab", port, resumed, protocol] = fields[..] else {
        bail!("not a log line of the collector's format: {line:?}");
    };
    let kind = match resumed {
        "1" => rustls::HandshakeKind::Resumed,
        "0" => rustls::HandshakeKind::Full,
        other => bail!("unexpected ssl_fc_is_resumed {other:?} in {line:?}"),
    };
    Line::openssl(line, port, kind, protocol, Some(named_group(group)))
}

/// A running HAProxy for one [`Setup`].
pub struct Haproxy {
    setup: Setup,
    process: ServerProcess,
    log: PathBuf,
    stderr: PathBuf,
    io_timeout: Duration,
}

/// Reads HAProxy's log lines of `group`'s setup (a fn pointer per group: the parser
/// carries no state).
fn parser(group: KxGroup) -> fn(&str) -> Result<Line> {
    match group {
        KxGroup::X25519 => |l| parse_line(l, KxGroup::X25519),
        KxGroup::Secp256r1 => |l| parse_line(l, KxGroup::Secp256r1),
        KxGroup::Secp384r1 => |l| parse_line(l, KxGroup::Secp384r1),
        KxGroup::X25519Mlkem768 => |l| parse_line(l, KxGroup::X25519Mlkem768),
    }
}

impl PeerServer for Haproxy {
    fn addr(&self) -> SocketAddr {
        self.process.addr()
    }

    fn view(&self) -> Result<Option<Box<dyn ServerView>>> {
        Ok(Some(Box::new(PortLog::from_end(
            self.log.clone(),
            self.io_timeout,
            "haproxy",
            parser(self.setup.group),
        )?)))
    }

    fn check_alive(&mut self) -> Result<()> {
        self.process.check_alive()
    }

    /// Any `[ALERT]` line HAProxy printed.
    fn problem(&self) -> Option<String> {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let alerts: Vec<&str> = text.lines().filter(|l| l.contains("[ALERT]")).collect();
        alerts
            .first()
            .map(|first| format!("haproxy printed {} [ALERT] line(s): {first}", alerts.len()))
    }
}

pub struct Peer;

impl ServerStack for Peer {
    type Setup = Setup;
    type Server = Haproxy;

    fn server_tool(&self) -> Tool {
        HAPROXY
    }

    fn setup(&self, cell: &Cell, _args: &PeerArgs) -> Setup {
        CellSetup::of(cell)
    }

    fn start(
        &self,
        program: &Path,
        setup: Setup,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Haproxy> {
        let name = setup.name();
        let files = &w.files[&setup.cert];
        // HAProxy loads the certificate and its key from one file: both, in the private
        // folder (0600), like the key file nginx and Caddy read.
        let pem_path = w.dir.path().join(format!("haproxy-{}.pem", setup.cert));
        if !pem_path.exists() {
            let mut both = std::fs::read(&files.cert)?;
            both.extend(std::fs::read(&files.key)?);
            w.dir.write(&format!("haproxy-{}.pem", setup.cert), &both)?;
        }
        let addr = free_loopback_addr()?;
        let conf = w.dir.write(
            &format!("haproxy-{name}.cfg"),
            config(&setup, addr, &pem_path)?.as_bytes(),
        )?;
        let mut cmd = Command::new(program);
        cmd.arg("-db").arg("-f").arg(&conf);
        let launch = Launch::new("haproxy", "haproxy", name, addr, Output::LogAndStderr);
        let started = launch.start(&mut cmd, w.dir, w.ctx.io_timeout, ready)?;
        Ok(Haproxy {
            setup,
            log: started.stdout.context("haproxy's log")?,
            process: started.process,
            stderr: started.stderr,
            io_timeout: w.ctx.io_timeout,
        })
    }
}

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn no_ml_dsa(&self) -> Option<&'static str> {
        Some("HAProxy loads keys through OpenSSL, which has ML-DSA from 3.5 on")
    }

    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
        Cell::matrix(certs, groups, &HandshakeMode::ALL)
            .into_iter()
            .map(|cell| {
                let mut arm = rustls_arm(NAME, "haproxy", Stack::Haproxy, vec![HAPROXY], cell, "HAProxy (a separate process, one thread; one per cert, protocol, group and ticket setting; it answers GET /x itself, no backend), whose log gives its end of every connection (%[ssl_fc_is_resumed], %[ssl_fc_protocol], the client's port), matched by the client's port and checked like a rustls server's report (the group is the one `curves` pins: HAProxy 2.6 does not log it); after the timer the client sends GET /x and reads the 1-byte answer (TLS 1.3 tickets arrive with it). Stateful arms: no-tls-tickets, so only its session cache can resume; ticket arms: tickets on");
                arm.known_skip = if group_name(cell.group).is_none() {
                    Some(format!("HAProxy here runs on OpenSSL 3.0, which has no {} (OpenSSL has ML-KEM hybrids from 3.5): this cell is not measured", cell.group))
                } else {
                    ecdsa_tls12_skip(&arm.spec)
                };
                arm
            })
            .collect()
    }

    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        run_rustls_against(self, w, idx, records)
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_haproxy", format!("haproxy -db -f <its config> (foreground, one process, nbthread 1), one per cert × protocol × group × tickets on/off; config written by the collector into the run's private folder (0700; the certificate and key in one file, 0600, removed at the end): bind 127.0.0.1:<port> ssl crt <that file> ssl-min-ver = ssl-max-ver = the arm's version, curves <the arm's group> [no-tls-tickets for stateful arms]; tune.ssl.cachesize 20000, tune.ssl.lifetime 3600; http-request return status 200 string x on /x; log stdout format raw with log-format `{LOG_FORMAT}`, read as the server's end of each connection; any [ALERT] line on its stderr makes its arms errors; confirmed ready by one untimed full rustls handshake that must present the run's leaf"))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_give_each_connections_server_view() {
        let full = parse_line("hlab 46168 0 TLSv1.3", KxGroup::X25519).unwrap();
        assert_eq!(full.port, 46168);
        assert_eq!(full.handshake.kind, rustls::HandshakeKind::Full);
        assert_eq!(
            full.handshake.protocol,
            Some(rustls::ProtocolVersion::TLSv1_3)
        );
        assert_eq!(full.handshake.kx_group, Some(rustls::NamedGroup::X25519));
        let resumed = parse_line("hlab 40286 1 TLSv1.2", KxGroup::Secp256r1).unwrap();
        assert_eq!(resumed.handshake.kind, rustls::HandshakeKind::Resumed);
        assert_eq!(
            resumed.handshake.protocol,
            Some(rustls::ProtocolVersion::TLSv1_2)
        );
        for bad in [
            "",
            "hlab 40300 - -",
            "hlab 40300 yes TLSv1.3",
            "hlab 99999 1 TLSv1.3",
            "xlab 40300 1 TLSv1.3",
            "[NOTICE]   (1234) : haproxy version is 2.6.12",
        ] {
            assert!(parse_line(bad, KxGroup::X25519).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_config_pins_version_group_and_tickets() {
        let setup = Setup {
            cert: CertKind::Rsa2048,
            protocol: Protocol::Tls12,
            group: KxGroup::Secp256r1,
            tickets: false,
        };
        let addr: SocketAddr = "127.0.0.1:18443".parse().unwrap();
        let conf = config(&setup, addr, Path::new("/p/haproxy.pem")).unwrap();
        assert!(conf.contains("bind 127.0.0.1:18443 ssl crt /p/haproxy.pem ssl-min-ver TLSv1.2 ssl-max-ver TLSv1.2 curves P-256 no-tls-tickets"), "{conf}");
        assert!(conf.contains(LOG_FORMAT));
        let tickets = Setup {
            tickets: true,
            ..setup
        };
        assert!(!config(&tickets, addr, Path::new("/p/h.pem"))
            .unwrap()
            .contains("no-tls-tickets"));
        let hybrid = Setup {
            group: KxGroup::X25519Mlkem768,
            ..setup
        };
        assert!(config(&hybrid, addr, Path::new("/p/h.pem")).is_err());
    }

    #[test]
    fn plan_has_every_cell_with_openssls_skips() {
        let arms = Peer.plan(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519, KxGroup::X25519Mlkem768],
        );
        // Per cert: x25519 × 2 versions × 3 handshakes, the hybrid × TLS 1.3 × 3.
        assert_eq!(arms.len(), 2 * (6 + 3));
        assert!(arms
            .iter()
            .any(|a| a.id == "rustls-vs-haproxy-tls12-resumed-stateful-rsa2048-x25519"));
        let skipped = arms.iter().filter(|a| a.known_skip.is_some()).count();
        // The hybrid (3 per cert) and ECDSA under TLS 1.2 with x25519 (3).
        assert_eq!(skipped, 2 * 3 + 3);
    }
}
