//! Which certificate kinds and key-exchange groups the arms cover: the flags `run` and
//! `serve` share.

use clap::Args;
use shared::{CertKind, KxGroup};

/// Which certificate kinds and key-exchange groups the arms cover.
#[derive(Debug, Clone, Args)]
pub struct ArmSet {
    /// Certificate kinds, comma-separated: rsa2048, rsa3072, rsa4096, ecdsa-p256,
    /// ecdsa-p384, ed25519. Each gets its own CA and leaf, made in memory for this run.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "rsa2048,ecdsa-p256"
    )]
    pub certs: Vec<CertKind>,

    /// Key-exchange groups, comma-separated: x25519, secp256r1, secp384r1, x25519mlkem768
    /// (the post-quantum hybrid). Each arm pins exactly one on both ends and checks the
    /// negotiated one on every connection, so TLS 1.2 and 1.3 compare like with like;
    /// TLS 1.2 arms skip x25519mlkem768 (TLS 1.3 only).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "x25519,x25519mlkem768"
    )]
    pub groups: Vec<KxGroup>,
}
