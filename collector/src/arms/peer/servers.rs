//! The rustls client against a peer server, written once for every server stack: one
//! server process per setup (started on first use, ready when it presents the run's leaf),
//! the rustls client's arms measured through the shared timing loop, the server's own
//! report of each connection where it gives one, then health checks and records.
//!
//! A server stack implements [`ServerStack`] (its setups and how to start one) and
//! [`PeerServer`] (a running one); its plan makes its arms with [`rustls_arm`], and its
//! [`super::PeerStack::run`] is [`Servers::run_rustls_arms`] plus whatever else it has.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;

use anyhow::Result;
use shared::{Arm, CertKind, KxGroup, Protocol, Resumption, Stack};

use super::arm::{PeerArm, Tool};
use super::process::ServerProcess;
use super::ready::presents_leaf;
use super::work::Work;
use super::PeerArgs;
use crate::arms::rustls::www::{Exchange, ServerView, WwwClient, HTTP_X};
use crate::arms::{Cell, HandshakeMode, Session};

/// A peer TLS server the rustls client measures: which setup each cell needs, and how to
/// start a server for it.
pub trait ServerStack: Sync {
    /// What one server process is configured with (one process per distinct setup).
    type Setup: Copy + Ord + fmt::Debug + Send + Sync;
    type Server: PeerServer;
    /// The program that runs the server.
    fn server_tool(&self) -> Tool;
    /// Its name in messages and round groups (`peer-<name>`), e.g. `nginx`,
    /// `gnutls-serv`: its program's unless the stack says otherwise.
    fn server_name(&self) -> &'static str {
        self.server_tool().program
    }
    /// What the client sends after the handshake and the answer it waits for.
    fn exchange(&self) -> Exchange {
        HTTP_X
    }
    /// The setup the arm of `cell` connects to.
    fn setup(&self, cell: &Cell, args: &PeerArgs) -> Self::Setup;
    /// Whether [`ServerStack::start`] runs its server under [`Work::under`], so that its
    /// instructions can be counted: a stack that says so calls
    /// [`super::counted::count_servers`] after its timed arms (OpenSSL's and nginx's do).
    fn counts_under(&self) -> bool {
        false
    }
    /// Starts a server for `setup` (its program at `program`, under [`Work::under`] where
    /// [`ServerStack::counts_under`]), ready once `ready` succeeds against its address.
    fn start(
        &self,
        program: &Path,
        setup: Self::Setup,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Self::Server>;
}

/// A running peer server.
pub trait PeerServer {
    fn addr(&self) -> SocketAddr;
    /// Its own report of each connection from now on, or None when it gives none (its end
    /// of each connection is then unverified).
    fn view(&self) -> Result<Option<Box<dyn ServerView>>>;
    /// An error (with the end of its log) if the process has ended.
    fn check_alive(&mut self) -> Result<()>;
    /// Its process id, where it is one process (a counter reaches it by it).
    fn pid(&self) -> Option<u32> {
        None
    }
    /// What its logs show went wrong so far, if anything (it makes its arms errors).
    fn problem(&self) -> Option<String> {
        None
    }
}

/// A server that gives no report of its connections is just its process: its end of
/// each connection is unverified.
impl PeerServer for ServerProcess {
    fn addr(&self) -> SocketAddr {
        ServerProcess::addr(self)
    }

    fn view(&self) -> Result<Option<Box<dyn ServerView>>> {
        Ok(None)
    }

    fn check_alive(&mut self) -> Result<()> {
        ServerProcess::check_alive(self)
    }

    fn pid(&self) -> Option<u32> {
        Some(ServerProcess::pid(self))
    }
}

/// What most server stacks start one process for: a cell's certificate, version and
/// group, and whether session tickets are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CellSetup {
    pub cert: CertKind,
    pub protocol: Protocol,
    pub group: KxGroup,
    /// Session tickets on; off, only the server's session cache can resume.
    pub tickets: bool,
}

