//! Building the viewer's wasm and its JS glue, on the pinned stable toolchain
//! (rust-toolchain.toml): stable features and flags only, no post-link optimiser.
//!
//! The wasm-bindgen step runs in-process through `wasm-bindgen-cli-support`, pinned with
//! `=` to the same version as the viewer's `wasm-bindgen`, so it is always the version in
//! Cargo.lock and a fresh machine needs nothing but `rustup target add` (done here).
//!
//! The bundle's download budget: wasm + JS ≤ 370,000 bytes gzipped, asserted in
//! tests/e2e/site_browser.rs (`budgets_are_measured`; see docs/src/site.md, "The bundle
//! budget"). How the bundle reached its size is in git's history, not here.
//!
//! binaryen's `wasm-opt` (npm
//! `binaryen@132`, a Node program) took the wasm from 278,335 to 272,735 bytes gzipped
//! with the best flags found for it (measured before the path remapping below): 5,600
//! bytes, 2.0% of the bundle, under the 10% that would pay for Node, npm and its 51 s of
//! CPU per build, so it is not used.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::tools::{self, cargo, ensure_rust_target, root, step};

pub const TARGET: &str = "wasm32-unknown-unknown";
/// The cargo profile for the wasm (root Cargo.toml): size-optimised, LTO, one CGU.
pub const PROFILE: &str = "wasm-release";

/// The files the viewer bundle consists of, relative to the site root.
pub const BUNDLE: [&str; 2] = ["viewer.js", "viewer_bg.wasm"];

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

/// Compiles the viewer for the browser and writes `viewer.js` and `viewer_bg.wasm`
/// into `out_dir`.
pub fn build_viewer(out_dir: &Path) -> Result<()> {
    ensure_rust_target(TARGET)?;
    let flags = tools::rustflags_for(TARGET, same_paths_everywhere()?);
    step(format!(
        "building the viewer for the browser (wasm, profile {PROFILE}: size-optimised, LTO; \
         stable toolchain; rustflags: {})",
        flags.describe()
    ));
    // `cargo rustc --crate-type cdylib`: with the crate's own `["cdylib", "rlib"]` cargo
    // silently skips LTO, which costs about a third of the wasm's size.
    let mut build = cargo();
    flags.apply(&mut build);
    tools::run(build.args([
        "rustc",
        "--locked",
        "--quiet",
        "-p",
        "viewer",
        "--lib",
        "--crate-type",
        "cdylib",
        "--target",
        TARGET,
        "--profile",
        PROFILE,
    ]))?;
    let wasm = target_dir().join(TARGET).join(PROFILE).join("viewer.wasm");
    if !wasm.is_file() {
        bail!("the wasm build finished but {} is missing", wasm.display());
    }
    step(format!(
        "generating the JS glue (wasm-bindgen {}) into {}",
        wasm_bindgen_version(),
        out_dir.display()
    ));
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("could not create {}", out_dir.display()))?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)?
        .out_name("viewer")
        .typescript(false)
        .omit_default_module_path(false)
        .remove_name_section(true)
        .remove_producers_section(true)
        .generate(out_dir)
        .with_context(|| format!("wasm-bindgen failed on {}", wasm.display()))?;
    for file in BUNDLE {
        if !out_dir.join(file).is_file() {
            bail!(
                "wasm-bindgen did not write {file} into {}",
                out_dir.display()
            );
        }
    }
    minify_js(&out_dir.join("viewer.js"))
}

/// The wasm build's own flags: the source paths that panic locations carry, made the same
/// on every machine. Without them the standard library's read `/rustc/<commit>/library/…`
/// or, where the `rust-src` component is installed, `<sysroot>/lib/rustlib/src/rust/…`
/// (1,344 bytes more wasm here), and every dependency's `<CARGO_HOME>/registry/src/<index>/…`,
/// so the bundle's size would depend on the user's home folder and components.
/// `--remap-path-prefix` is a stable flag; the viewer's own paths are relative already.
fn same_paths_everywhere() -> Result<Vec<String>> {
    let rustc = || {
        let mut c =
            std::process::Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
        c.current_dir(root());
        c
    };
    let output = |cmd: &mut std::process::Command| -> Result<String> {
        let out = cmd
            .output()
            .with_context(|| format!("could not run {}", tools::describe(cmd)))?;
        if !out.status.success() {
            bail!("{} failed ({})", tools::describe(cmd), out.status);
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let sysroot = output(rustc().args(["--print", "sysroot"]))?;
    let version = output(rustc().arg("-vV"))?;
    let commit = version
        .lines()
        .find_map(|l| l.strip_prefix("commit-hash: "))
        .context("`rustc -vV` names no commit-hash")?;
    let mut flags = vec![format!(
        "--remap-path-prefix={sysroot}/lib/rustlib/src/rust=/rustc/{commit}"
    )];
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(registry) = cargo_home.map(|h| h.join("registry").join("src")) {
        // One folder per registry index (`index.crates.io-<hash>`): each maps to /crates.
        let mut indexes: Vec<PathBuf> = std::fs::read_dir(&registry)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        indexes.sort();
        for index in indexes.iter().filter(|p| p.is_dir()) {
            flags.push(format!("--remap-path-prefix={}=/crates", index.display()));
        }
    }
    Ok(flags)
}

/// Minifies the JS glue in place with esbuild (Debian's package, installed when missing):
/// wasm-bindgen writes readable JS, and the download budget counts it. esbuild keeps
/// property names (the wasm imports are looked up by name) and the ES module's exports.
fn minify_js(js: &Path) -> Result<()> {
    tools::ensure_apt("esbuild", &["esbuild"])?;
    step(format!("minifying {} (esbuild)", js.display()));
    let before = std::fs::metadata(js).map(|m| m.len()).unwrap_or(0);
    tools::run(
        std::process::Command::new("esbuild")
            .arg(js)
            .args([
                "--minify",
                "--format=esm",
                "--allow-overwrite",
                "--log-level=warning",
            ])
            .arg(format!("--outfile={}", js.display())),
    )?;
    let after = std::fs::metadata(js).map(|m| m.len()).unwrap_or(0);
    if after == 0 {
        bail!("esbuild left {} empty", js.display());
    }
    step(format!("viewer.js: {before} → {after} bytes"));
    Ok(())
}

/// The wasm-bindgen version in Cargo.lock (for messages; the build is pinned anyway).
fn wasm_bindgen_version() -> String {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = ")) {
                return v.trim_matches('"').to_string();
            }
        }
    }
    "(version not found in Cargo.lock)".into()
}
