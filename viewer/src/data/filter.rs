//! Filtering arms by protocol, mode, certificate, key-exchange group and stack.

use std::fmt;

use shared::{Arm, ArmKey, CertKind, KxGroup, Mode, Protocol, Stack};

use super::load::RunSet;

/// One value of one filter dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Facet {
    Protocol(Protocol),
    Mode(Mode),
    Cert(CertKind),
    Group(KxGroup),
    /// The stack under test (`arm.stack`).
    Stack(Stack),
}

impl Facet {
    /// The dimension's name, for headings.
    pub fn dimension(self) -> &'static str {
        match self {
            Facet::Protocol(_) => "protocol",
            Facet::Mode(_) => "mode",
            Facet::Cert(_) => "cert",
            Facet::Group(_) => "group",
            Facet::Stack(_) => "stack",
        }
    }
}

impl fmt::Display for Facet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Facet::Protocol(v) => v.fmt(f),
            Facet::Mode(v) => v.fmt(f),
            Facet::Cert(v) => v.fmt(f),
            Facet::Group(v) => v.fmt(f),
            Facet::Stack(v) => v.fmt(f),
        }
    }
}

/// The facets an arm has (TCP arms have no cert or group).
pub fn facets_of(arm: &Arm) -> Vec<Facet> {
    facets(arm.protocol, arm.mode, arm.cert, arm.kx_group, arm.stack)
}

/// The facets of an arm known by its key (a run's brief).
pub fn facets_of_key(arm: &ArmKey) -> Vec<Facet> {
    facets(arm.protocol, arm.mode, arm.cert, arm.kx_group, arm.stack)
}

fn facets(
    protocol: Protocol,
    mode: Mode,
    cert: Option<CertKind>,
    group: Option<KxGroup>,
    stack: Stack,
) -> Vec<Facet> {
    let mut out = vec![Facet::Protocol(protocol), Facet::Mode(mode)];
    out.extend(cert.map(Facet::Cert));
    out.extend(group.map(Facet::Group));
    out.push(Facet::Stack(stack));
    out
}

/// Which facet values are switched off; everything else is shown, so values that
/// appear in a newly loaded run are visible by default. (Vectors rather than B-trees
/// here and in `derive`: a handful of items, and every B-tree type costs wasm size.)
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArmFilter {
    off: Vec<Facet>,
}

impl ArmFilter {
    pub fn is_on(&self, facet: Facet) -> bool {
        !self.off.contains(&facet)
    }

    /// The facets switched off, in the order they were.
    pub fn off(&self) -> &[Facet] {
        &self.off
    }

    pub fn toggle(&mut self, facet: Facet) {
        toggle(&mut self.off, facet);
    }

    /// True when none of the arm's facets is switched off.
    pub fn matches(&self, arm: &Arm) -> bool {
        facets_of(arm).into_iter().all(|f| self.is_on(f))
    }

    /// [`ArmFilter::matches`] for an arm known by its key.
    pub fn matches_key(&self, arm: &ArmKey) -> bool {
        facets_of_key(arm).into_iter().all(|f| self.is_on(f))
    }
}

/// Every facet present in the runs shown (loaded or known by their briefs), sorted by
/// dimension then value.
pub fn facets_present(runs: &RunSet) -> Vec<Facet> {
    let mut all: Vec<Facet> = runs
        .shown_arm_keys()
        .into_iter()
        .flat_map(facets_of_key)
        .collect();
    shared::order::sort_dedup(&mut all);
    all
}

/// Removes `item` from `set` when present, adds it otherwise.
pub fn toggle<T: PartialEq>(set: &mut Vec<T>, item: T) {
    match set.iter().position(|x| *x == item) {
        Some(i) => {
            set.remove(i);
        }
        None => set.push(item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;

    #[test]
    fn switching_a_facet_off_hides_matching_arms_only() {
        let ev = sample();
        let shown = |filter: &ArmFilter| -> Vec<String> {
            ev.arms
                .iter()
                .filter(|a| filter.matches(a))
                .map(|a| a.id.clone())
                .collect()
        };
        let mut filter = ArmFilter::default();
        assert_eq!(shown(&filter).len(), ev.arms.len());
        filter.toggle(Facet::Mode(Mode::Resumed));
        assert_eq!(
            shown(&filter),
            ["tcp-connect", "tls13-full-ecdsa-p256-x25519"]
        );
        filter.toggle(Facet::Cert(CertKind::EcdsaP256));
        assert_eq!(shown(&filter), ["tcp-connect"], "TCP has no cert and stays");
        filter.toggle(Facet::Mode(Mode::Resumed));
        assert!(filter.is_on(Facet::Mode(Mode::Resumed)));
    }

    #[test]
    fn present_facets_come_from_visible_runs() {
        let mut set = RunSet::default();
        let k = set.add("a", sample());
        let facets = facets_present(&set);
        assert_eq!(
            facets,
            [
                Facet::Protocol(Protocol::Tcp),
                Facet::Protocol(Protocol::Tls13),
                Facet::Mode(Mode::Connect),
                Facet::Mode(Mode::Full),
                Facet::Mode(Mode::Resumed),
                Facet::Cert(CertKind::EcdsaP256),
                Facet::Group(KxGroup::X25519),
                Facet::Stack(Stack::Rustls),
                Facet::Stack(Stack::KernelTcp),
            ]
        );
        assert_eq!(facets[0].dimension(), "protocol");
        assert_eq!(facets[6].to_string(), "x25519");
        set.toggle_hidden(k);
        assert!(facets_present(&set).is_empty());
    }
}
