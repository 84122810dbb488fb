//! `cargo xtask test`: every check the project has: formatting, import cycles, the
//! workflows (actionlint), clippy, the tests.

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
    step("listing import cycles between modules (`cargo xtask cycles`)");
    if crate::cycles::check(crate::cycles::CRATES)? {
        bail!("modules import each other in a cycle (listed above): break it first");
    }
    crate::actionlint::check()?;
    tools::announce_native_rustflags();
    ensure_rust_component(
        "clippy",
        Command::new("cargo").args(["clippy", "--version"]),
    )?;
    step("linting every crate and target with clippy (warnings are errors)");
    tools::run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The site tests build the viewer for the browser and drive headless Chromium.
    tools::ensure_rust_target(crate::wasm::TARGET)?;
    // The viewer's browser-only code (components, canvas) is compiled only for wasm: lint
    // it there too.
    step("linting the viewer for the browser (wasm32) with clippy (warnings are errors)");
    tools::run(cargo().args([
        "clippy",
        "--package",
        "viewer",
        "--lib",
        "--target",
        crate::wasm::TARGET,
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    tools::ensure_apt("chromium", &["chromium", "chromium-driver"])?;
    tools::ensure_apt("chromedriver", &["chromium-driver"])?;
    // Peer arms run openssl, Python, nginx, Caddy and GnuTLS; emulated RTT and two-host
    // tests need iproute2.
    tools::ensure_peer_stacks()?;
    tools::ensure_apt("ip", &["iproute2"])?;
    // Instructions per handshake are counted under valgrind's callgrind.
    tools::ensure_apt("valgrind", &["valgrind"])?;
    step("running unit and end-to-end tests (the site tests run headless Chromium)");
    // Root-only tests (network namespaces, TUN) fail here rather than skip.
    tools::run(
        cargo()
            .args(["test", "--workspace", "--locked"])
            .env("HLAB_ROOT_TESTS", "required")
            // Tests that count instructions fail here rather than skip without valgrind.
            .env("HLAB_VALGRIND_TESTS", "required"),
    )?;
    step("all tests passed");
    Ok(ExitCode::SUCCESS)
}
