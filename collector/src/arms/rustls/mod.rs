//! rustls arms: TLS 1.3 and TLS 1.2, full and resumed (stateful or ticket) and 0-RTT,
//! with the key-exchange group pinned on both ends. Configs here; the server's handler in
//! [`server`], the client and the session in [`client`]; the client against a peer web
//! server (OpenSSL, nginx, Caddy, GnuTLS) in [`www`].

mod client;
pub(crate) mod drive;
mod server;
pub mod www;

pub use client::{ClientSide, Handshaken, TlsClient, TlsSession};
pub use server::{start_server, start_server_traced};

use std::sync::Arc;

use anyhow::{Context, Result};
use rustls::client::Resumption as ClientResumption;
use rustls::client::Tls12Resumption;
use rustls::crypto::{aws_lc_rs, CryptoProvider};
use rustls::server::NoServerSessionStorage;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use shared::{KxGroup, Mode, Protocol, Resumption};

use super::{ArmSpec, Fault, Handshake};
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
pub(crate) fn server_config(arm: &ArmSpec, certs: &CertStore) -> Result<ServerConfig> {
    let (cert, group) = spec_parts(arm)?;
    let set = certs.get(cert)?;
    let mut cfg = ServerConfig::builder_with_provider(provider(group))
        .with_protocol_versions(&[version(arm.protocol())])?
        .with_no_client_auth()
        .with_single_cert(set.chain(), set.leaf_key())?;
    match arm.fault {
        Fault::NoSessionStore => cfg.session_storage = Arc::new(NoServerSessionStorage {}),
        Fault::None | Fault::DropEvery(_) if arm.resumption() == Some(Resumption::Ticket) => {
            cfg.ticketer = aws_lc_rs::Ticketer::new()?;
        }
        Fault::None | Fault::NoEarlyData | Fault::DropEvery(_) => {}
    }
    if arm.early_data() && arm.fault != Fault::NoEarlyData {
        // rustls accepts 0-RTT only with stateful resumption and a non-zero limit; the
        // answer may go out before the handshake completes (half-RTT data).
        cfg.max_early_data_size = 16 * 1024;
        cfg.send_half_rtt_data = true;
    }
    Ok(cfg)
}

/// Client config for `arm`: trusts only the run's CA; resumption off for full arms.
pub(crate) fn client_config(arm: &ArmSpec, certs: &CertStore) -> Result<ClientConfig> {
    let (cert, _) = spec_parts(arm)?;
    let mut roots = RootCertStore::empty();
    roots.add(certs.get(cert)?.ca.clone())?;
    client_config_trusting(arm, roots)
}

/// Client config for `arm` that trusts exactly `roots`.
pub fn client_config_trusting(arm: &ArmSpec, roots: RootCertStore) -> Result<ClientConfig> {
    let (_, group) = spec_parts(arm)?;
    let mut cfg = ClientConfig::builder_with_provider(provider(group))
        .with_protocol_versions(&[version(arm.protocol())])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.resumption = match arm.mode() {
        Mode::Resumed => ClientResumption::in_memory_sessions(256)
            .tls12_resumption(Tls12Resumption::SessionIdOrTickets),
        _ => ClientResumption::disabled(),
    };
    cfg.enable_early_data = arm.early_data();
    Ok(cfg)
}

/// The certificate and group a rustls end is configured with: every kind of arm the
/// rustls ends run pins both (an unpinned arm is another stack's or a probed server's).
fn spec_parts(arm: &ArmSpec) -> Result<(shared::CertKind, KxGroup)> {
    arm.kind.pinned().with_context(|| {
        format!("TLS arm {arm} pins no certificate and group: not an arm rustls runs here")
    })
}

pub(crate) fn facts(conn: &rustls::CommonState) -> Option<Handshake> {
    Some(Handshake {
        cipher_suite: conn.negotiated_cipher_suite().map(|s| s.suite()),
        ..Handshake::seen(
            conn.handshake_kind()?,
            conn.protocol_version(),
            conn.negotiated_key_exchange_group().map(|g| g.name()),
        )
    })
}
