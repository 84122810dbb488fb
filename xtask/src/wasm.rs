//! Building the viewer's wasm and its JS glue.
//!
//! The wasm-bindgen step runs in-process through `wasm-bindgen-cli-support`, pinned with
//! `=` to the same version as the viewer's `wasm-bindgen`, so it is always the version in
//! Cargo.lock and a fresh machine needs nothing but `rustup target add` (done here).
//!
//! Then binaryen's `wasm-opt` (npm's `binaryen`, installed under target/tools/ when
//! missing) rewrites the wasm (see [`optimize_wasm`]): the bundle's download budget
//! (wasm + JS ≤ 250,000 bytes gzipped, asserted in tests/site_browser.rs) was down to
//! 217 bytes of room (249,783) before the run history; with the history the viewer is
//! 248,246 bytes gzipped after this step (587,438 bytes of wasm, 637,268 before it).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::tools::{self, cargo, ensure_rust_target, root, step};

/// binaryen's npm package (its `wasm-opt` is a Node build), pinned exactly. Debian's
/// binaryen (108) and the `wasm-opt` crate cannot read what Rust 1.95 emits; 132 can.
const BINARYEN_VERSION: &str = "132.0.0";

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
    optimize_wasm(&out_dir.join("viewer_bg.wasm"))?;
    minify_js(&out_dir.join("viewer.js"))
}

/// Shrinks the wasm in place with binaryen's `wasm-opt` (npm `binaryen`, installed under
/// target/ when missing), after wasm-bindgen, which leaves the module as the linker made it.
///
/// What counts is the gzipped size (the budget), and plain `-Oz` makes that *worse*: it
/// cuts the raw wasm by 7% but the gzipped wasm grows by 271 bytes. The loss comes from
/// inlining every function that has a single caller, however big (binaryen's default):
/// limiting that to small functions alone turns it into a gain. Measured (`gzip -9` of
/// viewer_bg.wasm; the JS is untouched), on the viewer before the run history: 243,365
/// bytes without wasm-opt; 243,636 with `-Oz`; 240,783 with the limit at 0; 240,419 with
/// the limit at 50 (limits from 15 to 200 all gave 240,4xx–240,5xx). On the viewer with
/// the history: `--low-memory-unused` (the wasm's data starts at 1 MiB, above its stack,
/// so nothing lives below 1 KiB and binaryen may fold small offsets into addresses) took
/// 1,655 bytes more and `--converge` (passes repeated until the module stops shrinking)
/// 205 more. Tried instead of `--converge`, each after `-Oz`: `--gufa -Oz` 184 bytes,
/// `--merge-similar-functions -Oz` 197, a second `-Oz` 196; `-Os` instead of `-Oz` lost 52.
/// wasm-opt took 36.6 s of CPU on this 2-core machine (`time`, the flags below); its output
/// is cached by input (see [`cache_entry`]).
///
/// The features are the ones Rust 1.95 enables for wasm32-unknown-unknown. wasm-opt also
/// reads them from the module's `target_features` section, but without that section its
/// defaults reject the module (`memory.copy` needs bulk memory, the externref table
/// reference types), so they are spelled out.
fn optimize_wasm(wasm: &Path) -> Result<()> {
    let input =
        std::fs::read(wasm).with_context(|| format!("could not read {}", wasm.display()))?;
    // The same input gives the same output: a site rebuilt from an unchanged viewer (the
    // tests build several) reuses it instead of running wasm-opt again.
    let cached = cache_entry(&input);
    if let Ok(out) = std::fs::read(&cached) {
        if !out.is_empty() {
            step(format!(
                "wasm-opt: the viewer is unchanged, reusing its output ({})",
                cached.display()
            ));
            return std::fs::write(wasm, out)
                .with_context(|| format!("could not write {}", wasm.display()));
        }
    }
    let wasm_opt = ensure_wasm_opt()?;
    step(format!(
        "optimising {} (binaryen {BINARYEN_VERSION} wasm-opt {})",
        wasm.display(),
        WASM_OPT_FLAGS.join(" ")
    ));
    let before = input.len();
    let optimised = wasm.with_extension("wasm-opt.tmp");
    let result = tools::run(
        std::process::Command::new("node")
            .arg(&wasm_opt)
            .args(WASM_OPT_FLAGS)
            .arg(wasm)
            .arg("-o")
            .arg(&optimised),
    );
    let after = std::fs::metadata(&optimised).map(|m| m.len()).unwrap_or(0);
    if let Err(e) = result {
        let _ = std::fs::remove_file(&optimised);
        return Err(e.context(format!("wasm-opt could not optimise {}", wasm.display())));
    }
    if after == 0 {
        let _ = std::fs::remove_file(&optimised);
        bail!(
            "wasm-opt exited 0 but left no or an empty output for {}",
            wasm.display()
        );
    }
    std::fs::rename(&optimised, wasm).with_context(|| {
        format!(
            "could not replace {} with wasm-opt's output",
            wasm.display()
        )
    })?;
    if let Some(dir) = cached.parent() {
        // A cache only: a failure to keep the output costs the next build time, no more.
        let _ = std::fs::create_dir_all(dir).and_then(|_| std::fs::copy(wasm, &cached));
    }
    step(format!("viewer_bg.wasm: {before} → {after} bytes"));
    Ok(())
}

