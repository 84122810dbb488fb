//! The stacks a run measures beside the rustls arms: one line each. The registry is the
//! driver's: the stacks' folders (`arms/<stack>/`) and what they implement
//! ([`crate::arms::peer`]) are below it and never name it.

use shared::{CertKind, KxGroup};

use crate::arms;
use crate::arms::peer::{PeerArm, PeerStack};

/// The peer stacks, in the order their arms are planned and run.
pub static STACKS: &[&dyn PeerStack] = &[
    &arms::openssl::Peer,
    &arms::python::Peer,
    &arms::nginx::Peer,
    &arms::caddy::Peer,
    &arms::gnutls::Peer,
    &arms::haproxy::Peer,
    &arms::botan::Peer,
];

/// Every peer arm of every stack for these certs and groups, before `--arms` filtering.
pub fn plan(certs: &[CertKind], groups: &[KxGroup]) -> Vec<PeerArm> {
    STACKS.iter().flat_map(|s| s.plan(certs, groups)).collect()
}

/// Stacks whose servers cannot be held to loopback, with why: left out of a run unless
/// `--arms` names their arms.
pub fn beyond_loopback() -> Vec<(&'static str, &'static str)> {
    STACKS
        .iter()
        .filter_map(|s| Some((s.name(), s.beyond_loopback()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_botan_cannot_be_held_to_loopback() {
        let wide: Vec<&str> = beyond_loopback().iter().map(|(n, _)| *n).collect();
        assert_eq!(wide, ["botan"]);
    }

    #[test]
    fn every_stack_plans_unique_ids_under_its_own_name() {
        let all = plan(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519, KxGroup::X25519Mlkem768],
        );
        let ids: Vec<&str> = all.iter().map(|a| a.id.as_str()).collect();
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{ids:#?}");
        for s in STACKS {
            assert!(
                all.iter().any(|a| a.stack == s.name()),
                "{} plans arms",
                s.name()
            );
        }
        assert!(all
            .iter()
            .all(|a| STACKS.iter().any(|s| s.name() == a.stack)));
        assert!(
            all.iter().all(|a| !a.tools.is_empty()),
            "every arm names its tools"
        );
    }
}
