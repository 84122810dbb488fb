//! Certificates made in memory for each run: per key kind a root CA, `--chain-depth`
//! intermediate CAs below it and a `localhost` leaf at the bottom. The server sends the
//! leaf and the intermediates; the client trusts only the root. Private keys never leave
//! memory.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use rcgen::{
    BasicConstraints, CertificateParams, CidrSubnet, DnType, ExtendedKeyUsagePurpose,
    GeneralSubtree, IsCa, Issuer, KeyPair, KeyUsagePurpose, NameConstraints, RsaKeySize,
    SignatureAlgorithm,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use shared::CertKind;

/// Most intermediates `--chain-depth` allows: three already put an RSA-4096 or ML-DSA-87
/// chain well past TCP's initial window, which is what chains are measured for.
pub const MAX_CHAIN_DEPTH: u8 = 3;

/// A root CA, the intermediates it vouches for and a leaf for `localhost` / `127.0.0.1`
/// at the end of that chain.
pub struct CertSet {
    /// The root: the only certificate a client of the run trusts. Never sent.
    pub ca: CertificateDer<'static>,
    /// The root as PEM (for `collector serve`, which hands it to clients).
    pub ca_pem: String,
    pub leaf: CertificateDer<'static>,
    /// The intermediate CAs, in the order the server sends them: the leaf's issuer first,
    /// the one the root signed last. Empty at chain depth 0.
    pub intermediates: Vec<CertificateDer<'static>>,
    pub(crate) leaf_key: PrivatePkcs8KeyDer<'static>,
}

impl CertSet {
    pub fn leaf_key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.leaf_key.clone_key())
    }

    /// What the server sends in its Certificate message: the leaf, then the intermediates.
    pub fn chain(&self) -> Vec<CertificateDer<'static>> {
        std::iter::once(self.leaf.clone())
            .chain(self.intermediates.iter().cloned())
            .collect()
    }

    /// The DER bytes of [`CertSet::chain`], summed.
    pub fn chain_bytes(&self) -> usize {
        self.leaf.len() + self.intermediates.iter().map(|c| c.len()).sum::<usize>()
    }
}

/// The certificates of one run, one [`CertSet`] per kind asked for, all with the same
/// number of intermediates.
#[derive(Default)]
pub struct CertStore {
    sets: BTreeMap<CertKind, CertSet>,
    depth: u8,
}

impl CertStore {
    /// Root and leaf per kind, no intermediate (chain depth 0).
    pub fn generate(kinds: impl IntoIterator<Item = CertKind>) -> Result<Self> {
        CertStore::chained(kinds, 0)
    }

    /// Root, `depth` intermediates and a leaf per kind; `depth` at most [`MAX_CHAIN_DEPTH`].
    pub fn chained(kinds: impl IntoIterator<Item = CertKind>, depth: u8) -> Result<Self> {
        if depth > MAX_CHAIN_DEPTH {
            bail!("a chain depth of {depth} intermediates: at most {MAX_CHAIN_DEPTH} are made");
        }
        let mut sets = BTreeMap::new();
        for kind in kinds {
            if let std::collections::btree_map::Entry::Vacant(slot) = sets.entry(kind) {
                slot.insert(generate(kind, depth).with_context(|| {
                    format!("generating the {kind} certificates ({depth} intermediates)")
                })?);
            }
        }
        Ok(CertStore { sets, depth })
    }

    /// A store of `sets` (handed over by the process that made them, all of one depth).
    pub(crate) fn from_sets(sets: BTreeMap<CertKind, CertSet>) -> Self {
        let depth = sets.values().map(|s| s.intermediates.len() as u8).max();
        CertStore {
            sets,
            depth: depth.unwrap_or(0),
        }
    }

