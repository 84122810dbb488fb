//! Keep-alive arms (request mode): one rustls connection, a full handshake, carrying N
//! requests one after the other, each waiting for its response, as an HTTP/1.1 client
//! on a kept-alive connection does. A sample is the connection's mean time per request
//! after the first; the first request's time to first byte is kept beside it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rustls::{ServerConfig, ServerConnection};
use shared::{CertKind, KxGroup};

use super::rustls::{facts, TlsClient};
use super::server::{Handler, Server};
use super::SessionOptions;
use super::{ArmKind, ArmSpec, Cell, Handshake, HandshakeMode, Outcome, PhaseRecording, Session};
use super::{REQUEST, RESPONSE};
use crate::certs::CertStore;

/// Requests per connection unless `--keepalive-requests` says otherwise.
pub const DEFAULT_REQUESTS: u64 = 10;

/// What a keep-alive connection adds to its [`Outcome`].
#[derive(Debug, Clone, Copy)]
pub struct KeepAliveOutcome {
    pub requests: u64,
    /// The first request's time to first byte: connect, full handshake, request.
    pub first: Duration,
}

/// One keep-alive arm per full-handshake cell of cert × group × protocol (the matrix's
/// order; TLS 1.2 skips TLS 1.3-only groups).
pub fn arms(certs: &[CertKind], groups: &[KxGroup]) -> Vec<ArmSpec> {
    Cell::matrix(certs, groups, &[HandshakeMode::Full])
        .iter()
        .map(|cell| ArmSpec {
            phases: PhaseRecording::Off,
            ..ArmSpec::of(ArmKind::KeepAlive {
                tls: cell.tls,
                cert: cell.cert,
                group: cell.group,
            })
        })
        .collect()
}

/// The server: a full handshake (the full arm's config), then an answer to every
/// request until the client closes; reports after the close.
#[derive(Clone)]
struct KeepAliveHandler {
    config: Arc<ServerConfig>,
}

impl Handler for KeepAliveHandler {
    fn handle(
        &mut self,
        mut tcp: TcpStream,
        report: &mut dyn FnMut(std::result::Result<Option<Handshake>, String>),
    ) {
        let mut conn = match ServerConnection::new(self.config.clone()) {
            Ok(c) => c,
            Err(e) => return report(Err(e.to_string())),
        };
        if let Err(e) = conn.complete_io(&mut tcp) {
            return report(Err(format!("handshake: {e}")));
        }
        let f = facts(&conn);
        let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
        let (mut answered, mut pending) = (0u64, 0usize);
        let mut buf = [0u8; 512];
        // Until the client closes (EOF or reset): every whole request gets a response.
        while let Ok(n @ 1..) = tls.read(&mut buf) {
            pending += n;
            while pending >= REQUEST.len() {
                pending -= REQUEST.len();
                if tls.write_all(RESPONSE).and_then(|_| tls.flush()).is_err() {
                    return report(Err("writing a response".into()));
                }
                answered += 1;
            }
        }
        if answered == 0 {
            return report(Err("the client closed before its first request".into()));
        }
        report(Ok(f));
    }
}

pub struct KeepAliveSession {
    server: Server,
    client: TlsClient,
    requests: u64,
    io_timeout: Duration,
}

impl KeepAliveSession {
    pub fn start(arm: &ArmSpec, certs: &CertStore, opts: &SessionOptions) -> Result<Self> {
        let handler = KeepAliveHandler {
            config: Arc::new(super::rustls::server_config(arm, certs)?),
        };
        Ok(KeepAliveSession {
            server: Server::spawn_at(
                &arm.id(),
                opts.placement,
                arm.cpu,
                opts.io_timeout,
                1,
                handler,
            )?,
            client: TlsClient::new(arm, certs, opts)?,
            requests: opts.keepalive_requests.max(2),
            io_timeout: opts.io_timeout,
        })
    }
}

/// Sends one request and reads its response; returns the time to its first byte
/// (from before the write).
fn exchange<S: Read + Write>(stream: &mut S) -> Result<Duration> {
    let t = Instant::now();
    stream.write_all(REQUEST).context("sending a request")?;
    let mut byte = [0u8; 1];
    stream
        .read_exact(&mut byte)
        .context("reading a response's first byte")?;
    let ttfb = t.elapsed();
    let mut rest = vec![0u8; RESPONSE.len() - 1];
    stream
        .read_exact(&mut rest)
        .context("reading the rest of a response")?;
    Ok(ttfb)
}

impl Session for KeepAliveSession {
    fn server_port(&self) -> Option<u16> {
        Some(self.server.addr().port())
    }

    fn server_cpus(&self) -> (Vec<u16>, &'static str) {
        (
            self.server.last_cpu().into_iter().collect(),
            crate::cpu::IN_PROCESS,
        )
    }

    fn connect_once(&mut self) -> Result<Outcome> {
        let mut h = self.client.handshake(self.server.addr())?;
        let mut stream = rustls::Stream::new(&mut h.conn, &mut h.tcp);
        // The first request: timed from before the socket, as the full arm's TTFB.
        let first_write = Instant::now();
        let first = exchange(&mut stream)? + (first_write - h.started);
        let mut after = Duration::ZERO;
        for _ in 1..self.requests {
            after += exchange(&mut stream)?;
        }
        let per_request = after / (self.requests - 1) as u32;
        let client = self.client.facts(&h);
        let port = h.tcp.local_addr()?.port();
        let (started, connect) = (h.started, h.connect);
        drop(h);
        let server = self.server.report_for(port, self.io_timeout)?;
        Ok(Outcome {
            elapsed: per_request,
            connect,
            cycle: started.elapsed(),
            client,
            server,
            keepalive: Some(KeepAliveOutcome {
                requests: self.requests,
                first,
            }),
            tcp: None,
        })
    }
}
