//! The speed probe: a fixed compute kernel timed before every chunk, so that chunks the
//! guest ran in a slower mode (these VMs switch between two compute speeds within a run:
//! an X25519 agreement takes 30 or 45 µs) are visible per arm, and arms compared with
//! each other can be flagged when their chunks ran in different modes.

use std::time::Instant;

use aws_lc_rs::agreement::{self, EphemeralPrivateKey, UnparsedPublicKey};
use aws_lc_rs::rand::SystemRandom;
use shared::SpeedProbe;

/// What the probe runs and how many times per chunk (recorded in the run's settings).
pub const KIND: SpeedProbe = SpeedProbe::X25519KeygenAgree;
pub const OPERATIONS: u64 = 20;

/// Something that says how fast the CPU is right now (µs per operation), or None.
pub trait Probe {
    fn time(&mut self) -> Option<f64>;
}

/// The real probe: `OPERATIONS` X25519 key generations + agreements against one fixed
/// peer key, each timed, the median kept (one preempted operation does not move it).
pub struct X25519 {
    rng: SystemRandom,
    peer_public: Vec<u8>,
}

impl X25519 {
    pub fn new() -> Option<X25519> {
        let rng = SystemRandom::new();
        let peer = EphemeralPrivateKey::generate(&agreement::X25519, &rng).ok()?;
        let peer_public = peer.compute_public_key().ok()?.as_ref().to_vec();
        Some(X25519 { rng, peer_public })
    }

    fn once(&self) -> Option<()> {
        let k = EphemeralPrivateKey::generate(&agreement::X25519, &self.rng).ok()?;
        agreement::agree_ephemeral(
            k,
            UnparsedPublicKey::new(&agreement::X25519, &self.peer_public),
            (),
            |secret| Ok(std::hint::black_box(secret.len())),
        )
        .ok()
        .map(drop)
    }
}

impl Probe for X25519 {
    fn time(&mut self) -> Option<f64> {
        let mut us = Vec::with_capacity(OPERATIONS as usize);
        for _ in 0..OPERATIONS {
            let start = Instant::now();
            self.once()?;
            us.push(start.elapsed().as_nanos() as f64 / 1000.0);
        }
        Some((crate::stats::median_in_place(&mut us) * 10.0).round() / 10.0)
    }
}

/// No probe (a loop that does not time one: tests, or where X25519 is unavailable).
pub struct Off;

impl Probe for Off {
    fn time(&mut self) -> Option<f64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_times_real_agreements() {
        let mut p = X25519::new().expect("X25519 is available");
        let us = p.time().expect("timed");
        // An X25519 keygen + agreement is tens of µs on any machine this runs on; the
        // bounds only say the probe timed work (not nothing, not a sleep).
        assert!(us > 0.5 && us < 50_000.0, "{us}");
    }
}
