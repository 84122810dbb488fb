//! Certificates made in memory for each run: a CA and a `localhost` leaf per key kind.
//! Private keys never leave memory.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use rcgen::{
    BasicConstraints, CertificateParams, CidrSubnet, DnType, ExtendedKeyUsagePurpose,
    GeneralSubtree, IsCa, Issuer, KeyPair, KeyUsagePurpose, NameConstraints, RsaKeySize,
    SignatureAlgorithm,
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
pub const DESCRIPTION: &str = "generated in memory per run with rcgen (aws-lc-rs), valid from an hour before the run to a day after: a CA (basic constraints CA with path length 0, key cert sign, name constraints permitting only DNS localhost and IP 127.0.0.1) and a leaf (not a CA, serverAuth, SAN localhost + 127.0.0.1) of the same key kind signed by it; the server sends the leaf only, the client trusts only the CA and verifies chain and name with rustls's WebPKI verifier";

pub fn key_pair(kind: CertKind) -> Result<KeyPair, rcgen::Error> {
    let size = match kind {
        CertKind::Rsa2048 => RsaKeySize::_2048,
        CertKind::Rsa3072 => RsaKeySize::_3072,
        CertKind::Rsa4096 => RsaKeySize::_4096,
        _ => return KeyPair::generate_for(algorithm(kind)),
    };
    KeyPair::generate_rsa_for(algorithm(kind), size)
}

/// How long the run's certificates are valid: from an hour before they are made (clock
/// differences between the two hosts of `collector serve`) to a day after. Someone who
/// imports the run's CA gets a CA that expires the next day.
const VALID_BEFORE: time::Duration = time::Duration::hours(1);
const VALID_FOR: time::Duration = time::Duration::days(1);

/// The names the run's leaves carry, and the only names the CA may vouch for. The client
/// always verifies the name `localhost` (also against `collector serve` on another host),
/// so the serve address never appears in a certificate.
const LEAF_NAMES: [&str; 2] = ["localhost", "127.0.0.1"];

/// The run's CA of `kind`: a CA for `localhost` and `127.0.0.1` only (name constraints),
/// valid for a day.
fn ca(kind: CertKind) -> Result<(rcgen::Certificate, Issuer<'static, KeyPair>)> {
    let ca_key = key_pair(kind)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, format!("Handshake Lab CA ({kind})"));
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.name_constraints = Some(NameConstraints {
        permitted_subtrees: vec![
            GeneralSubtree::DnsName("localhost".into()),
            GeneralSubtree::IpAddress(CidrSubnet::from_v4_prefix([127, 0, 0, 1], 32)),
        ],
        excluded_subtrees: Vec::new(),
    });
    set_validity(&mut ca_params);
    let ca = ca_params.self_signed(&ca_key)?;
    Ok((ca, Issuer::new(ca_params, ca_key)))
}

fn set_validity(params: &mut CertificateParams) {
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - VALID_BEFORE;
    params.not_after = now + VALID_FOR;
}

/// A server leaf for `names` of `kind`, signed by `issuer`.
fn leaf(
    kind: CertKind,
    names: &[&str],
    issuer: &Issuer<'static, KeyPair>,
) -> Result<(rcgen::Certificate, KeyPair)> {
    let leaf_key = key_pair(kind)?;
    let mut leaf_params =
        CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())?;
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, names[0]);
    leaf_params.is_ca = IsCa::ExplicitNoCa;
    leaf_params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    set_validity(&mut leaf_params);
    Ok((leaf_params.signed_by(&leaf_key, issuer)?, leaf_key))
}

fn generate(kind: CertKind) -> Result<CertSet> {
    let (ca, issuer) = ca(kind)?;
    let (leaf, leaf_key) = leaf(kind, &LEAF_NAMES, &issuer)?;
    Ok(CertSet {
        ca: ca.der().clone(),
        ca_pem: ca.pem(),
        leaf: leaf.der().clone(),
        leaf_key: PrivatePkcs8KeyDer::from(leaf_key.serialize_der()),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rustls::client::danger::ServerCertVerifier;
    use rustls::client::WebPkiServerVerifier;
    use rustls::pki_types::{ServerName, UnixTime};
    use rustls::RootCertStore;

    use super::*;

    fn verify(
        ca: &rcgen::Certificate,
        leaf: &CertificateDer<'static>,
        name: &str,
        at: UnixTime,
    ) -> Result<(), rustls::Error> {
        let mut roots = RootCertStore::empty();
        roots.add(ca.der().clone()).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .unwrap();
        let name = ServerName::try_from(name.to_string()).unwrap();
        verifier
            .verify_server_cert(leaf, &[], &name, &[], at)
            .map(|_| ())
    }

    #[test]
    fn the_ca_vouches_only_for_localhost_and_only_for_a_day() {
        let (ca, issuer) = ca(CertKind::EcdsaP256).unwrap();
        let (good, _) = leaf(CertKind::EcdsaP256, &LEAF_NAMES, &issuer).unwrap();
        let now = UnixTime::now();
        verify(&ca, good.der(), "localhost", now).expect("the run's own leaf verifies");
        verify(&ca, good.der(), "127.0.0.1", now).expect("by IP too");
        for other in ["example.com", "localhost.example.com"] {
            let (bad, _) = leaf(CertKind::EcdsaP256, &[other], &issuer).unwrap();
            let err = verify(&ca, bad.der(), other, now).expect_err(other);
            assert!(
                format!("{err:?}").contains("NameConstraint"),
                "{other}: {err:?}"
            );
        }
        let (bad_ip, _) = leaf(CertKind::EcdsaP256, &["10.0.0.1"], &issuer).unwrap();
        let err = verify(&ca, bad_ip.der(), "10.0.0.1", now).expect_err("10.0.0.1");
        assert!(format!("{err:?}").contains("NameConstraint"), "{err:?}");
        // Two days on, the CA and leaf have expired.
        let later =
            UnixTime::since_unix_epoch(std::time::Duration::from_secs(now.as_secs() + 2 * 86_400));
        let err = verify(&ca, good.der(), "localhost", later).expect_err("expired");
        assert!(format!("{err:?}").contains("Expired"), "{err:?}");
    }
}
