//! `cargo xtask lab`: the main job.

use std::process::ExitCode;

use anyhow::Result;

use crate::tools::{cargo, root, status, step};

pub fn run(args: &[String]) -> Result<ExitCode> {
    let passthrough: Vec<&String> = match args.iter().position(|a| a == "--") {
        Some(i) => args[i + 1..].iter().collect(),
        None if args.is_empty() => Vec::new(),
        None => anyhow::bail!(
            "unknown lab flag(s) {args:?}; pass collector flags after `--`, e.g. `cargo xtask lab -- --quick`"
        ),
    };
    let results = root().join("results");
    step(format!(
        "collecting on defaults (release build) into {}",
        results.display()
    ));
    let st = status(
        cargo()
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "collector",
                "--",
                "run",
                "--out",
            ])
            .arg(&results)
            .args(passthrough),
    )?;
    if !st.success() {
        eprintln!(
            "xtask: the collector exited with {st}; its evidence (if any) is in {}",
            results.display()
        );
        return Ok(ExitCode::from(st.code().unwrap_or(1).clamp(1, 255) as u8));
    }
    step(format!(
        "evidence is in {} (index: {})",
        results.display(),
        results.join("index.json").display()
    ));
    Ok(ExitCode::SUCCESS)
}
