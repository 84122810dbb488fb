//! The timing loop, written once for every arm: it follows an arm's [`Plan`], checks
//! every connection (the checks in [`crate::arms::verify`] make a resumed arm that did not
//! resume an error rather than a number) and records what it saw in an [`ArmRun`]. Above
//! the arms; also the other loops (capacity, open loop, RTT, hop curve) and how a run
//! becomes evidence ([`record`], [`phases`], [`decompose`]).

pub mod capacity;
pub mod chunk;
pub mod cluster;
pub mod decompose;
pub mod hop;
pub mod hop_curve;
pub mod link_record;
pub mod open_loop;
pub mod other_work;
pub mod phases;
pub mod probe;
pub mod record;
pub mod rtt;
pub mod steal;
pub mod wire;

use std::sync::atomic::AtomicBool;

use crate::arms::measured::{ArmRun, Traced};
use crate::arms::placement::Placed;
use crate::arms::plan::Plan;
use crate::arms::{ArmSpec, Session};
use crate::progress::Progress;
pub use record::build_arm;

/// The `round_group` of the main loop's arms on loopback.
pub const MAIN_LOOP: &str = "loopback";

/// Starts `specs` (per `opts`) and measures them with [`run`]; the evidence of every arm
/// that was attempted.
pub fn arms(
    specs: &[ArmSpec],
    plan: &Plan,
    certs: &crate::certs::CertStore,
    opts: &crate::arms::SessionOptions,
    stop: &AtomicBool,
) -> anyhow::Result<Vec<shared::Arm>> {
    use anyhow::Context;
    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = Vec::new();
    for spec in specs {
        let session = spec
            .start(certs, opts)
            .with_context(|| format!("starting arm {spec}"))?;
        sessions.push((*spec, session));
    }
    Ok(measure_sessions(&mut sessions, plan, MAIN_LOOP, stop))
}

/// Measures started sessions with a progress display, interleaved in rounds recorded as
/// `group`; the evidence of every arm attempted.
pub fn measure_sessions(
    sessions: &mut [(ArmSpec, Box<dyn Session>)],
    plan: &Plan,
    group: &str,
    stop: &AtomicBool,
) -> Vec<shared::Arm> {
    let specs: Vec<ArmSpec> = sessions.iter().map(|(s, _)| *s).collect();
    let progress = Progress::new(&specs, plan.samples);
    let runs = run(sessions, plan, group, &progress, stop);
    progress.finish();
    runs.iter()
        .filter(|r| r.attempted > 0)
        .map(build_arm)
        .collect()
}

/// Runs every arm's connections, interleaved in rounds, and records which round each
/// successful sample came from (the rounds are named `group` in the evidence). Stops
/// early (keeping what was measured) when `stop` is set; failed connections are
/// counted, never dropped. Where the plan watches steal, a chunk the hypervisor stole
/// from is set aside and measured again at the end of its round (see [`chunk`]).
pub fn run(
    sessions: &mut [(ArmSpec, Box<dyn Session>)],
    plan: &Plan,
    group: &str,
    progress: &Progress,
    stop: &AtomicBool,
) -> Vec<ArmRun> {
    let mut x25519 = probe::X25519::new();
    let mut off = probe::Off;
    let probe: &mut dyn probe::Probe = match x25519.as_mut() {
        Some(p) => p,
        None => &mut off,
    };
    let mut host = chunk::Host {
        steal: &mut chunk::ProcStat,
        probe,
    };
    run_with(sessions, plan, group, progress, stop, &mut host)
}

