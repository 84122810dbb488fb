//! Which arms one ratio may pair ([`same_cell`], [`same_conditions`]) and what an arm
//! says about phase recording ([`phase_recording`]): each condition on its own, so a
//! comparison across cells, or a claim about recording that was not made, fails here.

use shared::sample;
use shared::{Arm, CertKind, KxGroup, Mode, Protocol, Resumption, Stack};

use super::*;
use crate::arms::trace::ConnTrace;
use crate::arms::ArmRun;
use crate::arms::{ArmSpec, PhaseRecording};
use crate::measure::record::phase_recording;

fn full() -> Arm {
    sample::arm(
        "tls13-full-ecdsa-p256-x25519",
        Protocol::Tls13,
        Mode::Full,
        None,
        vec![400.0, 410.0, 390.0],
    )
}

fn resumed() -> Arm {
    sample::arm(
        "tls13-resumed-ticket-ecdsa-p256-x25519",
        Protocol::Tls13,
        Mode::Resumed,
        Some(Resumption::Ticket),
        vec![200.0, 210.0, 190.0],
    )
}

/// `clients` concurrent clients, as a capacity arm records them.
fn capacity(clients: u64) -> Option<shared::Capacity> {
    Some(
        serde_json::from_value(serde_json::json!({
            "clients": clients,
            "server_workers": 1,
            "per_second": [],
            "rate_median_per_s": 0.0,
            "rate_iqr_per_s": [0.0, 0.0],
        }))
        .unwrap(),
    )
}

#[test]
fn a_full_and_a_resumed_arm_of_one_handshake_are_one_cell() {
    assert!(same_cell(&full(), &resumed()));
    assert!(same_cell(&resumed(), &full()));
    assert!(same_cell(&full(), &full()));
}

/// One field changed, named.
type Change = fn(&mut Arm);

#[test]
fn every_difference_but_the_mode_makes_another_cell() {
    let changes: [(&str, Change); 8] = [
        ("stack", |a| a.stack = Stack::Nginx),
        ("protocol", |a| a.protocol = Protocol::Tls12),
        ("cert", |a| a.cert = Some(CertKind::Rsa2048)),
        ("group", |a| a.kx_group = Some(KxGroup::Secp256r1)),
        ("client stack", |a| a.client_stack = Stack::OpensslSTime),
        ("server stack", |a| a.server_stack = Stack::OpensslSServer),
        ("clients", |a| a.capacity = capacity(4)),
        ("rtt", |a| a.rtt_ms = Some(20.0)),
    ];
    for (what, change) in changes {
        let mut other = resumed();
        change(&mut other);
        assert!(!same_cell(&full(), &other), "{what} differs: not one cell");
        assert!(!same_cell(&other, &full()), "{what} differs: not one cell");
    }
}

#[test]
fn conditions_are_the_emulated_rtt_and_the_concurrent_clients() {
    let (mut a, mut b) = (full(), resumed());
    assert!(same_conditions(&a, &b));
    // Other fields do not make conditions.
    b.cert = Some(CertKind::Rsa2048);
    b.protocol = Protocol::Tcp;
    assert!(same_conditions(&a, &b));
    a.rtt_ms = Some(20.0);
    assert!(!same_conditions(&a, &b), "20 ms RTT against loopback");
    b.rtt_ms = Some(20.0);
    assert!(same_conditions(&a, &b));
    b.rtt_ms = Some(50.0);
    assert!(!same_conditions(&a, &b), "20 ms against 50 ms");
    b.rtt_ms = Some(20.0);
    a.capacity = capacity(4);
    assert!(!same_conditions(&a, &b), "4 clients against 1");
    assert!(!same_conditions(&b, &a), "1 client against 4");
    b.capacity = capacity(4);
    assert!(same_conditions(&a, &b));
    b.capacity = capacity(2);
    assert!(!same_conditions(&a, &b), "4 clients against 2");
    b.capacity = capacity(4);
    // On one RTT, the link's model is a condition; its seed and counts are not.
    let link = |loss: f64, seed: u64| {
        Some(shared::Link {
            asked: String::new(),
            rtt_ms: 20.0,
            loss,
            burst_packets: None,
            jitter_ms: 0.0,
            rate_bit_s: None,
            limit_packets: None,
            mtu: 1500,
            seed,
            client_to_server: shared::LinkCounts::default(),
            server_to_client: shared::LinkCounts::default(),
            per_connection: None,
        })
    };
    (a.link, b.link) = (link(0.2, 1), link(0.0, 1));
    assert!(!same_conditions(&a, &b), "20% loss against 0%");
    assert!(!same_conditions(&b, &a), "0% loss against 20%");
    b.link = link(0.2, 2);
    assert!(same_conditions(&a, &b), "one loss rate, two seeds");
    b.link.as_mut().unwrap().rate_bit_s = Some(1_000_000_000);
    assert!(!same_conditions(&a, &b), "a rate against none");
    b.link = None;
    assert!(!same_conditions(&a, &b), "a link model against none");
}

