//! What a peer stack is ([`PeerStack`]): it plans its arms (each a [`PeerArm`] with a
//! stable id and the programs it needs) and runs them; the peer phase driver
//! (`crate::peers`) does the rest (tools, private files, skips, statistics) and lists the
//! stacks, one line each in its registry.

use anyhow::Result;
use shared::{Arm, CertKind, Comparison, KxGroup};

use super::{PeerArgs, PeerArm, Work};
use crate::arms::Plan;

/// What a peer stack provides to the peer phase.
pub trait PeerStack: Sync {
    /// Its name: [`PeerArm::stack`] of every arm it plans.
    fn name(&self) -> &'static str;
    /// Every arm it has for these certs and groups, before `--arms` filtering.
    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm>;
    /// Why it cannot serve an ML-DSA certificate (`ml-dsa-*` in `--certs`), or None when
    /// it can: the driver skips its ML-DSA arms with this reason and the version of its
    /// tool that was found, so no cell is dropped silently.
    fn no_ml_dsa(&self) -> Option<&'static str>;
    /// Why its server cannot be held to loopback (e.g. it has no listen-address option),
    /// or None. Servers bind loopback only by default, so such a stack's arms run only
    /// when `--arms` names them.
    fn beyond_loopback(&self) -> Option<&'static str> {
        None
    }
    /// Whether its rustls-client arms' servers are counted as whole processes after its
    /// timed arms, where the run counts instructions (see [`super::counted`]).
    fn counts_servers(&self) -> bool {
        false
    }
    /// Measures its arms `idx` (indices into `w.arms`, each still without a record, every
    /// tool found), leaving a record for each it measured; failures become arm errors.
    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()>;
    /// Comparisons beyond the shared latency ones (`arms[i]` is the record of `plan[i]`).
    fn comparisons(
        &self,
        _plan: &[PeerArm],
        _arms: &[Arm],
        _resamples: usize,
        _seed: u64,
    ) -> Vec<Comparison> {
        Vec::new()
    }
    /// `settings.extra` entries saying how its arms ran (only when it has planned arms).
    fn settings(&self, args: &PeerArgs, plan: &Plan) -> Vec<(&'static str, String)>;
}
