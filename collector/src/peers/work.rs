//! What a stack's arms get while they run ([`Work`]): the run's settings, the plan, the
//! private folder and files, the tools found, and the shared latency loop.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{bail, Result};
use shared::{Arm, CertKind};

use super::arm::PeerArm;
use super::files::PemFiles;
use super::private_dir::PrivateDir;
use super::PeerArgs;
use crate::arms::Plan;
use crate::arms::{ArmSpec, Session};
use crate::certs::CertStore;
use crate::measure;
use crate::progress::Progress;

/// The run's settings the peer phase needs.
pub struct Context<'a> {
    pub quick: bool,
    pub rounds: u64,
    pub warmup_per_chunk: u64,
    pub seed: u64,
    pub bootstrap: usize,
    pub io_timeout: Duration,
    pub stop: &'a AtomicBool,
}

/// A program looked up on PATH: its path and version, or why it cannot run.
pub(super) type Found = std::result::Result<(PathBuf, String), String>;

/// Everything a stack's arms need while they run.
pub struct Work<'a> {
    pub ctx: &'a Context<'a>,
    pub plan: &'a Plan,
    pub args: &'a PeerArgs,
    pub arms: &'a [PeerArm],
    pub dir: &'a PrivateDir,
    pub files: &'a BTreeMap<CertKind, PemFiles>,
    pub store: &'a CertStore,
    pub(super) tools: &'a BTreeMap<&'static str, Found>,
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
        let specs: Vec<ArmSpec> = sessions.iter().map(|(s, _)| *s).collect();
        let progress = Progress::new(&specs, self.plan.samples);
        let runs = measure::run(
            &mut sessions,
            self.plan,
            round_group,
            &progress,
            self.ctx.stop,
        );
        progress.finish();
        for (&i, run) in which.iter().zip(runs) {
            if run.attempted > 0 {
                records[i] = Some(self.arms[i].measured_arm(Some(version.to_string()), &run));
            }
        }
    }
}
