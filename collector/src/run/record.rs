//! What a run records about itself: identity, timestamps and every setting that moves
//! a number.

use std::collections::BTreeMap;

use shared::Settings;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::options::RunOptions;
use crate::arms::Plan;
use crate::arms::{Fault, PhaseRecording, REQUEST, RESPONSE};
use crate::certs;
use crate::measure::capacity;
use crate::stats;

/// Timed operations per primitive for the crypto floor.
pub const FLOOR_OPS: usize = 300;

/// Where the servers were and what the run measured, beyond the flags.
pub struct Context<'a> {
    pub interrupted: bool,
    pub arms: &'a [shared::Arm],
    /// The servers' address (loopback, the emulated path's server side, or the target).
    pub bind_address: String,
    /// The socket options as read back before measuring.
    pub sockets: super::sockets::SocketOptions,
}

pub fn settings(args: &RunOptions, cx: &Context) -> Settings {
    let Context {
        interrupted, arms, ..
    } = *cx;
    let (plan, warmup, io_timeout) = (&args.plan, args.warmup, args.io_timeout);
    let (certs, groups) = (&args.certs, &args.groups);
    let mut extra = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        extra.insert(k.to_string(), v);
    };
    put("build_profile", crate::evidence::BUILD_PROFILE.into());
    put("warmup_per_chunk", plan.warmup_per_chunk.to_string());
    if warmup != planned_warmup(plan) {
        put(
            "warmup_asked",
            format!(
                "{warmup} per arm (--warmup), done as {} before each of the {} chunks",
                plan.warmup_per_chunk, plan.rounds
            ),
        );
    }
    put("socket_options", cx.sockets.describe());
    put(
        "arm_order",
        "every round visits every arm once, in an order shuffled per round from the seed".into(),
    );
    put("certificates", certs::DESCRIPTION.into());
    put("chain_depth", args.chain_depth.to_string());
    put("server_config", "rustls defaults: in-memory session cache of 256, 2 TLS 1.3 tickets per handshake; ticket arms add the aws-lc-rs Ticketer (TLS 1.2 RFC 5077 tickets / TLS 1.3 stateless PSK); no client auth; one server thread per arm, one connection at a time".into());
    put("client_config", "rustls ClientConfig per arm; full arms: resumption disabled; resumed arms: in-memory cache of 256 sessions, TLS 1.2 session IDs or tickets; SNI localhost; WebPKI verification against the run's CA".into());
    put("io_timeout_ms", io_timeout.as_millis().to_string());
    put(
        "fault",
        match args.fault {
            Fault::NoSessionStore => "no-session-store (--break-resumption)",
            Fault::NoEarlyData => "no-early-data (--refuse-early-data)",
            Fault::None | Fault::DropEvery(_) => "none",
        }
        .into(),
    );
    if let Some(n) = args.capacity_drops {
        put(
            "capacity_fault",
            format!("the capacity servers close 1 in {n} connections unserved (--inject-capacity-drops {n})"),
        );
    }
    put("matrix", args.matrix.to_string());
    // Cells of protocol × cert × group that have no arm, and why.
    let tls13_only: Vec<&str> = groups
        .iter()
        .filter(|g| crate::arms::tls13_only(**g))
        .map(|g| g.as_str())
        .collect();
    let tls13_certs: Vec<&str> = certs
        .iter()
        .filter(|c| crate::arms::cell::tls13_only_cert(**c))
        .map(|c| c.as_str())
        .collect();
    let mut not_measured = Vec::new();
    if !tls13_only.is_empty() {
        not_measured.push(format!(
            "tls1.2 × {} (every cert): a TLS 1.3-only group, with no TLS 1.2 code point; the TLS 1.2 arms of the other groups are measured",
            tls13_only.join(", ")
        ));
    }
    if !tls13_certs.is_empty() {
        not_measured.push(format!(
            "tls1.2 × {} (every group): ML-DSA has TLS 1.3 signature schemes only",
            tls13_certs.join(", ")
        ));
    }
    if !not_measured.is_empty() {
        put("cells_not_measured", not_measured.join("; "));
    }
    put(
        "phase_recording",
        if args.phases == PhaseRecording::Off {
            "off (--no-phases)".into()
        } else if plan.request {
            "off: phases are recorded for handshake windows, not in request/response mode".into()
        } else if args.rtt.is_some() {
            "off: phases are recorded on loopback only (their model's hops are loopback's, not an emulated link's)".into()
        } else {
            format!("on, for traced connections only: in each rustls arm, one traced connection after every {}th untraced one of the arm (counted across its chunks, in the same rounds) stamps its moments on both ends (CLOCK_MONOTONIC wall time, CLOCK_THREAD_CPUTIME_ID thread CPU); the arm's samples, percentiles, CIs and comparisons come from the untraced connections, the phases and their model from the traced ones, and each arm's `tracing.cost_us` is the difference of the two medians", plan.trace_every)
        },
    );
    put("phase_model", crate::measure::decompose::MODEL.into());
    let cpu = crate::cpu::plan();
    put(
        "cpu_placement",
        match &cpu.reason {
            Some(why) => format!("{} (asked {}: {why})", cpu.applied, cpu.asked),
            None if cpu.client.is_empty() => format!("{}: no affinity set", cpu.applied),
            None => format!(
                "{}: client threads on CPUs {:?}, every server (threads and peer processes) on CPUs {:?}",
                cpu.applied, cpu.client, cpu.server
            ),
        },
    );
    put(
        "request_mode",
        if plan.request {
            format!("on: the client sends {} request bytes after the handshake (0-RTT arms: as early data) and the timed window ends at the first of the {} response bytes; the server then writes one more byte after its handshake completes, read untimed before the close", REQUEST.len(), RESPONSE.len())
        } else {
            "off: the server writes 1 application byte after the handshake, read after the timer"
                .into()
        },
    );
    if plan.request && args.target.is_none() {
        put(
            "keepalive",
            format!("{} requests per connection (--keepalive-requests): keep-alive arms (mode keepalive) make one full handshake per connection, then send the requests one after the other, each after the previous response; a sample is the mean time per request after the first (write to first response byte); each arm's `keepalive` has the first request's TTFB and the cost per request of the whole connection", args.keepalive_requests),
        );
    }
    let keepalive = crate::evidence::keepalive::findings(arms);
    if !keepalive.is_empty() {
        put("keepalive_findings", keepalive.join(" · "));
    }
    if let Some(rtt) = &args.rtt {
        put(
            "rtt",
            format!(
                "{} (interleaved in the same rounds, unless --parallel-links); method: {}; in both namespaces {} (set and read back at setup)",
                rtt.text,
                crate::netem::METHOD,
                crate::netem::netns::applied()
            ),
        );
    }
    if let Some(grid) = args.link.as_ref().filter(|g| !g.text.is_empty()) {
        put(
            "link",
            format!(
                "{} ({} links: every RTT at every loss rate{}, {}; each arm's `link` has its settings, seed and packet counts; in both namespaces {}, set and read back at setup, so the kernel's per-destination TCP metrics cache carries nothing from one connection to the next)",
                grid.text,
                grid.links.len(),
                if grid.control_added { ", a 0% control added at each RTT" } else { "" },
                match args.parallel_links.min(grid.links.len()) {
                    0 | 1 => "all interleaved in the same shuffled rounds on one path (round_group link-grid), each cell's servers on a link of their own; one connection at a time".to_string(),
                    n => format!("{n} at a time (--parallel-links), each on a path of its own (namespaces, TUN devices, relay threads), longest RTT and loss first; connections of different links overlap in time, those of one link never do"),
                },
                crate::netem::netns::applied(),
            ),
        );
    }
    let link = crate::evidence::link::findings(arms);
    if !link.is_empty() {
        put("link_findings", link.join(" · "));
    }
    let loss = crate::evidence::loss::findings(arms);
    if !loss.is_empty() {
        put("loss_findings", loss.join(" · "));
    }
    let populations = crate::evidence::loss::populations(arms);
    if !populations.is_empty() {
        put("loss_populations", populations.join(" · "));
    }
    if let Some(target) = &args.target {
        put(
            "target",
            format!(
                "collector serve at {}; server-side handshake reports over its control connection",
                target.addr
            ),
        );
    }
    if args.floor {
        put("crypto_floor", format!("every primitive timed in two passes of {FLOOR_OPS} operations (RSA-3072/4096 signing: 1/2 and 1/4 of that), one before the arms ran and one after them (median_before_us, median_after_us); median_us, which the floor uses, is the median of both passes pooled; same aws-lc-rs as the handshakes, signatures with rustls's signer and verifier in the scheme the handshake uses; floor = sum along the handshake's critical path"));
    }
    if !args.capacity.concurrency.is_empty() {
        put("capacity", format!("clients {:?}, {} s each, one server worker per client, {} untimed warm-up connections per client; a connection counts only with the server's report for it (a missing or failed one is a failed connection, an empty one an error); per_second counts handshakes completed inside the window, after_window the rest; client and server threads run in this one process and share this host's CPUs, the clients on the client CPUs and the server workers on the server CPUs of --placement (capacity.cpu_sharing)", args.capacity.concurrency, args.capacity.seconds, capacity::WARMUP_PER_CLIENT));
    }
    if !args.open_loop.rates.is_empty() {
        put("open_loop", args.open_loop.describe());
        let knees: Vec<String> = shared::open_loop::sweeps(arms)
            .iter()
            .map(|s| format!("{}: {}", s.label, s.knee()))
            .collect();
        if !knees.is_empty() {
            put("open_loop_knee", knees.join(" · "));
        }
    }
    if interrupted {
        let done: u64 = arms.iter().map(|a| a.attempted).sum();
        put(
            "interrupted",
            format!("{} after {done} timed connections", super::signals::name()),
        );
    }
    Settings {
        samples: plan.samples,
        warmup: planned_warmup(plan),
        rounds: plan.rounds,
        tcp_nodelay: cx.sockets.nodelay(),
        so_linger_zero: cx.sockets.linger_zero(),
        bind_address: cx.bind_address.clone(),
        gap_between_connections_us: 0,
        app_data_bytes: if plan.request {
            (RESPONSE.len() + crate::arms::END.len()) as u64
        } else {
            1
        },
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
        noise: plan.noise,
        placement: None,
        instructions: None,
        extra,
    }
}

/// Untimed connections the plan makes per interleaved arm: one batch before each chunk.
fn planned_warmup(plan: &Plan) -> u64 {
    plan.warmup_per_chunk * plan.rounds
}

pub fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339)
        .unwrap_or_else(|_| t.unix_timestamp().to_string())
}

/// `20261130T024512Z-<host>-<4 hex>`, safe as a file name.
pub fn run_id(t: OffsetDateTime, host: &str) -> String {
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
