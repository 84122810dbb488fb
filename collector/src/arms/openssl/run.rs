//! Running the OpenSSL arms: one `openssl s_server` per certificate, the rustls client
//! against it (latency arms, through the shared timing loop), and `openssl s_time`
//! against it and against a rustls server (rate arms, in slices interleaved across arms;
//! [`s_time_slices`] also runs other stacks' s_time arms).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

use anyhow::{anyhow, Result};
use shared::{Arm, CertKind, KindCounts, KxGroup, Protocol};

use super::rate::{self, STimeRun};
use super::s_server;
use super::s_time::{rustls_server_for_s_time, s_time_slice};
use super::{Peer, STimeArm, VS_RUSTLS, WWW_FILE};
use crate::arms::peer::process::ServerProcess;
use crate::arms::peer::servers::{ServerStack, Servers};
use crate::arms::peer::{PeerArgs, Tool, Work};
use crate::arms::server::Server;
use crate::arms::Cell;

impl ServerStack for Peer {
    /// One s_server per certificate (every OpenSSL arm pins the same group).
    type Setup = (CertKind, KxGroup);
    type Server = ServerProcess;

    fn server_name(&self) -> &'static str {
        "s_server"
    }

    fn server_tool(&self) -> Tool {
        super::OPENSSL
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
        s_server::start(program, cert, group, w, ready)
    }

    fn counts_under(&self) -> bool {
        true
    }
}

/// Runs the OpenSSL arms `idx`; failures become arm errors.
pub(super) fn run(w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
    w.dir.subdir("www")?;
    w.dir.write(&format!("www/{WWW_FILE}"), b"x")?;
    let mut servers = Servers::new(&Peer, w)?;
    servers.run_rustls_arms(idx, records);
    let version = servers.version;
    let mut rustls_servers: BTreeMap<(CertKind, Protocol), Server> = BTreeMap::new();
    let mut s_time = Vec::new();
    for &i in idx {
        let Some(arm) = w.arms[i].detail::<STimeArm>() else {
            continue;
        };
        let Some(cell) = w.arms[i].spec.cell() else {
            servers
                .errors
                .insert(i, format!("{} is not a handshake arm", w.arms[i].id));
            continue;
        };
        let key = (cell.cert, cell.protocol());
        if arm.server == VS_RUSTLS && !rustls_servers.contains_key(&key) {
            match rustls_server_for_s_time(&cell.full().spec(), w.store, w.ctx.io_timeout) {
                Ok(s) => {
                    rustls_servers.insert(key, s);
                }
                Err(e) => {
                    servers.errors.insert(i, format!("{e:#}"));
                }
            }
        }
        if !servers.errors.contains_key(&i) {
            s_time.push(i);
        }
    }
    let mut targets = OpensslServers {
        w,
        s_servers: &mut servers,
        rustls: &rustls_servers,
    };
    s_time_slices(w, &s_time, &mut targets, version, records)?;
    servers.finish(records);
    crate::arms::peer::counted::count_servers(&Peer, w, idx, records);
    Ok(())
}

/// The servers the OpenSSL stack's s_time arms run against.
struct OpensslServers<'a, 'w> {
    w: &'a Work<'a>,
    s_servers: &'a mut Servers<'w, Peer>,
    rustls: &'a BTreeMap<(CertKind, Protocol), Server>,
}

impl OpensslServers<'_, '_> {
    /// Arm `i`'s cell and whether it runs against the rustls server.
    fn arm(&self, i: usize) -> Result<(Cell, bool)> {
        let arm = &self.w.arms[i];
        let s_time = arm
            .detail::<STimeArm>()
            .ok_or_else(|| anyhow!("{} is not an s_time arm", arm.id))?;
        let cell = arm
            .spec
            .cell()
            .ok_or_else(|| anyhow!("{} is not a handshake arm", arm.id))?;
        Ok((cell, s_time.server == VS_RUSTLS))
    }

    fn rustls(&self, cell: &Cell) -> Result<&Server> {
        self.rustls
            .get(&(cell.cert, cell.protocol()))
            .ok_or_else(|| anyhow!("no rustls server for {cell}"))
    }
}

impl SliceServer for OpensslServers<'_, '_> {
    fn addr(&mut self, i: usize) -> Result<SocketAddr> {
        let (cell, vs_rustls) = self.arm(i)?;
        if vs_rustls {
            let s = self.rustls(&cell)?;
            s.take_reports();
            return Ok(s.addr());
        }
        match self.s_servers.server(i, &cell) {
            Some(s) => {
                s.check_alive()?;
                Ok(s.addr())
            }
            None => anyhow::bail!("no s_server for {}", cell.cert),
        }
    }

