//! Helpers for the end-to-end tests: the real collector binary and scratch folders.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Path of the collector binary, built once per test process (`cargo build -p collector`).
pub fn collector_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let st = Command::new(cargo)
            .current_dir(root())
            .args(["build", "--quiet", "-p", "collector"])
            .status()
            .expect("cargo runs");
        assert!(st.success(), "building the collector failed");
        let bin = target_dir().join("debug").join("collector");
        assert!(bin.is_file(), "no collector binary at {}", bin.display());
        bin
    })
}

/// A `Command` for the collector binary. `collector run`'s counting phase (instructions
/// per handshake under valgrind, seconds per run in a debug build) is off unless a test
/// takes `HLAB_NO_INSTRUCTIONS` out again (tests/instructions.rs).
pub fn collector() -> Command {
    let mut c = Command::new(collector_bin());
    c.env("HLAB_NO_INSTRUCTIONS", "1");
    c
}

/// A fresh, empty scratch folder under the target dir (kept after the test for a look).
pub fn scratch(name: &str) -> PathBuf {
    let dir = target_dir().join("e2e-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub mod controls_site;
pub mod page;
pub mod probe_checks;
pub mod site;
pub mod tls_files;
pub mod webdriver;

/// The one evidence file a run wrote into `dir` (besides index.json); panics otherwise.
pub fn only_evidence_file(dir: &Path) -> PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.ends_with("index.json"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// The one evidence file a run wrote into `dir`, read and validated.
pub fn read_evidence(dir: &Path) -> shared::Evidence {
    let file = only_evidence_file(dir);
    shared::Evidence::from_json(&std::fs::read_to_string(&file).unwrap())
        .unwrap_or_else(|e| panic!("{} does not validate: {e}", file.display()))
}

/// Runs the collector with `args` plus `--out dir`, requires success, and returns the
/// evidence it wrote (validated).
pub fn run_ok(args: &[&str], dir: &Path) -> shared::Evidence {
    let out = collector()
        .args(args)
        .arg("--out")
        .arg(dir)
        .output()
        .expect("collector runs");
    assert!(
        out.status.success(),
        "collector {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_evidence(dir)
}

/// Sends SIGINT (what Ctrl-C sends) to `child` and waits for it to end.
pub fn interrupt(child: std::process::Child) -> std::process::Output {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -INT failed");
    child.wait_with_output().unwrap()
}

/// Whether this process runs as root (effective uid 0, from /proc/self/status).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

/// For a test that needs root (network namespaces, TUN devices): true when it may run.
/// As another user the test is skipped with a printed reason, never silently; under
/// `cargo xtask test` (which sets `HLAB_ROOT_TESTS=required`, as CI runs it) a missing
/// root is a failure instead, so no root-only test can be skipped there.
pub fn needs_root(test: &str) -> bool {
    if is_root() {
        return true;
    }
    let why = format!(
        "{test} needs root (it makes network namespaces and TUN devices); run the tests as root, as `cargo xtask test` and CI do"
    );
    if std::env::var_os("HLAB_ROOT_TESTS").is_some_and(|v| v == "required") {
        panic!("{why}");
    }
    // Straight to stderr, not through eprintln!: the test harness captures that and
    // shows it only for failures, and a skip must be seen.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
    false
}
