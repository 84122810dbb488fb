//! Findings on known evidence. Every expected sentence is written out from the
//! fixture's own numbers (see `shared::sample`: TCP p50 21 µs; full TLS 1.3 p50 400 µs
//! with CI [390, 450]; resumed by ticket p50 200 µs with CI [190, 260], speedup 2.0
//! with CI [1.5, 2.5]), never formatted by the code under test.

use shared::{sample, Comparison, ComparisonKind, Decomposition, KxGroup, Mode, Protocol};

use super::*;
use crate::data::testdata::{phases_of, sample as base, with_peers};

fn texts(ev: &Evidence, topic: Topic) -> Vec<String> {
    findings(ev)
        .into_iter()
        .filter(|f| f.topic == topic)
        .map(|f| f.text)
        .collect()
}

fn over_tcp(candidate: &str, ratio: f64, ci: Option<[f64; 2]>) -> Comparison {
    Comparison {
        kind: ComparisonKind::TlsOverTcp,
        baseline: "tcp-connect".into(),
        candidate: candidate.into(),
        p50_ratio: ratio,
        ci95: ci,
        ci_unavailable: ci.is_none().then(|| "fewer than 5 rounds".into()),
        basis: None,
    }
}

#[test]
fn a_full_handshake_states_its_median_interval_and_multiple_of_tcp() {
    let mut ev = base();
    assert_eq!(
        texts(&ev, Topic::FullCost),
        ["A full handshake (rustls · x25519) takes at the median: TLS 1.3 with ecdsa-p256 400 µs [390 µs – 450 µs]."],
        "without a TLS-over-TCP comparison there is no multiple"
    );
    ev.comparisons.push(over_tcp(
        "tls13-full-ecdsa-p256-x25519",
        19.05,
        Some([18.0, 20.0]),
    ));
    assert_eq!(
        texts(&ev, Topic::FullCost),
        ["A full handshake (rustls · x25519) takes at the median: TLS 1.3 with ecdsa-p256 400 µs [390 µs – 450 µs], 19.05× [18.00× – 20.00×] a TCP connect."]
    );
    ev.comparisons[1].ci95 = None;
    ev.arms[1].p50_ci95_us = None;
    assert_eq!(
        texts(&ev, Topic::FullCost),
        ["A full handshake (rustls · x25519) takes at the median: TLS 1.3 with ecdsa-p256 400 µs (no CI), 19.05× (no CI) a TCP connect."],
        "a missing interval is said, never invented"
    );
}

#[test]
fn resumption_names_version_kind_stack_and_both_medians() {
    assert_eq!(
        texts(&base(), Topic::Resumption),
        ["Resuming (rustls · ecdsa-p256 · x25519) is faster than a full handshake: TLS 1.3 by ticket 2.00× [1.50× – 2.50×] (200 µs against 400 µs)."]
    );
}

#[test]
fn an_arm_that_did_not_resume_gives_no_speedup_and_is_always_reported() {
    let mut ev = base();
    let r = &mut ev.arms[2];
    r.error = Some("resumed arm: 1 of 4 handshakes were full".into());
    r.resumed.client = 3;
    assert!(texts(&ev, Topic::Resumption).is_empty());
    assert_eq!(
        texts(&ev, Topic::Pitfall),
        ["tls13-resumed-ticket-ecdsa-p256-x25519: resumed arm: 1 of 4 handshakes were full: 3 of 4 connections resumed."]
    );
    // The full arm's sentence survives: its own numbers are sound.
    assert_eq!(texts(&ev, Topic::FullCost).len(), 1);
}

