//! The timing loop, written once for every arm, and the per-connection checks that make
//! a resumed arm that did not resume an error rather than a number.

pub mod capacity;
pub mod cluster;
pub mod decompose;
pub mod hop;
pub mod hop_curve;
pub mod open_loop;
pub mod phases;
pub mod placement;
pub mod record;
pub mod rtt;
pub mod steal;
mod verify;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shared::{EarlyData, HandshakeKinds, KindCounts, Side};

use crate::arms::{ArmSpec, Session};
use crate::progress::Progress;
pub use record::build_arm;
pub use verify::{check, check_side, named_group};

/// How many connections, and in what order.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Timed connections per arm.
    pub samples: u64,
    /// Untimed connections per arm before each of its chunks (at least 1).
    pub warmup_per_chunk: u64,
    /// Each arm's samples are taken in this many chunks; every round visits every arm
    /// once, in an order shuffled per round.
    pub rounds: u64,
    /// Seed of the per-round shuffle.
    pub seed: u64,
    /// Request/response mode (timed window ends at the first response byte).
    pub request: bool,
    /// Arms that can trace make one traced connection after every this many untraced
    /// ones (counted over the arm, across chunks; 0: none traced). The untraced ones give
    /// the arm's samples.
    pub trace_every: u64,
}

impl Plan {
    /// Timed connections of `arm`'s chunk in `round` (chunks differ by at most one).
    fn chunk(&self, round: u64) -> u64 {
        self.samples * (round + 1) / self.rounds - self.samples * round / self.rounds
    }
}

/// Everything one arm's timed connections produced.
#[derive(Debug)]
pub struct ArmRun {
    pub spec: ArmSpec,
    pub attempted: u64,
    pub failed: u64,
    /// Timed window of every successful connection, in µs, in the order taken.
    pub samples_us: Vec<f64>,
    /// Wall time during which this arm's timed connections ran: the sum of its chunks,
    /// each from its first timed connection's start to its last one's end (failures and
    /// the wait for the server's report included, warm-up excluded). Zero if not measured.
    pub timed_wall: Duration,
    /// Successful samples per interleaved round, in order (empty: not taken in rounds).
    pub samples_per_round: Vec<u64>,
    /// The machine's steal (per cent) during this arm's chunk of each round.
    pub round_steal: Vec<Option<f64>>,
    /// Which interleaved loop the rounds belong to (see `shared::Arm::round_group`).
    pub round_group: Option<String>,
    pub first_failure: Option<String>,
    pub kinds: Option<HandshakeKinds>,
    /// Broken promises (e.g. "client reported a full handshake, expected resumed"),
    /// with how many timed connections broke each.
    pub problems: BTreeMap<String, u64>,
    /// What was negotiated, as "protocol / cipher suite / group", with counts.
    pub negotiated: BTreeMap<String, u64>,
    pub warmup_failed: u64,
    /// Untimed warm-up connections made, failed ones included.
    pub warmup_attempted: u64,
    /// Server threads and client threads that ran the connections.
    pub threads: (u64, u64),
    /// connect() time of every successful connection, in µs (the path's round trip).
    pub connect_us: Vec<f64>,
    /// 0-RTT arms: early data offered by the client, and accepted by both ends.
    pub early_data: Option<EarlyData>,
    /// Measured in request/response mode.
    pub request: bool,
    /// The server reports each handshake (see [`Session::server_reports`]).
    pub server_reports: bool,
    /// Both ends' phase moments of every successful connection (in the order of
    /// `samples_us`), where recorded.
    pub traces: Vec<phases::ConnTrace>,
    /// Keep-alive arms, per successful connection: requests carried, the first one's
    /// TTFB and the cost per request of the whole connection (µs).
    pub keepalive: Vec<(u64, f64, f64)>,
    /// The traced connections (phases recorded), kept apart from the untraced ones above;
    /// None when the arm traced none.
    pub traced: Option<Traced>,
    /// Where each end ran, per connection; None where not sampled.
    pub placed: Option<placement::Placed>,
    /// The client socket's TCP counters of every successful connection that read them
    /// (over an emulated link), in the order of `samples_us`.
    pub tcp: Vec<crate::arms::tcp_info::TcpInfo>,
}

