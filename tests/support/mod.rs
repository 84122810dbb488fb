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

/// A `Command` for the collector binary.
pub fn collector() -> Command {
    Command::new(collector_bin())
}

/// A fresh, empty scratch folder under the target dir (kept after the test for a look).
pub fn scratch(name: &str) -> PathBuf {
    let dir = target_dir().join("e2e-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub mod site;
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
