//! Each rule of `Evidence::violations` with an example that breaks it, and the path the
//! violation names (written out). The sample evidence: arms[0] TCP connect, arms[1] TLS
//! 1.3 full, arms[2] TLS 1.3 resumed by ticket, 4 connections each; comparisons[0] the
//! resume speedup of arms[1] over arms[2].

use shared::{sample, EarlyData, Evidence, Resumption};

mod common;

/// The paths `change` makes the sample break (it breaks none itself).
fn paths(change: impl FnOnce(&mut Evidence)) -> Vec<String> {
    common::paths(sample::evidence(), change)
}

fn breaks(path: &str, change: impl FnOnce(&mut Evidence)) {
    common::breaks(sample::evidence(), path, change);
}

#[test]
fn early_data_accepted_within_offered_within_succeeded() {
    breaks("arms[2].early_data", |e| {
        e.arms[2].early_data = Some(EarlyData {
            offered: 3,
            accepted: 4,
        })
    });
    breaks("arms[2].early_data", |e| {
        e.arms[2].early_data = Some(EarlyData {
            offered: 5,
            accepted: 1,
        })
    });
    assert!(paths(|e| e.arms[2].early_data = Some(EarlyData {
        offered: 4,
        accepted: 4
    }))
    .is_empty());
}

#[test]
fn resumption_is_named_on_resumed_arms_only() {
    breaks("arms[1].resumption", |e| {
        e.arms[1].resumption = Some(Resumption::Ticket)
    });
    breaks("arms[2].resumption", |e| e.arms[2].resumption = None);
}

#[test]
fn a_ratio_is_finite_and_positive() {
    for bad in [0.0, -2.0, f64::NAN, f64::INFINITY] {
        breaks("comparisons[0].p50_ratio", |e| {
            e.comparisons[0].p50_ratio = bad
        });
    }
}

#[test]
fn a_comparison_ci_is_in_order() {
    breaks("comparisons[0].ci95", |e| {
        e.comparisons[0].ci95 = Some([3.0, 1.0])
    });
}

#[test]
fn samples_are_finite_and_not_negative() {
    breaks("arms[1].samples_us[2]", |e| {
        e.arms[1].samples_us[2] = f64::INFINITY
    });
    breaks("arms[1].samples_us[0]", |e| e.arms[1].samples_us[0] = -1.0);
}

#[test]
fn no_latency_when_nothing_succeeded() {
    breaks("arms[0].latency_us", |e| {
        let a = &mut e.arms[0];
        (a.succeeded, a.failed) = (0, a.attempted);
        a.samples_us.clear();
        // latency_us is left as it was.
    });
}

#[test]
fn resumed_on_either_end_is_at_most_succeeded() {
    breaks("arms[2].resumed.client", |e| e.arms[2].resumed.client = 5);
    breaks("arms[2].resumed.server", |e| e.arms[2].resumed.server = 5);
}

#[test]
fn min_p50_p95_p99_max_in_order() {
    breaks("arms[1].latency_us.p50", |e| {
        e.arms[1].latency_us.as_mut().unwrap().min = 1000.0
    });
    breaks("arms[1].latency_us.max", |e| {
        e.arms[1].latency_us.as_mut().unwrap().max = 1.0
    });
}

#[test]
fn a_comparison_names_its_baseline_among_the_arms() {
    breaks("comparisons[0].baseline", |e| {
        e.comparisons[0].baseline = "nope".into()
    });
}

#[test]
fn an_arm_with_an_error_is_in_no_comparison() {
    breaks("comparisons[0].candidate", |e| {
        e.arms[2].error = Some("0 of 4 connections resumed".into())
    });
    breaks("comparisons[0].baseline", |e| {
        e.arms[1].error = Some("broken".into())
    });
}

