//! What counts a peer server's instructions, as the peer phase is lent it (callgrind, by
//! `crate::instructions::whole`): the interface alone, so that the settings that carry it
//! ([`super::work::Context::counter`]) and the counting ([`super::counted`]) both name it.

use std::path::Path;

use anyhow::Result;
use shared::{CountOutcome, Instructions};

use super::launch::Under;

/// What counts a peer server's instructions (valgrind's callgrind in the collector).
pub trait ProcessCounter: Sync {
    /// What a server counted as `name` runs under, its counter's files in `dir`.
    fn under(&self, dir: &Path, name: &str) -> Under;
    /// Counted handshakes per arm, and uncounted ones before them.
    fn handshakes(&self) -> u64;
    fn warmup(&self) -> u64;
    /// Drops what process `pid` executed so far.
    fn zero(&self, pid: u32) -> Result<()>;
    /// The instructions process `pid` (counted as `dir`/`name`) executed since it was last
    /// zeroed: its `k`-th dump, from 1.
    fn dump(&self, pid: u32, dir: &Path, name: &str, k: usize) -> Result<u64>;
    /// An arm's record of `outcome`.
    fn record(&self, outcome: CountOutcome) -> Instructions;
}
