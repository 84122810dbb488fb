//! Arms: the kinds of connection the lab measures.
//!
//! An arm is a value ([`ArmSpec`]); starting it ([`ArmSpec::start`]) gives a
//! [`Session`]: a server thread on loopback plus a client that makes one connection per
//! call. The timing loop (`measure`, above this module) drives every kind of session the
//! same way, following the arm's [`Plan`] and recording what it saw in an [`ArmRun`],
//! checked connection by connection against the arm ([`verify`]).
//!
//! Every TLS stack has one folder here: how one connection is made and checked for it
//! ([`rustls`], [`openssl`], [`python`], …). The stacks other than rustls are *peers*:
//! what a peer stack implements and the infrastructure it runs on (processes, private
//! files, servers) live in [`peer`]; a new stack is one folder here plus one line in the
//! peer phase driver's registry (`peers::stacks::STACKS`), which runs them beside the
//! rustls arms and is the only place that lists them.
//! [`server`] and [`guard`] are the in-process server thread every rustls-side server
//! shares (plain TCP, rustls, the rustls server s_time faces, `collector serve`).

pub mod botan;
pub mod caddy;
pub mod cell;
pub mod gnutls;
pub mod guard;
pub mod haproxy;
pub mod keepalive;
pub mod kind;
pub mod measured;
pub mod nginx;
pub mod openssl;
pub mod peer;
pub mod placement;
pub mod plan;
pub mod python;
pub mod remote;
pub mod rustls;
pub mod server;
pub mod set;
pub mod tcp;
pub mod tcp_info;
pub mod trace;
pub mod verify;
pub mod wire;

use std::fmt;
use std::time::Duration;

use shared::{Protocol, Stack};

use crate::certs::CertStore;
use crate::netem::Placement;
pub use cell::{tls13_only, Cell, HandshakeMode, Tls};
pub use kind::{ArmKind, Unpinned};
pub use measured::{ArmRun, Traced};
pub use plan::Plan;
pub use server::ServerReport;
pub use set::{default_set, filter, id_matches};

/// Something that deliberately breaks an arm, so tests can see the breakage reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    #[default]
    None,
    /// Servers keep no session state and issue no tickets: resumption cannot happen.
    NoSessionStore,
    /// Servers refuse early data: a 0-RTT arm's request waits for the handshake.
    NoEarlyData,
    /// TLS servers close every Nth connection they accept (counted across their workers)
    /// at once, unserved: a failure on both ends, so failure accounting can be tested.
    DropEvery(u32),
}

/// One arm, as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArmSpec {
    /// What the arm is: its kind, with exactly the parts that kind has.
    pub kind: ArmKind,
    pub fault: Fault,
    /// Whether some connections record phase timestamps (rustls arms; see
    /// [`Session::set_traced`]).
    pub phases: PhaseRecording,
    /// A control arm's CPU placement, when it differs from the run's (`None`: the run's;
    /// see [`crate::cpu`]). Its id ends in `-cpu-<placement>`.
    pub cpu: Option<shared::CpuPlacement>,
}

/// Phase recording on an arm's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PhaseRecording {
    /// On for the traced connections the timing loop interleaves with untraced ones
    /// (where the session can trace: [`Session::set_traced`]).
    #[default]
    On,
    /// Off (`--no-phases`, or a stack that cannot record phases).
    Off,
}

/// How a session is run: timeouts, request/response mode and where the server lives.
#[derive(Clone, Copy)]
pub struct SessionOptions<'a> {
    pub io_timeout: Duration,
    /// Request/response mode: the client sends a small request after the handshake (as
    /// early data on 0-RTT arms) and the timed window ends at the first response byte.
    pub request: bool,
    pub placement: Placement<'a>,
    /// Requests each keep-alive arm's connection carries (`--keepalive-requests`).
    pub keepalive_requests: u64,
}

impl SessionOptions<'_> {
    /// Whether clients read their socket's `TCP_INFO` after each connection: over an
    /// emulated link, where TCP's retransmissions explain the times (on loopback nothing
    /// is lost, and the evidence stays as it was).
    pub fn tcp_info(&self) -> bool {
        self.placement.server_ns.is_some()
    }
}

impl SessionOptions<'static> {
    pub fn loopback(io_timeout: Duration, request: bool) -> Self {
        SessionOptions {
            io_timeout,
            request,
            placement: Placement::LOOPBACK,
            keepalive_requests: keepalive::DEFAULT_REQUESTS,
        }
    }
}

