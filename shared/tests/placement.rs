//! The tracing-cost interval and the placement and tracing records' invariants.

use shared::cluster::paired_difference_ci95;
use shared::{sample, ArmPlacement, CpuPlacement, Evidence, LatencySummary, Tracing};

#[test]
fn a_paired_difference_cancels_drift_shared_by_both() {
    // Round r: every `a` sample is 100 + 10r, every `b` sample 90 + 10r. The rounds drift
    // by 10 each, but in every round a − b = 10: drawing the same rounds for both gives
    // exactly 10 every time.
    let a: Vec<Vec<f64>> = (0..6).map(|r| vec![100.0 + 10.0 * r as f64; 3]).collect();
    let b: Vec<Vec<f64>> = (0..6).map(|r| vec![90.0 + 10.0 * r as f64; 4]).collect();
    let (a, b): (Vec<&[f64]>, Vec<&[f64]>) = (
        a.iter().map(Vec::as_slice).collect(),
        b.iter().map(Vec::as_slice).collect(),
    );
    let mut rng = fastrand::Rng::with_seed(7);
    assert_eq!(
        paired_difference_ci95(&a, &b, 500, &mut rng),
        Some([10.0, 10.0])
    );
}

#[test]
fn a_difference_needs_five_rounds_both_have() {
    let full = [5.0, 6.0];
    let rounds: Vec<&[f64]> = vec![&full; 6];
    let mut holed = rounds.clone();
    holed[0] = &[];
    holed[1] = &[];
    let mut rng = fastrand::Rng::with_seed(1);
    // Six rounds on one side, four shared with samples on both: none.
    assert_eq!(paired_difference_ci95(&rounds, &holed, 100, &mut rng), None);
    assert!(paired_difference_ci95(&rounds, &rounds, 100, &mut rng).is_some());
}

fn with_records(placement: ArmPlacement, tracing: Tracing) -> Evidence {
    let mut e = sample::evidence();
    e.arms[0].placement = Some(placement);
    e.arms[0].tracing = Some(tracing);
    e
}

fn placement(observed: u64, held: u64, same_cpu: u64) -> ArmPlacement {
    ArmPlacement {
        asked: CpuPlacement::Split,
        client_cpus: vec![0],
        server_cpus: vec![1],
        observed,
        held,
        same_cpu,
        sampled_by: "test".into(),
    }
}

fn tracing(samples: Vec<f64>, attempted: u64) -> Tracing {
    let n = samples.len() as u64;
    Tracing {
        untraced_per_traced: 4,
        attempted,
        succeeded: n,
        failed: attempted.saturating_sub(n),
        samples_per_round: vec![n],
        latency_us: Some(LatencySummary {
            min: 1.0,
            p50: 2.0,
            p95: 3.0,
            p99: 3.0,
            max: 3.0,
            mean: 2.0,
            stddev: 0.5,
        }),
        samples_us: samples,
        cost_us: Some(1.5),
        cost_ci95_us: Some([1.0, 2.0]),
        cost_ci_unavailable: None,
    }
}

fn violations(e: &Evidence) -> Vec<String> {
    e.violations().iter().map(|v| v.to_string()).collect()
}

#[test]
fn sound_records_validate_and_survive_a_summary() {
    let e = with_records(placement(2, 2, 0), tracing(vec![1.0, 2.0, 3.0], 3));
    assert!(violations(&e).is_empty(), "{:?}", violations(&e));
    let back = Evidence::from_json(&e.to_json()).unwrap();
    assert_eq!(back, e);
    let s = e.summary();
    assert!(s.arms[0].tracing.as_ref().unwrap().samples_us.is_empty());
    assert!(violations(&s).is_empty(), "{:?}", violations(&s));
}

#[test]
fn broken_records_are_named() {
    let cases: Vec<(Evidence, &str)> = vec![
        (
            with_records(placement(2, 3, 0), tracing(vec![1.0], 1)),
            "arms[0].placement",
        ),
        (
            with_records(placement(9_999, 0, 0), tracing(vec![1.0], 1)),
            "arms[0].placement.observed",
        ),
        (
            {
                let mut t = tracing(vec![1.0, 2.0], 2);
                t.samples_us.push(4.0);
                with_records(placement(1, 1, 0), t)
            },
            "arms[0].tracing.samples_us",
        ),
        (
            {
                let mut t = tracing(vec![1.0], 1);
                t.cost_ci95_us = Some([2.0, 3.0]);
                with_records(placement(1, 1, 0), t)
            },
            "arms[0].tracing.cost_ci95_us",
        ),
        (
            {
                let mut t = tracing(vec![1.0], 1);
                t.failed = 5;
                with_records(placement(1, 1, 0), t)
            },
            "arms[0].tracing.attempted",
        ),
    ];
    for (e, path) in cases {
        let v = violations(&e);
        assert!(v.iter().any(|x| x.contains(path)), "{path}: {v:?}");
    }
}
