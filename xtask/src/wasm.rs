//! Building the viewer's wasm and its JS glue.
//!
//! The wasm-bindgen step runs in-process through `wasm-bindgen-cli-support`, pinned with
//! `=` to the same version as the viewer's `wasm-bindgen`, so it is always the version in
//! Cargo.lock and a fresh machine needs nothing but `rustup target add` (done here).

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
    ensure_rust_src()?;
    step("building the viewer for the browser (wasm, size-optimised, std rebuilt for size)");
    // `cargo rustc --crate-type cdylib`: with the crate's own `["cdylib", "rlib"]` cargo
    // silently skips LTO, which costs about a third of the wasm's size.
    //
    // The standard library is rebuilt with the wasm (`-Zbuild-std`, from the `rust-src`
    // component) with its `optimize_for_size` feature, and panics abort at once
    // (`-Cpanic=immediate-abort`: no panic messages, locations or formatting in the
    // wasm; a panic is a trap, which index.html reports). Measured on this viewer:
    // 260,272 → 246,317 bytes gzipped (std for size), → 231,257 (immediate abort).
    // These flags are unstable; RUSTC_BOOTSTRAP=1 lets the pinned stable toolchain take
    // them, for this one build only.
    tools::run(
        cargo()
            .env("RUSTC_BOOTSTRAP", "1")
            .env(
                "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
                "-Zunstable-options -Cpanic=immediate-abort",
            )
            .args([
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
                "-Zbuild-std=std,panic_abort",
                "-Zbuild-std-features=optimize_for_size",
            ]),
    )?;
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

/// Adds the `rust-src` component (the standard library's source, rebuilt for the wasm)
/// unless the toolchain has it.
fn ensure_rust_src() -> Result<()> {
    let sysroot = std::process::Command::new("rustc")
        .current_dir(root())
        .args(["--print", "sysroot"])
        .output()
        .context("could not run rustc --print sysroot")?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    if sysroot.join("lib/rustlib/src/rust/library/std").is_dir() {
        return Ok(());
    }
    step("Rust component rust-src is missing: adding it");
    tools::run(std::process::Command::new("rustup").args(["component", "add", "rust-src"]))
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