    fn seen(&mut self, i: usize, _connections: u64) -> Result<Option<KindCounts>> {
        let (cell, vs_rustls) = self.arm(i)?;
        if !vs_rustls {
            return Ok(None);
        }
        let mut kinds = KindCounts::default();
        for r in self.rustls(&cell)?.take_reports() {
            match r.result {
                Ok(Some(h)) if h.kind == rustls::HandshakeKind::Resumed => kinds.resumed += 1,
                Ok(Some(h)) if h.kind == rustls::HandshakeKind::Full => kinds.full += 1,
                Ok(Some(_)) => kinds.full_with_hello_retry += 1,
                _ => {}
            }
        }
        Ok(Some(kinds))
    }
}

/// The server of an s_time arm, as the slices need it.
pub trait SliceServer {
    /// Where arm `i`'s next slice connects, once its server is ready for it (what it saw
    /// before is forgotten).
    fn addr(&mut self, i: usize) -> Result<SocketAddr>;
    /// The handshake kinds the server saw since [`SliceServer::addr`], where it tells;
    /// `connections`: how many the slice's client counted (the server saw at least these).
    fn seen(&mut self, i: usize, connections: u64) -> Result<Option<KindCounts>>;
}

/// s_time arms `idx` (each an [`STimeArm`]): `--peer-slices` runs per arm, interleaved
/// across arms in a seeded order; each arm gets its record, with `version` as its peer
/// version (interrupted arms with no slice get none).
pub fn s_time_slices(
    w: &Work,
    idx: &[usize],
    servers: &mut dyn SliceServer,
    version: &str,
    records: &mut [Option<Arm>],
) -> Result<()> {
    let (program, _) = w.tool("openssl")?;
    let mut runs: BTreeMap<usize, STimeRun> =
        idx.iter().map(|&i| (i, STimeRun::default())).collect();
    let (slices, slice_s) = (
        w.args.peer_slices,
        w.args.peer_seconds / w.args.peer_slices as f64,
    );
    let mut rng = fastrand::Rng::with_seed(w.ctx.seed ^ 0x0551);
    let mut order: Vec<usize> = idx.to_vec();
    if !order.is_empty() {
        eprintln!(
            "collector: peer arms: openssl s_time, {} arms × {slices} slices of {slice_s:.2} s",
            order.len()
        );
    }
    'slices: for _ in 0..slices {
        rng.shuffle(&mut order);
        for &i in &order {
            if w.stopped() {
                break 'slices;
            }
            let Some(&arm) = w.arms[i].detail::<STimeArm>() else {
                continue;
            };
            let Some(run) = runs.get_mut(&i) else {
                continue;
            };
            if run.error.is_some() {
                continue;
            }
            let addr = match servers.addr(i) {
                Ok(a) => a,
                Err(e) => {
                    run.error = Some(format!("{e:#}"));
                    continue;
                }
            };
            let slice = s_time_slice(
                program,
                addr,
                w.arms[i].spec.protocol(),
                arm.mode,
                slice_s,
                w.ctx.io_timeout,
                w.ctx.stop,
            );
            let made = match &slice {
                Ok(Some(s)) => s.counts.connections,
                _ => 0,
            };
            match slice {
                Ok(Some(slice)) => run.slices.push(slice),
                // Interrupted: this slice counts for nothing, and a tool killed by the
                // same Ctrl-C is no failure of the arm.
                Ok(None) => break 'slices,
                Err(_) if w.stopped() => break 'slices,
                Err(e) => run.error = Some(format!("slice {}: {e:#}", run.slices.len() + 1)),
            }
            match servers.seen(i, made) {
                Ok(Some(k)) => {
                    let kinds = run.server_kinds.get_or_insert_with(KindCounts::default);
                    kinds.full += k.full;
                    kinds.full_with_hello_retry += k.full_with_hello_retry;
                    kinds.resumed += k.resumed;
                }
                Ok(None) => {}
                Err(e) => run.error = Some(format!("the server's view: {e:#}")),
            }
        }
    }
    let interrupted = w.stopped();
    for (i, run) in runs {
        if !(interrupted && run.slices.is_empty()) {
            let empty = w.empty_arm(i, Some(version.to_string()));
            records[i] = Some(rate::rate_arm(&w.arms[i], empty, &run));
        }
    }
    Ok(())
}
