//! Turning measured arms into evidence: summaries, honesty errors, comparisons; and
//! writing it ([`write`]).

mod ci;
pub mod environment;
pub mod keepalive;
pub mod write;

pub use ci::apply_cis;

use shared::{Arm, Comparison, ComparisonKind, Mode, Protocol, Stack};

use crate::measure::ArmRun;
use crate::measure::{cluster, stats};
use ci::ratio_ci;

/// The evidence record of one measured arm. A broken promise (a resumed arm with a full
/// handshake, a full arm that resumed, a wrong group) or an arm where every connection
/// failed gets an `error`. Its CI is left to [`apply_cis`], which needs the run's seed.
pub fn build_arm(run: &ArmRun) -> Arm {
    let spec = run.spec;
    let succeeded = run.samples_us.len() as u64;
    let summary = stats::summarize(&run.samples_us);
    let rounds = cluster::split(&run.samples_us, &run.samples_per_round);
    let round_medians_us: Vec<Option<f64>> = rounds
        .iter()
        .flatten()
        .map(|r| (!r.is_empty()).then(|| stats::median_in_place(&mut r.to_vec())))
        .collect();
    let broken: u64 = run.problems.values().copied().max().unwrap_or(0);
    let misplaced = run.placed.as_ref().and_then(|p| p.broken());
    let error = if let Some(why) = misplaced {
        // A mixture of placements is not the placement the arm reports.
        Some(why)
    } else if !run.problems.is_empty() {
        let list: Vec<String> = run
            .problems
            .iter()
            .map(|(p, n)| format!("{n}× {p}"))
            .collect();
        Some(format!(
            "{broken} of {succeeded} timed connections did not do what this arm measures: {}",
            list.join("; ")
        ))
    } else if succeeded == 0 && run.attempted > 0 {
        Some(format!(
            "all {} timed connections failed; first failure: {}",
            run.attempted,
            run.first_failure.as_deref().unwrap_or("unknown")
        ))
    } else {
        None
    };
    let kinds = run.kinds;
    Arm {
        id: spec.id(),
        stack: spec.stack(),
        client_stack: spec.stack(),
        server_stack: spec.stack(),
        peer_version: None,
        protocol: spec.protocol,
        mode: spec.mode,
        resumption: spec.resumption,
        cert: spec.cert,
        kx_group: spec.kx_group,
        timed_window: spec.timed_window(run.request).to_string(),
        ttfb: run.request,
        attempted: run.attempted,
        succeeded,
        failed: run.failed,
        resumed: shared::ResumedCounts {
            client: kinds.map_or(0, |k| k.client.resumed),
            server: kinds.map_or(0, |k| k.server.resumed),
        },
        handshake_kinds: kinds,
        latency_us: summary,
        p50_ci95_us: None,
        ci_unavailable: None,
        throughput_per_s: (succeeded > 0 && !run.timed_wall.is_zero())
            .then(|| succeeded as f64 / run.timed_wall.as_secs_f64()),
        samples_us: run.samples_us.clone(),
        samples_per_round: match rounds {
            Some(_) => run.samples_per_round.clone(),
            None => Vec::new(),
        },
        round_medians_us,
        round_group: rounds.and(run.round_group.clone()),
        error,
        first_failure: run.first_failure.clone(),
        warmup_failed: run.warmup_failed,
        warmup_attempted: Some(run.warmup_attempted),
        server_threads: Some(run.threads.0),
        client_threads: Some(run.threads.1),
        negotiated: run.negotiated.clone(),
        skipped: None,
        known_pitfall: None,
        rate: None,
        crypto_floor_us: None,
        crypto_floor_parts: Vec::new(),
        efficiency: None,
        capacity: None,
        rtt_ms: None,
        rtt_method: None,
        rtt_measured_ms: (!run.connect_us.is_empty())
            .then(|| stats::median_in_place(&mut run.connect_us.clone()) / 1000.0),
        early_data: run.early_data,
        phase_recording: phase_recording(run),
        phases: crate::measure::phases::from_traces(&run.traces).filter(|_| {
            let traced = run
                .traced
                .as_ref()
                .map_or(succeeded, |t| t.samples_us.len() as u64);
            run.traces.len() as u64 == traced
        }),
        control_of: None,
        placement: run.placed.as_ref().and_then(|p| p.record()),
        tracing: run.traced.as_ref().filter(|t| t.attempted > 0).map(tracing),
        keepalive: keepalive(run, summary.map(|s| s.p50)),
    }
}

