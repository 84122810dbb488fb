//! Timing the public-key primitives a handshake uses, with the same crypto library
//! (aws-lc-rs) rustls uses in this build: the key exchanges here, the signatures in
//! [`super::signatures`].

use std::time::Instant;

use anyhow::{anyhow, Result};
use aws_lc_rs::agreement::{self, EphemeralPrivateKey, UnparsedPublicKey};
use aws_lc_rs::kem::{Ciphertext, DecapsulationKey, ML_KEM_768};
use aws_lc_rs::rand::SystemRandom;
use shared::{KxGroup, Primitive};

use crate::stats;

/// One primitive's timed operations, in µs, in the order taken.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    pub name: String,
    pub samples_us: Vec<f64>,
}

impl Timed {
    pub(super) fn new(name: impl Into<String>, samples_us: Vec<f64>) -> Self {
        Timed {
            name: name.into(),
            samples_us,
        }
    }

    /// The evidence record of one pass: operations timed and their median.
    pub fn primitive(&self) -> Primitive {
        Primitive {
            name: self.name.clone(),
            ops: self.samples_us.len() as u64,
            median_us: median(&self.samples_us),
            median_before_us: None,
            median_after_us: None,
        }
    }
}

fn samples_of<'a>(pass: &'a [Timed], name: &str) -> Option<&'a [f64]> {
    pass.iter()
        .find(|t| t.name == name)
        .map(|t| t.samples_us.as_slice())
}

fn median(samples: &[f64]) -> f64 {
    stats::median_in_place(&mut samples.to_vec())
}

/// The evidence records of two passes of the same primitives, one timed before the arms
/// and one after: each pass's median, and the median of both pooled (what the floor
/// uses). A primitive timed in one pass only keeps that pass's numbers.
pub fn pooled(before: &[Timed], after: &[Timed]) -> Vec<Primitive> {
    let mut names: Vec<&str> = after.iter().map(|t| t.name.as_str()).collect();
    for t in before {
        if !names.contains(&t.name.as_str()) {
            names.push(&t.name);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let find = |pass| samples_of(pass, name);
            let (b, a) = (find(before), find(after));
            let all: Vec<f64> = b.into_iter().chain(a).flatten().copied().collect();
            Primitive {
                name: name.to_string(),
                ops: all.len() as u64,
                median_us: median(&all),
                median_before_us: b.map(median),
                median_after_us: a.map(median),
            }
        })
        .collect()
}

/// `ops` timed calls of `op` (µs each) after a short warm-up. `prepare` makes each
/// call's input outside the timed region.
pub(super) fn time_op<T>(
    ops: usize,
    mut prepare: impl FnMut() -> Result<T>,
    mut op: impl FnMut(T) -> Result<()>,
) -> Result<Vec<f64>> {
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
    Ok(samples)
}

fn unspecified<E: std::fmt::Debug>(what: &'static str) -> impl Fn(E) -> anyhow::Error {
    move |e| anyhow!("{what}: {e:?}")
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
pub fn time_key_exchange(group: KxGroup, ops: usize) -> Result<Vec<Timed>> {
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
    out.push(Timed::new(keygen_name, t));
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
    out.push(Timed::new(agree_name, t));
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
        out.push(Timed::new(MLKEM_KEYGEN, t));
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
        out.push(Timed::new(MLKEM_ENCAPSULATE, t));
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
        out.push(Timed::new(MLKEM_DECAPSULATE, t));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_passes_are_pooled_and_each_keeps_its_median() {
        let before = [
            Timed::new("a", vec![10.0, 11.0, 12.0]),
            Timed::new("only-before", vec![5.0]),
        ];
        let after = [Timed::new("a", vec![20.0, 21.0, 22.0, 23.0, 24.0])];
        let p = pooled(&before, &after);
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "only-before"]);
        // Pooled: 10 11 12 20 21 22 23 24; the nearest-rank median is the 4th of 8.
        assert_eq!((p[0].ops, p[0].median_us), (8, 20.0));
        assert_eq!(p[0].median_before_us, Some(11.0));
        assert_eq!(p[0].median_after_us, Some(22.0));
        assert_eq!(
            (
                p[1].ops,
                p[1].median_us,
                p[1].median_before_us,
                p[1].median_after_us
            ),
            (1, 5.0, Some(5.0), None)
        );
    }
}
