//! Helpers for the site tests: build a site with `cargo xtask site`, serve it with
//! `xtask serve`, take screenshots with headless Chromium.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::webdriver::CHROMIUM_FLAGS;
use crate::{collector_bin, root};

/// The cargo target dir these tests build into (where the collector binary lives).
pub fn target_dir() -> PathBuf {
    let bin = collector_bin();
    bin.parent()
        .and_then(Path::parent)
        .expect("the collector binary is in <target>/debug")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root());
    c
}

/// Runs `cargo xtask site --results <results> --out <out>`; panics with its output
/// when it fails.
pub fn build_site(results: &Path, out: &Path) {
    let output = cargo()
        .args(["run", "--quiet", "-p", "xtask", "--", "site", "--results"])
        .arg(results)
        .arg("--out")
        .arg(out)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo xtask site failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `xtask serve DIR --port 0` running in the background; stopped on drop.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:<port>/`
    pub url: String,
}

impl Server {
    /// Serves `dir` (the xtask binary was built by [`build_site`]).
    pub fn start(dir: &Path) -> Server {
        let bin = target_dir().join("debug").join("xtask");
        let mut child = Command::new(&bin)
            .arg("serve")
            .arg(dir)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", bin.display()));
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "serve printed {url:?}"
        );
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A PNG of `url` after the page ran (headless Chromium, `width × height`).
pub fn screenshot(url: &str, png: &Path, width: u32, height: u32, profile: &Path) {
    let status = Command::new("chromium")
        .args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={width},{height}"))
        .arg("--virtual-time-budget=5000")
        .arg(format!("--screenshot={}", png.display()))
        .arg(url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("chromium runs");
    let _ = std::fs::remove_dir_all(profile);
    assert!(status.success(), "chromium --screenshot failed: {status}");
}

/// Size of `file` gzipped at level 9 (the system's gzip).
pub fn gzipped_size(file: &Path) -> u64 {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(file)
        .output()
        .expect("gzip runs");
    out.stdout.len() as u64
}
