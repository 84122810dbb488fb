//! The run's certificates as PEM files in the private folder, for peer tools to load.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;
use shared::CertKind;

use super::private_dir::PrivateDir;
use crate::certs::CertStore;

/// One certificate kind's PEM files in the private folder (each 0600).
#[derive(Debug, Clone)]
pub struct PemFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

/// Writes each cert kind's leaf, key and CA as PEM (0600) into `dir`.
pub fn write_files(
    dir: &PrivateDir,
    store: &CertStore,
    certs: &[CertKind],
) -> Result<BTreeMap<CertKind, PemFiles>> {
    let mut out = BTreeMap::new();
    for &kind in certs {
        if out.contains_key(&kind) {
            continue;
        }
        let set = store.get(kind)?;
        let pem = |tag: &str, der: &[u8]| pem::encode(&pem::Pem::new(tag, der.to_vec()));
        let files = PemFiles {
            cert: dir.write(
                &format!("{kind}-leaf.pem"),
                pem("CERTIFICATE", set.leaf.as_ref()).as_bytes(),
            )?,
            key: dir.write(
                &format!("{kind}-key.pem"),
                pem("PRIVATE KEY", set.leaf_key().secret_der()).as_bytes(),
            )?,
            ca: dir.write(
                &format!("{kind}-ca.pem"),
                pem("CERTIFICATE", set.ca.as_ref()).as_bytes(),
            )?,
        };
        out.insert(kind, files);
    }
    Ok(out)
}