/// The traced connections' record; their cost is left to [`apply_cis`] (it needs the
/// untraced p50 and the run's seed).
fn tracing(t: &crate::measure::Traced) -> shared::Tracing {
    let succeeded = t.samples_us.len() as u64;
    shared::Tracing {
        untraced_per_traced: t.untraced_per_traced,
        attempted: t.attempted,
        succeeded,
        failed: t.failed,
        samples_us: t.samples_us.clone(),
        samples_per_round: t.samples_per_round.clone(),
        latency_us: stats::summarize(&t.samples_us),
        cost_us: None,
        cost_ci95_us: None,
        cost_ci_unavailable: None,
    }
}

/// A keep-alive arm's requests per connection and medians (null for other arms, and
/// when no connection succeeded).
fn keepalive(run: &ArmRun, per_request_p50: Option<f64>) -> Option<shared::KeepAlive> {
    let &(requests, _, _) = run.keepalive.first()?;
    let median = |f: fn(&(u64, f64, f64)) -> f64| {
        stats::median_in_place(&mut run.keepalive.iter().map(f).collect::<Vec<f64>>())
    };
    Some(shared::KeepAlive {
        requests_per_connection: requests,
        first_request_p50_us: median(|k| k.1),
        per_request_p50_us: per_request_p50?,
        amortized_p50_us: median(|k| k.2),
    })
}

/// Whether the arm recorded phases: true when its connections did, false when a rustls
/// client arm had recording off, null otherwise (other stacks, request mode).
fn phase_recording(run: &ArmRun) -> Option<bool> {
    use crate::arms::PhaseRecording;
    if !run.traces.is_empty() || run.traced.as_ref().is_some_and(|t| t.attempted > 0) {
        return Some(true);
    }
    let rustls_client = run.spec.protocol != Protocol::Tcp && run.spec.stack() == Stack::Rustls;
    (rustls_client && !run.request && run.spec.phases != PhaseRecording::On).then_some(false)
}

/// `ev` with its kind of run and setup fingerprint written in (`run.kind`, `run.setup`),
/// so the page compares only runs measured alike.
pub fn with_setup(mut ev: shared::Evidence) -> shared::Evidence {
    ev.run.kind = Some(shared::RunKind::of(&ev));
    ev.run.setup = Some(shared::setup::setup_of(&ev));
    ev
}