    /// Intermediates between each root and its leaf.
    pub fn depth(&self) -> u8 {
        self.depth
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

/// The signature algorithm every certificate of `kind`'s chain uses.
pub fn algorithm(kind: CertKind) -> &'static SignatureAlgorithm {
    match kind {
        CertKind::Rsa2048 | CertKind::Rsa3072 | CertKind::Rsa4096 => &rcgen::PKCS_RSA_SHA256,
        CertKind::EcdsaP256 => &rcgen::PKCS_ECDSA_P256_SHA256,
        CertKind::EcdsaP384 => &rcgen::PKCS_ECDSA_P384_SHA384,
        CertKind::Ed25519 => &rcgen::PKCS_ED25519,
        CertKind::MlDsa44 => &rcgen::PKCS_ML_DSA_44,
        CertKind::MlDsa65 => &rcgen::PKCS_ML_DSA_65,
        CertKind::MlDsa87 => &rcgen::PKCS_ML_DSA_87,
    }
}

/// Whether `kind` is an ML-DSA (post-quantum) key.
pub fn ml_dsa(kind: CertKind) -> bool {
    matches!(
        kind,
        CertKind::MlDsa44 | CertKind::MlDsa65 | CertKind::MlDsa87
    )
}

/// Whether `kind` can sign a TLS 1.2 handshake: ML-DSA has TLS 1.3 signature schemes only.
pub fn tls12_capable(kind: CertKind) -> bool {
    !ml_dsa(kind)
}

/// How the certificates of a run are made, in words (recorded in the evidence).
pub const DESCRIPTION: &str = "generated in memory per run with rcgen (aws-lc-rs), valid from an hour before the run to a day after: per key kind a root CA (basic constraints CA with path length = the chain depth, key cert sign, name constraints permitting only DNS localhost and IP 127.0.0.1), settings.extra.chain_depth intermediate CAs below it (each a CA with path length one less than its issuer's, key cert sign) and a leaf (not a CA, serverAuth, SAN localhost + 127.0.0.1), every certificate of the chain of the same key kind; the server sends the leaf and the intermediates (leaf first), the client trusts only the root and verifies chain and name with rustls's WebPKI verifier";

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

/// The run's root CA of `kind`: a CA for `localhost` and `127.0.0.1` only (name
/// constraints), valid for a day, that allows `depth` intermediates below it.
fn ca(kind: CertKind, depth: u8) -> Result<(rcgen::Certificate, Issuer<'static, KeyPair>)> {
    let ca_key = key_pair(kind)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, format!("Handshake Lab CA ({kind})"));
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(depth));
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

/// An intermediate CA of `kind`, number `n` below the root, signed by `issuer`, that
/// allows `below` more intermediates under it.
fn intermediate(
    kind: CertKind,
    n: u8,
    below: u8,
    issuer: &Issuer<'static, KeyPair>,
) -> Result<(rcgen::Certificate, Issuer<'static, KeyPair>)> {
    let key = key_pair(kind)?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(
        DnType::CommonName,
        format!("Handshake Lab intermediate {n} ({kind})"),
    );
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(below));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    set_validity(&mut params);
    let cert = params.signed_by(&key, issuer)?;
    Ok((cert, Issuer::new(params, key)))
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

/// A root, `depth` intermediates and a leaf of `kind`: (root, intermediates in the order
/// a server sends them, the leaf and its key).
fn chain(
    kind: CertKind,
    depth: u8,
) -> Result<(
    rcgen::Certificate,
    Vec<rcgen::Certificate>,
    rcgen::Certificate,
    KeyPair,
)> {
    let (root, mut issuer) = ca(kind, depth)?;
    let mut intermediates = Vec::new();
    for n in 1..=depth {
        let (cert, next) = intermediate(kind, n, depth - n, &issuer)?;
        intermediates.push(cert);
        issuer = next;
    }
    // Sent leaf first: the leaf's issuer (the last made) comes first.
    intermediates.reverse();
    let (leaf, leaf_key) = leaf(kind, &LEAF_NAMES, &issuer)?;
    Ok((root, intermediates, leaf, leaf_key))
}

