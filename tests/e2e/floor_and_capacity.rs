//! Crypto floor, the post-quantum hybrid, and capacity under concurrency, with the real
//! collector binary.

use e2e::{collector, read_evidence, run_ok, scratch};
use shared::{Mode, Protocol, Side};

#[test]
fn ed25519_and_pq_hybrid_match_what_was_asked_and_sit_above_their_floor() {
    let dir = scratch("floor-pq");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--samples",
            "40",
            "--certs",
            "ed25519",
            "--groups",
            "x25519mlkem768,x25519",
        ],
        &dir,
    );
    let names: Vec<&str> = e.primitives.iter().map(|p| p.name.as_str()).collect();
    for needed in [
        "ed25519-sign-ed25519",
        "ed25519-verify-ed25519",
        "x25519-keygen",
        "x25519-agree",
        "mlkem768-keygen",
        "mlkem768-encapsulate",
        "mlkem768-decapsulate",
    ] {
        assert!(
            names.contains(&needed),
            "primitives lack {needed}: {names:?}"
        );
    }
    // Timed before and after the arms; the floor uses both passes pooled.
    for p in &e.primitives {
        let (b, a) = (p.median_before_us.unwrap(), p.median_after_us.unwrap());
        assert!(
            b.min(a) <= p.median_us && p.median_us <= b.max(a),
            "{}: {} vs {b} / {a}",
            p.name,
            p.median_us
        );
    }
    assert!(e.run.settings.extra["crypto_floor"].contains("before the arms"));
    for a in e.arms.iter().filter(|a| a.protocol != Protocol::Tcp) {
        // Every connection was checked (group, cert, kind); any mismatch would be an error.
        assert_eq!(a.error, None, "{}", a.id);
        assert_eq!(a.cert, Some(shared::CertKind::Ed25519));
        let total: u64 = a.negotiated.values().sum();
        assert_eq!(total, a.succeeded, "{}: {:?}", a.id, a.negotiated);
        if a.kx_group == Some(shared::KxGroup::X25519Mlkem768) {
            assert!(
                a.negotiated.keys().all(|k| k.ends_with("X25519MLKEM768")),
                "{}: {:?}",
                a.id,
                a.negotiated
            );
        }
        let floor = a
            .crypto_floor_us
            .unwrap_or_else(|| panic!("{} has no floor", a.id));
        let sum: f64 = a.crypto_floor_parts.iter().map(|p| p.us).sum();
        assert!(
            (floor - sum).abs() < 1e-6,
            "{}: floor is the sum of its parts",
            a.id
        );
        for part in &a.crypto_floor_parts {
            let p = e
                .primitives
                .iter()
                .find(|p| p.name == part.primitive)
                .expect("part names a primitive");
            assert_eq!(
                part.us,
                part.count as f64 * p.median_us,
                "{} {}",
                a.id,
                part.primitive
            );
        }
        let signs = a
            .crypto_floor_parts
            .iter()
            .filter(|p| p.primitive.contains("-sign-"))
            .count();
        match (a.protocol, a.mode) {
            (Protocol::Tls12, Mode::Resumed) => {
                assert_eq!(
                    floor, 0.0,
                    "{}: resumed TLS 1.2 runs no public-key operation",
                    a.id
                );
                assert!(a.crypto_floor_parts.is_empty());
                assert_eq!(a.efficiency, None, "{}: no share of a 0 floor", a.id);
            }
            (_, Mode::Resumed) => {
                assert_eq!(signs, 0, "{}: no signature in a resumed handshake", a.id)
            }
            _ => {
                assert_eq!(signs, 1, "{}", a.id);
                assert!(a
                    .crypto_floor_parts
                    .iter()
                    .any(|p| p.side == Side::Client && p.primitive.contains("-verify-")));
                let p50 = a.latency_us.unwrap().p50;
                assert!(
                    p50 > floor,
                    "{}: p50 {p50} µs not above its crypto floor {floor} µs",
                    a.id
                );
                let eff = a.efficiency.unwrap();
                assert!(eff > 0.0 && eff < 1.0, "{}: efficiency {eff}", a.id);
            }
        }
    }
    assert!(
        e.arms.iter().any(|a| a.protocol == Protocol::Tls12),
        "TLS 1.2 arms ran with x25519"
    );
    assert!(
        e.arms.iter().all(|a| !(a.protocol == Protocol::Tls12
            && a.kx_group == Some(shared::KxGroup::X25519Mlkem768))),
        "TLS 1.2 skips the TLS 1.3-only hybrid"
    );
}

