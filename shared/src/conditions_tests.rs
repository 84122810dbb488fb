//! The verdict rules on hand-written evidence: each rule's line, each level, and the
//! comparisons that conditions forbid.

use super::*;
use crate::noise::{ArmChunks, Chunk, ChunkOutcome};
use crate::sample;

fn chunk(probe: f64, outcome: ChunkOutcome) -> Chunk {
    Chunk {
        round: 0,
        steal_percent: Some(0.0),
        probe_us: Some(probe),
        attempted: 10,
        samples: 10,
        outcome,
    }
}

/// Evidence with `steal` per CPU, load 0, and every arm given `chunks`.
fn run(steal: &[f64], chunks: &[Vec<Chunk>]) -> Evidence {
    let mut e = sample::evidence();
    e.environment.steal_percent = steal
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("cpu{i}"), *s))
        .collect();
    e.environment.load_average.before = [0.0; 3];
    e.environment.logical_cpus = 2;
    let base = e.arms[0].clone();
    e.arms = chunks
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let mut a = base.clone();
            a.id = format!("arm-{i}");
            a.chunks = Some(ArmChunks {
                list: list.clone(),
                set_aside_us: Vec::new(),
            });
            a
        })
        .collect();
    e
}

fn used(n: usize) -> Vec<Chunk> {
    vec![chunk(30.0, ChunkOutcome::Used); n]
}

#[test]
fn a_run_with_little_steal_and_every_chunk_used_is_quiet() {
    let c = of(&run(&[0.4, 1.9], &[used(10), used(10)]));
    assert_eq!(c.level, Level::Quiet);
    assert!(c.reasons.is_empty(), "{:?}", c.reasons);
    assert_eq!(c.steal_percent, Some(1.9));
    assert_eq!(c.fast_probe_us, Some(30.0));
}

#[test]
fn steal_makes_a_run_noisy_from_two_per_cent_and_unreliable_from_fifteen() {
    let c = of(&run(&[0.0, 2.0], &[used(10)]));
    assert_eq!(c.level, Level::Noisy);
    assert_eq!(
        c.reasons,
        [Reason::Steal {
            cpu: "cpu1".into(),
            percent: 2.0
        }]
    );
    assert_eq!(of(&run(&[14.9, 3.0], &[used(10)])).level, Level::Noisy);
    assert_eq!(of(&run(&[15.0, 3.0], &[used(10)])).level, Level::Unreliable);
}

#[test]
fn a_tenth_of_chunks_set_aside_makes_a_run_noisy() {
    // 2 of 20 chunks set aside (each arm measured its chunk again).
    let mut a = used(9);
    a.push(chunk(30.0, ChunkOutcome::SetAside));
    let c = of(&run(&[0.0, 0.0], &[a.clone(), a]));
    assert_eq!(c.level, Level::Noisy);
    assert_eq!(
        c.reasons,
        [Reason::SetAside {
            set_aside: 2,
            chunks: 20
        }]
    );
    // 1 of 20 is under the line.
    let mut b = used(9);
    b.push(chunk(30.0, ChunkOutcome::SetAside));
    assert_eq!(of(&run(&[0.0, 0.0], &[b, used(10)])).level, Level::Quiet);
}

#[test]
fn arms_over_budget_make_a_run_noisy_and_a_quarter_of_them_unreliable() {
    let mut over = used(9);
    over.push(chunk(30.0, ChunkOutcome::UsedOverBudget));
    let five = |noisy: usize| -> Vec<Vec<Chunk>> {
        (0..5)
            .map(|i| if i < noisy { over.clone() } else { used(10) })
            .collect()
    };
    let c = of(&run(&[0.0], &five(1)));
    assert_eq!(c.level, Level::Noisy);
    assert_eq!(c.reasons, [Reason::NoisyArms { arms: 1, of: 5 }]);
    // 2 of 5 is 40%, over a quarter.
    assert_eq!(of(&run(&[0.0], &five(2))).level, Level::Unreliable);
}