#[test]
fn keepalive_figures_belong_to_keepalive_arms_only() {
    use shared::{KeepAlive, Mode};
    // arms[1]'s samples are 400, 410, 390, 450: nearest-rank p50 400.
    let ka = |requests, per| KeepAlive {
        requests_per_connection: requests,
        first_request_p50_us: 900.0,
        per_request_p50_us: per,
        amortized_p50_us: 450.0,
    };
    let keepalive = |e: &mut Evidence| e.arms[1].mode = Mode::KeepAlive;
    breaks("arms[1].keepalive", keepalive);
    breaks("arms[1].keepalive", |e| {
        e.arms[1].keepalive = Some(ka(10, 400.0))
    });
    breaks("arms[1].keepalive.requests_per_connection", |e| {
        keepalive(e);
        e.arms[1].keepalive = Some(ka(1, 400.0));
    });
    breaks("arms[1].keepalive.per_request_p50_us", |e| {
        keepalive(e);
        e.arms[1].keepalive = Some(ka(10, 401.0));
    });
    breaks("arms[1].keepalive.first_request_p50_us", |e| {
        keepalive(e);
        e.arms[1].keepalive = Some(KeepAlive {
            first_request_p50_us: 1e300,
            ..ka(10, 400.0)
        });
    });
    assert!(paths(|e| {
        keepalive(e);
        e.arms[1].keepalive = Some(ka(10, 400.0));
    })
    .iter()
    .all(|p| !p.contains("keepalive")));
}

fn flight(
    connections: u64,
    bytes: [u64; 3],
    segments: (Option<u64>, Option<u64>),
) -> shared::FlightSizes {
    shared::FlightSizes {
        connections,
        bytes_min: bytes[0],
        bytes_p50: bytes[1],
        bytes_max: bytes[2],
        segments_p50: segments.0,
        segments_max: segments.1,
        initial_cwnd: Some(10),
        mss: Some(1448),
    }
}

fn wire(server: shared::FlightSizes) -> shared::Wire {
    shared::Wire {
        chain_certificates: Some(3),
        chain_bytes: Some(20_000),
        server_first_flight: Some(server),
        client_hello: None,
    }
}

#[test]
fn wire_sizes_are_ordered_counted_within_the_successes_and_never_on_plain_tcp() {
    let good = wire(flight(4, [1, 2, 3], (Some(2), Some(3))));
    assert!(paths(|e| e.arms[1].wire = Some(good.clone())).is_empty());
    breaks("arms[0].wire", |e| e.arms[0].wire = Some(good.clone()));
    breaks("arms[1].wire.server_first_flight.connections", |e| {
        e.arms[1].wire = Some(wire(flight(5, [1, 2, 3], (None, None))))
    });
    breaks("arms[1].wire.server_first_flight.bytes_p50", |e| {
        e.arms[1].wire = Some(wire(flight(4, [1, 4, 3], (None, None))))
    });
    breaks("arms[1].wire.server_first_flight.segments_p50", |e| {
        e.arms[1].wire = Some(wire(flight(4, [1, 2, 3], (Some(4), Some(3)))))
    });
    breaks("arms[1].wire.server_first_flight.segments_p50", |e| {
        e.arms[1].wire = Some(wire(flight(4, [1, 2, 3], (Some(4), None))))
    });
    breaks("arms[1].wire.chain_bytes", |e| {
        let mut w = good.clone();
        w.chain_bytes = None;
        e.arms[1].wire = Some(w);
    });
}

#[test]
fn an_rtt_multiple_belongs_to_an_emulated_link_and_is_a_positive_count() {
    breaks("arms[1].rtt_multiple", |e| {
        e.arms[1].rtt_multiple = Some(3.0)
    });
    for bad in [0.0, -1.0, f64::NAN] {
        breaks("arms[1].rtt_multiple", |e| {
            e.arms[1].rtt_ms = Some(50.0);
            e.arms[1].rtt_multiple = Some(bad);
        });
    }
    assert!(paths(|e| {
        e.arms[1].rtt_ms = Some(50.0);
        e.arms[1].rtt_multiple = Some(3.02);
    })
    .is_empty());
}

#[test]
fn tcp_counters_have_one_entry_per_counted_connection() {
    let counters = |n: usize| shared::TcpCounters {
        connections: 4,
        with_retransmission: 0,
        with_rto: None,
        retransmits: vec![0; n],
        rtos: Vec::new(),
        segments_out: vec![5; 4],
        cwnd: vec![10; 4],
    };
    assert!(paths(|e| e.arms[1].server_tcp = Some(counters(4))).is_empty());
    breaks("arms[1].server_tcp", |e| {
        e.arms[1].server_tcp = Some(counters(3))
    });
    breaks("arms[1].tcp", |e| e.arms[1].tcp = Some(counters(5)));
}
