//! Invariants of an arm's phase timing ([`crate::Phases`]) and of control arms.

use crate::ids::ArmsById;
use crate::schema::{Arm, Comparison, ComparisonKind, Phases, StepKind};

use super::arm::Bad;

/// Phases: one row per success on the client (and on the server where it reports),
/// moments in time order within each row, CPU time that never runs backwards, finite
/// numbers, at most `succeeded` irregular connections, and a decomposition whose
/// prediction is the sum of its parts.
// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(super) fn check(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let Some(p) = &arm.phases else { return };
    let at = |f: &str| at(&format!("phases.{f}"));
    // The viewer's wasm build does not read the per-connection arrays (see `Phases`),
    // and a summary has none.
    #[cfg(not(target_arch = "wasm32"))]
    if !summary {
        check_rows(arm, p, &at, bad);
    }
    #[cfg(target_arch = "wasm32")]
    let _ = summary;
    #[cfg(not(target_arch = "wasm32"))]
    let traced = arm.tracing.as_ref().map_or(arm.succeeded, |t| t.succeeded);
    #[cfg(target_arch = "wasm32")]
    let traced = arm.succeeded;
    if p.irregular > traced {
        bad(
            at("irregular"),
            format!("{} irregular > {traced} traced connections", p.irregular),
        );
    }
    check_decomposition(p, &at, bad);
}

#[cfg(not(target_arch = "wasm32"))]
fn check_rows(arm: &Arm, p: &Phases, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    if p.client_events.len() < 2 {
        bad(
            at("client_events"),
            "at least two moments (start and done)".into(),
        );
    }
    // Since arms trace only some connections, the rows follow `tracing.samples_us`.
    let n = arm.tracing.as_ref().map_or(arm.succeeded, |t| t.succeeded) as usize;
    for (field, rows, server) in [
        ("client_wall_us", &p.client_wall_us, false),
        ("client_cpu_us", &p.client_cpu_us, false),
        ("server_wall_us", &p.server_wall_us, true),
        ("server_cpu_us", &p.server_cpu_us, true),
    ] {
        let expected = if server && p.server_events.is_empty() {
            0
        } else {
            n
        };
        if rows.len() != expected {
            bad(
                at(field),
                format!("{} rows for {expected} connections", rows.len()),
            );
            continue;
        }
        if let Some(j) = rows.iter().position(|r| !monotone(r)) {
            bad(
                at(&format!("{field}[{j}]")),
                "moments must be finite and in time order".into(),
            );
        }
    }
    for (side, stats) in [("client", &p.client), ("server", &p.server)] {
        if let Some(s) = stats
            .iter()
            .find(|s| !(s.wall_p50_us.is_finite() && s.cpu_p50_us.is_finite()))
        {
            bad(
                at(side),
                format!("phase {} → {} is not finite", s.from, s.to),
            );
        }
    }
    check_decomposition(p, &at, bad);
}

#[cfg(not(target_arch = "wasm32"))]
fn monotone(row: &[f64]) -> bool {
    row.iter().all(|x| x.is_finite()) && row.windows(2).all(|w| w[0] <= w[1])
}

// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn check_decomposition(p: &Phases, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let Some(d) = &p.decomposition else { return };
    let parts = [
        d.tcp_connect_us,
        d.client_cpu_us,
        d.server_cpu_us,
        d.waiting_us,
        d.hop_us,
        d.measured_p50_us,
    ];
    if !parts.iter().all(|x| x.is_finite() && *x >= 0.0) {
        bad(
            at("decomposition"),
            "connect, work, waiting, hop and p50 must be finite and not negative".into(),
        );
        return;
    }
    // With a hop curve every flight carries its modelled hop, and the waiting is their
    // sum (each rounded to 0.1 µs).
    let modelled: Vec<f64> = d.path.iter().filter_map(|s| s.modelled_us).collect();
    if !modelled.is_empty() {
        let wires = d.path.iter().filter(|s| s.kind == StepKind::Wire).count();
        let sum: f64 = modelled.iter().sum();
        if modelled.len() != wires || !((sum - d.waiting_us).abs() <= 0.05 * wires as f64 + 0.05) {
            bad(
                at("decomposition.waiting_us"),
                format!(
                    "{} is not the sum of the {wires} flights' modelled hops ({sum}, {} given)",
                    d.waiting_us,
                    modelled.len()
                ),
            );
        }
    }
    let sum = d.tcp_connect_us + d.client_cpu_us + d.server_cpu_us + d.waiting_us;
    // Each part is rounded to 0.1 µs.
    if !((sum - d.predicted_us).abs() <= 0.5) {
        bad(
            at("decomposition.predicted_us"),
            format!(
                "{} is not connect + client + server + waiting ({sum})",
                d.predicted_us
            ),
        );
    }
    if !(d.prediction_ratio.is_finite() && d.prediction_ratio > 0.0) {
        bad(
            at("decomposition.prediction_ratio"),
            "must be finite and positive".into(),
        );
    }
}

/// A control arm names an arm of the same run that is not itself a control, and enters
/// no comparison but its own: `phase_recording_cost` as the baseline (older files), or
/// `cpu_placement_effect` as the candidate.
pub(super) fn check_control(
    arms: &[Arm],
    by_id: &ArmsById<'_>,
    comparisons: &[Comparison],
    bad: &mut Bad<'_>,
) {
    for (i, c) in comparisons.iter().enumerate() {
        let control = |id: &str| by_id.get(id).is_some_and(|a| a.control_of.is_some());
        let own = match c.kind {
            ComparisonKind::PhaseRecordingCost => control(&c.baseline) && !control(&c.candidate),
            ComparisonKind::CpuPlacementEffect => control(&c.candidate) && !control(&c.baseline),
            _ => false,
        };
        if !own && (control(&c.baseline) || control(&c.candidate)) {
            bad(
                format!("comparisons[{i}]"),
                "a control arm enters only its own comparison: phase_recording_cost as the baseline, or cpu_placement_effect as the candidate".into(),
            );
        }
        if c.kind == ComparisonKind::PhaseRecordingCost && !own {
            bad(
                format!("comparisons[{i}].baseline"),
                "a phase_recording_cost comparison has a control arm as its baseline".into(),
            );
        }
        if c.kind == ComparisonKind::CpuPlacementEffect && !own {
            bad(
                format!("comparisons[{i}].candidate"),
                "a cpu_placement_effect comparison has a control arm as its candidate".into(),
            );
        }
    }
    for (i, arm) in arms.iter().enumerate() {
        let Some(of) = &arm.control_of else { continue };
        match by_id.get(of.as_str()) {
            None => bad(
                format!("arms[{i}].control_of"),
                format!(
                    "names arm `{}`, which is not in `arms`",
                    super::strings::quoted(of)
                ),
            ),
            Some(a) if a.control_of.is_some() || a.id == arm.id => bad(
                format!("arms[{i}].control_of"),
                format!("arm `{of}` is itself a control arm"),
            ),
            Some(_) => {}
        }
    }
}
