//! A run's summary: the evidence without its raw per-connection arrays, for pages that
//! show many runs (`cargo xtask site` writes one line per run into
//! `results/summaries.jsonl`). The same type and the same reader as a full file, so a
//! summary is validated by the same rules, minus those that need the samples.

use crate::schema::Evidence;

impl Evidence {
    /// This evidence with `samples_us` and the phases' per-connection rows emptied and
    /// [`Evidence::summary`](crate::Evidence) set; everything else (percentiles, CIs,
    /// round medians, comparisons, settings) is kept as it is.
    pub fn summary(&self) -> Evidence {
        let mut s = self.clone();
        s.summary = true;
        for arm in &mut s.arms {
            arm.samples_us = Vec::new();
            if let Some(p) = &mut arm.phases {
                p.client_wall_us = Vec::new();
                p.client_cpu_us = Vec::new();
                p.server_wall_us = Vec::new();
                p.server_cpu_us = Vec::new();
            }
        }
        s
    }

    /// The summary as one line of JSON (no newline in it), as `summaries.jsonl` holds it.
    pub fn summary_line(&self) -> String {
        serde_json::to_string(&self.summary()).expect("evidence serializes")
    }
}

#[cfg(test)]
mod tests {
    use crate::{sample, Evidence, EvidenceError};

    #[test]
    fn a_summary_round_trips_and_keeps_everything_but_the_samples() {
        let full = sample::evidence();
        let line = full.summary_line();
        assert!(!line.contains('\n'));
        let back = Evidence::from_json(&line).expect("a summary validates");
        assert!(back.summary);
        assert_eq!(back, full.summary());
        for (a, b) in back.arms.iter().zip(&full.arms) {
            assert!(a.samples_us.is_empty());
            assert_eq!(b.samples_us.len() as u64, b.succeeded);
            assert_eq!((a.latency_us, a.p50_ci95_us), (b.latency_us, b.p50_ci95_us));
            assert_eq!(a.round_medians_us, b.round_medians_us);
        }
        assert_eq!(back.comparisons, full.comparisons);
        // A full file never says `summary`.
        assert!(!full.to_json().contains("\"summary\""));
    }

    #[test]
    fn only_a_summary_may_lack_samples_and_a_summary_has_none() {
        let mut v: serde_json::Value = serde_json::from_str(&sample::evidence().to_json()).unwrap();
        v["arms"][1]["samples_us"] = serde_json::json!([]);
        let err = Evidence::from_json(&v.to_string()).unwrap_err();
        assert!(
            matches!(&err, EvidenceError::Invariant(v) if v[0].path == "arms[1].samples_us"),
            "{err}"
        );
        let mut s: serde_json::Value =
            serde_json::from_str(&sample::evidence().summary_line()).unwrap();
        s["arms"][0]["samples_us"] = serde_json::json!([400.0]);
        let err = Evidence::from_json(&s.to_string()).unwrap_err().to_string();
        assert_eq!(err, "at `arms[0].samples_us`: a summary carries no samples");
    }
}