/// wasm-opt's arguments (see [`optimize_wasm`]).
const WASM_OPT_FLAGS: [&str; 11] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
    "-Oz",
    "--one-caller-inline-max-function-size",
    "50",
    "--low-memory-unused",
    "--converge",
];

/// Where wasm-opt's output for `input` is kept: named by a hash of the input, the flags
/// and the binaryen version (std's SipHash with its fixed keys: the same on every run of
/// this build of the xtask), under target/.
fn cache_entry(input: &[u8]) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (input, WASM_OPT_FLAGS, BINARYEN_VERSION).hash(&mut h);
    target_dir()
        .join("tools")
        .join("wasm-opt-cache")
        .join(format!("{:016x}-{}.wasm", h.finish(), input.len()))
}

/// The path of binaryen's `wasm-opt` (a Node script), installing the pinned npm package
/// into target/tools/binaryen unless that exact version is there already.
fn ensure_wasm_opt() -> Result<PathBuf> {
    let prefix = target_dir().join("tools").join("binaryen");
    let package = prefix.join("node_modules").join("binaryen");
    let wasm_opt = package.join("bin").join("wasm-opt");
    let installed = || {
        let manifest = std::fs::read_to_string(package.join("package.json")).ok()?;
        let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
        let version = manifest.get("version")?.as_str()?.to_string();
        Some(version)
    };
    if wasm_opt.is_file() && installed().as_deref() == Some(BINARYEN_VERSION) {
        return Ok(wasm_opt);
    }
    tools::ensure_apt("node", &["nodejs"])?;
    tools::ensure_apt("npm", &["npm"])?;
    step(format!(
        "binaryen {BINARYEN_VERSION} (wasm-opt) is missing: installing it from npm into {}",
        prefix.display()
    ));
    std::fs::create_dir_all(&prefix)
        .with_context(|| format!("could not create {}", prefix.display()))?;
    tools::run(
        std::process::Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(&prefix)
            .args([
                &format!("binaryen@{BINARYEN_VERSION}"),
                "--save-exact",
                "--no-audit",
                "--no-fund",
            ]),
    )
    .context("could not install binaryen from npm (is the npm registry reachable?)")?;
    match installed() {
        Some(v) if v == BINARYEN_VERSION && wasm_opt.is_file() => Ok(wasm_opt),
        found => bail!(
            "npm installed binaryen but {} is missing or not version {BINARYEN_VERSION} (found {found:?})",
            wasm_opt.display()
        ),
    }
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
