//! What the collector hands a counting process on its stdin: the arm's certificates,
//! made once by the collector (key generation under valgrind is slow and is not
//! handshake work), as PEM blocks through a pipe, never through a file. The server gets
//! its chain and the leaf's private key; the client only the root it trusts.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};
use shared::CertKind;

use crate::certs::CertSet;

/// Each block's tag is one of these, a space and the certificate kind it belongs to.
const ROOT: &str = "HLAB ROOT CERTIFICATE";
const LEAF: &str = "HLAB LEAF CERTIFICATE";
const INTERMEDIATE: &str = "HLAB INTERMEDIATE CERTIFICATE";
const KEY: &str = "HLAB LEAF PRIVATE KEY";

/// Which end a handoff is for: what it may receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum For {
    /// The roots alone.
    Client,
    /// The roots, the chains the server sends and the leaves' keys.
    Server,
}

/// The PEM text of `sets` for `end` (holding the private keys when `end` is the server).
pub fn encode<'a>(sets: impl IntoIterator<Item = (CertKind, &'a CertSet)>, end: For) -> String {
    let mut blocks = Vec::new();
    for (kind, set) in sets {
        let block = |what: &str, der: &[u8]| pem::Pem::new(format!("{what} {kind}"), der.to_vec());
        blocks.push(block(ROOT, &set.ca));
        if end == For::Server {
            blocks.push(block(LEAF, &set.leaf));
            blocks.extend(set.intermediates.iter().map(|c| block(INTERMEDIATE, c)));
            blocks.push(block(KEY, set.leaf_key.secret_pkcs8_der()));
        }
    }
    pem::encode_many(&blocks)
}

/// The roots a client trusts, by certificate kind, from its handoff.
pub fn roots(text: &str) -> Result<BTreeMap<CertKind, CertificateDer<'static>>> {
    let blocks = parse(text)?;
    let mut out = BTreeMap::new();
    for kind in kinds(&blocks) {
        out.insert(kind, CertificateDer::from(one(&blocks, ROOT, kind)?));
    }
    Ok(out)
}

/// The server's sets, by certificate kind, from its handoff.
pub fn server_sets(text: &str) -> Result<BTreeMap<CertKind, CertSet>> {
    let blocks = parse(text)?;
    let mut out = BTreeMap::new();
    for kind in kinds(&blocks) {
        let ca = CertificateDer::from(one(&blocks, ROOT, kind)?);
        let intermediates = blocks
            .iter()
            .filter(|(w, k, _)| *w == INTERMEDIATE && *k == kind)
            .map(|(_, _, der)| CertificateDer::from(der.clone()))
            .collect();
        let set = CertSet {
            ca_pem: pem::encode(&pem::Pem::new("CERTIFICATE", ca.to_vec())),
            ca,
            leaf: CertificateDer::from(one(&blocks, LEAF, kind)?),
            intermediates,
            leaf_key: PrivatePkcs8KeyDer::from(one(&blocks, KEY, kind)?),
        };
        out.insert(kind, set);
    }
    Ok(out)
}

/// Each block as (what, kind, DER).
type Block = (&'static str, CertKind, Vec<u8>);

fn parse(text: &str) -> Result<Vec<Block>> {
    let blocks = pem::parse_many(text).context("the certificates on stdin are not PEM")?;
    blocks
        .into_iter()
        .map(|b| {
            let tag = b.tag().to_string();
            let (what, kind) = [ROOT, LEAF, INTERMEDIATE, KEY]
                .into_iter()
                .find_map(|w| Some((w, tag.strip_prefix(w)?.strip_prefix(' ')?.parse().ok()?)))
                .with_context(|| format!("unexpected PEM block `{tag}` on stdin"))?;
            Ok((what, kind, b.into_contents()))
        })
        .collect()
}

/// The certificate kinds that have a root, in order.
fn kinds(blocks: &[Block]) -> Vec<CertKind> {
    let mut kinds: Vec<CertKind> = blocks
        .iter()
        .filter(|(w, _, _)| *w == ROOT)
        .map(|(_, k, _)| *k)
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

fn one(blocks: &[Block], what: &str, kind: CertKind) -> Result<Vec<u8>> {
    let mut found = blocks.iter().filter(|(w, k, _)| *w == what && *k == kind);
    match (found.next(), found.next()) {
        (Some((_, _, der)), None) => Ok(der.clone()),
        (None, _) => bail!("no `{what} {kind}` block on stdin"),
        (Some(_), Some(_)) => bail!("more than one `{what} {kind}` block on stdin"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::CertStore;

    #[test]
    fn the_server_gets_its_whole_sets_and_the_client_only_the_roots() {
        let kinds = [CertKind::EcdsaP256, CertKind::Ed25519];
        let store = CertStore::chained(kinds, 1).unwrap();
        let sets = || kinds.map(|k| (k, store.get(k).unwrap()));
        let server = server_sets(&encode(sets(), For::Server)).unwrap();
        for (kind, set) in sets() {
            let got = &server[&kind];
            assert_eq!(got.ca, set.ca);
            assert_eq!(got.leaf, set.leaf);
            assert_eq!(got.intermediates, set.intermediates);
            assert_eq!(
                got.leaf_key.secret_pkcs8_der(),
                set.leaf_key.secret_pkcs8_der()
            );
        }
        let client = encode(sets(), For::Client);
        assert!(!client.contains(KEY), "no key for the client");
        let roots = roots(&client).unwrap();
        assert_eq!(roots.len(), 2);
        assert_eq!(
            roots[&CertKind::Ed25519],
            store.get(CertKind::Ed25519).unwrap().ca
        );
        assert!(server_sets(&client).is_err(), "a client handoff has no key");
    }

    #[test]
    fn a_foreign_block_is_refused_by_name() {
        let other = pem::encode(&pem::Pem::new("CERTIFICATE", vec![1, 2]));
        let err = roots(&other).unwrap_err().to_string();
        assert!(err.contains("`CERTIFICATE`"), "{err}");
        assert!(roots("").unwrap().is_empty());
    }
}
