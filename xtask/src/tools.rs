//! Running commands, announcing them, and installing what is missing.

use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::Once;

use anyhow::{bail, Context, Result};

/// Prints a step the user should know about.
pub fn step(msg: impl AsRef<str>) {
    eprintln!("==> {}", msg.as_ref());
}

/// The workspace root (the folder holding the top `Cargo.toml`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the root")
        .to_path_buf()
}

/// `cargo` as this process was started by (falls back to PATH).
pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root());
    c
}

/// Runs `cmd`, echoing it first; returns its exit status.
pub fn status(cmd: &mut Command) -> Result<ExitStatus> {
    step(format!("running {}", describe(cmd)));
    cmd.status()
        .with_context(|| format!("could not start {}", describe(cmd)))
}

/// Runs `cmd` and fails unless it exits 0.
pub fn run(cmd: &mut Command) -> Result<()> {
    let st = status(cmd)?;
    if !st.success() {
        bail!("{} failed ({st})", describe(cmd));
    }
    Ok(())
}

pub fn describe(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|s| s.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// True when `program` is found on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

static APT_UPDATE: Once = Once::new();

/// Installs Debian `packages` with apt-get unless `program` is already on PATH.
pub fn ensure_apt(program: &str, packages: &[&str]) -> Result<()> {
    if on_path(program) {
        return Ok(());
    }
    step(format!(
        "`{program}` is missing: installing Debian package(s) {}",
        packages.join(" ")
    ));
    let mut update_result = Ok(());
    APT_UPDATE.call_once(|| {
        update_result = run(Command::new("apt-get").args(["update", "-qq"]));
    });
    update_result.context(
        "apt-get update failed (is this machine able to reach Debian's mirrors, and are we root?)",
    )?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-qq", "--no-install-recommends"])
        .args(packages)
        .env("DEBIAN_FRONTEND", "noninteractive"))
    .with_context(|| {
        format!(
            "could not install {}; install it by hand and retry",
            packages.join(" ")
        )
    })?;
    if !on_path(program) {
        bail!(
            "installed {} but `{program}` is still not on PATH",
            packages.join(" ")
        );
    }
    Ok(())
}

/// The peer stacks' programs (Debian packages). Installing `nginx` or `caddy` may also
/// start the distribution's own service (nginx on port 80) where an init system runs:
/// harmless, and the collector never uses it (it runs its own on loopback ports).
pub fn ensure_peer_stacks() -> Result<()> {
    for (program, packages) in [
        ("openssl", &["openssl"][..]),
        ("python3", &["python3"]),
        ("nginx", &["nginx"]),
        ("caddy", &["caddy"]),
        ("gnutls-serv", &["gnutls-bin"]),
        ("gnutls-cli", &["gnutls-bin"]),
    ] {
        ensure_apt(program, packages)?;
    }
    Ok(())
}

/// Adds a rustup target unless it is installed already.
pub fn ensure_rust_target(target: &str) -> Result<()> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("could not run rustup (needed to add the target {target})")?;
    if String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.trim() == target)
    {
        return Ok(());
    }
    step(format!("Rust target {target} is missing: adding it"));
    run(Command::new("rustup").args(["target", "add", target]))
}

/// Adds a rustup component (e.g. rustfmt) unless it is installed already.
pub fn ensure_rust_component(component: &str, probe: &mut Command) -> Result<()> {
    if probe.output().map(|o| o.status.success()).unwrap_or(false) {
        return Ok(());
    }
    step(format!("Rust component {component} is missing: adding it"));
    run(Command::new("rustup").args(["component", "add", component]))
}
