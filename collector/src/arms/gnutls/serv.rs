//! `gnutls-serv --http` as a peer server: one process per cert × protocol × group ×
//! tickets, answering every request with the 1-byte file, printing its view of each
//! connection to a log the collector reads ([`super::output::ServLog`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use shared::{KxGroup, Protocol};

use super::output::ServLog;

use super::{Peer, SERV};
use crate::arms::peer::launch::{Launch, Output};
use crate::arms::peer::process::{free_loopback_addr, ServerProcess};
use crate::arms::peer::servers::CellSetup;
use crate::arms::peer::servers::ServerStack;
use crate::arms::peer::{PeerArgs, Tool, Work};
use crate::arms::Cell;

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

/// What one `gnutls-serv` is started with: tickets (GnuTLS's default) or `--noticket`
/// (TLS 1.2 session IDs only) for the stateful arms.
pub type Setup = CellSetup;

/// A running `gnutls-serv`.
pub struct GnutlsServ {
    process: ServerProcess,
    log: PathBuf,
    io_timeout: Duration,
}

impl GnutlsServ {
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

impl ServerStack for Peer {
    type Setup = Setup;
    type Server = GnutlsServ;

    fn server_tool(&self) -> Tool {
        SERV
    }

    /// `--noticket` for the stateful arms.
    fn setup(&self, cell: &Cell, _args: &PeerArgs) -> Setup {
        Setup::of(cell)
    }

    fn start(
        &self,
        program: &Path,
        setup: Setup,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<GnutlsServ> {
        let (dir, files, io_timeout) = (w.dir, &w.files[&setup.cert], w.ctx.io_timeout);
        let name = setup.name();
        let addr = free_loopback_addr()?;
        let body = dir.path().join("gnutls-x.dat");
        if !body.exists() {
            dir.write("gnutls-x.dat", b"x")?;
        }
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
            ));
        if !setup.tickets {
            cmd.arg("--noticket");
        }
        let launch = Launch::new(
            "gnutls-serv",
            "gnutls-serv",
            name,
            addr,
            Output::LogAndStderr,
        );
        let started = launch.start(&mut cmd, dir, io_timeout, ready)?;
        Ok(GnutlsServ {
            log: started.stdout.context("gnutls-serv's log")?,
            process: started.process,
            io_timeout,
        })
    }
}