/// Resume speedups (`p50(full) / p50(resumed)`) for every sound resumed arm with a sound
/// full arm of the same protocol, cert and group (0-RTT arms: `zero_rtt_speedup`, against
/// the full arm measured in the same request mode); TLS-over-TCP ratios for every sound
/// full TLS arm. Arms with an `error` get no comparison: a speedup from connections that
/// did not resume would be a false claim.
pub fn comparisons(arms: &[Arm], resamples: usize, seed: u64) -> Vec<Comparison> {
    let measured = |a: &&Arm| a.error.is_none() && a.latency_us.is_some();
    // A control arm (phase recording off) enters only its own comparison. An open-loop
    // arm's latencies include the wait for a free client worker, so a ratio of two of
    // them would compare queues, not handshakes: it enters none.
    let open_loop = |a: &&Arm| a.capacity.as_ref().is_some_and(|c| c.open_loop.is_some());
    let sound = |a: &&Arm| measured(a) && a.control_of.is_none() && !open_loop(a);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = Vec::new();
    let mut push = |kind, baseline: &Arm, candidate: &Arm, numerator: &Arm, denominator: &Arm| {
        let (Some(n), Some(d)) = (numerator.latency_us, denominator.latency_us) else {
            return;
        };
        let (ci95, ci_unavailable) = ratio_ci(numerator, denominator, resamples, &mut rng);
        out.push(Comparison {
            kind,
            baseline: baseline.id.clone(),
            candidate: candidate.id.clone(),
            p50_ratio: n.p50 / d.p50,
            ci95,
            ci_unavailable,
            basis: None,
        });
    };
    for resumed in arms
        .iter()
        .filter(sound)
        .filter(|a| a.mode == Mode::Resumed)
    {
        let full = arms
            .iter()
            .filter(sound)
            .find(|a| a.mode == Mode::Full && same_cell(a, resumed));
        // A 0-RTT arm (early-data counts) resumes too, but what it gains is the request
        // riding with the ClientHello: its own kind, never a stateful resume speedup.
        let kind = if resumed.early_data.is_some() {
            ComparisonKind::ZeroRttSpeedup
        } else {
            ComparisonKind::ResumeSpeedup
        };
        if let Some(full) = full {
            push(kind, full, resumed, full, resumed);
        }
    }
    for tls in arms
        .iter()
        .filter(sound)
        .filter(|a| a.protocol != Protocol::Tcp && a.mode == Mode::Full && a.capacity.is_none())
    {
        // TCP connect measured under the same conditions, by the same client if possible.
        let tcps = || {
            arms.iter()
                .filter(sound)
                .filter(|a| a.protocol == Protocol::Tcp && same_conditions(a, tls))
        };
        let tcp = tcps()
            .find(|a| a.client_stack == tls.client_stack)
            .or_else(|| tcps().find(|a| a.client_stack == Stack::KernelTcp));
        if let Some(tcp) = tcp {
            push(ComparisonKind::TlsOverTcp, tcp, tls, tls, tcp);
        }
    }
    for control in arms.iter().filter(measured) {
        let copied = control
            .control_of
            .as_ref()
            .and_then(|id| arms.iter().filter(sound).find(|a| &a.id == id));
        let Some(copied) = copied else { continue };
        let asked = |a: &Arm| a.placement.as_ref().map(|p| p.asked);
        if asked(control) != asked(copied) {
            // The same arm placed the other way: control / arm.
            push(
                ComparisonKind::CpuPlacementEffect,
                copied,
                control,
                control,
                copied,
            );
        } else {
            push(
                ComparisonKind::PhaseRecordingCost,
                control,
                copied,
                copied,
                control,
            );
        }
    }
    out
}

/// How the collector was built, recorded in every run's settings (a debug build is far
/// slower).
pub const BUILD_PROFILE: &str = if cfg!(debug_assertions) {
    "debug"
} else {
    "release"
};

/// The same handshake apart from its mode: the same stacks, protocol, cert and group,
/// under the same conditions (the arms one ratio may compare).
pub(crate) fn same_cell(a: &Arm, b: &Arm) -> bool {
    a.stack == b.stack
        && a.protocol == b.protocol
        && a.cert == b.cert
        && a.kx_group == b.kx_group
        && a.client_stack == b.client_stack
        && a.server_stack == b.server_stack
        && same_conditions(a, b)
}

/// Measured under the same conditions: the same emulated RTT and the same number of
/// concurrent clients (a ratio across conditions would compare the conditions).
fn same_conditions(a: &Arm, b: &Arm) -> bool {
    let clients = |x: &Arm| x.capacity.as_ref().map(|c| c.clients);
    clients(a) == clients(b) && a.rtt_ms == b.rtt_ms
}

#[cfg(test)]
mod tests {
    use shared::sample;

    use super::*;

