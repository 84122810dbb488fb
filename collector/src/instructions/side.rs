//! `collector count-side` (hidden): one end of some arms' counted handshakes, run by the
//! collector under callgrind in a process of its own. The certificates come on stdin
//! ([`super::handoff`]); the server listens on a loopback port it prints first
//! (`listening PORT`). Arm after arm, each end makes the arm's warm-up handshakes
//! uncounted, then the counted ones through its [`window`] function, checks every counted
//! handshake (its kind, version and group, as the timed arms do), prints the arm's
//! [`SideReport`] as a line and calls [`window::hlab_arm_done`], after which callgrind
//! writes the arm's count to a file of its own. One process per end serves many arms:
//! under valgrind, starting a process and translating its first handshake's code costs
//! seconds, counting one more handshake a fraction of one.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use rustls::pki_types::ServerName;
use rustls::RootCertStore;
use serde::{Deserialize, Serialize};
use shared::{CertKind, KindCounts, KxGroup};

use super::handoff;
use super::window::{self, Window};
use crate::arms::{rustls as tls, verify, ArmSpec, Cell, Fault, HandshakeMode};
use crate::certs::CertStore;

/// What the server prints before its port, on a line of its own.
pub const LISTENING: &str = "listening ";

/// Uncounted rounds of the calibration loop between two counted windows: were any of
/// them counted, a window would count far more than its own loop.
pub const CALIBRATION_NOISE: u64 = 100_000;

#[derive(Debug, Args)]
pub struct CountSideArgs {
    #[command(subcommand)]
    pub role: Role,
}

#[derive(Debug, Subcommand)]
pub enum Role {
    /// The client end: connects to PORT for every handshake.
    Client {
        #[command(flatten)]
        arms: ArmList,
        #[arg(long)]
        port: u16,
    },
    /// The server end: listens on a loopback port of its own and prints it.
    Server {
        #[command(flatten)]
        arms: ArmList,
        /// The server keeps no session state and issues no tickets (`run
        /// --break-resumption`): every resumed arm's count must fail.
        #[arg(long)]
        break_resumption: bool,
    },
    /// WINDOWS counted windows of ITERATIONS rounds of a fixed loop each, with
    /// uncounted rounds of the same loop between them.
    Calibrate {
        #[arg(long)]
        iterations: u64,
        #[arg(long)]
        windows: u64,
    },
}

/// The arms, one after the other, and how many handshakes an end makes in each.
#[derive(Debug, Clone, Args)]
pub struct ArmList {
    /// Handshake arm ids, e.g. `tls13-resumed-ticket-rsa2048-x25519`, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub arms: Vec<String>,
    #[arg(long)]
    pub warmup: u64,
    #[arg(long)]
    pub handshakes: u64,
    #[arg(long)]
    pub io_timeout_ms: u64,
}

/// What one end reports of its counted handshakes (its stdout's last line, JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideReport {
    /// The arm's id.
    pub arm: String,
    /// Counted windows this end went through.
    pub handshakes: u64,
    /// The kinds rustls reported for the counted handshakes.
    pub kinds: KindCounts,
    /// What broke the arm's promise on a counted handshake (kind, version or group), with
    /// how often.
    pub problems: BTreeMap<String, u64>,
}

impl Role {
    /// The function whose calls are counted in this role.
    pub fn window(&self) -> Window {
        match self {
            Role::Client { .. } => Window::Client,
            Role::Server { .. } => Window::Server,
            Role::Calibrate { .. } => Window::Calibrate,
        }
    }
}

pub fn command(args: CountSideArgs) -> Result<()> {
    match args.role {
        Role::Client { arms, port } => client(&arms, port),
        Role::Server {
            arms,
            break_resumption,
        } => server(&arms, break_resumption),
        Role::Calibrate {
            iterations,
            windows,
        } => {
            calibrate(iterations, windows);
            Ok(())
        }
    }
}

/// Prints one arm's report as a line of its own, then lets callgrind dump its count.
fn done(k: usize, report: &SideReport) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(report)?)?;
    out.flush()?;
    window::hlab_arm_done(k);
    Ok(())
}

/// The handshake arm with `id`, from every cell the lab has.
pub fn arm(id: &str) -> Result<ArmSpec> {
    Cell::matrix(CertKind::ALL, KxGroup::ALL, &HandshakeMode::ALL)
        .into_iter()
        .map(|c| c.spec())
        .find(|s| s.id() == id)
        .with_context(|| format!("`{id}` is not a handshake arm"))
}

fn stdin_text() -> Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("reading the certificates from stdin")?;
    Ok(text)
}

