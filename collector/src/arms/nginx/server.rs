//! One nginx on loopback: a config the collector writes into the run's private folder
//! (next to the key, 0600), run in the foreground as one process (`daemon off;
//! master_process off;`, so it never drops to a user that cannot read the key and its
//! process group is one process), stopped on every way out.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Result;
use shared::{CertKind, KxGroup, Protocol, Resumption};

use super::access_log::{self, AccessLog, LOG_FORMAT};
use super::{Peer, NGINX};
use crate::arms::openssl::group_name;
use crate::arms::peer::files::PemFiles;
use crate::arms::peer::launch::{Launch, Output};
use crate::arms::peer::process::{free_loopback_addr, ServerProcess};
use crate::arms::peer::servers::setup_stem;
use crate::arms::peer::servers::ServerStack;
use crate::arms::peer::{PeerArgs, Tool, Work};
use crate::arms::{Cell, HandshakeMode};

/// What one nginx server is configured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Setup {
    pub cert: CertKind,
    pub protocol: Protocol,
    pub group: KxGroup,
    /// `ssl_session_tickets on` (else off).
    pub tickets: bool,
    /// `ssl_session_cache off; ssl_session_tickets off;`: nothing can resume (a test flag).
    pub no_resumption: bool,
}

impl Setup {
    /// Its name in file names, e.g. `rsa2048-tls13-x25519-tickets`.
    pub fn name(&self) -> String {
        format!(
            "{}-{}",
            setup_stem(self.cert, self.protocol, self.group),
            match (self.no_resumption, self.tickets) {
                (true, _) => "no-resumption",
                (false, true) => "tickets",
                (false, false) => "no-tickets",
            }
        )
    }

    /// The nginx config for this setup, listening on `addr`, with its files in `dir`.
    pub fn config(&self, addr: SocketAddr, dir: &Path, files: &PemFiles) -> String {
        let name = self.name();
        let d = dir.display();
        let (cache, tickets) = if self.no_resumption {
            ("off".to_string(), "off")
        } else {
            (
                "shared:hlab:1m".to_string(),
                if self.tickets { "on" } else { "off" },
            )
        };
        format!(
            "# Written by the Handshake Lab collector for one run; removed with its folder.
pid {d}/nginx-{name}.pid;
error_log {d}/nginx-{name}-error.log notice;
events {{ worker_connections 256; }}
http {{
    default_type text/plain;
    client_body_temp_path {d}/nginx-{name}-tmp/client_body;
    proxy_temp_path {d}/nginx-{name}-tmp/proxy;
    fastcgi_temp_path {d}/nginx-{name}-tmp/fastcgi;
    uwsgi_temp_path {d}/nginx-{name}-tmp/uwsgi;
    scgi_temp_path {d}/nginx-{name}-tmp/scgi;
    log_format hlab '{LOG_FORMAT}';
    access_log {access} hlab;
    server {{
        listen {addr} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols {protocol};
        ssl_ecdh_curve {curve};
        ssl_session_cache {cache};
        ssl_session_timeout 1h;
        ssl_session_tickets {tickets};
        location = /x {{ return 200 \"x\"; }}
        location / {{ return 404; }}
    }}
}}
",
            access = self.access_log(dir).display(),
            cert = files.cert.display(),
            key = files.key.display(),
            protocol = if self.protocol == Protocol::Tls12 {
                "TLSv1.2"
            } else {
                "TLSv1.3"
            },
            curve = group_name(self.group).unwrap_or("none"),
        )
    }

    pub fn access_log(&self, dir: &Path) -> PathBuf {
        dir.join(format!("nginx-{}-access.log", self.name()))
    }

    pub fn error_log(&self, dir: &Path) -> PathBuf {
        dir.join(format!("nginx-{}-error.log", self.name()))
    }
}

/// A running nginx for one [`Setup`].
pub struct Nginx {
    pub setup: Setup,
    process: ServerProcess,
    dir: PathBuf,
    io_timeout: Duration,
}

impl Nginx {
    pub fn addr(&self) -> SocketAddr {
        self.process.addr()
    }

    pub fn check_alive(&mut self) -> Result<()> {
        self.process.check_alive()
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// A reader of its access log from now on.
    pub fn access_log(&self) -> Result<AccessLog> {
        access_log::open(self.setup.access_log(&self.dir), self.io_timeout)
    }

    /// Lines of its error log at `[error]` or worse, so far.
    pub fn errors(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.setup.error_log(&self.dir)).unwrap_or_default();
        serious_errors(&text)
    }
}

/// Lines of an nginx error log at level `error`, `crit`, `alert` or `emerg`.
pub fn serious_errors(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| {
            ["[error]", "[crit]", "[alert]", "[emerg]"]
                .iter()
                .any(|lvl| l.contains(lvl))
        })
        .map(str::to_string)
        .collect()
}

impl ServerStack for Peer {
    type Setup = Setup;
    type Server = Nginx;

    fn server_tool(&self) -> Tool {
        NGINX
    }

    fn counts_under(&self) -> bool {
        true
    }

    /// Tickets off for the stateful arms; with `--nginx-resumption-off` one setup, with
    /// neither cache nor tickets.
    fn setup(&self, cell: &Cell, args: &PeerArgs) -> Setup {
        let tickets = cell.handshake != HandshakeMode::Resumed(Resumption::Stateful);
        Setup {
            cert: cell.cert,
            protocol: cell.protocol(),
            group: cell.group,
            tickets: tickets && !args.nginx_resumption_off,
            no_resumption: args.nginx_resumption_off,
        }
    }

    fn start(
        &self,
        program: &Path,
        setup: Setup,
        w: &Work,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Nginx> {
        let (dir, files, io_timeout) = (w.dir, &w.files[&setup.cert], w.ctx.io_timeout);
        let addr = free_loopback_addr()?;
        let name = setup.name();
        dir.subdir(&format!("nginx-{name}-tmp"))?;
        let conf = dir.write(
            // One per start: a setup's server is started again to count its instructions.
            &format!("nginx-{name}-{}.conf", addr.port()),
            setup.config(addr, dir.path(), files).as_bytes(),
        )?;
        let mut cmd = Command::new(program);
        cmd.arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&conf)
            .arg("-e")
            .arg(setup.error_log(dir.path()))
            .args(["-g", "daemon off; master_process off;"]);
        let launch = Launch::new("nginx", "nginx", name, addr, Output::StderrOnly).under(w.under);
        Ok(Nginx {
            setup,
            process: launch.start(&mut cmd, dir, io_timeout, ready)?.process,
            dir: dir.path().to_path_buf(),
            io_timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_error_lines_and_worse_count() {
        // The notice lines as nginx 1.22.1 wrote them here at start-up; the [crit] and
        // [info] lines composed in the same format.
        let log = "2026/12/01 06:27:32 [notice] 11902#11902: using the \"epoll\" event method
2026/12/01 06:27:32 [notice] 11902#11902: nginx/1.22.1
2026/12/01 06:27:40 [crit] 11902#11902: *5 SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: 127.0.0.1, server: 127.0.0.1:18443
2026/12/01 06:27:41 [info] 11902#11902: *6 peer closed connection in SSL handshake while SSL handshaking
";
        let e = serious_errors(log);
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("[crit]") && e[0].contains("bad key share"));
    }
}