#[test]
fn peers_get_their_own_stack_and_the_known_pitfall_its_count() {
    let ev = with_peers();
    let full = texts(&ev, Topic::FullCost);
    assert!(full.contains(&"A full handshake (python-ssl · x25519) takes at the median: TLS 1.3 with ecdsa-p256 900 µs [900 µs – 950 µs].".to_string()), "{full:#?}");
    assert!(full.contains(&"A full handshake (rustls → openssl-s_server · x25519) takes at the median: TLS 1.3 with ecdsa-p256 700 µs [700 µs – 720 µs].".to_string()), "{full:#?}");
    let res = texts(&ev, Topic::Resumption);
    assert!(res.contains(&"openssl-s_time → openssl-s_server: resuming makes 4.00× [3.60× – 4.40×] (TLS 1.2 ecdsa-p256) as many connections per real second as connecting anew.".to_string()), "{res:#?}");
    assert!(
        !res.iter().any(|s| s.contains("6.00×")),
        "the per-user-CPU ratio is the chart's, not a sentence: {res:#?}"
    );
    assert_eq!(
        texts(&ev, Topic::Pitfall),
        ["s_time-tls13-reuse-vs-s_server did not resume, a known pitfall (s_time -reuse under TLS 1.3 without reading): 0 of 100 connections resumed."]
    );
}

#[test]
fn rate_slices_give_the_pitfall_its_resumed_count() {
    let mut ev = with_peers();
    let a = ev.arms.last_mut().unwrap();
    let rate = a.rate.as_mut().unwrap();
    rate.slices = serde_json::from_str(
        r#"[{"connections": 400, "resumed": 0, "user_cpu_s": 1.0, "real_s": 1.0},
            {"connections": 318, "resumed": 2, "user_cpu_s": 1.0, "real_s": 1.0}]"#,
    )
    .unwrap();
    assert!(texts(&ev, Topic::Pitfall)[0].ends_with(": 2 of 718 connections resumed."));
}

#[test]
fn the_lab_questions_are_answered_on_top_with_each_arms_resumed_count() {
    let mut ev = with_peers();
    // Python resumed on both ends, 3 of 3 by the client's count and by the server's;
    // s_time's TLS 1.2 reuse resumed 100 of 100 by its own slices; its TLS 1.3 reuse
    // (the fixture's known pitfall) 0 of 100.
    let mut py = ev
        .arms
        .iter()
        .find(|a| a.id == "python-tls13-full")
        .unwrap()
        .clone();
    py.id = "python-tls13-resumed".into();
    py.mode = Mode::Resumed;
    (py.succeeded, py.resumed.client, py.resumed.server) = (3, 3, 3);
    ev.arms.push(py);
    let tls12 = ev
        .arms
        .iter_mut()
        .find(|a| a.id == "s_time-tls12-reuse-vs-s_server")
        .unwrap();
    tls12.rate.as_mut().unwrap().slices = serde_json::from_str(
        r#"[{"connections": 100, "resumed": 100, "user_cpu_s": 1.0, "real_s": 1.0}]"#,
    )
    .unwrap();
    let answers: Vec<_> = findings(&ev)
        .into_iter()
        .filter(|f| f.data.iter().any(|d| d.metric == "connections resumed"))
        .filter(|f| f.topic == Topic::Resumption)
        .collect();
    assert_eq!(
        answers.len(),
        2,
        "one for Python, one for s_time: {answers:#?}"
    );
    assert!(answers.iter().all(|f| f.headline), "on top");
    let counts: Vec<Vec<(&str, f64)>> = answers
        .iter()
        .map(|f| f.data.iter().map(|d| (d.arm.as_str(), d.value)).collect())
        .collect();
    assert_eq!(
        counts,
        [
            vec![("python-tls13-resumed", 3.0)],
            vec![
                ("s_time-tls12-reuse-vs-s_server", 100.0),
                ("s_time-tls13-reuse-vs-s_server", 0.0)
            ],
        ]
    );
    // The server's own count is said beside Python's, and only the full count is a yes.
    assert!(
        answers[0]
            .text
            .contains("Yes, every connection, in 1 of its 1 resumed arm: python-tls13-resumed TLS 1.3 (3 of 3 connections resumed, 3 by the server's count)."),
        "{}",
        answers[0].text
    );
    assert!(
        answers[1].text.contains(
            "Yes, every connection, in 1 of its 2 resumed arms: s_time-tls12-reuse-vs-s_server TLS 1.2 (100 of 100"
        ),
        "{}",
        answers[1].text
    );
    assert!(
        answers[1].text.contains(
            "Not in 1: s_time-tls13-reuse-vs-s_server TLS 1.3 (0 of 100 connections resumed) — a known pitfall: "
        ),
        "{}",
        answers[1].text
    );
    // One connection the server did not count as resumed makes Python's answer a no.
    let py = ev
        .arms
        .iter_mut()
        .find(|a| a.id == "python-tls13-resumed")
        .unwrap();
    py.resumed.server = 2;
    let first = findings(&ev)
        .into_iter()
        .find(|f| f.text.starts_with("Did Python"))
        .unwrap();
    assert!(
        first
            .text
            .contains("No: python-tls13-resumed TLS 1.3 (3 of 3 connections resumed, 2 by"),
        "{}",
        first.text
    );
}

