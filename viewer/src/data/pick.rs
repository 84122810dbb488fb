//! Which run the page opens on, and which two runs "what changed" compares by default.
//!
//! The page opens on the run that matters: the newest complete run of the default kind
//! (`collector run` with its default plan), not whatever ran last (a probe, a quick
//! smoke run). Kinds are read from the runs' briefs ([`shared::RunBrief::kind`]).

use shared::setup::{comparable_setups, differences};
use shared::RunKind;

use super::load::{HistoryRun, RunSet};
use super::trend::in_time_order;

/// The detail view's runs. Here, not in [`super::load`]: with nothing picked the view
/// shows the [`landing`] run, which is chosen here.
impl RunSet {
    /// The keys of the runs the detail view shows: those in `picked` that are shown (at
    /// most [`MAX_DETAIL`](super::load::MAX_DETAIL), the first picks), else the landing run
    /// ([`landing`]).
    pub fn detail_keys(&self, picked: &[u32]) -> Vec<u32> {
        self.detail_keys_or(picked, landing(self).map(|r| r.key))
    }

    /// The detail view's runs ([`RunSet::detail_keys`]) whose evidence is loaded.
    pub fn detail(&self, picked: &[u32]) -> RunSet {
        self.detail_of(&self.detail_keys(picked))
    }
}

/// How much a kind of run answers the lab's question, best first: the landing view
/// takes the best kind there is. A brief without a kind (an older history) comes last.
fn kind_rank(kind: Option<RunKind>) -> u8 {
    match kind {
        Some(RunKind::Default) => 6,
        Some(RunKind::Quick) => 5,
        Some(RunKind::Subset) => 4,
        Some(RunKind::TwoHosts) => 3,
        Some(RunKind::Rtt) => 2,
        Some(RunKind::Probe) => 1,
        None => 0,
    }
}

/// The run the page opens on: among the runs shown, complete before interrupted, then
/// the best kind ([`kind_rank`]: the default run first), then the newest (start time,
/// then run id).
pub fn landing(set: &RunSet) -> Option<&HistoryRun> {
    set.shown().max_by(|a, b| {
        let key = |r: &HistoryRun| {
            let run = &r.brief.run;
            (run.complete, kind_rank(run.kind))
        };
        let (ra, rb) = (&a.brief.run, &b.brief.run);
        key(a)
            .cmp(&key(b))
            .then_with(|| (&ra.started_at, &ra.run_id).cmp(&(&rb.started_at, &rb.run_id)))
    })
}

/// Where the head ([`super::head`]) of the run a site's page opens on is, relative to the
/// page: what `cargo xtask site` names in the page so the browser fetches it while the
/// viewer loads. `None` when the history has no run.
pub fn landing_head(history: shared::History) -> Option<String> {
    let mut set = RunSet::default();
    set.add_history(history, super::index::HISTORY_URL);
    landing(&set)?.head.clone()
}

/// The run that findings, cards and detail follow: `picked` while it is shown, else
/// the landing run.
pub fn focus(set: &RunSet, picked: Option<u32>) -> Option<&HistoryRun> {
    picked
        .and_then(|k| set.shown().find(|r| r.key == k))
        .or_else(|| landing(set))
}

