//! Emulated links at packet level, built in user space because this kernel has no
//! `netem`: the client and the server live in two network namespaces, each with a TUN
//! device; the collector moves every IP packet between the two devices through a link
//! model per direction ([`model`]: RTT/2 of delay, jitter, loss, a rate queue, an MTU).
//! SYN and SYN-ACK meet the link like every other packet, so TCP connect itself costs
//! one round trip, and a lost SYN waits for TCP's retransmission timer.

pub mod bench;
pub mod conns;
pub mod link;
pub mod model;
#[cfg(test)]
mod model_tests;
pub mod netns;
pub mod packet;
mod relay;
pub mod setup;
mod tun;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};

pub use link::LinkSpec;
pub use model::Counters;
pub use netns::Netns;
pub use setup::SetupInterrupted;
use setup::{Setup, Step};
use tun::Tun;

/// The client's and the server's address on the emulated path (RFC 2544's benchmarking
/// range, which no real network routes).
pub const CLIENT_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 2);

/// What the evidence says about this method.
pub const METHOD: &str = "packet-level link emulation: client and server in two network namespaces made for the run, each with a TUN device (198.18.0.1 / 198.18.0.2); the collector forwards every IP packet between the devices, SYN and SYN-ACK included, through a model per direction with the settings in the arm's `link`: a packet over the MTU is dropped; loss is independent per packet, or Gilbert-Elliott with `burst` (a good state that loses nothing, a bad state that loses every packet, left with probability 1/burst), drawn from a seeded RNG (fastrand's wyrand; client to server seeded with link.seed, server to client with link.seed + 1), except the RST that closes each connection (never retransmitted by TCP; counted as spared_rst); with a rate, a FIFO queue of at most `limit` packets (tail drop) serializes each packet at that rate; then RTT/2 plus a uniform draw in +-jitter, a packet never leaving before the one ahead of it (no reordering); with only an RTT asked: no loss, no reordering, no bandwidth limit; adds the relay's own forwarding time (see rtt_measured_ms at 0 ms)";

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

/// A client namespace and a server namespace joined by an emulated link.
pub struct DelayPath {
    pub client: Netns,
    pub server: Netns,
    shared: Arc<relay::Shared>,
    /// The devices' MTU now.
    mtu: Mutex<u32>,
    threads: Vec<JoinHandle<()>>,
}

impl DelayPath {
    /// Makes both namespaces, their TUN devices and routes, and starts the delay line
    /// with no delay. Everything is removed when the value is dropped. Before each step it
    /// looks at `stop`: when a signal set it, setup ends with [`SetupInterrupted`] and what
    /// was made so far is removed (dropped) on the way out.
    pub fn new(stop: &AtomicBool) -> Result<DelayPath> {
        DelayPath::numbered(stop, 0)
    }

    /// [`DelayPath::new`] for the `n`-th of several paths of one run, measured at the
    /// same time (`--parallel-links`): path 0 is named as a lone path is
    /// (`hlab-<pid>-client`), path n > 0 `hlab-<pid>-<n>-client`, so each has namespaces,
    /// devices and relay threads of its own.
    pub fn numbered(stop: &AtomicBool, n: usize) -> Result<DelayPath> {
        let setup = Setup::new(stop);
        setup.before(Step::RemoveStale)?;
        netns::remove_stale(NS_PREFIX);
        let pid = std::process::id();
        let name = match n {
            0 => format!("{NS_PREFIX}{pid}"),
            n => format!("{NS_PREFIX}{pid}-{n}"),
        };
        setup.before(Step::ClientNamespace)?;
        let client = Netns::create(&format!("{name}-client"))?;
        setup.before(Step::ServerNamespace)?;
        let server = Netns::create(&format!("{name}-server"))?;
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
            for (key, value) in netns::SYSCTLS {
                ns.sysctl(key, value)?;
            }
        }
        setup.before(Step::DelayLine)?;
        let shared = Arc::new(relay::Shared::new());
        let mut threads = Vec::new();
        for (from, to, direction, name) in [
            (
                ctun.try_clone()?,
                stun.try_clone()?,
                relay::TO_SERVER,
                "client→server",
            ),
            (stun, ctun, relay::TO_CLIENT, "server→client"),
        ] {
            let shared = shared.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("delay {name}"))
                    .spawn(move || {
                        // The link is neither end: it may run on any CPU the run has,
                        // not on the client's (whose mask it would inherit).
                        let _ = crate::cpu::pin_thread(&crate::cpu::plan().available);
                        relay::forward(from, to, direction, &shared)
                    })?,
            );
        }
        Ok(DelayPath {
            client,
            server,
            shared,
            mtu: Mutex::new(link::DEFAULT_MTU),
            threads,
        })
    }

    /// Sets the round-trip time (half of it each way) for packets read from now on,
    /// with nothing else asked of the link.
    pub fn set_rtt(&self, rtt: Duration) -> Result<()> {
        self.set_link(&LinkSpec::delay(rtt), 0)
    }

    /// Packets read from now on meet `link` (client to server seeded with `seed`, back
    /// with `seed + 1`); both devices get its MTU; the per-port counts start from zero.
    pub fn set_link(&self, link: &LinkSpec, seed: u64) -> Result<()> {
        let mut mtu = self.mtu.lock().unwrap_or_else(|e| e.into_inner());
        if *mtu != link.mtu {
            for ns in [&self.client, &self.server] {
                ns.ip(&["link", "set", "hlab0", "mtu", &link.mtu.to_string()])?;
            }
            *mtu = link.mtu;
        }
        self.shared.set(*link, model::direction_seeds(seed));
        Ok(())
    }

    /// Packets of the server at `port` read from now on meet `link` (seeded as in
    /// [`DelayPath::set_link`]), a model of their own: the cells of a grid, interleaved
    /// on one path. The devices' MTU stays the path's: every cell must share it.
    pub fn assign(&self, port: u16, link: &LinkSpec, seed: u64) -> Result<()> {
        let mtu = *self.mtu.lock().unwrap_or_else(|e| e.into_inner());
        anyhow::ensure!(
            link.mtu == mtu,
            "a link of its own for port {port} asks MTU {} on a path set to {mtu}",
            link.mtu
        );
        self.shared
            .assign(port, *link, model::direction_seeds(seed));
        Ok(())
    }

    /// What the link did with the packets of the server listening on `port`, client to
    /// server and back, since the link was last set.
    pub fn counts(&self, port: u16) -> [Counters; 2] {
        self.shared.counts(port)
    }

    /// The connections to the server at `port` in the order they opened, with what the
    /// link dropped of each (since the path's link was last set).
    pub fn connections(&self, port: u16) -> Vec<conns::ConnDrops> {
        self.shared.connections(port)
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
        self.shared.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        // The namespaces (and with them the devices) go when `client` and `server` drop.
    }
}