/// The request a client sends in request/response mode, and the response's length.
pub const REQUEST: &[u8] = b"GET /hlab HTTP/1.0\r\n\r\n";
pub const RESPONSE: &[u8] = b"HTTP/1.0 200 OK\r\n\r\nx";
/// After the response, once its handshake is complete, the server writes this byte. The
/// client reads up to it (untimed) before closing: so TLS 1.3 tickets sent after the
/// handshake are processed, and the close (RST) cannot destroy data the server has not
/// read yet (such as a 0-RTT client's Finished).
pub const END: &[u8] = b".";

impl ArmSpec {
    pub const TCP_CONNECT: ArmSpec = ArmSpec {
        kind: ArmKind::Connect,
        fault: Fault::None,
        phases: PhaseRecording::On,
        cpu: None,
    };

    /// Readable, stable id: `tcp-connect`, `tls13-full-rsa2048-x25519`,
    /// `tls12-resumed-stateful-ecdsa-p256-x25519`, ...
    pub fn id(&self) -> String {
        let p = self.kind.parts();
        let mut parts: Vec<&str> = vec![match p.protocol {
            Protocol::Tcp => "tcp",
            Protocol::Tls12 => "tls12",
            Protocol::Tls13 => "tls13",
        }];
        if p.early_data {
            parts.push("0rtt");
        } else {
            parts.push(p.mode.as_str());
            if let Some(r) = p.resumption {
                parts.push(r.as_str());
            }
        }
        if let Some(c) = p.cert {
            parts.push(c.as_str());
        }
        if let Some(g) = p.group {
            parts.push(g.as_str());
        }
        if let Some(cpu) = self.cpu {
            parts.push("cpu");
            parts.push(cpu.as_str());
        }
        parts.join("-")
    }

    pub fn stack(&self) -> Stack {
        match self.kind {
            ArmKind::Connect => Stack::KernelTcp,
            _ => Stack::Rustls,
        }
    }

    /// What one sample covers, in words (written into the evidence).
    pub fn timed_window(&self, request: bool) -> &'static str {
        if let ArmKind::KeepAlive { .. } = self.kind {
            return "keep-alive: one connection per sample (socket, connect(), a full rustls handshake), then N requests one after the other on it, each written after the previous response's last byte; a sample is the mean, over requests 2..N, of the time from writing a request until its response's first byte (settings.extra.keepalive has N); the first request's TTFB (from before the socket is created, as the full arm's) is in `keepalive`; excludes close";
        }
        match (self.protocol(), request || self.early_data()) {
            (Protocol::Tcp, false) => "TCP connect: from before the client's socket is created (socket(), TCP_NODELAY, SO_LINGER {on, 0}, timeouts) until connect() returns (SYN, SYN-ACK, ACK); excludes the server's app byte and close",
            (Protocol::Tcp, true) => "TTFB over TCP: from before the client's socket is created until the client reads the first response byte to its request (sent right after connect); excludes close",
            (_, false) => "connect + TLS handshake, in the order real clients do it: from before the client's socket is created; socket, connect(), then the rustls ClientConnection (ClientHello, key share, PSK binder), then handshake I/O until the handshake is complete and the client's last flight is written; excludes certificate generation, the server's 1-byte app record (read after the timer, so TLS 1.3 tickets are processed) and close. The client starts its next connection only after the server reported this one, which it does after the client's close",
            (_, true) if self.early_data() => "TTFB with 0-RTT: from before the client's socket is created; socket, connect(), then the rustls ClientConnection with the request written as TLS 1.3 early data (it leaves with the ClientHello), until the client reads the first response byte; the server answers before the handshake completes (half-RTT data); excludes close",
            (_, true) => "TTFB over TLS: from before the client's socket is created; socket, connect(), the rustls ClientConnection, the handshake, the request sent as soon as the handshake allows, until the client reads the first response byte; excludes close",
        }
    }

    /// Starts this arm's server (per `opts.placement`) and returns a client session against it.
    pub fn start(
        &self,
        certs: &CertStore,
        opts: &SessionOptions,
    ) -> anyhow::Result<Box<dyn Session>> {
        match self.kind {
            ArmKind::Connect => Ok(Box::new(tcp::TcpSession::start(opts)?)),
            ArmKind::KeepAlive { .. } => Ok(Box::new(keepalive::KeepAliveSession::start(
                self, certs, opts,
            )?)),
            _ => Ok(Box::new(rustls::TlsSession::start(self, certs, opts)?)),
        }
    }
}

