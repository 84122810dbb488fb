//! What a probe records about itself: the roots it trusted, what it sent, and the
//! settings that move its numbers.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use rustls::pki_types::{pem::PemObject, CertificateDer};
use rustls::RootCertStore;
use shared::{ServerProbe, Settings};

use super::args::ProbeArgs;
use super::VERIFIED_ON;
use crate::arms::remote;
use crate::arms::Plan;
use crate::stats;

/// The roots the client trusts, and that choice in words.
pub(super) fn roots(args: &ProbeArgs) -> Result<(RootCertStore, String)> {
    let mut roots = RootCertStore::empty();
    if let Some(path) = &args.ca {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
            .with_context(|| format!("reading --ca {}", path.display()))?
            .collect::<Result<_, _>>()
            .with_context(|| format!("--ca {}: not PEM certificates", path.display()))?;
        let (added, ignored) = roots.add_parsable_certificates(certs);
        if added == 0 {
            bail!(
                "--ca {}: no usable CA certificate ({ignored} unparsable)",
                path.display()
            );
        }
        return Ok((
            roots,
            format!("--ca {}: {added} certificate(s)", path.display()),
        ));
    }
    let found = rustls_native_certs::load_native_certs();
    let (added, ignored) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        bail!(
            "--system-roots: no root certificate found in the system's store ({} error(s): {:?})",
            found.errors.len(),
            found.errors.first().map(|e| e.to_string())
        );
    }
    Ok((
        roots,
        format!("--system-roots: {added} certificates from the system's store (rustls-native-certs), {ignored} unparsable"),
    ))
}

/// Exactly what the probe sends, in words (also in the book: docs/src/probe.md).
pub(super) fn sent(args: &ProbeArgs, host: &str) -> String {
    format!(
        "TCP connections to the one resolved address, each closed normally (FIN; TLS ones after close_notify), never two at once, at most {} per second and {} ms after the previous one ended; TLS ClientHellos from rustls (one version, one group, or the defaults during discovery), no client certificate; no application data except on 0-RTT connections, which send `{}` as early data; resuming TLS 1.3 connections read what the server sends for up to {} s after the handshake (its tickets); discovery: 2 version + up to {} group (each group alone, per version) + up to 6 resumption + up to 2 early-data connections; then per arm {} timed + {} warm-up",
        args.rate,
        args.pause_ms,
        remote::early_request(host).escape_debug(),
        remote::TICKET_WAIT.as_secs(),
        2 * shared::KxGroup::ALL.len() - 1,
        args.samples,
        args.warmup_per_chunk * args.rounds.min(args.samples),
    )
}

pub(super) fn settings(
    args: &ProbeArgs,
    plan: &Plan,
    p: &ServerProbe,
    timing: &super::Timing,
    pinned: &[shared::KxGroup],
    connections: u64,
) -> Settings {
    let mut extra = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        extra.insert(k.to_string(), v);
    };
    put("probe_findings", p.findings.join(" · "));
    put(
        "probe_target",
        format!("{}:{} ({}), SNI {}", p.host, p.port, p.address, p.sni),
    );
    put("probe_verified_on", VERIFIED_ON.into());
    put("probe_trust", p.trust.clone());
    put(
        "probe_certificate_trust",
        super::trust::line(p.certificate_trust.as_ref()),
    );
    put(
        "probe_certificate_verification",
        timing.describe(&p.trust, &p.sni),
    );
    put("probe_sent", p.sent.clone());
    put(
        "probe_connections",
        format!("{connections} connections in all (discovery, warm-up and timed)"),
    );
    put("socket_options", "client: TCP_NODELAY, read/write timeouts, default SO_LINGER (a normal close: the server is someone else's); set, not read back; the server's are unknown".into());
    put("warmup_per_chunk", plan.warmup_per_chunk.to_string());
    put("build_profile", crate::evidence::BUILD_PROFILE.into());
    put("io_timeout_ms", args.io_timeout_ms.to_string());
    put("rate_cap_per_s", args.rate.to_string());
    put(
        "arm_order",
        "every round visits every arm once, in an order shuffled per round from the seed".into(),
    );
    Settings {
        samples: plan.samples,
        warmup: plan.warmup_per_chunk * plan.rounds,
        rounds: plan.rounds,
        tcp_nodelay: true,
        so_linger_zero: false,
        bind_address: format!("{}:{} (remote)", p.host, p.port),
        gap_between_connections_us: args.pause_ms * 1000,
        app_data_bytes: 0,
        server_threads: 0,
        client_threads: 1,
        clock: "std::time::Instant (CLOCK_MONOTONIC)".into(),
        percentile_definition: stats::PERCENTILE_DEFINITION.into(),
        ci_method: stats::CI_METHOD.into(),
        bootstrap_seed: plan.seed,
        bootstrap_resamples: args.bootstrap,
        certs: Vec::new(),
        kx_groups: pinned.to_vec(),
        arms_filter: None,
        noise: None,
        placement: None,
        instructions: None,
        extra,
    }
}
