//! Phase recording in a run: which arms record, the hop measured before and after the
//! arms, and each arm's decomposition once its crypto floor is known.

use std::time::Duration;

use anyhow::Result;
use shared::{Arm, Hop};

use crate::arms::{ArmSpec, PhaseRecording};
use crate::measure::{decompose, hop, hop_curve};

/// Timed ping-pong round trips for the hop, before the arms and again after them.
pub const HOP_ROUND_TRIPS: usize = 2000;

/// Sets phase recording on `specs`: off everywhere when the run's is off
/// (`--no-phases`), otherwise as each arm has it (the timing loop traces one connection
/// in every `--trace-every` + 1 of the arms that can).
pub fn plan(specs: &mut [ArmSpec], phases: PhaseRecording) {
    if phases == PhaseRecording::Off {
        specs.iter_mut().for_each(|s| s.phases = phases);
    }
}

/// One pass of hop measurements: ping-pong round trips and the hop curve's samples.
#[derive(Debug, Default)]
pub struct HopPass {
    pub round_trips: Vec<f64>,
    pub curve: hop_curve::Samples,
}

/// Hop round trips (µs) and curve samples, or empty lists when the measurement failed
/// (then no arm gets a decomposition, or no curve, and the run says why).
pub fn hop_pass(io_timeout: Duration) -> HopPass {
    let round_trips = hop::round_trips_us(HOP_ROUND_TRIPS, io_timeout, None).unwrap_or_else(|e| {
        eprintln!("collector: warning: could not measure one hop: {e:#}");
        Vec::new()
    });
    let curve = hop_curve::samples(hop_curve::ROUNDS, io_timeout, None).unwrap_or_else(|e| {
        eprintln!("collector: warning: could not measure the hop curve (the model uses one hop for every flight): {e:#}");
        hop_curve::Samples::default()
    });
    HopPass { round_trips, curve }
}

/// The hop from the passes before and after the arms, and every traced arm's
/// decomposition (which needs its crypto floor: call after [`crate::floor::apply`]).
pub fn finish(arms: &mut [Arm], before: &HopPass, after: &HopPass) -> Result<Option<Hop>> {
    let (before_rt, after_rt) = (&before.round_trips, &after.round_trips);
    if before_rt.is_empty() || after_rt.is_empty() {
        return Ok(None);
    }
    let all: Vec<f64> = before_rt.iter().chain(after_rt).copied().collect();
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let mut samples = before.curve.clone();
    samples.extend(&after.curve);
    let curve = hop_curve::curve(&samples);
    let h = Hop {
        method: hop::METHOD.into(),
        round_trips: before_rt.len() as u64,
        before_us: round(hop::one_way_us(before_rt)),
        after_us: round(hop::one_way_us(after_rt)),
        one_way_us: round(hop::one_way_us(&all)),
        curve_method: if curve.is_empty() {
            String::new()
        } else {
            hop_curve::METHOD.into()
        },
        curve,
    };
    for arm in arms.iter_mut() {
        // The model explains the traced connections it is made of (older behaviour, every
        // connection traced: the arm's own p50).
        let traced = arm
            .tracing
            .as_ref()
            .map_or(arm.latency_us, |t| t.latency_us);
        // The hop was measured under the run's placement: a control arm placed otherwise
        // gets no model (its hop would be another one).
        let control = arm.control_of.is_some();
        let (Some(p), Some(l)) = (arm.phases.as_mut(), traced) else {
            continue;
        };
        if !control {
            p.decomposition =
                decompose::decompose(p, &arm.crypto_floor_parts, l.p50, h.one_way_us, &h.curve);
        }
    }
    Ok(Some(h))
}

#[cfg(test)]
mod tests {
    use shared::{CertKind, KxGroup};

    use super::*;
    use crate::arms::default_set;

    #[test]
    fn no_phases_turns_recording_off() {
        let mut specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let n = specs.len();
        plan(&mut specs, PhaseRecording::On);
        assert_eq!(specs.len(), n, "no control arm is added");
        assert!(specs.iter().all(|s| s.phases == PhaseRecording::On));
        plan(&mut specs, PhaseRecording::Off);
        assert!(specs.iter().all(|s| s.phases == PhaseRecording::Off));
    }
}
