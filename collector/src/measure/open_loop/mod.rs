//! Open-loop capacity (`--open-loop-rates`): for each offered rate, connections start
//! on a schedule, not when the previous one is done, and each is timed from its intended
//! start. A closed loop (the `--concurrency` arms) waits for a slow server and so hides
//! the queueing a real arrival stream would see (coordinated omission); here the wait
//! for a free client worker is part of every latency, and lateness is recorded.

mod account;
pub mod engine;
pub mod schedule;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use shared::{Arrival, Capacity};

use super::capacity::cpu_sharing;
use crate::arms::rustls::{start_server, ClientSide, TlsClient};
use crate::arms::server::Server;
use crate::arms::ArmRun;
use crate::arms::{ArmKind, ArmSpec, Cell, HandshakeMode, SessionOptions};
use crate::certs::CertStore;
use crate::measure::build_arm;
use engine::{Connect, Pool, RealClock};

/// Untimed connections each worker's client makes before the schedule starts (they
/// prime resumption: a ticket per worker and then some).
pub const WARMUP_PER_WORKER: u64 = 2;
/// A connection that began more than this after its intended start is `late`.
pub const LATE_THRESHOLD: Duration = Duration::from_millis(1);
/// Most connections one offered rate may schedule (rate × seconds).
pub const MAX_CONNECTIONS_PER_RATE: u64 = 1_000_000;
/// The timed window of an open-loop arm, in words.
pub const TIMED_WINDOW: &str = "from the connection's INTENDED start on the schedule (not when a client got to it) until the TLS handshake is complete and the client's last flight is written: the wait for a free client worker (lateness), then socket, connect(), the rustls ClientConnection and handshake I/O; excludes the server's 1-byte app record (read after the timer, so TLS 1.3 tickets are processed) and close. Connections overlap: each worker starts its next scheduled connection without waiting for the server's report";

/// One sweep's settings, checked.
#[derive(Debug, Clone)]
pub struct Options {
    /// Offered rates, new connections per second, in the order given.
    pub rates: Vec<u64>,
    pub window: Duration,
    pub arrival: Arrival,
    /// Seed of the first Poisson schedule (the n-th arm of the sweep uses seed + n).
    pub seed: u64,
    /// Client worker threads, and as many server workers.
    pub workers: u64,
    pub io_timeout: Duration,
}

impl Options {
    /// Refuses a rate whose schedule would hold more than [`MAX_CONNECTIONS_PER_RATE`]
    /// connections, naming the flags.
    pub fn check(&self) -> Result<()> {
        for &rate in &self.rates {
            let n = rate.saturating_mul(self.window.as_secs());
            if n > MAX_CONNECTIONS_PER_RATE {
                bail!(
                    "--open-loop-rates {rate} × --open-loop-seconds {} = {n} connections for one rate, more than {MAX_CONNECTIONS_PER_RATE} (every latency is kept): lower the rate or the seconds",
                    self.window.as_secs()
                );
            }
        }
        Ok(())
    }

    /// A connection whose worker would begin it later than this is given up: as long as
    /// the window, so a run ends at most about two windows (plus one connection's I/O
    /// timeout) after it starts however slow the server is.
    pub fn give_up_after(&self) -> Duration {
        self.window
    }

    /// How the sweep was run, in words (the run's settings).
    pub fn describe(&self) -> String {
        format!(
            "offered rates {:?} new connections/s, {} s each, {} arrivals{}; {} client worker threads take the scheduled connections in order, each waits for its connection's intended start and makes it (a connection waits for a free worker when all are busy), against one server with {} workers; every latency is counted from the intended start; lateness is recorded per connection (late: more than {} µs), and a connection a worker would begin more than {} s late is not made and counted failed (not_started); {} untimed warm-up connections per worker; a connection counts only with the server's report for it; full and ticket-resumed TLS 1.3 on the first cert and group",
            self.rates,
            self.window.as_secs(),
            self.arrival,
            match self.arrival {
                Arrival::Poisson => format!(" (seed {} for the first arm, +1 for each next)", self.seed),
                Arrival::Constant => String::new(),
            },
            self.workers,
            self.workers,
            LATE_THRESHOLD.as_micros(),
            self.give_up_after().as_secs(),
            WARMUP_PER_WORKER,
        )
    }
}

