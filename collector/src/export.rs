//! `collector export --format bmf|github-action-benchmark FILE`: one run's medians in the
//! formats of the dashboards people already run, so a lab box can feed them.
//!
//! - `bmf`: Bencher Metric Format. Per arm (by id) the built-in `latency` measure, whose
//!   unit is nanoseconds: `value` the p50, `lower_value`/`upper_value` its 95% CI.
//! - `github-action-benchmark`: the `customSmallerIsBetter` tool's list of `{name, unit,
//!   value, range, extra}`, in µs; `range` is the CI's larger half-width (`±6.5`), and
//!   `extra` the CI itself, the sample count and the run.
//!
//! Only arms with a sound latency are exported: one with an error, skipped, or with no
//! latency (rate-only) is left out and named on stderr with the reason.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::{json, Map, Value};
use shared::{Arm, Evidence};

/// The formats `collector export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format/).
    Bmf,
    /// github-action-benchmark's `customSmallerIsBetter` JSON.
    GithubActionBenchmark,
}

/// `collector export`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The output format.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Write here (atomically) instead of to standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The evidence file of one run.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Why an arm has no number to export, or `None` when it has one.
fn left_out(a: &Arm) -> Option<String> {
    if let Some(e) = &a.error {
        return Some(format!("error: {e}"));
    }
    if let Some(s) = &a.skipped {
        return Some(format!("skipped: {s}"));
    }
    if a.latency_us.is_none() {
        return Some(if a.rate.is_some() {
            "rate only, no latency".into()
        } else {
            "no latency".into()
        });
    }
    None
}

/// The export of `ev` in `format`, and the arms left out with why.
pub fn export(ev: &Evidence, format: Format) -> (Value, Vec<(String, String)>) {
    let mut out_bmf = Map::new();
    let mut out_gab = Vec::new();
    let mut skipped = Vec::new();
    for a in &ev.arms {
        if let Some(why) = left_out(a) {
            skipped.push((a.id.clone(), why));
            continue;
        }
        let Some(l) = a.latency_us else { continue };
        match format {
            Format::Bmf => {
                let mut latency = Map::new();
                latency.insert("value".into(), json!(l.p50 * 1000.0));
                if let Some([lo, hi]) = a.p50_ci95_us {
                    latency.insert("lower_value".into(), json!(lo * 1000.0));
                    latency.insert("upper_value".into(), json!(hi * 1000.0));
                }
                out_bmf.insert(a.id.clone(), json!({ "latency": latency }));
            }
            Format::GithubActionBenchmark => {
                let mut entry = json!({
                    "name": a.id,
                    "unit": "µs",
                    "value": l.p50,
                });
                let ci = match a.p50_ci95_us {
                    Some([lo, hi]) => {
                        let half = (l.p50 - lo).max(hi - l.p50);
                        entry["range"] = json!(format!("±{half:.1}"));
                        format!("95% CI of the p50 {lo:.1}–{hi:.1} µs")
                    }
                    None => "no 95% CI".to_string(),
                };
                entry["extra"] = json!(format!(
                    "{ci}; {} timed connections; run {}",
                    a.succeeded, ev.run.id
                ));
                out_gab.push(entry);
            }
        }
    }
    let value = match format {
        Format::Bmf => Value::Object(out_bmf),
        Format::GithubActionBenchmark => Value::Array(out_gab),
    };
    (value, skipped)
}

pub fn command(args: &ExportArgs) -> Result<ExitCode> {
    let ev = crate::compare::read(&args.file, "evidence")?;
    let (value, skipped) = export(&ev, args.format);
    let text = serde_json::to_string_pretty(&value)? + "\n";
    if !skipped.is_empty() {
        eprintln!(
            "collector export: left out {} arm(s) without a sound latency:",
            skipped.len()
        );
        for (id, why) in &skipped {
            let short: String = why.chars().take(160).collect();
            eprintln!("  {id}: {short}");
        }
    }
    match &args.out {
        Some(path) => crate::evidence::write::write_atomic(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::sample::{arm, evidence};
    use shared::{Mode, Protocol};

    fn run() -> Evidence {
        let mut ev = evidence();
        let mut a = arm(
            "a",
            Protocol::Tls13,
            Mode::Full,
            None,
            vec![400.0, 410.0, 390.0],
        );
        a.p50_ci95_us = Some([395.0, 406.5]);
        let mut b = arm("b", Protocol::Tls13, Mode::Full, None, vec![100.0]);
        b.p50_ci95_us = None;
        let mut broken = arm("broken", Protocol::Tls13, Mode::Resumed, None, vec![1.0]);
        broken.error = Some("did not resume".into());
        ev.arms = vec![a, b, broken];
        ev
    }

    #[test]
    fn bmf_gives_each_arm_its_latency_in_nanoseconds_with_the_ci() {
        let (v, left) = export(&run(), Format::Bmf);
        // Nearest-rank p50 of 390/400/410 is 400 µs: 400,000 ns.
        assert_eq!(
            v["a"]["latency"],
            json!({"value": 400_000.0, "lower_value": 395_000.0, "upper_value": 406_500.0})
        );
        assert_eq!(v["b"]["latency"], json!({"value": 100_000.0}));
        assert!(v.get("broken").is_none());
        assert_eq!(
            left,
            [("broken".to_string(), "error: did not resume".to_string())]
        );
    }

    #[test]
    fn github_action_benchmark_is_a_list_smaller_is_better_in_microseconds() {
        let (v, left) = export(&run(), Format::GithubActionBenchmark);
        let list = v.as_array().unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0]["name"], "a");
        assert_eq!(list[0]["unit"], "µs");
        assert_eq!(list[0]["value"], 400.0);
        // The larger half of [395, 406.5] around 400.
        assert_eq!(list[0]["range"], "±6.5");
        let extra = list[0]["extra"].as_str().unwrap();
        assert!(
            extra.contains("395.0–406.5 µs") && extra.contains("3 timed"),
            "{extra}"
        );
        assert!(list[1].get("range").is_none());
        assert_eq!(left.len(), 1);
    }

    #[test]
    fn rate_only_and_skipped_arms_are_left_out_with_why() {
        let mut ev = run();
        ev.arms[1].skipped = Some("no nginx".into());
        ev.arms[0].latency_us = None;
        let (v, left) = export(&ev, Format::Bmf);
        assert_eq!(v, json!({}));
        let whys: Vec<&str> = left.iter().map(|l| l.1.as_str()).collect();
        assert_eq!(
            whys,
            ["no latency", "skipped: no nginx", "error: did not resume"]
        );
    }
}
