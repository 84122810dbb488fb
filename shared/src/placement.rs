//! Two things that move a loopback handshake without being part of it, recorded per run
//! and per arm: where each end ran ([`RunPlacement`], [`ArmPlacement`]) and what
//! recording the phases cost ([`Tracing`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema::{CpuPlacement, LatencySummary};

/// The run's CPU placement (`settings.placement`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunPlacement {
    /// What `--placement` asked for.
    pub asked: CpuPlacement,
    /// What was applied: `asked`, or `free` where it could not be done (then `reason`).
    pub applied: CpuPlacement,
    /// Why `applied` differs from `asked` (e.g. one CPU only); null otherwise.
    #[serde(default)]
    pub reason: Option<String>,
    /// CPUs the collector was allowed to run on.
    pub available_cpus: Vec<u16>,
    /// The client threads' CPUs and every server's (threads and peer processes); empty
    /// under `free`: any.
    pub client_cpus: Vec<u16>,
    pub server_cpus: Vec<u16>,
}

/// Where one arm's two ends ran, sampled on every timed connection (traced ones too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArmPlacement {
    /// The placement this arm's connections were made under (a control arm's differs
    /// from the run's).
    pub asked: CpuPlacement,
    pub client_cpus: Vec<u16>,
    pub server_cpus: Vec<u16>,
    /// Timed connections whose two ends' CPUs were both sampled.
    pub observed: u64,
    /// Of those, the connections that ran as asked (all of them under `free`). Fewer
    /// than `observed` under `split` or `same` makes the arm an error: a mixture is
    /// never reported as a placement.
    pub held: u64,
    /// Of those, the connections whose client and server were seen on one CPU.
    pub same_cpu: u64,
    /// How each end's CPU was read, in words (e.g. `sched_getcpu` in both threads when
    /// the handshake completed, or a peer process's threads from `/proc`).
    pub sampled_by: String,
}

/// An arm's traced connections: interleaved with its untraced ones (one traced after
/// every `untraced_per_traced` untraced), recording both ends' phase timestamps. The
/// arm's `samples_us`, percentiles, CIs and comparisons come from the untraced ones only;
/// the phases and their model from these; the difference is what recording costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tracing {
    pub untraced_per_traced: u64,
    /// Traced timed connections tried, that worked, that failed.
    pub attempted: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// The traced connections' windows (same window as `samples_us`), in µs, in the
    /// order taken; the phases' per-connection rows follow this order. Packed like the
    /// arm's `samples_us`.
    #[serde(with = "crate::packed::samples")]
    #[schemars(with = "crate::packed::PackedSamples")]
    pub samples_us: Vec<f64>,
    /// Traced samples per interleaved round (the same rounds as the arm's).
    pub samples_per_round: Vec<u64>,
    /// Percentiles of the traced windows; null when none succeeded.
    pub latency_us: Option<LatencySummary>,
    /// `p50(traced) − p50(untraced)` in µs: what recording the phases adds to one
    /// handshake of this arm.
    pub cost_us: Option<f64>,
    /// 95% CI of `cost_us`: a paired cluster bootstrap over the rounds both share.
    pub cost_ci95_us: Option<[f64; 2]>,
    /// Why `cost_ci95_us` is null although `cost_us` is set.
    #[serde(default)]
    pub cost_ci_unavailable: Option<String>,
}
