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

pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Path of the collector binary, built once per suite run (`cargo build -p collector`;
/// see [`fixture::shared_fixture`]: under nextest each test is a process of its own).
pub fn collector_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        fixture::shared_fixture("collector-build", |_| {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let st = Command::new(cargo)
                .current_dir(root())
                .args(["build", "--quiet", "-p", "collector"])
                .status()
                .expect("cargo runs");
            assert!(st.success(), "building the collector failed");
        });
        let bin = target_dir().join("debug").join("collector");
        assert!(bin.is_file(), "no collector binary at {}", bin.display());
        bin
    })
}

/// A `Command` for the collector binary. `collector run`'s counting phase (instructions
/// per handshake under valgrind, seconds per run in a debug build) is off unless a test
/// takes `HLAB_NO_INSTRUCTIONS` out again (tests/e2e/instructions.rs).
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
pub mod fixture;
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

pub use shared::testing::{is_root, needs_root, needs_tool, require_or_skip};

/// Waits (up to `timeout`) until `child` itself listens on 127.0.0.1:`port`: the socket in
/// /proc/net/tcp is one of its own descriptors. A connect alone is no proof: a port picked
/// free can be taken by another test's listener meanwhile (and this server then exits).
/// Panics, naming `what`, if the child exits first or the deadline passes.
pub fn wait_listening(
    child: &mut std::process::Child,
    port: u16,
    what: &str,
    timeout: std::time::Duration,
) {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{what} exited before it listened on port {port}: {status}");
        }
        if listens_on(child.id(), port) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what} did not listen on port {port} within {timeout:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether process `pid` holds a socket listening on 127.0.0.1:`port`.
fn listens_on(pid: u32, port: u16) -> bool {
    // /proc/net/tcp: "sl local_address rem_address st … inode"; 127.0.0.1 is 0100007F,
    // LISTEN is state 0A.
    let local = format!("0100007F:{port:04X}");
    let inodes: Vec<String> = std::fs::read_to_string("/proc/net/tcp")
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() > 9 && f[1] == local && f[3] == "0A").then(|| format!("socket:[{}]", f[9]))
        })
        .collect();
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .any(|target| inodes.iter().any(|i| target.as_os_str() == i.as_str()))
}
