//! The TLS client side, and the session that pairs it with the arm's server.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection};

use super::drive::{self, End};
use super::{client_config, facts, spec_parts, start_server_traced};
use crate::arms::server::{ready_socket, Server};
use crate::arms::trace::{Stamp, Trace};
use crate::arms::wire::{Counted, Flight, FlightLog};
use crate::arms::{
    ArmSpec, Handshake, Outcome, PhaseRecording, Session, SessionOptions, WireFacts, END, REQUEST,
    RESPONSE,
};
use crate::certs::CertStore;

/// The client half of a TLS arm: one connection per call, against any address.
pub struct TlsClient {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    /// The leaf the server must present (checked on every connection, after the timer).
    leaf: CertificateDer<'static>,
    io_timeout: Duration,
    request: bool,
    early_data: bool,
    /// Record phase timestamps on every connection.
    phases: bool,
    /// Read the socket's TCP_INFO after each connection (see [`SessionOptions::tcp_info`]).
    tcp_info: bool,
}

/// What the client end of one connection saw.
pub struct ClientSide {
    pub started: Instant,
    pub connect: Duration,
    pub elapsed: Duration,
    pub facts: Option<Handshake>,
    pub local_port: u16,
    pub tcp: Option<crate::arms::tcp_info::TcpInfo>,
}

impl TlsClient {
    pub fn new(arm: &ArmSpec, certs: &CertStore, opts: &SessionOptions) -> Result<Self> {
        let (cert, _) = spec_parts(arm)?;
        let config = client_config(arm, certs)?;
        TlsClient::with_config(arm, config, certs.get(cert)?.leaf.clone(), opts)
    }

    /// A client with `config` that expects the server to present `leaf`.
    pub fn with_config(
        arm: &ArmSpec,
        config: ClientConfig,
        leaf: CertificateDer<'static>,
        opts: &SessionOptions,
    ) -> Result<Self> {
        Ok(TlsClient {
            config: Arc::new(config),
            name: ServerName::try_from("localhost")?,
            leaf,
            io_timeout: opts.io_timeout,
            request: opts.request || arm.early_data(),
            early_data: arm.early_data(),
            // Phases are recorded for handshake windows (not request/response mode).
            phases: arm.phases == crate::arms::PhaseRecording::On
                && !(opts.request || arm.early_data()),
            tcp_info: opts.tcp_info(),
        })
    }

    /// Connect and handshake, in the order real clients do it (tokio-rustls,
    /// `rustls::Stream`): the timer starts before the socket is created; then the socket,
    /// `connect()`, the rustls `ClientConnection` (the ClientHello: key share, PSK binder,
    /// and on 0-RTT arms the request as early data), then handshake I/O until the
    /// handshake is complete and the client's last flight is written, when `elapsed` is read.
    /// Phases are recorded where the arm records them.
    pub fn handshake(&self, addr: SocketAddr) -> Result<Handshaken> {
        self.handshake_traced(addr, self.phases)
    }

    /// [`TlsClient::handshake`], recording phases when `traced` (and the arm can).
    pub fn handshake_traced(&self, addr: SocketAddr, traced: bool) -> Result<Handshaken> {
        let traced = traced && self.phases;
        let mut trace = Trace::new(traced);
        let started = if traced {
            let start = Stamp::now();
            trace.mark_at("start", start);
            start.wall
        } else {
            Instant::now()
        };
        let socket = ready_socket(self.io_timeout)?;
        socket.connect(&addr.into()).context("connect")?;
        let connect = started.elapsed();
        trace.mark("connected");
        let mut tcp: TcpStream = socket.into();
        let mut conn = ClientConnection::new(self.config.clone(), self.name.clone())?;
        let offered = self.early_data
            && match conn.early_data() {
                Some(mut early) => early.write(REQUEST)? == REQUEST.len(),
                None => false,
            };
        // The ClientHello is counted on the socket (TCP's segments only where TCP_INFO
        // is read: two getsockopt calls in the window, over an emulated link alone).
        let mut log = FlightLog::new(self.tcp_info);
        let mut io = Counted {
            tcp: &mut tcp,
            log: &mut log,
        };
        drive::handshake(&mut conn, &mut io, &mut trace, End::Client)?;
        let elapsed = started.elapsed();
        let cpu = crate::cpu::current();
        Ok(Handshaken {
            cpu,
            conn,
            tcp,
            started,
            connect,
            elapsed,
            offered,
            trace,
            client_hello: log.flight(),
        })
    }

