//! `openssl s_server -WWW` as a peer server: one process on 127.0.0.1 per certificate,
//! serving the run's leaf and a 1-byte file, its group pinned.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

use anyhow::{anyhow, Result};
use shared::{CertKind, KxGroup};

use super::group_name;
use crate::arms::peer::launch::{Launch, Output};
use crate::arms::peer::process::{free_loopback_addr, ServerProcess};
use crate::arms::peer::Work;

/// Starts `openssl s_server -WWW` on 127.0.0.1 for `cert`'s files, serving the private
/// folder's `www` (which holds [`super::WWW_FILE`]), with the key exchange pinned to
/// `group`, under [`Work::under`] where it is set; its stderr goes to
/// `s_server-<cert>.stderr` in the private folder. Ready once `ready` succeeds against it
/// (a handshake that presents the run's leaf: see [`crate::arms::peer::ready`]); killed on
/// drop.
pub fn start(
    program: &Path,
    cert: CertKind,
    group: KxGroup,
    w: &Work,
    ready: &dyn Fn(SocketAddr) -> Result<()>,
) -> Result<ServerProcess> {
    let (files, www, dir) = (&w.files[&cert], w.dir.path().join("www"), w.dir);
    let group = group_name(group)
        .ok_or_else(|| anyhow!("openssl s_server: OpenSSL 3.0 has no group {group}"))?;
    let addr = free_loopback_addr()?;
    let mut cmd = Command::new(program);
    cmd.current_dir(&www)
        .args(["s_server", "-accept", &addr.to_string(), "-WWW", "-quiet"])
        .args(["-groups", group])
        .arg("-cert")
        .arg(&files.cert)
        .arg("-key")
        .arg(&files.key);
    let launch = Launch::new(
        "openssl s_server",
        "s_server",
        cert.to_string(),
        addr,
        Output::StderrOnly,
    )
    .under(w.under);
    Ok(launch
        .start(&mut cmd, dir, w.ctx.io_timeout, ready)?
        .process)
}