/// The two runs "what changed" compares when the user picked none: the focus run and
/// the newest earlier run of the same setup and host (differences only in settings
/// that affect no arm, such as the commit); `None` when it has no such run.
pub fn default_pair(set: &RunSet, focus: u32) -> Option<(u32, u32)> {
    let runs = in_time_order(set);
    let at = runs.iter().position(|r| r.key == focus)?;
    let new = runs[at];
    runs[..at]
        .iter()
        .rev()
        .find(|old| comparable_setups(&differences(&old.brief.run.setup, &new.brief.run.setup)))
        .map(|old| (old.key, new.key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;

    #[test]
    fn the_landing_head_is_the_head_of_the_newest_default_run_not_of_a_newer_probe() {
        let mut b = shared::HistoryBuilder::default();
        let mut ev = sample();
        ev.run.kind = Some(RunKind::Default);
        ev.run.started_at = "2026-12-01T10:00:00Z".into();
        b.run("old.json", &ev);
        ev.run.id = "20261201T110000Z-sample-0001".into();
        ev.run.started_at = "2026-12-01T11:00:00Z".into();
        b.run("default.json", &ev);
        ev.run.id = "20261201T120000Z-sample-0002".into();
        ev.run.started_at = "2026-12-01T12:00:00Z".into();
        ev.run.kind = Some(RunKind::Probe);
        b.run("probe.json", &ev);
        assert_eq!(
            landing_head(b.finish()).as_deref(),
            Some("results/heads/default.json")
        );
        assert_eq!(landing_head(shared::History::default()), None);
    }

    fn add(set: &mut RunSet, id: &str, at: &str, f: impl Fn(&mut shared::Evidence)) -> u32 {
        let mut e = sample();
        e.run.id = id.into();
        e.run.started_at = at.into();
        // The default plan's certs and groups, so the sample is a default run.
        e.run.settings.certs = vec![shared::CertKind::Rsa2048, shared::CertKind::EcdsaP256];
        e.run.settings.kx_groups = vec![shared::KxGroup::X25519, shared::KxGroup::X25519Mlkem768];
        f(&mut e);
        set.add(&format!("{id}.json"), e)
    }

    #[test]
    fn a_newer_probe_or_quick_run_does_not_take_the_landing_view() {
        let mut set = RunSet::default();
        let old_default = add(&mut set, "d1", "2026-12-01T01:00:00Z", |_| {});
        let new_default = add(&mut set, "d2", "2026-12-01T02:00:00Z", |_| {});
        let probe = add(&mut set, "p", "2026-12-01T05:00:00Z", |e| {
            e.run.command_line = vec!["collector".into(), "probe".into(), "x:443".into()];
        });
        let quick = add(&mut set, "q", "2026-12-01T04:00:00Z", |e| {
            e.run.command_line.push("--quick".into());
        });
        let cut = add(&mut set, "i", "2026-12-01T06:00:00Z", |e| {
            e.run.complete = false
        });
        assert_eq!(landing(&set).map(|r| r.key), Some(new_default));
        // The run picked wins while it is shown; hiding it falls back to the landing run.
        assert_eq!(focus(&set, Some(probe)).map(|r| r.key), Some(probe));
        set.toggle_hidden(new_default);
        assert_eq!(landing(&set).map(|r| r.key), Some(old_default));
        set.toggle_hidden(old_default);
        assert_eq!(landing(&set).map(|r| r.key), Some(quick));
        set.toggle_hidden(quick);
        assert_eq!(landing(&set).map(|r| r.key), Some(probe), "complete first");
        set.toggle_hidden(probe);
        assert_eq!(landing(&set).map(|r| r.key), Some(cut));
        assert_eq!(focus(&set, Some(probe)).map(|r| r.key), Some(cut));
    }

    #[test]
    fn the_default_pair_is_the_focus_and_its_previous_run_of_the_same_setup() {
        let mut set = RunSet::default();
        let a = add(&mut set, "a", "2026-12-01T01:00:00Z", |_| {});
        let _other_host = add(&mut set, "h", "2026-12-01T02:00:00Z", |e| {
            e.environment.hostname = "elsewhere".into();
        });
        let _subset = add(&mut set, "s", "2026-12-01T03:00:00Z", |e| {
            e.run.command_line.push("--no-peers".into());
        });
        let b = add(&mut set, "b", "2026-12-01T04:00:00Z", |e| {
            e.run.tool.git_commit = Some("new".into());
        });
        assert_eq!(default_pair(&set, b), Some((a, b)));
        assert_eq!(default_pair(&set, a), None);
    }
}