#[test]
fn concurrency_two_completes_without_failures() {
    let dir = scratch("capacity");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--arms",
            "tcp",
            "--certs",
            "ecdsa-p256",
            "--concurrency",
            "2",
            "--capacity-seconds",
            "2",
        ],
        &dir,
    );
    let cap: Vec<_> = e.arms.iter().filter(|a| a.capacity.is_some()).collect();
    assert_eq!(cap.len(), 2, "full and resumed at N=2");
    for a in cap {
        let c = a.capacity.as_ref().unwrap();
        assert_eq!((c.clients, c.server_workers), (2, 2));
        assert_eq!((a.server_threads, a.client_threads), (Some(2), Some(2)));
        assert_eq!(a.warmup_attempted, Some(2 * 5), "5 per client");
        assert_eq!(a.failed, 0, "{}: {:?}", a.id, a.first_failure);
        assert_eq!(a.error, None, "{}", a.id);
        // Not taken in interleaved rounds: no CI, and the evidence says why.
        assert!(a.p50_ci95_us.is_none() && a.samples_per_round.is_empty());
        let why = a.ci_unavailable.as_deref().unwrap_or_default();
        assert!(why.contains("not taken in interleaved rounds"), "{why}");
        assert_eq!(c.per_second.len(), 2, "one entry per whole second");
        assert!(c.rate_median_per_s > 0.0);
        assert!(
            c.rate_iqr_per_s[0] <= c.rate_median_per_s
                && c.rate_median_per_s <= c.rate_iqr_per_s[1]
        );
        let in_window: f64 = c.per_second.iter().sum();
        assert_eq!(
            in_window + c.after_window as f64,
            a.succeeded as f64,
            "every success is in the window or after it"
        );
        assert!(c
            .cpu_sharing
            .as_deref()
            .is_some_and(|s| s.contains("share its")));
        // All clients together: the wall is at least the longest client's share of the
        // windows, so throughput ≤ clients × successes / Σ windows.
        let windows_s: f64 = a.samples_us.iter().sum::<f64>() / 1e6;
        let tput = a.throughput_per_s.expect("throughput measured");
        assert!(
            tput > 0.0 && tput <= c.clients as f64 * a.succeeded as f64 / windows_s,
            "{}: {tput}/s",
            a.id
        );
        if a.mode == Mode::Resumed {
            assert_eq!(
                (a.resumed.client, a.resumed.server),
                (a.succeeded, a.succeeded),
                "{}",
                a.id
            );
        }
    }
}

