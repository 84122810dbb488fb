//! The run comparison's verdicts: one arm in each visible run against the first visible
//! run, by the same rule and bootstrap as `collector compare` (`shared::cluster`,
//! `shared::Verdict`).

use shared::Verdict;

use super::load::RunSet;

/// Resamples of the bootstrap, and its seed: `collector compare`'s defaults.
pub const RESAMPLES: usize = 2000;
pub const SEED: u64 = 0;

/// One run against the baseline run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunVerdict {
    pub run: String,
    /// `p50(this run) / p50(baseline)`.
    pub ratio: f64,
    pub ci: Option<[f64; 2]>,
    /// `slower`, `faster`, `no evidence of a difference`, or why there is no claim.
    pub verdict: String,
}

/// Every visible run after the first that has `arm_id` with latencies and its samples
/// (its own, or fetched for its summary: [`RunSet::samples_of`]), against the first
/// visible run that has them; empty when fewer than two runs have them.
pub fn run_verdicts(runs: &RunSet, arm_id: &str) -> Vec<RunVerdict> {
    let mut with = runs.visible().filter_map(|r| {
        let (i, arm) = r
            .evidence
            .arms
            .iter()
            .enumerate()
            .find(|(_, a)| a.id == arm_id)?;
        let samples = runs.samples_of(r, i);
        (arm.error.is_none() && arm.latency_us.is_some() && !samples.is_empty())
            .then(|| (r.label(), (arm, samples)))
    });
    let Some((_, base)) = with.next() else {
        return Vec::new();
    };
    with.filter_map(|(label, (arm, samples))| {
        let mut rng = fastrand::Rng::with_seed(SEED);
        let rr = shared::cluster::run_ratio_of(base, (arm, samples), RESAMPLES, &mut rng)?;
        let verdict = match (&rr.no_ci, base.0.timed_window == arm.timed_window) {
            (_, false) => "not comparable: the timed window differs".to_string(),
            (Some(why), _) => format!("no CI, no claim ({why})"),
            (None, true) => Verdict::of(rr.ci95).to_string(),
        };
        Some(RunVerdict {
            run: label,
            ratio: rr.ratio,
            ci: rr.ci95,
            verdict,
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use shared::{sample, Arm};

    use super::*;

    /// The sample run with its TLS 1.3 full arm as 10 rounds × 20 samples at `level` µs
    /// (plus a spread of 0–19 µs within each round, the same in every round).
    fn run_at(level: f64) -> shared::Evidence {
        let mut e = sample::evidence();
        let a = &e.arms[1];
        let samples: Vec<f64> = (0..10)
            .flat_map(|_| (0..20).map(move |i| level + i as f64))
            .collect();
        e.arms[1] = Arm {
            samples_per_round: vec![20; 10],
            ..sample::arm(&a.id, a.protocol, a.mode, a.resumption, samples)
        };
        e
    }

    fn set(levels: &[f64]) -> RunSet {
        let mut s = RunSet::default();
        for (i, l) in levels.iter().enumerate() {
            let mut e = run_at(*l);
            e.run.id = format!("run-{i}");
            s.add(&format!("run-{i}.json"), e);
        }
        s
    }

    #[test]
    fn each_run_against_the_first_with_the_compare_rule() {
        let id = sample::evidence().arms[1].id.clone();
        let v = run_verdicts(&set(&[400.0, 400.0, 480.0, 320.0]), &id);
        assert_eq!(v.len(), 3);
        // Medians: 409 in the first two runs, 489 and 329 in the others.
        assert_eq!(v[0].verdict, "no evidence of a difference");
        assert_eq!(v[0].ratio, 1.0);
        assert_eq!(v[1].verdict, "slower");
        assert_eq!(v[1].ratio, 489.0 / 409.0);
        assert_eq!(v[2].verdict, "faster");
        let [lo, hi] = v[1].ci.unwrap();
        assert!(lo <= v[1].ratio && v[1].ratio <= hi);
    }

    #[test]
    fn no_rounds_no_claim_and_one_run_no_rows() {
        let id = sample::evidence().arms[1].id.clone();
        assert!(run_verdicts(&set(&[400.0]), &id).is_empty());
        let mut s = set(&[400.0]);
        // The plain sample: 4 samples, no rounds.
        s.add("old.json", sample::evidence());
        let v = run_verdicts(&s, &id);
        assert_eq!(v.len(), 1);
        assert!(
            v[0].verdict.starts_with("no CI, no claim (NEW: "),
            "{}",
            v[0].verdict
        );
        assert!(v[0].ci.is_none());
    }

    #[test]
    fn a_summary_takes_part_once_its_arms_samples_are_in() {
        let id = sample::evidence().arms[1].id.clone();
        let mut s = set(&[400.0]);
        let mut slower = run_at(480.0);
        // Each round's median: 480 + the middle of 0–19.
        slower.arms[1].round_medians_us = vec![Some(489.5); 10];
        let mut h = shared::HistoryBuilder::default();
        h.run("slow.json.gz", &slower);
        s.add_history(h.finish(), "results/history.json");
        s.add_summary("results/summaries/slow.json.gz", &slower.summary_line());
        // A summary without its samples has no verdict yet.
        assert!(run_verdicts(&s, &id).is_empty());
        s.add_arm_samples(
            "results/raw/slow/1.json.gz",
            &shared::ArmSamples::of(&slower.arms[1]).to_json(),
        );
        let v = run_verdicts(&s, &id);
        assert_eq!(v.len(), 1, "{v:?} {:?}", s.failures);
        assert_eq!(v[0].verdict, "slower");
        assert_eq!(v[0].ratio, 489.0 / 409.0);
        // The same samples again change nothing.
        s.add_arm_samples(
            "results/raw/slow/1.json.gz",
            &shared::ArmSamples::of(&slower.arms[1]).to_json(),
        );
        assert_eq!(s.samples.len(), 1);
    }
}