    #[test]
    fn speedup_is_full_over_resumed() {
        let e = sample::evidence();
        let c = comparisons(&e.arms, 200, 1);
        let speedup = c
            .iter()
            .find(|c| c.kind == ComparisonKind::ResumeSpeedup)
            .unwrap();
        assert_eq!(speedup.baseline, "tls13-full-ecdsa-p256-x25519");
        assert_eq!(speedup.candidate, "tls13-resumed-ticket-ecdsa-p256-x25519");
        assert_eq!(speedup.p50_ratio, 400.0 / 200.0);
        let over_tcp = c
            .iter()
            .find(|c| c.kind == ComparisonKind::TlsOverTcp)
            .unwrap();
        assert_eq!(over_tcp.p50_ratio, 400.0 / 21.0);
        // The sample's arms were not taken in rounds: no interval, and the reason.
        assert_eq!(over_tcp.ci95, None);
        assert!(over_tcp
            .ci_unavailable
            .as_deref()
            .unwrap()
            .contains("not taken in interleaved rounds"));
    }

    #[test]
    fn failures_are_carried_into_the_evidence_never_dropped() {
        let mut run = ArmRun::new(crate::arms::ArmSpec::TCP_CONNECT, 0);
        run.attempted = 3;
        run.failed = 3;
        run.warmup_failed = 2;
        run.first_failure = Some("connect: refused".into());
        let arm = build_arm(&run);
        assert_eq!((arm.attempted, arm.failed, arm.warmup_failed), (3, 3, 2));
        assert!(arm
            .error
            .as_deref()
            .unwrap()
            .contains("all 3 timed connections failed; first failure: connect: refused"));
        assert!(arm.latency_us.is_none());
    }

    #[test]
    fn a_0rtt_arm_gets_its_own_kind_beside_the_stateful_speedup() {
        let mut e = sample::evidence();
        let mut stateful = e.arms[2].clone();
        stateful.id = "tls13-resumed-stateful-ecdsa-p256-x25519".into();
        stateful.resumption = Some(shared::Resumption::Stateful);
        let mut zero = stateful.clone();
        zero.id = "tls13-0rtt-ecdsa-p256-x25519".into();
        zero.early_data = Some(shared::EarlyData {
            offered: 4,
            accepted: 4,
        });
        e.arms.extend([stateful, zero]);
        let c = comparisons(&e.arms, 50, 1);
        let kind_of = |id: &str| {
            let found: Vec<_> = c.iter().filter(|c| c.candidate == id).collect();
            assert_eq!(found.len(), 1, "{id}: {c:?}");
            (found[0].kind, found[0].baseline.as_str())
        };
        let full = "tls13-full-ecdsa-p256-x25519";
        assert_eq!(
            kind_of("tls13-0rtt-ecdsa-p256-x25519"),
            (ComparisonKind::ZeroRttSpeedup, full)
        );
        assert_eq!(
            kind_of("tls13-resumed-stateful-ecdsa-p256-x25519"),
            (ComparisonKind::ResumeSpeedup, full)
        );
        e.comparisons = c;
        assert!(e.violations().is_empty(), "{:?}", e.violations());
    }

    #[test]
    fn throughput_is_successes_per_second_of_the_timed_wall_time() {
        let mut run = ArmRun::new(crate::arms::ArmSpec::TCP_CONNECT, 0);
        for us in [100, 200, 300] {
            run.attempted += 1;
            run.record_sample(std::time::Duration::from_micros(us));
        }
        run.attempted += 1;
        run.failed += 1;
        assert_eq!(
            build_arm(&run).throughput_per_s,
            None,
            "no wall time measured"
        );
        run.timed_wall = std::time::Duration::from_millis(1500);
        // 3 successes (the failure's time is in the wall, it is not a success) in 1.5 s.
        assert_eq!(build_arm(&run).throughput_per_s, Some(2.0));
    }

    #[test]
    fn an_arm_with_an_error_gets_no_speedup() {
        let mut e = sample::evidence();
        e.arms[2].error = Some("did not resume".into());
        let c = comparisons(&e.arms, 50, 1);
        assert!(
            c.iter().all(|c| c.kind != ComparisonKind::ResumeSpeedup),
            "{c:?}"
        );
    }
}

#[cfg(test)]
#[path = "cell_tests.rs"]
mod cell_tests;