/// An arm's traced connections: the same window, with both ends' phases recorded.
#[derive(Debug, Default, Clone)]
pub struct Traced {
    pub untraced_per_traced: u64,
    pub attempted: u64,
    pub failed: u64,
    pub samples_us: Vec<f64>,
    pub samples_per_round: Vec<u64>,
}

impl ArmRun {
    pub(crate) fn new(spec: ArmSpec, capacity: u64) -> Self {
        ArmRun {
            spec,
            attempted: 0,
            failed: 0,
            samples_us: Vec::with_capacity(capacity as usize),
            timed_wall: Duration::ZERO,
            samples_per_round: Vec::new(),
            round_steal: Vec::new(),
            round_group: None,
            first_failure: None,
            kinds: None,
            problems: BTreeMap::new(),
            negotiated: BTreeMap::new(),
            warmup_failed: 0,
            warmup_attempted: 0,
            threads: (1, 1),
            connect_us: Vec::new(),
            early_data: None,
            request: false,
            server_reports: true,
            traces: Vec::new(),
            keepalive: Vec::new(),
            traced: None,
            placed: None,
            tcp: Vec::new(),
        }
    }

    /// Records one traced connection: its window among the traced samples, its phases,
    /// and the same honesty checks as every connection (its handshake kinds are not
    /// counted: those count the untraced connections the arm's numbers come from).
    fn record_traced(&mut self, outcome: &crate::arms::Outcome) {
        for p in check(&self.spec, outcome, self.server_reports) {
            self.problem(p);
        }
        if let Some(t) = self.traced.as_mut() {
            t.samples_us.push(round_ns(outcome.elapsed));
            if let Some(n) = t.samples_per_round.last_mut() {
                *n += 1;
            }
        }
        let client = outcome.client.as_ref().and_then(|c| c.trace.clone());
        self.traces.push(phases::ConnTrace {
            client,
            server: outcome.server.as_ref().and_then(|s| s.trace.clone()),
        });
    }

    fn record(&mut self, outcome: &crate::arms::Outcome) {
        self.record_sample(outcome.elapsed);
        self.connect_us.push(round_ns(outcome.connect));
        self.tcp.extend(outcome.tcp);
        if let Some(k) = outcome.keepalive {
            let (first, per) = (round_ns(k.first), round_ns(outcome.elapsed));
            let amortized = (first + per * (k.requests - 1) as f64) / k.requests as f64;
            self.keepalive.push((k.requests, first, amortized));
        }
        if let Some((offered, accepted)) = outcome.client.as_ref().and_then(|c| c.early_data) {
            // Where the server does not report (a probed server), the client's word.
            let server_got = !self.server_reports
                || outcome
                    .server
                    .as_ref()
                    .and_then(|s| s.early_data)
                    .is_some_and(|(_, a)| a);
            let e = self.early_data.get_or_insert_with(EarlyData::default);
            e.offered += u64::from(offered);
            e.accepted += u64::from(accepted && server_got);
        }
        for p in check(&self.spec, outcome, self.server_reports) {
            self.problem(p);
        }
        if let Some(c) = &outcome.client {
            self.count(Side::Client, c);
        }
        if let Some(s) = &outcome.server {
            self.count(Side::Server, s);
        }
        let client = outcome.client.as_ref().and_then(|c| c.trace.clone());
        if client.is_some() {
            self.traces.push(phases::ConnTrace {
                client,
                server: outcome.server.as_ref().and_then(|s| s.trace.clone()),
            });
        }
    }

    pub(crate) fn record_sample(&mut self, elapsed: Duration) {
        self.samples_us.push(round_ns(elapsed));
        if let Some(n) = self.samples_per_round.last_mut() {
            *n += 1;
        }
    }

