//! The client end against a server the lab does not run (`collector probe HOST:PORT`):
//! one connection per call, with the same socket options and the same order as the
//! loopback arms, paced by [`pace::Pacer`]. Only the client's end is seen, so each
//! connection is checked on what the client's rustls reported.

pub mod pace;
pub mod record;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rustls::client::{Resumption as ClientResumption, Tls12Resumption, WebPkiServerVerifier};
use rustls::crypto::aws_lc_rs;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore};
use shared::{KxGroup, Protocol};
use socket2::{Domain, Socket, Type};

use super::{ArmSpec, Handshake, Outcome, Session};
pub use pace::Pacer;
pub use record::Check;
use record::{RecordingStore, RecordingVerifier, Verified};

/// What a 0-RTT connection sends as early data (idempotent; the answer is not read
/// beyond what arrives while waiting for a ticket).
pub fn early_request(host: &str) -> String {
    format!("HEAD / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
}

/// How long, after the handshake (untimed), a resuming client waits for the server's
/// TLS 1.3 NewSessionTicket before closing.
pub const TICKET_WAIT: Duration = Duration::from_secs(2);

/// The server and how to reach and trust it; shared by every client of a probe.
pub struct Target {
    pub addr: SocketAddr,
    pub name: ServerName<'static>,
    pub roots: Arc<RootCertStore>,
    pub io_timeout: Duration,
    pub pacer: Pacer,
}

/// How a client resumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    Off,
    /// TLS 1.3 PSK from the server's NewSessionTicket (the client cannot tell a
    /// stateful server from a stateless one).
    Tls13,
    /// TLS 1.2 by session ID only: the ClientHello has no session-ticket extension.
    Tls12SessionId,
    /// TLS 1.2 with the session-ticket extension (RFC 5077).
    Tls12Ticket,
}

/// One configured client: versions, groups, resumption and early data fixed.
pub struct Client {
    target: Arc<Target>,
    config: Arc<ClientConfig>,
    verifier: Arc<RecordingVerifier>,
    pub store: Arc<RecordingStore>,
    resume: Resume,
    early: Option<Vec<u8>>,
}

/// What the client saw of one connection.
#[derive(Debug, Clone)]
pub struct Seen {
    pub started: Instant,
    pub connect: Duration,
    pub elapsed: Duration,
    pub facts: Handshake,
    pub verified: Verified,
    /// TLS 1.3 tickets that arrived on this connection.
    pub new_tickets: u64,
}

impl Client {
    /// `versions` empty: both; `groups` None: rustls's default groups (X25519MLKEM768,
    /// X25519, P-256, P-384 with aws-lc-rs); `check`: what it does with the server's
    /// certificate.
    pub fn new(
        target: Arc<Target>,
        versions: &[Protocol],
        groups: Option<&[KxGroup]>,
        resume: Resume,
        early_data: bool,
        check: Check,
    ) -> Result<Client> {
        let mut provider = aws_lc_rs::default_provider();
        if let Some(groups) = groups {
            provider.kx_groups = groups
                .iter()
                .map(|g| {
                    *super::rustls::provider(*g)
                        .kx_groups
                        .first()
                        .expect("one group")
                })
                .collect();
        }
        let provider = Arc::new(provider);
        let verifier = Arc::new(RecordingVerifier::new(
            WebPkiServerVerifier::builder_with_provider(target.roots.clone(), provider.clone())
                .build()
                .context("building the certificate verifier")?,
            check,
        ));
        let versions: Vec<&'static rustls::SupportedProtocolVersion> = if versions.is_empty() {
            vec![&rustls::version::TLS13, &rustls::version::TLS12]
        } else {
            versions
                .iter()
                .map(|p| match p {
                    Protocol::Tls12 => &rustls::version::TLS12,
                    _ => &rustls::version::TLS13,
                })
                .collect()
        };
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&versions)?
            .dangerous()
            .with_custom_certificate_verifier(verifier.clone())
            .with_no_client_auth();
        let store = Arc::new(RecordingStore::new());
        config.resumption = match resume {
            Resume::Off => ClientResumption::disabled(),
            Resume::Tls13 | Resume::Tls12Ticket => ClientResumption::store(store.clone())
                .tls12_resumption(Tls12Resumption::SessionIdOrTickets),
            Resume::Tls12SessionId => ClientResumption::store(store.clone())
                .tls12_resumption(Tls12Resumption::SessionIdOnly),
        };
        config.enable_early_data = early_data;
        let early = early_data.then(|| early_request(&host_of(&target.name)).into_bytes());
        Ok(Client {
            target,
            config: Arc::new(config),
            verifier,
            store,
            resume,
            early,
        })
    }

    /// One connection: pace; then, timed, socket + `connect()` + the rustls
    /// `ClientConnection` (ClientHello, early data) + handshake I/O until the handshake
    /// is complete and the client's last flight is written; then (untimed) wait for a
    /// TLS 1.3 ticket when resuming, send close_notify and close.
    pub fn connect(&self) -> Result<Seen> {
        self.target.pacer.paced(|| self.connect_paced())
    }

    fn connect_paced(&self) -> Result<Seen> {
        let t = &self.target;
        let _ = self.verifier.take();
        let tickets_before = self.store.counts().0;
        let started = Instant::now();
        let mut tcp = connect_socket(t.addr, t.io_timeout)?;
        let connect = started.elapsed();
        let mut conn = ClientConnection::new(self.config.clone(), t.name.clone())?;
        let offered = match (&self.early, conn.early_data()) {
            (Some(req), Some(mut early)) => early.write(req)? == req.len(),
            _ => false,
        };
        while conn.is_handshaking() {
            conn.complete_io(&mut tcp).context("handshake")?;
        }
        while conn.wants_write() {
            conn.write_tls(&mut tcp).context("writing")?;
        }
        let elapsed = started.elapsed();
        let accepted = offered && conn.is_early_data_accepted();
        let resuming_13 = self.resume != Resume::Off
            && conn.protocol_version() == Some(rustls::ProtocolVersion::TLSv1_3);
        if resuming_13 {
            wait_for_ticket(&mut conn, &mut tcp, &self.store, tickets_before);
        }
        conn.send_close_notify();
        let _ = conn.write_tls(&mut tcp);
        let mut facts = super::rustls::facts(&conn).context("the handshake did not complete")?;
        facts.early_data = self.early.as_ref().map(|_| (offered, accepted));
        Ok(Seen {
            started,
            connect,
            elapsed,
            facts,
            verified: self.verifier.take(),
            new_tickets: self.store.counts().0 - tickets_before,
        })
    }
}

