//! `openssl s_server -WWW` as a peer server: one process on 127.0.0.1 per certificate,
//! serving the run's leaf and a 1-byte file, its group pinned.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use shared::KxGroup;

use super::group_name;
use crate::peers::files::PemFiles;
use crate::peers::process::{free_loopback_addr, ServerProcess};

/// A running `openssl s_server -WWW` on 127.0.0.1, killed on drop.
pub struct SServer {
    process: ServerProcess,
}

impl SServer {
    /// Starts s_server for `files`, serving `www` (which holds [`super::WWW_FILE`]), with
    /// the key exchange pinned to `group`; waits until `ready` succeeds against it (a
    /// handshake that presents the run's leaf: see [`crate::peers::ready`]).
    pub fn start(
        program: &Path,
        files: &PemFiles,
        www: &Path,
        group: KxGroup,
        log: PathBuf,
        io_timeout: Duration,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Self> {
        let group = group_name(group)
            .ok_or_else(|| anyhow!("openssl s_server: OpenSSL 3.0 has no group {group}"))?;
        let addr = free_loopback_addr()?;
        let log_file = std::fs::File::create(&log)
            .with_context(|| format!("could not create {}", log.display()))?;
        let mut cmd = Command::new(program);
        cmd.current_dir(www)
            .args(["s_server", "-accept", &addr.to_string(), "-WWW", "-quiet"])
            .args(["-groups", group])
            .arg("-cert")
            .arg(&files.cert)
            .arg("-key")
            .arg(&files.key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file);
        let process =
            ServerProcess::start(&mut cmd, "openssl s_server", addr, log, io_timeout, ready)?;
        Ok(SServer { process })
    }

    pub fn addr(&self) -> SocketAddr {
        self.process.addr()
    }

    /// An error (with the end of s_server's log) if the process has ended.
    pub fn check_alive(&mut self) -> Result<()> {
        self.process.check_alive()
    }
}
