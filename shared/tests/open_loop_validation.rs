//! Open-loop arms in the evidence: optional (older files parse), and each invariant
//! names its field.

use serde_json::{json, Value};
use shared::Arrival;

mod common;
use common::{invariant_at, read, sample_value};

/// The sample's full arm (4 successes) as one open-loop rate: 5 scheduled, 5 attempted,
/// 1 of them given up on (failed), 2 late; 3 handshakes in the 1 s window.
fn with_open_loop() -> Value {
    let mut v = sample_value();
    let arm = &mut v["arms"][1];
    arm["attempted"] = json!(5);
    arm["failed"] = json!(1);
    arm["capacity"] = json!({
        "clients": 4, "server_workers": 4, "per_second": [3.0],
        "rate_median_per_s": 3.0, "rate_iqr_per_s": [3.0, 3.0], "after_window": 1,
        "open_loop": {
            "arrival": "poisson", "seed": 7, "offered_per_s": 5.0, "window_s": 1,
            "scheduled": 5, "achieved_per_s": 3.0, "late_threshold_us": 1000.0, "late": 2,
            "lateness_us": {"p50_us": 80.0, "p99_us": 5000.0, "max_us": 5000.0},
            "give_up_after_us": 1000000.0, "not_started": 1
        }
    });
    v
}

#[test]
fn an_open_loop_arm_reads_back_and_older_capacity_arms_still_parse() {
    let e = read(&with_open_loop()).expect("valid as built");
    let o = e.arms[1]
        .capacity
        .as_ref()
        .unwrap()
        .open_loop
        .as_ref()
        .unwrap();
    assert_eq!(
        (o.arrival, o.seed, o.late, o.not_started),
        (Arrival::Poisson, Some(7), 2, 1)
    );
    assert_eq!(o.lateness_us.unwrap().max_us, 5000.0);
    // A capacity arm written before open-loop arms existed has no `open_loop` key.
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]
        .as_object_mut()
        .unwrap()
        .remove("open_loop");
    let e = read(&v).expect("an older capacity arm");
    assert_eq!(e.arms[1].capacity.as_ref().unwrap().open_loop, None);
    // …and a closed-loop arm is written without the key.
    assert!(!e.to_json().contains("open_loop"));
}

#[test]
fn counts_fit_inside_each_other() {
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["scheduled"] = json!(4);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.scheduled");
    assert!(msg.contains("5 attempted > 4 scheduled"), "{msg}");

    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["late"] = json!(5);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.late");
    assert!(
        msg.contains("5 late + 1 not started > 5 attempted"),
        "{msg}"
    );

    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["not_started"] = json!(2);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.not_started");
    assert!(msg.contains("2 not started > 1 failed"), "{msg}");
}

#[test]
fn achieved_is_the_windows_mean_and_never_more_than_succeeded() {
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["achieved_per_s"] = json!(3.5);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.achieved_per_s");
    assert!(
        msg.contains("is not the 3 handshakes completed in the window"),
        "{msg}"
    );

    // 6 in the window of an arm with 4 successes: both rules break.
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["per_second"] = json!([6.0]);
    v["arms"][1]["capacity"]["after_window"] = json!(0);
    v["arms"][1]["capacity"]["open_loop"]["achieved_per_s"] = json!(6.0);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.achieved_per_s");
    assert!(
        msg.contains("more than the 4 handshakes that succeeded"),
        "{msg}"
    );

    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["window_s"] = json!(2);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.window_s");
    assert!(msg.contains("a window of 2 s has 1 entries"), "{msg}");
}

#[test]
fn lateness_is_ordered_and_agrees_with_the_late_count() {
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["lateness_us"]["p50_us"] = json!(6000.0);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.lateness_us");
    assert!(msg.contains("p50 (6000) ≤ p99 (5000)"), "{msg}");

    // Nothing past the threshold, yet 2 late.
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["lateness_us"]["max_us"] = json!(900.0);
    v["arms"][1]["capacity"]["open_loop"]["lateness_us"]["p99_us"] = json!(900.0);
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.late");
    assert!(msg.contains("2 late does not agree"), "{msg}");

    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["lateness_us"] = Value::Null;
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.lateness_us");
    assert!(msg.contains("their lateness is known"), "{msg}");
}

#[test]
fn rates_are_plausible_and_a_seed_goes_with_poisson_only() {
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["offered_per_s"] = json!(0.0);
    invariant_at(&v, "arms[1].capacity.open_loop.offered_per_s");
    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["give_up_after_us"] = json!(-1.0);
    invariant_at(&v, "arms[1].capacity.open_loop.give_up_after_us");

    let mut v = with_open_loop();
    v["arms"][1]["capacity"]["open_loop"]["arrival"] = json!("constant");
    let msg = invariant_at(&v, "arms[1].capacity.open_loop.seed");
    assert!(msg.contains("only a Poisson schedule"), "{msg}");
    v["arms"][1]["capacity"]["open_loop"]
        .as_object_mut()
        .unwrap()
        .remove("seed");
    read(&v).expect("constant arrivals without a seed");
}