impl CellSetup {
    /// The setup of `cell`'s arm: tickets off for the stateful arms (so what resumes
    /// them is the session cache), on for the others.
    pub fn of(cell: &Cell) -> CellSetup {
        CellSetup {
            cert: cell.cert,
            protocol: cell.protocol(),
            group: cell.group,
            tickets: cell.handshake != HandshakeMode::Resumed(Resumption::Stateful),
        }
    }

    /// `rsa2048-tls13-x25519`: certificate, version and group, as in file names.
    pub fn stem(&self) -> String {
        setup_stem(self.cert, self.protocol, self.group)
    }

    /// Its name in file names, e.g. `rsa2048-tls13-x25519-tickets` or `…-no-tickets`.
    pub fn name(&self) -> String {
        let tickets = if self.tickets {
            "tickets"
        } else {
            "no-tickets"
        };
        format!("{}-{tickets}", self.stem())
    }
}

/// `rsa2048-tls13-x25519`: a server setup's certificate, version and group, as in the
/// names of its files.
pub fn setup_stem(cert: CertKind, protocol: Protocol, group: KxGroup) -> String {
    let tls = if protocol == Protocol::Tls12 {
        "tls12"
    } else {
        "tls13"
    };
    format!("{cert}-{tls}-{group}")
}

/// A server stack's whole run when all its arms are the rustls client against it: start
/// the servers, measure, check them and record.
pub fn run_rustls_against<S: ServerStack>(
    stack: &S,
    w: &Work,
    idx: &[usize],
    records: &mut [Option<Arm>],
) -> Result<()> {
    let mut servers = Servers::new(stack, w)?;
    servers.run_rustls_arms(idx, records);
    servers.finish(records);
    Ok(())
}

/// The detail of a rustls-client arm against a server stack: its cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RustlsAgainst(pub Cell);

/// The arm of the rustls client against `server` for `cell`, planned by `stack`:
/// id `rustls-vs-<server>-<cell>`, timed window the rustls arms' plus `server_window`.
pub fn rustls_arm(
    stack: &'static str,
    server: &'static str,
    server_stack: Stack,
    tools: Vec<Tool>,
    cell: Cell,
    server_window: &str,
) -> PeerArm {
    let spec = cell.spec();
    PeerArm::new(
        stack,
        format!("rustls-vs-{server}-{cell}"),
        spec,
        (server_stack, Stack::Rustls, server_stack),
        tools,
        format!("{} Server: {server_window}", spec.timed_window(false)),
        RustlsAgainst(cell),
    )
}

/// The servers of one stack's arms, one per setup, and the arms' errors so far.
pub struct Servers<'a, S: ServerStack> {
    stack: &'a S,
    w: &'a Work<'a>,
    program: &'a Path,
    pub version: &'a str,
    /// Each setup's server, or why it did not start.
    pub map: BTreeMap<S::Setup, std::result::Result<S::Server, String>>,
    /// Arm index → why it is an error (recorded by [`Servers::finish`]).
    pub errors: BTreeMap<usize, String>,
    /// Arm index → its setup, for every arm that uses a server.
    used: BTreeMap<usize, S::Setup>,
}

impl<'a, S: ServerStack> Servers<'a, S> {
    /// No server started yet; the stack's program must have been found.
    pub fn new(stack: &'a S, w: &'a Work<'a>) -> Result<Self> {
        let (program, version) = w.tool(stack.server_tool().program)?;
        Ok(Servers {
            stack,
            w,
            program,
            version,
            map: BTreeMap::new(),
            errors: BTreeMap::new(),
            used: BTreeMap::new(),
        })
    }

