//! Turning measured arms into evidence: summaries, honesty errors, comparisons; and
//! writing it ([`write`]).

mod ci;
pub mod environment;
pub mod keepalive;
pub mod link;
pub mod loss;
pub mod loss_effect;
pub mod write;

pub use ci::apply_cis;

use shared::{Arm, Comparison, ComparisonKind, Mode, Protocol, Stack};

/// Written beside the timing loop (an arm run's record); here for the callers that
/// build evidence.
pub use crate::measure::build_arm;
use ci::ratio_ci;

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

/// Measured under the same conditions: the same emulated RTT, the same link model (loss,
/// burst, jitter, rate, queue, MTU: its seed and counts are the link's own, not
/// conditions) and the same number of concurrent clients (a ratio across conditions
/// would compare the conditions: a TLS arm at 20% loss over TCP connect at 0%).
fn same_conditions(a: &Arm, b: &Arm) -> bool {
    let clients = |x: &Arm| x.capacity.as_ref().map(|c| c.clients);
    let link = |x: &Arm| {
        x.link.as_ref().map(|l| {
            let model = (l.loss, l.burst_packets, l.jitter_ms, l.rate_bit_s);
            (l.rtt_ms, model, l.limit_packets, l.mtu)
        })
    };
    clients(a) == clients(b) && a.rtt_ms == b.rtt_ms && link(a) == link(b)
}

#[cfg(test)]
mod tests {
    use shared::sample;

    use super::*;
    use crate::arms::ArmRun;

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
