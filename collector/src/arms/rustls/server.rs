//! The TLS server side: handshake, report, then answer (one app byte, or a response to
//! the client's request, which on 0-RTT arms arrives as early data).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rustls::{ServerConfig, ServerConnection};

use super::drive::{self, End};
use super::{facts, server_config};
use crate::arms::server::{drain, Handler, Server};
use crate::arms::tcp_info;
use crate::arms::trace::Trace;
use crate::arms::wire::{Counted, FlightLog};
use crate::arms::{
    ArmSpec, Fault, Handshake, PhaseRecording, SessionOptions, WireFacts, END, REQUEST, RESPONSE,
};
use crate::certs::CertStore;

#[derive(Clone)]
struct TlsHandler {
    config: Arc<ServerConfig>,
    request: bool,
    /// Record phase timestamps on the next connection: set by the client of the arm's
    /// session before it connects (connections never overlap: it waits for the report).
    traced: Arc<AtomicBool>,
    /// [`Fault::DropEvery`]: N, and the connections accepted so far (shared by the workers).
    drop_every: Option<(u64, Arc<AtomicU64>)>,
    /// Read the socket's `TCP_INFO` around the first flight and after the connection
    /// (see [`SessionOptions::tcp_info`]).
    tcp_info: bool,
}

impl Handler for TlsHandler {
    fn handle(
        &mut self,
        mut tcp: TcpStream,
        report: &mut dyn FnMut(Result<Option<Handshake>, String>),
    ) {
        if let Some((every, accepted)) = &self.drop_every {
            let n = accepted.fetch_add(1, Ordering::SeqCst) + 1;
            if n % every == 0 {
                // Closed with RST before the ClientHello is read.
                let _ = socket2::SockRef::from(&tcp).set_linger(Some(Duration::ZERO));
                drop(tcp);
                return report(Err(format!(
                    "connection {n} closed unserved on purpose (fault injection: 1 in {every})"
                )));
            }
        }
        let mut trace = Trace::new(self.traced.load(Ordering::SeqCst) && !self.request);
        trace.mark("accepted");
        let mut conn = match ServerConnection::new(self.config.clone()) {
            Ok(c) => c,
            Err(e) => return report(Err(e.to_string())),
        };
        // The first flight (the answer to the ClientHello) is counted on the socket.
        let mut log = FlightLog::new(self.tcp_info);
        let mut io = Counted {
            tcp: &mut tcp,
            log: &mut log,
        };
        let served = if self.request {
            // Only a server that accepts early data reports on it.
            let accepts_early = self.config.max_early_data_size > 0;
            answer_request(&mut conn, &mut io).map(|early| accepts_early.then_some(early))
        } else {
            drive::handshake(&mut conn, &mut io, &mut trace, End::Server).map(|_| None)
        };
        let cpu = crate::cpu::current();
        let early = match served {
            Ok(early) => early,
            Err(e) => return report(Err(format!("{e:#}"))),
        };
        let mut f = facts(&conn);
        if let Some(f) = f.as_mut() {
            f.cpu = cpu;
            f.early_data = early.map(|got| (got, got));
            f.trace = trace.into_events();
        }
        // Answer, wait for the client's close, and only then report: the client waits for
        // the report (outside its timer) before its next connection, so the server is back
        // in accept() by then and connections never overlap.
        let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
        let last: &[u8] = if self.request { END } else { b"x" };
        if tls.write_all(last).and_then(|_| tls.flush()).is_ok() {
            drain(tls);
        }
        if let Some(f) = f.as_mut() {
            f.wire = Some(WireFacts {
                flight: log.flight(),
                chain: None,
                // After the client's close: every retransmission of the connection counted.
                tcp: self.tcp_info.then(|| tcp_info::read(&tcp)).flatten(),
            });
        }
        report(Ok(f));
    }
}

/// Reads the request (from early data if the client sent it so, else after the
/// handshake), answers at once, and completes the handshake. Returns whether the request
/// came as early data.
fn answer_request(conn: &mut ServerConnection, tcp: &mut (impl Read + Write)) -> Result<bool> {
    let mut req = Vec::with_capacity(REQUEST.len());
    let mut early = false;
    let mut buf = [0u8; 256];
    while req.len() < REQUEST.len() {
        while conn.wants_write() {
            conn.write_tls(tcp).context("writing")?;
        }
        if let Some(mut data) = conn.early_data() {
            while let Ok(n @ 1..) = data.read(&mut buf) {
                req.extend_from_slice(&buf[..n]);
                early = true;
            }
        }
        if !conn.is_handshaking() {
            while let Ok(n @ 1..) = conn.reader().read(&mut buf) {
                req.extend_from_slice(&buf[..n]);
            }
        }
        if req.len() >= REQUEST.len() {
            break;
        }
        if conn.read_tls(tcp).context("reading")? == 0 {
            bail!("the client closed before its request was complete");
        }
        conn.process_new_packets().context("processing")?;
    }
    conn.writer().write_all(RESPONSE)?;
    while conn.wants_write() {
        conn.write_tls(tcp).context("writing the response")?;
    }
    drive::handshake(conn, tcp, &mut Trace::new(false), End::Server)?;
    Ok(early)
}

/// Starts the server for `arm` with `workers` threads, placed per `opts`; it records
/// phases on every connection where the arm records phases.
pub fn start_server(
    arm: &ArmSpec,
    certs: &CertStore,
    opts: &SessionOptions,
    workers: u64,
) -> Result<Server> {
    let traced = Arc::new(AtomicBool::new(arm.phases == PhaseRecording::On));
    start_server_traced(arm, certs, opts, workers, traced)
}

/// [`start_server`], recording phases on the connections that come while `traced` is set.
pub fn start_server_traced(
    arm: &ArmSpec,
    certs: &CertStore,
    opts: &SessionOptions,
    workers: u64,
    traced: Arc<AtomicBool>,
) -> Result<Server> {
    let handler = TlsHandler {
        config: Arc::new(server_config(arm, certs)?),
        request: opts.request || arm.early_data(),
        traced,
        drop_every: match arm.fault {
            Fault::DropEvery(n) => Some((n.max(1).into(), Arc::new(AtomicU64::new(0)))),
            _ => None,
        },
        tcp_info: opts.tcp_info(),
    };
    Server::spawn_at(
        &arm.id(),
        opts.placement,
        arm.cpu,
        opts.io_timeout,
        workers,
        handler,
    )
}
