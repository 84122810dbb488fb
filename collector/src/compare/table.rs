//! The comparison as a table for people.

use std::fmt::Write;

use shared::Verdict;

use super::rows::{Comparison, NOT_COMPARABLE, ONLY_IN_NEW, ONLY_IN_OLD};
use crate::human::us;

/// The table, the runs it compares, what differs between them, and a closing count.
pub fn table(c: &Comparison) -> String {
    let mut out = String::new();
    for (name, cond) in [("OLD", &c.conditions[0]), ("NEW", &c.conditions[1])] {
        let _ = writeln!(out, "{name} run conditions: {cond}");
    }
    if let Some(why) = &c.conditions_apart {
        let _ = writeln!(
            out,
            "INCONCLUSIVE: {why}; no arm is judged slower or faster. Measure both again on a quiet machine, alternately (OLD, NEW, OLD, NEW)."
        );
    }
    for (name, r) in [("OLD", &c.old), ("NEW", &c.new)] {
        let _ = writeln!(
            out,
            "{name}: {} ({}, started {}, commit {}, load average {:.2} → {:.2})",
            r.id,
            r.hostname,
            r.started_at,
            r.git_commit.as_deref().unwrap_or("unknown"),
            r.load_1min[0],
            r.load_1min[1]
        );
    }
    for d in &c.differences {
        let _ = writeln!(out, "note: the runs differ in {d}");
    }
    let w = c.arms.iter().map(|r| r.arm.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        out,
        "\n{:w$}  {:>10}  {:>10}  {:>8}  {:>15}  verdict",
        "arm", "OLD p50", "NEW p50", "NEW/OLD", "95% CI"
    );
    let opt_us = |v: Option<f64>| v.map_or("-".to_string(), us);
    for r in &c.arms {
        let ratio = r.ratio.map_or("-".into(), |x| format!("{x:.3}x"));
        let ci = match (r.ci95, r.ratio) {
            (Some([lo, hi]), _) => format!("{lo:.3} – {hi:.3}"),
            (None, Some(_)) => "n/a".into(),
            (None, None) => "-".into(),
        };
        let flag = if r.regression { "  REGRESSION" } else { "" };
        let _ = writeln!(
            out,
            "{:w$}  {:>10}  {:>10}  {:>8}  {:>15}  {}{flag}",
            r.arm,
            opt_us(r.old_p50_us),
            opt_us(r.new_p50_us),
            ratio,
            ci,
            r.verdict
        );
        if let Some(note) = &r.note {
            let _ = writeln!(out, "{:w$}  ^ {note}", "");
        }
    }
    let count = |v: &str| c.arms.iter().filter(|r| r.verdict == v).count();
    let _ = writeln!(
        out,
        "\n{} slower, {} faster, {} no evidence of a difference, {} without a CI, {} inconclusive, {} not comparable, {} in one run only.",
        count(Verdict::Slower.as_str()),
        count(Verdict::Faster.as_str()),
        count(Verdict::NoEvidence.as_str()),
        count(Verdict::NoInterval.as_str()),
        count(Verdict::Inconclusive.as_str()),
        count(NOT_COMPARABLE),
        count(ONLY_IN_OLD) + count(ONLY_IN_NEW),
    );
    let _ = writeln!(
        out,
        "Regressions (slower, and NEW/OLD above {:.3}): {}.",
        1.0 + c.threshold,
        c.regressions
    );
    if let Some(w) = &c.common_shift {
        let _ = writeln!(out, "WARNING: {w}.");
    }
    let _ = writeln!(
        out,
        "Method: {} ({} resamples, seed {}).",
        c.method, c.resamples, c.seed
    );
    out
}
