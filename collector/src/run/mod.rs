//! `collector run`: plan, measure, write evidence, summarize.

mod args;
mod link_args;
mod options;
mod phases;
mod placement;
mod plan;
pub(crate) mod record;
mod signals;
mod sockets;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use shared::{Evidence, Run, Tool, SCHEMA_VERSION};
use time::OffsetDateTime;

use crate::arms::{self, ArmSpec, Fault, PhaseRecording, SessionOptions};
use crate::certs::CertStore;
use crate::evidence::{self, environment, write};
use crate::floor;
use crate::instructions;
use crate::measure::{self, capacity, open_loop, rtt};
use crate::peers;
use crate::remote;
use crate::report;
pub use args::{RttList, RunArgs};
pub use options::{RunOptions, Target};

/// Exit status when an arm's evidence carries an error.
pub const EXIT_ARM_ERROR: u8 = 3;
/// Exit status after Ctrl-C (128 + SIGINT); SIGTERM gives 143 and SIGHUP 129.
pub const EXIT_INTERRUPTED: u8 = 130;

/// `collector run`; after a signal, its status whatever else happened (see `signals`).
pub fn run(args: RunArgs) -> Result<ExitCode> {
    // Every flag is checked and typed once, before anything is measured.
    let opts = match RunOptions::build(args) {
        // Flags that parse one by one but not together: a usage error, as clap's (exit 2).
        Err(e) if e.is::<clap::Error>() => e.downcast::<clap::Error>().expect("is").exit(),
        opts => opts,
    };
    signals::outcome(opts.and_then(run_to_the_end))
}

