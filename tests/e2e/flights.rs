//! Certificates that cost a round trip, end to end over the emulated link (as root): a
//! two-intermediate ML-DSA-87 chain makes the server's first flight larger than TCP's
//! initial window, and its handshake takes at least one round trip more than ECDSA
//! P-256's. Asserted on the round-trip multiples the evidence records, with a margin;
//! never on a time.

use e2e::{collector, read_evidence, scratch};

#[test]
fn an_ml_dsa_87_chain_costs_a_round_trip_more_than_ecdsa_p256_at_50ms() {
    if !e2e::needs_root("an_ml_dsa_87_chain_costs_a_round_trip_more_than_ecdsa_p256_at_50ms") {
        return;
    }
    let dir = scratch("flights-50ms");
    // Three samples per arm, one warm-up before each of three chunks: a few seconds of
    // 50 ms round trips.
    let out = collector()
        .args([
            "run",
            "--no-peers",
            "--no-floor",
            "--rtt",
            "50ms",
            "--certs",
            "ecdsa-p256,ml-dsa-87",
            "--chain-depth",
            "2",
            "--groups",
            "x25519",
            "--arms",
            "tls13-full",
            "--samples",
            "3",
            "--rounds",
            "3",
            "--warmup",
            "3",
            "--out",
            dir.to_str().unwrap(),
        ])
        .output()
        .expect("collector runs");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir);
    assert_eq!(
        e.run.settings.extra.get("chain_depth").map(String::as_str),
        Some("2")
    );
    let arm = |cert: &str| {
        let id = format!("tls13-full-{cert}-x25519-rtt50ms");
        e.arms.iter().find(|a| a.id == id).unwrap_or_else(|| {
            panic!(
                "no {id}: {:?}",
                e.arms.iter().map(|a| &a.id).collect::<Vec<_>>()
            )
        })
    };
    let (ec, pq) = (arm("ecdsa-p256"), arm("ml-dsa-87"));
    for a in [ec, pq] {
        assert_eq!(a.error, None, "{}", a.id);
        let w = a.wire.as_ref().expect("wire sizes recorded");
        assert_eq!(
            w.chain_certificates,
            Some(3),
            "{}: leaf + 2 intermediates",
            a.id
        );
        let f = w
            .server_first_flight
            .as_ref()
            .expect("server flight counted");
        assert!(
            f.segments_p50.is_some() && f.initial_cwnd.is_some() && f.mss.is_some(),
            "{}: TCP_INFO read on the link: {f:?}",
            a.id
        );
        // TCP cannot carry a flight in fewer segments than its bytes over the MSS (a
        // count closed half a round trip early, at the client's lone CCS, would).
        let at_least = |f: &shared::FlightSizes| f.bytes_p50.div_ceil(f.mss.unwrap());
        assert!(f.segments_p50.unwrap() >= at_least(f), "{}: {f:?}", a.id);
        let ch = w.client_hello.as_ref().expect("ClientHello counted");
        assert!(
            ch.segments_p50.unwrap() >= at_least(ch).max(1),
            "{}: {ch:?}",
            a.id
        );
        assert!(
            a.server_tcp.is_some(),
            "{}: the server's TCP counters",
            a.id
        );
    }
    let flight = |a: &shared::Arm| a.wire.clone().unwrap().server_first_flight.unwrap();
    let (fe, fp) = (flight(ec), flight(pq));
    assert!(
        pq.wire.as_ref().unwrap().chain_bytes > ec.wire.as_ref().unwrap().chain_bytes,
        "ML-DSA-87's chain is the larger"
    );
    assert_eq!(
        fe.exceeds_window(),
        Some(false),
        "ECDSA's flight fits: {fe:?}"
    );
    assert_eq!(
        fp.exceeds_window(),
        Some(true),
        "ML-DSA-87's does not: {fp:?}"
    );
    assert!(fp.segments_p50 > fe.segments_p50, "{fe:?} {fp:?}");
    let (me, mp) = (ec.rtt_multiple.unwrap(), pq.rtt_multiple.unwrap());
    // One round trip more, less a margin for the relay's and the hosts' own time.
    assert!(
        mp - me >= 0.7,
        "ML-DSA-87 chain {mp:.2} RTT against ECDSA P-256 {me:.2} RTT: expected at least one more"
    );
}
