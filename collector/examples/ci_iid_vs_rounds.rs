//! What the i.i.d. intervals (the collector's method before the cluster bootstrap) say
//! about the samples of an evidence file, beside the intervals in the file (over rounds),
//! and the spread of the round medians. For the record of issue 9; not used by the
//! collector.
//!
//! `cargo run --release -p collector --example ci_iid_vs_rounds -- results/<run-id>.json [ARM-FILTER]`

use collector::stats;
use shared::Evidence;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: ci_iid_vs_rounds FILE.json [ARM-SUBSTRING]");
        std::process::exit(2);
    };
    let filter = args.next().unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let e = Evidence::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fmt =
        |ci: Option<[f64; 2]>| ci.map_or("n/a".into(), |[lo, hi]| format!("{lo:.1} – {hi:.1}"));
    println!(
        "{:48} {:>9} {:>19} {:>19} {:>19}",
        "arm", "p50 µs", "i.i.d. CI µs", "rounds CI µs", "round medians µs"
    );
    for a in e.arms.iter().filter(|a| a.id.contains(&filter)) {
        let Some(l) = a.latency_us else { continue };
        let mut sorted = a.samples_us.clone();
        sorted.sort_by(f64::total_cmp);
        let medians: Vec<f64> = a.round_medians_us.iter().flatten().copied().collect();
        let range = medians
            .iter()
            .copied()
            .fold(None, |r: Option<[f64; 2]>, m| {
                Some(r.map_or([m, m], |[lo, hi]| [lo.min(m), hi.max(m)]))
            });
        println!(
            "{:48} {:>9.1} {:>19} {:>19} {:>19}",
            a.id,
            l.p50,
            fmt(Some(stats::median_ci95(&sorted))),
            fmt(a.p50_ci95_us),
            fmt(range)
        );
    }
    println!(
        "\n{:48} {:>8} {:>15} {:>15}",
        "comparison (candidate)", "ratio", "i.i.d. CI", "rounds CI"
    );
    let mut rng = fastrand::Rng::with_seed(e.run.settings.bootstrap_seed);
    for c in e.comparisons.iter().filter(|c| c.basis.is_none()) {
        if !c.candidate.contains(&filter) && !c.baseline.contains(&filter) {
            continue;
        }
        let arm = |id: &str| e.arms.iter().find(|a| a.id == id).expect("named arm");
        let (b, k) = (arm(&c.baseline), arm(&c.candidate));
        // Speedups are baseline / candidate, overheads candidate / baseline.
        let (num, den) = if c.kind == shared::ComparisonKind::ResumeSpeedup {
            (b, k)
        } else {
            (k, b)
        };
        let iid = stats::ratio_ci95(
            &num.samples_us,
            &den.samples_us,
            e.run.settings.bootstrap_resamples as usize,
            &mut rng,
        );
        let f =
            |ci: Option<[f64; 2]>| ci.map_or("n/a".into(), |[lo, hi]| format!("{lo:.2} – {hi:.2}"));
        println!(
            "{:48} {:>7.2}x {:>15} {:>15}",
            c.candidate,
            c.p50_ratio,
            f(Some(iid)),
            f(c.ci95)
        );
    }
}
