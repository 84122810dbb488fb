//! The peer phase: other TLS stacks (OpenSSL's tools, Python's `ssl`, …), each in its own
//! folder under `arms/` and one line in [`stacks::STACKS`], run and checked by the collector
//! beside the rustls arms. This module is the orchestration they share: the plan, looking
//! up tools, the private folder for keys and configs ([`private_dir`], [`files`]), peer
//! processes ([`process`]) and their readiness ([`ready`]), and the shared latency loop.
//!
//! A tool that is not on PATH makes its arms *skipped* (with the reason) unless
//! `--require-peers`; a tool that fails makes its arms errors. Keys and certificates go
//! to a [`private_dir::PrivateDir`] that is removed on every way out.

pub mod arm;
pub mod files;
pub mod launch;
pub mod plan;
pub mod port_log;
pub mod private_dir;
pub mod process;
pub mod ready;
mod run;
pub mod servers;
pub mod stacks;
pub mod work;

use std::path::{Path, PathBuf};

pub use plan::{PeerArm, PeerStack, Tool};
pub use run::{PeerResults, Phase};
pub use work::{Context, Work};
/// The peer arms' flags (flattened into `collector run`).
#[derive(Debug, Clone, clap::Args)]
pub struct PeerArgs {
    /// Run no peer arms (openssl s_time / s_server, Python ssl, nginx, Caddy, GnuTLS,
    /// HAProxy, Botan);
    /// the evidence then has only rustls and TCP arms. By default they run when their
    /// tool is on PATH.
    #[arg(long, conflicts_with = "require_peers")]
    pub no_peers: bool,

    /// Fail before measuring if a peer tool (`openssl`, `python3`, `nginx`, `caddy`,
    /// `gnutls-serv`, `gnutls-cli`, `haproxy`, `botan`) is not on PATH, instead of recording its arms as
    /// skipped with the reason.
    #[arg(long)]
    pub require_peers: bool,

    /// Wall-clock seconds of `openssl s_time` connections per s_time arm, split evenly
    /// into --peer-slices separate s_time runs (each cut off by the collector, since
    /// s_time itself only stops on whole seconds).
    #[arg(long, value_name = "S", default_value_t = 1.2, value_parser = parse_seconds)]
    pub peer_seconds: f64,

    /// s_time runs per s_time arm, interleaved across arms; the spread between them
    /// gives the 95% CI of the resume rate speedups (bootstrap over runs).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub peer_slices: u64,

    /// Test only: nginx keeps no sessions and issues no tickets (`ssl_session_cache off;
    /// ssl_session_tickets off;`), so its resumed arms must come out as errors.
    #[arg(long, hide = true)]
    pub nginx_resumption_off: bool,

    /// Timed connections per latency peer arm (Python ssl; rustls client against
    /// openssl s_server, nginx, Caddy, gnutls-serv, HAProxy, botan) [default: 300, or 100 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub peer_samples: Option<u64>,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.05..=600.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds between 0.05 and 600"
        )),
    }
}

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