    /// What this end saw of a completed handshake, including whether the server
    /// presented the arm's own leaf.
    pub fn facts(&self, h: &Handshaken) -> Option<Handshake> {
        let mut facts = facts(&h.conn);
        if let Some(f) = facts.as_mut() {
            f.expected_cert =
                Some(h.conn.peer_certificates().and_then(|c| c.first()) == Some(&self.leaf));
            f.early_data = self
                .early_data
                .then_some((h.offered, h.offered && h.conn.is_early_data_accepted()));
            f.trace = h.trace.clone().into_events();
            f.cpu = h.cpu;
            // What the server sent: only a full handshake carries certificates (a resumed
            // one's peer certificates come from the session).
            let chain = (f.kind != rustls::HandshakeKind::Resumed)
                .then(|| h.conn.peer_certificates())
                .flatten()
                .map(|c| (c.len() as u32, c.iter().map(|d| d.len() as u64).sum()));
            f.wire = Some(WireFacts {
                flight: h.client_hello,
                chain,
                tcp: None,
            });
        }
        facts
    }

    /// [`TlsClient::handshake`], then either read the server's app byte (timer stopped
    /// at the handshake's end) or send the request and read the first response byte
    /// (timer stops there); then close.
    pub fn once(&self, addr: SocketAddr) -> Result<ClientSide> {
        self.once_traced(addr, self.phases)
    }

    /// [`TlsClient::once`], recording phases when `traced` (and the arm can).
    pub fn once_traced(&self, addr: SocketAddr, traced: bool) -> Result<ClientSide> {
        let mut h = self.handshake_traced(addr, traced)?;
        let accepted = h.offered && h.conn.is_early_data_accepted();
        let mut stream = rustls::Stream::new(&mut h.conn, &mut h.tcp);
        if self.request && !accepted {
            stream.write_all(REQUEST).context("sending the request")?;
        }
        let mut byte = [0u8; 1];
        stream
            .read_exact(&mut byte)
            .context("reading the server's first byte")?;
        if self.request {
            h.elapsed = h.started.elapsed();
            let mut rest = vec![0u8; RESPONSE.len() - 1 + END.len()];
            stream
                .read_exact(&mut rest)
                .context("reading the rest of the response")?;
        }
        Ok(ClientSide {
            started: h.started,
            connect: h.connect,
            elapsed: h.elapsed,
            facts: self.facts(&h),
            local_port: h.tcp.local_addr()?.port(),
            tcp: if self.tcp_info {
                crate::arms::tcp_info::read(&h.tcp)
            } else {
                None
            },
        })
    }
}

/// A client connection whose handshake has just completed.
pub struct Handshaken {
    pub conn: ClientConnection,
    pub tcp: TcpStream,
    pub started: Instant,
    /// connect() alone, and connect + handshake.
    pub connect: Duration,
    pub elapsed: Duration,
    /// Early data was queued with the ClientHello.
    pub offered: bool,
    /// The client's phase timestamps (empty unless phase recording is on).
    pub trace: Trace,
    /// The CPU the client ran on when the handshake completed.
    pub cpu: Option<u16>,
    /// The ClientHello as counted on the socket (with early data, where sent with it).
    pub client_hello: Option<Flight>,
}

impl ClientSide {
    /// The connection's outcome, with what the server reported.
    pub fn into_outcome(self, server: Option<Handshake>) -> Outcome {
        Outcome {
            elapsed: self.elapsed,
            connect: self.connect,
            cycle: self.started.elapsed(),
            client: self.facts,
            server,
            keepalive: None,
            tcp: self.tcp,
        }
    }
}

pub struct TlsSession {
    server: Server,
    client: TlsClient,
    /// Whether the next connection records phases, on both ends (the server's handler
    /// reads the same flag).
    traced: Arc<AtomicBool>,
}

impl TlsSession {
    pub fn start(arm: &ArmSpec, certs: &CertStore, opts: &SessionOptions) -> Result<Self> {
        let traced = Arc::new(AtomicBool::new(arm.phases == PhaseRecording::On));
        Ok(TlsSession {
            server: start_server_traced(arm, certs, opts, 1, traced.clone())?,
            client: TlsClient::new(arm, certs, opts)?,
            traced,
        })
    }
}

