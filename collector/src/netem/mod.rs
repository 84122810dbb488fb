//! Emulated round trips at packet level, built in user space because this kernel has
//! no `netem`: the client and the server live in two network namespaces, each with a
//! TUN device; the collector moves every IP packet between the two devices through a
//! delay line of RTT/2 each way. SYN and SYN-ACK are delayed like every other packet,
//! so TCP connect itself costs one round trip.

pub mod link;
pub mod model;
#[cfg(test)]
mod model_tests;
pub mod netns;
pub mod setup;
mod tun;

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

pub use netns::Netns;
pub use setup::SetupInterrupted;
use setup::{Setup, Step};
use tun::Tun;

/// The client's and the server's address on the emulated path (RFC 2544's benchmarking
/// range, which no real network routes).
pub const CLIENT_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 2);

/// What the evidence says about this method.
pub const METHOD: &str = "packet-level delay line: client and server in two network namespaces made for the run, each with a TUN device (198.18.0.1 / 198.18.0.2); the collector forwards every IP packet between the devices after RTT/2 in each direction, SYN and SYN-ACK included; no loss, no reordering, no bandwidth limit; adds the relay's own forwarding time (see rtt_measured_ms at 0 ms)";

const NS_PREFIX: &str = "hlab-";

/// Where an arm's server binds and in which namespace, and where its client connects.
#[derive(Clone, Copy)]
pub struct Placement<'a> {
    pub server_ns: Option<&'a Netns>,
    pub server_ip: Ipv4Addr,
}

impl Placement<'static> {
    pub const LOOPBACK: Placement<'static> = Placement {
        server_ns: None,
        server_ip: Ipv4Addr::LOCALHOST,
    };
}

impl Placement<'_> {
    /// Binds a listener on the server side (a free port).
    pub fn bind(&self) -> Result<std::net::TcpListener> {
        let addr = SocketAddr::from((self.server_ip, 0));
        let bind =
            || std::net::TcpListener::bind(addr).with_context(|| format!("could not bind {addr}"));
        match self.server_ns {
            None => bind(),
            Some(ns) => ns.within(bind)?,
        }
    }
}

/// A client namespace and a server namespace joined by a delay line.
pub struct DelayPath {
    pub client: Netns,
    pub server: Netns,
    one_way_us: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl DelayPath {
    /// Makes both namespaces, their TUN devices and routes, and starts the delay line
    /// with no delay. Everything is removed when the value is dropped. Before each step it
    /// looks at `stop`: when a signal set it, setup ends with [`SetupInterrupted`] and what
    /// was made so far is removed (dropped) on the way out.
    pub fn new(stop: &AtomicBool) -> Result<DelayPath> {
        let setup = Setup::new(stop);
        setup.before(Step::RemoveStale)?;
        netns::remove_stale(NS_PREFIX);
        let pid = std::process::id();
        setup.before(Step::ClientNamespace)?;
        let client = Netns::create(&format!("{NS_PREFIX}{pid}-client"))?;
        setup.before(Step::ServerNamespace)?;
        let server = Netns::create(&format!("{NS_PREFIX}{pid}-server"))?;
        setup.before(Step::ClientTun)?;
        let ctun = client.within(|| Tun::open("hlab0"))??;
        setup.before(Step::ServerTun)?;
        let stun = server.within(|| Tun::open("hlab0"))??;
        for (ns, me, peer, steps) in [
            (
                &client,
                CLIENT_ADDR,
                SERVER_ADDR,
                [Step::ClientAddress, Step::ClientLinkUp, Step::ClientRoute],
            ),
            (
                &server,
                SERVER_ADDR,
                CLIENT_ADDR,
                [Step::ServerAddress, Step::ServerLinkUp, Step::ServerRoute],
            ),
        ] {
            setup.before(steps[0])?;
            ns.ip(&["addr", "add", &format!("{me}/32"), "dev", "hlab0"])?;
            setup.before(steps[1])?;
            ns.ip(&["link", "set", "hlab0", "up"])?;
            setup.before(steps[2])?;
            ns.ip(&["route", "add", &format!("{peer}/32"), "dev", "hlab0"])?;
        }
        setup.before(Step::DelayLine)?;
        let one_way_us = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for (from, to, name) in [
            (ctun.try_clone()?, stun.try_clone()?, "client→server"),
            (stun, ctun, "server→client"),
        ] {
            let (delay, stop) = (one_way_us.clone(), stop.clone());
            threads.push(
                std::thread::Builder::new()
                    .name(format!("delay {name}"))
                    .spawn(move || {
                        // The link is neither end: it may run on any CPU the run has,
                        // not on the client's (whose mask it would inherit).
                        let _ = crate::cpu::pin_thread(&crate::cpu::plan().available);
                        forward(from, to, &delay, &stop)
                    })?,
            );
        }
        Ok(DelayPath {
            client,
            server,
            one_way_us,
            stop,
            threads,
        })
    }

    /// Sets the round-trip time (half of it each way) for packets read from now on.
    pub fn set_rtt(&self, rtt: Duration) {
        self.one_way_us
            .store(rtt.as_micros() as u64 / 2, Ordering::SeqCst);
    }

    pub fn placement(&self) -> Placement<'_> {
        Placement {
            server_ns: Some(&self.server),
            server_ip: SERVER_ADDR,
        }
    }
}

impl Drop for DelayPath {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        // The namespaces (and with them the devices) go when `client` and `server` drop.
    }
}

/// Moves packets from `from` to `to`, each released `delay` after it was read.
fn forward(mut from: Tun, mut to: Tun, delay: &AtomicU64, stop: &AtomicBool) {
    let mut queue: VecDeque<(Instant, Vec<u8>)> = VecDeque::new();
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        while queue.front().is_some_and(|(due, _)| *due <= now) {
            let (_, packet) = queue.pop_front().expect("front exists");
            let _ = to.send(&packet);
        }
        // Wait for a packet, but no longer than until the next one is due.
        let wait = queue.front().map_or(Duration::from_millis(50), |(due, _)| {
            due.saturating_duration_since(now)
        });
        if wait.is_zero() {
            continue;
        }
        match from.recv(&mut buf, wait) {
            Ok(0) => {}
            Ok(n) => {
                let due = Instant::now() + Duration::from_micros(delay.load(Ordering::Relaxed));
                queue.push_back((due, buf[..n].to_vec()));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}
