//! TLS for the control connection, with the run's own CA: the server presents one of
//! the arms' leaves (name `localhost`), the client trusts only the CA file `serve`
//! wrote, so the token, the manifest and the reports cannot be read or forged on the
//! path.

use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, StreamOwned};

use crate::certs::CertStore;

pub type ServerStream = StreamOwned<rustls::ServerConnection, TcpStream>;
pub type ClientStream = StreamOwned<ClientConnection, TcpStream>;

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The control server's config: TLS 1.3 with the first leaf in `certs`.
pub fn server_config(certs: &CertStore, kind: shared::CertKind) -> Result<Arc<ServerConfig>> {
    let set = certs.get(kind)?;
    let cfg = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(set.chain(), set.leaf_key())?;
    Ok(Arc::new(cfg))
}

/// The control client's config: TLS 1.3 trusting exactly `roots`.
pub fn client_config(roots: RootCertStore) -> Result<Arc<ClientConfig>> {
    let cfg = ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(cfg))
}

/// A client stream over `tcp` (the handshake runs on first use).
pub fn client(config: Arc<ClientConfig>, tcp: TcpStream) -> Result<ClientStream> {
    let conn = ClientConnection::new(config, ServerName::try_from("localhost")?)?;
    Ok(StreamOwned::new(conn, tcp))
}

/// The CA certificates in `ca_file` (PEM), the only ones the client trusts.
pub fn load_roots(ca_file: &Path) -> Result<RootCertStore> {
    let pem = std::fs::read(ca_file)
        .with_context(|| format!("could not read --ca {}", ca_file.display()))?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.with_context(|| {
            format!("--ca {} is not a PEM certificate bundle", ca_file.display())
        })?)?;
    }
    if roots.is_empty() {
        bail!("--ca {} holds no certificate", ca_file.display());
    }
    Ok(roots)
}
