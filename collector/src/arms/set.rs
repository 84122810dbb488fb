//! The arm set: which certificate kinds and key-exchange groups the arms cover (the flags
//! `run` and `serve` share), the default arms for them, and `--arms` filtering by id.

use clap::Args;
use shared::{CertKind, KxGroup};

use super::{ArmKind, ArmSpec, Cell, HandshakeMode, Tls};

/// Which certificate kinds and key-exchange groups the arms cover.
#[derive(Debug, Clone, Args)]
pub struct ArmSet {
    /// Certificate kinds, comma-separated: rsa2048, rsa3072, rsa4096, ecdsa-p256,
    /// ecdsa-p384, ed25519, and the post-quantum ml-dsa-44, ml-dsa-65, ml-dsa-87 (FIPS 204;
    /// TLS 1.3 only, so they get no TLS 1.2 arms). Each gets its own root CA, intermediates
    /// (--chain-depth) and leaf, made in memory for this run.
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

    /// Intermediate CAs between each root and its leaf (0 to 3), all of the leaf's key
    /// kind. The server sends the leaf and the intermediates; the client trusts only the
    /// root. Long chains and post-quantum keys make the server's first flight larger than
    /// TCP's initial window, which costs a round trip on a real path (--rtt); the evidence
    /// records each arm's chain bytes and first-flight bytes. Peer stacks load the leaf
    /// alone, so with a depth above 0 their arms are skipped (with that reason).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=crate::certs::MAX_CHAIN_DEPTH as i64))]
    pub chain_depth: u8,
}

/// The default arm set: TCP connect; for each cert and group, TLS 1.3 and TLS 1.2 in
/// full, resumed-stateful and resumed-ticket modes. TLS 1.2 arms skip TLS 1.3-only groups.
///
/// With `zero_rtt` (request/response mode), each cert × TLS 1.3 group also gets a 0-RTT arm.
pub fn default_set(certs: &[CertKind], groups: &[KxGroup], zero_rtt: bool) -> Vec<ArmSpec> {
    let mut arms = vec![ArmSpec::TCP_CONNECT];
    for cell in Cell::matrix(certs, groups, &HandshakeMode::ALL) {
        arms.push(cell.spec());
        let last = cell.handshake == HandshakeMode::ALL[HandshakeMode::ALL.len() - 1];
        if zero_rtt && cell.tls == Tls::Tls13 && last {
            arms.push(ArmSpec::of(ArmKind::ZeroRtt {
                cert: cell.cert,
                group: cell.group,
            }));
        }
    }
    arms
}

/// Keeps the arms whose id matches any comma-separated pattern: `*` matches any run of
/// characters; a pattern without `*` matches anywhere in the id.
pub fn filter(arms: Vec<ArmSpec>, patterns: &str) -> Vec<ArmSpec> {
    arms.into_iter()
        .filter(|a| id_matches(&a.id(), patterns))
        .collect()
}

/// Whether `id` matches any of the comma-separated `patterns` (as in [`filter`]).
pub fn id_matches(id: &str, patterns: &str) -> bool {
    patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| {
            if p.contains('*') {
                glob(p, id)
            } else {
                id.contains(p)
            }
        })
}

fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            text.starts_with(head)
                && (0..=text.len() - head.len()).any(|i| {
                    text.is_char_boundary(head.len() + i) && glob(rest, &text[head.len() + i..])
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use shared::{Protocol, Resumption};

    use super::*;

    #[test]
    fn default_set_has_tcp_and_six_tls_arms_per_cert() {
        let arms = default_set(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519],
            false,
        );
        assert_eq!(arms.len(), 13);
        let ids: Vec<String> = arms.iter().map(ArmSpec::id).collect();
        assert!(ids.contains(&"tcp-connect".to_string()));
        assert!(ids.contains(&"tls13-resumed-ticket-ecdsa-p256-x25519".to_string()));
        assert!(ids.contains(&"tls12-resumed-stateful-rsa2048-x25519".to_string()));
        assert!(ids.contains(&"tls12-full-rsa2048-x25519".to_string()));
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "ids are unique");
    }

    #[test]
    fn request_mode_adds_a_0rtt_arm_per_tls13_cert_and_group() {
        let arms = default_set(
            &[CertKind::EcdsaP256],
            &[KxGroup::X25519, KxGroup::X25519Mlkem768],
            true,
        );
        let zero: Vec<String> = arms
            .iter()
            .filter(|a| a.early_data())
            .map(ArmSpec::id)
            .collect();
        assert_eq!(
            zero,
            [
                "tls13-0rtt-ecdsa-p256-x25519",
                "tls13-0rtt-ecdsa-p256-x25519mlkem768"
            ]
        );
        assert!(arms.iter().filter(|a| a.early_data()).all(
            |a| a.protocol() == Protocol::Tls13 && a.resumption() == Some(Resumption::Stateful)
        ));
    }

    #[test]
    fn tls12_skips_tls13_only_groups() {
        let arms = default_set(&[CertKind::Ed25519], &[KxGroup::X25519Mlkem768], false);
        assert!(arms.iter().all(|a| a.protocol() != Protocol::Tls12));
        assert_eq!(arms.len(), 4);
    }

    #[test]
    fn filter_by_substring_and_glob() {
        let arms = default_set(
            &[CertKind::Rsa2048, CertKind::EcdsaP256],
            &[KxGroup::X25519],
            false,
        );
        let ids = |v: Vec<ArmSpec>| v.iter().map(ArmSpec::id).collect::<Vec<_>>();
        assert_eq!(ids(filter(arms.clone(), "tcp")), vec!["tcp-connect"]);
        assert_eq!(filter(arms.clone(), "tls12-resumed").len(), 4);
        assert_eq!(
            ids(filter(arms.clone(), "tls13-*-ticket-rsa*")),
            vec!["tls13-resumed-ticket-rsa2048-x25519"]
        );
        assert_eq!(filter(arms.clone(), "tcp, tls13-full").len(), 3);
        assert!(filter(arms, "nothing-like-this").is_empty());
    }
}
