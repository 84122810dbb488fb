//! Progress on stderr: a bar per arm and an overall bar with an ETA on a terminal; a line
//! per round otherwise (logs, CI).

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::arms::ArmSpec;

/// Above this many arms, only the overall bar is drawn.
const MAX_ARM_BARS: usize = 24;

pub struct Progress {
    multi: MultiProgress,
    total: ProgressBar,
    bars: Vec<ProgressBar>,
    interactive: bool,
    started: Instant,
}

impl Progress {
    pub fn new(arms: &[ArmSpec], samples: u64) -> Self {
        let names: Vec<String> = arms.iter().map(ArmSpec::id).collect();
        Progress::named(&names, samples)
    }

    /// One bar per name (an arm on each cell of a grid has a name of its own).
    pub fn named(arms: &[String], samples: u64) -> Self {
        let interactive = std::io::stderr().is_terminal();
        let multi = MultiProgress::with_draw_target(if interactive {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let width = arms.iter().map(String::len).max().unwrap_or(10);
        let total = multi.add(ProgressBar::new(samples * arms.len() as u64));
        total.set_style(
            ProgressStyle::with_template(&format!(
                "{{prefix:{width}}} [{{bar:30}}] {{pos}}/{{len}} elapsed {{elapsed}}, ETA {{eta}}  {{msg}}"
            ))
            .expect("valid template")
            .progress_chars("=> "),
        );
        total.set_prefix("all arms");
        let style = ProgressStyle::with_template(&format!(
            "{{prefix:{width}}} [{{bar:30}}] {{pos}}/{{len}}"
        ))
        .expect("valid template")
        .progress_chars("=> ");
        // Many arms (e.g. --matrix): the overall bar alone, naming the arm being measured.
        let per_arm = if arms.len() <= MAX_ARM_BARS {
            arms
        } else {
            &[]
        };
        let bars = per_arm
            .iter()
            .map(|a| {
                let b = multi.add(ProgressBar::new(samples));
                b.set_style(style.clone());
                b.set_prefix(a.clone());
                b
            })
            .collect();
        Progress {
            multi,
            total,
            bars,
            interactive,
            started: Instant::now(),
        }
    }

    /// One timed connection of arm `i` is done.
    /// Takes back `n` ticks of arm `i`: a chunk set aside, to be measured again.
    pub fn redo(&self, i: usize, n: u64) {
        if let Some(b) = self.bars.get(i) {
            b.set_position(b.position().saturating_sub(n));
        }
        self.total
            .set_position(self.total.position().saturating_sub(n));
    }

    pub fn tick(&self, i: usize) {
        if let Some(b) = self.bars.get(i) {
            b.inc(1);
        }
        self.total.inc(1);
    }

    /// Arm `arm` (the `pos`-th of `n` this round) is being measured.
    pub fn at(&self, round: u64, rounds: u64, pos: usize, n: usize, arm: &ArmSpec) {
        self.total
            .set_message(format!("round {round}/{rounds}, arm {pos}/{n}: {arm}"));
    }

    pub fn round_done(&self, round: u64, rounds: u64) {
        if !self.interactive {
            eprintln!(
                "collector: round {round}/{rounds} done ({} of {} timed connections, {:.1} s)",
                self.total.position(),
                self.total.length().unwrap_or(0),
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    /// A message above the bars.
    pub fn note(&self, msg: &str) {
        if self.interactive {
            let _ = self.multi.println(msg);
        } else {
            eprintln!("{msg}");
        }
    }

    pub fn finish(&self) {
        for b in &self.bars {
            b.abandon();
        }
        self.total.abandon();
    }
}