#[test]
fn failed_connections_without_an_error_are_reported() {
    let mut ev = base();
    let a = &mut ev.arms[1];
    (a.attempted, a.failed, a.first_failure) = (5, 1, Some("connection reset".into()));
    assert_eq!(
        texts(&ev, Topic::Pitfall),
        ["tls13-full-ecdsa-p256-x25519: 1 of 5 timed connections failed (first: connection reset)."]
    );
}

#[test]
fn an_arm_without_latencies_gives_no_number() {
    let mut ev = base();
    let a = &mut ev.arms[1];
    a.latency_us = None;
    a.p50_ci95_us = None;
    assert!(texts(&ev, Topic::FullCost).is_empty());
    assert!(texts(&ev, Topic::Resumption).is_empty());
    let mut ev = base();
    ev.arms[1].skipped = Some("not asked for".into());
    assert!(texts(&ev, Topic::FullCost).is_empty());
    let mut ev = base();
    ev.arms[1].rtt_ms = Some(20.0);
    assert!(
        texts(&ev, Topic::FullCost).is_empty(),
        "an emulated-RTT arm is not a loopback cost"
    );
}

#[test]
fn the_hybrid_is_priced_against_x25519_on_the_same_stack_protocol_and_cert() {
    let mut ev = base();
    let mut pq = sample::arm(
        "tls13-full-ecdsa-p256-x25519mlkem768",
        Protocol::Tls13,
        Mode::Full,
        None,
        vec![430.0, 440.0, 450.0, 470.0],
    );
    pq.kx_group = Some(KxGroup::X25519Mlkem768);
    ev.arms.push(pq);
    assert_eq!(
        texts(&ev, Topic::PostQuantum),
        ["The post-quantum hybrid X25519MLKEM768 makes a full TLS 1.3 handshake (rustls · ecdsa-p256 · x25519mlkem768) 10% dearer: 440 µs [430 µs – 470 µs] against 400 µs [390 µs – 450 µs] with X25519."]
    );
    assert_eq!(
        texts(&ev, Topic::FullCost).len(),
        1,
        "the hybrid has its own sentence"
    );
    ev.arms[1].error = Some("broken".into());
    assert!(
        texts(&ev, Topic::PostQuantum).is_empty(),
        "no sound X25519 arm, no comparison"
    );
}

