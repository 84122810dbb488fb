//! Phase recording in a run: which arms record, the control arm that measures what the
//! recording costs, the hop measured before and after the arms, and each arm's
//! decomposition once its crypto floor is known.

use std::time::Duration;

use anyhow::Result;
use shared::{Arm, Hop, Mode, Protocol};

use crate::arms::{ArmSpec, PhaseRecording};
use crate::measure::{decompose, hop};

/// Timed ping-pong round trips for the hop, before the arms and again after them.
pub const HOP_ROUND_TRIPS: usize = 2000;

/// The control arm's id and the id of the arm it copies.
pub struct Control {
    pub control: String,
    pub traced: String,
}

/// Sets phase recording on `specs`: off everywhere with `no_phases`; otherwise on, plus
/// a control copy (recording off) of the first TLS 1.3 full arm, measured in the same
/// rounds. Request/response runs record no phases and get no control.
pub fn plan(specs: &mut Vec<ArmSpec>, no_phases: bool, request: bool) -> Option<Control> {
    if no_phases {
        specs
            .iter_mut()
            .for_each(|s| s.phases = PhaseRecording::Off);
        return None;
    }
    if request {
        return None;
    }
    let traced = *specs
        .iter()
        .find(|s| s.protocol == Protocol::Tls13 && s.mode == Mode::Full)?;
    let control = ArmSpec {
        phases: PhaseRecording::Control,
        ..traced
    };
    specs.push(control);
    Some(Control {
        control: control.id(),
        traced: traced.id(),
    })
}

/// Marks the control arm in the evidence.
pub fn mark_control(arms: &mut [Arm], control: &Option<Control>) {
    let Some(c) = control else { return };
    // A run stopped by a signal before the traced arm measured anything has no traced arm
    // to name (the evidence would break its own invariant).
    if !arms.iter().any(|a| a.id == c.traced) {
        return;
    }
    if let Some(a) = arms.iter_mut().find(|a| a.id == c.control) {
        a.control_of = Some(c.traced.clone());
    }
}

/// Hop round trips (µs), or an empty list when the measurement failed (then no arm gets
/// a decomposition, and the run says why).
pub fn hop_round_trips(io_timeout: Duration) -> Vec<f64> {
    match hop::round_trips_us(HOP_ROUND_TRIPS, io_timeout) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("collector: warning: could not measure one hop: {e:#}");
            Vec::new()
        }
    }
}

/// The hop from the round trips before and after the arms, and every traced arm's
/// decomposition (which needs its crypto floor: call after [`crate::floor::apply`]).
pub fn finish(arms: &mut [Arm], before: &[f64], after: &[f64]) -> Result<Option<Hop>> {
    if before.is_empty() || after.is_empty() {
        return Ok(None);
    }
    let all: Vec<f64> = before.iter().chain(after).copied().collect();
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let h = Hop {
        method: hop::METHOD.into(),
        round_trips: before.len() as u64,
        before_us: round(hop::one_way_us(before)),
        after_us: round(hop::one_way_us(after)),
        one_way_us: round(hop::one_way_us(&all)),
    };
    for arm in arms.iter_mut() {
        let (Some(p), Some(l)) = (arm.phases.as_mut(), arm.latency_us) else {
            continue;
        };
        p.decomposition = decompose::decompose(p, &arm.crypto_floor_parts, l.p50, h.one_way_us);
    }
    Ok(Some(h))
}

#[cfg(test)]
mod tests {
    use shared::{CertKind, KxGroup};

    use super::*;
    use crate::arms::default_set;

    #[test]
    fn the_control_copies_the_first_tls13_full_arm_with_recording_off() {
        let mut specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let n = specs.len();
        let c = plan(&mut specs, false, false).unwrap();
        assert_eq!(specs.len(), n + 1);
        assert_eq!(c.traced, "tls13-full-ecdsa-p256-x25519");
        assert_eq!(c.control, "tls13-full-ecdsa-p256-x25519-untraced");
        assert_eq!(specs.last().unwrap().phases, PhaseRecording::Control);
        assert!(specs[..n].iter().all(|s| s.phases == PhaseRecording::On));
    }

    #[test]
    fn no_phases_turns_recording_off_and_adds_no_control() {
        let mut specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let n = specs.len();
        assert!(plan(&mut specs, true, false).is_none());
        assert_eq!(specs.len(), n);
        assert!(specs.iter().all(|s| s.phases == PhaseRecording::Off));
        let mut specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], true);
        assert!(plan(&mut specs, false, true).is_none(), "request mode");
    }

    #[test]
    fn a_control_whose_traced_arm_is_missing_names_nothing() {
        let control = Some(Control {
            control: "b-untraced".into(),
            traced: "b".into(),
        });
        let mut arm = shared::sample::evidence().arms.remove(0);
        arm.id = "b-untraced".into();
        arm.control_of = None;
        // Interrupted before arm `b` measured anything: only the control is there.
        let mut arms = vec![arm.clone()];
        mark_control(&mut arms, &control);
        assert_eq!(arms[0].control_of, None);
        let mut traced = arm;
        traced.id = "b".into();
        arms.push(traced);
        mark_control(&mut arms, &control);
        assert_eq!(arms[0].control_of.as_deref(), Some("b"));
    }
}
