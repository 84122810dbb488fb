//! CPU work beside time: each rustls arm's instructions per handshake per end (counted
//! under callgrind: they do not move with the host) next to its wall-clock p50, and the
//! resume speedups in both units side by side.

use shared::instructions::ResumeRatio;
use shared::{Arm, ComparisonKind, CountScope, Evidence, Stack};

use super::headline::short_label;

/// What one sentence says about the two units, shown above the tables.
pub const TWO_UNITS: &str = "Instructions count the CPU work each end does in user space for one handshake (counted under valgrind's callgrind: the same on a quiet or a noisy host); the wall clock adds the kernel, wake-ups and waiting. Read instructions for what a server spends per handshake, time for what a client waits: a resumption that saves far more instructions than time leaves the rest of the wait outside TLS's own computation.";

/// One arm's work and time.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkRow {
    pub arm: String,
    pub label: String,
    pub p50_us: Option<f64>,
    pub client: Option<f64>,
    pub server: f64,
    pub both: Option<f64>,
    /// `debug` or `release`: counts of different builds never compare.
    pub build: &'static str,
    /// A peer server's whole process (server side only), not an end's handshake window.
    pub whole_process: bool,
}

/// What a whole-process row is, said once under the table where it has one.
pub const WHOLE_PROCESS: &str = "Peer servers (OpenSSL s_server, nginx) are counted as whole processes, server side only: everything the server executed over the counted handshakes and their requests (its event loop, logging), less what it executes idle. They compare with each other, not with a rustls end's handshake window.";

/// One resumption: full ÷ resumed in wall-clock p50 and in instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumeUnits {
    pub resumed: String,
    pub label: String,
    pub wall: f64,
    pub wall_ci: Option<[f64; 2]>,
    pub instructions: ResumeRatio,
}

/// The arm's short label and group, after its stacks where they are not rustls's on
/// both ends (a peer server's row reads `rustls → nginx · …`).
fn label(a: &Arm) -> String {
    let short = match a.kx_group {
        Some(g) => format!("{} · {g}", short_label(a)),
        None => short_label(a),
    };
    if a.client_stack == Stack::Rustls && a.server_stack == Stack::Rustls {
        short
    } else {
        format!("{} · {short}", super::stacks::stack_pair(a))
    }
}

/// Every arm with counted instructions, in the run's order.
pub fn work_rows(e: &Evidence) -> Vec<WorkRow> {
    e.arms
        .iter()
        .filter_map(|a| {
            let i = a.instructions.as_ref()?;
            let c = i.counted()?;
            Some(WorkRow {
                arm: a.id.clone(),
                label: label(a),
                p50_us: a.latency_us.map(|l| l.p50),
                client: c.client.map(|e| e.per_handshake),
                server: c.server.per_handshake,
                both: c.both_per_handshake(),
                build: i.build_profile.as_str(),
                whole_process: i.scope == CountScope::WholeProcess,
            })
        })
        .collect()
}

/// Every resume speedup whose two arms both have counts (of one build and scope).
pub fn resume_units(e: &Evidence) -> Vec<ResumeUnits> {
    let arm = |id: &str| e.arms.iter().find(|a| a.id == id);
    e.comparisons
        .iter()
        .filter(|c| c.kind == ComparisonKind::ResumeSpeedup)
        .filter_map(|c| {
            let (full, resumed) = (arm(&c.baseline)?, arm(&c.candidate)?);
            let instructions =
                ResumeRatio::of(full.instructions.as_ref()?, resumed.instructions.as_ref()?)?;
            Some(ResumeUnits {
                resumed: resumed.id.clone(),
                label: label(resumed),
                wall: c.p50_ratio,
                wall_ci: c.ci95,
                instructions,
            })
        })
        .collect()
}

/// `7.24 M`, `148 k`: an instruction count short.
pub fn fmt_count(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.2} M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.0} k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::with_tls12;
    use shared::instructions::BuildProfile;

    use shared::sample::instructions as counted;

    #[test]
    fn arms_with_counts_give_rows_and_resumptions_both_units() {
        let mut e = with_tls12();
        let speedup = e
            .comparisons
            .iter()
            .find(|c| c.kind == ComparisonKind::ResumeSpeedup)
            .cloned()
            .expect("the sample has a resume speedup");
        for a in &mut e.arms {
            if a.id == speedup.baseline {
                a.instructions = Some(counted(2_000_000.0, 8_000_000.0));
            } else if a.id == speedup.candidate {
                a.instructions = Some(counted(200_000.0, 200_000.0));
            }
        }
        let rows = work_rows(&e);
        assert_eq!(rows.len(), 2);
        let full = rows.iter().find(|r| r.arm == speedup.baseline).unwrap();
        assert_eq!(
            (full.client, full.server, full.both),
            (Some(2e6), 8e6, Some(1e7))
        );
        assert!(rows.iter().all(|r| !r.whole_process));
        let units = resume_units(&e);
        assert_eq!(units.len(), 1);
        let u = &units[0];
        assert_eq!(u.wall, speedup.p50_ratio);
        // 2 M / 200 k, 8 M / 200 k, 10 M / 400 k.
        assert_eq!(
            (
                u.instructions.client,
                u.instructions.server,
                u.instructions.both
            ),
            (Some(10.0), 40.0, Some(25.0))
        );
        // A debug count against a release one is no ratio.
        for a in &mut e.arms {
            if let Some(i) = a
                .instructions
                .as_mut()
                .filter(|_| a.id == speedup.candidate)
            {
                i.build_profile = BuildProfile::Debug;
            }
        }
        assert!(resume_units(&e).is_empty());
    }

    #[test]
    fn counts_are_written_short() {
        assert_eq!(fmt_count(7_243_604.0), "7.24 M");
        assert_eq!(fmt_count(147_215.0), "147 k");
        assert_eq!(fmt_count(999.0), "999");
    }

    #[test]
    fn a_peer_servers_whole_process_count_is_a_row_of_its_own_kind_without_a_client() {
        let mut e = with_tls12();
        let k = e
            .arms
            .iter()
            .position(|a| a.client_stack == Stack::Rustls)
            .expect("a rustls arm");
        let id = e.arms[k].id.clone();
        e.arms[k].server_stack = Stack::Nginx;
        e.arms[k].instructions = Some(shared::sample::whole_process(3_000_000.0));
        let rows = work_rows(&e);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(r.arm, id);
        assert!(r.label.starts_with("rustls → nginx · "), "{}", r.label);
        assert!(r.whole_process);
        assert_eq!((r.client, r.server, r.both), (None, 3e6, None));
    }
}
