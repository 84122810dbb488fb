//! `collector count-calibrate` (hidden): the counted window proved on a workload of known
//! size. The collector runs itself under callgrind exactly as for a handshake's end, but
//! its window is a loop of ITERATIONS rounds ([`super::window::calibration_loop`]), with
//! uncounted rounds of the same loop between windows; it prints the count. Counts for
//! several ITERATIONS must grow linearly from a small constant (the call), and that
//! constant must not hold the uncounted rounds.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::process::{Counting, Spec};
use super::valgrind::{Files, Valgrind};
use super::window::Window;
use crate::arms::peer::private_dir::PrivateDir;

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Rounds of the loop in each counted window.
    #[arg(long)]
    pub iterations: u64,
    /// Counted windows.
    #[arg(long, default_value_t = 10)]
    pub windows: u64,
}

/// What `count-calibrate` prints (one JSON line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub iterations: u64,
    pub windows: u64,
    /// Instructions counted in all windows together.
    pub total: u64,
    /// Uncounted rounds of the loop before each window.
    pub uncounted_per_window: u64,
}

pub fn command(args: &CalibrateArgs) -> Result<()> {
    let valgrind = Valgrind::find().map_err(anyhow::Error::msg)?;
    let dir = PrivateDir::create()?;
    let program = std::env::current_exe().context("finding the collector's own binary")?;
    let files = Files::in_dir(dir.path(), "calibrate");
    let counting = Counting::start(Spec {
        valgrind: &valgrind,
        window: Window::Calibrate,
        files: files.clone(),
        program: &program,
        args: vec![
            "count-side".into(),
            "calibrate".into(),
            "--iterations".into(),
            args.iterations.to_string(),
            "--windows".into(),
            args.windows.to_string(),
        ],
        stdin: String::new(),
        what: "the calibration".into(),
    })?;
    counting.finish(
        Instant::now() + Duration::from_secs(300),
        &AtomicBool::new(false),
    )?;
    // No arm is done here: the whole count is in the file written at the end.
    let total = super::valgrind::read_count(&files.out, Instant::now() + Duration::from_secs(5))?;
    let c = Calibration {
        iterations: args.iterations,
        windows: args.windows,
        total,
        uncounted_per_window: super::side::CALIBRATION_NOISE,
    };
    println!("{}", serde_json::to_string(&c)?);
    Ok(())
}
