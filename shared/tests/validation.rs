//! Reading evidence: round trip, and each kind of error with the path it names.

use serde_json::{json, Value};
use shared::{sample, Evidence, EvidenceError, SCHEMA_VERSION};

fn sample_value() -> Value {
    serde_json::to_value(sample::evidence()).unwrap()
}

fn read(v: &Value) -> Result<Evidence, EvidenceError> {
    Evidence::from_json(&v.to_string())
}

/// The message of an invariant error, which must name `path`.
fn invariant_at(v: &Value, path: &str) -> String {
    match read(v) {
        Err(EvidenceError::Invariant(vs)) => {
            assert!(
                vs.iter().any(|x| x.path == path),
                "expected a violation at {path}, got {vs:?}"
            );
            vs.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        }
        other => panic!("expected an invariant error at {path}, got {other:?}"),
    }
}

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
fn unknown_schema_version_names_the_version() {
    let mut v = sample_value();
    v["schema_version"] = json!(7);
    let err = read(&v).unwrap_err();
    assert_eq!(
        err,
        EvidenceError::UnknownVersion {
            found: "7".into(),
            supported: SCHEMA_VERSION
        }
    );
    assert!(
        err.to_string().contains("unknown schema version 7"),
        "{err}"
    );
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
    v["arms"][1]["samples_us"].as_array_mut().unwrap().pop();
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