impl fmt::Display for ArmSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

/// What one connection reported, from both ends.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Length of the timed window.
    pub elapsed: Duration,
    /// How long connect() took (SYN to SYN-ACK): the path's round trip.
    pub connect: Duration,
    /// The whole connection cycle (timed window, app byte, close).
    pub cycle: Duration,
    /// Handshake facts as the client saw them (None for plain TCP).
    pub client: Option<Handshake>,
    /// Handshake facts as the server saw them (None for plain TCP).
    pub server: Option<Handshake>,
    /// Keep-alive arms: requests carried and the first one's time to first byte.
    pub keepalive: Option<keepalive::KeepAliveOutcome>,
    /// The client socket's TCP counters after the timed window, where read (arms over
    /// an emulated link).
    pub tcp: Option<tcp_info::TcpInfo>,
}

/// Facts about one completed handshake, as one end reports them.
#[derive(Debug, Clone, PartialEq)]
pub struct Handshake {
    pub kind: ::rustls::HandshakeKind,
    pub protocol: Option<::rustls::ProtocolVersion>,
    pub kx_group: Option<::rustls::NamedGroup>,
    pub cipher_suite: Option<::rustls::CipherSuite>,
    /// Client side: whether the server presented the arm's own leaf certificate
    /// (None where not checked, e.g. on the server side).
    pub expected_cert: Option<bool>,
    /// 0-RTT arms: (offered, accepted) early data, as this end saw it.
    pub early_data: Option<(bool, bool)>,
    /// This end's phase timestamps, where it records them (see [`trace`]).
    pub trace: Option<trace::Trace>,
    /// The CPU this end's thread ran on when its handshake completed (`sched_getcpu`),
    /// where it samples it.
    pub cpu: Option<u16>,
    /// What this end put on the wire and saw of it, where counted (rustls ends).
    pub wire: Option<WireFacts>,
}

/// One end's wire facts of a handshake (see [`wire`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WireFacts {
    /// This end's first flight: the client's ClientHello, the server's answer to it.
    pub flight: Option<wire::Flight>,
    /// Client side, full handshakes: the certificates the server sent, and their DER
    /// bytes summed.
    pub chain: Option<(u32, u64)>,
    /// Server side: its socket's TCP counters after the connection, where read.
    pub tcp: Option<tcp_info::TcpInfo>,
}

impl Handshake {
    /// What an end told of a handshake: its kind, version and group, nothing else
    /// (no cipher suite, certificate check, early data, trace or CPU).
    pub fn seen(
        kind: ::rustls::HandshakeKind,
        protocol: Option<::rustls::ProtocolVersion>,
        kx_group: Option<::rustls::NamedGroup>,
    ) -> Handshake {
        Handshake {
            kind,
            protocol,
            kx_group,
            cipher_suite: None,
            expected_cert: None,
            early_data: None,
            trace: None,
            cpu: None,
            wire: None,
        }
    }
}

/// A started arm: each call makes one real connection against the arm's server.
pub trait Session {
    fn connect_once(&mut self) -> anyhow::Result<Outcome>;

    /// Makes the next connections record phase timestamps on both ends (`true`) or not.
    /// Returns whether this session can trace at all (the default: it cannot).
    fn set_traced(&mut self, traced: bool) -> bool {
        let _ = traced;
        false
    }

    /// The CPUs the server's end of the last connection ran on, sampled after it (the
    /// default: the threads of every running peer server process, from `/proc`), and
    /// how, in words. Sessions whose server reports its CPU per connection override it.
    fn server_cpus(&self) -> (Vec<u16>, &'static str) {
        (
            crate::cpu::peer_server_cpus(),
            "client: sched_getcpu in the client thread; server: the CPUs the peer server process's threads last ran on (/proc/<pid>/task/*/stat), read after each connection",
        )
    }

    /// Whether the server reports each handshake. An external peer server (openssl
    /// s_server) cannot; its arms are then checked on the client's report alone.
    fn server_reports(&self) -> bool {
        true
    }

    /// The port its server listens on, where the session runs one (an emulated link
    /// counts each arm's packets by it).
    fn server_port(&self) -> Option<u16> {
        None
    }
}
