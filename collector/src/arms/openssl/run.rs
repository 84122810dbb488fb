//! Running the OpenSSL arms: one `openssl s_server` per certificate, the rustls client
//! against it (latency arms, through the shared timing loop), and `openssl s_time`
//! against it and against a rustls server (rate arms, in slices interleaved across arms;
//! [`s_time_slices`] also runs other stacks' s_time arms).

use std::collections::BTreeMap;
use std::net::SocketAddr;

use anyhow::Result;
use shared::{Arm, CertKind, KindCounts, Protocol};

use super::rate::{self, STimeRun};
use super::s_server::SServer;
use super::s_time::{rustls_server_for_s_time, s_time_slice};
use super::{RustlsToSServer, STimeArm, VS_RUSTLS, VS_S_SERVER, WWW_FILE};
use crate::arms::rustls::www::WwwClient;
use crate::arms::server::Server;
use crate::arms::{ArmSpec, Session};
use crate::peers::ready::presents_leaf;
use crate::peers::Work;

type Started<T> = std::result::Result<T, String>;

/// Runs the OpenSSL arms `idx`; failures become arm errors.
pub(super) fn run(w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
    let (program, version) = w.tool("openssl")?;
    let www = w.dir.subdir("www")?;
    w.dir.write(&format!("www/{WWW_FILE}"), b"x")?;
    let mut errors: BTreeMap<usize, String> = BTreeMap::new();
    let mut s_servers: BTreeMap<CertKind, Started<SServer>> = BTreeMap::new();
    for &i in idx {
        let spec = w.arms[i].spec;
        let needs_s_server = w.arms[i].detail::<RustlsToSServer>().is_some()
            || w.arms[i]
                .detail::<STimeArm>()
                .is_some_and(|s| s.server == VS_S_SERVER);
        if !needs_s_server {
            continue;
        }
        let cert = spec.cert.expect("OpenSSL arms have a cert");
        let group = spec.kx_group.expect("OpenSSL arms have a group");
        let server = s_servers.entry(cert).or_insert_with(|| {
            let log = w.dir.path().join(format!("s_server-{cert}.log"));
            let ready = |addr| presents_leaf(&spec, w.store, addr, w.ctx.io_timeout);
            SServer::start(
                program,
                &w.files[&cert],
                &www,
                group,
                log,
                w.ctx.io_timeout,
                &ready,
            )
            .map_err(|e| format!("{e:#}"))
        });
        if let Err(e) = server {
            errors.insert(i, format!("openssl s_server for {cert} did not start: {e}"));
        }
    }
    let mut sessions: Vec<(usize, Box<dyn Session>)> = Vec::new();
    for &i in idx {
        if w.arms[i].detail::<RustlsToSServer>().is_none() {
            continue;
        }
        let spec = w.arms[i].spec;
        let Some(Ok(server)) = s_servers.get(&spec.cert.expect("cert")) else {
            continue;
        };
        match WwwClient::new(
            &spec,
            w.store,
            server.addr(),
            w.ctx.io_timeout,
            "s_server",
            None,
        ) {
            Ok(c) => sessions.push((i, Box::new(c))),
            Err(e) => {
                errors.insert(i, format!("{e:#}"));
            }
        }
    }
    w.measure_latency(
        "rustls client against openssl s_server",
        "peer-s_server",
        version,
        sessions,
        records,
    );
    let mut rustls_servers: BTreeMap<(CertKind, Protocol), Server> = BTreeMap::new();
    let mut s_time = Vec::new();
    for &i in idx {
        let Some(arm) = w.arms[i].detail::<STimeArm>() else {
            continue;
        };
        let spec = w.arms[i].spec;
        let key = (spec.cert.expect("cert"), spec.protocol);
        if arm.server == VS_RUSTLS && !rustls_servers.contains_key(&key) {
            let base = ArmSpec {
                mode: shared::Mode::Full,
                resumption: None,
                ..spec
            };
            match rustls_server_for_s_time(&base, w.store, w.ctx.io_timeout) {
                Ok(s) => {
                    rustls_servers.insert(key, s);
                }
                Err(e) => {
                    errors.insert(i, format!("{e:#}"));
                }
            }
        }
        if !errors.contains_key(&i) {
            s_time.push(i);
        }
    }
    let mut servers = OpensslServers {
        w,
        s_servers: &mut s_servers,
        rustls: &rustls_servers,
    };
    s_time_slices(w, &s_time, &mut servers, version, records)?;
    for (i, e) in errors {
        records[i] = Some(w.arms[i].error_arm(Some(version.to_string()), e));
    }
    Ok(())
}

/// The servers the OpenSSL stack's s_time arms run against.
struct OpensslServers<'a> {
    w: &'a Work<'a>,
    s_servers: &'a mut BTreeMap<CertKind, Started<SServer>>,
    rustls: &'a BTreeMap<(CertKind, Protocol), Server>,
}

impl SliceServer for OpensslServers<'_> {
    fn addr(&mut self, i: usize) -> Result<SocketAddr> {
        let spec = self.w.arms[i].spec;
        let cert = spec.cert.expect("cert");
        let arm = self.w.arms[i].detail::<STimeArm>().expect("an s_time arm");
        if arm.server == VS_RUSTLS {
            let s = &self.rustls[&(cert, spec.protocol)];
            s.take_reports();
            return Ok(s.addr());
        }
        match self.s_servers.get_mut(&cert) {
            Some(Ok(s)) => {
                s.check_alive()?;
                Ok(s.addr())
            }
            Some(Err(e)) => anyhow::bail!("{e}"),
            None => anyhow::bail!("no s_server for {cert}"),
        }
    }

    fn seen(&mut self, i: usize) -> Result<Option<KindCounts>> {
        let spec = self.w.arms[i].spec;
        let arm = self.w.arms[i].detail::<STimeArm>().expect("an s_time arm");
        if arm.server != VS_RUSTLS {
            return Ok(None);
        }
        let mut kinds = KindCounts::default();
        for r in self.rustls[&(spec.cert.expect("cert"), spec.protocol)].take_reports() {
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
    /// The handshake kinds the server saw since [`SliceServer::addr`], where it tells.
    fn seen(&mut self, i: usize) -> Result<Option<KindCounts>>;
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
            let arm = *w.arms[i].detail::<STimeArm>().expect("an s_time arm");
            let run = runs.get_mut(&i).expect("planned");
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
                w.arms[i].spec.protocol,
                arm.mode,
                slice_s,
                w.ctx.io_timeout,
                w.ctx.stop,
            );
            match slice {
                Ok(Some(slice)) => run.slices.push(slice),
                // Interrupted: this slice counts for nothing, and a tool killed by the
                // same Ctrl-C is no failure of the arm.
                Ok(None) => break 'slices,
                Err(_) if w.stopped() => break 'slices,
                Err(e) => run.error = Some(format!("slice {}: {e:#}", run.slices.len() + 1)),
            }
            match servers.seen(i) {
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
            records[i] = Some(rate::rate_arm(&w.arms[i], Some(version.to_string()), &run));
        }
    }
    Ok(())
}