#[test]
fn where_the_time_goes_comes_from_the_decomposition() {
    let mut ev = base();
    let d = Decomposition {
        path: Vec::new(),
        tcp_connect_us: 20.0,
        client_cpu_us: 120.0,
        client_floor_us: 70.0,
        client_thread_cpu_us: 118.0,
        server_cpu_us: 200.0,
        server_floor_us: 150.0,
        server_thread_cpu_us: 199.0,
        hops: 2,
        hop_us: 25.0,
        waiting_us: 50.0,
        waiting_measured_us: 60.0,
        predicted_us: 390.0,
        // The traced connections' median; the headline's (untraced) p50 is 400 µs.
        measured_p50_us: 412.0,
        prediction_ratio: 0.95,
        miss: None,
    };
    assert!(
        texts(&ev, Topic::Phases).is_empty(),
        "no decomposition, no sentence"
    );
    ev.arms[1].phases = Some(phases_of(d.clone()));
    assert_eq!(
        texts(&ev, Topic::Phases),
        ["Where a full TLS 1.3 handshake's 412 µs goes (rustls · ecdsa-p256 · x25519; the median of its traced connections, which stamp every moment: 3% above the headline's 400 µs, of the untraced ones): server work 200 µs (150 µs of it public-key operations), client work 120 µs (70.0 µs of it public-key operations), connect 20.0 µs, 50.0 µs waiting over 2 hops; the model predicts 390 µs (0.95 of the traced median)."]
    );
    // The floor is timed apart: above the server's measured work it is said beside it,
    // not as a part (the issue's "server work 989 µs (1.01 ms public-key)"), and a traced
    // median below the headline's says so.
    let mut floor_above = d.clone();
    (floor_above.server_cpu_us, floor_above.server_floor_us) = (989.0, 1010.0);
    floor_above.measured_p50_us = 392.0;
    ev.arms[1].phases = Some(phases_of(floor_above.clone()));
    let text = &texts(&ev, Topic::Phases)[0];
    assert!(text.contains(": 2% below the headline's 400 µs,"), "{text}");
    assert!(text.contains("server work 989 µs (its public-key operations, timed apart, take 1.01 ms: more than the work measured here), client work 120 µs (70.0 µs of it"), "{text}");
    floor_above.measured_p50_us = 401.0;
    ev.arms[1].phases = Some(phases_of(floor_above));
    assert!(texts(&ev, Topic::Phases)[0].contains(": the same as the headline's 400 µs,"));
    let mut missed = d;
    missed.miss = Some("the model predicts 500 µs, 25% above".into());
    (missed.predicted_us, missed.prediction_ratio) = (500.0, 1.25);
    ev.arms[1].phases = Some(phases_of(missed));
    assert!(texts(&ev, Topic::Phases)[0].ends_with(
        "the model predicts 500 µs (1.25 of the traced median). The model misses by 25%: part of the time is not explained."
    ));
}

#[test]
fn zero_rtt_says_how_many_connections_sent_early_data() {
    let mut ev = base();
    let mut z = sample::arm(
        "tls13-0rtt-ecdsa-p256-x25519",
        Protocol::Tls13,
        Mode::Resumed,
        Some(shared::Resumption::Ticket),
        vec![100.0, 110.0, 120.0, 130.0],
    );
    z.early_data = Some(shared::EarlyData {
        offered: 4,
        accepted: 4,
    });
    ev.arms.push(z);
    ev.comparisons.push(Comparison {
        kind: ComparisonKind::ZeroRttSpeedup,
        baseline: "tls13-full-ecdsa-p256-x25519".into(),
        candidate: "tls13-0rtt-ecdsa-p256-x25519".into(),
        p50_ratio: 3.64,
        ci95: Some([3.0, 4.0]),
        ci_unavailable: None,
        basis: None,
    });
    assert_eq!(
        texts(&ev, Topic::ZeroRtt),
        ["0-RTT (rustls · ecdsa-p256 · x25519) answers 3.64× [3.00× – 4.00×] sooner than a full handshake on loopback: first byte after 110 µs against 400 µs; the server accepted early data on 4 of 4 connections."]
    );
}

#[test]
fn each_topic_names_an_existing_chart_and_says_which() {
    // The ids the page gives its charts: the headline's (components/headline.rs),
    // chart-<stem>-<key> and grid-<key> (components/views.rs), and the arm table.
    let mut names = Vec::new();
    for (topic, headline, id) in [
        (Topic::FullCost, true, "#chart-head-percentiles"),
        (Topic::FullCost, false, "#chart-stacks-7"),
        (Topic::PostQuantum, true, "#grid-7"),
        (Topic::Resumption, true, "#chart-head-speedups"),
        (Topic::Resumption, false, "#chart-stack-speedups-7"),
        (Topic::Phases, true, "#chart-phases-7"),
        (Topic::ZeroRtt, true, "#chart-ttfb-7"),
        (Topic::KeepAlive, true, "#chart-ttfb-7"),
        (Topic::Capability, true, "#table-section"),
        (Topic::Pitfall, true, "#table-section"),
    ] {
        let (href, name) = topic.target(headline, 7);
        assert_eq!(href, id);
        names.push((href, name));
    }
    // One link name per place: a reader's list of links tells them apart.
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            assert_eq!(a.0 == b.0, a.1 == b.1, "{a:?} {b:?}");
        }
    }
}

