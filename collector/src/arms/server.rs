//! The server half every arm shares: one thread on loopback that accepts connections one
//! at a time, lets the arm's handler run each, and reports what the handshake was.

use std::io::Read;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use socket2::{Domain, Socket, Type};

use super::guard::{Guard, MAX_PENDING_REPORTS};
use super::Handshake;
use crate::netem::Placement;

/// What the server saw on one connection, keyed by the client's address.
#[derive(Debug)]
pub struct ServerReport {
    pub peer_port: u16,
    /// None when the socket had no peer address any more.
    pub peer_ip: Option<IpAddr>,
    pub result: std::result::Result<Option<Handshake>, String>,
    /// The CPU the serving thread ran on when it reported (`sched_getcpu`).
    pub cpu: Option<u16>,
}

/// An arm's per-connection server logic.
pub trait Handler: Send + 'static {
    /// Serves one accepted connection: handshake, then one application byte (or the
    /// answer to a request), then read until the client closes, then `report` exactly
    /// once (on a failure, as soon as it happens). Reporting last means a client that
    /// waits for the report starts its next connection only when this one is over.
    fn handle(
        &mut self,
        stream: TcpStream,
        report: &mut dyn FnMut(std::result::Result<Option<Handshake>, String>),
    );
}

/// A running server thread bound to 127.0.0.1 on a free port.
pub struct Server {
    addr: SocketAddr,
    reports: Receiver<ServerReport>,
    guard: Arc<Guard>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// The CPU in the last report taken by [`Server::report_from`] (`u32::MAX`: none).
    last_cpu: AtomicU32,
    /// The workers' listening socket, shut down on drop to wake them.
    listener: TcpListener,
}

impl Server {
    /// One worker thread: connections are served one at a time.
    pub fn spawn(
        name: &str,
        io_timeout: Duration,
        handler: impl Handler + Clone,
    ) -> Result<Server> {
        Server::spawn_at(name, Placement::LOOPBACK, None, io_timeout, 1, handler)
    }

    /// `workers` threads accepting on one listening socket (bound per `placement`), each
    /// with a clone of `handler`, each pinned to the servers' CPUs of the run's CPU plan
    /// (or of `cpu`, a control arm's placement: see [`crate::cpu`]).
    pub fn spawn_at(
        name: &str,
        placement: Placement,
        cpu: Option<shared::CpuPlacement>,
        io_timeout: Duration,
        workers: u64,
        handler: impl Handler + Clone,
    ) -> Result<Server> {
        let listener = placement.bind().with_context(|| {
            format!("could not bind the server for arm `{name}` (any free port)")
        })?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let guard = Arc::new(Guard::default());
        let (tx, reports) = mpsc::channel();
        let mut threads = Vec::new();
        for w in 0..workers.max(1) {
            let name_owned = name.to_string();
            let (listener, stop, guard, tx, mut handler) = (
                listener.try_clone()?,
                stop.clone(),
                guard.clone(),
                tx.clone(),
                handler.clone(),
            );
            let thread = std::thread::Builder::new()
                .name(format!("server {name} #{w}"))
                .spawn(move || {
                    if let Err(e) = crate::cpu::pin_server_thread(cpu) {
                        // Every report of this thread then carries a CPU the placement
                        // check will find outside the servers' set.
                        eprintln!("collector: warning: could not pin server {name_owned}: {e}");
                    }
                    accept_loop(listener, io_timeout, &stop, &guard, &tx, &mut handler)
                })
                .context("could not start a server thread")?;
            threads.push(thread);
        }
        Ok(Server {
            addr,
            reports,
            guard,
            stop,
            threads,
            last_cpu: AtomicU32::new(u32::MAX),
            listener,
        })
    }

    /// Every report not yet taken (for servers whose clients do not pair reports).
    pub fn take_reports(&self) -> Vec<ServerReport> {
        let taken: Vec<_> = self.reports.try_iter().collect();
        self.guard.pending.fetch_sub(taken.len(), Ordering::SeqCst);
        taken
    }

