//! rustls arms: TLS 1.3 and TLS 1.2, full and resumed (stateful or ticket), with the
//! key-exchange group pinned on both ends.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rustls::client::Resumption as ClientResumption;
use rustls::client::Tls12Resumption;
use rustls::crypto::{aws_lc_rs, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::server::NoServerSessionStorage;
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use shared::{KxGroup, Mode, Protocol, Resumption};

use super::server::{drain, ready_socket, Handler, Server};
use super::{ArmSpec, Fault, Handshake, Outcome, Session};
use crate::certs::CertStore;

/// The crypto provider (aws-lc-rs) with only `group` enabled.
pub fn provider(group: KxGroup) -> Arc<CryptoProvider> {
    let mut p = aws_lc_rs::default_provider();
    p.kx_groups = vec![match group {
        KxGroup::X25519 => aws_lc_rs::kx_group::X25519,
        KxGroup::Secp256r1 => aws_lc_rs::kx_group::SECP256R1,
        KxGroup::Secp384r1 => aws_lc_rs::kx_group::SECP384R1,
        KxGroup::X25519Mlkem768 => aws_lc_rs::kx_group::X25519MLKEM768,
    }];
    Arc::new(p)
}

fn version(p: Protocol) -> &'static rustls::SupportedProtocolVersion {
    match p {
        Protocol::Tls12 => &rustls::version::TLS12,
        _ => &rustls::version::TLS13,
    }
}

/// Server config for `arm`. Full arms get the rustls defaults (a 256-entry session
/// cache, and for TLS 1.3 two tickets per handshake, as a real server would);
/// ticket arms add a ticketer; [`Fault::NoSessionStore`] removes both.
fn server_config(arm: &ArmSpec, certs: &CertStore) -> Result<ServerConfig> {
    let (cert, group) = spec_parts(arm)?;
    let set = certs.get(cert)?;
    let mut cfg = ServerConfig::builder_with_provider(provider(group))
        .with_protocol_versions(&[version(arm.protocol)])?
        .with_no_client_auth()
        .with_single_cert(vec![set.leaf.clone()], set.leaf_key())?;
    match arm.fault {
        Fault::NoSessionStore => cfg.session_storage = Arc::new(NoServerSessionStorage {}),
        Fault::None if arm.resumption == Some(Resumption::Ticket) => {
            cfg.ticketer = aws_lc_rs::Ticketer::new()?;
        }
        Fault::None => {}
    }
    Ok(cfg)
}

/// Client config for `arm`: trusts only the run's CA; resumption off for full arms.
fn client_config(arm: &ArmSpec, certs: &CertStore) -> Result<ClientConfig> {
    let (cert, group) = spec_parts(arm)?;
    let mut roots = RootCertStore::empty();
    roots.add(certs.get(cert)?.ca.clone())?;
    let mut cfg = ClientConfig::builder_with_provider(provider(group))
        .with_protocol_versions(&[version(arm.protocol)])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.resumption = match arm.mode {
        Mode::Resumed => ClientResumption::in_memory_sessions(256)
            .tls12_resumption(Tls12Resumption::SessionIdOrTickets),
        _ => ClientResumption::disabled(),
    };
    Ok(cfg)
}

fn spec_parts(arm: &ArmSpec) -> Result<(shared::CertKind, KxGroup)> {
    Ok((
        arm.cert
            .with_context(|| format!("TLS arm {arm} has no certificate kind"))?,
        arm.kx_group
            .with_context(|| format!("TLS arm {arm} has no key-exchange group"))?,
    ))
}

fn facts(conn: &rustls::CommonState) -> Option<Handshake> {
    Some(Handshake {
        kind: conn.handshake_kind()?,
        protocol: conn.protocol_version(),
        kx_group: conn.negotiated_key_exchange_group().map(|g| g.name()),
        cipher_suite: conn.negotiated_cipher_suite().map(|s| s.suite()),
        expected_cert: None,
    })
}