    /// Starts the next interleaved round of the loop `group`: samples recorded from now
    /// on count for it.
    pub(crate) fn begin_round(&mut self, group: &str) {
        self.samples_per_round.push(0);
        if let Some(t) = self.traced.as_mut() {
            t.samples_per_round.push(0);
        }
        if self.round_group.is_none() {
            self.round_group = Some(group.to_string());
        }
    }

    pub(crate) fn problem(&mut self, p: String) {
        *self.problems.entry(p).or_default() += 1;
    }

    /// Counts one end's handshake kind (and, for the client, what was negotiated).
    pub(crate) fn count(&mut self, side: Side, h: &crate::arms::Handshake) {
        let kinds = self.kinds.get_or_insert_with(HandshakeKinds::default);
        match side {
            Side::Server => count(&mut kinds.server, h.kind),
            Side::Client => {
                count(&mut kinds.client, h.kind);
                let name = |x: Option<String>, none: &str| x.unwrap_or_else(|| none.to_string());
                let label = format!(
                    "{} / {} / {}",
                    name(h.protocol.map(|p| format!("{p:?}")), "?"),
                    name(h.cipher_suite.map(|p| format!("{p:?}")), "?"),
                    name(h.kx_group.map(|p| format!("{p:?}")), "no key exchange"),
                );
                *self.negotiated.entry(label).or_default() += 1;
            }
        }
    }
}

fn count(k: &mut KindCounts, kind: rustls::HandshakeKind) {
    match kind {
        rustls::HandshakeKind::Full => k.full += 1,
        rustls::HandshakeKind::FullWithHelloRetryRequest => k.full_with_hello_retry += 1,
        rustls::HandshakeKind::Resumed => k.resumed += 1,
    }
}

/// Microseconds, kept to the nanosecond.
fn round_ns(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1000.0
}

/// The `round_group` of the main loop's arms on loopback.
pub const MAIN_LOOP: &str = "loopback";

/// Starts `specs` (per `opts`) and measures them with [`run`]; the evidence of every arm
/// that was attempted.
pub fn arms(
    specs: &[ArmSpec],
    plan: &Plan,
    certs: &crate::certs::CertStore,
    opts: &crate::arms::SessionOptions,
    stop: &AtomicBool,
) -> anyhow::Result<Vec<shared::Arm>> {
    use anyhow::Context;
    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = Vec::new();
    for spec in specs {
        let session = spec
            .start(certs, opts)
            .with_context(|| format!("starting arm {spec}"))?;
        sessions.push((*spec, session));
    }
    Ok(measure_sessions(&mut sessions, plan, MAIN_LOOP, stop))
}

/// Measures started sessions with a progress display, interleaved in rounds recorded as
/// `group`; the evidence of every arm attempted.
pub fn measure_sessions(
    sessions: &mut [(ArmSpec, Box<dyn Session>)],
    plan: &Plan,
    group: &str,
    stop: &AtomicBool,
) -> Vec<shared::Arm> {
    let specs: Vec<ArmSpec> = sessions.iter().map(|(s, _)| *s).collect();
    let progress = Progress::new(&specs, plan.samples);
    let runs = run(sessions, plan, group, &progress, stop);
    progress.finish();
    runs.iter()
        .filter(|r| r.attempted > 0)
        .map(build_arm)
        .collect()
}

