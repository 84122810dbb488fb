//! A small, internally consistent evidence value for tests (feature `sample`).
//! Its numbers are made up for tests of structure and are never shown as measurements.

use std::collections::BTreeMap;

use crate::schema::*;

/// An arm whose summary is derived from `samples` (nearest-rank percentiles).
pub fn arm(
    id: &str,
    protocol: Protocol,
    mode: Mode,
    resumption: Option<Resumption>,
    samples: Vec<f64>,
) -> Arm {
    let mut sorted = samples.clone();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let rank = |p: f64| sorted[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1];
    let latency = (n > 0).then(|| LatencySummary {
        min: sorted[0],
        p50: rank(50.0),
        p95: rank(95.0),
        p99: rank(99.0),
        max: sorted[n - 1],
        mean: sorted.iter().sum::<f64>() / n as f64,
        stddev: 0.0,
    });
    let resumed = if mode == Mode::Resumed { n as u64 } else { 0 };
    let stack = if protocol == Protocol::Tcp {
        Stack::KernelTcp
    } else {
        Stack::Rustls
    };
    Arm {
        id: id.into(),
        stack,
        client_stack: stack,
        server_stack: stack,
        peer_version: None,
        protocol,
        mode,
        resumption,
        cert: (protocol != Protocol::Tcp).then_some(CertKind::EcdsaP256),
        kx_group: (protocol != Protocol::Tcp).then_some(KxGroup::X25519),
        timed_window: "connect start to handshake complete on the client".into(),
        ttfb: false,
        attempted: n as u64,
        succeeded: n as u64,
        failed: 0,
        resumed: ResumedCounts {
            client: resumed,
            server: resumed,
        },
        handshake_kinds: None,
        verified: None,
        p50_ci95_us: latency.map(|l| [l.min, l.max]),
        ci_unavailable: None,
        latency_us: latency,
        throughput_per_s: Some(1000.0),
        samples_us: samples,
        samples_per_round: Vec::new(),
        round_medians_us: Vec::new(),
        round_steal_percent: Vec::new(),
        chunks: None,
        round_group: None,
        error: None,
        first_failure: None,
        warmup_failed: 0,
        warmup_attempted: Some(1),
        server_threads: Some(1),
        client_threads: Some(1),
        negotiated: BTreeMap::new(),
        skipped: None,
        known_pitfall: None,
        rate: None,
        crypto_floor_us: None,
        crypto_floor_parts: Vec::new(),
        efficiency: None,
        capacity: None,
        rtt_ms: None,
        rtt_method: None,
        rtt_measured_ms: None,
        rtt_multiple: None,
        wire: None,
        early_data: None,
        phase_recording: None,
        control_of: None,
        placement: None,
        tracing: None,
        phases: None,
        keepalive: None,
        link: None,
        tcp: None,
        server_tcp: None,
        populations: None,
        loss_effect: None,
        instructions: None,
    }
}

