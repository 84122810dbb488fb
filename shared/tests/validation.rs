//! Reading evidence: round trip, and each kind of error with the path it names.

use serde_json::{json, Value};
use shared::{sample, Evidence, EvidenceError, SCHEMA_VERSION};

mod common;
use common::{invariant_at, read, sample_value};

#[test]
fn round_trip_keeps_everything() {
    let e = sample::evidence();
    let back = Evidence::from_json(&e.to_json()).expect("sample evidence is valid");
    assert_eq!(back, e);
    assert_eq!(back.schema_version, SCHEMA_VERSION);
}

#[test]
fn syntax_error_gives_line_and_column() {
    let err = Evidence::from_json("{\n  \"schema_version\": 1,\n  oops\n}").unwrap_err();
    match &err {
        EvidenceError::Syntax { line, column, .. } => assert_eq!((*line, *column), (3, 3)),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("line 3, column 3"), "{err}");
}

#[test]
fn foreign_json_is_named_as_such() {
    let err = Evidence::from_json("[1, 2]").unwrap_err();
    assert!(matches!(err, EvidenceError::Foreign(_)), "{err:?}");
    assert!(err.to_string().contains("an array"), "{err}");
    let err = Evidence::from_json(r#"{"name": "package.json"}"#).unwrap_err();
    assert!(err.to_string().contains("schema_version"), "{err}");
}

#[test]
fn a_newer_schema_version_is_named_as_newer() {
    let mut v = sample_value();
    v["schema_version"] = json!(SCHEMA_VERSION + 1);
    let err = read(&v).unwrap_err();
    assert_eq!(
        err,
        EvidenceError::NewerVersion {
            found: (SCHEMA_VERSION + 1).to_string(),
            supported: SCHEMA_VERSION
        }
    );
    assert_eq!(
        err.to_string(),
        "schema version 3 is newer than this build reads (versions 1 to 2): \
         read it with a newer collector or viewer"
    );
}

#[test]
fn a_schema_version_that_is_no_version_is_unknown() {
    for (found, text) in [("0", json!(0)), ("1.5", json!(1.5)), ("\"2\"", json!("2"))] {
        let mut v = sample_value();
        v["schema_version"] = text;
        let err = read(&v).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("unknown schema version {found} (this build reads versions 1 to 2)")
        );
    }
}

#[test]
fn every_known_version_reads() {
    // Version 1 had plain arrays, version 2 packs them: the same reader takes both forms
    // (the committed version-1 file is read in `version1.rs`).
    let mut v = sample_value();
    for version in 1..=SCHEMA_VERSION {
        v["schema_version"] = json!(version);
        assert_eq!(read(&v).unwrap().schema_version, version);
    }
}