/// The host part of a server name, for the early request's `Host:` header.
fn host_of(name: &ServerName<'_>) -> String {
    match name {
        ServerName::DnsName(d) => d.as_ref().to_string(),
        ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
        _ => String::new(),
    }
}

/// A client socket set up as the loopback arms set theirs (`TCP_NODELAY`, timeouts),
/// but closed normally (FIN, not RST): the server is someone else's.
fn connect_socket(addr: SocketAddr, io_timeout: Duration) -> Result<TcpStream> {
    let s = Socket::new(Domain::for_address(addr), Type::STREAM, None).context("socket()")?;
    s.set_tcp_nodelay(true).context("TCP_NODELAY")?;
    s.set_read_timeout(Some(io_timeout))?;
    s.set_write_timeout(Some(io_timeout))?;
    s.connect_timeout(&addr.into(), io_timeout)
        .with_context(|| format!("connect to {addr}"))?;
    Ok(s.into())
}

/// Reads what the server sends after the handshake until a new TLS 1.3 ticket is in the
/// store, the server closes, or [`TICKET_WAIT`] passes.
fn wait_for_ticket(
    conn: &mut ClientConnection,
    tcp: &mut TcpStream,
    store: &RecordingStore,
    before: u64,
) {
    let deadline = Instant::now() + TICKET_WAIT;
    let mut sink = [0u8; 4096];
    while store.counts().0 == before {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || tcp.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match conn.read_tls(tcp) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if conn.process_new_packets().is_err() {
                    return;
                }
                while let Ok(n @ 1..) = conn.reader().read(&mut sink) {
                    let _ = n;
                }
            }
        }
    }
}

/// A TLS arm against the remote server, for the shared timing loop.
pub struct RemoteSession {
    pub client: Client,
}

impl Session for RemoteSession {
    fn connect_once(&mut self) -> Result<Outcome> {
        let s = self.client.connect()?;
        Ok(Outcome {
            elapsed: s.elapsed,
            connect: s.connect,
            cycle: s.started.elapsed(),
            client: Some(s.facts),
            server: None,
            keepalive: None,
            tcp: None,
        })
    }

    fn server_reports(&self) -> bool {
        false
    }
}

/// TCP connect to the remote server: the path's round trip, paced like the TLS arms.
pub struct RemoteTcp {
    pub target: Arc<Target>,
}

impl Session for RemoteTcp {
    fn connect_once(&mut self) -> Result<Outcome> {
        let t = &self.target;
        let (started, tcp, elapsed) = t.pacer.paced(|| {
            let started = Instant::now();
            let tcp = connect_socket(t.addr, t.io_timeout);
            (started, tcp, started.elapsed())
        });
        drop(tcp?);
        Ok(Outcome {
            elapsed,
            connect: elapsed,
            cycle: started.elapsed(),
            client: None,
            server: None,
            keepalive: None,
            tcp: None,
        })
    }

    fn server_reports(&self) -> bool {
        false
    }
}

/// What one sample of a probe arm covers, in words.
pub fn timed_window(spec: &ArmSpec) -> &'static str {
    match (spec.protocol(), spec.early_data()) {
        (Protocol::Tcp, _) => "TCP connect to the probed server: from before the client's socket is created (socket(), TCP_NODELAY, timeouts) until connect() returns (SYN, SYN-ACK, ACK); then a normal close (FIN)",
        (_, false) => "connect + TLS handshake against the probed server, in the order real clients do it: from before the client's socket is created; socket, connect(), then the rustls ClientConnection (ClientHello, key share, PSK binder), then handshake I/O until the handshake is complete and the client's last flight is written; excludes the untimed wait for a TLS 1.3 ticket (resuming arms), close_notify and close",
        (_, true) => "connect + TLS 1.3 handshake with early data (0-RTT) against the probed server: as the other TLS arms, with a HEAD request queued as early data in the ClientHello; the window ends when the handshake is complete (not at the response, whose protocol the probe does not assume)",
    }
}

/// Refuses a target the probe cannot name or reach before anything is measured.
pub fn check_name(name: &str) -> Result<ServerName<'static>> {
    match ServerName::try_from(name.to_string()) {
        Ok(n) => Ok(n),
        Err(_) => bail!(
            "`{name}` is not a DNS name or IP address to verify the certificate against (--sni)"
        ),
    }
}
