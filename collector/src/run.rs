//! `collector run`: plan, measure, write evidence, summarize.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use shared::{CertKind, Evidence, KxGroup, Run, Settings, Tool, SCHEMA_VERSION};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::arms::{self, ArmSpec, Fault, SessionOptions};
use crate::certs::{self, CertStore};
use crate::cli::RunArgs;
use crate::evidence::{self, environment, write};
use crate::floor;
use crate::measure::{self, capacity, rtt, stats, Plan};
use crate::peers;
use crate::remote;
use crate::report;

/// Timed operations per primitive for the crypto floor.
const FLOOR_OPS: usize = 300;

/// Exit status when an arm's evidence carries an error.
pub const EXIT_ARM_ERROR: u8 = 3;
/// Exit status after Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let (certs, groups) = if args.matrix {
        (CertKind::ALL.to_vec(), KxGroup::ALL.to_vec())
    } else {
        (args.set.certs.clone(), args.set.groups.clone())
    };
    let rtts = args.rtt.as_deref().map(parse_rtts).transpose()?;
    let request = args.request || rtts.is_some();
    // Peer tools are looked up before measuring (`--require-peers` fails fast); peer
    // arms run on plain loopback only.
    let on_loopback = rtts.is_none() && args.target.is_none();
    let peer_phase = peers::Phase::prepare(
        &args.peers,
        &certs,
        &groups,
        args.arms.as_deref(),
        on_loopback,
    )?;
    let mut specs = arms::default_set(&certs, &groups, request);
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
    if args.list_arms {
        for s in &specs {
            println!("{s}");
        }
        peer_phase.ids().iter().for_each(|id| println!("{id}"));
        return Ok(ExitCode::SUCCESS);
    }
    if args.break_resumption {
        specs
            .iter_mut()
            .for_each(|s| s.fault = Fault::NoSessionStore);
    }
    write::check_writable(&args.out)
        .map_err(|e| anyhow::anyhow!("{e:#} (checked before measuring; nothing was run)"))?;

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            peers::private_dir::remove_all_now();
            std::process::exit(EXIT_INTERRUPTED as i32);
        }
        eprintln!(
            "\ncollector: interrupted; saving what was measured (Ctrl-C again to quit at once)"
        );
    })
    .context("could not install the Ctrl-C handler")?;

    // Over an emulated RTT each connection takes several round trips: fewer samples.
    let samples = args.samples.unwrap_or(match (rtts.is_some(), args.quick) {
        (true, true) => 8,
        (true, false) => 20,
        (false, true) => 100,
        (false, false) => 1000,
    });
    let warmup = args.warmup.unwrap_or(match (rtts.is_some(), args.quick) {
        (true, _) => 4,
        (false, true) => 20,
        (false, false) => 100,
    });
    let rounds = if args.quick {
        args.rounds.min(5)
    } else {
        args.rounds
    }
    .min(samples);
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let plan = Plan {
        samples,
        warmup_per_chunk: warmup.div_ceil(rounds).max(1),
        rounds,
        seed,
        request,
    };
    let io_timeout = Duration::from_millis(args.io_timeout_ms);

    let started = OffsetDateTime::now_utc();
    let load_before = environment::load_average();
    eprintln!(
        "collector: {} arms × {samples} timed connections ({} rounds, {} warm-up per chunk), writing to {}",
        specs.len(),
        plan.rounds,
        plan.warmup_per_chunk,
        args.out.display()
    );
    let mut server_host = None;
    let mut arms = if let Some(target) = args.target {
        let ca = args.ca.as_deref().context("--target needs --ca")?;
        let (arms, host) = remote::client::arms(
            target,
            ca,
            args.allow_remote,
            args.arms.as_deref(),
            &plan,
            io_timeout,
            &stop,
        )?;
        server_host = Some(Box::new(host));
        arms
    } else {
        let cert_store = CertStore::generate(specs.iter().filter_map(|s| s.cert))?;
        match &rtts {
            Some(rtts) => rtt::run(&specs, rtts, &plan, &cert_store, io_timeout, &stop)?,
            None => {
                let opts = SessionOptions::loopback(io_timeout, args.request);
                measure::arms(&specs, &plan, &cert_store, &opts, &stop)?
            }
        }
    };
    if !args.concurrency.is_empty() && !stop.load(Ordering::SeqCst) {
        let spec = capacity::base_spec(&certs, &groups);
        let spec = ArmSpec {
            fault: specs.first().map_or(Fault::None, |s| s.fault),
            ..spec
        };
        let cert_store = CertStore::generate(spec.cert)?;
        arms.extend(capacity::arms(
            &spec,
            &args.concurrency,
            args.capacity_seconds,
            &cert_store,
            io_timeout,
            &stop,
        )?);
    }
    let mut peer = peer_phase.run(&peers::Context {
        quick: args.quick,
        rounds,
        warmup_per_chunk: plan.warmup_per_chunk,
        seed,
        bootstrap: args.bootstrap as usize,
        io_timeout,
        stop: &stop,
    })?;
    arms.append(&mut peer.arms);
    let interrupted = stop.load(Ordering::SeqCst);
    let mut primitives = Vec::new();
    if !args.no_floor && !interrupted {
        eprintln!("collector: timing the public-key primitives for the crypto floor");
        primitives = floor::measure(&arms, FLOOR_OPS)?;
        arms.iter_mut().for_each(|a| floor::apply(a, &primitives));
    }
    let finished = OffsetDateTime::now_utc();
    let mut comparisons = evidence::comparisons(&arms, args.bootstrap as usize, seed);
    comparisons.append(&mut peer.comparisons);
    let mut environment = environment::collect(load_before);
    environment.peers = peer.peers;
    environment.server_host = server_host;
    let mut run = Run {
        id: run_id(started, &environment.hostname),
        started_at: rfc3339(started),
        finished_at: rfc3339(finished),
        complete: !interrupted,
        tool: Tool {
            name: "collector".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_commit: Some(env!("LAB_GIT_COMMIT").to_string()).filter(|c| !c.is_empty()),
        },
        command_line: std::env::args().collect(),
        settings: settings(
            &args,
            &plan,
            warmup,
            io_timeout,
            interrupted,
            &arms,
            (&certs, &groups),
        ),
    };
    run.settings.extra.append(&mut peer.settings);
    let evidence = Evidence {
        schema_version: SCHEMA_VERSION,
        run,
        environment,
        arms,
        comparisons,
        primitives,
    };
    let violations = evidence.violations();
    let (path, warning) = write::write_run(&args.out, &evidence)?;
    if let Some(w) = warning {
        eprintln!("collector: warning: {w}");
    }
    print!("{}", report::summary(&evidence));
    println!(
        "\nevidence: {} ({:.1} s, load average {:.2} → {:.2})",
        path.display(),
        (finished - started).as_seconds_f64(),
        evidence.environment.load_average.before[0],
        evidence.environment.load_average.after[0]
    );
    if !violations.is_empty() {
        bail!(
            "internal error: the evidence written to {} breaks its own invariants: {violations:?}",
            path.display()
        );
    }
    let broken: Vec<&str> = evidence
        .arms
        .iter()
        .filter(|a| a.error.is_some() && a.known_pitfall.is_none())
        .map(|a| a.id.as_str())
        .collect();
    if interrupted {
        eprintln!("collector: interrupted; the evidence above is partial (complete: false)");
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
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

/// `--rtt 0,1,10,50ms` (or `20`, `20ms`): round-trip times in milliseconds.
pub fn parse_rtts(text: &str) -> Result<Vec<Duration>> {
    text.split(',')
        .map(|v| {
            let v = v.trim();
            let ms: f64 = v.strip_suffix("ms").unwrap_or(v).trim().parse().map_err(|_| {
                anyhow::anyhow!("--rtt `{text}`: `{v}` is not a number of milliseconds (e.g. `0,1,10,50ms`)")
            })?;
            if !(0.0..=10_000.0).contains(&ms) {
                bail!("--rtt `{text}`: {ms} ms is outside 0..=10000 ms");
            }
            Ok(Duration::from_secs_f64(ms / 1000.0))
        })
        .collect()
}

fn settings(
    args: &RunArgs,
    plan: &Plan,
    warmup: u64,
    io_timeout: Duration,
    interrupted: bool,
    arms: &[shared::Arm],
    (certs, groups): (&[CertKind], &[KxGroup]),
) -> Settings {
    let mut extra = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        extra.insert(k.to_string(), v);
    };
    put(
        "build_profile",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .into(),
    );
    put("warmup_per_chunk", plan.warmup_per_chunk.to_string());
    put(
        "arm_order",
        "every round visits every arm once, in an order shuffled per round from the seed".into(),
    );
    put("certificates", certs::DESCRIPTION.into());
    put("server_config", "rustls defaults: in-memory session cache of 256, 2 TLS 1.3 tickets per handshake; ticket arms add the aws-lc-rs Ticketer (TLS 1.2 RFC 5077 tickets / TLS 1.3 stateless PSK); no client auth; one server thread per arm, one connection at a time".into());
    put("client_config", "rustls ClientConfig per arm; full arms: resumption disabled; resumed arms: in-memory cache of 256 sessions, TLS 1.2 session IDs or tickets; SNI localhost; WebPKI verification against the run's CA".into());
    put("io_timeout_ms", io_timeout.as_millis().to_string());
    put(
        "fault",
        if args.break_resumption {
            "no-session-store (--break-resumption)"
        } else {
            "none"
        }
        .into(),
    );
    put("matrix", args.matrix.to_string());
    if !args.no_floor {
        put("crypto_floor", format!("{FLOOR_OPS} timed operations per primitive (RSA-3072/4096 signing: 1/2 and 1/4 of that), median, same aws-lc-rs as the handshakes, after the arms ran; floor = sum along the handshake's critical path"));
    }
    if !args.concurrency.is_empty() {
        put("capacity", format!("clients {:?}, {} s each, one server worker per client, {} untimed warm-up connections per client", args.concurrency, args.capacity_seconds, capacity::WARMUP_PER_CLIENT));
    }
    if interrupted {
        let done: u64 = arms.iter().map(|a| a.attempted).sum();
        put(
            "interrupted",
            format!("Ctrl-C after {done} timed connections"),
        );
    }
    Settings {
        samples: plan.samples,
        warmup,
        rounds: plan.rounds,
        tcp_nodelay: true,
        so_linger_zero: true,
        bind_address: "127.0.0.1".into(),
        gap_between_connections_us: 0,
        app_data_bytes: 1,
        server_threads: 1,
        client_threads: 1,
        clock: "std::time::Instant (CLOCK_MONOTONIC)".into(),
        percentile_definition: stats::PERCENTILE_DEFINITION.into(),
        ci_method: stats::CI_METHOD.into(),
        bootstrap_seed: plan.seed,
        bootstrap_resamples: args.bootstrap,
        certs: certs.to_vec(),
        kx_groups: groups.to_vec(),
        arms_filter: args.arms.clone(),
        extra,
    }
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}

/// `20261130T024512Z-<host>-<4 hex>`, safe as a file name.
fn run_id(t: OffsetDateTime, host: &str) -> String {
    let host: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z-{host}-{:04x}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        fastrand::u16(..)
    )
}