    /// Faces a real network: from now on only connections from `allowed` are served
    /// (none while it is None), each for at most `deadline`, and at most
    /// [`MAX_PENDING_REPORTS`] unclaimed reports are kept.
    pub fn guard(&self, deadline: Duration, allowed: Option<IpAddr>) -> Result<()> {
        self.guard.allow(allowed);
        self.guard
            .enable(deadline)
            .context("could not start the arm's deadline thread")
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The CPU the server's thread reported from for the last connection whose report
    /// was taken ([`Server::report_from`]); for a rustls connection, where its handshake
    /// completed, otherwise where it reported (after the client's close).
    pub fn last_cpu(&self) -> Option<u16> {
        u16::try_from(self.last_cpu.load(Ordering::Relaxed)).ok()
    }

    /// The server's report for the connection from `local_port`, skipping stale reports
    /// from earlier connections that failed on the client side.
    pub fn report_for(&self, local_port: u16, timeout: Duration) -> Result<Option<Handshake>> {
        self.report_from(None, local_port, timeout)
    }

    /// As [`Server::report_for`], and when `ip` is given the report must be for a
    /// connection from that address too (a client on another host: its port alone could
    /// be any other host's).
    pub fn report_from(
        &self,
        ip: Option<IpAddr>,
        port: u16,
        timeout: Duration,
    ) -> Result<Option<Handshake>> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let got = self.reports.recv_timeout(left);
            if got.is_ok() {
                self.guard.pending.fetch_sub(1, Ordering::SeqCst);
            }
            match got {
                Ok(r) if r.peer_port == port && (ip.is_none() || r.peer_ip == ip) => {
                    let cpu = r.cpu.map_or(u32::MAX, u32::from);
                    self.last_cpu.store(cpu, Ordering::Relaxed);
                    return r.result.map_err(|e| anyhow!("server side: {e}"));
                }
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => {
                    bail!("the server reported nothing within {timeout:?}")
                }
                Err(RecvTimeoutError::Disconnected) => bail!("the server thread has stopped"),
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.guard.stop.store(true, Ordering::SeqCst);
        // Wake every worker blocked in accept(): shutting a listening socket down makes
        // Linux's accept() return at once (EINVAL), whatever the path to it; a wake-up
        // connection through a lossy emulated link could be lost and leave a worker
        // blocked for good. Where that fails, connect to it, closing with RST like every
        // connection of a run, so the wake-up leaves no TIME_WAIT either.
        let shut = socket2::SockRef::from(&self.listener)
            .shutdown(std::net::Shutdown::Read)
            .is_ok();
        for _ in self.threads.iter().filter(|_| !shut) {
            if let Ok(s) = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)) {
                let _ = socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO));
            }
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn accept_loop(
    listener: TcpListener,
    io_timeout: Duration,
    stop: &AtomicBool,
    guard: &Guard,
    tx: &Sender<ServerReport>,
    handler: &mut dyn Handler,
) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else {
            // Out of file descriptors: do not spin.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let peer = stream.peer_addr().ok();
        let (peer_port, peer_ip) = (peer.map_or(0, |a| a.port()), peer.map(|a| a.ip()));
        let guarded = guard.is_on();
        // Another host than the control client's: closed unserved, nothing reported.
        let watched = if guarded {
            match guard.admit(&stream, peer_ip) {
                Some(id) => Some(id),
                None => continue,
            }
        } else {
            None
        };
        let setup = ready_accepted(&stream, io_timeout);
        let mut report = |result: std::result::Result<Option<Handshake>, String>| {
            if guarded && guard.pending.load(Ordering::SeqCst) >= MAX_PENDING_REPORTS {
                return;
            }
            guard.pending.fetch_add(1, Ordering::SeqCst);
            let cpu = match &result {
                Ok(Some(h)) => h.cpu.or_else(crate::cpu::current),
                _ => crate::cpu::current(),
            };
            let _ = tx.send(ServerReport {
                peer_port,
                peer_ip,
                result,
                cpu,
            });
        };
        match setup {
            Ok(()) => handler.handle(stream, &mut report),
            Err(e) => report(Err(format!("socket setup: {e}"))),
        }
        if let Some(id) = watched {
            guard.release(id);
        }
    }
}

/// An accepted connection made ready before its handler runs: `TCP_NODELAY` and I/O
/// timeouts.
pub fn ready_accepted(stream: &TcpStream, io_timeout: Duration) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(io_timeout))?;
    stream.set_write_timeout(Some(io_timeout))
}

/// Reads until the client closes (EOF, or the RST its zero linger sends).
pub fn drain(mut r: impl Read) {
    let mut buf = [0u8; 512];
    while matches!(r.read(&mut buf), Ok(n) if n > 0) {}
}

/// A client socket made ready before the timer starts: `TCP_NODELAY`, `SO_LINGER {on, 0}`
/// (close sends RST and leaves no TIME_WAIT) and I/O timeouts.
pub fn ready_socket(io_timeout: Duration) -> Result<Socket> {
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).context("socket()")?;
    s.set_tcp_nodelay(true).context("TCP_NODELAY")?;
    s.set_linger(Some(Duration::ZERO)).context("SO_LINGER")?;
    s.set_read_timeout(Some(io_timeout))?;
    s.set_write_timeout(Some(io_timeout))?;
    Ok(s)
}