#[test]
fn chunks_in_two_speed_modes_make_a_run_noisy() {
    // 4 of 20 chunks at 45 µs against 30 µs: 20% slow.
    let mut a = used(10);
    for c in a.iter_mut().take(4) {
        c.probe_us = Some(45.0);
    }
    let c = of(&run(&[0.0], &[a, used(10)]));
    assert_eq!(
        c.reasons,
        [Reason::SpeedModes {
            slow: 4,
            probed: 20,
            fast_us: 30.0,
            slow_us: 45.0
        }]
    );
    assert_eq!(c.level, Level::Noisy);
    // 37 µs is within 1.25 × 30: one mode.
    let mut b = used(10);
    b[0].probe_us = Some(37.0);
    assert_eq!(of(&run(&[0.0], &[b])).level, Level::Quiet);
}

#[test]
fn a_busy_machine_before_the_run_is_noisy() {
    let mut e = run(&[0.0], &[used(10)]);
    e.environment.load_average.before = [3.0, 1.0, 1.0];
    let c = of(&e);
    assert_eq!(c.reasons, [Reason::Busy { load: 3.0, cpus: 2 }]);
    e.environment.load_average.before = [2.9, 1.0, 1.0];
    assert_eq!(of(&e).level, Level::Quiet);
}

#[test]
fn other_programs_beside_the_runs_own_arms_make_it_noisy() {
    let mut e = run(&[0.0], &[used(10)]);
    // 1.2 of 20 CPU seconds: 6%, over the 5% line.
    e.environment.other_work = Some(crate::OtherWork {
        cpu_s: 1.2,
        window_cpu_s: 20.0,
    });
    let c = of(&e);
    assert_eq!(c.level, Level::Noisy);
    assert_eq!(c.reasons.len(), 1, "{:?}", c.reasons);
    match c.reasons[0] {
        Reason::OtherWork { percent, cpu_s } => {
            assert!((percent - 6.0).abs() < 1e-9, "{percent}");
            assert_eq!(cpu_s, 1.2);
        }
        ref r => panic!("{r:?}"),
    }
    // A window too short to judge (1.5 CPU s: a tick is 1.3% of it) says nothing, even
    // at 20%.
    e.environment.other_work = Some(crate::OtherWork {
        cpu_s: 0.3,
        window_cpu_s: 1.5,
    });
    assert_eq!(of(&e).level, Level::Quiet);
    // 0.9 of 20: 4.5%, under it; and a window of no time says nothing.
    e.environment.other_work = Some(crate::OtherWork {
        cpu_s: 0.9,
        window_cpu_s: 20.0,
    });
    assert_eq!(of(&e).level, Level::Quiet);
    e.environment.other_work = Some(crate::OtherWork {
        cpu_s: 0.9,
        window_cpu_s: 0.0,
    });
    assert_eq!(of(&e).level, Level::Quiet);
    // Older files have no record: no reason.
    e.environment.other_work = None;
    assert_eq!(of(&e).level, Level::Quiet);
}

#[test]
fn a_file_without_steal_says_so() {
    let c = of(&run(&[], &[used(10)]));
    assert_eq!(
        (c.level, c.reasons.as_slice()),
        (Level::Unrecorded, &[Reason::NoRecord][..])
    );
}

#[test]
fn runs_of_different_conditions_are_apart() {
    let quiet = of(&run(&[0.5], &[used(10)]));
    let noisy = of(&run(&[4.0], &[used(10)]));
    let unreliable = of(&run(&[20.0], &[used(10)]));
    assert_eq!(runs_apart(&quiet, &quiet), None);
    assert!(runs_apart(&quiet, &noisy).is_some());
    assert!(runs_apart(&noisy, &quiet).is_some());
    assert!(runs_apart(&unreliable, &unreliable).is_some());
    // Two noisy runs within 5 points of steal are compared; 9 points apart are not.
    let noisy_too = of(&run(&[8.0], &[used(10)]));
    assert_eq!(runs_apart(&noisy, &noisy_too), None);
    let noisier = of(&run(&[13.0], &[used(10)]));
    assert!(runs_apart(&noisy, &noisier).is_some());
    // A slower CPU in one run.
    let mut slow = run(&[0.5], &[used(10)]);
    for c in &mut slow.arms[0].chunks.as_mut().unwrap().list {
        c.probe_us = Some(45.0);
    }
    assert!(runs_apart(&quiet, &of(&slow)).is_some());
    // Nothing recorded is no reason by itself.
    let old = of(&run(&[], &[used(10)]));
    assert_eq!(runs_apart(&old, &quiet), None);
}

