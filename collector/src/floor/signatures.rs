//! Signature primitives: the schemes a handshake really signs and verifies with, timed
//! with rustls's own signer and verification algorithms (aws-lc-rs in this build).

use anyhow::{anyhow, bail, Context, Result};
use rustls::crypto::aws_lc_rs as provider;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer, SignatureVerificationAlgorithm};
use rustls::SignatureScheme;
use shared::CertKind;

use super::primitives::{time_op, Timed};

/// The scheme rustls's server signs a handshake with for a `cert` key: rustls's own
/// preference among what its client offers (for RSA keys RSA-PSS-SHA512 comes first).
/// [`time_signatures`] checks this against rustls's choice for the real key on every run.
pub fn handshake_scheme(cert: CertKind) -> SignatureScheme {
    match cert {
        CertKind::Rsa2048 | CertKind::Rsa3072 | CertKind::Rsa4096 => {
            SignatureScheme::RSA_PSS_SHA512
        }
        CertKind::EcdsaP256 => SignatureScheme::ECDSA_NISTP256_SHA256,
        CertKind::EcdsaP384 => SignatureScheme::ECDSA_NISTP384_SHA384,
        CertKind::Ed25519 => SignatureScheme::ED25519,
        CertKind::MlDsa44 => SignatureScheme::ML_DSA_44,
        CertKind::MlDsa65 => SignatureScheme::ML_DSA_65,
        CertKind::MlDsa87 => SignatureScheme::ML_DSA_87,
    }
}

/// The scheme of the CA's signature on the leaf: the certificates' algorithm
/// ([`crate::certs::algorithm`]).
pub fn chain_scheme(cert: CertKind) -> SignatureScheme {
    match cert {
        CertKind::Rsa2048 | CertKind::Rsa3072 | CertKind::Rsa4096 => {
            SignatureScheme::RSA_PKCS1_SHA256
        }
        other => handshake_scheme(other),
    }
}

/// `rsa_pss_sha512`, `ecdsa_nistp256_sha256`, `ed25519`.
fn scheme_name(s: SignatureScheme) -> String {
    format!("{s:?}").to_ascii_lowercase()
}

/// Names of the primitives used by a cert kind: (handshake sign, handshake verify, chain
/// verify), each naming its signature scheme, e.g. `rsa2048-sign-rsa_pss_sha512`.
pub fn sig_names(cert: CertKind) -> (String, String, String) {
    let c = cert.as_str();
    let (hs, chain) = (
        scheme_name(handshake_scheme(cert)),
        scheme_name(chain_scheme(cert)),
    );
    (
        format!("{c}-sign-{hs}"),
        format!("{c}-verify-{hs}"),
        format!("{c}-verify-{chain}"),
    )
}

/// What the client offers in its ClientHello with this provider (TLS 1.3 leaves out the
/// PKCS#1 schemes, which rustls's server prefers least anyway).
fn offered_schemes() -> Vec<SignatureScheme> {
    provider::default_provider()
        .signature_verification_algorithms
        .supported_schemes()
}

/// The verification algorithm rustls's WebPKI verifier uses for `scheme` (the first of
/// its mapping that verifies `sig` over `msg` with `public_key`).
fn verifier(
    scheme: SignatureScheme,
    public_key: &[u8],
    msg: &[u8],
    sig: &[u8],
) -> Result<&'static dyn SignatureVerificationAlgorithm> {
    let algs = provider::default_provider()
        .signature_verification_algorithms
        .mapping
        .iter()
        .find(|(s, _)| *s == scheme)
        .map(|(_, algs)| *algs)
        .unwrap_or_default();
    algs.iter()
        .copied()
        .find(|a| a.verify_signature(public_key, msg, sig).is_ok())
        .ok_or_else(|| anyhow!("no verification algorithm of {scheme:?} verifies the signature"))
}

/// Times the signature primitives of `cert` (keys made like the run's certificates) with
/// rustls's own signer and verification algorithms: the handshake's scheme (checked
/// against what rustls chooses for this key) and, where it differs, the chain's.
pub fn time_signatures(cert: CertKind, ops: usize) -> Result<Vec<Timed>> {
    let key = rcgen_key(cert)?;
    let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let signing = provider::default_provider()
        .key_provider
        .load_private_key(der)
        .map_err(|e| anyhow!("{cert} key: {e}"))?;
    let hs = handshake_scheme(cert);
    let chosen = signing
        .choose_scheme(&offered_schemes())
        .map(|s| s.scheme());
    if chosen != Some(hs) {
        bail!("rustls signs with {chosen:?} for a {cert} key, the crypto floor names {hs:?}");
    }
    let msg = [0x5au8; 130]; // about the size of a TLS 1.3 CertificateVerify input
    let public_key = key.public_key_raw();
    let sign_ops = match cert {
        CertKind::Rsa4096 => ops / 4,
        CertKind::Rsa3072 => ops / 2,
        _ => ops,
    }
    .max(10);
    let (sign_name, verify_name, chain_name) = sig_names(cert);
    let mut out = Vec::new();
    for (scheme, sign, verify) in [
        (hs, Some(sign_name), verify_name),
        (chain_scheme(cert), None, chain_name),
    ] {
        if out.iter().any(|t: &Timed| t.name == verify) {
            continue; // the chain uses the handshake's scheme
        }
        let signer = signing
            .choose_scheme(&[scheme])
            .ok_or_else(|| anyhow!("a {cert} key cannot sign with {scheme:?}"))?;
        let sign_once = || {
            signer
                .sign(&msg)
                .map_err(|e| anyhow!("{scheme:?} sign: {e}"))
        };
        if let Some(name) = sign {
            out.push(Timed::new(
                name,
                time_op(sign_ops, || Ok(()), |_| sign_once().map(drop))?,
            ));
        }
        let sig = sign_once()?;
        let alg = verifier(scheme, public_key, &msg, &sig)?;
        let samples = time_op(
            ops,
            || Ok(()),
            |_| {
                alg.verify_signature(public_key, &msg, &sig)
                    .map_err(|_| anyhow!("{scheme:?} verification failed"))
            },
        )?;
        out.push(Timed::new(verify, samples));
    }
    Ok(out)
}

