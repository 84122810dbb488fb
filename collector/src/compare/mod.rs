//! `collector compare OLD.json NEW.json`: per arm, did it get slower, faster, or is there
//! no evidence of a difference? The logic is in [`rows`] (plain data, tested), the
//! printing in [`table`]; the verdict rule itself is `shared::Verdict`.

pub mod rows;
pub mod table;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use shared::Evidence;

use crate::limits::MAX_BOOTSTRAP;

#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 no regression; 4 at least one arm regressed (slower, and \
p50(NEW)/p50(OLD) above 1 + --threshold); 1 a file could not be read or is not valid evidence \
(the message says which and why); 2 bad arguments."
)]
pub struct CompareArgs {
    /// The earlier run's evidence file (`results/<run-id>.json`).
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The later run's evidence file.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
    /// Regression threshold in percent (`5%` or `5`): a slower arm fails the comparison
    /// (exit 4) only when p50(NEW)/p50(OLD) exceeds 1 + this.
    #[arg(long, value_name = "PCT", default_value = "5%", value_parser = parse_threshold)]
    pub threshold: f64,
    /// Print the comparison as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Bootstrap resamples for the intervals (100 to 100000).
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(100..=MAX_BOOTSTRAP))]
    pub bootstrap: u64,
    /// Seed of the bootstrap (the same files and seed give the same output).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
}

/// Exit status when an arm regressed beyond the threshold.
pub const EXIT_REGRESSION: u8 = 4;

/// Reads and validates one evidence file, naming it in every error.
pub fn read(path: &Path, which: &str) -> Result<Evidence> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{which} file {} could not be read", path.display()))?;
    Evidence::from_json(&text)
        .with_context(|| format!("{which} file {} is not valid evidence", path.display()))
}

/// `--threshold`: a percentage, `5%` or `5` (both 5%); returned as a fraction.
pub fn parse_threshold(s: &str) -> std::result::Result<f64, String> {
    let t = s.trim();
    let number = t.strip_suffix('%').unwrap_or(t).trim();
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v / 100.0),
        _ => Err(format!(
            "`{s}` is not a percentage (e.g. 5% or 2.5; at least 0)"
        )),
    }
}

pub fn command(args: &CompareArgs) -> Result<ExitCode> {
    let old = read(&args.old, "OLD")?;
    let new = read(&args.new, "NEW")?;
    let c = rows::compare(
        &old,
        &new,
        args.threshold,
        args.bootstrap as usize,
        args.seed,
    );
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&c).expect("the comparison serializes")
        );
    } else {
        print!("{}", table::table(&c));
    }
    Ok(if c.regressions > 0 {
        ExitCode::from(EXIT_REGRESSION)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_percentages() {
        assert_eq!(parse_threshold("5%"), Ok(0.05));
        assert_eq!(parse_threshold(" 2.5 "), Ok(0.025));
        assert_eq!(parse_threshold("0%"), Ok(0.0));
        for bad in ["-1%", "five", "%", "inf"] {
            assert!(
                parse_threshold(bad)
                    .unwrap_err()
                    .contains("not a percentage"),
                "{bad}"
            );
        }
    }

    #[test]
    fn unreadable_and_invalid_files_are_named() {
        let dir = std::env::temp_dir().join(format!("ci-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.json");
        let err = format!("{:#}", read(&missing, "OLD").unwrap_err());
        assert!(
            err.starts_with("OLD file ") && err.contains("could not be read"),
            "{err}"
        );
        let foreign = dir.join("package.json");
        std::fs::write(&foreign, r#"{"name": "x"}"#).unwrap();
        let err = format!("{:#}", read(&foreign, "NEW").unwrap_err());
        assert!(
            err.contains("is not valid evidence: not a Handshake Lab evidence file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
