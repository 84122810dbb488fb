//! Phase timing in the evidence: what validation accepts and each rule it enforces.

use shared::{
    sample, Decomposition, Evidence, EvidenceError, PathStep, PhaseStat, Phases, StepKind,
};

/// The sample's TLS 1.3 full arm (4 connections) with phases whose numbers are written
/// out by hand: client moments at 0, 20, 100, 390 µs; server at 30, 50, 80, 120.
fn with_phases() -> Evidence {
    let mut e = sample::evidence();
    let rows = |r: &[f64]| vec![r.to_vec(); 4];
    e.arms[1].phase_recording = Some(true);
    e.arms[1].phases = Some(Phases {
        client_events: ["start", "connected", "s1_read", "done"]
            .map(String::from)
            .to_vec(),
        server_events: ["accepted", "c1_read", "s1_ready", "done"]
            .map(String::from)
            .to_vec(),
        client: vec![PhaseStat {
            from: "start".into(),
            to: "connected".into(),
            wall_p50_us: 20.0,
            cpu_p50_us: 5.0,
        }],
        server: Vec::new(),
        decomposition: Some(Decomposition {
            path: vec![PathStep {
                kind: StepKind::Connect,
                label: "client start → connected".into(),
                p50_us: 20.0,
                idle_us: None,
                modelled_us: None,
            }],
            tcp_connect_us: 20.0,
            client_cpu_us: 300.0,
            client_floor_us: 100.0,
            client_thread_cpu_us: 290.0,
            server_cpu_us: 30.0,
            server_floor_us: 20.0,
            server_thread_cpu_us: 29.0,
            hops: 2,
            hop_us: 25.0,
            waiting_us: 50.0,
            waiting_measured_us: 60.0,
            predicted_us: 400.0,
            measured_p50_us: 400.0,
            prediction_ratio: 1.0,
            miss: None,
        }),
        irregular: 0,
        client_wall_us: rows(&[0.0, 20.0, 100.0, 390.0]),
        client_cpu_us: rows(&[0.0, 5.0, 6.0, 200.0]),
        server_wall_us: rows(&[30.0, 50.0, 80.0, 120.0]),
        server_cpu_us: rows(&[0.0, 1.0, 29.0, 30.0]),
    });
    e
}

fn violation_at(e: &Evidence, path: &str) {
    match Evidence::from_json(&e.to_json()) {
        Err(EvidenceError::Invariant(vs)) => assert!(
            vs.iter().any(|v| v.path == path),
            "expected a violation at {path}, got {vs:?}"
        ),
        other => panic!("expected an invariant error at {path}, got {other:?}"),
    }
}

fn phases(e: &mut Evidence) -> &mut Phases {
    e.arms[1].phases.as_mut().unwrap()
}

#[test]
fn phases_round_trip() {
    let e = with_phases();
    let back = Evidence::from_json(&e.to_json()).expect("valid");
    assert_eq!(back, e);
}

#[test]
fn one_row_of_moments_per_succeeded_connection() {
    let mut e = with_phases();
    phases(&mut e).client_wall_us.pop();
    violation_at(&e, "arms[1].phases.client_wall_us");
    let mut e = with_phases();
    phases(&mut e).server_cpu_us.push(vec![0.0; 4]);
    violation_at(&e, "arms[1].phases.server_cpu_us");
}

#[test]
fn moments_are_in_time_order_and_finite() {
    let mut e = with_phases();
    phases(&mut e).client_wall_us[2] = vec![0.0, 20.0, 19.0, 390.0];
    violation_at(&e, "arms[1].phases.client_wall_us[2]");
    let mut e = with_phases();
    phases(&mut e).server_cpu_us[3][1] = f64::NAN;
    // NaN is written as null, which is not a number: a field error, not an invariant.
    assert!(Evidence::from_json(&e.to_json()).is_err());
    let mut e = with_phases();
    phases(&mut e).server_wall_us[0] = vec![30.0, 10.0, 80.0, 120.0];
    violation_at(&e, "arms[1].phases.server_wall_us[0]");
}

#[test]
fn the_prediction_is_the_sum_of_its_parts() {
    let mut e = with_phases();
    phases(&mut e).decomposition.as_mut().unwrap().predicted_us = 450.0;
    violation_at(&e, "arms[1].phases.decomposition.predicted_us");
    let mut e = with_phases();
    phases(&mut e).decomposition.as_mut().unwrap().waiting_us = -1.0;
    violation_at(&e, "arms[1].phases.decomposition");
}

#[test]
fn with_a_hop_curve_the_waiting_is_the_sum_of_the_flights_hops() {
    let mut e = with_phases();
    let d = phases(&mut e).decomposition.as_mut().unwrap();
    let wire = |label: &str, idle: f64, hop: f64| PathStep {
        kind: StepKind::Wire,
        label: label.into(),
        p50_us: hop,
        idle_us: Some(idle),
        modelled_us: Some(hop),
    };
    // 18.5 + 31.5 = 50 = waiting_us: valid.
    d.path.push(wire("c1_ready → c1_read", 3.0, 18.5));
    d.path.push(wire("s1_ready → s1_read", 250.0, 31.5));
    let good = e.clone();
    Evidence::from_json(&good.to_json()).expect("the flights' hops add up to the waiting");
    // One flight's hop off by 2 µs.
    let d = phases(&mut e).decomposition.as_mut().unwrap();
    d.path[2].modelled_us = Some(33.5);
    violation_at(&e, "arms[1].phases.decomposition.waiting_us");
    // A flight without its modelled hop while another has one.
    let mut e = good;
    let d = phases(&mut e).decomposition.as_mut().unwrap();
    d.path[2].modelled_us = None;
    violation_at(&e, "arms[1].phases.decomposition.waiting_us");
}

#[test]
fn irregular_connections_are_at_most_the_successes() {
    let mut e = with_phases();
    phases(&mut e).irregular = 5;
    violation_at(&e, "arms[1].phases.irregular");
}

#[test]
fn a_control_arm_names_an_arm_that_is_not_a_control() {
    let mut e = with_phases();
    e.arms[2].control_of = Some("no-such-arm".into());
    violation_at(&e, "arms[2].control_of");
    let mut e = with_phases();
    e.arms[2].control_of = Some(e.arms[1].id.clone());
    e.arms[1].control_of = Some(e.arms[0].id.clone());
    violation_at(&e, "arms[2].control_of");
}

#[test]
fn a_control_arm_enters_only_its_own_comparison() {
    // The sample's one comparison is a resume speedup of arm 1 (full) over arm 2.
    let mut e = with_phases();
    e.arms[2].control_of = Some(e.arms[1].id.clone());
    violation_at(&e, "comparisons[0]");
    // Its own comparison: control as the baseline, the traced arm as the candidate.
    let mut e = with_phases();
    e.comparisons.clear();
    e.arms[2].control_of = Some(e.arms[1].id.clone());
    e.comparisons.push(shared::Comparison {
        kind: shared::ComparisonKind::PhaseRecordingCost,
        baseline: e.arms[2].id.clone(),
        candidate: e.arms[1].id.clone(),
        p50_ratio: 2.0,
        ci95: Some([1.9, 2.1]),
        ci_unavailable: None,
        basis: None,
    });
    Evidence::from_json(&e.to_json()).expect("a control arm in its own comparison");
    // The same kind with a traced arm as the baseline is refused.
    let mut swapped = e.clone();
    let c = &mut swapped.comparisons[0];
    std::mem::swap(&mut c.baseline, &mut c.candidate);
    violation_at(&swapped, "comparisons[0].baseline");
}
