//! The summary's first lines: how noisy the run was ([`shared::conditions`]), the chunks
//! set aside and measured again, and the speed probe.

use std::fmt::Write as _;

use shared::conditions::{self, SLOW_MODE_FACTOR};
use shared::{ArmConditions, Evidence};

/// "Run conditions: NOISY — …" and, where the loop watched steal, what it did.
pub fn conditions(e: &Evidence) -> String {
    let c = conditions::of_run(e);
    let mut out = format!(
        "Run conditions: {}\n",
        c.sentence()
            .replacen(c.level.as_str(), &c.level.as_str().to_uppercase(), 1)
    );
    let chunks: Vec<_> = e.arms.iter().filter_map(|a| a.chunks.as_ref()).collect();
    if let Some(n) = e.run.settings.noise.filter(|_| !chunks.is_empty()) {
        let all: usize = chunks.iter().map(|c| c.list.len()).sum();
        let aside: u64 = chunks.iter().map(|c| c.set_aside()).sum();
        let over: u64 = chunks.iter().map(|c| c.over_budget()).sum();
        let _ = writeln!(
            out,
            "  chunks: {all} measured, {aside} set aside for steal over {}% and measured again, {over} used over it (budget spent)",
            n.max_steal_percent
        );
        if let Some(fast) = c.fast_probe_us {
            let slow = conditions::slow_probes(&e.arms, fast).0.len();
            let _ = writeln!(
                out,
                "  speed probe ({} X25519 keygen + agreements before each chunk, median): fast reference {fast:.1} µs; {slow} of {all} chunks slower than {:.1} µs",
                n.probe_operations,
                fast * SLOW_MODE_FACTOR
            );
        }
    }
    out.push('\n');
    out
}

/// "noisy: 3 of 10 chunks …" for an arm that used chunks over the threshold.
pub fn arm_note(e: &Evidence, arm: &shared::Arm) -> Option<String> {
    ArmConditions::of(arm, conditions::fast_probe_us(&e.arms))?.noisy()
}
