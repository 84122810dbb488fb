//! The rules of an arm's chunk records (`chunks`, see [`crate::noise`]): each round keeps
//! at most one chunk's samples and they are the round's, the set-aside samples are those
//! of the chunks set aside, and every number is in range.

use super::arm::Bad;
use super::MAX_US;
use crate::schema::Arm;

pub(super) fn check(arm: &Arm, summary: bool, at: &dyn Fn(&str) -> String, bad: &mut Bad<'_>) {
    let Some(c) = &arm.chunks else {
        return;
    };
    let rounds = arm.samples_per_round.len();
    let mut used = vec![0u64; rounds];
    let mut used_chunks = vec![0u32; rounds];
    let mut aside = 0u64;
    for (j, chunk) in c.list.iter().enumerate() {
        let here = |f: &str| at(&format!("chunks.list[{j}].{f}"));
        let Some(r) = usize::try_from(chunk.round).ok().filter(|r| *r < rounds) else {
            bad(
                here("round"),
                format!("round {} of an arm with {rounds} rounds", chunk.round),
            );
            return;
        };
        if chunk.samples > chunk.attempted {
            bad(
                here("samples"),
                format!(
                    "{} samples of {} connections",
                    chunk.samples, chunk.attempted
                ),
            );
        }
        if chunk
            .steal_percent
            .is_some_and(|s| !(0.0..=100.0).contains(&s))
        {
            bad(
                here("steal_percent"),
                "a share of CPU time is between 0 and 100 per cent".into(),
            );
        }
        if chunk.probe_us.is_some_and(|p| !(p > 0.0 && p <= MAX_US)) {
            bad(
                here("probe_us"),
                "a probe's time is positive and at most an hour".into(),
            );
        }
        if chunk.outcome.used() {
            used[r] = used[r].saturating_add(chunk.samples);
            used_chunks[r] += 1;
        } else {
            aside = aside.saturating_add(chunk.samples);
        }
    }
    for r in 0..rounds {
        if used_chunks[r] > 1 {
            bad(
                at("chunks.list"),
                format!("round {r} uses {} chunks' samples, not one", used_chunks[r]),
            );
        } else if used[r] != arm.samples_per_round[r] {
            bad(
                at("chunks.list"),
                format!(
                    "round {r}'s chunk holds {} samples, the round {}",
                    used[r], arm.samples_per_round[r]
                ),
            );
        }
    }
    let kept = c.set_aside_us.len() as u64;
    if !summary && kept != aside {
        bad(
            at("chunks.set_aside_us"),
            format!("{kept} samples for chunks set aside with {aside}"),
        );
    }
    if let Some(j) = c
        .set_aside_us
        .iter()
        .position(|v| !(v.is_finite() && v.abs() <= MAX_US))
    {
        bad(
            at(&format!("chunks.set_aside_us[{j}]")),
            "not a plausible time (finite, at most an hour)".into(),
        );
    }
}

