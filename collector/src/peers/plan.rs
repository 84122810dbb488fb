//! Which peer arms a run has. Every stack lives in its own folder under `arms/` and is
//! one line in [`STACKS`]: it plans its arms (each a [`PeerArm`] with a stable id and the
//! programs it needs) and runs them; [`super::run`] does the rest (tools, private files,
//! skips, statistics).

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use shared::{Arm, CertKind, Comparison, KxGroup, Stack};

use super::run::Work;
use super::PeerArgs;
use crate::arms::{self, ArmSpec};
use crate::evidence::build_arm;
use crate::measure::{ArmRun, Plan};

/// The peer stacks, in the order their arms are planned and run.
pub static STACKS: &[&dyn PeerStack] = &[
    &arms::openssl::Peer,
    &arms::python::Peer,
    &arms::nginx::Peer,
    &arms::caddy::Peer,
    &arms::gnutls::Peer,
];

/// A program a peer arm needs on PATH, and how to ask it its version.
#[derive(Clone, Copy)]
pub struct Tool {
    pub program: &'static str,
    pub version: fn(&Path) -> Result<String>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.program)
    }
}

/// What a peer stack provides to the peer phase.
pub trait PeerStack: Sync {
    /// Its name: [`PeerArm::stack`] of every arm it plans.
    fn name(&self) -> &'static str;
    /// Every arm it has for these certs and groups, before `--arms` filtering.
    fn plan(&self, certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm>;
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

/// One peer arm: its identity in the evidence, the programs it needs, and what its
/// stack needs to know to run it (`detail`, read back with [`PeerArm::detail`]).
#[derive(Clone)]
pub struct PeerArm {
    /// The [`PeerStack::name`] that planned it.
    pub stack: &'static str,
    pub id: String,
    /// Protocol, mode, resumption kind, cert and group.
    pub spec: ArmSpec,
    /// (stack label, client stack, server stack).
    pub stacks: (Stack, Stack, Stack),
    pub tools: Vec<Tool>,
    pub timed_window: String,
    /// Why this arm cannot work at all, known before running it.
    pub known_skip: Option<String>,
    pub detail: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for PeerArm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

impl PeerArm {
    /// An arm of `stack` with no skip and `detail`.
    pub fn new(
        stack: &'static str,
        id: String,
        spec: ArmSpec,
        stacks: (Stack, Stack, Stack),
        tools: Vec<Tool>,
        timed_window: String,
        detail: impl Any + Send + Sync,
    ) -> PeerArm {
        PeerArm {
            stack,
            id,
            spec,
            stacks,
            tools,
            timed_window,
            known_skip: None,
            detail: Arc::new(detail),
        }
    }

    /// The stack's own description of this arm, if it is a `T`.
    pub fn detail<T: 'static>(&self) -> Option<&T> {
        self.detail.downcast_ref::<T>()
    }

    pub fn spec(&self) -> ArmSpec {
        self.spec
    }

    /// The evidence record of a measured latency arm: the shared statistics of `run`,
    /// under this arm's identity (id, stacks, window, peer version).
    pub fn measured_arm(&self, peer_version: Option<String>, run: &ArmRun) -> Arm {
        let who = self.empty_arm(peer_version);
        Arm {
            id: who.id,
            stack: who.stack,
            client_stack: who.client_stack,
            server_stack: who.server_stack,
            timed_window: who.timed_window,
            peer_version: who.peer_version,
            ..build_arm(run)
        }
    }

    /// The arm's evidence record before anything is measured: nothing attempted.
    pub fn empty_arm(&self, peer_version: Option<String>) -> Arm {
        let mut arm = build_arm(&ArmRun::new(self.spec, 0));
        let (stack, client, server) = self.stacks;
        arm.id = self.id.clone();
        arm.stack = stack;
        arm.client_stack = client;
        arm.server_stack = server;
        arm.peer_version = peer_version;
        arm.timed_window = self.timed_window.clone();
        arm
    }

    /// The arm's record with `error` set.
    pub fn error_arm(&self, peer_version: Option<String>, error: String) -> Arm {
        let mut arm = self.empty_arm(peer_version);
        arm.error = Some(error);
        arm
    }
}

/// Every peer arm of every stack for these certs and groups, before `--arms` filtering.
pub fn plan(certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
    STACKS.iter().flat_map(|s| s.plan(certs, groups)).collect()
}

/// The peer arms `--arms` keeps (all of them without a filter).
pub fn filtered(all: Vec<PeerArm>, filter: Option<&str>) -> Vec<PeerArm> {
    match filter {
        None => all,
        Some(f) => all
            .into_iter()
            .filter(|a| arms::id_matches(&a.id, f))
            .collect(),
    }
}

/// The programs `arms` need, each once, with the arms' stacks that need it.
pub fn tools(arms: &[PeerArm]) -> BTreeMap<&'static str, (Tool, Vec<&'static str>)> {
    let mut out: BTreeMap<&'static str, (Tool, Vec<&'static str>)> = BTreeMap::new();
    for a in arms {
        for t in &a.tools {
            let (_, stacks) = out.entry(t.program).or_insert((*t, Vec::new()));
            if !stacks.contains(&a.stack) {
                stacks.push(a.stack);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stack_plans_unique_ids_under_its_own_name() {
        let all = plan(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519, KxGroup::X25519Mlkem768],
        );
        let ids: Vec<&str> = all.iter().map(|a| a.id.as_str()).collect();
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{ids:#?}");
        for s in STACKS {
            assert!(
                all.iter().any(|a| a.stack == s.name()),
                "{} plans arms",
                s.name()
            );
        }
        assert!(all
            .iter()
            .all(|a| STACKS.iter().any(|s| s.name() == a.stack)));
        assert!(
            all.iter().all(|a| !a.tools.is_empty()),
            "every arm names its tools"
        );
    }
}
