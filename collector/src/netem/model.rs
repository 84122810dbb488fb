//! One direction of the emulated link, as a pure model on a virtual clock: the relay
//! hands it each packet's arrival time and length and is told when the packet leaves,
//! or why it is dropped. No real time, no I/O: tests drive it with made-up clocks.
//!
//! The order a packet meets things in (as Linux netem's): too big for the MTU → dropped;
//! loss (independent, or Gilbert–Elliott) → dropped; the rate queue (FIFO, `limit`
//! packets waiting or in serialization, tail drop) → serialization at `rate`; then the
//! propagation delay RTT/2 ± jitter; never leaving before the packet ahead (no reordering).

use std::time::Duration;

use super::link::LinkSpec;
use super::packet::Kind;

/// What became of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// It leaves the link at this virtual time.
    Leave(Duration),
    Dropped(Cause),
}

/// Why a packet was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Larger than the MTU.
    TooBig,
    /// The loss model took it.
    Lost,
    /// The rate queue was full (tail drop).
    QueueFull,
}

/// Packets of one kind one direction offered to the loss model, and how many it took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindCount {
    pub seen: u64,
    pub lost: u64,
}

/// Packets one direction saw, and how many each cause dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub seen: u64,
    pub lost: u64,
    pub queue_full: u64,
    pub too_big: u64,
    /// Packets the loss model was not asked about (see [`Model::offer_spared`]); not in
    /// `seen`, so `lost / seen` is the loss model's own rate.
    pub spared: u64,
    /// Per TCP kind ([`Kind::ALL`]'s order): packets drawn for and lost (the relay fills
    /// these; a packet that is not TCP over IPv4 has no kind).
    pub kinds: [KindCount; 5],
    /// Runs of equal outcomes (lost, or not) among the packets the loss model drew for,
    /// in the order they came: with independent draws, their number is close to what
    /// the Wald–Wolfowitz runs test expects.
    pub runs: u64,
    /// The outcome of the last draw (None before the first).
    last_lost: Option<bool>,
}

impl Counters {
    pub fn count(&mut self, fate: Fate) {
        self.seen += 1;
        self.count_fate(fate);
        // Every packet within the MTU met the loss draw; a full queue comes after it.
        if fate != Fate::Dropped(Cause::TooBig) {
            let lost = fate == Fate::Dropped(Cause::Lost);
            if self.last_lost != Some(lost) {
                self.runs += 1;
            }
            self.last_lost = Some(lost);
        }
    }

    /// A packet of `kind` drawn for ([`Counters::count`]) met `fate`.
    pub fn count_kind(&mut self, kind: Kind, fate: Fate) {
        let k = &mut self.kinds[kind.index()];
        if fate != Fate::Dropped(Cause::TooBig) {
            k.seen += 1;
        }
        if fate == Fate::Dropped(Cause::Lost) {
            k.lost += 1;
        }
    }

    /// A packet spared the loss model: counted apart, and if the queue or the MTU
    /// dropped it, under that cause.
    pub fn count_spared(&mut self, fate: Fate) {
        self.spared += 1;
        self.count_fate(fate);
    }

    fn count_fate(&mut self, fate: Fate) {
        match fate {
            Fate::Leave(_) => {}
            Fate::Dropped(Cause::Lost) => self.lost += 1,
            Fate::Dropped(Cause::QueueFull) => self.queue_full += 1,
            Fate::Dropped(Cause::TooBig) => self.too_big += 1,
        }
    }

    pub fn add(&mut self, other: &Counters) {
        self.seen += other.seen;
        self.lost += other.lost;
        self.queue_full += other.queue_full;
        self.too_big += other.too_big;
        self.spared += other.spared;
        for (k, o) in self.kinds.iter_mut().zip(&other.kinds) {
            k.seen += o.seen;
            k.lost += o.lost;
        }
        // Two sequences joined: their runs add (a run across the seam counts twice, at
        // most one too many).
        self.runs += other.runs;
    }
}

/// The loss process. Gilbert–Elliott in its simple form: a good state that loses
/// nothing and a bad state that loses every packet. From the bad state the chain leaves
/// with probability r = 1/burst per packet (so a run of losses is geometric with mean
/// `burst`); it enters it with q = p·r/(1−p), which makes the long-run share of bad
/// packets, and so the loss rate, p.
#[derive(Debug, Clone, Copy)]
enum Loss {
    None,
    Independent(f64),
    GilbertElliott { enter: f64, leave: f64, bad: bool },
}

