//! `collector spread`'s printout: each run and what it says of its host, then per arm the
//! p50s' spread, the instructions' spread per end, and the resume speedups' spread.

use std::fmt::Write;

use shared::{Evidence, Mode};

use super::rows::{count_rows, run_line, speedup_rows, Row, Spread};

/// The settings that must agree for a spread to mean anything, per run, as one line.
fn setup(e: &Evidence) -> String {
    let s = &e.run.settings;
    format!(
        "host {}, placement {}, {} samples × {} rounds, {} arms",
        e.environment.hostname,
        s.placement
            .as_ref()
            .map_or("not recorded".into(), |p| p.applied.to_string()),
        s.samples,
        s.rounds,
        e.arms.len()
    )
}

/// `run 1: <id> (<setup>)` and its host's line, per run.
fn runs_block(out: &mut String, runs: &[Evidence]) {
    for (i, e) in runs.iter().enumerate() {
        let _ = writeln!(out, "run {}: {} ({})", i + 1, e.run.id, setup(e));
        let h = run_line(e);
        let _ = writeln!(
            out,
            "       {}, steal {} on the worst CPU, {} of {} chunks set aside and measured again",
            h.level.as_str(),
            h.steal_percent
                .map_or("not recorded".into(), |s| format!("{s:.1}%")),
            h.set_aside,
            h.chunks
        );
    }
    let setups: std::collections::BTreeSet<String> = runs.iter().map(setup).collect();
    if setups.len() > 1 {
        let _ = writeln!(
            out,
            "WARNING: the runs' setups differ, so the spread mixes setups with noise"
        );
    }
}

fn line(out: &mut String, w: usize, name: &str, s: &Spread, fmt: &dyn Fn(f64) -> String) {
    let _ = writeln!(
        out,
        "{name:w$}  {:>4}  {:>12}  {:>12}  {:>12}  {:>6.2}%",
        s.values.len(),
        fmt(s.median),
        fmt(s.min),
        fmt(s.max),
        s.spread * 100.0
    );
}

fn header(out: &mut String, w: usize, first: &str, what: &str) {
    let _ = writeln!(
        out,
        "\n{first:w$}  {:>4}  {:>12}  {:>12}  {:>12}  {:>7}",
        "runs",
        format!("median {what}"),
        "min",
        "max",
        "spread"
    );
}

/// The whole printout.
pub fn table(runs: &[Evidence], rows: &[Row]) -> String {
    let mut out = String::new();
    runs_block(&mut out, runs);
    let w = rows.iter().map(|r| r.id.len()).max().unwrap_or(3).max(3) + 8;
    header(&mut out, w, "arm", "p50");
    for r in rows {
        line(&mut out, w, &r.id, &r.p50, &crate::human::us);
    }
    for (what, mode) in [("full handshakes", Mode::Full), ("resumed", Mode::Resumed)] {
        if let Some(worst) = rows
            .iter()
            .filter(|r| r.mode == mode)
            .max_by(|a, b| a.p50.spread.total_cmp(&b.p50.spread))
        {
            let _ = writeln!(
                out,
                "largest p50 spread of the {what}: {:.1}% ({})",
                worst.p50.spread * 100.0,
                worst.id
            );
        }
    }
    let counts = count_rows(runs);
    if !counts.is_empty() {
        header(&mut out, w, "instructions per handshake", "");
        let thousands = |v: f64| crate::instructions::report::thousands(v);
        for c in &counts {
            line(
                &mut out,
                w,
                &format!("{} {}", c.id, c.end),
                &c.per_handshake,
                &thousands,
            );
        }
        if let Some(worst) = counts
            .iter()
            .max_by(|a, b| a.per_handshake.spread.total_cmp(&b.per_handshake.spread))
        {
            let _ = writeln!(
                out,
                "largest instructions spread: {:.2}% ({} {})",
                worst.per_handshake.spread * 100.0,
                worst.id,
                worst.end
            );
        }
    }
    let speedups = speedup_rows(runs);
    if !speedups.is_empty() {
        header(&mut out, w, "resume speedup (wall p50 ratio)", "");
        for s in &speedups {
            line(&mut out, w, &s.resumed, &s.wall, &|v| format!("{v:.2}x"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::rows::rows;
    use super::*;

    fn run_with(p50: f64) -> Evidence {
        let mut e = shared::sample::evidence();
        e.arms.truncate(1);
        e.arms[0].error = None;
        if let Some(l) = e.arms[0].latency_us.as_mut() {
            l.p50 = p50;
        }
        e
    }

    #[test]
    fn the_table_warns_when_setups_differ() {
        let a = run_with(10.0);
        let mut b = a.clone();
        b.run.settings.samples += 1;
        let runs = [a.clone(), b];
        assert!(table(&runs, &rows(&runs)).contains("WARNING"));
        let same = [a.clone(), a];
        let t = table(&same, &rows(&same));
        assert!(!t.contains("WARNING"), "{t}");
        assert!(t.contains("0.00%"));
    }

    #[test]
    fn each_run_says_its_verdict_and_steal() {
        let mut a = run_with(10.0);
        a.environment.steal_percent = [("cpu0".to_string(), 20.0)].into();
        a.run.conditions = None;
        let runs = [a.clone(), a];
        let t = table(&runs, &rows(&runs));
        let lines: Vec<&str> = t.lines().filter(|l| l.contains("steal 20.0%")).collect();
        assert_eq!(lines.len(), 2, "{t}");
        assert!(lines.iter().all(|l| l.contains("unreliable")), "{t}");
    }
}
