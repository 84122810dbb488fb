//! `cargo xtask test`: every test the project has.

use std::process::{Command, ExitCode};

use anyhow::{bail, Result};

use crate::tools::{self, cargo, ensure_rust_component, step};

pub fn run(args: &[String]) -> Result<ExitCode> {
    if !args.is_empty() {
        bail!("`cargo xtask test` takes no arguments (got {args:?})");
    }
    ensure_rust_component("rustfmt", Command::new("cargo").args(["fmt", "--version"]))?;
    step("checking formatting");
    tools::run(cargo().args(["fmt", "--all", "--", "--check"]))?;
    step("running unit and end-to-end tests");
    tools::run(cargo().args(["test", "--workspace", "--locked"]))?;
    step("all tests passed");
    Ok(ExitCode::SUCCESS)
}