fn client(list: &ArmList, port: u16) -> Result<()> {
    let roots = handoff::roots(&stdin_text()?)?;
    let name = ServerName::try_from("localhost")?;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Duration::from_millis(list.io_timeout_ms);
    let total = list.warmup + list.handshakes;
    for (k, id) in list.arms.iter().enumerate() {
        let spec = arm(id)?;
        let mut trusted = RootCertStore::empty();
        let cert = spec.cert().context("a handshake arm has a certificate")?;
        trusted.add(
            roots
                .get(&cert)
                .cloned()
                .with_context(|| format!("no {cert} root on stdin"))?,
        )?;
        let config = Arc::new(tls::client_config_trusting(&spec, trusted)?);
        let mut tally = Tally::default();
        for i in 0..total {
            let socket = crate::arms::server::ready_socket(timeout)?;
            socket
                .connect(&addr.into())
                .with_context(|| format!("connecting to {addr}"))?;
            let mut tcp: TcpStream = socket.into();
            let conn = if i < list.warmup {
                window::client(&config, &name, &mut tcp)
            } else {
                window::hlab_counted_client_window(&config, &name, &mut tcp)
            }
            .with_context(|| format!("{id}: handshake {} of {total}", i + 1))?;
            if i >= list.warmup {
                tally.add(&spec, "client", &conn);
            }
            // Closed with RST (SO_LINGER 0): the server's drain ends.
        }
        done(k + 1, &tally.report(id))?;
    }
    Ok(())
}

fn server(list: &ArmList, break_resumption: bool) -> Result<()> {
    let store = CertStore::from_sets(handoff::server_sets(&stdin_text()?)?);
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("binding 127.0.0.1")?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{LISTENING}{}", listener.local_addr()?.port())?;
        out.flush()?;
    }
    let timeout = Some(Duration::from_millis(list.io_timeout_ms));
    let total = list.warmup + list.handshakes;
    for (k, id) in list.arms.iter().enumerate() {
        let mut spec = arm(id)?;
        if break_resumption {
            spec.fault = Fault::NoSessionStore;
        }
        let config = Arc::new(tls::server_config(&spec, &store)?);
        let mut tally = Tally::default();
        for i in 0..total {
            let (mut tcp, _) = listener.accept().context("accept")?;
            tcp.set_nodelay(true)?;
            tcp.set_read_timeout(timeout)?;
            tcp.set_write_timeout(timeout)?;
            let conn = if i < list.warmup {
                window::server(&config, &mut tcp)
            } else {
                window::hlab_counted_server_window(&config, &mut tcp)
            }
            .with_context(|| format!("{id}: handshake {} of {total}", i + 1))?;
            if i >= list.warmup {
                tally.add(&spec, "server", &conn);
            }
            // Until the client's close, so no connection overlaps the next.
            crate::arms::server::drain(&mut tcp);
        }
        done(k + 1, &tally.report(id))?;
    }
    Ok(())
}

fn calibrate(iterations: u64, windows: u64) {
    let mut acc = 0u64;
    for _ in 0..windows {
        acc = acc.wrapping_add(window::calibration_loop(CALIBRATION_NOISE));
        acc = acc.wrapping_add(window::hlab_counted_calibrate_window(iterations));
    }
    std::hint::black_box(acc);
}

/// Kinds and problems over the counted handshakes.
#[derive(Default)]
struct Tally {
    handshakes: u64,
    kinds: KindCounts,
    problems: BTreeMap<String, u64>,
}

impl Tally {
    fn add(&mut self, spec: &ArmSpec, side: &str, conn: &rustls::CommonState) {
        self.handshakes += 1;
        let Some(facts) = tls::facts(conn) else {
            *self
                .problems
                .entry(format!("{side} reported no handshake"))
                .or_default() += 1;
            return;
        };
        crate::arms::measured::count_kind(&mut self.kinds, facts.kind);
        let mut problems = Vec::new();
        verify::check_side(spec, side, &facts, &mut problems);
        for p in problems {
            *self.problems.entry(p).or_default() += 1;
        }
    }

    fn report(self, arm: &str) -> SideReport {
        SideReport {
            arm: arm.to_string(),
            handshakes: self.handshakes,
            kinds: self.kinds,
            problems: self.problems,
        }
    }
}

/// The port a server printed on `line`, if it is the line that says so.
pub fn port_of(line: &str) -> Option<u16> {
    line.trim().strip_prefix(LISTENING)?.parse().ok()
}

/// Checks that a report's counted handshakes are what was asked.
pub fn check_count(report: &SideReport, asked: u64) -> Result<()> {
    if report.handshakes != asked {
        bail!(
            "{} counted handshakes reported, {asked} asked",
            report.handshakes
        );
    }
    Ok(())
}