/// The sweep for `base`: full and ticket-resumed, at every offered rate (both modes at
/// one rate, then the next rate). Arm ids are the base arm's id with `-rate<N>`.
pub fn arms(
    base: &ArmSpec,
    opts: &Options,
    certs: &CertStore,
    stop: &AtomicBool,
) -> Result<Vec<shared::Arm>> {
    opts.check()?;
    let Some(cell) = base.cell() else {
        bail!("open-loop arms need a TLS handshake arm, not {base}");
    };
    let mut out = Vec::new();
    for &rate in &opts.rates {
        for handshake in HandshakeMode::FULL_AND_TICKET {
            if stop.load(Ordering::Relaxed) {
                return Ok(out);
            }
            let spec = ArmSpec {
                kind: ArmKind::Handshake(Cell { handshake, ..cell }),
                ..*base
            };
            let seed = opts.seed.wrapping_add(out.len() as u64);
            eprintln!(
                "collector: open-loop {spec} at {rate} new connections/s ({} arrivals) for {} s",
                opts.arrival,
                opts.window.as_secs()
            );
            let (run, capacity) = run(&spec, rate, seed, opts, certs, stop)?;
            let mut arm = build_arm(&run);
            arm.id = format!("{}-rate{rate}", arm.id);
            arm.timed_window = TIMED_WINDOW.into();
            arm.capacity = Some(capacity);
            out.push(arm);
        }
    }
    Ok(out)
}

/// One offered rate of `spec`: the server, the warm-up, the schedule, then the
/// accounting.
pub fn run(
    spec: &ArmSpec,
    rate: u64,
    seed: u64,
    opts: &Options,
    certs: &CertStore,
    stop: &AtomicBool,
) -> Result<(ArmRun, Capacity)> {
    let session = SessionOptions::loopback(opts.io_timeout, false);
    let workers = opts.workers.max(1);
    let server = start_server(spec, certs, &session, workers)
        .with_context(|| format!("starting the open-loop server for {spec} × {workers}"))?;
    let clients = (0..workers)
        .map(|_| TlsClient::new(spec, certs, &session))
        .collect::<Result<Vec<_>>>()?;
    let connector = TlsConnector {
        clients,
        addr: server.addr(),
    };
    // Warm-up, untimed, one worker after the other (each primes its own session store).
    let warmup: Vec<(u64, u64)> = connector
        .clients
        .iter()
        .map(|c| {
            let failed = (0..WARMUP_PER_WORKER)
                .filter(|_| c.once(connector.addr).is_err())
                .count() as u64;
            (WARMUP_PER_WORKER, failed)
        })
        .collect();
    drop(server.take_reports());
    let schedule = schedule::intended_starts(
        opts.arrival,
        rate as f64,
        opts.window,
        seed,
        schedule::max_connections(rate, opts.window),
    );
    let pool = Pool {
        workers: workers as usize,
        give_up_after: opts.give_up_after(),
    };
    let clock = RealClock::start();
    let attempts = engine::run(&schedule, &clock, &connector, pool, stop)?;
    let succeeded = attempts
        .iter()
        .filter(|a| matches!(a.fate, engine::Fate::Done { .. }))
        .count();
    let reports = wait_for_reports(&server, succeeded, opts.io_timeout);
    let parts = account::Parts {
        spec,
        attempts,
        warmup,
        reports,
        scheduled: schedule.len() as u64,
        window: opts.window,
        offered_per_s: rate as f64,
        arrival: opts.arrival,
        seed,
        give_up_after: opts.give_up_after(),
        workers,
    };
    let (run, mut capacity) = account::account(parts);
    capacity.cpu_sharing = Some(cpu_sharing(workers));
    Ok((run, capacity))
}

