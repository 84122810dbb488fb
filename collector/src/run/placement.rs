//! CPU placement in a run: the control arm that shows what placement does, measured in
//! the same rounds as the arm it copies (see [`crate::cpu`]).

use shared::{Arm, CpuPlacement, Mode, Protocol};

use crate::arms::ArmSpec;

/// The control arm's id and the id of the arm it copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    pub control: String,
    pub arm: String,
}

/// The placement a control arm uses against a run placed `applied`: the other of split
/// and same; none under `free` (nothing is placed, so there is nothing to contrast).
pub fn contrast(applied: CpuPlacement) -> Option<CpuPlacement> {
    match applied {
        CpuPlacement::Split => Some(CpuPlacement::Same),
        CpuPlacement::Same => Some(CpuPlacement::Split),
        CpuPlacement::Free => None,
    }
}

/// Adds a copy of the first TLS 1.3 full arm placed the other way (`contrast`), measured
/// in the same rounds: the evidence then shows what the placement does to one handshake.
pub fn plan(specs: &mut Vec<ArmSpec>, applied: CpuPlacement) -> Option<Control> {
    let other = contrast(applied)?;
    let arm = *specs
        .iter()
        .find(|s| s.protocol() == Protocol::Tls13 && s.mode() == Mode::Full && !s.early_data())?;
    let control = ArmSpec {
        cpu: Some(other),
        ..arm
    };
    specs.push(control);
    Some(Control {
        control: control.id(),
        arm: arm.id(),
    })
}

/// Marks the control arm in the evidence.
pub fn mark_control(arms: &mut [Arm], control: &Option<Control>) {
    let Some(c) = control else { return };
    // A run stopped by a signal before the copied arm measured anything has no arm to
    // name (the evidence would break its own invariant).
    if !arms.iter().any(|a| a.id == c.arm) {
        return;
    }
    if let Some(a) = arms.iter_mut().find(|a| a.id == c.control) {
        a.control_of = Some(c.arm.clone());
    }
}

#[cfg(test)]
mod tests {
    use shared::{CertKind, KxGroup};

    use super::*;
    use crate::arms::default_set;

    #[test]
    fn the_control_copies_the_first_tls13_full_arm_placed_the_other_way() {
        let mut specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let n = specs.len();
        let c = plan(&mut specs, CpuPlacement::Split).unwrap();
        assert_eq!(specs.len(), n + 1);
        assert_eq!(c.arm, "tls13-full-ecdsa-p256-x25519");
        assert_eq!(c.control, "tls13-full-ecdsa-p256-x25519-cpu-same");
        assert_eq!(specs.last().unwrap().cpu, Some(CpuPlacement::Same));
        assert!(specs[..n].iter().all(|s| s.cpu.is_none()));
        let c = plan(&mut specs, CpuPlacement::Same).unwrap();
        assert_eq!(c.control, "tls13-full-ecdsa-p256-x25519-cpu-split");
    }

    #[test]
    fn a_free_run_gets_no_control() {
        let mut specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let n = specs.len();
        assert!(plan(&mut specs, CpuPlacement::Free).is_none());
        assert_eq!(specs.len(), n);
        // Nor does a run without a TLS 1.3 full arm.
        let mut tcp = vec![ArmSpec::TCP_CONNECT];
        assert!(plan(&mut tcp, CpuPlacement::Split).is_none());
    }

    #[test]
    fn a_control_whose_arm_is_missing_names_nothing() {
        let control = Some(Control {
            control: "b-cpu-same".into(),
            arm: "b".into(),
        });
        let mut arm = shared::sample::evidence().arms.remove(0);
        arm.id = "b-cpu-same".into();
        arm.control_of = None;
        // Interrupted before arm `b` measured anything: only the control is there.
        let mut arms = vec![arm.clone()];
        mark_control(&mut arms, &control);
        assert_eq!(arms[0].control_of, None);
        let mut copied = arm;
        copied.id = "b".into();
        arms.push(copied);
        mark_control(&mut arms, &control);
        assert_eq!(arms[0].control_of.as_deref(), Some("b"));
    }
}
