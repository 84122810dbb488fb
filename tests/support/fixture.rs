//! Fixtures built once per suite run and shared by every test that only reads them, in
//! this process or another: cargo-nextest runs each test in a process of its own, so a
//! `OnceLock` alone would build a site per test.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::target_dir;

/// What names one suite run: nextest's run id (the same in every test process of a run),
/// or this process under a plain `cargo test` (all its tests share the process).
fn run_id() -> String {
    std::env::var("NEXTEST_RUN_ID").unwrap_or_else(|_| format!("process-{}", std::process::id()))
}

/// The folder `target/e2e-fixtures/<name>`, filled by `build` once per suite run: the first
/// caller builds it (holding a lock on `<name>.lock`), later callers of the same run wait
/// for that lock and reuse what it built. A build that panicked is not reused (the next
/// caller builds again and fails the same way). Callers only read what is in the folder;
/// a test that changes files copies them first.
pub fn shared_fixture(name: &str, build: impl FnOnce(&Path)) -> PathBuf {
    let base = target_dir().join("e2e-fixtures");
    std::fs::create_dir_all(&base).unwrap();
    let dir = base.join(name);
    let lock = File::create(base.join(format!("{name}.lock"))).unwrap();
    lock.lock()
        .unwrap_or_else(|e| panic!("could not lock the {name} fixture: {e}"));
    let stamp = base.join(format!("{name}.built-for"));
    let id = run_id();
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == id) {
        return dir;
    }
    let _ = std::fs::remove_file(&stamp);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    build(&dir);
    std::fs::write(&stamp, id).unwrap();
    dir
    // `lock` is released here (and when a panicking `build` unwinds).
}

/// The results folder of one `collector run --quick --concurrency 1,2 --capacity-seconds 1`
/// (peer, floor and capacity arms): the run the site tests that only read a real quick run
/// share (`site_browser`, `site_share`). Its evidence is [`quick_run_evidence`].
pub fn quick_run() -> PathBuf {
    shared_fixture("quick-run", |dir| {
        let args = [
            "run",
            "--quick",
            "--concurrency",
            "1,2",
            "--capacity-seconds",
            "1",
        ];
        crate::run_ok(&args, dir);
    })
}

/// The text of [`quick_run`]'s evidence file, validated.
pub fn quick_run_evidence() -> String {
    let text = std::fs::read_to_string(crate::only_evidence_file(&quick_run())).unwrap();
    shared::Evidence::from_json(&text).expect("the collector's evidence is valid");
    text
}

/// A fresh results folder at `dir` holding everything [`quick_run`] wrote, for a test's
/// own additions.
pub fn copy_of_quick_run(dir: &Path) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    copy_tree(&quick_run(), dir);
    dir.to_path_buf()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// A turn at something tests must not do beside each other, held until dropped: across
/// threads and test processes alike (a file lock under `target/e2e-fixtures/`).
#[must_use = "the turn ends when this is dropped"]
pub struct Turn {
    _lock: File,
}

/// Waits for the turn at `what` (`"browser"`: one headless Chromium at a time on two
/// cores; `"rtt"`: one emulated-RTT run at a time, as their round trips are checked).
pub fn one_at_a_time(what: &str) -> Turn {
    let base = target_dir().join("e2e-fixtures");
    std::fs::create_dir_all(&base).unwrap();
    let lock = File::create(base.join(format!("turn-{what}.lock"))).unwrap();
    lock.lock()
        .unwrap_or_else(|e| panic!("could not wait for the turn at {what}: {e}"));
    Turn { _lock: lock }
}
