//! What `collector run` does, as typed values built once from [`RunArgs`]: the arm set,
//! where the servers are (loopback, an emulated path, or a `collector serve` target),
//! the measurement plan, faults, phases and the load sweeps. Everything a flag can get
//! wrong is refused here, before anything is measured; the run and the record it writes
//! read these values, never the flags.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use shared::{CertKind, CpuPlacement, KxGroup};

use super::args::{RttList, RunArgs};
use super::link_args::LinkGrid;
use crate::arms::peer::PeerArgs;
use crate::arms::Plan;
use crate::arms::{Fault, PhaseRecording};
use crate::measure::open_loop;

/// `collector run`'s settings, checked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Folder for the evidence.
    pub out: PathBuf,
    /// The certificate kinds and groups the arms cover (every one with `--matrix`).
    pub certs: Vec<CertKind>,
    pub groups: Vec<KxGroup>,
    /// Whether `--matrix` chose them.
    pub matrix: bool,
    /// Intermediates between each root and its leaf (`--chain-depth`).
    pub chain_depth: u8,
    /// Emulated round trips (`--rtt`, or the RTT of `--link` / `--loss`), one after the
    /// other, instead of plain loopback.
    pub rtt: Option<RttList>,
    /// The emulated links, one arm set each (`--rtt` × `--loss` on `--link`); Some
    /// exactly when `rtt` is.
    pub link: Option<LinkGrid>,
    /// Links measured at the same time, each on a path of its own (`--parallel-links`).
    pub parallel_links: usize,
    /// The `collector serve` to run the client side against (`--target`).
    pub target: Option<Target>,
    /// Request/response mode: `--request`, or implied by `--rtt`.
    pub request: bool,
    /// Samples, warm-up, rounds, seed and tracing.
    pub plan: Plan,
    /// The total warm-up per arm asked for (`--warmup` or its default).
    pub warmup: u64,
    /// What the servers break on purpose (`--break-resumption`, `--refuse-early-data`).
    pub fault: Fault,
    /// The capacity servers close every Nth connection (`--inject-capacity-drops`).
    pub capacity_drops: Option<u32>,
    /// Phase recording (`--no-phases`: off).
    pub phases: PhaseRecording,
    /// Time the public-key primitives (`--no-floor`: no).
    pub floor: bool,
    pub placement: CpuPlacement,
    pub keepalive_requests: u64,
    /// `--arms`: the id patterns to keep.
    pub arms: Option<String>,
    pub list_arms: bool,
    pub quick: bool,
    pub bootstrap: u64,
    pub io_timeout: Duration,
    /// Closed-loop capacity (`--concurrency`, `--capacity-seconds`).
    pub capacity: Capacity,
    /// The open-loop sweep (`--open-loop-*`), checked; seeded from the plan's seed.
    pub open_loop: open_loop::Options,
    pub peers: PeerArgs,
    /// The counting phase's flags (`--no-instructions`, `--instructions-handshakes`).
    pub instructions: crate::instructions::InstructionArgs,
}

/// A `collector serve` to measure against: address, token and the CA it wrote.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    pub token: String,
    pub ca: PathBuf,
    /// `--allow-remote`: a non-loopback address is allowed.
    pub allow_remote: bool,
}

/// Closed-loop capacity arms: client counts and seconds per arm.
#[derive(Debug, Clone)]
pub struct Capacity {
    pub concurrency: Vec<u64>,
    pub seconds: u64,
}

impl RunOptions {
    /// Checks and types `args`; an error names the flag at fault.
    pub fn build(args: RunArgs) -> Result<RunOptions> {
        let (certs, groups) = if args.matrix {
            (CertKind::ALL.to_vec(), KxGroup::ALL.to_vec())
        } else {
            (args.set.certs.clone(), args.set.groups.clone())
        };
        let link = LinkGrid::of(
            args.rtt.as_ref().map(|r| r.rtts.as_slice()),
            args.loss.as_ref(),
            args.link.as_ref(),
        )
        .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, e + "\n"))?;
        let rtt = match (&args.rtt, &link) {
            (Some(r), _) => Some(r.clone()),
            (None, Some(g)) => Some(RttList {
                text: crate::measure::rtt::label(g.links[0].rtt)
                    .trim_start_matches("rtt")
                    .to_string(),
                rtts: vec![g.links[0].rtt],
            }),
            (None, None) => None,
        };
        if args.handshake_window && rtt.is_none() {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                "--handshake-window applies to an emulated link (--rtt, --link or --loss); on loopback the window is the handshake already\n",
            )
            .into());
        }
        let request = args.request || (rtt.is_some() && !args.handshake_window);
        let (plan, warmup) = super::plan::plan(&args, rtt.is_some(), request);
        let io_timeout = Duration::from_millis(args.io_timeout_ms);
        let open_loop = open_loop::Options {
            rates: args.open_loop_rates.clone(),
            window: Duration::from_secs(args.open_loop_seconds),
            arrival: args.arrival,
            seed: plan.seed,
            workers: args.open_loop_workers,
            io_timeout,
        };
        open_loop.check()?;
        let target = match args.target {
            None => None,
            // clap makes --target require --ca and --token; checked again here.
            Some(addr) => Some(Target {
                addr,
                token: args.token.context("--target needs --token")?,
                ca: args.ca.context("--target needs --ca")?,
                allow_remote: args.allow_remote,
            }),
        };
        Ok(RunOptions {
            out: args.out,
            certs,
            groups,
            matrix: args.matrix,
            chain_depth: args.set.chain_depth,
            rtt,
            link,
            parallel_links: usize::from(args.parallel_links),
            target,
            request,
            plan,
            warmup,
            fault: fault(args.break_resumption, args.refuse_early_data),
            capacity_drops: args.inject_capacity_drops,
            phases: if args.no_phases {
                PhaseRecording::Off
            } else {
                PhaseRecording::On
            },
            floor: !args.no_floor,
            placement: args.placement,
            keepalive_requests: args.keepalive_requests,
            arms: args.arms,
            list_arms: args.list_arms,
            quick: args.quick,
            bootstrap: args.bootstrap,
            io_timeout,
            capacity: Capacity {
                concurrency: args.concurrency,
                seconds: args.capacity_seconds,
            },
            open_loop,
            peers: args.peers,
            instructions: args.instructions,
        })
    }

    /// The servers run on plain loopback (no emulated path, no remote target): peer arms
    /// and the placement control arm need it.
    pub fn on_loopback(&self) -> bool {
        self.rtt.is_none() && self.target.is_none()
    }

    /// Whether any capacity arm (closed or open loop) runs after the latency arms.
    pub fn load_arms(&self) -> bool {
        !self.capacity.concurrency.is_empty() || !self.open_loop.rates.is_empty()
    }
}

/// The testing aids' fault (clap lets at most one of the two be given).
fn fault(break_resumption: bool, refuse_early_data: bool) -> Fault {
    match (break_resumption, refuse_early_data) {
        (true, _) => Fault::NoSessionStore,
        (_, true) => Fault::NoEarlyData,
        _ => Fault::None,
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod options_tests;
