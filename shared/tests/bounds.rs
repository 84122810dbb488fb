//! Numbers that parse but no measurement produces: rejected with a path, never a panic
//! or an infinity further down (charts add, scale and pad these values).

use shared::{sample, ArmKind, Evidence, EvidenceError, RateSlice, RateSummary};

fn paths(e: &Evidence) -> Vec<String> {
    e.violations().into_iter().map(|v| v.path).collect()
}

fn latency_arm(e: &Evidence) -> usize {
    e.arms
        .iter()
        .position(|a| a.kind() == ArmKind::Latency && a.latency_us.is_some())
        .expect("the sample has a latency arm")
}

#[test]
fn a_max_latency_near_f64_max_is_refused_with_its_path() {
    let mut e = sample::evidence();
    let i = latency_arm(&e);
    e.arms[i].latency_us.as_mut().unwrap().max = 1.5e308;
    let err = Evidence::from_json(&e.to_json()).unwrap_err();
    let EvidenceError::Invariant(vs) = err else {
        panic!("{err:?}")
    };
    let v = vs
        .iter()
        .find(|v| v.path == format!("arms[{i}].latency_us.max"))
        .unwrap_or_else(|| panic!("{vs:?}"));
    assert!(v.message.contains("plausible"), "{}", v.message);
}

#[test]
fn huge_samples_rates_and_ratios_are_refused() {
    let mut e = sample::evidence();
    let i = latency_arm(&e);
    e.arms[i].samples_us[0] = 1e300;
    e.arms[i].throughput_per_s = Some(1e12);
    e.comparisons[0].p50_ratio = 1e9;
    let p = paths(&e);
    for want in [
        format!("arms[{i}].samples_us[0]"),
        format!("arms[{i}].throughput_per_s"),
        "comparisons[0].p50_ratio".to_string(),
    ] {
        assert!(p.contains(&want), "{want} in {p:?}");
    }
}

#[test]
fn plausible_values_still_pass() {
    // An hour-long handshake is the bound: just under it is accepted.
    let mut e = sample::evidence();
    let i = latency_arm(&e);
    e.arms[i].latency_us.as_mut().unwrap().max = 3.5e9;
    assert!(
        !paths(&e).iter().any(|p| p.contains("latency_us")),
        "{:?}",
        paths(&e)
    );
}

#[test]
fn counts_at_u64_max_give_an_error_not_a_panic() {
    let mut e = sample::evidence();
    let i = latency_arm(&e);
    e.arms[i].succeeded = u64::MAX;
    e.arms[i].failed = 2;
    let p = paths(&e);
    assert!(p.contains(&format!("arms[{i}].attempted")), "{p:?}");

    let mut e = sample::evidence();
    let i = latency_arm(&e);
    e.arms[i].samples_per_round = vec![u64::MAX, 5];
    let p = paths(&e);
    assert!(p.contains(&format!("arms[{i}].samples_per_round")), "{p:?}");
}

#[test]
fn rate_slices_adding_past_u64_max_give_an_error_not_a_panic() {
    let mut e = sample::evidence();
    // Arm 0 made a rate arm (other rules it now breaks do not matter here).
    let i = 0;
    e.arms[i].rate = Some(RateSummary {
        connections: 5,
        user_cpu_s: 1.0,
        real_s: 1.0,
        per_user_s: 5.0,
        per_real_s: 5.0,
        slices: Vec::new(),
    });
    let rate = e.arms[i].rate.as_mut().unwrap();
    let slice = |connections| RateSlice {
        connections,
        resumed: 0,
        user_cpu_s: 0.1,
        real_s: 0.1,
    };
    rate.slices = vec![slice(u64::MAX), slice(1)];
    let p = paths(&e);
    assert!(p.contains(&format!("arms[{i}].rate.slices")), "{p:?}");
}
