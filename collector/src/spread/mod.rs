//! `collector spread FILE…`: how much each arm's numbers move from run to run. Back-to-back
//! runs of one setup on one machine should agree; the spread, `(max − min) / median` over
//! the runs, says how far a single run can be trusted to stand for the next one. Per arm:
//! the p50, the instructions per handshake per end (which should not move) and the resume
//! speedups; per run, what it says of its host (verdict, steal, chunks measured again).
//! The arithmetic is in [`rows`] (plain data, tested), the printing in [`table`].

pub mod rows;
pub mod table;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

/// `collector spread`'s arguments.
#[derive(Debug, clap::Args)]
pub struct SpreadArgs {
    /// Evidence files of runs of one setup (e.g. five back-to-back default runs).
    #[arg(value_name = "FILE", num_args = 2..)]
    pub files: Vec<PathBuf>,
}

pub fn command(args: &SpreadArgs) -> Result<ExitCode> {
    let runs = args
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| crate::compare::read(f, &format!("run {}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let p50s = rows::rows(&runs);
    if p50s.is_empty() {
        bail!("no arm was measured soundly in at least two of the files");
    }
    print!("{}", table::table(&runs, &p50s));
    Ok(ExitCode::SUCCESS)
}
