//! The summary printed at the end of a run.

use std::fmt::Write;

use shared::{ComparisonKind, Evidence};

mod conditions;

pub use crate::human::us;

/// The primitive table: name, operations timed, median.
pub fn primitives(prims: &[shared::Primitive]) -> String {
    let w = prims.iter().map(|p| p.name.len()).max().unwrap_or(9).max(9);
    let mut out = format!("{:w$}  {:>6}  {:>12}\n", "primitive", "ops", "median");
    for p in prims {
        let _ = writeln!(out, "{:w$}  {:>6}  {:>12}", p.name, p.ops, us(p.median_us));
    }
    out
}

pub fn summary(e: &Evidence) -> String {
    let mut out = conditions::conditions(e);
    out.push_str(&placement(e));
    out.push_str(&hypervisor(e));
    let w = e.arms.iter().map(|a| a.id.len()).max().unwrap_or(10).max(3);
    let _ = writeln!(
        out,
        "{:w$}  {:>6}  {:>10}  {:>10}  {:>10}  {:>23}  {:>11}  {:>6}",
        "arm", "n", "p50", "p95", "p99", "p50 95% CI", "resumed c/s", "failed"
    );
    for a in &e.arms {
        let (p50, p95, p99) = a
            .latency_us
            .map_or(("-".into(), "-".into(), "-".into()), |l| {
                (us(l.p50), us(l.p95), us(l.p99))
            });
        let ci = match (a.p50_ci95_us, &a.ci_unavailable) {
            (Some([lo, hi]), _) => format!("{} – {}", us(lo), us(hi)),
            (None, Some(_)) => "n/a".into(),
            (None, None) => "-".into(),
        };
        // Each end's count where it checked every connection; "-" for an end that did
        // not (openssl s_server, Caddy, a probed server), never a 0 that reads like "did
        // not resume" (see `Arm::verified_ends`).
        let unmeasured = a.skipped.is_some() || a.handshake_kinds.is_none();
        let resumed = match (unmeasured, a.resumed_by_end()) {
            (true, _) | (_, (None, None)) => "-".into(),
            (false, (c, s)) => {
                let show = |n: Option<u64>| n.map_or("-".into(), |n| n.to_string());
                format!("{}/{}", show(c), show(s))
            }
        };
        let _ = writeln!(
            out,
            "{:w$}  {:>6}  {:>10}  {:>10}  {:>10}  {:>23}  {:>11}  {:>6}",
            a.id, a.succeeded, p50, p95, p99, ci, resumed, a.failed
        );
        if let Some(r) = &a.rate {
            let _ = writeln!(
                out,
                "{:w$}  ^ rate: {:.0} connections per wall-clock second, {:.0} per user-CPU second of the s_time client process ({} of {} resumed)",
                "", r.per_real_s, r.per_user_s, a.resumed.client, r.connections
            );
        }
        if let Some(why) = &a.ci_unavailable {
            let _ = writeln!(out, "{:w$}  ^ p50 CI n/a: {why}", "");
        }
        if let Some(noisy) = conditions::arm_note(e, a) {
            let _ = writeln!(out, "{:w$}  ^ {noisy}", "");
        }
        if let Some(why) = &a.skipped {
            let _ = writeln!(out, "{:w$}  ^ skipped: {why}", "");
        }
        if a.warmup_failed > 0 {
            let _ = writeln!(
                out,
                "{:w$}  ^ {} untimed warm-up connection(s) failed",
                "", a.warmup_failed
            );
        }
        match (&a.error, &a.known_pitfall) {
            (Some(err), Some(_)) => {
                let _ = writeln!(out, "{:w$}  ^ KNOWN PITFALL (expected): {err}", "");
            }
            (Some(err), None) => {
                let _ = writeln!(out, "{:w$}  ^ ERROR: {err}", "");
            }
            _ => {}
        }
    }
    let apart = shared::conditions::RatiosApart::of_run(e);
    for (kind, title) in [
        (
            ComparisonKind::ResumeSpeedup,
            "Resume speedup, p50(full) / p50(resumed):",
        ),
        (
            ComparisonKind::ZeroRttSpeedup,
            "0-RTT speedup, p50(full) / p50(0-RTT), time to the first response byte:",
        ),
        (
            ComparisonKind::TlsOverTcp,
            "TLS over TCP connect, p50(TLS full) / p50(TCP connect):",
        ),
        (
            ComparisonKind::ResumeRateSpeedup,
            "Resume rate speedup (openssl s_time), rate(-reuse) / rate(-new), only where every -reuse connection resumed:",
        ),
        (
            ComparisonKind::PhaseRecordingCost,
            "Cost of phase recording, p50(recording on) / p50(control arm, recording off):",
        ),
        (
            ComparisonKind::CpuPlacementEffect,
            "What CPU placement does, p50(the arm placed the other way) / p50(the arm as the run placed it):",
        ),
    ] {
        let rows: Vec<_> = e.comparisons.iter().filter(|c| c.kind == kind).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}");
        for c in rows {
            let basis = match c.basis {
                Some(shared::RateBasis::PerRealS) => " per wall-clock second",
                Some(shared::RateBasis::PerUserS) => {
                    " per user-CPU second of the s_time client process"
                }
                None => "",
            };
            let ci = match (c.ci95, &c.ci_unavailable) {
                (Some([lo, hi]), _) => format!("95% CI {lo:.2} – {hi:.2}"),
                (None, why) => format!("95% CI n/a: {}", why.as_deref().unwrap_or("not given")),
            };
            let _ = writeln!(
                out,
                "  {:w$}  {:>7.2}x  ({ci}){basis}",
                c.candidate, c.p50_ratio
            );
            if let Some(why) = apart.why(c) {
                let _ = writeln!(out, "  {:w$}  ^ not a fair ratio: {why}", "");
            }
        }
    }
    section(
        &mut out,
        "Cost per request, p50 of each arm (request mode): a new connection per request, or one kept alive:",
        crate::evidence::keepalive::findings(&e.arms),
    );
    section(
        &mut out,
        "The emulated link, asked and achieved, and TCP's retransmissions (client side):",
        crate::evidence::link::findings(&e.arms),
    );
    section(
        &mut out,
        "Each lossy cell split by what the link dropped, and against its 0% control (p50 ratios, paired over shared rounds, 95% CI):",
        crate::evidence::loss::populations(&e.arms),
    );
    out.push_str(&phases(e));
    out.push_str(&open_loop(e));
    out.push_str(&crate::instructions::summary(e));
    out
}

