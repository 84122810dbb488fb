//! How many connections, in what order, and in which mode: the plan of a run.

use super::args::RunArgs;
use crate::arms::Plan;

/// The measurement plan for `args`; also returns the total warm-up per arm asked for.
/// Over an emulated RTT each connection takes several round trips: fewer samples.
pub fn plan(args: &RunArgs, rtt: bool, request: bool) -> (Plan, u64) {
    let samples = args.samples.unwrap_or(match (rtt, args.quick) {
        (true, true) => 8,
        (true, false) => 20,
        (false, true) => 100,
        (false, false) => 1000,
    });
    let warmup = args.warmup.unwrap_or(match (rtt, args.quick) {
        (true, _) => 4,
        (false, true) => 20,
        (false, false) => 100,
    });
    let rounds = if args.quick {
        args.rounds.min(5)
    } else {
        args.rounds
    }
    .min(samples);
    let plan = Plan {
        samples,
        warmup_per_chunk: warmup.div_ceil(rounds).max(1),
        rounds,
        seed: args.seed.unwrap_or_else(|| fastrand::u64(..)),
        request,
        // Request/response windows record no phases, and neither do emulated links
        // (--handshake-window): the phase model's hops are loopback's, so over a link it
        // would call the link's delay unexplained.
        trace_every: if args.no_phases || request || rtt {
            0
        } else {
            args.trace_every
        },
        noise: Some(noise(args.max_steal, rounds)),
    };
    (plan, warmup)
}

/// The extra chunks of a loop take at most this share of the time its first chunks take
/// (projected over its rounds): on a box of this kind with 1–2% steal about a fifth of
/// short chunks see a tick of steal, and some of them again when measured again.
pub const EXTRA_TIME_SHARE: f64 = 0.5;

/// The steal watch of a run with `rounds` rounds and threshold `max_steal` (per cent):
/// at most as many extra chunks per arm as it has rounds (none when switched off).
pub fn noise(max_steal: f64, rounds: u64) -> shared::NoiseSettings {
    shared::NoiseSettings {
        max_steal_percent: max_steal,
        max_extra_chunks_per_arm: if max_steal >= 100.0 { 0 } else { rounds },
        max_extra_time_share: EXTRA_TIME_SHARE,
        probe: crate::measure::probe::KIND,
        probe_operations: crate::measure::probe::OPERATIONS,
    }
}