/// The stored verdict (`run.conditions`): shares are percentages, times plausible, CPU
/// names short.
pub(super) fn check_conditions(e: &crate::Evidence, bad: &mut Bad<'_>) {
    use crate::conditions::Reason;
    // What the other programs ran is a part of the window's time.
    if let Some(o) = e.environment.other_work {
        if !(o.cpu_s.is_finite() && o.window_cpu_s.is_finite())
            || o.cpu_s < 0.0
            || o.cpu_s > o.window_cpu_s
        {
            bad(
                "environment.other_work".into(),
                "other programs' CPU time must be a part of the window's (0 ≤ cpu_s ≤ window_cpu_s)".into(),
            );
        }
    }
    let Some(c) = &e.run.conditions else {
        return;
    };
    let pct = |v: f64| (0.0..=100.0).contains(&v);
    let time = |v: f64| v > 0.0 && v <= MAX_US;
    let mut fine = c.steal_percent.is_none_or(pct) && c.fast_probe_us.is_none_or(time);
    for r in &c.reasons {
        fine &= match r {
            Reason::Steal { cpu, percent } => cpu.len() <= 32 && pct(*percent),
            Reason::SetAside { set_aside, chunks } => set_aside <= chunks,
            Reason::NoisyArms { arms, of } => arms <= of,
            Reason::SpeedModes {
                slow,
                probed,
                fast_us,
                slow_us,
            } => slow <= probed && time(*fast_us) && time(*slow_us),
            Reason::Busy { load, .. } => load.is_finite() && *load >= 0.0,
            Reason::OtherWork { percent, cpu_s } => {
                pct(*percent) && cpu_s.is_finite() && *cpu_s >= 0.0
            }
            Reason::NoRecord => true,
        };
    }

    if !fine {
        bad(
            "run.conditions".into(),
            "a share outside 0–100%, a count over its whole, an implausible time or a long CPU name".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::noise::{ArmChunks, Chunk, ChunkOutcome};
    use crate::{sample, Evidence};

    /// The sample's first arm measured as 6 rounds of one sample each, with one used
    /// chunk per round and one chunk set aside (2 samples) in round 0.
    fn chunked() -> Evidence {
        let mut e = sample::evidence();
        let samples = vec![100.0, 200.0, 300.0, 400.0, 500.0, 600.0];
        let mut arm = sample::arm(
            "chunked",
            crate::Protocol::Tcp,
            crate::Mode::Connect,
            None,
            samples.clone(),
        );
        arm.samples_per_round = vec![1; 6];
        arm.round_medians_us = samples.iter().map(|s| Some(*s)).collect();
        arm.round_group = Some("loopback".into());
        e.arms.push(arm);
        let arm = e.arms.last_mut().expect("pushed");
        let chunk = |round: usize, samples: u64, outcome| Chunk {
            round: round as u64,
            steal_percent: Some(1.0),
            probe_us: Some(30.0),
            attempted: samples,
            samples,
            outcome,
        };
        let mut list = vec![chunk(0, 2, ChunkOutcome::SetAside)];
        list.extend(
            arm.samples_per_round
                .iter()
                .enumerate()
                .map(|(r, n)| chunk(r, *n, ChunkOutcome::Used)),
        );
        arm.chunks = Some(ArmChunks {
            list,
            set_aside_us: vec![900.0, 950.0],
        });
        e
    }

    fn violations(e: &Evidence) -> Vec<String> {
        e.violations().iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn consistent_chunks_are_valid() {
        assert_eq!(violations(&chunked()), Vec::<String>::new());
    }

    #[test]
    fn chunks_that_do_not_add_up_are_violations() {
        fn arm(e: &mut Evidence) -> &mut ArmChunks {
            e.arms
                .iter_mut()
                .find_map(|a| a.chunks.as_mut())
                .expect("chunked")
        }
        let mut e = chunked();
        arm(&mut e).set_aside_us.pop();
        assert!(
            violations(&e).iter().any(|v| v.contains("set_aside_us")),
            "{:?}",
            violations(&e)
        );
        let mut e = chunked();
        arm(&mut e).list[1].samples += 1;
        assert!(violations(&e).iter().any(|v| v.contains("chunks.list")));
        let mut e = chunked();
        arm(&mut e).list[0].outcome = ChunkOutcome::UsedOverBudget;
        assert!(violations(&e).iter().any(|v| v.contains("not one")));
        let mut e = chunked();
        arm(&mut e).list[2].steal_percent = Some(101.0);
        assert!(violations(&e).iter().any(|v| v.contains("steal_percent")));
        let mut e = chunked();
        e.environment.other_work = Some(crate::OtherWork {
            cpu_s: 2.0,
            window_cpu_s: 2.0,
        });
        assert!(violations(&e).is_empty(), "{:?}", violations(&e));
        e.environment.other_work = Some(crate::OtherWork {
            cpu_s: 2.5,
            window_cpu_s: 2.0,
        });
        assert!(violations(&e)
            .iter()
            .any(|v| v.contains("environment.other_work")));
        let mut e = chunked();
        arm(&mut e).list[2].round = 999;
        assert!(violations(&e).iter().any(|v| v.contains("round")));
        // A summary keeps no set-aside samples, and that is fine.
        let s = chunked().summary();
        assert_eq!(violations(&s), Vec::<String>::new());
    }
}
