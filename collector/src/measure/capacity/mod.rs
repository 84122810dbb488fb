//! Capacity arms: N client threads against one server with N workers, for a fixed time.
//! Every connection is counted (failures included) and checked on both ends, as in the
//! main loop; the result is a per-second timeline of handshakes completed inside the
//! window and the latency under that load.

pub(super) mod account;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::{Capacity, CertKind, KxGroup};

use crate::arms::rustls::{start_server, TlsClient};
use crate::arms::ArmRun;
use crate::arms::{ArmKind, ArmSpec, Cell, HandshakeMode, SessionOptions, Tls};
use crate::certs::CertStore;
use crate::measure::build_arm;
use crate::stats::nearest_rank;
use account::{account, ClientLog, Conn};

/// Untimed connections each client makes before the clock starts (primes resumption).
pub const WARMUP_PER_CLIENT: u64 = 5;

/// The arm capacity runs use: TLS 1.3, the first cert kind and group asked for.
pub fn base_spec(certs: &[CertKind], groups: &[KxGroup]) -> ArmSpec {
    let cell = Cell {
        tls: Tls::Tls13,
        handshake: HandshakeMode::Full,
        cert: certs.first().copied().unwrap_or(CertKind::EcdsaP256),
        group: groups.first().copied().unwrap_or(KxGroup::X25519),
    };
    ArmSpec {
        phases: crate::arms::PhaseRecording::Off,
        ..cell.spec()
    }
}

/// Capacity arms for `base` in full and ticket-resumed mode at every client count.
/// Arm ids are the base arm's id with `-c<N>`.
pub fn arms(
    base: &ArmSpec,
    concurrency: &[u64],
    seconds: u64,
    certs: &CertStore,
    io_timeout: Duration,
    stop: &AtomicBool,
) -> Result<Vec<shared::Arm>> {
    let Some(cell) = base.cell() else {
        anyhow::bail!("capacity arms need a TLS handshake arm, not {base}");
    };
    let mut out = Vec::new();
    for &n in concurrency {
        for handshake in HandshakeMode::FULL_AND_TICKET {
            if stop.load(Ordering::Relaxed) {
                return Ok(out);
            }
            let spec = ArmSpec {
                kind: ArmKind::Handshake(Cell { handshake, ..cell }),
                ..*base
            };
            eprintln!("collector: capacity {spec} with {n} client(s) for {seconds} s");
            let (run, capacity) = run(&spec, n, seconds, certs, io_timeout, stop)?;
            let mut arm = build_arm(&run);
            arm.id = format!("{}-c{n}", arm.id);
            arm.capacity = Some(capacity);
            out.push(arm);
        }
    }
    Ok(out)
}

/// How client and server share the machine, in words (recorded on every capacity arm).
pub fn cpu_sharing(clients: u64) -> String {
    let plan = crate::cpu::plan();
    let cpus = plan.available.len();
    let placed = if plan.client.is_empty() {
        "unpinned".to_string()
    } else {
        format!(
            "placed `{}`: the clients on CPUs {:?}, the server workers on CPUs {:?}",
            plan.applied, plan.client, plan.server
        )
    };
    format!("client and server run in one process on one host: {clients} client thread(s) and {clients} server worker(s) share its {cpus} logical CPU(s), {placed}, so the rate is what this box sustains as both ends at once, not a server's capacity")
}

/// Runs `spec` with `clients` concurrent clients for `seconds`.
pub fn run(
    spec: &ArmSpec,
    clients: u64,
    seconds: u64,
    certs: &CertStore,
    io_timeout: Duration,
    stop: &AtomicBool,
) -> Result<(ArmRun, Capacity)> {
    let opts = SessionOptions::loopback(io_timeout, false);
    let server = start_server(spec, certs, &opts, clients)
        .with_context(|| format!("starting the capacity server for {spec} × {clients}"))?;
    let client = Arc::new(TlsClient::new(spec, certs, &opts)?);
    let addr = server.addr();
    let window = Duration::from_secs(seconds);
    let ready = Arc::new(Barrier::new(clients as usize + 1));
    let start_line = Arc::new(Barrier::new(clients as usize + 1));
    let origin = Instant::now();
    let logs: Vec<ClientLog> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                let (client, ready, start_line) =
                    (client.clone(), ready.clone(), start_line.clone());
                scope.spawn(move || {
                    let failed = (0..WARMUP_PER_CLIENT)
                        .filter(|_| client.once(addr).is_err())
                        .count() as u64;
                    ready.wait();
                    start_line.wait();
                    let start = Instant::now();
                    let mut log = ClientLog {
                        start: start - origin,
                        warmup: (WARMUP_PER_CLIENT, failed),
                        ..ClientLog::default()
                    };
                    while start.elapsed() < window && !stop.load(Ordering::Relaxed) {
                        match client.once(addr) {
                            Ok(c) => log.done.push(Conn {
                                started: c.started.saturating_duration_since(origin),
                                elapsed: c.elapsed,
                                queued: Duration::ZERO,
                                facts: c.facts,
                                local_port: c.local_port,
                            }),
                            Err(e) => {
                                log.failed += 1;
                                log.first_failure.get_or_insert_with(|| format!("{e:#}"));
                            }
                        }
                    }
                    log.end = origin.elapsed();
                    log
                })
            })
            .collect();
        ready.wait();
        // Reports of warm-up connections are not part of the timed window.
        drop(server.take_reports());
        start_line.wait();
        handles
            .into_iter()
            .map(|h| h.join().expect("client thread does not panic"))
            .collect()
    });
    // The server reports before it writes the byte each client reads, so every report of
    // a successful connection is in by now; a short grace for the last failed ones.
    std::thread::sleep(Duration::from_millis(50));
    let reports = server
        .take_reports()
        .into_iter()
        .map(|r| (r.peer_port, r.result))
        .collect();
    let (mut run, per_second, after_window) = account(spec, logs, reports, window);
    run.threads = (clients, clients);
    let mut sorted = per_second.clone();
    sorted.sort_by(f64::total_cmp);
    let capacity = Capacity {
        clients,
        server_workers: clients,
        rate_median_per_s: if sorted.is_empty() {
            0.0
        } else {
            nearest_rank(&sorted, 50.0)
        },
        rate_iqr_per_s: if sorted.is_empty() {
            [0.0, 0.0]
        } else {
            [nearest_rank(&sorted, 25.0), nearest_rank(&sorted, 75.0)]
        },
        per_second,
        after_window,
        cpu_sharing: Some(cpu_sharing(clients)),
        open_loop: None,
    };
    Ok((run, capacity))
}

#[cfg(test)]
mod run_tests;