fn run_to_the_end(args: RunOptions) -> Result<ExitCode> {
    let (certs, groups) = (&args.certs, &args.groups);
    let request = args.request;
    // Peer tools are looked up before measuring (`--require-peers` fails fast); peer
    // arms run on plain loopback only.
    let on_loopback = args.on_loopback();
    let peer_phase = peers::Phase::prepare(
        &args.peers,
        certs,
        groups,
        args.arms.as_deref(),
        on_loopback,
        args.chain_depth,
    )?;
    let mut specs = arms::default_set(certs, groups, request);
    if request && args.target.is_none() {
        specs.extend(arms::keepalive::arms(certs, groups));
    }
    if let Some(f) = &args.arms {
        let all: Vec<String> = specs
            .iter()
            .map(ArmSpec::id)
            .chain(peer_phase.all_ids())
            .collect();
        specs = arms::filter(specs, f);
        // Against `collector serve` the filter applies to the arms it serves.
        if specs.is_empty() && peer_phase.ids().is_empty() && args.target.is_none() {
            bail!(
                "--arms `{f}` matches no arm; the arms for these --certs and --groups are:\n  {}",
                all.join("\n  ")
            );
        }
    }
    phases::plan(&mut specs, args.phases);
    // Where the ends run is decided before any thread or peer starts: this thread (the
    // client) is pinned now, and everything it starts inherits or re-pins.
    let cpu = crate::cpu::install(args.placement).context("could not pin the client thread")?;
    if let Some(why) = &cpu.reason {
        eprintln!("collector: --placement {}: {why}", cpu.asked);
    }
    let control = if on_loopback {
        placement::plan(&mut specs, cpu.applied)
    } else {
        None
    };
    if args.list_arms {
        for s in &specs {
            println!("{s}");
        }
        peer_phase.ids().iter().for_each(|id| println!("{id}"));
        return Ok(ExitCode::SUCCESS);
    }
    specs.iter_mut().for_each(|s| s.fault = args.fault);
    // Decided (and said, where it cannot run) before anything is measured.
    let counting = instructions::decide(
        &args.instructions,
        &instructions::Context {
            specs: &specs,
            on_loopback,
            fault: args.fault,
            peer_servers: peer_phase.counts_servers(),
        },
        instructions::valgrind::Valgrind::find,
    );
    if let Some(line) = counting.notice() {
        eprintln!("{line}");
    }
    // A remote target is refused before anything else happens (nothing measured, timed
    // or connected); remote::client checks it again where it connects.
    if let Some(target) = &args.target {
        remote::serve::check_address(&target.addr, target.allow_remote, "--target")?;
    }
    write::check_writable(&args.out)
        .map_err(|e| anyhow::anyhow!("{e:#} (checked before measuring; nothing was run)"))?;

    let stop = Arc::new(AtomicBool::new(false));
    signals::install(stop.clone()).context("could not install the signal handlers")?;
    for dir in arms::peer::private_dir::remove_stale() {
        eprintln!(
            "collector: removed {}, a key folder left by a run that is over",
            dir.display()
        );
    }

    let plan = &args.plan;
    let (samples, seed) = (plan.samples, plan.seed);
    let io_timeout = args.io_timeout;

    let socket_options = sockets::SocketOptions::probe(io_timeout)
        .context("reading back the socket options on a loopback probe connection")?;
    let started = OffsetDateTime::now_utc();
    let load_before = environment::load_average();
    let steal_before = crate::measure::steal::read();
    eprintln!(
        "collector: {} arms × {samples} timed connections ({} rounds, {} warm-up per chunk), writing to {}",
        specs.len(),
        plan.rounds,
        plan.warmup_per_chunk,
        args.out.display()
    );
    // One hop before and after the arms (loopback runs with phase recording).
    let measure_hop = args.phases == PhaseRecording::On && !request && args.target.is_none();
    let hop_before = if measure_hop {
        phases::hop_pass(io_timeout)
    } else {
        phases::HopPass::default()
    };
    // The primitives are timed before the arms and again after them; the floor uses both
    // passes pooled, and the evidence keeps each pass's median.
    let floor_before = if !args.floor {
        Vec::new()
    } else {
        eprintln!("collector: timing the public-key primitives for the crypto floor");
        let mut planned = specs.clone();
        if args.load_arms() {
            planned.push(capacity::base_spec(certs, groups));
        }
        floor::measure_planned(&planned, record::FLOOR_OPS)?
    };
    let mut server_host = None;
    let bind_address = match (&args.target, &args.rtt) {
        (Some(t), _) => t.addr.ip().to_string(),
        (None, Some(_)) => crate::netem::SERVER_ADDR.to_string(),
        (None, None) => "127.0.0.1".to_string(),
    };
    // Made once, for the timed arms and the counting phase.
    let cert_store = match &args.target {
        Some(_) => None,
        None => Some(CertStore::chained(
            specs.iter().filter_map(|s| s.cert()),
            args.chain_depth,
        )?),
    };
    // Other programs' work while the run's own arms are timed (their clients and servers
    // are threads of this process; not watched against a remote target, nor in a run
    // of peer arms alone).
    let watch = match &args.target {
        Some(_) => None,
        None if specs.is_empty() => None,
        None => crate::measure::other_work::Watch::start(),
    };
    let mut arms = if let Some(target) = &args.target {
        let (arms, host) = remote::client::arms(
            target.addr,
            &target.ca,
            &target.token,
            target.allow_remote,
            args.arms.as_deref(),
            plan,
            io_timeout,
            &stop,
        )?;
        server_host = Some(Box::new(host));
        arms
    } else {
        let cert_store = cert_store
            .as_ref()
            .context("certificates for the local arms")?;
        match &args.link {
            Some(grid) => rtt::run(
                &specs,
                (&grid.links, grid.label_loss),
                plan,
                cert_store,
                (io_timeout, args.keepalive_requests),
                args.parallel_links,
                &stop,
            )?,
            None => {
                let opts = SessionOptions {
                    keepalive_requests: args.keepalive_requests,
                    ..SessionOptions::loopback(io_timeout, request)
                };
                measure::arms(&specs, plan, cert_store, &opts, &stop)?
            }
        }
    };
    let other_work = watch.and_then(|w| w.finish());
    placement::mark_control(&mut arms, &control);
    let hop_after = if measure_hop && !stop.load(Ordering::SeqCst) {
        phases::hop_pass(io_timeout)
    } else {
        phases::HopPass::default()
    };
    if args.load_arms() && !stop.load(Ordering::SeqCst) {
        let spec = capacity::base_spec(certs, groups);
        let spec = ArmSpec {
            fault: match args.capacity_drops {
                Some(n) => Fault::DropEvery(n),
                None => specs.first().map_or(Fault::None, |s| s.fault),
            },
            ..spec
        };
        let cert_store = CertStore::chained(spec.cert(), args.chain_depth)?;
        arms.extend(capacity::arms(
            &spec,
            &args.capacity.concurrency,
            args.capacity.seconds,
            &cert_store,
            io_timeout,
            &stop,
        )?);
        if !args.open_loop.rates.is_empty() {
            arms.extend(open_loop::arms(&spec, &args.open_loop, &cert_store, &stop)?);
        }
    }
    // The peer servers are counted in their phase, with the counting phase's plan.
    let whole = match &counting {
        instructions::Decision::Count(p) => Some(instructions::whole::WholeCounter::new(
            &p.valgrind,
            p.handshakes,
            p.warmup,
        )),
        _ => None,
    };
    let mut peer = peer_phase.run(&arms::peer::Context {
        quick: args.quick,
        rounds: plan.rounds,
        warmup_per_chunk: plan.warmup_per_chunk,
        seed,
        bootstrap: args.bootstrap as usize,
        noise: plan.noise,
        io_timeout,
        stop: &stop,
        counter: whole.as_ref().map(|w| w as &dyn arms::peer::ProcessCounter),
    })?;
    arms.append(&mut peer.arms);
    let interrupted = stop.load(Ordering::SeqCst);
    let mut primitives = Vec::new();
    if args.floor && !interrupted {
        eprintln!("collector: timing the public-key primitives again, after the arms");
        let after = floor::measure(&arms, record::FLOOR_OPS)?;
        primitives = floor::primitives::pooled(&floor_before, &after);
        arms.iter_mut().for_each(|a| floor::apply(a, &primitives));
    }
    let counted = instructions::phase::run(counting, cert_store.as_ref(), &mut arms, &stop)?;
    let interrupted = stop.load(Ordering::SeqCst);
    let hop = phases::finish(&mut arms, &hop_before, &hop_after)?;
    let finished = OffsetDateTime::now_utc();
    evidence::apply_cis(&mut arms, args.bootstrap as usize, seed);
    evidence::loss_effect::apply(&mut arms, args.bootstrap as usize, seed);
    let mut comparisons = evidence::comparisons(&arms, args.bootstrap as usize, seed);
    comparisons.append(&mut peer.comparisons);
    let mut environment = environment::collect(load_before);
    environment.steal_percent =
        crate::measure::steal::per_cpu(&steal_before, &crate::measure::steal::read());
    environment.peers = peer.peers;
    environment.server_host = server_host;
    environment.other_work = other_work;
    let mut run = Run {
        id: record::run_id(started, &environment.hostname),
        started_at: record::rfc3339(started),
        finished_at: record::rfc3339(finished),
        complete: !interrupted,
        tool: Tool {
            name: "collector".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_commit: Some(env!("LAB_GIT_COMMIT").to_string()).filter(|c| !c.is_empty()),
        },
        command_line: std::env::args().collect(),
        settings: record::settings(
            &args,
            &record::Context {
                interrupted,
                arms: &arms,
                bind_address,
                sockets: socket_options,
            },
        ),
        kind: None,
        setup: None,
        conditions: None,
    };
    run.settings.extra.append(&mut peer.settings);
    run.settings.placement = Some(cpu.record());
    run.settings.instructions = Some(counted);
    let evidence = Evidence {
        schema_version: SCHEMA_VERSION,
        run,
        environment,
        arms,
        comparisons,
        primitives,
        hop,
        probe: None,
        summary: false,
    };
    let mut evidence = evidence::with_setup(evidence);
    evidence.run.conditions = Some(shared::conditions::of(&evidence));
    finish(&args.out, &evidence, finished - started, interrupted)
}

