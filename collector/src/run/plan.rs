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
    };
    (plan, warmup)
}
