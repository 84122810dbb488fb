//! What one arm's timed connections produced ([`ArmRun`]), and how one connection's
//! outcome is recorded into it (with the honesty checks of [`super::verify`]). The timing
//! loop (`measure`) fills it; so does a stack that runs its own loop (Python's `ssl`).

use std::collections::BTreeMap;
use std::time::Duration;

use shared::{EarlyData, HandshakeKinds, KindCounts, Side};

use super::placement::Placed;
use super::trace::ConnTrace;
use super::verify::check;
use super::{ArmSpec, Handshake, Outcome};

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
    pub traces: Vec<ConnTrace>,
    /// Keep-alive arms, per successful connection: requests carried, the first one's
    /// TTFB and the cost per request of the whole connection (µs).
    pub keepalive: Vec<(u64, f64, f64)>,
    /// The traced connections (phases recorded), kept apart from the untraced ones above;
    /// None when the arm traced none.
    pub traced: Option<Traced>,
    /// Where each end ran, per connection; None where not sampled.
    pub placed: Option<Placed>,
    /// The client socket's TCP counters of every successful connection that read them
    /// (over an emulated link), in the order of `samples_us`.
    pub tcp: Vec<super::tcp_info::TcpInfo>,
    /// The same from the server's socket, where the server read them (rustls servers).
    pub server_tcp: Vec<super::tcp_info::TcpInfo>,
    /// Per successful connection where counted: the client's ClientHello, the server's
    /// first flight, and the chain the client received (certificates, DER bytes).
    pub client_hellos: Vec<super::wire::Flight>,
    pub server_flights: Vec<super::wire::Flight>,
    pub chains: Vec<(u32, u64)>,
    /// Every chunk as the loop measured it (steal, speed probe, used or set aside), where
    /// the loop watches steal (`Plan::noise`); None otherwise.
    pub chunks: Option<shared::ArmChunks>,
}

/// Where an arm's records stood before a chunk: what [`ArmRun::set_aside`] rolls back
/// to. The honesty checks' findings (`problems`) are never rolled back: a broken promise
/// in a chunk set aside still breaks the arm.
#[derive(Debug, Clone)]
pub struct Mark {
    attempted: u64,
    failed: u64,
    timed_wall: Duration,
    lens: [usize; 9],
    kinds: Option<HandshakeKinds>,
    negotiated: BTreeMap<String, u64>,
    early_data: Option<EarlyData>,
    traced: Option<(u64, u64, usize)>,
    placed: Option<Placed>,
}

impl Mark {
    /// Successful samples and timed connections recorded before the mark.
    pub fn samples(&self) -> usize {
        self.lens[0]
    }

    pub fn attempted(&self) -> u64 {
        self.attempted
    }
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
            server_tcp: Vec::new(),
            client_hellos: Vec::new(),
            server_flights: Vec::new(),
            chains: Vec::new(),
            chunks: None,
        }
    }

    fn lens(&self) -> [usize; 9] {
        [
            self.samples_us.len(),
            self.connect_us.len(),
            self.tcp.len(),
            self.server_tcp.len(),
            self.traces.len(),
            self.keepalive.len(),
            self.client_hellos.len(),
            self.server_flights.len(),
            self.chains.len(),
        ]
    }

    /// Where the records stand now (before a chunk).
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            attempted: self.attempted,
            failed: self.failed,
            timed_wall: self.timed_wall,
            lens: self.lens(),
            kinds: self.kinds,
            negotiated: self.negotiated.clone(),
            early_data: self.early_data,
            traced: self
                .traced
                .as_ref()
                .map(|t| (t.attempted, t.failed, t.samples_us.len())),
            placed: self.placed.clone(),
        }
    }

    /// Takes everything recorded since `mark` (one chunk, within the current round) out
    /// of the arm's numbers, and returns the chunk's samples: the chunk is set aside.
    pub(crate) fn set_aside(&mut self, mark: Mark) -> Vec<f64> {
        let [samples, connect, tcp, server_tcp, traces, keepalive, hellos, flights, chains] =
            mark.lens;
        let samples_us = self.samples_us.split_off(samples);
        if let Some(n) = self.samples_per_round.last_mut() {
            *n -= samples_us.len() as u64;
        }
        self.connect_us.truncate(connect);
        self.tcp.truncate(tcp);
        self.server_tcp.truncate(server_tcp);
        self.traces.truncate(traces);
        self.keepalive.truncate(keepalive);
        self.client_hellos.truncate(hellos);
        self.server_flights.truncate(flights);
        self.chains.truncate(chains);
        if let (Some(t), Some((attempted, failed, len))) = (self.traced.as_mut(), mark.traced) {
            let dropped = (t.samples_us.len() - len) as u64;
            t.samples_us.truncate(len);
            if let Some(n) = t.samples_per_round.last_mut() {
                *n -= dropped;
            }
            (t.attempted, t.failed) = (attempted, failed);
        }
        (self.attempted, self.failed) = (mark.attempted, mark.failed);
        self.timed_wall = mark.timed_wall;
        self.kinds = mark.kinds;
        self.negotiated = mark.negotiated;
        self.early_data = mark.early_data;
        self.placed = mark.placed;
        samples_us
    }

    /// Records one traced connection: its window among the traced samples, its phases,
    /// and the same honesty checks as every connection (its handshake kinds are not
    /// counted: those count the untraced connections the arm's numbers come from).
    pub(crate) fn record_traced(&mut self, outcome: &Outcome) {
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
        self.traces.push(ConnTrace {
            client,
            server: outcome.server.as_ref().and_then(|s| s.trace.clone()),
        });
    }

    pub(crate) fn record(&mut self, outcome: &Outcome) {
        self.record_sample(outcome.elapsed);
        self.connect_us.push(round_ns(outcome.connect));
        self.tcp.extend(outcome.tcp);
        let wire = |h: &Option<Handshake>| h.as_ref().and_then(|h| h.wire.clone());
        if let Some(w) = wire(&outcome.client) {
            self.client_hellos.extend(w.flight);
            self.chains.extend(w.chain);
        }
        if let Some(w) = wire(&outcome.server) {
            self.server_flights.extend(w.flight);
            self.server_tcp.extend(w.tcp);
        }
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
            self.traces.push(ConnTrace {
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
    pub(crate) fn count(&mut self, side: Side, h: &Handshake) {
        let kinds = self.kinds.get_or_insert_with(HandshakeKinds::default);
        match side {
            Side::Server => count_kind(&mut kinds.server, h.kind),
            Side::Client => {
                count_kind(&mut kinds.client, h.kind);
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

/// One handshake of `kind` counted into `k`.
pub(crate) fn count_kind(k: &mut KindCounts, kind: rustls::HandshakeKind) {
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