#[derive(Clone)]
struct TlsHandler {
    config: Arc<ServerConfig>,
}

impl Handler for TlsHandler {
    fn handle(
        &mut self,
        mut tcp: TcpStream,
        report: &mut dyn FnMut(Result<Option<Handshake>, String>),
    ) {
        let mut conn = match ServerConnection::new(self.config.clone()) {
            Ok(c) => c,
            Err(e) => return report(Err(e.to_string())),
        };
        while conn.is_handshaking() {
            if let Err(e) = conn.complete_io(&mut tcp) {
                return report(Err(format!("handshake: {e}")));
            }
        }
        report(Ok(facts(&conn)));
        let mut tls = rustls::Stream::new(&mut conn, &mut tcp);
        if tls.write_all(b"x").and_then(|_| tls.flush()).is_ok() {
            drain(tls);
        }
    }
}

/// The client half of a TLS arm: one connection per call, against any address.
pub struct TlsClient {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    /// The leaf the server must present (checked on every connection, after the timer).
    leaf: CertificateDer<'static>,
    io_timeout: Duration,
}

/// What the client end of one connection saw.
pub struct ClientSide {
    pub started: Instant,
    pub elapsed: Duration,
    pub facts: Option<Handshake>,
    pub local_port: u16,
}

impl TlsClient {
    pub fn new(arm: &ArmSpec, certs: &CertStore, io_timeout: Duration) -> Result<Self> {
        let (cert, _) = spec_parts(arm)?;
        Ok(TlsClient {
            config: Arc::new(client_config(arm, certs)?),
            name: ServerName::try_from("localhost")?,
            leaf: certs.get(cert)?.leaf.clone(),
            io_timeout,
        })
    }

    /// Connect, handshake (timed), read the server's app byte, close.
    pub fn once(&self, addr: SocketAddr) -> Result<ClientSide> {
        let socket = ready_socket(self.io_timeout)?;
        let mut conn = ClientConnection::new(self.config.clone(), self.name.clone())?;
        let started = Instant::now();
        socket.connect(&addr.into()).context("connect")?;
        let mut tcp: TcpStream = socket.into();
        while conn.is_handshaking() {
            conn.complete_io(&mut tcp).context("handshake")?;
        }
        let elapsed = started.elapsed();
        let mut byte = [0u8; 1];
        rustls::Stream::new(&mut conn, &mut tcp)
            .read_exact(&mut byte)
            .context("reading the server's app byte")?;
        let mut facts = facts(&conn);
        if let Some(f) = facts.as_mut() {
            f.expected_cert =
                Some(conn.peer_certificates().and_then(|c| c.first()) == Some(&self.leaf));
        }
        Ok(ClientSide {
            started,
            elapsed,
            facts,
            local_port: tcp.local_addr()?.port(),
        })
    }
}

/// Starts the server for `arm` with `workers` threads.
pub fn start_server(
    arm: &ArmSpec,
    certs: &CertStore,
    io_timeout: Duration,
    workers: u64,
) -> Result<Server> {
    let handler = TlsHandler {
        config: Arc::new(server_config(arm, certs)?),
    };
    Server::spawn_workers(&arm.id(), io_timeout, workers, handler)
}

pub struct TlsSession {
    server: Server,
    client: TlsClient,
}

impl TlsSession {
    pub fn start(arm: &ArmSpec, certs: &CertStore, io_timeout: Duration) -> Result<Self> {
        Ok(TlsSession {
            server: start_server(arm, certs, io_timeout, 1)?,
            client: TlsClient::new(arm, certs, io_timeout)?,
        })
    }
}

impl Session for TlsSession {
    fn connect_once(&mut self) -> Result<Outcome> {
        let c = self.client.once(self.server.addr())?;
        let server = self
            .server
            .report_for(c.local_port, self.client.io_timeout)?;
        Ok(Outcome {
            elapsed: c.elapsed,
            cycle: c.started.elapsed(),
            client: c.facts,
            server,
        })
    }
}
