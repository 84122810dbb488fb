//! Helpers the evidence-reading tests share (each test file includes this module).

// Each test file includes this module and uses some of its helpers; the rest would be
// dead code in that test binary.
#![allow(dead_code)]

use serde_json::Value;
use shared::{sample, Evidence, EvidenceError};

pub fn sample_value() -> Value {
    serde_json::to_value(sample::evidence()).unwrap()
}

pub fn read(v: &Value) -> Result<Evidence, EvidenceError> {
    Evidence::from_json(&v.to_string())
}

/// The message of an invariant error, which must name `path`.
pub fn invariant_at(v: &Value, path: &str) -> String {
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

/// The paths `e` breaks after `change`, having checked that `e` breaks none before.
pub fn paths(mut e: Evidence, change: impl FnOnce(&mut Evidence)) -> Vec<String> {
    assert!(e.violations().is_empty(), "{:?}", e.violations());
    change(&mut e);
    e.violations().into_iter().map(|v| v.path).collect()
}

/// Asserts that `change` makes `e` break the rule at `path` (among any others).
pub fn breaks(e: Evidence, path: &str, change: impl FnOnce(&mut Evidence)) {
    let got = paths(e, change);
    assert!(
        got.iter().any(|p| p == path),
        "expected {path}, got {got:?}"
    );
}
