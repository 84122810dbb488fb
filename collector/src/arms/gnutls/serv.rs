//! `gnutls-serv --http` as a peer server: one process per cert × protocol × group ×
//! tickets, answering every request with the 1-byte file, printing its view of each
//! connection to a log the collector reads ([`super::output::ServLog`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use shared::{CertKind, KxGroup, Protocol};

use super::output::ServLog;
use crate::peers::files::PemFiles;
use crate::peers::private_dir::PrivateDir;
use crate::peers::process::{free_loopback_addr, ServerProcess};

/// GnuTLS's priority-string name of a group, where GnuTLS 3.7 has it.
pub fn group_name(g: KxGroup) -> Option<&'static str> {
    match g {
        KxGroup::X25519 => Some("GROUP-X25519"),
        KxGroup::Secp256r1 => Some("GROUP-SECP256R1"),
        KxGroup::Secp384r1 => Some("GROUP-SECP384R1"),
        KxGroup::X25519Mlkem768 => None,
    }
}

/// A priority string allowing only `protocol` and `group`, e.g.
/// `NORMAL:-VERS-ALL:+VERS-TLS1.3:-GROUP-ALL:+GROUP-X25519`.
pub fn priority(protocol: Protocol, group: KxGroup) -> Result<String> {
    let g = group_name(group).ok_or_else(|| anyhow!("GnuTLS 3.7 has no group {group}"))?;
    let v = if protocol == Protocol::Tls12 {
        "VERS-TLS1.2"
    } else {
        "VERS-TLS1.3"
    };
    Ok(format!("NORMAL:-VERS-ALL:+{v}:-GROUP-ALL:+{g}"))
}

/// What one `gnutls-serv` is started with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Setup {
    pub cert: CertKind,
    pub protocol: Protocol,
    pub group: KxGroup,
    /// Session tickets (GnuTLS's default); off: `--noticket` (TLS 1.2 session IDs only).
    pub tickets: bool,
}

impl Setup {
    pub fn name(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.cert,
            if self.protocol == Protocol::Tls12 {
                "tls12"
            } else {
                "tls13"
            },
            self.group,
            if self.tickets { "tickets" } else { "noticket" }
        )
    }
}

/// A running `gnutls-serv`.
pub struct GnutlsServ {
    process: ServerProcess,
    log: PathBuf,
    io_timeout: Duration,
}

impl GnutlsServ {
    pub fn start(
        program: &Path,
        setup: Setup,
        dir: &PrivateDir,
        files: &PemFiles,
        io_timeout: Duration,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<GnutlsServ> {
        let name = setup.name();
        let addr = free_loopback_addr()?;
        let body = dir.path().join("gnutls-x.dat");
        if !body.exists() {
            dir.write("gnutls-x.dat", b"x")?;
        }
        let log = dir.path().join(format!("gnutls-serv-{name}.log"));
        let stdout = std::fs::File::create(&log)
            .with_context(|| format!("could not create {}", log.display()))?;
        let err = dir.path().join(format!("gnutls-serv-{name}.stderr"));
        let stderr = std::fs::File::create(&err)
            .with_context(|| format!("could not create {}", err.display()))?;
        let mut cmd = Command::new(program);
        cmd.arg("--http")
            .arg(format!("--httpdata={}", body.display()))
            .args(["-p", &addr.port().to_string()])
            .arg("--x509certfile")
            .arg(&files.cert)
            .arg("--x509keyfile")
            .arg(&files.key)
            .arg(format!(
                "--priority={}",
                priority(setup.protocol, setup.group)?
            ))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        if !setup.tickets {
            cmd.arg("--noticket");
        }
        let process = ServerProcess::start(&mut cmd, "gnutls-serv", addr, err, io_timeout, ready)
            .with_context(|| format!("gnutls-serv ({name})"))?;
        Ok(GnutlsServ {
            process,
            log,
            io_timeout,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.process.addr()
    }

    pub fn check_alive(&mut self) -> Result<()> {
        self.process.check_alive()
    }

    /// Its report of each connection from now on.
    pub fn view(&self) -> ServLog {
        ServLog::from_end(self.log.clone(), self.io_timeout)
    }
}
