//! CPU work per handshake, in instructions, per end: what each end of an arm's handshake
//! executed in user space, counted under valgrind's callgrind with collection switched on
//! only around that end's handshake. Unlike a time, a count does not move with steal,
//! the host's speed mode or the scheduler, so two runs of one build agree closely; it says
//! what a handshake costs in CPU work, not what a client waits (kernel work, wake-ups and
//! waiting are not in it). Per arm ([`Instructions`], `arms[].instructions`) and per run
//! ([`InstructionCounting`], `settings.instructions`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema::KindCounts;

/// An arm's instructions per handshake: how they were counted and what came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Instructions {
    /// The counter and its version, e.g. `valgrind-3.19.0 --tool=callgrind`.
    pub tool: String,
    /// How the counted program was built: a debug build executes many times the
    /// instructions of a release build, so counts of different profiles never compare.
    pub build_profile: BuildProfile,
    /// Whether the count covers each end's handshake window or a whole peer process.
    pub scope: CountScope,
    /// What the counted window holds and what it leaves out, in words.
    pub window: String,
    /// Uncounted handshakes each end made before the counted ones (they warm the code
    /// paths up and prime resumption).
    pub warmup_handshakes: u64,
    /// The counts, or why there are none.
    pub outcome: CountOutcome,
}

/// How a program was built (`debug_assertions` on: debug).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BuildProfile {
    Debug,
    Release,
}

impl BuildProfile {
    pub fn as_str(self) -> &'static str {
        match self {
            BuildProfile::Debug => "debug",
            BuildProfile::Release => "release",
        }
    }
}

/// What a count covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CountScope {
    /// Each end counted in its own process, collection on only around its handshake
    /// (see [`Instructions::window`]); both ends are counted.
    Handshake,
    /// A peer server's whole process between two dumps, less an idle interval: the
    /// server end only (its event loop, logging and anything else it does are in it).
    WholeProcess,
}

/// An arm's counts, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CountOutcome {
    Counted(Counted),
    /// No count: a process failed, timed out, or a handshake was not of the arm's kind
    /// (a resumed arm that did not resume is this, never a number).
    Failed {
        error: String,
    },
}

/// Counted handshakes and each end's instructions over them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Counted {
    /// Handshakes counted on each end (after the warm-up).
    pub handshakes: u64,
    /// The client end; null where only a server was counted ([`CountScope::WholeProcess`]).
    #[serde(default)]
    pub client: Option<EndCount>,
    pub server: EndCount,
}

/// One end's instructions over the counted handshakes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EndCount {
    /// Instructions executed (callgrind's `Ir`) in all counted windows together.
    pub total: u64,
    /// `total / handshakes`.
    pub per_handshake: f64,
    /// The handshake kinds this end reported for the counted handshakes (rustls
    /// `handshake_kind()`); null where the end does not say (a peer server).
    #[serde(default)]
    pub kinds: Option<KindCounts>,
}

impl Instructions {
    /// The counts, where the arm has them.
    pub fn counted(&self) -> Option<&Counted> {
        match &self.outcome {
            CountOutcome::Counted(c) => Some(c),
            CountOutcome::Failed { .. } => None,
        }
    }
}

impl Counted {
    /// Client and server instructions per handshake together, where both were counted.
    pub fn both_per_handshake(&self) -> Option<f64> {
        Some(self.client?.per_handshake + self.server.per_handshake)
    }
}

/// How many times the instructions of a full handshake a resumed one saves, per end and
/// both ends together (`full / resumed`); None for an end that was not counted on both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResumeRatio {
    pub client: Option<f64>,
    pub server: f64,
    pub both: Option<f64>,
}

impl ResumeRatio {
    /// `full / resumed` for two counted arms of one cell (same stacks, protocol,
    /// certificate and group; the caller pairs them). Counts of different build profiles
    /// or scopes do not divide: None.
    pub fn of(full: &Instructions, resumed: &Instructions) -> Option<ResumeRatio> {
        if full.build_profile != resumed.build_profile || full.scope != resumed.scope {
            return None;
        }
        let (f, r) = (full.counted()?, resumed.counted()?);
        let ratio = |a: f64, b: f64| (b > 0.0).then(|| a / b);
        Some(ResumeRatio {
            client: f
                .client
                .zip(r.client)
                .and_then(|(a, b)| ratio(a.per_handshake, b.per_handshake)),
            server: ratio(f.server.per_handshake, r.server.per_handshake)?,
            both: f
                .both_per_handshake()
                .zip(r.both_per_handshake())
                .and_then(|(a, b)| ratio(a, b)),
        })
    }
}

/// The run's counting phase (`settings.instructions`): on (with its plan and how long
/// it took), switched off, or skipped (and why). Null in files from before it existed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum InstructionCounting {
    On(CountingPhase),
    /// Switched off (`--no-instructions`).
    Off,
    /// Not run, e.g. valgrind is not on PATH; `reason` says so in words.
    Skipped {
        reason: String,
    },
}

/// A counting phase that ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CountingPhase {
    /// The counter, as each arm records it.
    pub tool: String,
    pub build_profile: BuildProfile,
    /// Counted and warm-up handshakes per arm and end (`--instructions-handshakes`).
    pub handshakes_per_arm: u64,
    pub warmup_per_arm: u64,
    /// Groups of arms counted at the same time. A group is the arms of one certificate
    /// kind, served one after the other by one client and one server process.
    pub parallel_groups: u64,
    /// Arms the phase set out to count (each records its outcome).
    pub arms: u64,
    /// Wall time of the whole phase, in seconds (valgrind's slowdown included: the
    /// counts are valid, the times under valgrind are not).
    pub wall_s: f64,
}

impl InstructionCounting {
    /// The phase's plan and wall time, where it ran.
    pub fn phase(&self) -> Option<&CountingPhase> {
        match self {
            InstructionCounting::On(p) => Some(p),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sample::instructions as counted;

    #[test]
    fn a_resume_ratio_divides_full_by_resumed_per_end_and_together() {
        let r = ResumeRatio::of(&counted(300.0, 900.0), &counted(100.0, 100.0)).unwrap();
        assert_eq!(r.client, Some(3.0));
        assert_eq!(r.server, 9.0);
        assert_eq!(r.both, Some(6.0));
    }

    #[test]
    fn counts_of_different_profiles_or_failed_arms_do_not_divide() {
        let mut debug = counted(100.0, 100.0);
        debug.build_profile = BuildProfile::Debug;
        assert_eq!(ResumeRatio::of(&counted(300.0, 900.0), &debug), None);
        let mut failed = counted(100.0, 100.0);
        failed.outcome = CountOutcome::Failed {
            error: "did not resume".into(),
        };
        assert_eq!(ResumeRatio::of(&counted(300.0, 900.0), &failed), None);
    }

    #[test]
    fn the_outcome_is_tagged_by_status() {
        let v = serde_json::to_value(counted(1.0, 2.0)).unwrap();
        assert_eq!(v["outcome"]["status"], "counted");
        assert_eq!(v["outcome"]["handshakes"], 10);
        let off = serde_json::to_value(InstructionCounting::Off).unwrap();
        assert_eq!(off, serde_json::json!({"state": "off"}));
    }
}