/// Writes the evidence, prints the summary, and turns the outcome into an exit status:
/// 130 after Ctrl-C (143 after SIGTERM, 129 after SIGHUP: see `signals`), which takes
/// precedence over 3 when an arm's evidence has an error it was not meant to have.
fn finish(
    out: &std::path::Path,
    evidence: &Evidence,
    took: time::Duration,
    interrupted: bool,
) -> Result<ExitCode> {
    let violations = evidence.violations();
    if !violations.is_empty() {
        // Never written as a normal run: set aside, out of the index, and exit 1.
        let path = write::write_invalid(out, evidence)?;
        let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
        bail!(
            "internal error: the evidence breaks its own invariants, so it was not added to \
             the results; kept for a bug report as {}: {}",
            path.display(),
            list.join("; ")
        );
    }
    let (path, warning) = write::write_run(out, evidence)?;
    if let Some(w) = warning {
        eprintln!("collector: warning: {w}");
    }
    print!("{}", report::summary(evidence));
    println!(
        "\nevidence: {} ({:.1} s, load average {:.2} → {:.2})",
        path.display(),
        took.as_seconds_f64(),
        evidence.environment.load_average.before[0],
        evidence.environment.load_average.after[0]
    );
    let broken: Vec<&str> = evidence
        .arms
        .iter()
        .filter(|a| a.error.is_some() && a.known_pitfall.is_none())
        .map(|a| a.id.as_str())
        .collect();
    if interrupted {
        eprintln!(
            "collector: stopped by {}; the evidence above is partial (complete: false)",
            signals::name()
        );
        return Ok(ExitCode::from(
            signals::exit_status().unwrap_or(EXIT_INTERRUPTED),
        ));
    }
    if !broken.is_empty() {
        eprintln!(
            "collector: error: {} arm(s) did not measure what they claim: {}",
            broken.len(),
            broken.join(", ")
        );
        return Ok(ExitCode::from(EXIT_ARM_ERROR));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
#[path = "finish_tests.rs"]
mod finish_tests;
