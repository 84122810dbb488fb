//! How many connections an arm gets, and in what order ([`Plan`]): the numbers the
//! timing loop (`measure`) follows, and that a stack which runs its own loop (Python's
//! `ssl` script) is handed too.

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
    /// Where the loop watches steal: the threshold over which a chunk is set aside and
    /// measured again, and the budget for that (None: chunks are not watched).
    pub noise: Option<shared::NoiseSettings>,
}

impl Plan {
    /// Timed connections of `arm`'s chunk in `round` (chunks differ by at most one).
    pub fn chunk(&self, round: u64) -> u64 {
        self.samples * (round + 1) / self.rounds - self.samples * round / self.rounds
    }
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
                noise: None,
            };
            let total: u64 = (0..rounds).map(|r| plan.chunk(r)).sum();
            assert_eq!(total, samples, "{samples} over {rounds}");
        }
    }
}
