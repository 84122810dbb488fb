//! Heads of runs ([`crate::data::head`]): what the headline of a run known by its brief
//! draws from while its summary is on the way.

use std::rc::Rc;

use shared::Evidence;

use super::{LoadedRun, RunSet};

impl RunSet {
    /// Keeps the head fetched from `url` for the history run it belongs to, unless that
    /// run's summary (or whole file) is in already. A head that does not read or is of
    /// another run is dropped: the summary follows and speaks for the run.
    pub fn add_head(&mut self, url: &str, text: &str) {
        let Some(h) = self.history.iter().find(|h| h.head.as_deref() == Some(url)) else {
            return;
        };
        if self.headline_of(h.key).is_some() {
            return;
        }
        let (key, source, id) = (h.key, h.source.clone(), &h.brief.run.run_id);
        match Evidence::from_json(text) {
            Ok(ev) if ev.run.id == *id => self.heads.push(LoadedRun {
                key,
                source,
                evidence: Rc::new(ev),
            }),
            _ => {}
        }
    }

    /// What the headline of `key` draws from: its summary or whole file once loaded, else
    /// its head once fetched.
    pub fn headline_of(&self, key: u32) -> Option<&LoadedRun> {
        self.loaded(key)
            .or_else(|| self.heads.iter().find(|r| r.key == key))
    }
}

#[cfg(test)]
mod tests {
    use shared::History;

    use super::super::{Arrival, RunSet};
    use crate::data::head::head_of;
    use crate::data::testdata::with_peers;

    fn site_of_one() -> (RunSet, shared::Evidence) {
        let ev = with_peers();
        let mut b = shared::HistoryBuilder::default();
        b.run("a.json", &ev.summary());
        let history: History = b.finish();
        let mut set = RunSet::default();
        set.add_history(history, "results/history.json");
        (set, ev)
    }

    #[test]
    fn a_head_draws_the_headline_until_the_summary_is_in() {
        let (mut set, ev) = site_of_one();
        let key = set.history[0].key;
        assert_eq!(set.history[0].head.as_deref(), Some("results/heads/a.json"));
        assert!(set.headline_of(key).is_none());
        let head = head_of(&ev);
        set.add_head("results/heads/a.json", &head.to_json());
        let shown = set.headline_of(key).expect("the head is kept");
        assert_eq!(shown.evidence.arms.len(), head.arms.len());
        assert!(shown.evidence.arms.len() < ev.arms.len());
        // Nothing else takes the head for the run: findings and detail wait for the summary.
        assert!(set.loaded(key).is_none());
        set.arrive(
            vec![(
                "results/summaries/a.json".into(),
                Ok(ev.summary().to_json()),
            )],
            Arrival::Summary,
        );
        assert_eq!(
            set.headline_of(key).unwrap().evidence.arms.len(),
            ev.arms.len()
        );
    }

    #[test]
    fn a_head_that_does_not_read_or_is_of_another_run_is_dropped_without_a_failure() {
        let (mut set, ev) = site_of_one();
        let key = set.history[0].key;
        let mut other = head_of(&ev);
        other.run.id = "20261130T000000Z-other-0000".into();
        set.add_head("results/heads/a.json", "{");
        set.add_head("results/heads/a.json", &other.to_json());
        assert!(set.headline_of(key).is_none());
        assert!(set.failures.is_empty(), "{:?}", set.failures);
        // A summary that fails is still a failure.
        set.arrive(
            vec![(
                "results/summaries/a.json".into(),
                Err("404 Not Found".into()),
            )],
            Arrival::Summary,
        );
        assert_eq!(set.failures.len(), 1);
    }
}