impl Session for TlsSession {
    fn set_traced(&mut self, traced: bool) -> bool {
        self.traced
            .store(traced && self.client.phases, Ordering::SeqCst);
        self.client.phases
    }

    fn server_cpus(&self) -> (Vec<u16>, &'static str) {
        (
            self.server.last_cpu().into_iter().collect(),
            crate::cpu::IN_PROCESS,
        )
    }

    fn server_port(&self) -> Option<u16> {
        Some(self.server.addr().port())
    }

    fn connect_once(&mut self) -> Result<Outcome> {
        let traced = self.traced.load(Ordering::SeqCst);
        let c = self.client.once_traced(self.server.addr(), traced)?;
        let server = self
            .server
            .report_for(c.local_port, self.client.io_timeout)?;
        Ok(c.into_outcome(server))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rustls::crypto::{aws_lc_rs, ActiveKeyExchange, SupportedKxGroup};
    use rustls::{NamedGroup, RootCertStore};
    use shared::{CertKind, KxGroup, Mode, Protocol};

    use super::*;
    use crate::arms::rustls::start_server;
    use crate::arms::Fault;

    /// X25519 whose client key share takes `DELAY` longer to make.
    #[derive(Debug)]
    struct SlowKeyShare;
    const DELAY: Duration = Duration::from_millis(20);

    impl SupportedKxGroup for SlowKeyShare {
        fn start(&self) -> std::result::Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
            std::thread::sleep(DELAY);
            aws_lc_rs::kx_group::X25519.start()
        }
        fn name(&self) -> NamedGroup {
            NamedGroup::X25519
        }
    }

    fn arm(protocol: Protocol) -> ArmSpec {
        ArmSpec {
            kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
                protocol,
                mode: Mode::Full,
                resumption: None,
                cert: Some(CertKind::EcdsaP256),
                group: Some(KxGroup::X25519),
                early_data: false,
            }),
            fault: Fault::None,
            phases: PhaseRecording::On,
            cpu: None,
        }
    }

    /// The client's key share is made when the ClientHello is built (TLS 1.3) or after
    /// the ServerHello (TLS 1.2): either way inside the timed window, and in TLS 1.3
    /// between `connected` and `c1_ready`.
    #[test]
    fn a_slow_client_hello_is_inside_the_window() {
        let certs = CertStore::generate([CertKind::EcdsaP256]).unwrap();
        let opts = SessionOptions::loopback(Duration::from_secs(5), false);
        for protocol in [Protocol::Tls13, Protocol::Tls12] {
            let arm = arm(protocol);
            let server = start_server(&arm, &certs, &opts, 1).unwrap();
            let mut provider = aws_lc_rs::default_provider();
            provider.kx_groups = vec![Box::leak(Box::new(SlowKeyShare))];
            let mut roots = RootCertStore::empty();
            roots
                .add(certs.get(CertKind::EcdsaP256).unwrap().ca.clone())
                .unwrap();
            let config = ClientConfig::builder_with_provider(Arc::new(provider))
                .with_protocol_versions(&[match protocol {
                    Protocol::Tls12 => &rustls::version::TLS12,
                    _ => &rustls::version::TLS13,
                }])
                .unwrap()
                .with_root_certificates(roots)
                .with_no_client_auth();
            let leaf = certs.get(CertKind::EcdsaP256).unwrap().leaf.clone();
            let client = TlsClient::with_config(&arm, config, leaf, &opts).unwrap();
            let h = client.handshake(server.addr()).unwrap();
            assert!(!h.conn.is_handshaking());
            assert!(
                h.elapsed >= DELAY,
                "{protocol}: the key share's {DELAY:?} is inside the window ({:?})",
                h.elapsed
            );
            let at = |name: &str| {
                h.trace.events.iter().find(|e| e.0 == name).unwrap().1.wall - h.started
            };
            if protocol == Protocol::Tls13 {
                assert!(
                    at("c1_ready") - at("connected") >= DELAY,
                    "built after connect()"
                );
            } else {
                assert!(
                    at("c2_ready") - at("s1_read") >= DELAY,
                    "made after the ServerHello"
                );
            }
        }
    }
}