/// The server's reports: at least one per client success (a server reports before it
/// writes the byte each client reads), or whatever came by the deadline; then what the
/// failed connections left within a short grace.
fn wait_for_reports(server: &Server, successes: usize, deadline: Duration) -> Vec<account::Report> {
    let start = Instant::now();
    let mut reports = Vec::new();
    loop {
        reports.extend(server.take_reports());
        if reports.len() >= successes || start.elapsed() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    reports.extend(server.take_reports());
    reports
        .into_iter()
        .map(|r| (r.peer_port, r.result))
        .collect()
}

/// One TLS client per worker against the arm's server.
struct TlsConnector {
    clients: Vec<TlsClient>,
    addr: SocketAddr,
}

impl Connect for TlsConnector {
    type Done = ClientSide;

    fn connect(&self, worker: usize) -> Result<(Duration, ClientSide), String> {
        let called = Instant::now();
        let c = self.clients[worker % self.clients.len()]
            .once(self.addr)
            .map_err(|e| format!("{e:#}"))?;
        // From this call (a few ns before the client's own timer) to the handshake's end.
        let window = c.started.saturating_duration_since(called) + c.elapsed;
        Ok((window, c))
    }
}

#[cfg(test)]
mod stall_tests;
#[cfg(test)]
mod sweep_tests;

/// An open-loop arm for tests: `sample::arm`'s samples, one 1 s window in which
/// `achieved` handshakes completed, nothing late.
#[cfg(test)]
pub(crate) fn test_arm(
    id: &str,
    mode: shared::Mode,
    offered: f64,
    achieved: f64,
    samples: Vec<f64>,
) -> shared::Arm {
    let resumption = (mode == shared::Mode::Resumed).then_some(shared::Resumption::Ticket);
    let mut a = shared::sample::arm(id, shared::Protocol::Tls13, mode, resumption, samples);
    a.capacity = Some(Capacity {
        clients: 4,
        server_workers: 4,
        per_second: vec![achieved],
        rate_median_per_s: achieved,
        rate_iqr_per_s: [achieved, achieved],
        after_window: 0,
        cpu_sharing: None,
        open_loop: Some(shared::OpenLoop {
            arrival: Arrival::Constant,
            seed: None,
            offered_per_s: offered,
            window_s: 1,
            scheduled: a.attempted,
            achieved_per_s: achieved,
            late_threshold_us: 1000.0,
            late: 0,
            lateness_us: Some(shared::Lateness {
                p50_us: 20.0,
                p99_us: 40.0,
                max_us: 50.0,
            }),
            give_up_after_us: 1e6,
            not_started: 0,
        }),
    });
    a
}

#[cfg(test)]
mod tests {
    use shared::{ComparisonKind, Mode};

    use super::*;

    #[test]
    fn open_loop_arms_enter_no_comparison() {
        // Their latencies include queueing for a worker: a full/resumed ratio at one
        // offered rate would compare two queues. The closed-loop copies still pair.
        let mut arms = vec![
            test_arm("full-200", Mode::Full, 200.0, 4.0, vec![800.0; 4]),
            test_arm("resumed-200", Mode::Resumed, 200.0, 4.0, vec![200.0; 4]),
        ];
        assert!(crate::evidence::comparisons(&arms, 100, 1).is_empty());
        for a in &mut arms {
            a.capacity.as_mut().unwrap().open_loop = None;
        }
        let pairs: Vec<(ComparisonKind, String, String)> =
            crate::evidence::comparisons(&arms, 100, 1)
                .into_iter()
                .map(|c| (c.kind, c.baseline, c.candidate))
                .collect();
        assert_eq!(
            pairs,
            [(
                ComparisonKind::ResumeSpeedup,
                "full-200".into(),
                "resumed-200".into()
            )]
        );
    }

    #[test]
    fn a_rate_whose_schedule_would_be_too_long_is_refused_naming_the_flags() {
        let opts = Options {
            rates: vec![100, 600_000],
            window: Duration::from_secs(2),
            arrival: Arrival::Constant,
            seed: 0,
            workers: 1,
            io_timeout: Duration::from_secs(1),
        };
        let err = opts.check().unwrap_err().to_string();
        assert!(
            err.starts_with(
                "--open-loop-rates 600000 × --open-loop-seconds 2 = 1200000 connections"
            ),
            "{err}"
        );
        let ok = Options {
            rates: vec![500_000],
            ..opts
        };
        ok.check().expect("exactly the bound");
    }
}
