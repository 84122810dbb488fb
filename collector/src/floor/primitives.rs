//! Timing the public-key primitives a handshake uses, with the same crypto library
//! (aws-lc-rs) rustls uses in this build.

use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use aws_lc_rs::agreement::{self, EphemeralPrivateKey, UnparsedPublicKey};
use aws_lc_rs::kem::{Ciphertext, DecapsulationKey, ML_KEM_768};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use shared::{CertKind, KxGroup, Primitive};

use crate::measure::stats;

/// Median time of one call of `op`, over `ops` timed calls after a short warm-up.
/// `prepare` makes each call's input outside the timed region.
fn time_op<T>(
    ops: usize,
    mut prepare: impl FnMut() -> Result<T>,
    mut op: impl FnMut(T) -> Result<()>,
) -> Result<f64> {
    for _ in 0..ops.min(10) {
        op(prepare()?)?;
    }
    let mut samples = Vec::with_capacity(ops);
    for _ in 0..ops {
        let input = prepare()?;
        let start = Instant::now();
        op(input)?;
        samples.push(start.elapsed().as_nanos() as f64 / 1000.0);
    }
    Ok(stats::median_in_place(&mut samples))
}

fn unspecified<E: std::fmt::Debug>(what: &'static str) -> impl Fn(E) -> anyhow::Error {
    move |e| anyhow!("{what}: {e:?}")
}

/// Names of the primitives used by a cert kind: (handshake sign, handshake verify, chain verify).
pub fn sig_names(cert: CertKind) -> (String, String, String) {
    let c = cert.as_str();
    match cert {
        CertKind::Rsa2048 | CertKind::Rsa3072 | CertKind::Rsa4096 => (
            format!("{c}-sign-pss"),
            format!("{c}-verify-pss"),
            format!("{c}-verify-pkcs1"),
        ),
        _ => (
            format!("{c}-sign"),
            format!("{c}-verify"),
            format!("{c}-verify"),
        ),
    }
}

/// Times the signature primitives of `cert` (keys made like the run's certificates).
pub fn time_signatures(cert: CertKind, ops: usize) -> Result<Vec<Primitive>> {
    let key = rcgen_key(cert)?;
    let pkcs8 = key.serialize_der();
    let msg = [0x5au8; 130]; // about the size of a TLS 1.3 CertificateVerify input
    let rng = SystemRandom::new();
    let (sign_name, verify_name, chain_name) = sig_names(cert);
    let sign_ops = match cert {
        CertKind::Rsa4096 => ops / 4,
        CertKind::Rsa3072 => ops / 2,
        _ => ops,
    }
    .max(10);
    let mut out = Vec::new();
    let mut push = |name: &str, ops: usize, median_us: f64| {
        out.push(Primitive {
            name: name.to_string(),
            ops: ops as u64,
            median_us,
        })
    };
    match cert {
        CertKind::Rsa2048 | CertKind::Rsa3072 | CertKind::Rsa4096 => {
            let kp = RsaKeyPair::from_pkcs8(&pkcs8).map_err(unspecified("RSA key"))?;
            let mut sig = vec![0u8; kp.public_modulus_len()];
            let t = time_op(
                sign_ops,
                || Ok(()),
                |_| {
                    kp.sign(&signature::RSA_PSS_SHA256, &rng, &msg, &mut sig)
                        .map_err(unspecified("RSA sign"))
                },
            )?;
            push(&sign_name, sign_ops, t);
            let pss = UnparsedSig(kp.public_key().as_ref().to_vec(), sig.clone());
            let t = time_op(
                ops,
                || Ok(()),
                |_| pss.verify(&signature::RSA_PSS_2048_8192_SHA256, &msg),
            )?;
            push(&verify_name, ops, t);
            let mut pkcs1 = vec![0u8; kp.public_modulus_len()];
            kp.sign(&signature::RSA_PKCS1_SHA256, &rng, &msg, &mut pkcs1)
                .map_err(unspecified("RSA sign"))?;
            let chain = UnparsedSig(kp.public_key().as_ref().to_vec(), pkcs1);
            let t = time_op(
                ops,
                || Ok(()),
                |_| chain.verify(&signature::RSA_PKCS1_2048_8192_SHA256, &msg),
            )?;
            push(&chain_name, ops, t);
        }
        CertKind::EcdsaP256 | CertKind::EcdsaP384 => {
            let (signing, verifying) = if cert == CertKind::EcdsaP256 {
                (
                    &signature::ECDSA_P256_SHA256_ASN1_SIGNING,
                    &signature::ECDSA_P256_SHA256_ASN1,
                )
            } else {
                (
                    &signature::ECDSA_P384_SHA384_ASN1_SIGNING,
                    &signature::ECDSA_P384_SHA384_ASN1,
                )
            };
            let kp = EcdsaKeyPair::from_pkcs8(signing, &pkcs8).map_err(unspecified("ECDSA key"))?;
            let t = time_op(
                sign_ops,
                || Ok(()),
                |_| {
                    kp.sign(&rng, &msg)
                        .map(drop)
                        .map_err(unspecified("ECDSA sign"))
                },
            )?;
            push(&sign_name, sign_ops, t);
            let sig = kp.sign(&rng, &msg).map_err(unspecified("ECDSA sign"))?;
            let v = UnparsedSig(kp.public_key().as_ref().to_vec(), sig.as_ref().to_vec());
            let t = time_op(ops, || Ok(()), |_| v.verify(verifying, &msg))?;
            push(&verify_name, ops, t);
        }
        CertKind::Ed25519 => {
            let kp = Ed25519KeyPair::from_pkcs8(&pkcs8).map_err(unspecified("Ed25519 key"))?;
            let t = time_op(
                sign_ops,
                || Ok(()),
                |_| {
                    std::hint::black_box(kp.sign(&msg));
                    Ok(())
                },
            )?;
            push(&sign_name, sign_ops, t);
            let v = UnparsedSig(
                kp.public_key().as_ref().to_vec(),
                kp.sign(&msg).as_ref().to_vec(),
            );
            let t = time_op(ops, || Ok(()), |_| v.verify(&signature::ED25519, &msg))?;
            push(&verify_name, ops, t);
        }
    }
    Ok(out)
}

