//! Certificates made in memory for each run: a CA and a `localhost` leaf per key kind.
//! Private keys never leave memory.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, RsaKeySize, SignatureAlgorithm,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use shared::CertKind;

/// A CA certificate and a leaf for `localhost` / `127.0.0.1` signed by it.
pub struct CertSet {
    pub ca: CertificateDer<'static>,
    /// The CA certificate as PEM (for `collector serve`, which hands it to clients).
    pub ca_pem: String,
    pub leaf: CertificateDer<'static>,
    leaf_key: PrivatePkcs8KeyDer<'static>,
}

impl CertSet {
    pub fn leaf_key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.leaf_key.clone_key())
    }
}

/// The certificates of one run, one [`CertSet`] per kind asked for.
#[derive(Default)]
pub struct CertStore {
    sets: BTreeMap<CertKind, CertSet>,
}

impl CertStore {
    pub fn generate(kinds: impl IntoIterator<Item = CertKind>) -> Result<Self> {
        let mut sets = BTreeMap::new();
        for kind in kinds {
            if let std::collections::btree_map::Entry::Vacant(slot) = sets.entry(kind) {
                slot.insert(
                    generate(kind)
                        .with_context(|| format!("generating the {kind} certificates"))?,
                );
            }
        }
        Ok(CertStore { sets })
    }

    /// Every CA certificate of the run as one PEM bundle (no private key).
    pub fn ca_bundle(&self) -> String {
        self.sets.values().map(|s| s.ca_pem.as_str()).collect()
    }

    pub fn get(&self, kind: CertKind) -> Result<&CertSet> {
        self.sets
            .get(&kind)
            .with_context(|| format!("no {kind} certificate was generated for this run"))
    }
}

/// The signature algorithm a CA and leaf of `kind` use.
pub fn algorithm(kind: CertKind) -> &'static SignatureAlgorithm {
    match kind {
        CertKind::Rsa2048 | CertKind::Rsa3072 | CertKind::Rsa4096 => &rcgen::PKCS_RSA_SHA256,
        CertKind::EcdsaP256 => &rcgen::PKCS_ECDSA_P256_SHA256,
        CertKind::EcdsaP384 => &rcgen::PKCS_ECDSA_P384_SHA384,
        CertKind::Ed25519 => &rcgen::PKCS_ED25519,
    }
}

/// How the certificates of a run are made, in words (recorded in the evidence).
pub const DESCRIPTION: &str = "generated in memory per run with rcgen (aws-lc-rs): a CA (basic constraints CA, key cert sign) and a leaf (not a CA, serverAuth, SAN localhost + 127.0.0.1) of the same key kind signed by it; the server sends the leaf only, the client trusts only the CA and verifies chain and name with rustls's WebPKI verifier";

pub fn key_pair(kind: CertKind) -> Result<KeyPair, rcgen::Error> {
    let size = match kind {
        CertKind::Rsa2048 => RsaKeySize::_2048,
        CertKind::Rsa3072 => RsaKeySize::_3072,
        CertKind::Rsa4096 => RsaKeySize::_4096,
        _ => return KeyPair::generate_for(algorithm(kind)),
    };
    KeyPair::generate_rsa_for(algorithm(kind), size)
}

fn generate(kind: CertKind) -> Result<CertSet> {
    let ca_key = key_pair(kind)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, format!("Handshake Lab CA ({kind})"));
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = ca_params.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let leaf_key = key_pair(kind)?;
    let mut leaf_params =
        CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])?;
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf_params.is_ca = IsCa::ExplicitNoCa;
    leaf_params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf = leaf_params.signed_by(&leaf_key, &issuer)?;

    Ok(CertSet {
        ca: ca.der().clone(),
        ca_pem: ca.pem(),
        leaf: leaf.der().clone(),
        leaf_key: PrivatePkcs8KeyDer::from(leaf_key.serialize_der()),
    })
}
