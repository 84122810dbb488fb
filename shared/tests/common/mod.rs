//! What the rule tests share: the paths a change makes valid evidence break.

use shared::Evidence;

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