struct UnparsedSig(Vec<u8>, Vec<u8>);

impl UnparsedSig {
    fn verify(&self, alg: &'static dyn signature::VerificationAlgorithm, msg: &[u8]) -> Result<()> {
        signature::UnparsedPublicKey::new(alg, &self.0)
            .verify(msg, &self.1)
            .map_err(|e| anyhow!("verification failed: {e:?}"))
    }
}

fn rcgen_key(cert: CertKind) -> Result<rcgen::KeyPair> {
    crate::certs::key_pair(cert).with_context(|| format!("making a {cert} key"))
}

/// Names of a classic ECDHE group's primitives: (keygen, agree).
pub fn ecdh_names(group: &str) -> (String, String) {
    (format!("{group}-keygen"), format!("{group}-agree"))
}

pub const MLKEM_KEYGEN: &str = "mlkem768-keygen";
pub const MLKEM_ENCAPSULATE: &str = "mlkem768-encapsulate";
pub const MLKEM_DECAPSULATE: &str = "mlkem768-decapsulate";

/// The classic ECDHE curve behind a group (the hybrid's classic half is X25519).
pub fn ecdh_curve(group: KxGroup) -> (&'static str, &'static agreement::Algorithm) {
    match group {
        KxGroup::X25519 | KxGroup::X25519Mlkem768 => ("x25519", &agreement::X25519),
        KxGroup::Secp256r1 => ("secp256r1", &agreement::ECDH_P256),
        KxGroup::Secp384r1 => ("secp384r1", &agreement::ECDH_P384),
    }
}

/// Times the key-exchange primitives of `group` (the hybrid: X25519 and ML-KEM-768).
pub fn time_key_exchange(group: KxGroup, ops: usize) -> Result<Vec<Primitive>> {
    let rng = SystemRandom::new();
    let (curve_name, curve) = ecdh_curve(group);
    let (keygen_name, agree_name) = ecdh_names(curve_name);
    let mut out = Vec::new();
    let t = time_op(
        ops,
        || Ok(()),
        |_| {
            let k = EphemeralPrivateKey::generate(curve, &rng).map_err(unspecified("keygen"))?;
            k.compute_public_key()
                .map(drop)
                .map_err(unspecified("public key"))
        },
    )?;
    out.push(Primitive {
        name: keygen_name,
        ops: ops as u64,
        median_us: t,
    });
    let peer = EphemeralPrivateKey::generate(curve, &rng).map_err(unspecified("keygen"))?;
    let peer_public = peer
        .compute_public_key()
        .map_err(unspecified("public key"))?
        .as_ref()
        .to_vec();
    let t = time_op(
        ops,
        || EphemeralPrivateKey::generate(curve, &rng).map_err(unspecified("keygen")),
        |k| {
            agreement::agree_ephemeral(
                k,
                UnparsedPublicKey::new(curve, &peer_public),
                anyhow!("agree"),
                |_| Ok(()),
            )
        },
    )?;
    out.push(Primitive {
        name: agree_name,
        ops: ops as u64,
        median_us: t,
    });
    if group == KxGroup::X25519Mlkem768 {
        let t = time_op(
            ops,
            || Ok(()),
            |_| {
                let dk = DecapsulationKey::generate(&ML_KEM_768)
                    .map_err(unspecified("ML-KEM keygen"))?;
                dk.encapsulation_key()
                    .map(drop)
                    .map_err(unspecified("ML-KEM public key"))
            },
        )?;
        out.push(Primitive {
            name: MLKEM_KEYGEN.into(),
            ops: ops as u64,
            median_us: t,
        });
        let dk = DecapsulationKey::generate(&ML_KEM_768).map_err(unspecified("ML-KEM keygen"))?;
        let ek = dk
            .encapsulation_key()
            .map_err(unspecified("ML-KEM public key"))?;
        let t = time_op(
            ops,
            || Ok(()),
            |_| {
                ek.encapsulate()
                    .map(drop)
                    .map_err(unspecified("encapsulate"))
            },
        )?;
        out.push(Primitive {
            name: MLKEM_ENCAPSULATE.into(),
            ops: ops as u64,
            median_us: t,
        });
        let t = time_op(
            ops,
            || {
                Ok(ek
                    .encapsulate()
                    .map_err(unspecified("encapsulate"))?
                    .0
                    .as_ref()
                    .to_vec())
            },
            |ct| {
                dk.decapsulate(Ciphertext::from(ct.as_slice()))
                    .map(drop)
                    .map_err(unspecified("decapsulate"))
            },
        )?;
        out.push(Primitive {
            name: MLKEM_DECAPSULATE.into(),
            ops: ops as u64,
            median_us: t,
        });
    }
    Ok(out)
}
