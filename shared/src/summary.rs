//! A run's summary: the evidence without its raw per-connection arrays, for pages that
//! show many runs (`cargo xtask site` writes one per run into `results/summaries/`, and
//! every run in brief into `results/history.json`: [`crate::History`]). The same type and the same reader as a full file, so a
//! summary is validated by the same rules, minus those that need the samples.

use crate::schema::Evidence;

impl Evidence {
    /// This evidence with `samples_us`, the phases' per-connection rows and their
    /// per-phase medians and moment names emptied (what the page's wasm never reads:
    /// its waterfall draws the decomposition, which is kept) and
    /// [`Evidence::summary`](crate::Evidence) set; everything else (percentiles, CIs,
    /// round medians, comparisons, settings) is kept as it is.
    pub fn summary(&self) -> Evidence {
        let mut s = self.clone();
        s.summary = true;
        for arm in &mut s.arms {
            arm.samples_us = Vec::new();
            if let Some(c) = &mut arm.chunks {
                c.set_aside_us = Vec::new();
            }
            #[cfg(not(target_arch = "wasm32"))]
            if let Some(t) = &mut arm.tracing {
                t.samples_us = Vec::new();
            }
            // The counts stay; the per-connection rows go.
            #[cfg(not(target_arch = "wasm32"))]
            for t in [&mut arm.tcp, &mut arm.server_tcp].into_iter().flatten() {
                t.retransmits = Vec::new();
                t.rtos = Vec::new();
                t.segments_out = Vec::new();
                t.cwnd = Vec::new();
            }
            if let Some(p) = &mut arm.phases {
                p.client_wall_us = Vec::new();
                p.client_cpu_us = Vec::new();
                p.server_wall_us = Vec::new();
                p.server_cpu_us = Vec::new();
                p.client_events = Vec::new();
                p.server_events = Vec::new();
                p.client = Vec::new();
                p.server = Vec::new();
            }
        }
        s
    }

    /// The summary as one line of JSON (no newline in it), as a site's
    /// `results/summaries/<file>` holds it.
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
    fn a_summary_keeps_the_phase_decomposition_and_drops_what_the_page_never_reads() {
        let mut full = sample::evidence();
        let rows: Vec<Vec<f64>> = full.arms[1]
            .samples_us
            .iter()
            .map(|s| vec![0.0, *s])
            .collect();
        full.arms[1].phases = Some(crate::Phases {
            client_events: vec!["start".into(), "done".into()],
            server_events: Vec::new(),
            client: vec![crate::PhaseStat {
                from: "start".into(),
                to: "done".into(),
                wall_p50_us: 400.0,
                cpu_p50_us: 100.0,
            }],
            server: Vec::new(),
            decomposition: None,
            irregular: 1,
            client_wall_us: rows.clone(),
            client_cpu_us: rows,
            server_wall_us: Vec::new(),
            server_cpu_us: Vec::new(),
        });
        assert!(full.violations().is_empty(), "{:?}", full.violations());
        let back = Evidence::from_json(&full.summary_line()).expect("a summary validates");
        let p = back.arms[1].phases.as_ref().expect("phases kept");
        assert_eq!(p.irregular, 1);
        assert!(p.client_events.is_empty() && p.client.is_empty() && p.client_wall_us.is_empty());
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
