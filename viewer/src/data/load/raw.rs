//! Arms' samples fetched on their own for runs loaded as summaries (a site's
//! `raw/<run>/<arm index>.json.gz`): which the page lacks, where they go, which runs have
//! none on the site.

use super::super::index::raw_name;
use super::{ArmRef, LoadedRun, RunSet};

impl RunSet {
    /// The URLs of the raw samples the CDF lacks for `picked` (arms of runs loaded as
    /// summaries whose site kept them: one small file per arm, never a whole run).
    pub fn raw_missing(&self, picked: &[ArmRef]) -> Vec<String> {
        picked
            .iter()
            .filter_map(|p| {
                let run = self.loaded(p.run_key).filter(|r| r.evidence.summary)?;
                let dir = self
                    .history
                    .iter()
                    .find(|h| h.key == p.run_key)?
                    .raw
                    .as_ref()?;
                let (i, arm) = run
                    .evidence
                    .arms
                    .iter()
                    .enumerate()
                    .find(|(_, a)| a.id == p.arm_id)?;
                // Only an arm with successes has samples to fetch.
                (arm.succeeded > 0 && self.samples_of(run, i).is_empty())
                    .then(|| format!("{dir}{}", raw_name(i)))
            })
            .fold(Vec::new(), |mut urls, u| {
                if !urls.contains(&u) {
                    urls.push(u);
                }
                urls
            })
    }

    /// The samples of `run`'s arm at `index`: its own, or those fetched for it.
    pub fn samples_of<'a>(&'a self, run: &'a LoadedRun, index: usize) -> &'a [f64] {
        match run.evidence.arms.get(index) {
            Some(a) if !a.samples_us.is_empty() => &a.samples_us,
            _ => self
                .samples
                .iter()
                .find(|(k, i, _)| *k == run.key && *i == index)
                .map_or(&[], |(_, _, s)| s),
        }
    }

    /// The runs among `keys` loaded as summaries whose site left their raw samples out
    /// (`cargo xtask site --max-raw-runs`): the CDF says so instead of waiting.
    pub fn without_raw(&self, keys: &[u32]) -> Vec<&LoadedRun> {
        keys.iter()
            .filter(|k| {
                self.history
                    .iter()
                    .any(|h| h.key == **k && h.summary.is_some() && h.raw.is_none())
            })
            .filter_map(|k| self.loaded(*k))
            .filter(|r| r.evidence.summary)
            .collect()
    }

    /// Puts the samples fetched from `url` (one arm's, see [`RunSet::raw_missing`]) into
    /// its run's summary; samples that do not read or are not that arm's become a failure.
    pub fn add_arm_samples(&mut self, url: &str, text: &str) {
        let found = self.history.iter().find_map(|h| {
            let name = url.strip_prefix(h.raw.as_deref()?)?;
            let i: usize = name.strip_suffix(".json.gz")?.parse().ok()?;
            Some((h.key, i))
        });
        let Some((key, i)) = found else { return };
        let Some(run) = self.loaded(key) else {
            return;
        };
        let Some(arm) = run.evidence.arms.get(i) else {
            let n = run.evidence.arms.len();
            self.add_failure(url, format!("the run has {n} arms; there is no arm {i}"));
            return;
        };
        match shared::ArmSamples::read(text, arm) {
            Ok(_) if !self.samples_of(run, i).is_empty() => {}
            Ok(samples) => self.samples.push((key, i, samples.into())),
            Err(e) => {
                self.add_failure(url, e);
            }
        }
    }
}
