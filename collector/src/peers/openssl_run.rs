//! The OpenSSL peer arms: one `openssl s_server` per certificate, the rustls client
//! against it (latency arms, through the shared timing loop), and `openssl s_time`
//! against it and against a rustls server (rate arms, in slices interleaved across arms).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use anyhow::Result;
use shared::{Arm, CertKind, KindCounts, Protocol};

use super::plan::{PeerArm, STimeServer, Tool};
use super::rate::{self, STimeRun};
use super::run::Work;
use crate::arms::openssl::{self, SServer, SServerClient, WWW_FILE};
use crate::arms::server::Server;
use crate::arms::{ArmSpec, Session};
use crate::measure;
use crate::progress::Progress;

type Started<T> = std::result::Result<T, String>;

/// Runs every OpenSSL arm still without a record; failures become arm errors.
pub(super) fn run(w: &Work, records: &mut [Option<Arm>]) -> Result<()> {
    let Some(group) = w.group else {
        return Ok(());
    };
    let idx: Vec<usize> = (0..w.arms.len())
        .filter(|&i| records[i].is_none() && w.arms[i].tool() == Tool::Openssl)
        .collect();
    if idx.is_empty() {
        return Ok(());
    }
    let www = w.dir.subdir("www")?;
    w.dir.write(&format!("www/{WWW_FILE}"), b"x")?;
    let mut errors: BTreeMap<usize, String> = BTreeMap::new();
    let mut s_servers: BTreeMap<CertKind, Started<SServer>> = BTreeMap::new();
    for &i in &idx {
        let cert = w.arms[i].spec().cert.expect("OpenSSL arms have a cert");
        let spec = w.arms[i].spec();
        let server = s_servers.entry(cert).or_insert_with(|| {
            let log = w.dir.path().join(format!("s_server-{cert}.log"));
            let ready = |addr| openssl::presents_leaf(&spec, w.store, addr, w.ctx.io_timeout);
            SServer::start(
                w.program,
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
    latency_arms(w, &idx, &s_servers, &mut errors, records);
    s_time_arms(w, &idx, &mut s_servers, &mut errors, records);
    for (i, e) in errors {
        let mut arm = w.arms[i].empty_arm(Some(w.version.to_string()));
        arm.error = Some(e);
        records[i] = Some(arm);
    }
    Ok(())
}

/// The rustls client against s_server, through the shared timing loop.
fn latency_arms(
    w: &Work,
    idx: &[usize],
    s_servers: &BTreeMap<CertKind, Started<SServer>>,
    errors: &mut BTreeMap<usize, String>,
    records: &mut [Option<Arm>],
) {
    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = Vec::new();
    let mut which = Vec::new();
    for &i in idx {
        let PeerArm::RustlsToSServer(spec) = w.arms[i] else {
            continue;
        };
        let Some(Ok(server)) = s_servers.get(&spec.cert.expect("cert")) else {
            continue;
        };
        match SServerClient::new(&spec, w.store, server.addr(), w.ctx.io_timeout) {
            Ok(c) => {
                sessions.push((spec, Box::new(c)));
                which.push(i);
            }
            Err(e) => {
                errors.insert(i, format!("{e:#}"));
            }
        }
    }
    if sessions.is_empty() || w.ctx.stop.load(Ordering::SeqCst) {
        return;
    }
    eprintln!(
        "collector: peer arms: rustls client against openssl s_server ({} arms)",
        sessions.len()
    );
    let specs: Vec<ArmSpec> = sessions.iter().map(|(s, _)| *s).collect();
    let progress = Progress::new(&specs, w.plan.samples);
    let runs = measure::run(
        &mut sessions,
        w.plan,
        "peer-s_server",
        &progress,
        w.ctx.stop,
    );
    progress.finish();
    for (&i, run) in which.iter().zip(runs) {
        if run.attempted > 0 {
            records[i] = Some(w.arms[i].measured_arm(Some(w.version.to_string()), &run));
        }
    }
}

/// s_time: `--peer-slices` runs per arm, interleaved across arms in a seeded order.
fn s_time_arms(
    w: &Work,
    idx: &[usize],
    s_servers: &mut BTreeMap<CertKind, Started<SServer>>,
    errors: &mut BTreeMap<usize, String>,
    records: &mut [Option<Arm>],
) {
    let mut rustls_servers: BTreeMap<(CertKind, Protocol), Server> = BTreeMap::new();
    let mut runs: BTreeMap<usize, STimeRun> = BTreeMap::new();
    for &i in idx {
        let PeerArm::STime { spec, server, .. } = w.arms[i] else {
            continue;
        };
        let key = (spec.cert.expect("cert"), spec.protocol);
        if server == STimeServer::Rustls && !rustls_servers.contains_key(&key) {
            let base = ArmSpec {
                mode: shared::Mode::Full,
                resumption: None,
                ..spec
            };
            match openssl::rustls_server_for_s_time(&base, w.store, w.ctx.io_timeout) {
                Ok(s) => {
                    rustls_servers.insert(key, s);
                }
                Err(e) => {
                    errors.insert(i, format!("{e:#}"));
                    continue;
                }
            }
        }
        if !errors.contains_key(&i) {
            runs.insert(i, STimeRun::default());
        }
    }
    let (slices, slice_s) = (
        w.args.peer_slices,
        w.args.peer_seconds / w.args.peer_slices as f64,
    );
    let mut rng = fastrand::Rng::with_seed(w.ctx.seed ^ 0x0551);
    let mut order: Vec<usize> = runs.keys().copied().collect();
    if !order.is_empty() {
        eprintln!(
            "collector: peer arms: openssl s_time, {} arms × {slices} slices of {slice_s:.2} s",
            order.len()
        );
    }
    'slices: for _ in 0..slices {
        rng.shuffle(&mut order);
        for &i in &order {
            if w.ctx.stop.load(Ordering::SeqCst) {
                break 'slices;
            }
            let PeerArm::STime { spec, mode, server } = w.arms[i] else {
                continue;
            };
            let run = runs.get_mut(&i).expect("planned");
            if run.error.is_some() {
                continue;
            }
            let cert = spec.cert.expect("cert");
            let (addr, rustls) = match server {
                STimeServer::SServer => match s_servers.get_mut(&cert) {
                    Some(Ok(s)) => match s.check_alive() {
                        Ok(()) => (s.addr(), None),
                        Err(e) => {
                            run.error = Some(format!("{e:#}"));
                            continue;
                        }
                    },
                    _ => continue,
                },
                STimeServer::Rustls => {
                    let s = &rustls_servers[&(cert, spec.protocol)];
                    s.take_reports();
                    (s.addr(), Some(s))
                }
            };
            let slice = openssl::s_time_slice(
                w.program,
                addr,
                spec.protocol,
                mode,
                slice_s,
                w.ctx.io_timeout,
                w.ctx.stop,
            );
            match slice {
                Ok(Some(slice)) => run.slices.push(slice),
                // Interrupted: this slice counts for nothing, and a tool killed by the
                // same Ctrl-C is no failure of the arm.
                Ok(None) => break 'slices,
                Err(_) if w.ctx.stop.load(Ordering::SeqCst) => break 'slices,
                Err(e) => run.error = Some(format!("slice {}: {e:#}", run.slices.len() + 1)),
            }
            if let Some(s) = rustls {
                count_server_kinds(s, run.server_kinds.get_or_insert_with(KindCounts::default));
            }
        }
    }
    let interrupted = w.ctx.stop.load(Ordering::SeqCst);
    for (i, run) in runs {
        if !(interrupted && run.slices.is_empty()) {
            records[i] = Some(rate::rate_arm(
                &w.arms[i],
                Some(w.version.to_string()),
                &run,
            ));
        }
    }
}

/// Adds the handshakes the rustls server reported since the last call.
fn count_server_kinds(server: &Server, kinds: &mut KindCounts) {
    for r in server.take_reports() {
        match r.result {
            Ok(Some(h)) if h.kind == rustls::HandshakeKind::Resumed => kinds.resumed += 1,
            Ok(Some(h)) if h.kind == rustls::HandshakeKind::Full => kinds.full += 1,
            Ok(Some(_)) => kinds.full_with_hello_retry += 1,
            _ => {}
        }
    }
}
