//! `collector probe HOST:PORT`: the lab's client-side arms against a server it does not
//! run. Discovery first (what the server offers, a few paced connections), then the
//! arms it offers through the shared timing loop, with TCP connect as the round trip
//! every figure is also given in multiples of. Evidence is schema v1 with
//! `server_stack: "remote"`.

pub mod args;
mod discover;
mod report;
mod settings;
mod trust;

use std::collections::BTreeMap;
use std::net::ToSocketAddrs;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use shared::{Arm, Evidence, Mode, Protocol, Resumption, Run, ServerProbe, Stack, Tool};
use time::OffsetDateTime;

use crate::arms::remote::{self, Check, Client, Pacer, RemoteSession, RemoteTcp, Resume, Target};
use crate::arms::{ArmKind, ArmSpec, Fault, PhaseRecording, Session, Unpinned};
use crate::arms::{ArmRun, Plan};
use crate::evidence::{self, environment, write};
use crate::measure;
use crate::run::record;
use args::ProbeArgs;
use trust::Timing;

/// The `round_group` of a probe's arms.
pub const PROBE_LOOP: &str = "probe";

/// Who checks a probe's connections.
pub const VERIFIED_ON: &str = "client end only: the server is not the lab's, so each connection is checked on what the client's rustls reported (handshake kind, version, group, early data accepted); the server's own view (e.g. its resumption counters) is not seen";

