//! A real version-1 file (`tests/fixtures/evidence-v1.json`, written by the collector
//! before the per-connection arrays were packed) still reads, validates, and every one of
//! its values survives being written again as version 2.

use serde_json::Value;
use shared::{Evidence, SCHEMA_VERSION};

const V1: &str = include_str!("../../tests/fixtures/evidence-v1.json");

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("a plain array in version 1")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

#[test]
fn the_version_1_file_reads_and_validates_with_its_values_as_written() {
    let e = Evidence::from_json(V1).expect("a version-1 file validates");
    assert_eq!(e.schema_version, 1);
    // The same numbers as a plain JSON reader finds in the text.
    let raw: Value = serde_json::from_str(V1).unwrap();
    let arms = raw["arms"].as_array().unwrap();
    assert_eq!(e.arms.len(), arms.len());
    let mut rows_seen = 0;
    for (arm, raw) in e.arms.iter().zip(arms) {
        assert_eq!(arm.samples_us, numbers(&raw["samples_us"]), "{}", arm.id);
        if let Some(p) = &arm.phases {
            let rows: Vec<Vec<f64>> = raw["phases"]["client_wall_us"]
                .as_array()
                .unwrap()
                .iter()
                .map(numbers)
                .collect();
            assert_eq!(p.client_wall_us, rows, "{}", arm.id);
            rows_seen += rows.len();
        }
    }
    assert!(rows_seen > 0, "the fixture has phase rows");
}

#[test]
fn a_version_1_file_written_again_is_version_2_packed_and_loses_nothing() {
    let mut e = Evidence::from_json(V1).unwrap();
    e.schema_version = SCHEMA_VERSION;
    let text = e.to_json();
    let back = Evidence::from_json(&text).expect("version 2 validates");
    assert_eq!(back, e);
    // Every array with values was packed (the collector's values all carry exactly).
    let raw: Value = serde_json::from_str(&text).unwrap();
    for arm in raw["arms"].as_array().unwrap() {
        let s = &arm["samples_us"];
        assert!(
            s.is_string() || s.as_array().is_some_and(|a| a.is_empty()),
            "{}",
            arm["id"]
        );
        if arm["phases"].is_object() {
            for f in [
                "client_wall_us",
                "client_cpu_us",
                "server_wall_us",
                "server_cpu_us",
            ] {
                let r = &arm["phases"][f];
                assert!(r.is_string() || r == &Value::Array(vec![]), "{f}");
            }
        }
    }
    assert!(
        text.len() < V1.len(),
        "{} bytes as version 2, {} as version 1",
        text.len(),
        V1.len()
    );
}
