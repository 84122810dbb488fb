//! One chunk of one arm (its warm-up, the speed probe, its timed connections) and what
//! the host did during it: the steal read around it decides whether its samples are
//! used or set aside to be measured again, within a [`Budget`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shared::{ArmChunks, Chunk, ChunkOutcome, NoiseSettings};

use super::probe::Probe;
use super::steal::{self, Ticks};
use crate::arms::measured::ArmRun;
use crate::arms::plan::Plan;
use crate::arms::Session;

/// Where the loop reads steal from (`/proc/stat`; a test hands in its own readings).
pub trait StealSource {
    fn read(&mut self) -> BTreeMap<String, Ticks>;
}

/// The machine's `/proc/stat`.
pub struct ProcStat;

impl StealSource for ProcStat {
    fn read(&mut self) -> BTreeMap<String, Ticks> {
        steal::read()
    }
}

/// What the loop watches the host with.
pub struct Host<'a> {
    pub steal: &'a mut dyn StealSource,
    pub probe: &'a mut dyn Probe,
}

/// The steal between two readings: the machine's (`cpu`) and the worst single CPU's.
fn chunk_steal(
    before: &BTreeMap<String, Ticks>,
    after: &BTreeMap<String, Ticks>,
) -> (Option<f64>, Option<f64>) {
    let machine = before
        .get("cpu")
        .zip(after.get("cpu"))
        .and_then(|(b, a)| steal::percent(*b, *a));
    let worst = steal::per_cpu(before, after)
        .into_values()
        .max_by(f64::total_cmp)
        .or(machine);
    (machine, worst)
}

/// How many chunks may be measured again, per arm and in time.
/// The time allowed is a share of the loop's whole first pass, projected from the rounds
/// done so far (so a loop's first rounds are not starved by their own short past).
#[derive(Debug)]
pub struct Budget {
    settings: Option<NoiseSettings>,
    extra: Vec<u64>,
    first_wall: Duration,
    extra_wall: Duration,
    rounds: u64,
    round: u64,
}

impl Budget {
    pub fn new(settings: Option<NoiseSettings>, arms: usize, rounds: u64) -> Budget {
        Budget {
            settings,
            extra: vec![0; arms],
            first_wall: Duration::ZERO,
            extra_wall: Duration::ZERO,
            rounds,
            round: 0,
        }
    }

    /// The loop is in round `round` (0-based).
    pub fn at_round(&mut self, round: u64) {
        self.round = round;
    }

    /// Whether a chunk with steal `worst` (the worst CPU's) is over the threshold.
    fn over(&self, worst: Option<f64>) -> bool {
        match (self.settings, worst) {
            (Some(s), Some(w)) => w > s.max_steal_percent,
            _ => false,
        }
    }

    /// Reserves one more chunk for arm `i` if the budget allows it.
    fn reserve(&mut self, i: usize) -> bool {
        let Some(s) = self.settings else {
            return false;
        };
        let projected =
            self.first_wall.as_secs_f64() * self.rounds as f64 / (self.round + 1) as f64;
        let time_left = self.extra_wall.as_secs_f64() < s.max_extra_time_share * projected;
        if self.extra[i] < s.max_extra_chunks_per_arm && time_left {
            self.extra[i] += 1;
            true
        } else {
            false
        }
    }

    fn spent(&mut self, again: bool, wall: Duration) {
        if again {
            self.extra_wall += wall;
        } else {
            self.first_wall += wall;
        }
    }

    /// Extra chunks measured so far, and their wall time.
    pub fn extra(&self) -> (u64, Duration) {
        (self.extra.iter().sum(), self.extra_wall)
    }
}

/// How a chunk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Used,
    /// Set aside: measure it again.
    Again,
    /// Ctrl-C (or another stop) arrived during it.
    Stopped,
}

/// What one chunk needs besides the session and its records.
pub struct ChunkCtx<'a> {
    pub plan: &'a Plan,
    pub round: u64,
    /// This arm already has a chunk in this round (this one measures it again).
    pub again: bool,
    pub stop: &'a AtomicBool,
}

/// Measures one chunk of one arm and decides what becomes of it. `connect` makes one
/// timed connection and records it into the run (the loop's own bookkeeping).
pub fn measure(
    i: usize,
    session: &mut dyn Session,
    run: &mut ArmRun,
    ctx: &ChunkCtx<'_>,
    host: &mut Host<'_>,
    budget: &mut Budget,
    connect: &mut dyn FnMut(usize, &mut dyn Session, &mut ArmRun),
) -> End {
    let started = Instant::now();
    for _ in 0..ctx.plan.warmup_per_chunk {
        if ctx.stop.load(Ordering::Relaxed) {
            return End::Stopped;
        }
        run.warmup_attempted += 1;
        if session.connect_once().is_err() {
            run.warmup_failed += 1;
        }
    }
    let watch = ctx.plan.noise.is_some();
    let probe_us = if watch { host.probe.time() } else { None };
    let mark = run.mark();
    let steal_before = host.steal.read();
    let chunk_start = Instant::now();
    let mut end = End::Used;
    for _ in 0..ctx.plan.chunk(ctx.round) {
        if ctx.stop.load(Ordering::Relaxed) {
            end = End::Stopped;
            break;
        }
        connect(i, session, run);
    }
    run.timed_wall += chunk_start.elapsed();
    let (machine, worst) = chunk_steal(&steal_before, &host.steal.read());
    budget.spent(ctx.again, started.elapsed());
    let outcome = match end {
        End::Stopped => ChunkOutcome::Used,
        _ if !budget.over(worst) => ChunkOutcome::Used,
        _ if budget.reserve(i) => ChunkOutcome::SetAside,
        _ => ChunkOutcome::UsedOverBudget,
    };
    let samples = (run.samples_us.len() - mark.samples()) as u64;
    let attempted = run.attempted - mark.attempted();
    if outcome == ChunkOutcome::SetAside {
        let aside = run.set_aside(mark);
        let chunks = run.chunks.get_or_insert_with(ArmChunks::default);
        chunks.set_aside_us.extend(aside);
    }
    if watch {
        run.chunks
            .get_or_insert_with(ArmChunks::default)
            .list
            .push(Chunk {
                round: ctx.round,
                steal_percent: worst,
                probe_us,
                attempted,
                samples,
                outcome,
            });
    }
    // One machine-wide steal share per round: the chunk whose samples the round keeps.
    if !ctx.again {
        run.round_steal.push(machine);
    } else if outcome.used() {
        if let Some(last) = run.round_steal.last_mut() {
            *last = machine;
        }
    }
    match (end, outcome) {
        (End::Stopped, _) => End::Stopped,
        (_, ChunkOutcome::SetAside) => End::Again,
        _ => End::Used,
    }
}

#[cfg(test)]
#[path = "chunk_tests.rs"]
mod tests;
