//! Reading evidence: the rounds of an arm (samples per round, round medians) and the
//! rules of a confidence interval that may be missing.

use serde_json::{json, Value};

mod common;
use common::{invariant_at, read, sample_value};

/// The sample's TLS 1.3 full arm (samples 400, 410, 390, 450) with eight more samples,
/// taken in six rounds of two, its round medians written out by hand (nearest rank:
/// the lower of two).
fn with_rounds() -> Value {
    let mut v = sample_value();
    let a = &mut v["arms"][1];
    let samples = [
        400.0, 410.0, 390.0, 450.0, 405.0, 395.0, 420.0, 430.0, 380.0, 500.0, 415.0, 401.0,
    ];
    a["samples_us"] = json!(samples);
    for k in ["attempted", "succeeded"] {
        a[k] = json!(12);
    }
    // Sorted: 380 390 395 400 401 405 410 415 420 430 450 500; p50 = 6th = 405.
    a["latency_us"] = json!({"min": 380.0, "p50": 405.0, "p95": 500.0, "p99": 500.0,
        "max": 500.0, "mean": 416.3, "stddev": 0.0});
    a["p50_ci95_us"] = json!([390.0, 430.0]);
    a["samples_per_round"] = json!([2, 2, 2, 2, 2, 2]);
    a["round_medians_us"] = json!([400.0, 390.0, 395.0, 420.0, 380.0, 401.0]);
    a["round_group"] = json!("loopback");
    v
}

#[test]
fn rounds_as_built_are_valid() {
    let e = read(&with_rounds()).expect("valid");
    assert_eq!(e.arms[1].samples_per_round, [2; 6]);
    assert_eq!(e.arms[1].round_medians_us[3], Some(420.0));
    // A round without samples has a null median.
    let mut v = with_rounds();
    v["arms"][1]["samples_per_round"] = json!([2, 2, 2, 2, 0, 2, 2]);
    v["arms"][1]["round_medians_us"] = json!([400.0, 390.0, 395.0, 420.0, null, 380.0, 401.0]);
    read(&v).expect("an empty round is valid");
}

#[test]
fn steal_is_a_percentage_per_round_at_most_one_per_round() {
    let mut v = with_rounds();
    v["arms"][1]["round_steal_percent"] = json!([0.0, 12.5, null, 100.0, 3.0, 0.0]);
    let e = read(&v).expect("valid");
    assert_eq!(e.arms[1].round_steal_percent[1], Some(12.5));
    v["arms"][1]["round_steal_percent"][3] = json!(100.1);
    let msg = invariant_at(&v, "arms[1].round_steal_percent[3]");
    assert!(msg.contains("between 0 and 100"), "{msg}");
    v["arms"][1]["round_steal_percent"] = json!([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let msg = invariant_at(&v, "arms[1].round_steal_percent");
    assert!(msg.contains("7 values for 6 rounds"), "{msg}");
}

#[test]
fn rounds_must_add_up_and_medians_must_be_the_rounds() {
    let mut v = with_rounds();
    v["arms"][1]["samples_per_round"] = json!([2, 2, 2, 2, 2, 1]);
    let msg = invariant_at(&v, "arms[1].samples_per_round");
    assert!(msg.contains("adds up to 11"), "{msg}");

    let mut v = with_rounds();
    v["arms"][1]["round_medians_us"] = json!([400.0, 390.0, 395.0, 420.0, 380.0]);
    let msg = invariant_at(&v, "arms[1].round_medians_us");
    assert!(msg.contains("5 round medians for 6 rounds"), "{msg}");

    // 410 is round 0's larger sample, not its nearest-rank median (400).
    let mut v = with_rounds();
    v["arms"][1]["round_medians_us"][0] = json!(410.0);
    invariant_at(&v, "arms[1].round_medians_us[0]");
    // A value between the two samples is no sample at all.
    let mut v = with_rounds();
    v["arms"][1]["round_medians_us"][0] = json!(405.0);
    invariant_at(&v, "arms[1].round_medians_us[0]");
    let mut v = with_rounds();
    v["arms"][1]["round_medians_us"][0] = Value::Null;
    invariant_at(&v, "arms[1].round_medians_us[0]");

    let mut v = with_rounds();
    v["arms"][1]
        .as_object_mut()
        .unwrap()
        .remove("samples_per_round");
    invariant_at(&v, "arms[1].round_medians_us");
}

#[test]
fn no_ci_over_too_few_rounds_and_a_missing_ci_says_why() {
    let mut v = with_rounds();
    v["arms"][1]["samples_per_round"] = json!([4, 4, 4]);
    v["arms"][1]["round_medians_us"] = json!([400.0, 405.0, 401.0]);
    let msg = invariant_at(&v, "arms[1].p50_ci95_us");
    assert!(msg.contains("over 3 round(s)"), "{msg}");
    v["arms"][1]["p50_ci95_us"] = Value::Null;
    let msg = invariant_at(&v, "arms[1].p50_ci95_us");
    assert!(msg.contains("ci_unavailable does not say why"), "{msg}");
    v["arms"][1]["ci_unavailable"] = json!("only 3 round(s) with samples");
    read(&v).expect("no CI, with the reason");

    let mut v = with_rounds();
    v["arms"][1]["ci_unavailable"] = json!("why");
    invariant_at(&v, "arms[1].ci_unavailable");
}

#[test]
fn a_comparison_has_a_ci_or_says_why_not() {
    let mut v = sample_value();
    v["comparisons"][0]["ci95"] = Value::Null;
    let msg = invariant_at(&v, "comparisons[0].ci_unavailable");
    assert!(msg.contains("either a ci95 or a reason"), "{msg}");
    v["comparisons"][0]["ci_unavailable"] = json!("only 3 rounds");
    read(&v).expect("no CI, with the reason");
    v["comparisons"][0]["ci95"] = json!([1.5, 2.5]);
    invariant_at(&v, "comparisons[0].ci_unavailable");
    let mut v = sample_value();
    v["comparisons"][0]["ci95"] = json!([2.5, 1.5]);
    let msg = invariant_at(&v, "comparisons[0].ci95");
    assert!(msg.contains("above upper bound"), "{msg}");
}

#[test]
fn files_written_before_rounds_still_load() {
    // An evidence file from before rounds were recorded: none of the new fields.
    let mut v = sample_value();
    for a in v["arms"].as_array_mut().unwrap() {
        let a = a.as_object_mut().unwrap();
        for k in [
            "samples_per_round",
            "round_medians_us",
            "round_group",
            "ci_unavailable",
        ] {
            a.remove(k);
        }
    }
    v["comparisons"][0]
        .as_object_mut()
        .unwrap()
        .remove("ci_unavailable");
    let e = read(&v).expect("older files load");
    assert!(e.arms.iter().all(|a| a.samples_per_round.is_empty()));
    assert_eq!(e.comparisons[0].ci95, Some([1.5, 2.5]));
}
