//! What a stack's arms get while they run ([`Work`]): the run's settings, the plan, the
//! private folder and files, the tools found, and what the driver lends from above
//! (the shared timing loop, the evidence record of a run: [`Lent`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{bail, Result};
use shared::{Arm, CertKind};

use super::arm::{BuildArm, PeerArm};
use super::files::PemFiles;
use super::private_dir::PrivateDir;
use super::PeerArgs;
use crate::arms::{ArmRun, ArmSpec, Plan, Session};
use crate::certs::CertStore;

/// The run's settings the peer phase needs.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    pub quick: bool,
    pub rounds: u64,
    pub warmup_per_chunk: u64,
    pub seed: u64,
    pub bootstrap: usize,
    /// The main loop's steal watch, applied to the peers' loops too.
    pub noise: Option<shared::NoiseSettings>,
    pub io_timeout: Duration,
    pub stop: &'a AtomicBool,
    /// Where the run counts instructions: what counts the servers' (see [`super::counted`]).
    pub counter: Option<&'a dyn super::counter::ProcessCounter>,
}

/// A program looked up on PATH: its path and version, or why it cannot run.
pub(crate) type Found = std::result::Result<(PathBuf, String), String>;

/// The shared timing loop as the driver lends it: measures started sessions interleaved
/// in rounds recorded as the given group, with a progress display, until done or stopped;
/// every arm's run, in order.
pub type TimingLoop =
    fn(&mut [(ArmSpec, Box<dyn Session>)], &Plan, &str, &AtomicBool) -> Vec<ArmRun>;

/// What the peer phase driver (`crate::peers`) lends the stacks from the layers above
/// `arms`: the timing loop and how a run becomes an evidence record. A stack reaches them
/// through [`Work`] only, so it never names those layers.
#[derive(Clone, Copy)]
pub struct Lent {
    pub timing_loop: TimingLoop,
    pub build_arm: BuildArm,
}

/// Everything a stack's arms need while they run.
#[derive(Clone, Copy)]
pub struct Work<'a> {
    pub ctx: &'a Context<'a>,
    pub plan: &'a Plan,
    pub args: &'a PeerArgs,
    pub arms: &'a [PeerArm],
    pub dir: &'a PrivateDir,
    pub files: &'a BTreeMap<CertKind, PemFiles>,
    pub store: &'a CertStore,
    pub(crate) tools: &'a BTreeMap<&'static str, Found>,
    pub lent: Lent,
    /// What the servers a stack starts run under (a counter), or none: the timed arms'.
    pub under: Option<&'a super::launch::Under>,
}

impl Work<'_> {
    /// The path and version of `program` (found: the phase runs no arm whose tool is missing).
    pub fn tool(&self, program: &str) -> Result<(&Path, &str)> {
        match self.tools.get(program) {
            Some(Ok((p, v))) => Ok((p, v)),
            Some(Err(why)) => bail!("{why}"),
            None => bail!("`{program}` was not looked up"),
        }
    }

    /// Whether Ctrl-C (or a signal) asked the run to stop.
    pub fn stopped(&self) -> bool {
        self.ctx.stop.load(Ordering::SeqCst)
    }

    /// Measures latency `sessions` (each `(arm index, session)`) through the shared timing
    /// loop, interleaved in rounds of their own (`round_group`), and records each arm
    /// that attempted a connection, with `version` as its peer version.
    pub fn measure_latency(
        &self,
        what: &str,
        round_group: &str,
        version: &str,
        sessions: Vec<(usize, Box<dyn Session>)>,
        records: &mut [Option<Arm>],
    ) {
        if sessions.is_empty() || self.stopped() {
            return;
        }
        eprintln!("collector: peer arms: {what} ({} arms)", sessions.len());
        let which: Vec<usize> = sessions.iter().map(|(i, _)| *i).collect();
        let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = sessions
            .into_iter()
            .map(|(i, s)| (self.arms[i].spec, s))
            .collect();
        let runs = (self.lent.timing_loop)(&mut sessions, self.plan, round_group, self.ctx.stop);
        for (&i, run) in which.iter().zip(runs) {
            if run.attempted > 0 {
                records[i] = Some(self.measured_arm(i, Some(version.to_string()), &run));
            }
        }
    }

    /// The evidence record of arm `i`'s measured `run`, under its identity (see
    /// [`PeerArm::measured_arm`]).
    pub fn measured_arm(&self, i: usize, peer_version: Option<String>, run: &ArmRun) -> Arm {
        self.arms[i].measured_arm(self.lent.build_arm, peer_version, run)
    }

    /// Arm `i`'s record before anything is measured (see [`PeerArm::empty_arm`]).
    pub fn empty_arm(&self, i: usize, peer_version: Option<String>) -> Arm {
        self.arms[i].empty_arm(self.lent.build_arm, peer_version)
    }

    /// Arm `i`'s record with `error` set.
    pub fn error_arm(&self, i: usize, peer_version: Option<String>, error: String) -> Arm {
        self.arms[i].error_arm(self.lent.build_arm, peer_version, error)
    }
}
