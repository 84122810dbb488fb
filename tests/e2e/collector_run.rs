//! The real collector binary, end to end: what it measures, what it refuses to claim,
//! and how it fails.

use std::collections::HashMap;
use std::process::{Command, Output, Stdio};

use e2e::{collector, read_evidence, scratch};
use serde_json::Value;
use shared::{ComparisonKind, Mode, Protocol, ResultsIndex};

fn run(args: &[&str]) -> Output {
    collector().args(args).output().expect("collector runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn nearest_rank(samples: &[f64], p: f64) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    s[((p / 100.0 * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1]
}

#[test]
fn quick_run_measures_every_default_arm_honestly() {
    let dir = scratch("quick-run");
    let out = run(&[
        "run",
        "--no-peers",
        "--quick",
        "--samples",
        "60",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    assert!(e.run.complete);
    assert_eq!(e.run.settings.samples, 60);
    assert!(e.run.settings.tcp_nodelay && e.run.settings.so_linger_zero);
    let sockets = &e.run.settings.extra["socket_options"];
    assert!(
        sockets.contains("read back with getsockopt")
            && sockets.contains("server socket TCP_NODELAY on"),
        "{sockets}"
    );
    // --quick asks for 20 warm-up connections per arm: 4 before each of its 5 chunks.
    assert_eq!((e.run.settings.warmup, e.run.settings.rounds), (20, 5));

    let ids: Vec<&str> = e.arms.iter().map(|a| a.id.as_str()).collect();
    let mut expected = vec!["tcp-connect".to_string()];
    for cert in ["rsa2048", "ecdsa-p256"] {
        for (v, group) in [
            ("tls13", "x25519"),
            ("tls12", "x25519"),
            ("tls13", "x25519mlkem768"),
        ] {
            for m in ["full", "resumed-stateful", "resumed-ticket"] {
                expected.push(format!("{v}-{m}-{cert}-{group}"));
            }
        }
    }
    // The control arm: the first TLS 1.3 full arm again, placed the other way (the run
    // is `split` by default, so the control shares one CPU).
    expected.push("tls13-full-rsa2048-x25519-cpu-same".into());
    let mut sorted_ids = ids.clone();
    sorted_ids.sort();
    expected.sort();
    assert_eq!(sorted_ids, expected);

    let by_id: HashMap<&str, &shared::Arm> = e.arms.iter().map(|a| (a.id.as_str(), a)).collect();
    for a in &e.arms {
        assert_eq!(a.error, None, "{}: {:?}", a.id, a.error);
        assert_eq!(
            (a.attempted, a.succeeded, a.failed),
            (60, 60, 0),
            "{}",
            a.id
        );
        // 4 warm-ups before each chunk: 5 rounds, and any chunk the host stole from and
        // that was measured again (--max-steal) had its own.
        let chunks = a.chunks.as_ref().map_or(5, |c| c.list.len() as u64);
        assert!(chunks >= 5, "{}: {chunks} chunks", a.id);
        assert_eq!(
            a.warmup_attempted,
            Some(4 * chunks),
            "{}: warm-up as done",
            a.id
        );
        assert_eq!((a.server_threads, a.client_threads), (Some(1), Some(1)));
        // (Percentile order, succeeded + failed = attempted and CI order are
        // Evidence::from_json's own checks; here only what it cannot know.)
        let l = a.latency_us.expect("latency present");
        let mut sorted = a.samples_us.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(
            (l.min, l.max),
            (sorted[0], sorted[sorted.len() - 1]),
            "{}: min and max are the samples' own",
            a.id
        );
        // Throughput is successes per second of the wall time the timed connections
        // took, which holds every timed window: never above successes / Σ windows.
        let windows_s: f64 = a.samples_us.iter().sum::<f64>() / 1e6;
        let tput = a.throughput_per_s.expect("throughput measured");
        assert!(
            tput > 0.0 && tput <= a.succeeded as f64 / windows_s,
            "{}: {tput}/s vs {} in {windows_s} s of windows",
            a.id,
            a.succeeded
        );
        // The summary is the raw samples' nearest-rank percentiles, nothing else.
        for (p, v) in [(50.0, l.p50), (95.0, l.p95), (99.0, l.p99)] {
            assert_eq!(nearest_rank(&a.samples_us, p), v, "{} p{p}", a.id);
        }
        // The CI holds the median of the samples, computed here, not the stored p50.
        let [lo, hi] = a.p50_ci95_us.unwrap();
        let median = nearest_rank(&a.samples_us, 50.0);
        assert!(
            lo <= median && median <= hi,
            "{}: {median} in [{lo}, {hi}]",
            a.id
        );
        // --quick takes the samples in 5 interleaved rounds of 60 / 5 = 12, all of the
        // main loop; each round's median is its own 12 samples' nearest-rank median.
        assert_eq!(a.samples_per_round, [12; 5], "{}", a.id);
        assert_eq!(a.round_group.as_deref(), Some("loopback"));
        let medians: Vec<Option<f64>> = a
            .samples_us
            .chunks(12)
            .map(|c| Some(nearest_rank(c, 50.0)))
            .collect();
        assert_eq!(a.round_medians_us, medians, "{}", a.id);
        match a.mode {
            Mode::Resumed => {
                assert_eq!(
                    (a.resumed.client, a.resumed.server),
                    (60, 60),
                    "{} resumed on both ends",
                    a.id
                );
                let k = a.handshake_kinds.unwrap();
                assert_eq!((k.client.full, k.server.full), (0, 0), "{}", a.id);
                // The resumed counts are the handshake kinds rustls reported.
                assert_eq!(
                    (k.client.resumed, k.server.resumed),
                    (a.resumed.client, a.resumed.server),
                    "{}",
                    a.id
                );
            }
            Mode::Full => {
                assert_eq!(
                    (a.resumed.client, a.resumed.server),
                    (0, 0),
                    "{} never resumed",
                    a.id
                );
                assert_eq!(a.handshake_kinds.unwrap().client.full, 60, "{}", a.id);
            }
            Mode::Connect => assert!(a.handshake_kinds.is_none()),
            Mode::KeepAlive => panic!("{}: keep-alive arms are for request mode only", a.id),
        }
        if a.protocol != Protocol::Tcp {
            let pinned = if a.id.ends_with("x25519mlkem768") {
                "X25519MLKEM768"
            } else {
                "X25519"
            };
            let group: u64 = a
                .negotiated
                .iter()
                .filter(|(k, _)| k.ends_with(&format!("/ {pinned}")))
                .map(|(_, n)| n)
                .sum();
            // A TLS 1.2 resumption runs no key exchange; every other handshake used the pinned group.
            if !(a.protocol == Protocol::Tls12 && a.mode == Mode::Resumed) {
                assert_eq!(group, 60, "{} negotiated {:?}", a.id, a.negotiated);
            }
        }
    }

    let tcp = by_id["tcp-connect"].latency_us.unwrap().p50;
    for a in e.arms.iter().filter(|a| a.mode == Mode::Full) {
        assert!(
            tcp < a.latency_us.unwrap().p50,
            "TCP connect p50 {tcp} not below {} p50",
            a.id
        );
    }
    for cert in ["rsa2048", "ecdsa-p256"] {
        for kind in ["stateful", "ticket"] {
            let full = by_id[format!("tls12-full-{cert}-x25519").as_str()]
                .latency_us
                .unwrap()
                .p50;
            let resumed = by_id[format!("tls12-resumed-{kind}-{cert}-x25519").as_str()]
                .latency_us
                .unwrap()
                .p50;
            assert!(
                resumed < full,
                "TLS 1.2 {kind} resumption ({resumed}) not below full ({full}) for {cert}"
            );
        }
    }

    let speedups: Vec<_> = e
        .comparisons
        .iter()
        .filter(|c| c.kind == ComparisonKind::ResumeSpeedup)
        .collect();
    assert_eq!(
        speedups.len(),
        12,
        "one speedup per protocol × cert × resumption kind"
    );
    for c in &speedups {
        let (full, resumed) = (by_id[c.baseline.as_str()], by_id[c.candidate.as_str()]);
        assert_eq!(
            c.p50_ratio,
            full.latency_us.unwrap().p50 / resumed.latency_us.unwrap().p50
        );
        let [lo, hi] = c.ci95.expect("five rounds with samples give a CI");
        // The interval is about this ratio: it contains it (not checked by from_json).
        assert!(
            lo <= c.p50_ratio && c.p50_ratio <= hi,
            "{} / {}: ratio {} outside its CI [{lo}, {hi}]",
            c.baseline,
            c.candidate,
            c.p50_ratio
        );
    }
    assert_eq!(
        e.comparisons
            .iter()
            .filter(|c| c.kind == ComparisonKind::TlsOverTcp)
            .count(),
        6
    );

    let index: ResultsIndex =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    assert_eq!(index.runs.len(), 1);
    assert_eq!(index.runs[0].file, format!("{}.json", e.run.id));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("tls13-resumed-ticket-ecdsa-p256-x25519")
            && stdout.contains("Resume speedup"),
        "{stdout}"
    );
}

#[test]
fn broken_resumption_is_an_error_not_a_resumed_arm() {
    let dir = scratch("broken-resumption");
    let out = run(&[
        "run",
        "--no-peers",
        "--quick",
        "--samples",
        "20",
        "--break-resumption",
        "--arms",
        "tls13-full-ecdsa,-resumed-",
        "--certs",
        "ecdsa-p256",
        "--groups",
        "x25519",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("did not measure what they claim"));
    let e = read_evidence(&dir);
    let resumed: Vec<_> = e.arms.iter().filter(|a| a.mode == Mode::Resumed).collect();
    assert_eq!(resumed.len(), 4);
    for a in resumed {
        let err = a
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("{} has no error", a.id));
        assert!(err.contains("expected resumed"), "{err}");
        assert_eq!((a.resumed.client, a.resumed.server), (0, 0));
    }
    assert!(
        e.comparisons
            .iter()
            .all(|c| c.kind != ComparisonKind::ResumeSpeedup),
        "no speedup from arms that did not resume"
    );
    let full = e.arms.iter().find(|a| a.mode == Mode::Full).unwrap();
    assert_eq!(full.error, None, "a full arm is still sound");
}

#[test]
fn refused_early_data_is_an_error_not_a_0rtt_number() {
    let dir = scratch("refused-early-data");
    let out = run(&[
        "run",
        "--no-peers",
        "--quick",
        "--samples",
        "10",
        "--request",
        "--refuse-early-data",
        "--arms",
        "tls13-full-ecdsa,0rtt",
        "--certs",
        "ecdsa-p256",
        "--groups",
        "x25519",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    let zero = e
        .arms
        .iter()
        .find(|a| a.id == "tls13-0rtt-ecdsa-p256-x25519")
        .expect("the 0-RTT arm was measured");
    let err = zero
        .error
        .as_deref()
        .expect("a refused 0-RTT arm is an error");
    assert!(err.contains("did not accept early data (0-RTT)"), "{err}");
    assert_eq!(zero.early_data.map(|d| d.accepted), Some(0));
    assert!(
        e.comparisons
            .iter()
            .all(|c| c.candidate != zero.id && c.baseline != zero.id),
        "no ratio from an arm whose early data was refused"
    );
    let full = e.arms.iter().find(|a| a.mode == Mode::Full).unwrap();
    assert_eq!(full.error, None, "the full arm is still sound");
    assert!(e.run.settings.extra["fault"].contains("--refuse-early-data"));
}

#[test]
fn unwritable_output_is_reported_before_measuring() {
    let dir = scratch("unwritable");
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    let out = run(&[
        "run",
        "--no-peers",
        "--out",
        blocker.join("results").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("not-a-dir") && err.contains("nothing was run"),
        "{err}"
    );
    // It must not measure first: no arm started, no primitive timed.
    assert!(
        !err.contains("timed connections (") && !err.contains("timing the public-key"),
        "{err}"
    );
}

/// Runs the collector with `args` (500 rounds), sends Ctrl-C once the first round is
/// done (every arm has samples then, whatever this machine's speed: the collector says
/// so on stderr when it is not a terminal), and returns its output and whole stderr.
fn interrupt_after_round_1(args: &[&str]) -> (Output, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = collector()
        .args(args)
        .args(["--rounds", "500"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        seen.push_str(&line);
        if line.starts_with("collector: round 1/500 done") {
            break;
        }
        line.clear();
    }
    assert!(seen.contains("round 1/500 done"), "stderr: {seen}");
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    stderr.read_to_string(&mut seen).unwrap();
    (child.wait_with_output().unwrap(), seen)
}

#[test]
fn ctrl_c_saves_what_was_measured() {
    let dir = scratch("ctrl-c");
    let (out, seen) = interrupt_after_round_1(&[
        "run",
        "--no-peers",
        "--samples",
        "100000",
        "--arms",
        "tcp,tls13-full-ecdsa",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(130), "stderr: {seen}");
    let e = read_evidence(&dir);
    assert!(!e.run.complete);
    assert!(e.run.settings.extra["interrupted"].contains("Ctrl-C"));
    let ids: Vec<&str> = e.arms.iter().map(|a| a.id.as_str()).collect();
    assert!(ids.contains(&"tcp-connect"), "{ids:?}");
    for a in &e.arms {
        // At least the first round's 200 connections, far fewer than all 100,000.
        assert!(
            a.attempted >= 200 && a.attempted < 100_000,
            "{}: {}",
            a.id,
            a.attempted
        );
        // The first round (100,000 / 500 = 200 samples) is whole in the evidence.
        assert_eq!(a.samples_per_round.first(), Some(&200), "{}", a.id);
    }
}

#[test]
fn ctrl_c_exit_status_wins_over_an_arm_error() {
    let dir = scratch("ctrl-c-and-arm-error");
    let (out, seen) = interrupt_after_round_1(&[
        "run",
        "--no-peers",
        "--samples",
        "100000",
        "--break-resumption",
        "--arms",
        "tls13-full-ecdsa,tls13-resumed-ticket-ecdsa",
        "--certs",
        "ecdsa-p256",
        "--groups",
        "x25519",
        "--out",
        dir.to_str().unwrap(),
    ]);
    // Both happened: the run was interrupted and an arm carries an error (exit 3 on its
    // own). The interruption's 130 is what the caller sees.
    assert_eq!(out.status.code(), Some(130), "stderr: {seen}");
    let e = read_evidence(&dir);
    assert!(!e.run.complete);
    let resumed = e.arms.iter().find(|a| a.mode == Mode::Resumed).unwrap();
    let err = resumed.error.as_deref().unwrap_or_default();
    assert!(err.contains("expected resumed"), "{}: {err:?}", resumed.id);
}

#[test]
fn a_hundred_thousand_samples_work() {
    let dir = scratch("100k");
    let out = run(&[
        "run",
        "--no-peers",
        "--samples",
        "100000",
        "--warmup",
        "10",
        "--rounds",
        "1",
        "--arms",
        "tcp-connect",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    assert_eq!(e.arms[0].samples_us.len(), 100_000);
}

#[test]
fn schema_and_help_explain_themselves() {
    let out = run(&["schema"]);
    assert!(out.status.success());
    let schema: Value = serde_json::from_slice(&out.stdout).expect("the schema is JSON");
    let s = schema.to_string();
    assert!(
        s.contains("samples_us") && s.contains("resume_speedup"),
        "{s}"
    );

    let help = text(&run(&["run", "--no-peers", "--help"]).stdout);
    for needle in [
        "An ARM is",
        "--samples",
        "--arms",
        "--certs",
        "--quick",
        "Exit status",
    ] {
        assert!(
            help.contains(needle) || text(&run(&["--help"]).stdout).contains(needle),
            "help lacks {needle}"
        );
    }
    let listed = text(
        &run(&[
            "run",
            "--no-peers",
            "--list-arms",
            "--arms",
            "tls12-*-ticket-*",
        ])
        .stdout,
    );
    assert_eq!(
        listed.lines().collect::<Vec<_>>(),
        [
            "tls12-resumed-ticket-rsa2048-x25519",
            "tls12-resumed-ticket-ecdsa-p256-x25519"
        ]
    );
}
