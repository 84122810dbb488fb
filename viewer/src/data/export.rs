//! What makes a downloaded chart stand on its own: a header naming the lab, the chart,
//! the arms, the run, the host and the date, and a file name made of the chart and run.

use super::format::{cut, short};

/// The lab's name, at the head of every exported chart.
pub const LAB: &str = "Handshake Lab";

/// Where a chart comes from, for its export.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Provenance {
    /// Run id(s), e.g. one run's id or `12 runs, 2026-11-30 … 2026-12-02`.
    pub run: String,
    pub host: String,
    /// RFC 3339 start of the run (or the range of runs).
    pub date: String,
    /// The run's conditions in a few words (`conditions: noisy, steal 3.1%`), or empty.
    pub conditions: String,
}

/// The header lines of an exported chart: lab and title; run, host and date; the arms
/// it shows (cut to fit one line).
pub fn export_head(title: &str, arms: &[String], from: &Provenance) -> [String; 3] {
    let mut list = arms.join(", ");
    if let Some(head) = cut(&list, 150) {
        list = format!("{head}… ({} in all)", arms.len());
    }
    let what = if arms.len() == 1 { "arm" } else { "arms" };
    [
        format!("{LAB} — {}", short(title)),
        format!(
            "run {} · host {} · {}{}",
            short(&from.run),
            short(&from.host),
            short(&from.date),
            if from.conditions.is_empty() {
                String::new()
            } else {
                format!(" · {}", short(&from.conditions))
            }
        ),
        format!("{what}: {list}"),
    ]
}

/// `text` as a file-name part: ASCII letters, digits and `_` kept, runs of anything
/// else made one `-`, at most 60 characters.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    out.chars().take(60).collect()
}

/// `percentiles-rustls-20261202T021500Z-lab-ab12.svg`: the chart (its element id
/// without `chart-` and the page's own run number, then its title when it adds to it)
/// and the run, so two downloads never share a name and each says what it is.
pub fn export_name(id: &str, title: &str, run: &str, ext: &str) -> String {
    let stem = id.strip_prefix("chart-").unwrap_or(id);
    let stem = stem.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-');
    let mut parts = vec![slug(stem)];
    let t = slug(title);
    if !t.is_empty() && !parts[0].contains(&t) {
        parts.push(t);
    }
    parts.push(slug(run));
    parts.retain(|p| !p.is_empty());
    format!("{}.{ext}", parts.join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_names_lab_chart_run_host_date_and_arms() {
        let from = Provenance {
            run: "20261202T021500Z-lab-ab12".into(),
            host: "lab".into(),
            date: "2026-12-02T02:15:00Z".into(),
            conditions: String::new(),
        };
        let [a, b, c] = export_head("Resume speedups", &["tcp-connect".into()], &from);
        assert_eq!(a, "Handshake Lab — Resume speedups");
        assert_eq!(
            b,
            "run 20261202T021500Z-lab-ab12 · host lab · 2026-12-02T02:15:00Z"
        );
        assert_eq!(c, "arm: tcp-connect");
        let noisy = Provenance {
            conditions: "conditions: noisy, steal 3.1%".into(),
            ..from.clone()
        };
        let [_, b, _] = export_head("x", &["a".into()], &noisy);
        assert!(b.ends_with(" · conditions: noisy, steal 3.1%"), "{b}");
        let many: Vec<String> = (0..40).map(|i| format!("arm-number-{i}")).collect();
        let [_, _, c] = export_head("x", &many, &from);
        assert!(
            c.ends_with("… (40 in all)") && c.chars().count() < 180,
            "{c}"
        );
    }

    #[test]
    fn file_names_are_the_chart_and_the_run() {
        let run = "20261202T021500Z-lab-ab12";
        assert_eq!(
            export_name("chart-percentiles-3-0", "rustls", run, "svg"),
            "percentiles-rustls-20261202T021500Z-lab-ab12.svg"
        );
        assert_eq!(
            export_name(
                "chart-head-speedups",
                "Resume speedups: full ÷ resumed p50",
                run,
                "png"
            ),
            "head-speedups-Resume-speedups-full-resumed-p50-20261202T021500Z-lab-ab12.png"
        );
        assert_eq!(
            export_name("chart-trend", "tls13-full-rsa2048-x25519", "12 runs", "png"),
            "trend-tls13-full-rsa2048-x25519-12-runs.png"
        );
        assert_eq!(
            export_name("chart-x", "../../etc", "a/b", "svg"),
            "x-etc-a-b.svg"
        );
    }
}