fn rcgen_key(cert: CertKind) -> Result<rcgen::KeyPair> {
    crate::certs::key_pair(cert).with_context(|| format!("making a {cert} key"))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use rustls::server::{ClientHello, ResolvesServerCert};
    use rustls::sign::{CertifiedKey, Signer, SigningKey};
    use rustls::{ClientConnection, ServerConnection};
    use shared::{KxGroup, Mode, Protocol};

    use super::*;
    use crate::arms::rustls::{client_config, server_config};
    use crate::arms::{ArmSpec, Fault};
    use crate::certs::CertStore;

    type Seen = Arc<Mutex<Vec<SignatureScheme>>>;

    /// The server's own resolver and key, recording the scheme of every signature made.
    #[derive(Debug)]
    struct Recording(Arc<dyn ResolvesServerCert>, Seen);
    #[derive(Debug)]
    struct RecordingKey(Arc<dyn SigningKey>, Seen);
    #[derive(Debug)]
    struct RecordingSigner(Box<dyn Signer>, Seen);

    impl ResolvesServerCert for Recording {
        fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
            let ck = self.0.resolve(hello)?;
            let key = Arc::new(RecordingKey(ck.key.clone(), self.1.clone()));
            Some(Arc::new(CertifiedKey::new(ck.cert.clone(), key)))
        }
    }

    impl SigningKey for RecordingKey {
        fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
            let signer = self.0.choose_scheme(offered)?;
            Some(Box::new(RecordingSigner(signer, self.1.clone())))
        }
        fn algorithm(&self) -> rustls::SignatureAlgorithm {
            self.0.algorithm()
        }
    }

    impl Signer for RecordingSigner {
        fn sign(&self, message: &[u8]) -> std::result::Result<Vec<u8>, rustls::Error> {
            self.1.lock().unwrap().push(self.0.scheme());
            self.0.sign(message)
        }
        fn scheme(&self) -> SignatureScheme {
            self.0.scheme()
        }
    }

    /// Runs one full handshake of `spec` in memory with the arms' own configs; returns
    /// the schemes the server signed with.
    fn signed_with(spec: &ArmSpec, certs: &CertStore) -> Vec<SignatureScheme> {
        let seen = Seen::default();
        let mut scfg = server_config(spec, certs).unwrap();
        scfg.cert_resolver = Arc::new(Recording(scfg.cert_resolver.clone(), seen.clone()));
        let ccfg = client_config(spec, certs).unwrap();
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let mut client = ClientConnection::new(Arc::new(ccfg), name).unwrap();
        let mut server = ServerConnection::new(Arc::new(scfg)).unwrap();
        for _ in 0..10 {
            let mut buf = Vec::new();
            while client.wants_write() {
                client.write_tls(&mut buf).unwrap();
            }
            let mut rd = &buf[..];
            while !rd.is_empty() {
                server.read_tls(&mut rd).unwrap();
                server.process_new_packets().unwrap();
            }
            buf.clear();
            while server.wants_write() {
                server.write_tls(&mut buf).unwrap();
            }
            let mut rd = &buf[..];
            while !rd.is_empty() {
                client.read_tls(&mut rd).unwrap();
                client.process_new_packets().unwrap();
            }
            if !client.is_handshaking() && !server.is_handshaking() {
                return seen.lock().unwrap().clone();
            }
        }
        panic!("{spec}: the in-memory handshake did not complete");
    }

    #[test]
    fn the_floor_names_the_scheme_the_real_handshake_signs_with() {
        let kinds = [
            CertKind::Rsa2048,
            CertKind::EcdsaP256,
            CertKind::EcdsaP384,
            CertKind::Ed25519,
        ];
        let certs = CertStore::generate(kinds).unwrap();
        for cert in kinds {
            for protocol in [Protocol::Tls13, Protocol::Tls12] {
                let spec = ArmSpec {
                    kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
                        protocol,
                        mode: Mode::Full,
                        resumption: None,
                        cert: Some(cert),
                        group: Some(KxGroup::X25519),
                        early_data: false,
                    }),
                    fault: Fault::None,
                    phases: crate::arms::PhaseRecording::Off,
                    cpu: None,
                };
                assert_eq!(
                    signed_with(&spec, &certs),
                    [handshake_scheme(cert)],
                    "{spec}"
                );
            }
        }
    }

    #[test]
    fn signature_primitives_name_their_schemes() {
        let names: Vec<String> = time_signatures(CertKind::Rsa2048, 10)
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(
            names,
            [
                "rsa2048-sign-rsa_pss_sha512",
                "rsa2048-verify-rsa_pss_sha512",
                "rsa2048-verify-rsa_pkcs1_sha256"
            ]
        );
        let (sign, verify, chain) = sig_names(CertKind::EcdsaP384);
        assert_eq!(sign, "ecdsa-p384-sign-ecdsa_nistp384_sha384");
        assert_eq!(verify, chain, "the CA signs with the handshake's scheme");
    }
}
