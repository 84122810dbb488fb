//! `collector serve`'s control connections: each in its own thread (a bounded number),
//! over TLS with the run's CA, authenticated by the token `serve` printed, one run at a
//! time (others are told "busy"), the hello within a deadline, every later read under
//! an idle timeout and the whole session under a deadline.

use std::collections::HashMap;
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use rustls::StreamOwned;

use super::secure::ServerStream;
use super::wire::{self, HelloReply, Manifest, ReportReply, Request, WireFacts};
use crate::arms::server::Server;

/// The hello (and the token in it) must arrive within this.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// A session with no request for this long is ended.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// No session lasts longer than this, however busy.
pub const SESSION_LIMIT: Duration = Duration::from_secs(12 * 3600);
/// Control connections open at once (most are refused quickly); more are closed.
pub const MAX_CONNECTIONS: usize = 16;

/// What every control connection shares.
pub struct Control {
    pub manifest: Manifest,
    pub token: String,
    pub io_timeout: Duration,
    /// TLS with one of the run's leaves.
    pub tls: Arc<rustls::ServerConfig>,
    /// Held by the one session running; `try_lock` failing means busy.
    pub servers: Mutex<HashMap<String, Server>>,
    pub connections: AtomicUsize,
}

/// Accepts forever; accept errors (out of file descriptors) back off instead of spinning.
pub fn accept_control(control: TcpListener, state: Arc<Control>) {
    let mut backoff = Duration::ZERO;
    for stream in control.incoming() {
        let stream = match stream {
            Ok(s) => {
                backoff = Duration::ZERO;
                s
            }
            Err(e) => {
                backoff = (backoff * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
                eprintln!("collector serve: accept failed ({e}); retrying in {backoff:?}");
                std::thread::sleep(backoff);
                continue;
            }
        };
        let peer = stream.peer_addr().ok();
        if state.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            state.connections.fetch_sub(1, Ordering::SeqCst);
            eprintln!("collector serve: {peer:?} refused: too many control connections");
            continue;
        }
        let theirs = state.clone();
        let spawned = std::thread::Builder::new()
            .name("control".into())
            .spawn(move || {
                let Some(peer) = peer else { return };
                if let Err(e) = connection(stream, peer, &theirs) {
                    eprintln!("collector serve: client {peer}: {e:#}");
                }
                theirs.connections.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            state.connections.fetch_sub(1, Ordering::SeqCst);
            eprintln!("collector serve: cannot start a thread for {peer:?}: {e}");
        }
    }
}

/// Closes after a refusal without losing it: unread bytes at close make the kernel send
/// a reset that can discard the answer, so stop writing and read what still arrives
/// (at most 4 MB or 1 s).
fn linger(mut stream: &TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let until = Instant::now() + Duration::from_secs(1);
    let (mut sink, mut left) = ([0u8; 8192], 4usize << 20);
    while Instant::now() < until && left > 0 {
        match std::io::Read::read(&mut stream, &mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// Equal without an early exit on the first differing byte.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Shuts `tcp` down unless `done` is set within [`HELLO_TIMEOUT`]: the TLS handshake
/// and the hello together, however slowly dripped (each read has its own timeout too).
fn watch_hello(tcp: &TcpStream, done: Arc<AtomicBool>) -> Result<()> {
    let tcp = tcp.try_clone()?;
    std::thread::Builder::new()
        .name("control hello".into())
        .spawn(move || {
            let until = Instant::now() + HELLO_TIMEOUT;
            while Instant::now() < until {
                if done.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            if !done.load(Ordering::SeqCst) {
                let _ = tcp.shutdown(std::net::Shutdown::Both);
            }
        })?;
    Ok(())
}

fn connection(tcp: TcpStream, peer: SocketAddr, state: &Control) -> Result<()> {
    tcp.set_nodelay(true)?;
    tcp.set_read_timeout(Some(HELLO_TIMEOUT))?;
    tcp.set_write_timeout(Some(HELLO_TIMEOUT))?;
    let hello_done = Arc::new(AtomicBool::new(false));
    watch_hello(&tcp, hello_done.clone())?;
    let tls = rustls::ServerConnection::new(state.tls.clone())?;
    let mut reader = BufReader::new(StreamOwned::new(tls, tcp));
    let refuse = |r: &mut BufReader<ServerStream>, why: String| -> Result<()> {
        let _ = wire::send(r.get_mut(), &(Err(why.clone()) as HelloReply));
        r.get_mut().conn.send_close_notify();
        let _ = r.get_mut().flush();
        linger(&r.get_ref().sock);
        bail!("refused: {why}")
    };
    let hello = match wire::receive::<Request>(&mut reader) {
        Ok(Some(h)) => h,
        Ok(None) => bail!("closed before saying hello"),
        Err(e) => return refuse(&mut reader, format!("{e:#}")),
    };
    let Request::Hello {
        protocol_version,
        token,
    } = hello
    else {
        return refuse(&mut reader, "the first message must be hello".into());
    };
    if protocol_version != state.manifest.protocol_version {
        return refuse(
            &mut reader,
            format!(
                "this server speaks control protocol {}, the client {protocol_version}: use the same collector version on both hosts",
                state.manifest.protocol_version
            ),
        );
    }
    if !same(&token, &state.token) {
        return refuse(
            &mut reader,
            "wrong --token (collector serve prints the one to use when it starts)".into(),
        );
    }
    let servers = match state.servers.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::WouldBlock) => {
            return refuse(
                &mut reader,
                "busy: another client's run is using these servers; try again when it ends".into(),
            )
        }
        // A session thread panicked while holding it: the servers are still usable.
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
    };
    hello_done.store(true, Ordering::SeqCst);
    eprintln!("collector serve: client {peer} connected");
    // The arms serve this client's host only, for the session.
    let opened = guard_all(&servers, state, Some(peer.ip())).and_then(|()| {
        wire::send(
            reader.get_mut(),
            &(Ok(&state.manifest) as Result<_, String>),
        )?;
        session(&mut reader, peer, &servers, state)
    });
    let closed = guard_all(&servers, state, None);
    eprintln!("collector serve: client {peer} done");
    opened.and(closed)
}

/// How long one arm connection may last in all: three times the I/O timeout.
pub fn arm_deadline(io_timeout: Duration) -> Duration {
    io_timeout.saturating_mul(3)
}

/// Lets only `allowed` (None: nobody) connect to every arm, each connection for at most
/// [`arm_deadline`].
pub fn guard_all(
    servers: &HashMap<String, Server>,
    state: &Control,
    allowed: Option<std::net::IpAddr>,
) -> Result<()> {
    for server in servers.values() {
        server.guard(arm_deadline(state.io_timeout), allowed)?;
    }
    Ok(())
}

fn session(
    reader: &mut BufReader<ServerStream>,
    peer: SocketAddr,
    servers: &HashMap<String, Server>,
    state: &Control,
) -> Result<()> {
    let deadline = Instant::now() + SESSION_LIMIT;
    reader
        .get_ref()
        .sock
        .set_write_timeout(Some(IDLE_TIMEOUT))?;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            bail!("session ended after {SESSION_LIMIT:?}");
        }
        reader
            .get_ref()
            .sock
            .set_read_timeout(Some(left.min(IDLE_TIMEOUT)))?;
        let Some(request) = wire::receive::<Request>(reader)? else {
            return Ok(());
        };
        let reply: ReportReply = match request {
            Request::Hello { .. } => Err("hello was already said".into()),
            Request::Report { arm, port } => match servers.get(&arm) {
                None => Err(format!("no arm `{arm}` is served here")),
                // Only this client's connection: the same port from another host is not it.
                Some(server) => server
                    .report_from(Some(peer.ip()), port, state.io_timeout)
                    .map(|facts| facts.as_ref().map(WireFacts::from))
                    .map_err(|e| format!("{e:#}")),
            },
        };
        wire::send(reader.get_mut(), &reply)?;
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
