//! One peer arm as the peer phase knows it ([`PeerArm`]), and the programs arms need
//! ([`Tool`]): below both a stack's plan and the work of running its arms.

use std::any::Any;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use shared::{Arm, Stack};

use crate::arms::{ArmRun, ArmSpec};

/// How a run becomes its evidence record (`measure::build_arm`, lent by the driver: see
/// [`super::Lent`]).
pub type BuildArm = fn(&ArmRun) -> Arm;

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

/// Runs `program args` (stdin closed) to ask its version: its stdout and stderr if it
/// succeeded, else an error naming the command, its status and what it printed. Every
/// stack's [`Tool::version`] is this plus how to read the answer.
pub fn ask_version(program: &Path, args: &[&str]) -> Result<(String, String)> {
    let command = format!("`{} {}`", program.display(), args.join(" "));
    let out = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .with_context(|| format!("could not run {command}"))?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    if !out.status.success() {
        bail!("{command} failed ({}): {}", out.status, stderr.trim());
    }
    Ok((stdout, stderr))
}

/// The first line of `text`, trimmed, or an error if there is none.
pub fn first_line(program: &Path, text: &str) -> Result<String> {
    match text.lines().next().map(str::trim) {
        Some(line) if !line.is_empty() => Ok(line.to_string()),
        _ => bail!("{} printed no version", program.display()),
    }
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
    pub fn measured_arm(
        &self,
        build_arm: BuildArm,
        peer_version: Option<String>,
        run: &ArmRun,
    ) -> Arm {
        let who = self.empty_arm(build_arm, peer_version);
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
    pub fn empty_arm(&self, build_arm: BuildArm, peer_version: Option<String>) -> Arm {
        let mut arm = build_arm(&ArmRun::new(self.spec, 0));
        let (stack, client, server) = self.stacks;
        arm.id = self.id.clone();
        arm.stack = stack;
        arm.client_stack = client;
        arm.server_stack = server;
        arm.peer_version = peer_version;
        arm.timed_window = self.timed_window.clone();
        // Nothing measured yet: nothing verified on either end.
        arm.verified = None;
        arm
    }

    /// The arm's record with `error` set.
    pub fn error_arm(
        &self,
        build_arm: BuildArm,
        peer_version: Option<String>,
        error: String,
    ) -> Arm {
        let mut arm = self.empty_arm(build_arm, peer_version);
        arm.error = Some(error);
        arm
    }
}