impl Loss {
    fn of(spec: &LinkSpec) -> Loss {
        match spec.burst {
            _ if spec.loss == 0.0 => Loss::None,
            None => Loss::Independent(spec.loss),
            Some(b) => {
                let leave = 1.0 / b;
                Loss::GilbertElliott {
                    enter: spec.loss * leave / (1.0 - spec.loss),
                    leave,
                    bad: false,
                }
            }
        }
    }

    fn lose(&mut self, rng: &mut fastrand::Rng) -> bool {
        match self {
            Loss::None => false,
            Loss::Independent(p) => rng.f64() < *p,
            Loss::GilbertElliott { enter, leave, bad } => {
                let flip = if *bad { *leave } else { *enter };
                if rng.f64() < flip {
                    *bad = !*bad;
                }
                *bad
            }
        }
    }
}

/// One direction of the link, with its own seeded RNG.
pub struct Model {
    spec: LinkSpec,
    rng: fastrand::Rng,
    loss: Loss,
    /// When each packet in the rate queue finishes serialization, oldest first.
    in_queue: std::collections::VecDeque<Duration>,
    /// When the last packet let through leaves (the no-reordering floor).
    last_leave: Duration,
    pub counters: Counters,
}

impl Model {
    /// The RNG is fastrand's wyrand seeded with `seed`: the same seed and the same
    /// arrivals give the same fates.
    pub fn new(spec: LinkSpec, seed: u64) -> Model {
        Model {
            spec,
            rng: fastrand::Rng::with_seed(seed),
            loss: Loss::of(&spec),
            in_queue: std::collections::VecDeque::new(),
            last_leave: Duration::ZERO,
            counters: Counters::default(),
        }
    }

    pub fn spec(&self) -> &LinkSpec {
        &self.spec
    }

    /// A packet of `len` bytes arrives at virtual time `now` (arrivals in time order).
    pub fn offer(&mut self, now: Duration, len: usize) -> Fate {
        let fate = self.fate(now, len, true);
        self.counters.count(fate);
        fate
    }

    /// [`Model::offer`] without the loss model (no random number is drawn): the MTU, the
    /// queue and the delay as for every packet. For packets whose loss would measure the
    /// lab instead of the link (the relay spares the RST that closes each connection).
    pub fn offer_spared(&mut self, now: Duration, len: usize) -> Fate {
        let fate = self.fate(now, len, false);
        self.counters.count_spared(fate);
        fate
    }

    fn fate(&mut self, now: Duration, len: usize, may_lose: bool) -> Fate {
        if len > self.spec.mtu as usize {
            return Fate::Dropped(Cause::TooBig);
        }
        if may_lose && self.loss.lose(&mut self.rng) {
            return Fate::Dropped(Cause::Lost);
        }
        let sent = match self.spec.rate_bps {
            None => now,
            Some(bps) => {
                while self.in_queue.front().is_some_and(|&done| done <= now) {
                    self.in_queue.pop_front();
                }
                if self.in_queue.len() >= self.spec.limit as usize {
                    return Fate::Dropped(Cause::QueueFull);
                }
                let start = self.in_queue.back().copied().unwrap_or(now).max(now);
                let done = start + serialization(len, bps);
                self.in_queue.push_back(done);
                done
            }
        };
        let leave = (sent + self.delay()).max(self.last_leave);
        self.last_leave = leave;
        Fate::Leave(leave)
    }

    /// RTT/2 plus a uniform draw in ±jitter, not below zero.
    fn delay(&mut self) -> Duration {
        let base = self.spec.rtt / 2;
        let j = self.spec.jitter.as_nanos() as i128;
        if j == 0 {
            return base;
        }
        let offset = self.rng.i64(-(j as i64)..=j as i64) as i128;
        let ns = (base.as_nanos() as i128 + offset).max(0);
        Duration::from_nanos(ns as u64)
    }
}

/// Time to put `len` bytes on a wire of `bps` bits per second, to the nanosecond.
pub fn serialization(len: usize, bps: u64) -> Duration {
    Duration::from_nanos((len as u128 * 8 * 1_000_000_000 / bps as u128) as u64)
}

/// The two directions' seeds from a link's seed: client→server gets `seed`, server→client
/// the next number (written out in the evidence's method text).
pub fn direction_seeds(seed: u64) -> [u64; 2] {
    [seed, seed.wrapping_add(1)]
}
