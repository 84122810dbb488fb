//! Records, at build time, what the evidence must name: the exact rustls and aws-lc-rs
//! versions from Cargo.lock and the git commit the collector was built from.

use std::process::Command;

fn main() {
    let lock_path = "../Cargo.lock";
    println!("cargo:rerun-if-changed={lock_path}");
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/index");
    let lock = std::fs::read_to_string(lock_path).unwrap_or_default();
    for (krate, var) in [
        ("rustls", "LAB_RUSTLS_VERSION"),
        ("aws-lc-rs", "LAB_AWS_LC_RS_VERSION"),
        ("aws-lc-sys", "LAB_AWS_LC_SYS_VERSION"),
    ] {
        println!(
            "cargo:rustc-env={var}={}",
            locked_version(&lock, krate).unwrap_or("unknown")
        );
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).map(|c| {
        let dirty =
            git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        if dirty {
            format!("{c}-dirty")
        } else {
            c
        }
    });
    println!(
        "cargo:rustc-env=LAB_GIT_COMMIT={}",
        commit.unwrap_or_default()
    );
}

/// The version of `krate` in a Cargo.lock (the first one, if several).
fn locked_version<'a>(lock: &'a str, krate: &str) -> Option<&'a str> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{krate}\"") {
            return lines
                .next()?
                .strip_prefix("version = \"")?
                .strip_suffix('"');
        }
    }
    None
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