#[test]
fn one_sentence_per_stack_and_group_and_peers_are_not_headlines() {
    let mut ev = crate::data::testdata::with_tls12();
    let mut rsa = sample::arm(
        "tls13-full-rsa2048-x25519",
        Protocol::Tls13,
        Mode::Full,
        None,
        vec![900.0, 1000.0, 1100.0, 1200.0],
    );
    rsa.cert = Some(shared::CertKind::Rsa2048);
    ev.arms.push(rsa);
    assert_eq!(
        texts(&ev, Topic::FullCost),
        ["A full handshake (rustls · x25519) takes at the median: TLS 1.3 with ecdsa-p256 400 µs [390 µs – 450 µs]; TLS 1.2 with ecdsa-p256 510 µs [500 µs – 600 µs]; TLS 1.3 with rsa2048 1.00 ms [900 µs – 1.20 ms]."]
    );
    assert_eq!(
        texts(&ev, Topic::Resumption),
        ["Resuming (rustls · ecdsa-p256 · x25519) is faster than a full handshake: TLS 1.3 by ticket 2.00× [1.50× – 2.50×] (200 µs against 400 µs); TLS 1.2 by ticket 1.70× [1.60× – 1.80×] (300 µs against 510 µs)."]
    );
    assert!(findings(&ev).iter().all(|f| f.headline));
    let peers = findings(&with_peers());
    let not_headline: Vec<&str> = peers
        .iter()
        .filter(|f| !f.headline)
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(not_headline.len(), 3, "{not_headline:#?}");
    assert!(not_headline
        .iter()
        .all(|t| t.contains("python-ssl") || t.contains("openssl-s_")));
    assert!(
        peers
            .iter()
            .any(|f| f.headline && f.topic == Topic::Pitfall),
        "a pitfall is always a headline"
    );
}

#[test]
fn keepalive_link_and_probe_lines_of_the_collector_are_findings() {
    let mut ev = base();
    let extra = &mut ev.run.settings.extra;
    extra.insert(
        "keepalive_findings".into(),
        "tls1.3 ecdsa-p256 x25519, loopback: keep-alive 37.8 µs · tls1.3 ecdsa-p256 x25519, at 20 ms RTT: keep-alive 21.22 ms".into(),
    );
    extra.insert(
        "probe_findings".into(),
        "trust: untrusted: CA certificate used as end entity · versions: tls1.3 yes, tls1.2 no · resumption: tls1.3 tickets yes · verification: no TLS arm timed (untrusted)".into(),
    );
    assert_eq!(
        texts(&ev, Topic::KeepAlive),
        [
            "Per request, tls1.3 ecdsa-p256 x25519, loopback: keep-alive 37.8 µs.",
            "Per request, tls1.3 ecdsa-p256 x25519, at 20 ms RTT: keep-alive 21.22 ms."
        ]
    );
    assert_eq!(
        texts(&ev, Topic::Capability),
        [
            "Certificate trust: untrusted: CA certificate used as end entity.",
            "The server offers versions: tls1.3 yes, tls1.2 no.",
            "The server offers resumption: tls1.3 tickets yes.",
            "Certificate verification: no TLS arm timed (untrusted)."
        ]
    );
    ev.run.settings.extra.insert(
        "link_findings".into(),
        "tcp-connect-loss30pct-rtt20ms (rtt=20ms,loss=30%,mtu=1500): p50 21.00 ms, p95 1.02 s: 6 of 24 connections (25%) included a client retransmission".into(),
    );
    assert_eq!(
        texts(&ev, Topic::Link),
        ["On the emulated link, tcp-connect-loss30pct-rtt20ms (rtt=20ms,loss=30%,mtu=1500): p50 21.00 ms, p95 1.02 s: 6 of 24 connections (25%) included a client retransmission."]
    );
    ev.run
        .settings
        .extra
        .insert("probe_findings".into(), "x".repeat(2000));
    let long = texts(&ev, Topic::Capability);
    assert_eq!(
        long[0].chars().count(),
        "The server offers ".len() + 600 + 2
    );
}
