//! How noisy a run was, said first: one verdict (quiet, noisy, unreliable) computed here
//! from explicit rules over what the evidence recorded of the host — steal, chunks set
//! aside and measured again, arms that ran out of budget, switches of the compute speed,
//! load — with every reason and its numbers. The CLI summary, `collector compare`, the
//! site's first screen, its stacks ranking and its trend all read it from here.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::noise::ArmChunks;
use crate::schema::{Arm, Evidence};

pub use crate::arm_conditions::{arms_apart, ArmConditions, RatiosApart};

/// Steal over the whole run, on the CPU that had most, from which a run is noisy.
/// Read here on a 2-vCPU VM of the project's kind with a build running beside: 0–1.8% per
/// CPU over 5 s windows, and 0.4–1.4% over whole default runs; the noise issue's runs
/// saw 8–24% (shared/notes/measurement-pitfalls.md §15).
pub const STEAL_NOISY_PERCENT: f64 = 2.0;
/// ... and from which it is unreliable: the noise issue's runs at 15–16% steal moved
/// their p50s by 40–130% between runs of one build (its figure, not this change's).
pub const STEAL_UNRELIABLE_PERCENT: f64 = 15.0;
/// Share of chunks set aside (measured again) from which a run is noisy.
pub const SET_ASIDE_NOISY_SHARE: f64 = 0.10;
/// Share of arms that used a chunk over the steal threshold (budget spent) from which a
/// run is unreliable (any such arm makes it noisy).
pub const NOISY_ARMS_UNRELIABLE_SHARE: f64 = 0.25;
/// A chunk ran in the slow mode when its speed probe took more than this times the
/// run's fast reference (the 10th percentile of its chunks' probes): the two modes seen
/// on these VMs are 30 and 45 µs per X25519 agreement (1.5×).
pub const SLOW_MODE_FACTOR: f64 = 1.25;
/// A run switched modes when between this share and its complement of its probed chunks
/// ran slow.
pub const MIXED_MODES_SHARE: f64 = 0.05;
/// Two arms ran in different modes when their shares of slow chunks differ by more.
pub const MODES_APART: f64 = 0.30;
/// The machine was busy before the run when the 1-minute load average was at least
/// this many runnable tasks per CPU.
pub const BUSY_LOAD_PER_CPU: f64 = 1.5;
/// Other programs took this share of the machine's time (per cent) while the run's own
/// arms were timed: a neighbour inside the machine. Read here on a 2-vCPU VM: 0.0 in
/// quiet `--no-peers` runs (three of three); 12.7% (4.0 of 31.4 CPU s) with a busy loop
/// on one CPU for 8 s of the arms' 16 s. A like loop beside a default run, unseen by the
/// steal and probe rules, had moved its rustls arms' p50s by 3–12% against a quiet run.
pub const OTHER_WORK_NOISY_PERCENT: f64 = 5.0;
/// ... judged only over a window of at least this many CPU seconds: `/proc/stat` counts
/// in 10 ms ticks, so a reading may be a tick off per CPU; over 2 CPU seconds that is
/// at most 2% on a 2-CPU machine, under the line.
pub const OTHER_WORK_MIN_WINDOW_CPU_S: f64 = 2.0;
/// Two runs' compute speeds differ when their fast references differ by more than this
/// factor.
pub const PROBE_APART: f64 = 1.25;
/// Two noisy runs are still compared when their worst CPUs' steal differs by at most
/// this many points.
pub const STEAL_APART_POINTS: f64 = 5.0;

/// The verdict, from best to worst.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Nothing the rules look at went over its line.
    Quiet,
    /// The host moved things, but the numbers were measured around it (or the effect is
    /// bounded): read them, and compare them only with runs of like conditions.
    Noisy,
    /// The host moved the numbers as much as TLS does: no comparison with another run.
    Unreliable,
    /// The file records no steal (written before it was recorded): nothing can be said.
    #[default]
    Unrecorded,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Quiet => "quiet",
            Level::Noisy => "noisy",
            Level::Unreliable => "unreliable",
            Level::Unrecorded => "conditions not recorded",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule that fired, with its numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Reason {
    /// Steal over the whole run on the worst CPU.
    Steal { cpu: String, percent: f64 },
    /// Chunks set aside for steal and measured again, of all chunks.
    SetAside { set_aside: u64, chunks: u64 },
    /// Arms that used a chunk over the threshold because the budget was spent.
    NoisyArms { arms: u64, of: u64 },
    /// Chunks whose speed probe ran in the slow mode, of the chunks probed.
    SpeedModes {
        slow: u64,
        probed: u64,
        fast_us: f64,
        slow_us: f64,
    },
    /// The 1-minute load average before the run, against the CPUs.
    Busy { load: f64, cpus: u64 },
    /// Other programs' share of the machine while the run's own arms were timed
    /// (`environment.other_work`), per cent, and their CPU seconds.
    OtherWork { percent: f64, cpu_s: f64 },
    /// No steal recorded.
    NoRecord,
}

