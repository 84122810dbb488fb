//! The loop's steal watch, driven by a scripted steal source and a session whose every
//! connection takes a known, increasing time (connection n takes n µs), so each sample
//! says which connection it was.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use shared::{ChunkOutcome, NoiseSettings, SpeedProbe};

use super::*;
use crate::arms::{ArmRun, ArmSpec, Outcome, Plan, Session};
use crate::measure::probe::Probe;
use crate::progress::Progress;

/// Per chunk, the steal (in ticks of 100) of cpu0; cpu1 never steals. Two reads a chunk.
struct Scripted {
    per_chunk: VecDeque<u64>,
    reads: u64,
    cpu0: Ticks,
    cpu1: Ticks,
}

impl Scripted {
    fn new(per_chunk: &[u64]) -> Scripted {
        Scripted {
            per_chunk: per_chunk.iter().copied().collect(),
            reads: 0,
            cpu0: Ticks::default(),
            cpu1: Ticks::default(),
        }
    }
}

impl StealSource for Scripted {
    fn read(&mut self) -> BTreeMap<String, Ticks> {
        if self.reads % 2 == 1 {
            let s = self.per_chunk.pop_front().unwrap_or(0);
            self.cpu0.total += 100;
            self.cpu0.steal += s;
            self.cpu1.total += 100;
        }
        self.reads += 1;
        let machine = Ticks {
            steal: self.cpu0.steal + self.cpu1.steal,
            total: self.cpu0.total + self.cpu1.total,
        };
        [("cpu", machine), ("cpu0", self.cpu0), ("cpu1", self.cpu1)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }
}

/// A probe that reports a fixed speed.
struct Fixed(f64);

impl Probe for Fixed {
    fn time(&mut self) -> Option<f64> {
        Some(self.0)
    }
}

/// Connection n (from 1, warm-ups included) takes n µs.
struct Counting(u64);

impl Session for Counting {
    fn connect_once(&mut self) -> anyhow::Result<Outcome> {
        self.0 += 1;
        let t = Duration::from_micros(self.0);
        Ok(Outcome {
            elapsed: t,
            connect: t,
            cycle: t,
            client: None,
            server: None,
            keepalive: None,
            tcp: None,
        })
    }
}

fn noise(max_extra: u64, share: f64) -> NoiseSettings {
    NoiseSettings {
        max_steal_percent: 5.0,
        max_extra_chunks_per_arm: max_extra,
        max_extra_time_share: share,
        probe: SpeedProbe::X25519KeygenAgree,
        probe_operations: 1,
    }
}

/// One TCP arm, 3 rounds of 2 samples, 1 warm-up per chunk.
fn measure(steal: &[u64], noise: Option<NoiseSettings>) -> ArmRun {
    let plan = Plan {
        samples: 6,
        warmup_per_chunk: 1,
        rounds: 3,
        seed: 7,
        request: false,
        trace_every: 0,
        noise,
    };
    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> =
        vec![(ArmSpec::TCP_CONNECT, Box::new(Counting(0)))];
    let progress = Progress::new(&[ArmSpec::TCP_CONNECT], plan.samples);
    let mut source = Scripted::new(steal);
    let mut probe = Fixed(30.0);
    let mut host = Host {
        steal: &mut source,
        probe: &mut probe,
    };
    let stop = AtomicBool::new(false);
    let mut runs = crate::measure::run_with(&mut sessions, &plan, "t", &progress, &stop, &mut host);
    runs.remove(0)
}

fn outcomes(run: &ArmRun) -> Vec<(u64, ChunkOutcome)> {
    let c = run.chunks.as_ref().expect("chunks recorded");
    c.list.iter().map(|c| (c.round, c.outcome)).collect()
}

#[test]
fn a_chunk_with_steal_over_the_threshold_is_set_aside_and_measured_again() {
    // Chunk 2 (round 1) sees 20% steal on cpu0; the others none.
    let run = measure(&[0, 20, 0, 0], Some(noise(3, 10.0)));
    use ChunkOutcome::*;
    assert_eq!(
        outcomes(&run),
        [(0, Used), (1, SetAside), (1, Used), (2, Used)]
    );
    // Connections: warm-up 1, samples 2 3 | warm-up 4, set aside 5 6 | warm-up 7,
    // samples 8 9 | warm-up 10, samples 11 12.
    assert_eq!(run.samples_us, [2.0, 3.0, 8.0, 9.0, 11.0, 12.0]);
    assert_eq!(run.samples_per_round, [2, 2, 2]);
    let chunks = run.chunks.as_ref().unwrap();
    assert_eq!(chunks.set_aside_us, [5.0, 6.0]);
    assert_eq!(chunks.list[1].steal_percent, Some(20.0));
    assert_eq!(chunks.list[1].probe_us, Some(30.0));
    assert_eq!((chunks.list[1].attempted, chunks.list[1].samples), (2, 2));
    // Counts describe the samples used.
    assert_eq!((run.attempted, run.failed), (6, 0));
    assert_eq!(run.connect_us.len(), 6);
    // One machine steal share per round: the used chunk's (0 of 200 ticks).
    assert_eq!(run.round_steal, [Some(0.0), Some(0.0), Some(0.0)]);
}

#[test]
fn the_budget_stops_measuring_again_and_the_chunk_is_used_over_budget() {
    // Every chunk steals 30%: one extra chunk allowed, then the next over-threshold
    // chunks are used as they are.
    let run = measure(&[30; 10], Some(noise(1, 10.0)));
    use ChunkOutcome::*;
    assert_eq!(
        outcomes(&run),
        [
            (0, SetAside),
            (0, UsedOverBudget),
            (1, UsedOverBudget),
            (2, UsedOverBudget)
        ]
    );
    assert_eq!(run.samples_us.len(), 6);
    let chunks = run.chunks.as_ref().unwrap();
    assert_eq!((chunks.set_aside(), chunks.over_budget()), (1, 3));
}

#[test]
fn no_time_budget_means_nothing_is_measured_again() {
    let run = measure(&[30, 0, 0], Some(noise(5, 0.0)));
    use ChunkOutcome::*;
    assert_eq!(outcomes(&run), [(0, UsedOverBudget), (1, Used), (2, Used)]);
    assert_eq!(run.samples_us, [2.0, 3.0, 5.0, 6.0, 8.0, 9.0]);
}

#[test]
fn steal_at_the_threshold_is_not_over_it() {
    let run = measure(&[5, 5, 5], Some(noise(5, 10.0)));
    assert!(outcomes(&run).iter().all(|(_, o)| *o == ChunkOutcome::Used));
}

#[test]
fn without_noise_settings_no_chunk_is_watched() {
    let run = measure(&[90, 90, 90], None);
    assert!(run.chunks.is_none());
    assert_eq!(run.samples_us, [2.0, 3.0, 5.0, 6.0, 8.0, 9.0]);
}

#[test]
fn the_time_budget_is_a_share_of_the_whole_loop_projected_from_the_rounds_done() {
    // 10 rounds; 1 s of first chunks so far, 0.6 s already spent measuring again.
    let budget = |round| {
        let mut b = Budget::new(Some(noise(10, 0.5)), 1, 10);
        b.at_round(round);
        b.spent(false, Duration::from_secs(1));
        b.spent(true, Duration::from_millis(600));
        b
    };
    // In round 0 the loop projects to 10 s: half of it is 5 s, so there is time left.
    assert!(budget(0).reserve(0));
    // In round 9 (the last) it projects to 1 s: half is 0.5 s, already spent.
    assert!(!budget(9).reserve(0));
    // The per-arm cap holds whatever the time: 10 extra chunks, then none.
    let mut b = budget(0);
    assert_eq!((0..12).filter(|_| b.reserve(0)).count(), 10);
}
