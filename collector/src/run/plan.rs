//! How many connections, in what order, and in which mode: the plan of a run.

use std::time::Duration;

use anyhow::{bail, Result};

use crate::cli::RunArgs;
use crate::measure::Plan;

/// `--rtt 0,1,10,50ms` (or `20`, `20ms`): round-trip times in milliseconds.
pub fn parse_rtts(text: &str) -> Result<Vec<Duration>> {
    text.split(',')
        .map(|v| {
            let v = v.trim();
            let ms: f64 = v.strip_suffix("ms").unwrap_or(v).trim().parse().map_err(|_| {
                anyhow::anyhow!("--rtt `{text}`: `{v}` is not a number of milliseconds (e.g. `0,1,10,50ms`)")
            })?;
            if !(0.0..=10_000.0).contains(&ms) {
                bail!("--rtt `{text}`: {ms} ms is outside 0..=10000 ms");
            }
            Ok(Duration::from_secs_f64(ms / 1000.0))
        })
        .collect()
}

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
        // Request/response windows record no phases.
        trace_every: if args.no_phases || request {
            0
        } else {
            args.trace_every
        },
    };
    (plan, warmup)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_lists_parse_with_or_without_unit() {
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&m| Duration::from_millis(m))
                .collect::<Vec<_>>()
        };
        assert_eq!(parse_rtts("0,1,10,50ms").unwrap(), ms(&[0, 1, 10, 50]));
        assert_eq!(parse_rtts("20").unwrap(), ms(&[20]));
        assert_eq!(parse_rtts(" 5ms, 7 ").unwrap(), ms(&[5, 7]));
        assert_eq!(parse_rtts("0.5").unwrap(), vec![Duration::from_micros(500)]);
        assert!(parse_rtts("fast")
            .unwrap_err()
            .to_string()
            .contains("not a number"));
        assert!(parse_rtts("-1").is_err());
    }
}