/// `collector floor` prints every primitive a handshake of any cert and group uses: each
/// signature scheme as rustls negotiates it (RSA: PSS with SHA-512 for the handshake,
/// PKCS#1 with SHA-256 for the CA's signature on the leaf), each group's two halves, and
/// ML-KEM-768's three operations, each with its count and a median.
#[test]
fn floor_prints_every_primitive() {
    let out = e2e::collector()
        .args(["floor", "--ops", "10"])
        .output()
        .expect("collector runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut expected: Vec<String> = Vec::new();
    for rsa in ["rsa2048", "rsa3072", "rsa4096"] {
        expected.push(format!("{rsa}-sign-rsa_pss_sha512"));
        expected.push(format!("{rsa}-verify-rsa_pss_sha512"));
        expected.push(format!("{rsa}-verify-rsa_pkcs1_sha256"));
    }
    for (ec, scheme) in [
        ("ecdsa-p256", "ecdsa_nistp256_sha256"),
        ("ecdsa-p384", "ecdsa_nistp384_sha384"),
        ("ed25519", "ed25519"),
    ] {
        expected.push(format!("{ec}-sign-{scheme}"));
        expected.push(format!("{ec}-verify-{scheme}"));
    }
    for g in ["x25519", "secp256r1", "secp384r1"] {
        expected.push(format!("{g}-keygen"));
        expected.push(format!("{g}-agree"));
    }
    for op in ["keygen", "encapsulate", "decapsulate"] {
        expected.push(format!("mlkem768-{op}"));
    }
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(names, expected, "{text}");
    for r in &rows {
        assert!(r[1].parse::<u64>().is_ok_and(|n| n > 0), "{r:?}");
        let median: f64 = r[2].parse().unwrap_or(f64::NAN);
        assert!(median > 0.0 && ["µs", "ms"].contains(&r[3]), "{r:?}");
    }
}

/// `--matrix`: every protocol × cert × group cell has a sound full arm that negotiated
/// the cell's group, or the evidence says why the cell has none.
#[test]
fn a_quick_matrix_covers_every_cell_or_says_why_not() {
    use shared::{CertKind, KxGroup, Mode, Protocol};
    let dir = scratch("matrix");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--matrix",
            "--samples",
            "20",
        ],
        &dir,
    );
    let not_measured = e
        .run
        .settings
        .extra
        .get("cells_not_measured")
        .cloned()
        .unwrap_or_default();
    for protocol in [Protocol::Tls13, Protocol::Tls12] {
        for &cert in CertKind::ALL {
            for &group in KxGroup::ALL {
                let arm = e.arms.iter().find(|a| {
                    a.protocol == protocol
                        && a.mode == Mode::Full
                        && a.cert == Some(cert)
                        && a.kx_group == Some(group)
                        && a.control_of.is_none()
                });
                match arm {
                    Some(a) => {
                        assert_eq!(a.error, None, "{}", a.id);
                        assert_eq!(a.succeeded, 20, "{}", a.id);
                    }
                    None => assert!(
                        said_why(&not_measured, protocol, &[cert.as_str(), group.as_str()]),
                        "{protocol} {cert} {group}: no arm and no reason ({not_measured:?})"
                    ),
                }
            }
        }
    }
    // The two kinds of cell without an arm, both TLS 1.2: with the TLS 1.3-only hybrid,
    // and with an ML-DSA certificate (TLS 1.3 signature schemes only).
    assert!(
        not_measured.starts_with("tls1.2 × x25519mlkem768"),
        "{not_measured}"
    );
    assert!(
        said_why(&not_measured, Protocol::Tls12, &["ml-dsa-44"]),
        "{not_measured}"
    );
    assert!(!e.arms.iter().any(|a| a.protocol == Protocol::Tls12
        && (a.kx_group == Some(KxGroup::X25519Mlkem768)
            || a.cert.is_some_and(|c| c.as_str().starts_with("ml-dsa")))));
}

/// Whether `not_measured` ("tls1.2 × a, b (every cert): why; …") has an entry for
/// `protocol` whose list names one of `names` (a cert or a group of the cell).
fn said_why(not_measured: &str, protocol: shared::Protocol, names: &[&str]) -> bool {
    not_measured.split("; ").any(|entry| {
        let Some(list) = entry.strip_prefix(&format!("{protocol} × ")) else {
            return false;
        };
        let list = list.split(" (").next().unwrap_or_default();
        list.split(", ").any(|n| names.contains(&n))
    })
}

