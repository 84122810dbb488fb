//! What the host did to a run, chunk by chunk: the evidence of `--max-steal`.
//!
//! On a shared VM the hypervisor takes CPU time away at random (`steal` in `/proc/stat`),
//! and the guest's compute speed can switch between modes within a run. The timing loop
//! reads steal around every chunk of every arm, times a small fixed compute kernel (the
//! speed probe) before it, and sets a chunk aside (measuring it again, within a budget)
//! when steal on any CPU went over the threshold. Every chunk stays in the evidence with
//! what happened to it; an arm's samples and percentiles are those of the chunks used.
//! [`crate::conditions`] turns these records into one verdict on the run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The run's noise settings: the threshold and the budget for measuring chunks again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NoiseSettings {
    /// A chunk during which steal on any CPU exceeded this share of the CPU's time (per
    /// cent) is set aside and measured again (`--max-steal`; 100 switches it off).
    /// `/proc/stat` counts steal in 10 ms ticks, so a chunk shorter than `10 ms × 100 /
    /// max_steal_percent` is set aside as soon as one tick of steal falls in it.
    pub max_steal_percent: f64,
    /// At most this many extra chunks per arm (in every round together).
    pub max_extra_chunks_per_arm: u64,
    /// The extra chunks of a loop together take at most this share of the wall time its
    /// first chunks took (e.g. 0.25: a quarter more); past it nothing is measured again.
    pub max_extra_time_share: f64,
    /// What the speed probe times before each chunk: `probe_operations` operations of
    /// this kind, each timed, the median kept (`Chunk::probe_us`).
    pub probe: SpeedProbe,
    pub probe_operations: u64,
}

/// The fixed compute kernel timed before each chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpeedProbe {
    /// One X25519 key generation and agreement (aws-lc-rs), the key exchange of most
    /// arms' handshakes.
    X25519KeygenAgree,
}

/// One arm's chunks as the loop measured them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ArmChunks {
    /// Every chunk of the arm in the order measured, chunks measured again included.
    pub list: Vec<Chunk>,
    /// The samples of the chunks set aside (µs), one chunk after another in `list`'s
    /// order: nothing measured is lost. Written packed like `samples_us`; emptied in a
    /// summary.
    #[serde(default, with = "crate::packed::samples")]
    #[schemars(with = "crate::packed::PackedSamples")]
    pub set_aside_us: Vec<f64>,
}

/// One chunk: an arm's consecutive timed connections within one round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Chunk {
    /// The round it belongs to (0-based): a chunk measured again stays in its round.
    pub round: u64,
    /// The highest steal of any CPU during the chunk, per cent of that CPU's time; null
    /// where `/proc/stat` could not be read or no tick passed.
    pub steal_percent: Option<f64>,
    /// The speed probe timed just before the chunk: the median of its operations, µs
    /// (null where it was not timed).
    pub probe_us: Option<f64>,
    /// Timed connections tried in the chunk, and those that succeeded (its samples).
    pub attempted: u64,
    pub samples: u64,
    pub outcome: ChunkOutcome,
}

/// What became of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChunkOutcome {
    /// Its samples are the arm's (steal at or under the threshold).
    Used,
    /// Steal went over the threshold: its samples are in `set_aside_us`, and the chunk
    /// was measured again.
    SetAside,
    /// Steal went over the threshold, but the budget for measuring again was spent: its
    /// samples are the arm's all the same, and the arm is noisy.
    UsedOverBudget,
}

impl ChunkOutcome {
    /// Whether the chunk's samples are among the arm's `samples_us`.
    pub fn used(self) -> bool {
        self != ChunkOutcome::SetAside
    }
}

impl ArmChunks {
    /// Chunks whose samples the arm uses.
    pub fn used(&self) -> impl Iterator<Item = &Chunk> {
        self.list.iter().filter(|c| c.outcome.used())
    }

    /// Chunks used although steal was over the threshold (the budget was spent).
    pub fn over_budget(&self) -> u64 {
        self.count(ChunkOutcome::UsedOverBudget)
    }

    pub fn set_aside(&self) -> u64 {
        self.count(ChunkOutcome::SetAside)
    }

    fn count(&self, outcome: ChunkOutcome) -> u64 {
        self.list.iter().filter(|c| c.outcome == outcome).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(round: u64, outcome: ChunkOutcome) -> Chunk {
        Chunk {
            round,
            steal_percent: Some(0.0),
            probe_us: Some(30.0),
            attempted: 3,
            samples: 3,
            outcome,
        }
    }

    #[test]
    fn a_set_aside_chunk_is_not_used_and_is_counted() {
        let c = ArmChunks {
            list: vec![
                chunk(0, ChunkOutcome::SetAside),
                chunk(0, ChunkOutcome::Used),
                chunk(1, ChunkOutcome::UsedOverBudget),
            ],
            set_aside_us: vec![1.0, 2.0, 3.0],
        };
        assert_eq!(c.used().map(|c| c.round).collect::<Vec<_>>(), [0, 1]);
        assert_eq!((c.set_aside(), c.over_budget()), (1, 1));
    }

    #[test]
    fn outcomes_are_written_in_snake_case() {
        let json = serde_json::to_string(&chunk(2, ChunkOutcome::UsedOverBudget)).unwrap();
        assert!(json.contains(r#""outcome":"used_over_budget""#), "{json}");
        let back: Chunk = serde_json::from_str(&json).unwrap();
        assert_eq!(back.outcome, ChunkOutcome::UsedOverBudget);
    }
}
