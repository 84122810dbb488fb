//! The counting phase: the planned arms counted in groups, one per certificate kind
//! ([`super::group`]: a server and a client process for all the group's arms), several
//! groups at a time (counts do not care about contention), with callgrind's files in a
//! private folder removed at the end; then each arm's record gets its [`Instructions`] and the run's
//! settings the phase's own ([`InstructionCounting`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::{
    Arm, BuildProfile, CountOutcome, CountScope, CountingPhase, InstructionCounting, Instructions,
    Stack,
};

use super::group::{self, Setup};
use super::plan::{Decision, Plan};
use crate::arms::peer::private_dir::PrivateDir;
use crate::arms::ArmSpec;
use crate::certs::CertStore;

/// What each end's counted window holds and leaves out (recorded per arm).
pub const WINDOW: &str = "each end in a process of its own under valgrind's callgrind, collection off at the start and on only inside that end's window function (--toggle-collect): client, from creating its rustls ClientConnection (the ClientHello: key share, PSK binder) through every handshake flight until it has read the server's first application byte (TLS 1.3 tickets, sent before it, are processed by then); server, from creating its ServerConnection through every flight until it has written its first application byte (with a TLS 1.3 server's tickets). Counted: the user-space instructions executed in those windows (rustls, aws-lc-rs, the allocator, libc's system-call wrappers). Not counted: the kernel's work (TCP over loopback, the system calls themselves), time spent waiting, socket creation, connect and accept, configs, certificates and keys (made once by the collector and handed over on stdin), dropping the connection state and the close. aws-lc-rs runs the code paths valgrind's virtual CPU offers (its CPUID), which may differ from the host's";

/// The build this collector is.
pub const BUILD_PROFILE: BuildProfile = if cfg!(debug_assertions) {
    BuildProfile::Debug
} else {
    BuildProfile::Release
};

/// Longest one arm may take in its group's two processes, by build: under callgrind a
/// debug build's handshake is many times a release build's.
fn per_arm(handshakes: u64) -> Duration {
    let per_handshake = match BUILD_PROFILE {
        BuildProfile::Debug => Duration::from_secs(5),
        BuildProfile::Release => Duration::from_secs(1),
    };
    Duration::from_secs(30) + per_handshake * (handshakes + super::plan::WARMUP) as u32
}

/// Runs the phase `decision` describes (counting into `arms`, the run's records) and
/// returns what the run's settings record of it. `certs` are the run's own.
pub fn run(
    decision: Decision,
    certs: Option<&CertStore>,
    arms: &mut [Arm],
    stop: &AtomicBool,
) -> Result<InstructionCounting> {
    let plan = match decision {
        Decision::Off => return Ok(InstructionCounting::Off),
        Decision::Skipped(reason) => return Ok(InstructionCounting::Skipped { reason }),
        Decision::Count(plan) => plan,
    };
    if stop.load(Ordering::SeqCst) {
        return Ok(InstructionCounting::Skipped {
            reason: "the run was stopped before the counting phase".into(),
        });
    }
    let started = Instant::now();
    // With no rustls arm the phase is the peer servers' alone (counted in their phase).
    let (attached, parallel) = if plan.arms.is_empty() {
        (0, 0)
    } else {
        count_into(&plan, certs, arms, stop)?
    };
    Ok(InstructionCounting::On(CountingPhase {
        tool: plan.valgrind.tool(),
        build_profile: BUILD_PROFILE,
        handshakes_per_arm: plan.handshakes,
        warmup_per_arm: plan.warmup,
        parallel_groups: parallel as u64,
        arms: attached as u64,
        wall_s: started.elapsed().as_secs_f64(),
    }))
}

/// Counts `plan`'s arms and attaches each outcome to its record in `arms`; returns how
/// many were attached and how many groups were counted at once.
fn count_into(
    plan: &Plan,
    certs: Option<&CertStore>,
    arms: &mut [Arm],
    stop: &AtomicBool,
) -> Result<(usize, usize)> {
    let certs = certs.context("the counting phase needs the run's certificates")?;
    eprintln!(
        "collector: counting instructions per handshake under callgrind: {} arms × {} handshakes per end (after {} warm-up)",
        plan.arms.len(),
        plan.handshakes,
        plan.warmup,
    );
    let started = Instant::now();
    let (outcomes, parallel) = count_all(plan, certs, stop)?;
    let wall = started.elapsed();
    let tool = plan.valgrind.tool();
    let (mut attached, mut failed) = (0, 0);
    for (spec, outcome) in plan.arms.iter().zip(outcomes) {
        let Some(outcome) = outcome else { continue };
        let id = spec.id();
        let Some(arm) = arms
            .iter_mut()
            .find(|a| a.id == id && a.stack == Stack::Rustls && a.control_of.is_none())
        else {
            continue;
        };
        failed += usize::from(matches!(outcome, CountOutcome::Failed { .. }));
        arm.instructions = Some(Instructions {
            tool: tool.clone(),
            build_profile: BUILD_PROFILE,
            scope: CountScope::Handshake,
            window: WINDOW.into(),
            warmup_handshakes: plan.warmup,
            outcome,
        });
        attached += 1;
    }
    eprintln!(
        "collector: counted {} arms in {:.1} s{}",
        attached - failed,
        wall.as_secs_f64(),
        if failed > 0 {
            format!("; {failed} could not be counted (see the summary)")
        } else {
            String::new()
        }
    );
    Ok((attached, parallel))
}

/// Every arm's outcome, in the plan's order (None: not started, after a stop), and how
/// many groups were counted at once.
fn count_all(
    plan: &Plan,
    certs: &CertStore,
    stop: &AtomicBool,
) -> Result<(Vec<Option<CountOutcome>>, usize)> {
    let dir = PrivateDir::create()?;
    let program = std::env::current_exe().context("finding the collector's own binary")?;
    let setup = Setup {
        valgrind: &plan.valgrind,
        program: &program,
        dir: dir.path(),
        warmup: plan.warmup,
        handshakes: plan.handshakes,
        per_arm: per_arm(plan.handshakes),
        break_resumption: plan.break_resumption,
        stop,
    };
    let groups = groups(&plan.arms);
    let parallel = plan.parallel.min(groups.len());
    let done = crate::cpu::on_every_cpu(
        &groups,
        parallel,
        &|| stop.load(Ordering::SeqCst),
        |_, (name, members)| {
            let specs: Vec<_> = members.iter().map(|&i| plan.arms[i]).collect();
            group::count(&setup, name, &specs, certs)
        },
    );
    let mut outcomes = vec![None; plan.arms.len()];
    for (g, counted) in done {
        for (&i, outcome) in groups[g].1.iter().zip(counted) {
            outcomes[i] = Some(outcome);
        }
    }
    Ok((outcomes, parallel))
}

/// The arms (by index) grouped by certificate kind, in the order of their first arm, with
/// a name for each group's files: a group's composition depends on the arms alone, never
/// on how many run at once.
fn groups(arms: &[ArmSpec]) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, a) in arms.iter().enumerate() {
        let name = a.cert().map_or("none", |c| c.as_str()).to_string();
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, members)) => members.push(i),
            None => out.push((name, vec![i])),
        }
    }
    out
}