/// [`run`] with the host's steal and speed read through `host`.
pub fn run_with(
    sessions: &mut [(ArmSpec, Box<dyn Session>)],
    plan: &Plan,
    group: &str,
    progress: &Progress,
    stop: &AtomicBool,
    host: &mut chunk::Host<'_>,
) -> Vec<ArmRun> {
    let cpu = crate::cpu::plan();
    let mut runs: Vec<ArmRun> = sessions
        .iter_mut()
        .map(|(s, session)| {
            // Only arms whose session can trace get traced connections; the others
            // record nothing (and every connection gives a sample).
            let can_trace = session.set_traced(false);
            let traces = plan.trace_every > 0 && can_trace;
            ArmRun {
                request: plan.request || s.early_data(),
                server_reports: session.server_reports(),
                traced: traces.then(|| Traced {
                    untraced_per_traced: plan.trace_every,
                    ..Traced::default()
                }),
                placed: Some(Placed::new(cpu, s.cpu)),
                ..ArmRun::new(*s, plan.samples)
            }
        })
        .collect();
    let mut budget = chunk::Budget::new(plan.noise, sessions.len(), plan.rounds);
    let mut rng = fastrand::Rng::with_seed(plan.seed);
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    let mut connect = |i: usize, session: &mut dyn Session, run: &mut ArmRun| {
        connect(plan, session, run);
        progress.tick(i);
    };
    'rounds: for round in 0..plan.rounds {
        rng.shuffle(&mut order);
        budget.at_round(round);
        runs.iter_mut().for_each(|r| r.begin_round(group));
        let mut again = Vec::new();
        let mut pass = order.clone();
        let mut first = true;
        while !pass.is_empty() {
            for (pos, &i) in pass.iter().enumerate() {
                let (spec, session) = &mut sessions[i];
                progress.at(round + 1, plan.rounds, pos + 1, pass.len(), spec);
                let ctx = chunk::ChunkCtx {
                    plan,
                    round,
                    again: !first,
                    stop,
                };
                let end = chunk::measure(
                    i,
                    session.as_mut(),
                    &mut runs[i],
                    &ctx,
                    host,
                    &mut budget,
                    &mut connect,
                );
                match end {
                    chunk::End::Stopped => break 'rounds,
                    chunk::End::Again => {
                        again.push(i);
                        progress.redo(i, plan.chunk(round));
                    }
                    chunk::End::Used => {}
                }
            }
            // Chunks set aside are measured again at the end of their round, in an order
            // of their own, so the round still pairs every arm's samples in time.
            rng.shuffle(&mut again);
            pass = std::mem::take(&mut again);
            first = false;
        }
        progress.round_done(round + 1, plan.rounds);
    }
    let (extra, wall) = budget.extra();
    if extra > 0 {
        eprintln!(
            "collector: {extra} chunk(s) of the `{group}` loop were measured again for steal over {}% ({:.1} s)",
            plan.noise.map_or(100.0, |n| n.max_steal_percent),
            wall.as_secs_f64()
        );
    }
    runs
}

/// Makes one timed connection of the arm (and, after every `trace_every` untraced ones,
/// one traced) and records it.
fn connect(plan: &Plan, session: &mut dyn Session, run: &mut ArmRun) {
    run.attempted += 1;
    let outcome = session.connect_once();
    observe(run, &*session, outcome.as_ref().ok());
    match outcome {
        Ok(outcome) => run.record(&outcome),
        Err(e) => {
            run.failed += 1;
            run.first_failure.get_or_insert_with(|| format!("{e:#}"));
        }
    }
    // After every `trace_every` untraced connections of the arm, one traced one.
    if run.traced.is_some() && run.attempted.is_multiple_of(plan.trace_every) {
        session.set_traced(true);
        let traced = session.connect_once();
        session.set_traced(false);
        observe(run, &*session, traced.as_ref().ok());
        let t = run.traced.as_mut().expect("checked above");
        t.attempted += 1;
        match traced {
            Ok(outcome) => run.record_traced(&outcome),
            Err(e) => {
                t.failed += 1;
                run.first_failure.get_or_insert_with(|| format!("{e:#}"));
            }
        }
    }
}

/// Counts where the two ends of the connection just made ran: the client is this thread
/// (which made it), unless its handshake sampled its own CPU; the server as its session
/// tells.
fn observe(run: &mut ArmRun, session: &dyn Session, outcome: Option<&crate::arms::Outcome>) {
    let Some(placed) = run.placed.as_mut() else {
        return;
    };
    let client = outcome
        .and_then(|o| o.client.as_ref())
        .and_then(|c| c.cpu)
        .or_else(crate::cpu::current);
    let (server, how) = session.server_cpus();
    placed.observe(client, &server, how);
}
