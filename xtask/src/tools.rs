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

/// `apt-get update` (once per process) and `apt-get install` of `packages`, each command
/// run by `run_with` (echoed, or with its output captured).
fn apt_install(packages: &[&str], run_with: &dyn Fn(&mut Command) -> Result<()>) -> Result<()> {
    let mut update_result = Ok(());
    APT_UPDATE.call_once(|| {
        update_result = run_with(Command::new("apt-get").args(["update", "-qq"]));
    });
    update_result.context(
        "apt-get update failed (is this machine able to reach Debian's mirrors, and are we root?)",
    )?;
    run_with(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

/// Installs Debian `packages` with apt-get unless `program` is already on PATH.
pub fn ensure_apt(program: &str, packages: &[&str]) -> Result<()> {
    if on_path(program) {
        return Ok(());
    }
    step(format!(
        "`{program}` is missing: installing Debian package(s) {}",
        packages.join(" ")
    ));
    apt_install(packages, &run).with_context(|| {
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

/// The peer stacks' programs and their Debian packages. Installing `nginx` or `caddy` may
/// also start the distribution's own service (nginx on port 80) where an init system runs:
/// harmless, and the collector never uses it (it runs its own on loopback ports).
pub const PEER_STACKS: [(&str, &str); 8] = [
    ("openssl", "openssl"),
    ("python3", "python3"),
    ("nginx", "nginx"),
    ("caddy", "caddy"),
    ("gnutls-serv", "gnutls-bin"),
    ("gnutls-cli", "gnutls-bin"),
    ("haproxy", "haproxy"),
    ("botan", "botan"),
];

pub fn ensure_peer_stacks() -> Result<()> {
    for (program, package) in PEER_STACKS {
        ensure_apt(program, &[package])?;
    }
    Ok(())
}

/// Installs, in one `apt-get install`, the Debian package of every `(program, package)`
/// whose program is not on PATH (one dpkg run and its triggers, not one per program), and
/// returns what it did, its output captured: it runs on a thread of its own while the
/// caller compiles, so it prints nothing while it works. Errors name the packages.
pub fn install_missing_quietly(wanted: &[(&str, &str)]) -> Result<String> {
    let mut packages: Vec<&str> = wanted
        .iter()
        .filter(|(program, _)| !on_path(program))
        .map(|&(_, p)| p)
        .collect();
    packages.sort_unstable();
    packages.dedup();
    if packages.is_empty() {
        return Ok("every program was on PATH already".into());
    }
    let quiet = |cmd: &mut Command| -> Result<()> {
        let out = cmd
            .output()
            .with_context(|| format!("could not start {}", describe(cmd)))?;
        if !out.status.success() {
            bail!(
                "{} failed ({}):\n{}{}",
                describe(cmd),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    };
    apt_install(&packages, &quiet).with_context(|| {
        format!(
            "could not install {}; install them by hand and retry",
            packages.join(" ")
        )
    })?;
    let still: Vec<&str> = wanted
        .iter()
        .filter(|(program, _)| !on_path(program))
        .map(|&(p, _)| p)
        .collect();
    if !still.is_empty() {
        bail!(
            "installed {} but {} still not on PATH",
            packages.join(" "),
            still.join(", ")
        );
    }
    Ok(format!(
        "installed the Debian package(s) {}",
        packages.join(" ")
    ))
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

/// The rustflags of a cargo build the xtask starts: the project's own for that target,
/// and after them whatever the environment sets, so neither replaces the other silently
/// (cargo itself takes only the first of `CARGO_ENCODED_RUSTFLAGS`, `RUSTFLAGS`,
/// `CARGO_TARGET_<TRIPLE>_RUSTFLAGS`, `CARGO_BUILD_RUSTFLAGS` it finds, so a `RUSTFLAGS`
/// set for other work would replace the project's target flags without a word).
pub struct RustFlags {
    own: Vec<String>,
    /// The variable the environment's flags come from (cargo's precedence), and its flags.
    from_env: Option<(String, Vec<String>)>,
}

impl RustFlags {
    /// What the build gets, for the step message.
    pub fn describe(&self) -> String {
        let own = if self.own.is_empty() {
            "none of the project's own".to_string()
        } else {
            format!("the project's `{}`", self.own.join(" "))
        };
        match &self.from_env {
            None => format!("{own}, none from the environment"),
            Some((var, flags)) => format!(
                "{own}, then `{}` from the environment's {var} (appended: this build differs \
                 from the project's, e.g. in size)",
                flags.join(" ")
            ),
        }
    }

    /// Hands the flags to `cmd` as `CARGO_ENCODED_RUSTFLAGS` (the one cargo reads first),
    /// and takes the others out of its environment.
    pub fn apply(&self, cmd: &mut Command) {
        for (var, _) in rustflags_vars() {
            cmd.env_remove(var);
        }
        let all: Vec<&str> = self
            .own
            .iter()
            .chain(self.from_env.iter().flat_map(|(_, f)| f))
            .map(String::as_str)
            .collect();
        if !all.is_empty() {
            cmd.env("CARGO_ENCODED_RUSTFLAGS", all.join("\x1f"));
        }
    }
}

/// The project's flags for `target` (`own`) and, appended, what the environment sets for
/// a build of that target, read by cargo's precedence.
pub fn rustflags_for(target: &str, own: Vec<String>) -> RustFlags {
    let target_var = format!(
        "CARGO_TARGET_{}_RUSTFLAGS",
        target.to_uppercase().replace(['-', '.'], "_")
    );
    let from_env = [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        target_var.as_str(),
        "CARGO_BUILD_RUSTFLAGS",
    ]
    .into_iter()
    .find_map(|var| {
        let value = std::env::var(var).ok()?;
        let flags: Vec<String> = if var == "CARGO_ENCODED_RUSTFLAGS" {
            value.split('\x1f').map(str::to_string).collect()
        } else {
            value.split_whitespace().map(str::to_string).collect()
        };
        // The first one set wins, even when empty (as in cargo).
        Some((
            var.to_string(),
            flags.into_iter().filter(|f| !f.is_empty()).collect(),
        ))
    })
    .filter(|(_, flags): &(String, Vec<String>)| !flags.is_empty());
    RustFlags { own, from_env }
}

/// Every rustflags variable set in this environment (any target's), with its value.
fn rustflags_vars() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "CARGO_ENCODED_RUSTFLAGS" | "RUSTFLAGS" | "CARGO_BUILD_RUSTFLAGS"
            ) || (k.starts_with("CARGO_TARGET_") && k.ends_with("_RUSTFLAGS"))
        })
        .collect()
}

/// Says which rustflags from the environment a native build started by the xtask takes
/// (the project sets none of its own for native builds, so cargo's rules apply as usual).
pub fn announce_native_rustflags() {
    let set: Vec<String> = rustflags_vars()
        .into_iter()
        .filter(|(_, v)| !v.trim_matches(['\x1f', ' ']).is_empty())
        .map(|(k, v)| format!("{k}=`{}`", v.replace('\x1f', " ")))
        .collect();
    if !set.is_empty() {
        step(format!(
            "native builds take rustflags from the environment ({}; cargo uses the first of \
             CARGO_ENCODED_RUSTFLAGS, RUSTFLAGS, CARGO_TARGET_<triple>_RUSTFLAGS, \
             CARGO_BUILD_RUSTFLAGS); the viewer's wasm build appends them to its own",
            set.join(", ")
        ));
    }
}
