//! A version-1 file (plain arrays, before the per-connection arrays were packed) renders
//! as the same page as its values written as version 2.

use super::load_and_derive;
use shared::{Evidence, SCHEMA_VERSION};

const V1: &str = include_str!("../../tests/fixtures/evidence-v1.json");

#[test]
fn a_version_1_file_renders_like_the_same_run_written_as_version_2() {
    let old = load_and_derive(&[("run.json", V1)]);
    assert!(old.failures.is_empty(), "{:?}", old.failures);
    assert_eq!(old.runs, 1);
    assert!(old.draw_errors.is_empty(), "{:?}", old.draw_errors);
    let arms = serde_json::from_str::<serde_json::Value>(V1).unwrap()["arms"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(old.rows, arms, "every arm is a row");
    // The speedup chart and the CDF (drawn from the samples) at least.
    assert!(old.charts >= 2, "{} charts", old.charts);

    let mut e = Evidence::from_json(V1).unwrap();
    e.schema_version = SCHEMA_VERSION;
    let v2 = e.to_json();
    assert!(
        !v2.contains("\"samples_us\": ["),
        "version 2 packs the samples"
    );
    let new = load_and_derive(&[("run.json", &v2)]);
    assert!(new.failures.is_empty(), "{:?}", new.failures);
    assert_eq!((new.rows, new.charts), (old.rows, old.charts));
    assert!(new.csv == old.csv, "the CSV differs");
    assert!(new.texts == old.texts, "the page's texts differ");
}
