//! Where each end of an arm's connections ran, counted connection by connection against
//! the placement the arm asked for (see [`crate::cpu`]).

use std::collections::BTreeSet;

use shared::{ArmPlacement, CpuPlacement};

use crate::cpu::CpuPlan;

/// One arm's placement, as asked and as observed so far.
#[derive(Debug, Clone)]
pub struct Placed {
    plan: CpuPlan,
    observed: u64,
    held: u64,
    same_cpu: u64,
    sampled_by: &'static str,
    client_seen: BTreeSet<u16>,
    server_seen: BTreeSet<u16>,
}

impl Placed {
    /// The run's plan, or `variant`'s on the same CPUs for a control arm.
    pub fn new(run: &CpuPlan, variant: Option<CpuPlacement>) -> Placed {
        Placed {
            plan: variant.map_or_else(|| run.clone(), |v| run.with(v)),
            observed: 0,
            held: 0,
            same_cpu: 0,
            sampled_by: "",
            client_seen: BTreeSet::new(),
            server_seen: BTreeSet::new(),
        }
    }

    /// Counts one connection whose client ran on `client` and whose server's threads were
    /// seen on `server` (nothing is counted where either end was not seen).
    pub fn observe(&mut self, client: Option<u16>, server: &[u16], how: &'static str) {
        let Some(c) = client else { return };
        if server.is_empty() {
            return;
        }
        self.sampled_by = how;
        self.observed += 1;
        self.held += u64::from(self.plan.held(c, server));
        self.same_cpu += u64::from(server.iter().all(|s| *s == c));
        self.client_seen.insert(c);
        self.server_seen.extend(server);
    }

    /// Connections that did not run as asked, with what was seen, or None when every
    /// observed one did.
    pub fn broken(&self) -> Option<String> {
        (self.held < self.observed).then(|| {
            format!(
                "placement `{}` did not hold on {} of {} connections (client seen on CPUs {:?}, server on {:?}; asked client {:?}, server {:?})",
                self.plan.applied,
                self.observed - self.held,
                self.observed,
                self.client_seen,
                self.server_seen,
                self.plan.client,
                self.plan.server
            )
        })
    }

    /// The evidence's record; None when no connection was observed.
    pub fn record(&self) -> Option<ArmPlacement> {
        (self.observed > 0).then(|| ArmPlacement {
            asked: self.plan.applied,
            client_cpus: self.plan.client.clone(),
            server_cpus: self.plan.server.clone(),
            observed: self.observed,
            held: self.held,
            same_cpu: self.same_cpu,
            sampled_by: self.sampled_by.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split() -> CpuPlan {
        CpuPlan::resolve(CpuPlacement::Split, &[0, 1])
    }

    #[test]
    fn connections_are_counted_against_the_arms_own_placement() {
        let mut p = Placed::new(&split(), None);
        p.observe(Some(0), &[1], "test");
        p.observe(Some(0), &[1], "test");
        assert!(p.broken().is_none());
        p.observe(Some(1), &[1], "test");
        let r = p.record().unwrap();
        assert_eq!((r.observed, r.held, r.same_cpu), (3, 2, 1));
        assert_eq!(r.asked, CpuPlacement::Split);
        let why = p.broken().unwrap();
        assert!(why.contains("did not hold on 1 of 3"), "{why}");
        // A control arm of a split run asks for `same`: there one CPU is what holds.
        let mut c = Placed::new(&split(), Some(CpuPlacement::Same));
        c.observe(Some(0), &[0], "test");
        let r = c.record().unwrap();
        assert_eq!((r.asked, r.held, r.same_cpu), (CpuPlacement::Same, 1, 1));
        assert_eq!((r.client_cpus, r.server_cpus), (vec![0], vec![0]));
    }

    #[test]
    fn an_end_not_seen_counts_nothing() {
        let mut p = Placed::new(&split(), None);
        p.observe(None, &[1], "test");
        p.observe(Some(0), &[], "test");
        assert!(p.record().is_none());
        assert!(p.broken().is_none());
    }

    #[test]
    fn under_free_everything_holds_and_sharing_is_counted() {
        let free = CpuPlan::resolve(CpuPlacement::Free, &[0, 1]);
        let mut p = Placed::new(&free, None);
        for (c, s) in [(0, 0), (0, 1), (1, 1), (1, 0)] {
            p.observe(Some(c), &[s], "test");
        }
        let r = p.record().unwrap();
        assert_eq!((r.observed, r.held, r.same_cpu), (4, 4, 2));
        assert!(p.broken().is_none());
    }
}