/// Three arms (TCP connect, TLS 1.3 full, TLS 1.3 resumed by ticket) and one comparison.
pub fn evidence() -> Evidence {
    let arms = vec![
        arm(
            "tcp-connect",
            Protocol::Tcp,
            Mode::Connect,
            None,
            vec![20.0, 22.0, 21.0, 25.0],
        ),
        arm(
            "tls13-full-ecdsa-p256-x25519",
            Protocol::Tls13,
            Mode::Full,
            None,
            vec![400.0, 410.0, 390.0, 450.0],
        ),
        arm(
            "tls13-resumed-ticket-ecdsa-p256-x25519",
            Protocol::Tls13,
            Mode::Resumed,
            Some(Resumption::Ticket),
            vec![200.0, 210.0, 190.0, 260.0],
        ),
    ];
    Evidence {
        schema_version: SCHEMA_VERSION,
        run: Run {
            id: "20261130T000000Z-sample-0000".into(),
            started_at: "2026-11-30T00:00:00Z".into(),
            finished_at: "2026-11-30T00:00:10Z".into(),
            complete: true,
            tool: Tool {
                name: "collector".into(),
                version: "0.0.0".into(),
                git_commit: None,
            },
            command_line: vec!["collector".into(), "run".into()],
            settings: Settings {
                samples: 4,
                warmup: 1,
                rounds: 1,
                tcp_nodelay: true,
                so_linger_zero: true,
                bind_address: "127.0.0.1".into(),
                gap_between_connections_us: 0,
                app_data_bytes: 1,
                server_threads: 1,
                client_threads: 1,
                clock: "test".into(),
                percentile_definition: "nearest rank".into(),
                ci_method: "test".into(),
                bootstrap_seed: 1,
                bootstrap_resamples: 10,
                certs: vec![CertKind::EcdsaP256],
                kx_groups: vec![KxGroup::X25519],
                arms_filter: None,
                noise: None,
                placement: None,
                instructions: None,
                extra: BTreeMap::new(),
            },
            kind: None,
            setup: None,
            conditions: None,
        },
        environment: Environment {
            hostname: "sample-host".into(),
            os: "test".into(),
            kernel: "test".into(),
            cpu_model: "test".into(),
            logical_cpus: 2,
            load_average: LoadAverage {
                before: [0.0; 3],
                after: [0.0; 3],
            },
            tls_library: Library {
                name: "rustls".into(),
                version: "0".into(),
            },
            crypto_provider: Library {
                name: "aws-lc-rs".into(),
                version: "0".into(),
            },
            peers: Vec::new(),
            server_host: None,
            steal_percent: Default::default(),
            cpu_idle: Default::default(),
            other_work: None,
        },
        comparisons: vec![Comparison {
            kind: ComparisonKind::ResumeSpeedup,
            baseline: arms[1].id.clone(),
            candidate: arms[2].id.clone(),
            p50_ratio: 2.0,
            ci95: Some([1.5, 2.5]),
            ci_unavailable: None,
            basis: None,
        }],
        arms,
        primitives: Vec::new(),
        hop: None,
        probe: None,
        summary: false,
    }
}

/// A release-build handshake count of 10 handshakes after 3 warm-up, with `client` and
/// `server` instructions per handshake (totals 10× those).
pub fn instructions(client: f64, server: f64) -> crate::instructions::Instructions {
    use crate::instructions::*;
    let end = |per: f64| EndCount {
        total: (per * 10.0) as u64,
        per_handshake: per,
        kinds: None,
    };
    Instructions {
        tool: "valgrind-3.19.0 --tool=callgrind".into(),
        build_profile: BuildProfile::Release,
        scope: CountScope::Handshake,
        window: "w".into(),
        warmup_handshakes: 3,
        outcome: CountOutcome::Counted(Counted {
            handshakes: 10,
            client: Some(end(client)),
            server: end(server),
        }),
    }
}

/// A release-build whole-process count of a peer server (10 handshakes after 3 warm-up,
/// no client end) with `server` instructions per handshake.
pub fn whole_process(server: f64) -> crate::instructions::Instructions {
    use crate::instructions::*;
    let mut i = instructions(0.0, server);
    i.scope = CountScope::WholeProcess;
    if let CountOutcome::Counted(c) = &mut i.outcome {
        c.client = None;
    }
    i
}

/// `n` used chunks of 10 samples each, with no steal and a speed probe of `probe_us`.
pub fn used_chunks(n: usize, probe_us: f64) -> crate::noise::ArmChunks {
    use crate::noise::{ArmChunks, Chunk, ChunkOutcome};
    ArmChunks {
        list: vec![
            Chunk {
                round: 0,
                steal_percent: Some(0.0),
                probe_us: Some(probe_us),
                attempted: 10,
                samples: 10,
                outcome: ChunkOutcome::Used,
            };
            n
        ],
        set_aside_us: Vec::new(),
    }
}
