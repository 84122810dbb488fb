//! Capacity arms: N client threads against one server with N workers, for a fixed time.
//! Every connection is counted (failures included) and checked on both ends, as in the
//! main loop; the result is a per-second timeline of completed handshakes and the
//! latency under that load.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::{Capacity, CertKind, KxGroup, Mode, Protocol, Resumption, Side};

use super::stats::nearest_rank;
use super::{check_side, ArmRun};
use crate::arms::tls::{start_server, TlsClient};
use crate::arms::{ArmSpec, Fault, SessionOptions};
use crate::certs::CertStore;
use crate::evidence::build_arm;

/// Untimed connections each client makes before the clock starts (primes resumption).
pub const WARMUP_PER_CLIENT: u64 = 5;

/// The arm capacity runs use: TLS 1.3, the first cert kind and group asked for.
pub fn base_spec(certs: &[CertKind], groups: &[KxGroup]) -> ArmSpec {
    ArmSpec {
        protocol: Protocol::Tls13,
        mode: Mode::Full,
        resumption: None,
        cert: Some(certs.first().copied().unwrap_or(CertKind::EcdsaP256)),
        kx_group: Some(groups.first().copied().unwrap_or(KxGroup::X25519)),
        fault: Fault::None,
        early_data: false,
        phases: crate::arms::PhaseRecording::Off,
    }
}

/// Capacity arms for `base` in full and ticket-resumed mode at every client count.
/// Arm ids are the base arm's id with `-c<N>`; throughput is completions per second of
/// the window.
pub fn arms(
    base: &ArmSpec,
    concurrency: &[u64],
    seconds: u64,
    certs: &CertStore,
    io_timeout: Duration,
    stop: &AtomicBool,
) -> Result<Vec<shared::Arm>> {
    let mut out = Vec::new();
    for &n in concurrency {
        for (mode, resumption) in [
            (Mode::Full, None),
            (Mode::Resumed, Some(Resumption::Ticket)),
        ] {
            if stop.load(Ordering::Relaxed) {
                return Ok(out);
            }
            let spec = ArmSpec {
                mode,
                resumption,
                ..*base
            };
            eprintln!("collector: capacity {spec} with {n} client(s) for {seconds} s");
            let (run, capacity) = run(&spec, n, seconds, certs, io_timeout, stop)?;
            let mut arm = build_arm(&run);
            arm.id = format!("{}-c{n}", arm.id);
            arm.throughput_per_s = Some(arm.succeeded as f64 / seconds as f64);
            arm.capacity = Some(capacity);
            out.push(arm);
        }
    }
    Ok(out)
}

/// One client thread's timed connections.
#[derive(Default)]
struct ClientLog {
    /// (timed window, completion offset from the start, client facts, local port)
    done: Vec<(Duration, Duration, Option<crate::arms::Handshake>, u16)>,
    failed: u64,
    first_failure: Option<String>,
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
    let logs: Vec<ClientLog> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                let (client, ready, start_line) =
                    (client.clone(), ready.clone(), start_line.clone());
                scope.spawn(move || {
                    for _ in 0..WARMUP_PER_CLIENT {
                        let _ = client.once(addr);
                    }
                    ready.wait();
                    start_line.wait();
                    let start = Instant::now();
                    let mut log = ClientLog::default();
                    while start.elapsed() < window && !stop.load(Ordering::Relaxed) {
                        match client.once(addr) {
                            Ok(c) => {
                                log.done
                                    .push((c.elapsed, start.elapsed(), c.facts, c.local_port))
                            }
                            Err(e) => {
                                log.failed += 1;
                                log.first_failure.get_or_insert_with(|| format!("{e:#}"));
                            }
                        }
                    }
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

    let mut run = ArmRun::new(*spec, 0);
    let mut per_second = vec![0.0; seconds as usize];
    let mut ports = HashSet::new();
    for log in logs {
        run.failed += log.failed;
        run.attempted += log.failed + log.done.len() as u64;
        if run.first_failure.is_none() {
            run.first_failure = log.first_failure;
        }
        for (elapsed, at, facts, port) in log.done {
            run.record_sample(elapsed, elapsed);
            ports.insert(port);
            if let Some(slot) = per_second.get_mut(at.as_secs() as usize) {
                *slot += 1.0;
            }
            match facts {
                Some(h) => {
                    let mut problems = Vec::new();
                    check_side(spec, "client", &h, &mut problems);
                    problems.into_iter().for_each(|p| run.problem(p));
                    run.count(Side::Client, &h);
                }
                None => run.problem("client reported no handshake".into()),
            }
        }
    }
    // Give the server a moment to report the last connections, then check its side.
    std::thread::sleep(Duration::from_millis(50));
    for report in server
        .take_reports()
        .into_iter()
        .filter(|r| ports.contains(&r.peer_port))
    {
        if let Ok(Some(h)) = report.result {
            let mut problems = Vec::new();
            check_side(spec, "server", &h, &mut problems);
            problems.into_iter().for_each(|p| run.problem(p));
            run.count(Side::Server, &h);
        }
    }
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
    };
    Ok((run, capacity))
}
