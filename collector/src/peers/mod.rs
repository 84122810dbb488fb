//! The peer phase driver: it runs the other TLS stacks (OpenSSL's tools, Python's `ssl`,
//! …) beside the rustls arms. It lists the stacks, one line each in [`stacks::STACKS`],
//! plans their arms and narrows them with `--arms` ([`plan`]), looks up their tools on
//! PATH ([`which`]), then runs each stack's arms ([`Phase`]), lending the stacks the
//! shared timing loop and the evidence record of a run. What a stack implements and the
//! infrastructure it runs on (private folder, processes, readiness, servers) are below,
//! in [`crate::arms::peer`]; each stack is a folder under `arms/`.
//!
//! A tool that is not on PATH makes its arms *skipped* (with the reason) unless
//! `--require-peers`; a tool that fails makes its arms errors.

pub mod plan;
mod run;
pub mod stacks;

use std::path::{Path, PathBuf};

pub use run::{PeerResults, Phase};

/// `name` found as an executable file in a PATH folder, if any.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