/// Capacity servers that drop every connection (`--inject-capacity-drops 1`, a hidden
/// testing aid): each capacity arm is an error with every failure counted, the evidence
/// is still written, and the run exits 3.
#[test]
fn capacity_arms_where_every_connection_fails_are_errors_and_exit_3() {
    let dir = scratch("capacity-all-fail");
    let out = collector()
        .args([
            "run",
            "--no-peers",
            "--no-floor",
            "--quick",
            "--arms",
            "tcp",
        ])
        .args(["--certs", "ecdsa-p256", "--groups", "x25519"])
        .args(["--concurrency", "1", "--capacity-seconds", "1"])
        .args(["--inject-capacity-drops", "1", "--out"])
        .arg(&dir)
        .output()
        .expect("collector runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let e = read_evidence(&dir);
    let cap: Vec<_> = e.arms.iter().filter(|a| a.capacity.is_some()).collect();
    assert_eq!(cap.len(), 2, "full and resumed at N=1");
    for a in cap {
        assert!(a.attempted > 0, "{}", a.id);
        assert_eq!((a.succeeded, a.failed), (0, a.attempted), "{}", a.id);
        let error = a.error.as_deref().unwrap_or_default();
        assert!(
            error.starts_with(&format!("all {} timed connections failed", a.attempted)),
            "{}: {error}",
            a.id
        );
        assert!(a.first_failure.is_some(), "{}", a.id);
    }
    let tcp = e.arms.iter().find(|a| a.id == "tcp-connect").unwrap();
    assert_eq!(
        (tcp.error.as_deref(), tcp.failed),
        (None, 0),
        "not injected"
    );
    assert!(
        e.run
            .settings
            .extra
            .get("capacity_fault")
            .is_some_and(|f| f.contains("1 in 1")),
        "the injection is recorded: {:?}",
        e.run.settings.extra
    );
}

/// `--open-loop-rates`: a small Poisson sweep with the real binary. Structure only: every
/// scheduled connection accounted for, offered and achieved recorded, the seed recorded
/// per arm, the summary's table and knee sentence printed (the same sentence as the
/// shared definition reads from the evidence), and the evidence validates.
#[test]
fn an_open_loop_sweep_is_recorded_and_its_knee_named() {
    let dir = scratch("open-loop");
    let out = collector()
        .args([
            "run",
            "--no-peers",
            "--no-floor",
            "--quick",
            "--arms",
            "tcp",
        ])
        .args(["--certs", "ecdsa-p256", "--groups", "x25519", "--seed", "5"])
        .args(["--open-loop-rates", "30,60", "--open-loop-seconds", "1"])
        .args(["--open-loop-workers", "2", "--arrival", "poisson", "--out"])
        .arg(&dir)
        .output()
        .expect("collector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir);
    let open: Vec<_> = e
        .arms
        .iter()
        .filter(|a| a.capacity.as_ref().is_some_and(|c| c.open_loop.is_some()))
        .collect();
    let ids: Vec<&str> = open.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "tls13-full-ecdsa-p256-x25519-rate30",
            "tls13-resumed-ticket-ecdsa-p256-x25519-rate30",
            "tls13-full-ecdsa-p256-x25519-rate60",
            "tls13-resumed-ticket-ecdsa-p256-x25519-rate60",
        ]
    );
    for (a, (rate, seed)) in open
        .iter()
        .zip([(30.0, 5), (30.0, 6), (60.0, 7), (60.0, 8)])
    {
        let o = a.capacity.as_ref().unwrap().open_loop.as_ref().unwrap();
        assert_eq!((o.offered_per_s, o.seed), (rate, Some(seed)), "{}", a.id);
        assert_eq!(a.attempted, o.scheduled, "{}", a.id);
        assert_eq!(a.succeeded + a.failed, a.attempted, "{}", a.id);
        assert!(o.achieved_per_s <= o.scheduled as f64, "{}", a.id);
        assert!(a.timed_window.contains("INTENDED start"), "{}", a.id);
        assert_eq!(a.error, None, "{}: {:?}", a.id, a.first_failure);
    }
    let extra = &e.run.settings.extra;
    assert!(extra["open_loop"].contains("poisson arrivals"), "{extra:?}");
    let sweeps = shared::open_loop::sweeps(&e.arms);
    assert_eq!(sweeps.len(), 2, "full and resumed");
    for s in &sweeps {
        let knee = s.knee();
        assert!(
            stdout.contains(&format!("  knee: {knee}\n")),
            "{knee}\n{stdout}"
        );
        assert!(extra["open_loop_knee"].contains(&knee));
    }
    assert!(stdout.contains("Open-loop capacity (latency from each connection's intended start"));
}

/// A rate × seconds over the bound is refused before anything is measured.
#[test]
fn an_open_loop_schedule_over_the_bound_is_refused_naming_the_flags() {
    let dir = scratch("open-loop-too-long");
    let out = collector()
        .args(["run", "--no-peers", "--open-loop-rates", "600000"])
        .args(["--open-loop-seconds", "2", "--out"])
        .arg(&dir)
        .output()
        .expect("collector runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--open-loop-rates 600000 × --open-loop-seconds 2 = 1200000 connections"),
        "{stderr}"
    );
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "nothing written"
    );
}