    /// The server of arm `i` (of `cell`), started if its setup has none yet. None (and an
    /// error for the arm) if it could not start.
    pub fn server(&mut self, i: usize, cell: &Cell) -> Option<&mut S::Server> {
        let setup = self.stack.setup(cell, self.w.args);
        self.used.insert(i, setup);
        let (stack, w, program) = (self.stack, self.w, self.program);
        let started = self.map.entry(setup).or_insert_with(|| {
            let probe = cell.full().spec();
            let ready = |addr| presents_leaf(&probe, w.store, addr, w.ctx.io_timeout);
            stack
                .start(program, setup, w, &ready)
                .map_err(|e| format!("{e:#}"))
        });
        match started {
            Ok(s) => Some(s),
            Err(e) => {
                let why = format!("{} did not start: {e}", stack.server_name());
                self.errors.entry(i).or_insert(why);
                None
            }
        }
    }

    /// Starts the servers of every arm in `idx` that is a [`RustlsAgainst`] arm, then
    /// measures those arms through the shared timing loop.
    pub fn run_rustls_arms(&mut self, idx: &[usize], records: &mut [Option<Arm>]) {
        let w = self.w;
        let exchange = self.stack.exchange();
        let mut sessions: Vec<(usize, Box<dyn Session>)> = Vec::new();
        for &i in idx {
            let Some(&RustlsAgainst(cell)) = w.arms[i].detail::<RustlsAgainst>() else {
                continue;
            };
            let name = self.stack.server_name();
            let Some(server) = self.server(i, &cell) else {
                continue;
            };
            let client = server.view().and_then(|view| {
                WwwClient::new(
                    &cell.spec(),
                    w.store,
                    server.addr(),
                    w.ctx.io_timeout,
                    name,
                    view,
                )
                .map(|c| c.with_exchange(exchange))
            });
            match client {
                Ok(c) => sessions.push((i, Box::new(c))),
                Err(e) => {
                    self.errors.insert(i, format!("{e:#}"));
                }
            }
        }
        let name = self.stack.server_name();
        w.measure_latency(
            &format!("rustls client against {name}"),
            &format!("peer-{name}"),
            self.version,
            sessions,
            records,
        );
    }

    /// Checks every server after its arms ran: one that ended makes its arms errors, one
    /// whose logs show a problem makes its measured arms errors; then records every error.
    pub fn finish(mut self, records: &mut [Option<Arm>]) {
        let mut dead: BTreeMap<S::Setup, String> = BTreeMap::new();
        let mut problems: BTreeMap<S::Setup, String> = BTreeMap::new();
        for (setup, server) in self.map.iter_mut() {
            if let Ok(s) = server {
                if let Err(e) = s.check_alive() {
                    dead.insert(*setup, format!("{e:#}"));
                } else if let Some(p) = s.problem() {
                    problems.insert(*setup, p);
                }
            }
        }
        for (&i, setup) in &self.used {
            if let Some(e) = dead.get(setup) {
                self.errors.entry(i).or_insert_with(|| e.clone());
            } else if let (Some(p), Some(Some(rec))) = (problems.get(setup), records.get_mut(i)) {
                if rec.error.is_none() && rec.skipped.is_none() {
                    rec.error = Some(p.clone());
                }
            }
        }
        for (i, e) in std::mem::take(&mut self.errors) {
            records[i] = Some(self.w.error_arm(i, Some(self.version.to_string()), e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arms::Tls;

    #[test]
    fn stateful_arms_get_a_setup_without_tickets() {
        let cell = |handshake| Cell {
            tls: Tls::Tls12,
            handshake,
            cert: CertKind::Rsa2048,
            group: KxGroup::Secp256r1,
        };
        let stateful = CellSetup::of(&cell(HandshakeMode::Resumed(Resumption::Stateful)));
        assert!(!stateful.tickets);
        assert_eq!(stateful.name(), "rsa2048-tls12-secp256r1-no-tickets");
        for h in [
            HandshakeMode::Full,
            HandshakeMode::Resumed(Resumption::Ticket),
        ] {
            let s = CellSetup::of(&cell(h));
            assert!(s.tickets, "{h:?}");
            assert_eq!(s.name(), "rsa2048-tls12-secp256r1-tickets");
        }
        assert_eq!(stateful.stem(), "rsa2048-tls12-secp256r1");
    }
}
