//! `gnutls-cli --resume` runs against a server, checked on both ends.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use shared::Protocol;

use super::output::{self, cli_resume, Resume};
use super::serv::priority;
use super::CLI_RUNS;
use crate::arms::peer::process::Guarded;
use crate::arms::peer::Work;
use crate::arms::server::Server;
use crate::arms::Cell;

/// What a server saw during a gnutls-cli check: (resumed, all) handshakes since the last call.
pub(super) trait Seen {
    fn since(&mut self) -> Result<(u64, u64)>;
}

pub(super) struct RustlsSeen<'a>(pub &'a Server);

impl Seen for RustlsSeen<'_> {
    fn since(&mut self) -> Result<(u64, u64)> {
        let reports = self.0.take_reports();
        let resumed = reports
            .iter()
            .filter(
                |r| matches!(&r.result, Ok(Some(h)) if h.kind == rustls::HandshakeKind::Resumed),
            )
            .count();
        Ok((resumed as u64, reports.len() as u64))
    }
}

pub(super) struct ServSeen<'a>(pub &'a mut output::ServLog);

impl Seen for ServSeen<'_> {
    fn since(&mut self) -> Result<(u64, u64)> {
        let all = self.0.take_all()?;
        let resumed = all
            .iter()
            .filter(|h| h.kind == rustls::HandshakeKind::Resumed)
            .count();
        Ok((resumed as u64, all.len() as u64))
    }
}

/// Runs `gnutls-cli --resume` [`CLI_RUNS`] times against `addr`; Ok with what was verified
/// when every run resumed and the server saw as many resumptions, else an error saying what
/// happened.
pub(super) fn cli_check(
    w: &Work,
    cli: &Path,
    cell: &Cell,
    addr: SocketAddr,
    seen: &mut dyn Seen,
) -> Result<String> {
    let ca = &w.files[&cell.cert].ca;
    let prio = priority(cell.protocol(), cell.group)?;
    let mut counts = BTreeMap::new();
    seen.since()?;
    for run in 0..CLI_RUNS {
        let out = w
            .dir
            .path()
            .join(format!("gnutls-cli-{}-{run}.txt", std::process::id()));
        let file = std::fs::File::create(&out)?;
        let mut cmd = Command::new(cli);
        cmd.args(["-p", &addr.port().to_string()])
            .arg("--x509cafile")
            .arg(ca)
            .args([
                "--sni-hostname",
                "localhost",
                "--verify-hostname",
                "localhost",
            ])
            .arg(format!("--priority={prio}"));
        // A TLS 1.3 ticket arrives after the handshake: without waiting for it,
        // gnutls-cli reads EOF from stdin, closes and reconnects with nothing to resume
        // whenever the ticket is still in flight (1 of 5 runs against gnutls-serv once).
        if cell.protocol() == Protocol::Tls13 {
            cmd.arg("--waitresumption");
        }
        cmd.args(["--resume", "127.0.0.1"])
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file);
        let mut proc = Guarded::spawn(&mut cmd, "gnutls-cli")?;
        let deadline = Instant::now() + w.ctx.io_timeout * 4;
        while proc.child.try_wait()?.is_none() {
            if Instant::now() > deadline || w.stopped() {
                let _ = proc.kill_and_reap();
                bail!(
                    "gnutls-cli did not finish within {:?}",
                    w.ctx.io_timeout * 4
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let _ = std::fs::remove_file(&out);
        let key = match cli_resume(&text) {
            Resume::Resumed => "resumed",
            Resume::NotResumed => "second handshake full",
            Resume::NoSecondHandshake => "no second handshake",
        };
        *counts.entry(key).or_insert(0u64) += 1;
    }
    let (server_resumed, server_all) = seen.since()?;
    let resumed = counts.get("resumed").copied().unwrap_or(0);
    let n = CLI_RUNS as u64;
    let summary = format!(
        "{resumed} of {n} gnutls-cli runs resumed ({counts:?}); the server saw {server_resumed} resumed of {server_all} handshakes"
    );
    if resumed == n && server_resumed >= n {
        Ok(format!("resumption verified on both ends: {summary}"))
    } else {
        bail!("gnutls-cli --resume did not resume every time: {summary}")
    }
}
