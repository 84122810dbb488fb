//! When a peer server counts as started: a handshake with it presents the run's own leaf.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Result};
use rustls::client::Resumption;
use rustls::{ClientConfig, RootCertStore};
use shared::{CertKind, KxGroup};

use crate::arms::rustls::{provider, TlsClient};
use crate::arms::{ArmKind, ArmSpec, Cell, PhaseRecording, SessionOptions, Tls};
use crate::certs::CertStore;

/// One full handshake to `addr` with the rustls client of `spec` (recording off), which
/// trusts only the run's CA: Ok only if the server presents the run's own leaf for
/// `spec`'s certificate kind. What a peer server must pass before it is measured.
///
/// Under TLS 1.2 with an ECDSA leaf, OpenSSL and Go use the certificate only if the client
/// lists its curve, so there the probe also lists the leaf's curve (after the arm's group):
/// a server for `openssl s_time`, which lists every curve, is then probed as it is used.
pub fn presents_leaf(
    spec: &ArmSpec,
    certs: &CertStore,
    addr: SocketAddr,
    io_timeout: Duration,
) -> Result<()> {
    let Some(cell) = spec.cell().map(Cell::full) else {
        bail!("{spec} is not a TLS handshake arm with a pinned group: no readiness probe");
    };
    let probe = ArmSpec {
        kind: ArmKind::Handshake(cell),
        phases: PhaseRecording::Off,
        ..*spec
    };
    let opts = SessionOptions::loopback(io_timeout, false);
    let client = match tls12_ecdsa_curve(&cell) {
        None => TlsClient::new(&probe, certs, &opts)?,
        Some(curve) => {
            let set = certs.get(cell.cert)?;
            let mut p = (*provider(cell.group)).clone();
            p.kx_groups
                .extend(provider(curve).kx_groups.iter().copied());
            let mut roots = RootCertStore::empty();
            roots.add(set.ca.clone())?;
            let mut config = ClientConfig::builder_with_provider(p.into())
                .with_protocol_versions(&[&rustls::version::TLS12])?
                .with_root_certificates(roots)
                .with_no_client_auth();
            config.resumption = Resumption::disabled();
            TlsClient::with_config(&probe, config, set.leaf.clone(), &opts)?
        }
    };
    let h = client.handshake(addr)?;
    match client.facts(&h).and_then(|f| f.expected_cert) {
        Some(true) => Ok(()),
        _ => bail!("the server on {addr} did not present the run's leaf"),
    }
}

/// The leaf's curve, where a TLS 1.2 ECDSA arm pins another group.
fn tls12_ecdsa_curve(cell: &Cell) -> Option<KxGroup> {
    let curve = match cell.cert {
        CertKind::EcdsaP256 => KxGroup::Secp256r1,
        CertKind::EcdsaP384 => KxGroup::Secp384r1,
        _ => return None,
    };
    (cell.tls == Tls::Tls12 && cell.group != curve).then_some(curve)
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, TcpListener};
    use std::sync::Arc;

    use rustls::{ServerConfig, ServerConnection};
    use shared::{CertKind, KxGroup, Mode, Protocol};

    use super::*;
    use crate::arms::default_set;

    /// Serves one TLS connection on loopback with `certs`' leaf; returns its address.
    fn one_tls_server(certs: &CertStore) -> SocketAddr {
        let set = certs.get(CertKind::EcdsaP256).unwrap();
        let config = ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![set.leaf.clone()], set.leaf_key())
        .unwrap();
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut tcp, _) = listener.accept().unwrap();
            let mut conn = ServerConnection::new(Arc::new(config)).unwrap();
            let _ = conn.complete_io(&mut tcp);
        });
        addr
    }

    #[test]
    fn readiness_needs_a_handshake_with_the_runs_own_leaf() {
        let ours = CertStore::generate([CertKind::EcdsaP256]).unwrap();
        let spec = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false)
            .into_iter()
            .find(|s| s.protocol() == Protocol::Tls13 && s.mode() == Mode::Full)
            .unwrap();
        let t = Duration::from_secs(5);
        presents_leaf(&spec, &ours, one_tls_server(&ours), t).expect("our own leaf");
        // Another run's certificates on the port: not ready.
        let other = CertStore::generate([CertKind::EcdsaP256]).unwrap();
        assert!(presents_leaf(&spec, &ours, one_tls_server(&other), t).is_err());
        // A listener that is not a TLS server at all: not ready.
        let plain = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = plain.local_addr().unwrap();
        std::thread::spawn(move || {
            let (s, _) = plain.accept().unwrap();
            drop(s);
        });
        assert!(presents_leaf(&spec, &ours, addr, t).is_err());
    }
}
