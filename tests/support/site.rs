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

/// Runs `cargo xtask site --results <results> --out <out> --no-docs` (the book is built
/// by `cargo xtask docs`, not by every test's site); panics with its output when it fails.
pub fn build_site(results: &Path, out: &Path) {
    let output = cargo()
        .args(["run", "--quiet", "-p", "xtask", "--", "site", "--results"])
        .arg(results)
        .arg("--out")
        .arg(out)
        .arg("--no-docs")
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

/// A copy of the built `site` (its page, JS and wasm, not its results) at `out`, with
/// `files` (name, contents) as its `results/`: for sites that must fail in one way.
pub fn site_variant(site: &Path, out: &Path, files: &[(&str, &str)]) {
    let results = out.join("results");
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(&results).unwrap();
    for entry in std::fs::read_dir(site).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, out.join(path.file_name().unwrap())).unwrap();
        }
    }
    for (name, text) in files {
        let path = results.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A latency as the page writes it ("412 µs", "1.23 ms", "2.00 s"), in µs: parsed
/// here with literal units, so the viewer's formatting is what is under test.
pub fn parse_us(text: &str) -> f64 {
    let (num, unit) = text
        .trim()
        .rsplit_once(' ')
        .unwrap_or_else(|| panic!("no unit in {text:?}"));
    let scale = match unit {
        "µs" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => panic!("unknown unit in {text:?}"),
    };
    num.parse::<f64>()
        .unwrap_or_else(|_| panic!("not a number in {text:?}"))
        * scale
}

/// `text` shows `us` to three significant digits (at most 0.5% off).
pub fn assert_shows_us(text: &str, us: f64, what: &str) {
    let shown = parse_us(text);
    let digits = text.split(' ').next().unwrap().replace('.', "");
    if us >= 1.0 {
        assert_eq!(
            digits.trim_start_matches('0').len(),
            3,
            "{what}: {text:?} is not three significant digits"
        );
    }
    assert!(
        (shown - us).abs() <= us.abs() * 0.005,
        "{what}: {text:?} does not show {us} µs"
    );
}
