//! For other crates' tests: what a test does when this machine cannot check what the test
//! is for (a missing tool, too few CPUs, no root).

use std::io::Write;

/// The variable `cargo xtask test` (and so CI) sets: there, a test that cannot check what
/// it is for fails with the reason instead of passing unchecked.
pub const STRICT_VAR: &str = "HLAB_TESTS_STRICT";

/// Whether a test that cannot run must fail: under `cargo xtask test` ([`STRICT_VAR`]), and
/// under cargo-nextest (`NEXTEST`), which shows no output of passing tests, so a skip
/// there could not be seen.
pub fn strict() -> bool {
    std::env::var_os(STRICT_VAR).is_some_and(|v| v == "1")
        || std::env::var_os("NEXTEST").is_some_and(|v| v == "1")
}

/// `true` when `ok`. Otherwise the test cannot check what it is for, for the reason
/// `why`: in a strict run ([`strict`]) this panics with it; under a plain `cargo test` it
/// prints `SKIPPED: <test>: <why>` straight to stderr (the harness captures `eprintln!`
/// and shows it only for failures) and returns `false`, for the test to return.
#[track_caller]
pub fn require_or_skip(ok: bool, test: &str, why: &str) -> bool {
    if ok {
        return true;
    }
    if strict() {
        panic!("{test} cannot check what it is for: {why} (a plain `cargo test` skips it)");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why}");
    false
}

/// Whether this process runs as root (effective uid 0, from /proc/self/status).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

/// [`require_or_skip`] for a test that needs root (network namespaces, TUN devices).
#[track_caller]
pub fn needs_root(test: &str) -> bool {
    require_or_skip(
        is_root(),
        test,
        "it needs root (network namespaces, TUN devices); run the tests as root, as `cargo xtask test` and CI do",
    )
}

/// [`require_or_skip`] for a test that runs `tool`: whether it is on PATH.
#[track_caller]
pub fn needs_tool(test: &str, tool: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(tool).is_file()));
    require_or_skip(found, test, &format!("`{tool}` is not on PATH"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_there_is_required_without_a_word() {
        assert!(require_or_skip(true, "t", "never said"));
        assert!(needs_tool("t", "sh"));
    }
}
