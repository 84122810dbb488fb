//! The TLS client side, and the session that pairs it with the arm's server.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection};

use super::{client_config, facts, spec_parts, start_server};
use crate::arms::server::{ready_socket, Server};
use crate::arms::{ArmSpec, Handshake, Outcome, Session, SessionOptions, END, REQUEST, RESPONSE};
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
}

/// What the client end of one connection saw.
pub struct ClientSide {
    pub started: Instant,
    pub connect: Duration,
    pub elapsed: Duration,
    pub facts: Option<Handshake>,
    pub local_port: u16,
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
            request: opts.request || arm.early_data,
            early_data: arm.early_data,
        })
    }

    /// Connect and handshake; the timer starts at connect() and `elapsed` is read the
    /// moment the handshake completes. On 0-RTT arms the request is queued as early data
    /// first, and leaves with the ClientHello.
    pub fn handshake(&self, addr: SocketAddr) -> Result<Handshaken> {
        let socket = ready_socket(self.io_timeout)?;
        let mut conn = ClientConnection::new(self.config.clone(), self.name.clone())?;
        let offered = self.early_data
            && match conn.early_data() {
                Some(mut early) => early.write(REQUEST)? == REQUEST.len(),
                None => false,
            };
        let started = Instant::now();
        socket.connect(&addr.into()).context("connect")?;
        let connect = started.elapsed();
        let mut tcp: TcpStream = socket.into();
        while conn.is_handshaking() {
            conn.complete_io(&mut tcp).context("handshake")?;
        }
        let elapsed = started.elapsed();
        Ok(Handshaken {
            conn,
            tcp,
            started,
            connect,
            elapsed,
            offered,
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
        }
        facts
    }

    /// [`TlsClient::handshake`], then either read the server's app byte (timer stopped
    /// at the handshake's end) or send the request and read the first response byte
    /// (timer stops there); then close.
    pub fn once(&self, addr: SocketAddr) -> Result<ClientSide> {
        let mut h = self.handshake(addr)?;
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
        }
    }
}

pub struct TlsSession {
    server: Server,
    client: TlsClient,
}

impl TlsSession {
    pub fn start(arm: &ArmSpec, certs: &CertStore, opts: &SessionOptions) -> Result<Self> {
        Ok(TlsSession {
            server: start_server(arm, certs, opts, 1)?,
            client: TlsClient::new(arm, certs, opts)?,
        })
    }
}

impl Session for TlsSession {
    fn connect_once(&mut self) -> Result<Outcome> {
        let c = self.client.once(self.server.addr())?;
        let server = self
            .server
            .report_for(c.local_port, self.client.io_timeout)?;
        Ok(c.into_outcome(server))
    }
}
