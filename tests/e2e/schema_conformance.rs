//! The evidence a real run writes conforms to the JSON Schema `collector schema` prints,
//! checked by an independent validator (the `jsonschema` crate), not by the types that
//! wrote it.

use e2e::{collector, only_evidence_file, scratch};
use serde_json::Value;

fn schema() -> Value {
    let out = collector().arg("schema").output().expect("collector runs");
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("the schema is JSON")
}

fn run(args: &[&str], name: &str) -> Value {
    let dir = scratch(name);
    let out = collector()
        .args(args)
        .arg("--out")
        .arg(&dir)
        .output()
        .expect("collector runs");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(only_evidence_file(&dir)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn errors(validator: &jsonschema::Validator, v: &Value) -> Vec<String> {
    validator
        .iter_errors(v)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn real_evidence_conforms_to_the_json_schema() {
    let schema = schema();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    // Handshake arms with phases, and request mode with 0-RTT plus capacity arms: between
    // them most optional parts of the evidence are present.
    let phases = run(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--samples",
            "20",
            "--certs",
            "ecdsa-p256",
        ],
        "schema-phases",
    );
    let request = run(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--samples",
            "20",
            "--request",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
            "--concurrency",
            "1",
            "--capacity-seconds",
            "1",
        ],
        "schema-request",
    );
    // A version-1 file (plain arrays where version 2 packs them) conforms too.
    let v1: Value =
        serde_json::from_str(include_str!("../fixtures/evidence-v1.json")).expect("the fixture");
    for (name, v) in [("phases", &phases), ("request", &request), ("v1", &v1)] {
        let errs = errors(&validator, v);
        assert!(errs.is_empty(), "{name} run: {errs:#?}");
    }
    assert!(
        phases["arms"][1]["phases"].is_object(),
        "phases are in the file"
    );
    assert!(
        phases["arms"][1]["phases"]["client_wall_us"].is_string()
            && phases["arms"][1]["samples_us"].is_string(),
        "the per-connection arrays are packed"
    );
    assert!(v1["arms"][1]["samples_us"].is_array());
    // The validator is not a rubber stamp: the same file with a wrong type, a missing
    // required field and an unknown enum value is refused at each place.
    let mut broken = phases.clone();
    broken["arms"][0]["succeeded"] = Value::from("many");
    broken["run"].as_object_mut().unwrap().remove("id");
    broken["arms"][1]["protocol"] = Value::from("tls1.4");
    broken["arms"][1]["samples_us"] = Value::from(7);
    let errs = errors(&validator, &broken);
    for place in [
        "/arms/0/succeeded",
        "/run",
        "/arms/1/protocol",
        "/arms/1/samples_us",
    ] {
        assert!(
            errs.iter().any(|e| e.ends_with(&format!(" at {place}"))),
            "no error at {place}: {errs:#?}"
        );
    }
}