impl Reason {
    /// The level this reason alone gives.
    pub fn level(&self) -> Level {
        match self {
            Reason::Steal { percent, .. } if *percent >= STEAL_UNRELIABLE_PERCENT => {
                Level::Unreliable
            }
            Reason::NoisyArms { arms, of } if share(*arms, *of) >= NOISY_ARMS_UNRELIABLE_SHARE => {
                Level::Unreliable
            }
            Reason::NoRecord => Level::Unrecorded,
            _ => Level::Noisy,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Steal { cpu, percent } => write!(
                f,
                "the hypervisor took {percent:.1}% of {cpu}'s time over the run (steal; noisy from {STEAL_NOISY_PERCENT}%, unreliable from {STEAL_UNRELIABLE_PERCENT}%)"
            ),
            Reason::SetAside { set_aside, chunks } => write!(
                f,
                "{set_aside} of {chunks} chunks were set aside for steal and measured again"
            ),
            Reason::NoisyArms { arms, of } => write!(
                f,
                "{arms} of {of} arms kept chunks over the steal threshold (the budget for measuring again was spent)"
            ),
            Reason::SpeedModes {
                slow,
                probed,
                fast_us,
                slow_us,
            } => write!(
                f,
                "the speed probe ran at two speeds: {slow} of {probed} chunks took {slow_us:.1} µs against {fast_us:.1} µs (another mode of the host's CPU, or other work beside the run)"
            ),
            Reason::Busy { load, cpus } => write!(
                f,
                "the machine was busy before the run (load average {load:.2} on {cpus} CPUs)"
            ),
            Reason::OtherWork { percent, cpu_s } => write!(
                f,
                "other programs on the machine ran beside the run's own arms: {percent:.1}% of its CPU time ({cpu_s:.1} CPU s; noisy from {OTHER_WORK_NOISY_PERCENT}%)"
            ),
            Reason::NoRecord => f.write_str("this file records no steal time"),
        }
    }
}

/// What a comparison with another run needs of a run's conditions: its level, its worst
/// CPU's steal and its speed probe's fast reference. Kept in a site's history for each
/// run (written as `[level, steal, probe]`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Brief(pub Level, pub Option<f64>, pub Option<f64>);

/// The verdict on a run, with every reason. The collector writes it into the evidence
/// (`run.conditions`) as the rules stood; [`of_run`] reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Conditions {
    pub level: Level,
    pub reasons: Vec<Reason>,
    /// The worst CPU's steal over the run, per cent (null: not recorded).
    pub steal_percent: Option<f64>,
    /// The run's fast reference of the speed probe, µs (null: no chunk probed).
    pub fast_probe_us: Option<f64>,
}

impl Conditions {
    pub fn brief(&self) -> Brief {
        Brief(self.level, self.steal_percent, self.fast_probe_us)
    }

    /// The verdict and its reasons in one line, for people.
    pub fn sentence(&self) -> String {
        if self.reasons.is_empty() {
            return format!(
                "{}: steal {} on the worst CPU, every chunk within the threshold",
                self.level,
                self.steal_percent
                    .map_or("not recorded".to_string(), |s| format!("{s:.1}%"))
            );
        }
        let reasons: Vec<String> = self.reasons.iter().map(|r| r.to_string()).collect();
        format!("{}: {}", self.level, reasons.join("; "))
    }
}

pub(crate) fn share(part: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        part as f64 / of as f64
    }
}

