//! Progress on stderr: a bar per arm and an overall bar with an ETA on a terminal; a line
//! per round otherwise (logs, CI).

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::arms::ArmSpec;

pub struct Progress {
    multi: MultiProgress,
    total: ProgressBar,
    bars: Vec<ProgressBar>,
    interactive: bool,
    started: Instant,
}

impl Progress {
    pub fn new(arms: &[ArmSpec], samples: u64) -> Self {
        let interactive = std::io::stderr().is_terminal();
        let multi = MultiProgress::with_draw_target(if interactive {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let width = arms.iter().map(|a| a.id().len()).max().unwrap_or(10);
        let total = multi.add(ProgressBar::new(samples * arms.len() as u64));
        total.set_style(
            ProgressStyle::with_template(&format!(
                "{{prefix:{width}}} [{{bar:30}}] {{pos}}/{{len}} elapsed {{elapsed}}, ETA {{eta}}"
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
        let bars = arms
            .iter()
            .map(|a| {
                let b = multi.add(ProgressBar::new(samples));
                b.set_style(style.clone());
                b.set_prefix(a.id());
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
    pub fn tick(&self, i: usize) {
        self.bars[i].inc(1);
        self.total.inc(1);
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