/// `heading` on a line of its own after a blank one, then `lines` indented; nothing
/// when there are none.
fn section(out: &mut String, heading: &str, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{heading}");
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}

/// The open-loop sweeps: per offered rate, achieved handshakes/s, p50/p99 from the
/// intended start, lateness and failures; then each sweep's knee in words.
pub fn open_loop(e: &Evidence) -> String {
    let sweeps = shared::open_loop::sweeps(&e.arms);
    let mut out = String::new();
    if sweeps.is_empty() {
        return out;
    }
    let threshold = sweeps
        .iter()
        .flat_map(|s| &s.arms)
        .find_map(|a| a.capacity.as_ref()?.open_loop.as_ref())
        .map_or("-".into(), |o| us(o.late_threshold_us));
    let _ = writeln!(
        out,
        "\nOpen-loop capacity (latency from each connection's intended start; late: began more than {threshold} after it):"
    );
    for s in &sweeps {
        let _ = writeln!(out, "  {}", s.label);
        let _ = writeln!(
            out,
            "    {:>10}  {:>10}  {:>10}  {:>10}  {:>12}  {:>14}  {:>14}  {:>11}  {:>14}",
            "offered/s",
            "achieved/s",
            "p50",
            "p99",
            "late",
            "lateness p50",
            "lateness max",
            "not started",
            "failed"
        );
        for a in &s.arms {
            let Some(o) = a.capacity.as_ref().and_then(|c| c.open_loop.as_ref()) else {
                continue;
            };
            let (p50, p99) = match (&a.error, a.latency_us) {
                (None, Some(l)) => (us(l.p50), us(l.p99)),
                _ => ("-".into(), "-".into()),
            };
            let (lp50, lmax) = o
                .lateness_us
                .map_or(("-".into(), "-".into()), |l| (us(l.p50_us), us(l.max_us)));
            let _ = writeln!(
                out,
                "    {:>10}  {:>10.1}  {:>10}  {:>10}  {:>12}  {:>14}  {:>14}  {:>11}  {:>14}",
                shared::open_loop::rate(o.offered_per_s),
                o.achieved_per_s,
                p50,
                p99,
                format!("{} of {}", o.late, a.attempted),
                lp50,
                lmax,
                o.not_started,
                format!("{} of {}", a.failed, a.attempted),
            );
            if let Some(err) = &a.error {
                let _ = writeln!(out, "    {:>10}  ^ ERROR: {err}", "");
            }
        }
        let _ = writeln!(out, "  knee: {}", s.knee());
    }
    out
}