pub fn probe(args: ProbeArgs) -> Result<ExitCode> {
    let (host, port) = args::split_target(&args.target).map_err(|e| anyhow!(e))?;
    let sni = args.sni.clone().unwrap_or_else(|| host.clone());
    let name = remote::check_name(&sni)?;
    let addr = (host.as_str(), port)
        .to_socket_addrs()
        .with_context(|| format!("resolving {host}"))?
        .next()
        .with_context(|| format!("{host} resolved to no address"))?;
    let (roots, roots_in_words) = settings::roots(&args)?;
    write::check_writable(&args.out)
        .map_err(|e| anyhow!("{e:#} (checked before probing; nothing was sent)"))?;
    let io_timeout = Duration::from_millis(args.io_timeout_ms);
    let target = Arc::new(Target {
        addr,
        name,
        roots: Arc::new(roots),
        io_timeout,
        pacer: Pacer::new(Duration::from_millis(args.pause_ms), args.rate),
    });
    let started = OffsetDateTime::now_utc();
    let load_before = environment::load_average();
    eprintln!("collector: probing {host}:{port} ({addr}, SNI {sni}): what does it offer?");
    RemoteTcp {
        target: target.clone(),
    }
    .connect_once()
    .with_context(|| format!("{host}:{port} cannot be reached; nothing was measured"))?;
    let d = discover::discover(&target)?;
    let timing = Timing::decide(d.trust.as_ref(), args.insecure);
    let check = match timing {
        Timing::Unverified => Check::Skip,
        _ => Check::Verify,
    };
    if let Timing::Refused(why) = &timing {
        eprintln!("collector: TLS arms not timed: {why}");
    }
    let plan = Plan {
        samples: args.samples,
        warmup_per_chunk: args.warmup_per_chunk,
        rounds: args.rounds.min(args.samples),
        seed: args.seed.unwrap_or_else(|| fastrand::u64(..)),
        request: false,
        trace_every: 0,
        noise: None,
    };
    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = vec![(
        ArmSpec::TCP_CONNECT,
        Box::new(RemoteTcp {
            target: target.clone(),
        }),
    )];
    let mut skipped: Vec<(ArmSpec, String)> = Vec::new();
    for (protocol, mode, resumption, early, capability, resume) in ARMS {
        // The server's certificate is not one of the lab's: unpinned.
        let spec = ArmSpec {
            kind: ArmKind::Unpinned(Unpinned {
                protocol,
                mode,
                resumption,
                cert: None,
                group: d.group.get(&protocol).copied(),
                early_data: early,
            }),
            fault: Fault::None,
            phases: PhaseRecording::Off,
            cpu: None,
        };
        if let Err(why) = d.offers(&protocol.to_string()) {
            skipped.push((spec, why));
            continue;
        }
        let Some(&group) = d.group.get(&protocol) else {
            skipped.push((
                spec,
                format!("no {protocol} handshake with any group the collector offers alone"),
            ));
            continue;
        };
        match (d.offers(capability), &timing) {
            (Ok(()), Timing::Refused(why)) => skipped.push((spec, why.clone())),
            (Ok(()), _) => {
                let client = Client::new(
                    target.clone(),
                    &[protocol],
                    Some(&[group]),
                    resume,
                    early,
                    check,
                )?;
                sessions.push((spec, Box::new(RemoteSession { client })));
            }
            (Err(why), _) => skipped.push((spec, why)),
        }
    }
    eprintln!(
        "collector: {} arms × {} timed connections ({} rounds, {} warm-up per chunk), at most {} per second, {} ms apart",
        sessions.len(),
        plan.samples,
        plan.rounds,
        plan.warmup_per_chunk,
        args.rate,
        args.pause_ms
    );
    let specs: BTreeMap<String, ArmSpec> = sessions
        .iter()
        .map(|(s, _)| *s)
        .chain(skipped.iter().map(|(s, _)| *s))
        .map(|s| (s.id(), s))
        .collect();
    let never = AtomicBool::new(false);
    let mut arms = measure::measure_sessions(&mut sessions, &plan, PROBE_LOOP, &never);
    for (spec, why) in skipped {
        let mut arm = evidence::build_arm(&ArmRun::new(spec, 0));
        arm.skipped = Some(why);
        arm.warmup_attempted = Some(0);
        arms.push(arm);
    }
    for arm in &mut arms {
        arm.stack = Stack::Remote;
        arm.server_stack = Stack::Remote;
        arm.client_stack = if arm.protocol == Protocol::Tcp {
            Stack::KernelTcp
        } else {
            Stack::Rustls
        };
        if let Some(spec) = specs.get(&arm.id) {
            arm.timed_window = remote::timed_window(spec).to_string();
        }
        arm.phase_recording = None;
    }
    let finished = OffsetDateTime::now_utc();
    evidence::apply_cis(&mut arms, args.bootstrap as usize, plan.seed);
    let comparisons = evidence::comparisons(&arms, args.bootstrap as usize, plan.seed);
    let rtt = arms
        .iter()
        .find(|a| a.protocol == Protocol::Tcp)
        .and_then(|a| a.latency_us)
        .map(|l| l.p50);
    let rtt_multiples: BTreeMap<String, f64> = arms
        .iter()
        .filter_map(|a| Some((a.id.clone(), a.latency_us?.p50 / rtt?)))
        .collect();
    let certificate_trust = trust::finding(d.trust.as_ref());
    let findings = report::findings(
        &d,
        certificate_trust.as_ref(),
        &timing.describe(&roots_in_words, &sni),
    );
    let verification: BTreeMap<String, shared::CertVerification> = arms
        .iter()
        .filter(|a| a.protocol != Protocol::Tcp && a.skipped.is_none())
        .filter_map(|a| Some((a.id.clone(), timing.record()?)))
        .collect();
    let probe = ServerProbe {
        host: host.clone(),
        port,
        address: addr.to_string(),
        sni,
        trust: roots_in_words,
        verified_on: VERIFIED_ON.into(),
        protocols: d.protocols.clone(),
        groups: d.groups.clone(),
        resumption: d.resumption.clone(),
        early_data: d.early_data.clone(),
        cipher_suites: d.cipher_suites.clone(),
        signature_schemes: d.signature_schemes.clone(),
        chain_certificates: d.chain.map(|c| c.0),
        chain_bytes: d.chain.map(|c| c.1),
        rtt_reference_us: rtt,
        rtt_multiples,
        findings: findings.clone(),
        sent: settings::sent(&args, &host),
        certificate_trust,
        verification,
    };
    let mut environment = environment::collect(load_before);
    environment.peers = Vec::new();
    let run = Run {
        id: record::run_id(started, &environment.hostname),
        started_at: record::rfc3339(started),
        finished_at: record::rfc3339(finished),
        complete: true,
        tool: Tool {
            name: "collector".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_commit: Some(env!("LAB_GIT_COMMIT").to_string()).filter(|c| !c.is_empty()),
        },
        command_line: std::env::args().collect(),
        settings: settings::settings(
            &args,
            &plan,
            &probe,
            &timing,
            &d.group.values().copied().collect::<Vec<_>>(),
            target.pacer.connections(),
        ),
        kind: None,
        setup: None,
        conditions: None,
    };
    let evidence = Evidence {
        schema_version: shared::SCHEMA_VERSION,
        run,
        environment,
        arms,
        comparisons,
        primitives: Vec::new(),
        hop: None,
        probe: Some(probe),
        summary: false,
    };
    let evidence = crate::evidence::with_setup(evidence);
    finish(&args, &evidence)
}

