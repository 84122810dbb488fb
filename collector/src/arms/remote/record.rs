//! What the client's rustls saw of a server it does not run, beyond `handshake_kind()`:
//! the signature scheme, the chain and what WebPKI said of it (a verifier that records
//! and delegates to WebPKI, or only records: see [`Check`]) and the sessions the server
//! handed out (a session store that records and delegates to rustls's in-memory cache).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientSessionMemoryCache, ClientSessionStore, WebPkiServerVerifier};
use rustls::client::{Tls12ClientSessionValue, Tls13ClientSessionValue};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, NamedGroup, SignatureScheme};

/// What a client does with the server's certificate. The handshake signature is checked
/// against the certificate's key in every case (the server proves it holds the key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// WebPKI (chain to the roots, validity, the name): a certificate it refuses ends
    /// the handshake, as in any client that verifies.
    Verify,
    /// WebPKI runs and its verdict is recorded, but any certificate is accepted:
    /// discovery, so what a server offers is found whether or not it is trusted.
    RecordOnly,
    /// No WebPKI at all (`--insecure`): any certificate is accepted unverified, and the
    /// verification's cost is not in the timed window.
    Skip,
}

/// Verification as [`Check`] says, recording the handshake's signature scheme, the chain
/// and WebPKI's verdict.
#[derive(Debug)]
pub struct RecordingVerifier {
    inner: Arc<WebPkiServerVerifier>,
    check: Check,
    seen: Mutex<Verified>,
}

/// What the last handshake that presented a certificate showed (reset before each
/// connection: a resumed handshake presents no certificate and signs nothing).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verified {
    pub scheme: Option<SignatureScheme>,
    /// Certificates sent (leaf first) and their total DER bytes.
    pub chain: Option<(u64, u64)>,
    /// What WebPKI said of the certificate (None: not asked, under [`Check::Skip`], or
    /// no certificate was presented).
    pub verdict: Option<Result<(), rustls::Error>>,
}

impl RecordingVerifier {
    pub fn new(inner: Arc<WebPkiServerVerifier>, check: Check) -> Self {
        RecordingVerifier {
            inner,
            check,
            seen: Mutex::new(Verified::default()),
        }
    }

    pub fn take(&self) -> Verified {
        std::mem::take(&mut *self.seen.lock().expect("not poisoned"))
    }

    fn scheme(&self, scheme: SignatureScheme) {
        self.seen.lock().expect("not poisoned").scheme = Some(scheme);
    }
}

impl ServerCertVerifier for RecordingVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let bytes: usize = end_entity.len() + intermediates.iter().map(|c| c.len()).sum::<usize>();
        self.seen.lock().expect("not poisoned").chain =
            Some((1 + intermediates.len() as u64, bytes as u64));
        if self.check == Check::Skip {
            return Ok(ServerCertVerified::assertion());
        }
        let verdict = self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        );
        self.seen.lock().expect("not poisoned").verdict =
            Some(verdict.as_ref().map(|_| ()).map_err(Clone::clone));
        match self.check {
            Check::RecordOnly => Ok(ServerCertVerified::assertion()),
            _ => verdict,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.scheme(dss.scheme);
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.scheme(dss.scheme);
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// rustls's in-memory session cache, counting what the server handed out.
#[derive(Debug)]
pub struct RecordingStore {
    inner: ClientSessionMemoryCache,
    tls13_tickets: AtomicU64,
    /// The last TLS 1.3 ticket's `max_early_data_size` (the server allows 0-RTT if > 0).
    max_early_data: AtomicU64,
    /// TLS 1.2 sessions stored, and of those, ones that carry an RFC 5077 ticket.
    tls12_sessions: AtomicU64,
    tls12_with_ticket: AtomicU64,
}

impl Default for RecordingStore {
    fn default() -> Self {
        Self::new()
    }
}

impl RecordingStore {
    pub fn new() -> Self {
        RecordingStore {
            inner: ClientSessionMemoryCache::new(256),
            tls13_tickets: AtomicU64::new(0),
            max_early_data: AtomicU64::new(0),
            tls12_sessions: AtomicU64::new(0),
            tls12_with_ticket: AtomicU64::new(0),
        }
    }

    /// (TLS 1.3 tickets, last max_early_data_size, TLS 1.2 sessions, of which with a ticket).
    pub fn counts(&self) -> (u64, u64, u64, u64) {
        (
            self.tls13_tickets.load(Ordering::SeqCst),
            self.max_early_data.load(Ordering::SeqCst),
            self.tls12_sessions.load(Ordering::SeqCst),
            self.tls12_with_ticket.load(Ordering::SeqCst),
        )
    }
}

/// Whether a TLS 1.2 session value carries an RFC 5077 ticket. rustls keeps the ticket
/// crate-private; its `Debug` form prints it as hex after `ticket: ` (empty when the
/// server sent none). A unit test holds this to a server with tickets on and off.
pub fn has_ticket(value: &Tls12ClientSessionValue) -> bool {
    let text = format!("{value:?}");
    match text.split_once("ticket: ") {
        Some((_, rest)) => rest.chars().next().is_some_and(|c| c.is_ascii_hexdigit()),
        None => false,
    }
}

impl ClientSessionStore for RecordingStore {
    fn set_kx_hint(&self, server_name: ServerName<'static>, group: NamedGroup) {
        self.inner.set_kx_hint(server_name, group)
    }

    fn kx_hint(&self, server_name: &ServerName<'_>) -> Option<NamedGroup> {
        self.inner.kx_hint(server_name)
    }

    fn set_tls12_session(&self, server_name: ServerName<'static>, value: Tls12ClientSessionValue) {
        self.tls12_sessions.fetch_add(1, Ordering::SeqCst);
        if has_ticket(&value) {
            self.tls12_with_ticket.fetch_add(1, Ordering::SeqCst);
        }
        self.inner.set_tls12_session(server_name, value)
    }

    fn tls12_session(&self, server_name: &ServerName<'_>) -> Option<Tls12ClientSessionValue> {
        self.inner.tls12_session(server_name)
    }

    fn remove_tls12_session(&self, server_name: &ServerName<'static>) {
        self.inner.remove_tls12_session(server_name)
    }

    fn insert_tls13_ticket(
        &self,
        server_name: ServerName<'static>,
        value: Tls13ClientSessionValue,
    ) {
        self.tls13_tickets.fetch_add(1, Ordering::SeqCst);
        self.max_early_data
            .store(u64::from(value.max_early_data_size()), Ordering::SeqCst);
        self.inner.insert_tls13_ticket(server_name, value)
    }

    fn take_tls13_ticket(
        &self,
        server_name: &ServerName<'static>,
    ) -> Option<Tls13ClientSessionValue> {
        self.inner.take_tls13_ticket(server_name)
    }
}
