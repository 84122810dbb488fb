//! One measured arm's evidence record: its statistics, honesty errors and what each end
//! verified, from what the timing loop recorded ([`ArmRun`]). Beside the loop so that the
//! loop's callers (capacity, open-loop, peers) and the evidence build it the same way.

use shared::{Arm, Protocol, Stack, Verified};

use super::cluster;
use crate::arms::ArmRun;
use crate::stats;

/// The evidence record of one measured arm. A broken promise (a resumed arm with a full
/// handshake, a full arm that resumed, a wrong group) or an arm where every connection
/// failed gets an `error`. Its CI is left to [`crate::evidence::apply_cis`], which needs the run's seed.
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
        protocol: spec.protocol(),
        mode: spec.mode(),
        resumption: spec.resumption(),
        cert: spec.cert(),
        kx_group: spec.kx_group(),
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
        verified: Some(if spec.protocol() == Protocol::Tcp {
            Verified::NOT_APPLICABLE
        } else if run.server_reports {
            Verified::BOTH
        } else {
            Verified::CLIENT_ONLY
        }),
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
        round_steal_percent: match rounds {
            Some(_) => run.round_steal.clone(),
            None => Vec::new(),
        },
        chunks: run.chunks.clone().filter(|_| rounds.is_some()),
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
        // Set over an emulated link, where the RTT is known (measure::rtt).
        rtt_multiple: None,
        wire: super::wire::record(run),
        early_data: run.early_data,
        phase_recording: phase_recording(run),
        phases: super::phases::from_traces(&run.traces).filter(|_| {
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
        link: None,
        tcp: tcp_counters(&run.tcp),
        server_tcp: tcp_counters(&run.server_tcp),
        populations: None,
        loss_effect: None,
        instructions: None,
    }
}

/// The TCP_INFO counters of one end of an arm's connections, where any were read.
fn tcp_counters(conns: &[crate::arms::tcp_info::TcpInfo]) -> Option<shared::TcpCounters> {
    if conns.is_empty() {
        return None;
    }
    let rtos: Vec<u16> = conns.iter().filter_map(|c| c.total_rto).collect();
    // Every connection or none has the RTO count (one kernel per run).
    let rtos = if rtos.len() == conns.len() {
        rtos
    } else {
        Vec::new()
    };
    Some(shared::TcpCounters {
        connections: conns.len() as u64,
        with_retransmission: conns.iter().filter(|c| c.total_retrans > 0).count() as u64,
        with_rto: (!rtos.is_empty()).then(|| rtos.iter().filter(|&&r| r > 0).count() as u64),
        retransmits: conns.iter().map(|c| c.total_retrans).collect(),
        rtos,
        segments_out: conns.iter().map(|c| c.segs_out).collect(),
        cwnd: conns.iter().map(|c| c.snd_cwnd).collect(),
    })
}

/// The traced connections' record; their cost is left to [`crate::evidence::apply_cis`] (it needs the
/// untraced p50 and the run's seed).
fn tracing(t: &crate::arms::Traced) -> shared::Tracing {
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
pub(crate) fn phase_recording(run: &ArmRun) -> Option<bool> {
    use crate::arms::PhaseRecording;
    if !run.traces.is_empty() || run.traced.as_ref().is_some_and(|t| t.attempted > 0) {
        return Some(true);
    }
    let rustls_client = run.spec.protocol() != Protocol::Tcp && run.spec.stack() == Stack::Rustls;
    (rustls_client && !run.request && run.spec.phases != PhaseRecording::On).then_some(false)
}