fn generate(kind: CertKind, depth: u8) -> Result<CertSet> {
    let (root, intermediates, leaf, leaf_key) = chain(kind, depth)?;
    Ok(CertSet {
        ca: root.der().clone(),
        ca_pem: root.pem(),
        leaf: leaf.der().clone(),
        intermediates: intermediates.iter().map(|c| c.der().clone()).collect(),
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
        verify_chain(ca.der(), leaf, &[], name, at)
    }

    /// Whether a client that trusts only `root` accepts `leaf` sent with `intermediates`.
    fn verify_chain(
        root: &CertificateDer<'static>,
        leaf: &CertificateDer<'static>,
        intermediates: &[CertificateDer<'static>],
        name: &str,
        at: UnixTime,
    ) -> Result<(), rustls::Error> {
        let mut roots = RootCertStore::empty();
        roots.add(root.clone()).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .unwrap();
        let name = ServerName::try_from(name.to_string()).unwrap();
        verifier
            .verify_server_cert(leaf, intermediates, &name, &[], at)
            .map(|_| ())
    }

    #[test]
    fn the_ca_vouches_only_for_localhost_and_only_for_a_day() {
        let (ca, issuer) = ca(CertKind::EcdsaP256, 0).unwrap();
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

    #[test]
    fn a_chain_of_depth_n_has_n_intermediates_and_verifies_against_the_root_alone() {
        let now = UnixTime::now();
        for (kind, depth) in [
            (CertKind::EcdsaP256, 0),
            (CertKind::EcdsaP256, 1),
            (CertKind::EcdsaP256, 3),
            (CertKind::MlDsa44, 2),
        ] {
            let store = CertStore::chained([kind], depth).unwrap();
            let set = store.get(kind).unwrap();
            assert_eq!(
                set.intermediates.len(),
                usize::from(depth),
                "{kind} {depth}"
            );
            let chain = set.chain();
            assert_eq!(chain.len(), usize::from(depth) + 1);
            assert_eq!(chain[0], set.leaf, "the leaf goes first");
            assert!(!chain.contains(&set.ca), "the root is never sent");
            assert_eq!(
                set.chain_bytes(),
                chain.iter().map(|c| c.len()).sum::<usize>()
            );
            verify_chain(&set.ca, &set.leaf, &set.intermediates, "localhost", now)
                .unwrap_or_else(|e| panic!("{kind} depth {depth}: {e:?}"));
            if depth > 0 {
                // Without the intermediates the root alone cannot vouch for the leaf.
                let err = verify_chain(&set.ca, &set.leaf, &[], "localhost", now)
                    .expect_err("intermediates missing");
                assert!(format!("{err:?}").contains("UnknownIssuer"), "{err:?}");
            }
        }
    }

    #[test]
    fn a_chain_under_another_root_is_refused() {
        let ours = CertStore::chained([CertKind::EcdsaP256], 2).unwrap();
        let theirs = CertStore::chained([CertKind::EcdsaP256], 2).unwrap();
        let (ours, theirs) = (
            ours.get(CertKind::EcdsaP256).unwrap(),
            theirs.get(CertKind::EcdsaP256).unwrap(),
        );
        let err = verify_chain(
            &ours.ca,
            &theirs.leaf,
            &theirs.intermediates,
            "localhost",
            UnixTime::now(),
        )
        .expect_err("another run's chain");
        // The other root has the same name, so the verifier tries it and finds the
        // signature not its own.
        assert!(
            matches!(
                err,
                rustls::Error::InvalidCertificate(
                    rustls::CertificateError::BadSignature
                        | rustls::CertificateError::UnknownIssuer
                )
            ),
            "{err:?}"
        );
    }

    #[test]
    fn post_quantum_chains_are_larger_and_deeper_than_the_limit_is_refused() {
        let store = CertStore::chained([CertKind::EcdsaP256, CertKind::MlDsa87], 1).unwrap();
        let ec = store.get(CertKind::EcdsaP256).unwrap().chain_bytes();
        let pq = store.get(CertKind::MlDsa87).unwrap().chain_bytes();
        // Each ML-DSA-87 certificate carries a 2,592-byte key and a 4,627-byte signature.
        assert!(pq > 2 * (2592 + 4627), "{pq}");
        assert!(ec < 2000, "{ec}");
        assert_eq!(store.depth(), 1);
        let err = CertStore::chained([CertKind::EcdsaP256], MAX_CHAIN_DEPTH + 1)
            .err()
            .expect("too deep");
        assert!(err.to_string().contains("at most 3"), "{err}");
    }
}