#[test]
fn arms_that_ran_in_other_conditions_are_apart() {
    let mut e = run(&[0.0], &[used(10), used(10), used(10)]);
    // arm 1 ran every chunk slow; arm 2 used a chunk over budget.
    for c in &mut e.arms[1].chunks.as_mut().unwrap().list {
        c.probe_us = Some(45.0);
    }
    e.arms[2].chunks.as_mut().unwrap().list[3].outcome = ChunkOutcome::UsedOverBudget;
    let fast = fast_probe_us(&e.arms);
    let cond = |i: usize| ArmConditions::of(&e.arms[i], fast);
    assert_eq!(cond(0).unwrap().slow_share, Some(0.0));
    assert_eq!(cond(1).unwrap().slow_share, Some(1.0));
    assert_eq!(arms_apart(cond(0), cond(0)), None);
    assert!(arms_apart(cond(0), cond(1)).is_some());
    assert_eq!(cond(2).unwrap().over_budget, 1);
    assert!(cond(2).unwrap().noisy().is_some());
    assert!(arms_apart(cond(0), cond(2)).is_some());
    // An arm without chunk records has no conditions and is no reason.
    let mut old = e.arms[0].clone();
    old.chunks = None;
    assert_eq!(ArmConditions::of(&old, fast), None);
    assert_eq!(arms_apart(None, cond(2)), None);
}

#[test]
fn a_comparison_between_arms_in_other_speed_modes_is_apart() {
    let mut e = run(&[0.0], &[used(10), used(10), used(10)]);
    for c in &mut e.arms[1].chunks.as_mut().unwrap().list {
        c.probe_us = Some(45.0);
    }
    let ratio = |baseline: &str, candidate: &str| crate::schema::Comparison {
        kind: crate::schema::ComparisonKind::ResumeSpeedup,
        baseline: baseline.into(),
        candidate: candidate.into(),
        p50_ratio: 2.0,
        ci95: None,
        ci_unavailable: None,
        basis: None,
    };
    let apart = RatiosApart::of_run(&e);
    let why = apart.why(&ratio("arm-0", "arm-1")).expect("apart");
    assert!(why.contains("speed modes"), "{why}");
    assert_eq!(apart.why(&ratio("arm-0", "arm-2")), None);
    // An arm the run does not have is no reason.
    assert_eq!(apart.why(&ratio("arm-0", "gone")), None);
}

#[test]
fn a_chunk_is_slow_only_over_a_quarter_above_the_fast_reference() {
    let mut e = run(&[0.0], &[used(10), used(10)]);
    let list = &mut e.arms[1].chunks.as_mut().unwrap().list;
    // The fast reference is 30 µs; the line is 30 × 1.25 = 37.5 µs: on it is not slow,
    // just over it is.
    list[0].probe_us = Some(37.5);
    list[1].probe_us = Some(33.0);
    list[2].probe_us = Some(37.6);
    let fast = fast_probe_us(&e.arms);
    assert_eq!(fast, Some(30.0));
    let c = ArmConditions::of(&e.arms[1], fast).unwrap();
    assert_eq!(c.slow_share, Some(0.1));
}

#[test]
fn arms_are_apart_in_speed_modes_only_beyond_thirty_points() {
    let c = |slow: f64| {
        Some(ArmConditions {
            over_budget: 0,
            used: 10,
            slow_share: Some(slow),
        })
    };
    assert_eq!(arms_apart(c(0.0), c(0.3)), None, "30 points: on the line");
    assert!(arms_apart(c(0.4), c(0.0)).is_some(), "40 points");
    assert_eq!(arms_apart(c(0.5), c(0.5)), None, "the same share");
}
