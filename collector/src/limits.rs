//! Upper bounds of the numeric arguments, shared by every command that takes them (below
//! all of them: no command reaches into another's arguments for a bound). They keep a
//! typo (an extra few zeros) from aborting on allocation or running for days; each is far
//! above what a useful run needs.

/// A connection stalled this long (10 minutes) measures nothing.
pub const MAX_IO_TIMEOUT_MS: u64 = 600_000;
/// Samples per arm: each is kept as an f64 in memory and as a number in the evidence
/// (about 8 MB and 10 MB per arm at this bound).
pub const MAX_SAMPLES: u64 = 1_000_000;
/// Rounds: a median per arm and round is kept.
pub const MAX_ROUNDS: u64 = 10_000;
/// Bootstrap resamples: each redraws every sample of an arm.
pub const MAX_BOOTSTRAP: u64 = 100_000;
/// Seconds per capacity arm (one hour).
pub const MAX_CAPACITY_SECONDS: u64 = 3_600;
/// Offered rate of an open-loop arm, new connections per second (far above what one
/// host can handshake).
pub const MAX_OPEN_LOOP_RATE: u64 = 1_000_000;
