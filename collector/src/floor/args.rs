//! `collector floor`'s arguments.

use clap::Args;
use shared::{CertKind, KxGroup};

use crate::limits::MAX_SAMPLES;

#[derive(Debug, Args)]
pub struct FloorArgs {
    /// Certificate kinds whose signatures to time.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "rsa2048,rsa3072,rsa4096,ecdsa-p256,ecdsa-p384,ed25519"
    )]
    pub certs: Vec<CertKind>,
    /// Key-exchange groups whose operations to time.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "x25519,secp256r1,secp384r1,x25519mlkem768"
    )]
    pub groups: Vec<KxGroup>,
    /// Timed operations per primitive (RSA-3072/4096 signing uses a half/quarter of it).
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=MAX_SAMPLES))]
    pub ops: u64,
}