/// Where the time goes: each decomposed arm's measured p50 beside the model's
/// prediction and its parts; a miss beyond the tolerance is said, never left silent.
pub fn phases(e: &Evidence) -> String {
    let rows: Vec<_> = e
        .arms
        .iter()
        .filter_map(|a| Some((a, a.phases.as_ref()?.decomposition.as_ref()?)))
        .collect();
    let mut out = String::new();
    if rows.is_empty() {
        return out;
    }
    let w = rows
        .iter()
        .map(|(a, _)| a.id.len())
        .max()
        .unwrap_or(3)
        .max(3);
    let _ = writeln!(
        out,
        "\nWhere the time goes (medians of the traced connections, µs; {}); \
         tracing cost = p50(traced) − p50(untraced), the untraced p50 being the arm's:",
        match e.hop.as_ref() {
            Some(h) if !h.curve.is_empty() => format!(
                "each flight's hop read off the hop curve at how long its receiver had waited: {} µs after {} µs idle up to {} µs after {} µs; ping-pong hop {}",
                h.curve[0].one_way_us,
                h.curve[0].idle_us,
                h.curve[h.curve.len() - 1].one_way_us,
                h.curve[h.curve.len() - 1].idle_us,
                us(h.one_way_us)
            ),
            Some(h) => format!("one hop = {}", us(h.one_way_us)),
            None => "one hop = -".into(),
        }
    );
    let _ = writeln!(
        out,
        "  {:w$}  {:>9}  {:>9}  {:>6}  {:>8}  {:>15}  {:>15}  {:>21}  {:>24}",
        "arm",
        "measured",
        "predicted",
        "ratio",
        "connect",
        "client (floor)",
        "server (floor)",
        "hops (modelled)",
        "tracing cost (95% CI)"
    );
    for (a, d) in rows {
        let cost = match a.tracing.as_ref().map(|t| (t.cost_us, t.cost_ci95_us)) {
            Some((Some(c), Some([lo, hi]))) => format!("{c:+.1} ({lo:+.1} – {hi:+.1})"),
            Some((Some(c), None)) => format!("{c:+.1} (CI n/a)"),
            _ => "-".into(),
        };
        let _ = writeln!(
            out,
            "  {:w$}  {:>9.1}  {:>9.1}  {:>6.3}  {:>8.1}  {:>15}  {:>15}  {:>21}  {:>24}",
            a.id,
            d.measured_p50_us,
            d.predicted_us,
            d.prediction_ratio,
            d.tcp_connect_us,
            format!("{:.1} ({:.1})", d.client_cpu_us, d.client_floor_us),
            format!("{:.1} ({:.1})", d.server_cpu_us, d.server_floor_us),
            hops_cell(d),
            cost,
        );
        if let Some(miss) = &d.miss {
            let _ = writeln!(out, "  {:w$}  ^ MODEL MISS: {miss}", "");
        }
    }
    out
}