/// Nearest-rank percentile `p` (0–100) of `v` (sorted here): the definition every
/// number of the lab uses ([`crate::cluster::nearest_rank`]); None when empty.
fn percentile(v: &mut [f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    crate::order::sort_f64(v);
    Some(crate::cluster::nearest_rank(v, p))
}

/// The run's fast reference: the 10th percentile of its chunks' speed probes.
pub fn fast_probe_us(arms: &[Arm]) -> Option<f64> {
    let mut probes: Vec<f64> = arms
        .iter()
        .filter_map(|a| a.chunks.as_ref())
        .flat_map(|c| c.list.iter().filter_map(|c| c.probe_us))
        .collect();
    percentile(&mut probes, 10.0)
}

/// The run's conditions as its collector judged them (`run.conditions`), or, in a file
/// written before that, as the rules judge what it recorded.
pub fn of_run(e: &Evidence) -> Conditions {
    e.run.conditions.clone().unwrap_or_else(|| of(e))
}

/// The speed probes of every chunk of `arms` slower than the slow-mode line over `fast`
/// (the run's fast reference), and how many chunks were probed.
pub fn slow_probes(arms: &[Arm], fast: f64) -> (Vec<f64>, u64) {
    let probes = arms
        .iter()
        .filter_map(|a| a.chunks.as_ref())
        .flat_map(|c| c.list.iter().filter_map(|c| c.probe_us));
    let (mut slow, mut probed) = (Vec::new(), 0);
    for p in probes {
        probed += 1;
        if p > fast * SLOW_MODE_FACTOR {
            slow.push(p);
        }
    }
    (slow, probed)
}

/// Applies the rules to `e` (all its arms: a run's head or a filtered copy would judge
/// fewer; read those with [`of_run`]).
pub fn of(e: &Evidence) -> Conditions {
    let env = &e.environment;
    let mut reasons = Vec::new();
    let worst = env
        .steal_percent
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(cpu, p)| (cpu.clone(), *p));
    match &worst {
        None => reasons.push(Reason::NoRecord),
        Some((cpu, percent)) if *percent >= STEAL_NOISY_PERCENT => reasons.push(Reason::Steal {
            cpu: cpu.clone(),
            percent: *percent,
        }),
        Some(_) => {}
    }
    let chunked: Vec<&ArmChunks> = e.arms.iter().filter_map(|a| a.chunks.as_ref()).collect();
    let chunks: u64 = chunked.iter().map(|c| c.list.len() as u64).sum();
    let set_aside: u64 = chunked.iter().map(|c| c.set_aside()).sum();
    if chunks > 0 && share(set_aside, chunks) >= SET_ASIDE_NOISY_SHARE {
        reasons.push(Reason::SetAside { set_aside, chunks });
    }
    let noisy = chunked.iter().filter(|c| c.over_budget() > 0).count() as u64;
    if noisy > 0 {
        reasons.push(Reason::NoisyArms {
            arms: noisy,
            of: chunked.len() as u64,
        });
    }
    let fast = fast_probe_us(&e.arms);
    if let Some(fast) = fast {
        let (mut slow, probes) = slow_probes(&e.arms, fast);
        let s = share(slow.len() as u64, probes);
        if s > MIXED_MODES_SHARE && s < 1.0 - MIXED_MODES_SHARE {
            reasons.push(Reason::SpeedModes {
                slow: slow.len() as u64,
                probed: probes,
                fast_us: fast,
                slow_us: percentile(&mut slow, 50.0).unwrap_or(fast),
            });
        }
    }
    let load = env.load_average.before[0];
    if env.logical_cpus > 0 && load >= BUSY_LOAD_PER_CPU * env.logical_cpus as f64 {
        reasons.push(Reason::Busy {
            load,
            cpus: env.logical_cpus,
        });
    }
    let other = env
        .other_work
        .filter(|o| o.window_cpu_s >= OTHER_WORK_MIN_WINDOW_CPU_S)
        .and_then(|o| Some((o.percent()?, o.cpu_s)));
    if let Some((percent, cpu_s)) = other.filter(|(p, _)| *p >= OTHER_WORK_NOISY_PERCENT) {
        reasons.push(Reason::OtherWork { percent, cpu_s });
    }
    let level = reasons
        .iter()
        .map(Reason::level)
        .max()
        .unwrap_or(Level::Quiet);
    Conditions {
        level,
        reasons,
        steal_percent: worst.map(|w| w.1),
        fast_probe_us: fast,
    }
}

/// Why two runs cannot be compared number for number (their conditions differ), or None
/// when they can. A run without a record of steal is no reason by itself.
pub fn runs_apart(old: &Conditions, new: &Conditions) -> Option<String> {
    briefs_apart(&old.brief(), &new.brief())
}

/// [`runs_apart`] on two runs' [`Brief`]s.
pub fn briefs_apart(old: &Brief, new: &Brief) -> Option<String> {
    use Level::*;
    match (old.0, new.0) {
        (Unrecorded, _) | (_, Unrecorded) => return None,
        (Unreliable, _) | (_, Unreliable) => {
            return Some(format!(
                "the host moved the numbers (OLD {}, NEW {})",
                old.0, new.0
            ))
        }
        (a, b) if a != b => {
            return Some(format!(
                "the runs ran in different conditions (OLD {a}, NEW {b})"
            ))
        }
        _ => {}
    }
    if let (Some(a), Some(b)) = (old.1, new.1) {
        if (a - b).abs() > STEAL_APART_POINTS {
            return Some(format!(
                "steal differed by more than {STEAL_APART_POINTS} points (OLD {a:.1}%, NEW {b:.1}%)"
            ));
        }
    }
    if let (Some(a), Some(b)) = (old.2, new.2) {
        if a.max(b) > PROBE_APART * a.min(b) {
            return Some(format!(
                "the CPU's speed differed (speed probe {a:.1} µs in OLD, {b:.1} µs in NEW)"
            ));
        }
    }
    None
}

#[cfg(test)]
#[path = "conditions_tests.rs"]
mod tests;
