//! The rules of instructions per handshake: each arm's counts (`arms[].instructions`) and
//! the run's counting phase (`settings.instructions`) that made them.

use super::arm::Bad;
use super::strings::MAX_VERSION;
use crate::instructions::{CountOutcome, CountScope, Counted, EndCount, InstructionCounting};
use crate::schema::{Arm, Evidence, Mode, Protocol};

/// Most instructions one end may execute per handshake: a trillion (a full post-quantum
/// handshake in a debug build is well under a billion).
pub const MAX_INSTRUCTIONS: f64 = 1e12;

/// One arm's counts: only on a TLS arm; counted handshakes, positive totals whose
/// per-handshake value is `total / handshakes`, and kinds that add up and match the arm.
// `!(a <= b)` on purpose: it is also true when either side is NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(super) fn check(arm: &Arm, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let Some(ins) = &arm.instructions else {
        return;
    };
    if arm.protocol == Protocol::Tcp {
        bad(
            at("instructions"),
            "plain TCP has no handshake to count".into(),
        );
    }
    if ins.tool.trim().is_empty() || ins.tool.len() > MAX_VERSION {
        bad(
            at("instructions.tool"),
            format!(
                "names the counter in 1 to {MAX_VERSION} bytes ({} here)",
                ins.tool.len()
            ),
        );
    }
    let c = match &ins.outcome {
        CountOutcome::Failed { error } => {
            if error.trim().is_empty() {
                bad(
                    at("instructions.outcome.error"),
                    "a failed count says why".into(),
                );
            }
            return;
        }
        CountOutcome::Counted(c) => c,
    };
    if c.handshakes == 0 {
        bad(
            at("instructions.outcome.handshakes"),
            "a count covers at least one handshake".into(),
        );
    }
    match (ins.scope, &c.client) {
        (CountScope::Handshake, None) => bad(
            at("instructions.outcome.client"),
            "a handshake count has both ends".into(),
        ),
        (CountScope::WholeProcess, Some(_)) => bad(
            at("instructions.outcome.client"),
            "a whole-process count is a peer server's alone".into(),
        ),
        _ => {}
    }
    let ends = c.client.iter().map(|e| ("client", e));
    for (end, e) in ends.chain([("server", &c.server)]) {
        check_end(
            arm.mode,
            c,
            e,
            &|f| at(&format!("instructions.outcome.{end}.{f}")),
            bad,
        );
    }
}

#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn check_end(
    mode: Mode,
    c: &Counted,
    e: &EndCount,
    at: &dyn Fn(&str) -> String,
    bad: &mut Bad<'_>,
) {
    let per = e.per_handshake;
    if e.total == 0 || !(per > 0.0 && per <= MAX_INSTRUCTIONS) {
        bad(
            at("per_handshake"),
            format!(
                "{per} of {} instructions: both above 0, at most 1e12 per handshake",
                e.total
            ),
        );
    } else if c.handshakes > 0 {
        let expected = e.total as f64 / c.handshakes as f64;
        if !((per - expected).abs() <= expected * 1e-9) {
            bad(
                at("per_handshake"),
                format!(
                    "{per} is not total / handshakes ({} / {})",
                    e.total, c.handshakes
                ),
            );
        }
    }
    let Some(k) = e.kinds else { return };
    let sum = k
        .full
        .checked_add(k.full_with_hello_retry)
        .and_then(|s| s.checked_add(k.resumed));
    if sum != Some(c.handshakes) {
        bad(
            at("kinds"),
            format!(
                "{} full + {} with retry + {} resumed is not the {} handshakes counted",
                k.full, k.full_with_hello_retry, k.resumed, c.handshakes
            ),
        );
    }
    let kinds_fit = match mode {
        Mode::Resumed => k.resumed == c.handshakes,
        _ => k.resumed == 0,
    };
    if !kinds_fit {
        bad(
            at("kinds.resumed"),
            format!(
                "{} of {} counted handshakes resumed on a {} arm: a count is only of the arm's own kind",
                k.resumed,
                c.handshakes,
                mode.as_str()
            ),
        );
    }
}

/// The run's counting phase against the arms: a phase that ran names as many arms as
/// carry a handshake count, each made with its plan; a phase off or skipped (or absent)
/// has none.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(super) fn check_run(e: &Evidence, bad: &mut Bad<'_>) {
    let with: Vec<(usize, &crate::instructions::Instructions)> = e
        .arms
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.instructions.as_ref().map(|ins| (i, ins)))
        .collect();
    let path = "run.settings.instructions";
    let p = match &e.run.settings.instructions {
        Some(InstructionCounting::On(p)) => p,
        other => {
            if let Some(InstructionCounting::Skipped { reason }) = other {
                if reason.trim().is_empty() {
                    bad(path.into(), "a skipped phase says why".into());
                }
            }
            if let Some((i, _)) = with.first() {
                bad(
                    format!("arms[{i}].instructions"),
                    "counted in a run whose counting phase did not run".into(),
                );
            }
            return;
        }
    };
    if p.handshakes_per_arm == 0 {
        bad(
            format!("{path}.handshakes_per_arm"),
            "at least one handshake per arm".into(),
        );
    }
    if !(p.wall_s >= 0.0 && p.wall_s <= super::MAX_SECONDS) {
        bad(
            format!("{path}.wall_s"),
            format!("{} is not a wall time (0 to 1e7 s)", p.wall_s),
        );
    }
    let handshake_scope = with
        .iter()
        .filter(|(_, ins)| ins.scope == CountScope::Handshake);
    if handshake_scope.clone().count() as u64 != p.arms {
        bad(
            format!("{path}.arms"),
            format!(
                "{} arms set out to be counted, {} carry a handshake count",
                p.arms,
                handshake_scope.clone().count()
            ),
        );
    }
    for (i, ins) in handshake_scope {
        let planned = ins.tool == p.tool
            && ins.build_profile == p.build_profile
            && ins.warmup_handshakes == p.warmup_per_arm
            && ins
                .counted()
                .is_none_or(|c| c.handshakes == p.handshakes_per_arm);
        if !planned {
            bad(
                format!("arms[{i}].instructions"),
                format!("not counted as {path} says (tool, build profile, warm-up and handshakes per arm)"),
            );
        }
    }
}