/// Each flight's modelled hop joined with `+` (`18.6+75.9`), or `hops × hop` in a run
/// without a hop curve.
fn hops_cell(d: &shared::Decomposition) -> String {
    let modelled: Option<Vec<String>> = d
        .path
        .iter()
        .filter(|s| s.kind == shared::StepKind::Wire)
        .map(|s| s.modelled_us.map(|m| format!("{m:.1}")))
        .collect();
    match modelled {
        Some(m) if !m.is_empty() => m.join("+"),
        _ => format!("{} × {:.1}", d.hops, d.hop_us),
    }
}

/// The run's CPU placement and what the arms' sampled connections show of it.
pub fn placement(e: &Evidence) -> String {
    let Some(p) = &e.run.settings.placement else {
        return String::new();
    };
    let mut out = format!("CPU placement: {}", p.applied);
    if p.applied != p.asked {
        let _ = write!(
            out,
            " (asked {}: {})",
            p.asked,
            p.reason.as_deref().unwrap_or("?")
        );
    }
    if !p.client_cpus.is_empty() {
        let _ = write!(
            out,
            " — client on CPU {:?}, servers on CPU {:?}",
            p.client_cpus, p.server_cpus
        );
    }
    let placed: Vec<_> = e
        .arms
        .iter()
        .filter_map(|a| Some((a, a.placement.as_ref()?)))
        .collect();
    let observed: u64 = placed.iter().map(|(_, p)| p.observed).sum();
    let held: u64 = placed.iter().map(|(_, p)| p.held).sum();
    let shared: u64 = placed
        .iter()
        .filter(|(a, _)| a.control_of.is_none())
        .map(|(_, p)| p.same_cpu)
        .sum();
    let _ = writeln!(
        out,
        "; {held} of {observed} sampled connections in {} arms ran as asked; client and server shared a CPU on {shared} (control arms aside)",
        placed.len()
    );
    out.push('\n');
    out
}

/// The hypervisor's share during the run and the idle settings that decide what a
/// wake-up costs (empty when the evidence has neither).
pub fn hypervisor(e: &Evidence) -> String {
    let env = &e.environment;
    if env.steal_percent.is_empty() && env.cpu_idle.is_empty() {
        return String::new();
    }
    let mut out = String::from("Hypervisor: ");
    if env.steal_percent.is_empty() {
        out.push_str("no steal time reported");
    } else {
        let cpus: Vec<String> = env
            .steal_percent
            .iter()
            .map(|(cpu, p)| format!("{cpu} {p:.1}%"))
            .collect();
        let _ = write!(out, "steal time during the run {}", cpus.join(", "));
    }
    if let Some(p) = env.other_work.as_ref().and_then(|o| o.percent()) {
        let _ = write!(
            out,
            "; other programs {p:.1}% of the machine's CPU time while the run's own arms were timed"
        );
    }
    let idle: Vec<String> = ["cpuidle.driver", "haltpoll.guest_halt_poll_ns"]
        .iter()
        .filter_map(|k| Some(format!("{k} {}", env.cpu_idle.get(*k)?)))
        .collect();
    if !idle.is_empty() {
        let _ = write!(out, "; idle: {}", idle.join(", "));
    }
    let worst = e
        .arms
        .iter()
        .flat_map(|a| a.round_steal_percent.iter().flatten())
        .fold(0.0f64, |m, x| m.max(*x));
    if worst > 0.0 {
        let _ = write!(
            out,
            "; at most {worst:.0}% in one arm's chunk of a round (arms' round_steal_percent)"
        );
    }
    out.push_str("\n\n");
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