#[test]
fn missing_field_names_its_path() {
    let mut v = sample_value();
    v["arms"][1]["latency_us"]
        .as_object_mut()
        .unwrap()
        .remove("p95");
    let err = read(&v).unwrap_err();
    match &err {
        EvidenceError::Field { path, message } => {
            assert_eq!(path, "arms[1].latency_us");
            assert!(message.contains("p95"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn wrong_type_names_its_path() {
    let mut v = sample_value();
    v["arms"][0]["succeeded"] = json!("four");
    match read(&v).unwrap_err() {
        EvidenceError::Field { path, .. } => assert_eq!(path, "arms[0].succeeded"),
        other => panic!("{other:?}"),
    }
    let mut v = sample_value();
    v["arms"][2]["protocol"] = json!("tls1.4");
    match read(&v).unwrap_err() {
        EvidenceError::Field { path, message } => {
            assert_eq!(path, "arms[2].protocol");
            assert!(message.contains("tls1.4"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_stack_name_reads_back_and_unknown_names_read_as_other() {
    for stack in shared::Stack::ALL {
        let mut v = sample_value();
        v["arms"][0]["server_stack"] = json!(stack.as_str());
        assert_eq!(read(&v).unwrap().arms[0].server_stack, *stack);
    }
    // A stack a newer collector knows and this build does not: read, as "other".
    let mut v = sample_value();
    v["arms"][0]["server_stack"] = json!("lighttpd");
    assert_eq!(read(&v).unwrap().arms[0].server_stack, shared::Stack::Other);
    // Not a name at all: refused.
    let mut v = sample_value();
    v["arms"][0]["server_stack"] = json!(7);
    match read(&v).unwrap_err() {
        EvidenceError::Field { path, message } => {
            assert_eq!(path, "arms[0].server_stack");
            assert!(message.contains("integer"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // Other enums still refuse names they do not know, naming the known ones.
    let mut v = sample_value();
    v["arms"][0]["mode"] = json!("halfway");
    let message = read(&v).unwrap_err().to_string();
    assert!(
        message.contains("`full`") && message.contains("`resumed`"),
        "{message}"
    );
}

#[test]
fn what_each_end_verified_reads_back_and_an_unverified_end_counted_nothing() {
    let mut v = sample_value();
    v["arms"][1]["verified"] = json!({"client": "per-connection", "server": "unverified"});
    v["arms"][1]["resumed"]["server"] = json!(0);
    let e = read(&v).unwrap();
    assert_eq!(e.arms[1].verified, Some(shared::Verified::CLIENT_ONLY));
    assert_eq!(e.arms[1].resumed_by_end().1, None);
    // Older files have no `verified`: they still load.
    let v = sample_value();
    assert_eq!(read(&v).unwrap().arms[1].verified, None);
    // An end that checked nothing cannot have counted resumptions.
    let mut v = sample_value();
    v["arms"][1]["verified"] = json!({"client": "unverified", "server": "per-connection"});
    v["arms"][1]["resumed"]["client"] = json!(1);
    let message = read(&v).unwrap_err().to_string();
    assert!(message.contains("resumed.client"), "{message}");
}

#[test]
fn paths_are_named_in_the_collectors_text_form_too() {
    // One field a line, arrays inline: the error's line and column lead to the field.
    let text =
        sample::evidence()
            .to_json()
            .replacen("\"succeeded\": 4", "\"succeeded\": \"four\"", 2);
    match Evidence::from_json(&text).unwrap_err() {
        EvidenceError::Field { path, .. } => assert_eq!(path, "arms[0].succeeded"),
        other => panic!("{other:?}"),
    }
    // The samples packed (version 2), broken: the error names the array.
    let packed = shared::packed::pack_samples(&[400.0, 410.0, 390.0, 450.0]).unwrap();
    let text = sample::evidence().to_json();
    assert!(text.contains(&packed));
    let broken = text.replace(&packed, "not base64!");
    match Evidence::from_json(&broken).unwrap_err() {
        EvidenceError::Field { path, message } => {
            assert_eq!(path, "arms[1].samples_us");
            assert!(message.contains("does not unpack"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // Plain (as in version 1), with a value of the wrong type: the error names the item.
    let text = text.replace(
        &format!("\"{packed}\""),
        "[400.0, true, 410.0, 390.0, 450.0]",
    );
    match Evidence::from_json(&text).unwrap_err() {
        EvidenceError::Field { path, .. } => assert_eq!(path, "arms[1].samples_us[1]"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn percentiles_out_of_order() {
    let mut v = sample_value();
    v["arms"][1]["latency_us"]["p95"] = json!(10_000.0);
    let msg = invariant_at(&v, "arms[1].latency_us.p99");
    assert!(msg.contains("p95 (10000) must not exceed p99"), "{msg}");
}

#[test]
fn counts_must_add_up() {
    let mut v = sample_value();
    v["arms"][0]["failed"] = json!(1);
    invariant_at(&v, "arms[0].attempted");
}

#[test]
fn resumed_cannot_exceed_succeeded() {
    let mut v = sample_value();
    v["arms"][2]["resumed"]["server"] = json!(5);
    let msg = invariant_at(&v, "arms[2].resumed.server");
    assert!(msg.contains("5 resumed > 4 succeeded"), "{msg}");
}

#[test]
fn samples_must_match_succeeded() {
    let mut v = sample_value();
    v["arms"][1]["samples_us"] = json!([400.0, 410.0, 390.0]);
    invariant_at(&v, "arms[1].samples_us");
    v["arms"][1]["samples_us"] = json!(shared::packed::pack_samples(&[400.0, 410.0, 390.0]));
    invariant_at(&v, "arms[1].samples_us");
}

#[test]
fn comparisons_must_name_existing_arms() {
    let mut v = sample_value();
    v["comparisons"][0]["candidate"] = json!("tls13-resumed-nowhere");
    let msg = invariant_at(&v, "comparisons[0].candidate");
    assert!(msg.contains("tls13-resumed-nowhere"), "{msg}");
}

#[test]
fn ci_must_contain_the_median() {
    let mut v = sample_value();
    v["arms"][1]["p50_ci95_us"] = json!([1.0, 2.0]);
    invariant_at(&v, "arms[1].p50_ci95_us");
}

#[test]
fn duplicate_arm_ids_are_rejected() {
    let mut v = sample_value();
    v["arms"][2]["id"] = v["arms"][1]["id"].clone();
    v["comparisons"] = json!([]);
    invariant_at(&v, "arms[2].id");
}

#[test]
fn json_schema_describes_the_contract_fields() {
    let schema = shared::json_schema();
    let text = schema.to_string();
    for field in [
        "schema_version",
        "samples_us",
        "p50_ci95_us",
        "resume_speedup",
        "kernel-tcp",
    ] {
        assert!(text.contains(field), "schema lacks {field}");
    }
}

/// The sample plus a rate arm pair (s_time `-new` / `-reuse`), a skipped arm and a rate
/// comparison between the pair; valid as built.
fn with_peer_arms() -> Value {
    let mut v = sample_value();
    let rate_arm = |id: &str, mode: &str, resumed: u64| {
        let mut a = v["arms"][1].clone();
        a["id"] = json!(id);
        a["stack"] = json!("openssl-s_time");
        a["client_stack"] = json!("openssl-s_time");
        a["server_stack"] = json!("openssl-s_server");
        a["mode"] = json!(mode);
        a["resumption"] = if mode == "resumed" {
            json!("ticket")
        } else {
            Value::Null
        };
        a["attempted"] = json!(10);
        a["succeeded"] = json!(10);
        a["resumed"] = json!({"client": resumed, "server": 0});
        a["latency_us"] = Value::Null;
        a["p50_ci95_us"] = Value::Null;
        a["samples_us"] = json!([]);
        a["rate"] = json!({
            "connections": 10, "user_cpu_s": 0.5, "real_s": 1.0,
            "per_user_s": 20.0, "per_real_s": 10.0,
            "slices": [
                {"connections": 4, "resumed": resumed.min(4), "user_cpu_s": 0.2, "real_s": 0.4},
                {"connections": 6, "resumed": resumed.saturating_sub(4), "user_cpu_s": 0.3, "real_s": 0.6}
            ]
        });
        a
    };
    let new = rate_arm("s_time-new", "full", 0);
    let reuse = rate_arm("s_time-reuse", "resumed", 10);
    let mut skipped = v["arms"][1].clone();
    skipped["id"] = json!("python-tls13-full");
    skipped["stack"] = json!("python-ssl");
    for (k, x) in [
        ("attempted", json!(0)),
        ("succeeded", json!(0)),
        ("failed", json!(0)),
        ("resumed", json!({"client": 0, "server": 0})),
        ("latency_us", Value::Null),
        ("p50_ci95_us", Value::Null),
        ("throughput_per_s", Value::Null),
        ("samples_us", json!([])),
        ("skipped", json!("`python3` is not on PATH")),
    ] {
        skipped[k] = x;
    }
    let arms = v["arms"].as_array_mut().unwrap();
    arms.extend([new, reuse, skipped]);
    v["comparisons"].as_array_mut().unwrap().push(json!({
        "kind": "resume_rate_speedup", "baseline": "s_time-new", "candidate": "s_time-reuse",
        "p50_ratio": 1.5, "ci95": [1.2, 1.8], "basis": "per_real_s"
    }));
    v
}

#[test]
fn rate_and_skipped_arms_are_valid_as_built() {
    let e = read(&with_peer_arms()).expect("valid");
    let kinds: Vec<_> = e.arms.iter().map(|a| a.kind()).collect();
    use shared::ArmKind::*;
    assert_eq!(kinds, [Latency, Latency, Latency, Rate, Rate, Skipped]);
}

#[test]
fn a_rate_arm_has_no_latencies() {
    let mut v = with_peer_arms();
    v["arms"][3]["samples_us"] = json!([1.0]);
    let msg = invariant_at(&v, "arms[3].samples_us");
    assert!(msg.contains("rate arm has no latencies"), "{msg}");
    let mut v = with_peer_arms();
    v["arms"][3]["latency_us"] = v["arms"][1]["latency_us"].clone();
    invariant_at(&v, "arms[3].latency_us");
}

#[test]
fn a_rate_arm_adds_up() {
    let mut v = with_peer_arms();
    v["arms"][3]["rate"]["connections"] = json!(11);
    invariant_at(&v, "arms[3].rate.connections");
    let mut v = with_peer_arms();
    v["arms"][3]["rate"]["slices"][0]["connections"] = json!(5);
    invariant_at(&v, "arms[3].rate.slices");
    let mut v = with_peer_arms();
    v["arms"][4]["rate"]["slices"][0]["resumed"] = json!(9);
    invariant_at(&v, "arms[4].rate.slices[0].resumed");
    let mut v = with_peer_arms();
    v["arms"][3]["rate"]["per_real_s"] = json!(-1.0);
    invariant_at(&v, "arms[3].rate.per_real_s");
}

#[test]
fn a_skipped_arm_attempted_nothing_and_says_why() {
    let mut v = with_peer_arms();
    v["arms"][5]["attempted"] = json!(3);
    v["arms"][5]["failed"] = json!(3);
    invariant_at(&v, "arms[5].attempted");
    let mut v = with_peer_arms();
    v["arms"][5]["skipped"] = json!(" ");
    invariant_at(&v, "arms[5].skipped");
    let mut v = with_peer_arms();
    v["arms"][5]["error"] = json!("boom");
    invariant_at(&v, "arms[5].error");
}

#[test]
fn a_known_pitfall_carries_its_error() {
    let mut v = with_peer_arms();
    v["arms"][4]["known_pitfall"] = json!("s_time -reuse under TLS 1.3 never resumes");
    invariant_at(&v, "arms[4].known_pitfall");
}

#[test]
fn rate_comparisons_name_a_basis_and_sound_rate_arms() {
    let mut v = with_peer_arms();
    v["comparisons"][1]["basis"] = Value::Null;
    invariant_at(&v, "comparisons[1].basis");
    let mut v = with_peer_arms();
    v["comparisons"][0]["basis"] = json!("per_user_s");
    invariant_at(&v, "comparisons[0].basis");
    let mut v = with_peer_arms();
    v["arms"][4]["error"] = json!("0 of 10 connections resumed");
    let msg = invariant_at(&v, "comparisons[1].candidate");
    assert!(msg.contains("no ratio may be derived"), "{msg}");
    let mut v = with_peer_arms();
    v["comparisons"][1]["baseline"] = json!("tcp-connect");
    let msg = invariant_at(&v, "comparisons[1].baseline");
    assert!(msg.contains("not a rate arm"), "{msg}");
}

#[test]
fn empty_or_scalar_files_are_named() {
    assert!(matches!(
        Evidence::from_json("").unwrap_err(),
        EvidenceError::Syntax { .. }
    ));
    let err = Evidence::from_json("  \"hello\"").unwrap_err();
    assert_eq!(
        err,
        EvidenceError::Foreign("the top level is a string, not an object".into())
    );
    let err = Evidence::from_json("[1, 2").unwrap_err();
    assert!(matches!(err, EvidenceError::Syntax { .. }), "{err:?}");
}

/// The sample plus a 0-RTT arm (early-data counts) and its `zero_rtt_speedup` against the
/// full arm; valid as built.
fn with_zero_rtt() -> Value {
    let mut v = sample_value();
    let mut z = v["arms"][2].clone();
    z["id"] = json!("tls13-0rtt-ecdsa-p256-x25519");
    z["resumption"] = json!("stateful");
    z["early_data"] = json!({"offered": 4, "accepted": 4});
    v["arms"].as_array_mut().unwrap().push(z);
    v["comparisons"].as_array_mut().unwrap().push(json!({
        "kind": "zero_rtt_speedup", "baseline": "tls13-full-ecdsa-p256-x25519",
        "candidate": "tls13-0rtt-ecdsa-p256-x25519", "p50_ratio": 2.0, "ci95": [1.5, 2.5]
    }));
    v
}

#[test]
fn a_zero_rtt_speedup_compares_a_0rtt_arm_with_a_full_arm() {
    read(&with_zero_rtt()).expect("valid as built");
    let mut v = with_zero_rtt();
    v["arms"][3]["early_data"] = Value::Null;
    let msg = invariant_at(&v, "comparisons[1].candidate");
    assert!(msg.contains("not a 0-RTT arm"), "{msg}");
    let mut v = with_zero_rtt();
    v["comparisons"][1]["baseline"] = json!("tls13-resumed-ticket-ecdsa-p256-x25519");
    let msg = invariant_at(&v, "comparisons[1].baseline");
    assert!(msg.contains("not a full arm"), "{msg}");
}

#[test]
fn capacity_counts_no_more_handshakes_than_succeeded() {
    let mut v = sample_value();
    v["arms"][1]["capacity"] = json!({
        "clients": 2, "server_workers": 2, "per_second": [2.0, 1.0],
        "rate_median_per_s": 2.0, "rate_iqr_per_s": [1.0, 2.0], "after_window": 1
    });
    read(&v).expect("3 in the window + 1 after = 4 succeeded");
    v["arms"][1]["capacity"]["after_window"] = json!(2);
    let msg = invariant_at(&v, "arms[1].capacity.per_second");
    assert!(msg.contains("> 4 succeeded"), "{msg}");
}

#[test]
fn a_pooled_primitive_median_lies_between_its_passes() {
    let mut v = sample_value();
    v["primitives"] = json!([{"name": "x25519-keygen", "ops": 20, "median_us": 12.0,
        "median_before_us": 10.0, "median_after_us": 14.0}]);
    read(&v).expect("between the passes");
    v["primitives"][0]["median_us"] = json!(15.0);
    let msg = invariant_at(&v, "primitives[0].median_us");
    assert!(msg.contains("between the passes' medians"), "{msg}");
    // Older files have one pass and no pass medians.
    v["primitives"] = json!([{"name": "x25519-keygen", "ops": 20, "median_us": 12.0}]);
    read(&v).expect("one pass");
}
