//! `finish`: valid evidence becomes a run in the folder; evidence that breaks its own
//! invariants never does.

use std::fs;
use std::path::Path;

use shared::{EvidenceError, ResultsIndex};

use super::*;
use crate::evidence::write::tests::{names, scratch};

fn index_ids(d: &Path) -> Vec<String> {
    let text = fs::read_to_string(d.join("index.json")).unwrap();
    let index: ResultsIndex = serde_json::from_str(&text).unwrap();
    index.runs.iter().map(|r| r.run_id.clone()).collect()
}

#[test]
fn valid_evidence_is_written_and_indexed() {
    let d = scratch("finish-valid");
    let ev = shared::sample::evidence();
    let code = finish(&d, &ev, time::Duration::ZERO, false).unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(
        names(&d),
        ["20261130T000000Z-sample-0000.json", "index.json"]
    );
    assert_eq!(index_ids(&d), ["20261130T000000Z-sample-0000"]);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn evidence_that_breaks_its_invariants_is_set_aside_and_fails() {
    let d = scratch("finish-invalid");
    // An earlier, valid run in the same folder.
    let mut first = shared::sample::evidence();
    first.run.id = "20261129T000000Z-first-0000".into();
    finish(&d, &first, time::Duration::ZERO, false).unwrap();
    let index_before = fs::read(d.join("index.json")).unwrap();

    let mut ev = shared::sample::evidence();
    ev.arms[0].succeeded += 1; // succeeded + failed != attempted
    let err = finish(&d, &ev, time::Duration::ZERO, false)
        .expect_err("invalid evidence must fail the run (exit 1)")
        .to_string();
    assert!(err.contains("arms[0].attempted"), "{err}");
    assert!(
        err.contains("20261130T000000Z-sample-0000.invalid.json"),
        "{err}"
    );

    assert_eq!(
        names(&d),
        [
            "20261129T000000Z-first-0000.json",
            "20261130T000000Z-sample-0000.invalid.json",
            "index.json"
        ],
        "no <id>.json for the broken run"
    );
    assert_eq!(fs::read(d.join("index.json")).unwrap(), index_before);
    assert_eq!(index_ids(&d), ["20261129T000000Z-first-0000"]);
    // The set-aside file holds the broken evidence, which the loader rejects.
    let kept = fs::read_to_string(d.join("20261130T000000Z-sample-0000.invalid.json")).unwrap();
    assert!(matches!(
        Evidence::from_json(&kept),
        Err(EvidenceError::Invariant(v)) if v.iter().any(|v| v.path == "arms[0].attempted")
    ));
    fs::remove_dir_all(&d).unwrap();
}