/// An arm a probe can run: protocol, mode, resumption, early data, the capability it
/// needs, and how its client resumes.
type ProbeArm = (
    Protocol,
    Mode,
    Option<Resumption>,
    bool,
    &'static str,
    Resume,
);

/// The arms a probe can run, and the capability each needs.
const ARMS: [ProbeArm; 6] = [
    (
        Protocol::Tls13,
        Mode::Full,
        None,
        false,
        "tls1.3",
        Resume::Off,
    ),
    (
        Protocol::Tls12,
        Mode::Full,
        None,
        false,
        "tls1.2",
        Resume::Off,
    ),
    (
        Protocol::Tls13,
        Mode::Resumed,
        Some(Resumption::Ticket),
        false,
        "tls1.3 tickets",
        Resume::Tls13,
    ),
    (
        Protocol::Tls12,
        Mode::Resumed,
        Some(Resumption::Stateful),
        false,
        "tls1.2 session ids",
        Resume::Tls12SessionId,
    ),
    (
        Protocol::Tls12,
        Mode::Resumed,
        Some(Resumption::Ticket),
        false,
        "tls1.2 tickets",
        Resume::Tls12Ticket,
    ),
    (
        Protocol::Tls13,
        Mode::Resumed,
        Some(Resumption::Stateful),
        true,
        "0-rtt accepted",
        Resume::Tls13,
    ),
];

fn finish(args: &ProbeArgs, evidence: &Evidence) -> Result<ExitCode> {
    let violations = evidence.violations();
    if !violations.is_empty() {
        let path = write::write_invalid(&args.out, evidence)?;
        let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
        bail!(
            "internal error: the evidence breaks its own invariants; kept as {}: {}",
            path.display(),
            list.join("; ")
        );
    }
    let (path, warning) = write::write_run(&args.out, evidence)?;
    if let Some(w) = warning {
        eprintln!("collector: warning: {w}");
    }
    print!("{}", crate::report::summary(evidence));
    if let Some(p) = &evidence.probe {
        print!("{}", report::print(p, &evidence.arms));
    }
    println!("\nevidence: {}", path.display());
    let broken: Vec<&str> = evidence
        .arms
        .iter()
        .filter(|a: &&Arm| a.error.is_some())
        .map(|a| a.id.as_str())
        .collect();
    if !broken.is_empty() {
        eprintln!(
            "collector: error: {} arm(s) did not measure what they claim: {}",
            broken.len(),
            broken.join(", ")
        );
        return Ok(ExitCode::from(crate::run::EXIT_ARM_ERROR));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
#[path = "rtt_tests.rs"]
mod rtt_tests;