#[test]
fn a_speedup_pairs_a_resumed_arm_only_with_the_full_arm_of_its_cell() {
    // The only full arm has another certificate: no speedup, rather than a false one.
    let mut rsa = full();
    rsa.cert = Some(CertKind::Rsa2048);
    rsa.id = "tls13-full-rsa2048-x25519".into();
    let c = comparisons(&[rsa.clone(), resumed()], 50, 1);
    assert!(c.is_empty(), "{c:?}");
    // With its own cell's full arm beside it, that one is the baseline.
    let c = comparisons(&[rsa, full(), resumed()], 50, 1);
    let speedups: Vec<&str> = c
        .iter()
        .filter(|c| c.kind == ComparisonKind::ResumeSpeedup)
        .map(|c| c.baseline.as_str())
        .collect();
    assert_eq!(speedups, ["tls13-full-ecdsa-p256-x25519"]);
}

#[test]
fn tls_over_tcp_pairs_only_tcp_measured_under_the_same_conditions() {
    let tcp = sample::arm(
        "tcp-connect",
        Protocol::Tcp,
        Mode::Connect,
        None,
        vec![20.0, 21.0],
    );
    let mut far = full();
    far.rtt_ms = Some(20.0);
    let c = comparisons(&[tcp.clone(), far], 50, 1);
    assert!(c.is_empty(), "loopback TCP against a 20 ms RTT arm: {c:?}");
    let c = comparisons(&[tcp, full()], 50, 1);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].kind, ComparisonKind::TlsOverTcp);
}

fn run(spec: ArmSpec) -> ArmRun {
    ArmRun::new(spec, 0)
}

fn tls(phases: PhaseRecording) -> ArmSpec {
    ArmSpec {
        kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
            protocol: Protocol::Tls13,
            mode: Mode::Full,
            resumption: None,
            cert: Some(CertKind::EcdsaP256),
            group: Some(KxGroup::X25519),
            early_data: false,
        }),
        phases,
        ..ArmSpec::TCP_CONNECT
    }
}

#[test]
fn phase_recording_is_true_when_connections_carried_traces() {
    for phases in [PhaseRecording::On, PhaseRecording::Off] {
        let mut r = run(tls(phases));
        r.traces.push(ConnTrace::default());
        assert_eq!(phase_recording(&r), Some(true), "{phases:?}");
    }
    let mut tcp = run(ArmSpec::TCP_CONNECT);
    tcp.traces.push(ConnTrace::default());
    assert_eq!(phase_recording(&tcp), Some(true));
}

#[test]
fn phase_recording_is_false_only_for_a_rustls_handshake_arm_with_recording_off() {
    assert_eq!(phase_recording(&run(tls(PhaseRecording::Off))), Some(false));
    // Traced connections were made (even if none returned a trace): recording was on.
    let mut traced = run(tls(PhaseRecording::On));
    traced.traced = Some(crate::arms::Traced {
        attempted: 1,
        ..Default::default()
    });
    assert_eq!(phase_recording(&traced), Some(true));
    // Recording asked for but no trace came back: nothing is claimed either way.
    assert_eq!(phase_recording(&run(tls(PhaseRecording::On))), None);
    // TCP connect has no phases to record.
    let tcp_off = ArmSpec {
        phases: PhaseRecording::Off,
        ..ArmSpec::TCP_CONNECT
    };
    assert_eq!(phase_recording(&run(tcp_off)), None);
    // Request mode: recording is not what the arm is about.
    let mut request = run(tls(PhaseRecording::Off));
    request.request = true;
    assert_eq!(phase_recording(&request), None);
}