/// Runs every arm's connections, interleaved in rounds, and records which round each
/// successful sample came from (the rounds are named `group` in the evidence). Stops
/// early (keeping what was measured) when `stop` is set; failed connections are
/// counted, never dropped.
pub fn run(
    sessions: &mut [(ArmSpec, Box<dyn Session>)],
    plan: &Plan,
    group: &str,
    progress: &Progress,
    stop: &AtomicBool,
) -> Vec<ArmRun> {
    let cpu = crate::cpu::plan();
    let mut runs: Vec<ArmRun> = sessions
        .iter_mut()
        .map(|(s, session)| {
            // Only arms whose session can trace get traced connections; the others
            // record nothing (and every connection gives a sample).
            let can_trace = session.set_traced(false);
            let traces = plan.trace_every > 0 && can_trace;
            ArmRun {
                request: plan.request || s.early_data(),
                server_reports: session.server_reports(),
                traced: traces.then(|| Traced {
                    untraced_per_traced: plan.trace_every,
                    ..Traced::default()
                }),
                placed: Some(placement::Placed::new(cpu, s.cpu)),
                ..ArmRun::new(*s, plan.samples)
            }
        })
        .collect();
    let mut rng = fastrand::Rng::with_seed(plan.seed);
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    'rounds: for round in 0..plan.rounds {
        rng.shuffle(&mut order);
        runs.iter_mut().for_each(|r| r.begin_round(group));
        for (pos, &i) in order.iter().enumerate() {
            let (spec, session) = &mut sessions[i];
            progress.at(round + 1, plan.rounds, pos + 1, order.len(), spec);
            let run = &mut runs[i];
            for _ in 0..plan.warmup_per_chunk {
                if stop.load(Ordering::Relaxed) {
                    break 'rounds;
                }
                run.warmup_attempted += 1;
                if session.connect_once().is_err() {
                    run.warmup_failed += 1;
                }
            }
            let steal_before = steal::machine();
            let chunk_start = Instant::now();
            let mut stopped = false;
            for _ in 0..plan.chunk(round) {
                if stop.load(Ordering::Relaxed) {
                    stopped = true;
                    break;
                }
                run.attempted += 1;
                let outcome = session.connect_once();
                observe(run, session.as_ref(), outcome.as_ref().ok());
                match outcome {
                    Ok(outcome) => run.record(&outcome),
                    Err(e) => {
                        run.failed += 1;
                        run.first_failure.get_or_insert_with(|| format!("{e:#}"));
                    }
                }
                // After every `trace_every` untraced connections of the arm, one traced one.
                if run.traced.is_some() && run.attempted.is_multiple_of(plan.trace_every) {
                    session.set_traced(true);
                    let traced = session.connect_once();
                    session.set_traced(false);
                    observe(run, session.as_ref(), traced.as_ref().ok());
                    let t = run.traced.as_mut().expect("checked above");
                    t.attempted += 1;
                    match traced {
                        Ok(outcome) => run.record_traced(&outcome),
                        Err(e) => {
                            t.failed += 1;
                            run.first_failure.get_or_insert_with(|| format!("{e:#}"));
                        }
                    }
                }
                progress.tick(i);
            }
            run.timed_wall += chunk_start.elapsed();
            run.round_steal.push(
                steal_before
                    .zip(steal::machine())
                    .and_then(|(b, a)| steal::percent(b, a)),
            );
            if stopped {
                break 'rounds;
            }
        }
        progress.round_done(round + 1, plan.rounds);
    }
    runs
}

/// Counts where the two ends of the connection just made ran: the client is this thread
/// (which made it), unless its handshake sampled its own CPU; the server as its session
/// tells.
fn observe(run: &mut ArmRun, session: &dyn Session, outcome: Option<&crate::arms::Outcome>) {
    let Some(placed) = run.placed.as_mut() else {
        return;
    };
    let client = outcome
        .and_then(|o| o.client.as_ref())
        .and_then(|c| c.cpu)
        .or_else(crate::cpu::current);
    let (server, how) = session.server_cpus();
    placed.observe(client, &server, how);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_add_up_to_samples() {
        for (samples, rounds) in [(1000, 10), (7, 3), (5, 10), (100_000, 7)] {
            let plan = Plan {
                samples,
                warmup_per_chunk: 1,
                rounds,
                seed: 0,
                request: false,
                trace_every: 0,
            };
            let total: u64 = (0..rounds).map(|r| plan.chunk(r)).sum();
            assert_eq!(total, samples, "{samples} over {rounds}");
        }
    }
}
