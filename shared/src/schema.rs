//! The evidence types, version 1.
//!
//! Field names are a contract: other tools and tests read them. New fields may be added
//! (as `Option` or with `#[serde(default)]` so older files still load); existing names
//! are never renamed without a new [`SCHEMA_VERSION`].

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The schema version this crate writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// Fewest interleaved rounds with samples for which a confidence interval is given: a
/// bootstrap over fewer clusters cannot see the spread between rounds.
pub const MIN_CI_ROUNDS: usize = 5;

/// One collector run: what was measured, where, how, and what came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// Always [`SCHEMA_VERSION`] for files this crate writes.
    pub schema_version: u32,
    pub run: Run,
    pub environment: Environment,
    pub arms: Vec<Arm>,
    pub comparisons: Vec<Comparison>,
    /// Public-key primitives timed in the same run with the same crypto provider, from
    /// which each arm's `crypto_floor_us` can be recomputed.
    #[serde(default)]
    pub primitives: Vec<Primitive>,
}

/// Identity, timing and settings of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Run {
    /// Stable, file-name-safe id, e.g. `20261130T024512Z-labbox-3f9a`.
    pub id: String,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// False when the run was interrupted (Ctrl-C) before every arm got all its samples.
    pub complete: bool,
    pub tool: Tool,
    /// The collector's argv as given.
    pub command_line: Vec<String>,
    pub settings: Settings,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// Commit the collector was built from (`-dirty` when the tree had changes); null if unknown.
    pub git_commit: Option<String>,
}

/// Every setting that moves a number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Settings {
    /// Timed connections per arm.
    pub samples: u64,
    /// Untimed connections per arm before timing starts (they also prime resumption).
    pub warmup: u64,
    /// Arms are interleaved: each arm's samples are taken in this many chunks, visiting
    /// every arm once per round, so slow drift in machine load hits every arm alike.
    pub rounds: u64,
    /// `TCP_NODELAY` set on both the client and the server socket.
    pub tcp_nodelay: bool,
    /// `SO_LINGER {on, 0}` on the client: close sends RST and leaves no TIME_WAIT.
    pub so_linger_zero: bool,
    /// Address the servers bind to (loopback).
    pub bind_address: String,
    /// Pause inserted between two connections, in microseconds (0: none).
    pub gap_between_connections_us: u64,
    /// Bytes of application data the server writes and the client reads per connection.
    pub app_data_bytes: u64,
    /// Server threads per arm and client threads per arm.
    pub server_threads: u64,
    pub client_threads: u64,
    /// The clock used for samples.
    pub clock: String,
    /// How percentiles are defined.
    pub percentile_definition: String,
    /// How the 95% confidence intervals are computed.
    pub ci_method: String,
    /// Seed of the bootstrap resampling, so the intervals can be recomputed exactly.
    pub bootstrap_seed: u64,
    pub bootstrap_resamples: u64,
    /// Certificate kinds asked for.
    pub certs: Vec<CertKind>,
    /// Key-exchange groups asked for (each arm pins exactly one).
    pub kx_groups: Vec<KxGroup>,
    /// The `--arms` filter, if any.
    pub arms_filter: Option<String>,
    /// Anything else that moves a number, as name → value.
    #[serde(default)]
    pub extra: BTreeMap<String, String>,
}

/// The machine the run happened on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Environment {
    pub hostname: String,
    pub os: String,
    pub kernel: String,
    pub cpu_model: String,
    pub logical_cpus: u64,
    pub load_average: LoadAverage,
    pub tls_library: Library,
    pub crypto_provider: Library,
    /// Peer tools the run used or looked for (e.g. `openssl`, `python3`), with versions.
    #[serde(default)]
    pub peers: Vec<Library>,
    /// The server's host when client and server ran on two hosts (`collector serve`).
    #[serde(default)]
    pub server_host: Option<Box<Environment>>,
}

/// `/proc/loadavg` (1, 5 and 15 minute averages) before and after the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadAverage {
    pub before: [f64; 3],
    pub after: [f64; 3],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Library {
    pub name: String,
    pub version: String,
}

/// One arm: a kind of connection, measured many times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Arm {
    /// Readable and stable, e.g. `tls13-resumed-ticket-ecdsa-p256-x25519`.
    pub id: String,
    /// Short label: the stack under test (for a peer arm, the peer's side).
    pub stack: Stack,
    /// The implementation on each end, e.g. `openssl-s_time` against `rustls`.
    pub client_stack: Stack,
    pub server_stack: Stack,
    /// Version of the peer tool this arm ran (e.g. `OpenSSL 3.0.19 …`), if any.
    #[serde(default)]
    pub peer_version: Option<String>,
    pub protocol: Protocol,
    pub mode: Mode,
    pub resumption: Option<Resumption>,
    pub cert: Option<CertKind>,
    pub kx_group: Option<KxGroup>,
    /// What one sample covers, in words.
    pub timed_window: String,
    /// Timed connections tried, that worked, that failed. `succeeded + failed = attempted`.
    pub attempted: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Timed connections whose handshake was a resumption, as each end reported it.
    pub resumed: ResumedCounts,
    /// Handshake kinds as each end reported them (null for plain TCP).
    #[serde(default)]
    pub handshake_kinds: Option<HandshakeKinds>,
    /// Null when no connection succeeded.
    pub latency_us: Option<LatencySummary>,
    /// 95% confidence interval of the median, in microseconds (see `settings.ci_method`).
    /// Null when nothing succeeded, or when no honest interval can be given: then
    /// `ci_unavailable` says why.
    pub p50_ci95_us: Option<[f64; 2]>,
    /// Why `p50_ci95_us` is null although the arm has latencies (e.g. fewer than
    /// [`MIN_CI_ROUNDS`] rounds with samples); null otherwise.
    #[serde(default)]
    pub ci_unavailable: Option<String>,
    /// Connections completed per second of the arm's wall time (whole connection cycle).
    pub throughput_per_s: Option<f64>,
    /// Every timed sample in microseconds, in the order taken.
    pub samples_us: Vec<f64>,
    /// Successful samples per interleaved round, in order: `samples_us` is these rounds
    /// one after the other (the first `samples_per_round[0]` samples are round 0's, and
    /// so on). Empty when the samples were not taken in rounds (e.g. capacity arms).
    #[serde(default)]
    pub samples_per_round: Vec<u64>,
    /// Nearest-rank median of each round's samples, one per `samples_per_round` entry
    /// (null for a round without samples): the drift within the run, visible.
    #[serde(default)]
    pub round_medians_us: Vec<Option<f64>>,
    /// Arms with the same `round_group` were interleaved in the same rounds: round `r` of
    /// one is the same stretch of time as round `r` of the other (e.g. `loopback` for the
    /// main loop, `peer-python` for the Python script's own loop). Null when not in rounds.
    #[serde(default)]
    pub round_group: Option<String>,
    /// Why this arm's numbers must not be trusted (e.g. a resumed arm that did not
    /// resume); null when the arm is sound.
    pub error: Option<String>,
    /// The first connection failure's message, if any connection failed.
    #[serde(default)]
    pub first_failure: Option<String>,
    /// Untimed warm-up connections that failed (they prime resumption, so a failure
    /// there is worth knowing even though no sample depends on it directly).
    #[serde(default)]
    pub warmup_failed: u64,
    /// What the client negotiated ("protocol / cipher suite / group") → timed connections.
    #[serde(default)]
    pub negotiated: BTreeMap<String, u64>,
    /// Why the arm was not run (e.g. its peer tool is not on PATH). A skipped arm has no
    /// attempts, no latency and no error.
    #[serde(default)]
    pub skipped: Option<String>,
    /// Set on an arm that reproduces a known measurement pitfall on purpose (e.g.
    /// `openssl s_time -reuse` under TLS 1.3 without reading, which never resumes). Its
    /// `error` is expected: shown, never turned into a speedup, but it does not fail the run.
    #[serde(default)]
    pub known_pitfall: Option<String>,
    /// Rate-only arms (tools that report connections per second, not latencies).
    #[serde(default)]
    pub rate: Option<RateSummary>,
    /// Sum of the public-key operations on the handshake's critical path, in µs.
    #[serde(default)]
    pub crypto_floor_us: Option<f64>,
    #[serde(default)]
    pub crypto_floor_parts: Vec<FloorPart>,
    /// `crypto_floor_us / latency_us.p50`: the share of the median handshake that is
    /// unavoidable public-key work.
    #[serde(default)]
    pub efficiency: Option<f64>,
    /// Capacity arms: several clients against one server.
    #[serde(default)]
    pub capacity: Option<Capacity>,
    /// Round-trip time asked for between client and server, in ms (null: plain loopback).
    #[serde(default)]
    pub rtt_ms: Option<f64>,
    /// How that round trip was made (e.g. a user-space delay line between TUN devices in
    /// two network namespaces), including what it can and cannot delay.
    #[serde(default)]
    pub rtt_method: Option<String>,
    /// Median of this arm's own TCP connect() times in ms: the path's measured round trip.
    #[serde(default)]
    pub rtt_measured_ms: Option<f64>,
    /// 0-RTT arms: timed connections whose client offered early data, and whose server
    /// accepted it (both ends must agree for a connection to count as accepted).
    #[serde(default)]
    pub early_data: Option<EarlyData>,
}

/// Early-data counts of a 0-RTT arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct EarlyData {
    pub offered: u64,
    pub accepted: u64,
}

/// What a rate-only tool reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RateSummary {
    pub connections: u64,
    pub user_cpu_s: f64,
    pub real_s: f64,
    pub per_user_s: f64,
    pub per_real_s: f64,
    /// The runs the totals add up (a tool run several times, so the spread between runs
    /// can give a confidence interval); empty when the tool ran once.
    #[serde(default)]
    pub slices: Vec<RateSlice>,
}

/// One run of a rate-only tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RateSlice {
    pub connections: u64,
    /// Of those, how many the tool reported as resumed.
    pub resumed: u64,
    pub user_cpu_s: f64,
    pub real_s: f64,
}

/// One public-key operation in an arm's crypto floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FloorPart {
    /// A name in the evidence's `primitives`.
    pub primitive: String,
    pub side: Side,
    /// How many times the handshake performs it.
    pub count: u64,
    /// `count × median_us` of the primitive.
    pub us: f64,
}

/// A timed primitive (like `openssl speed`, for what a handshake uses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Primitive {
    /// E.g. `ecdsa-p256-sign`, `x25519-keygen+agree`, `mlkem768-encapsulate`.
    pub name: String,
    /// Operations timed.
    pub ops: u64,
    pub median_us: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Client,
    Server,
}

/// Capacity under concurrency: `clients` client threads against one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Capacity {
    pub clients: u64,
    pub server_workers: u64,
    /// Completed handshakes in each whole second of the run.
    pub per_second: Vec<f64>,
    pub rate_median_per_s: f64,
    /// 25th and 75th percentile of `per_second`.
    pub rate_iqr_per_s: [f64; 2],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ResumedCounts {
    pub client: u64,
    pub server: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct HandshakeKinds {
    pub client: KindCounts,
    pub server: KindCounts,
}

/// Counts of rustls's `HandshakeKind` over an arm's timed connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct KindCounts {
    pub full: u64,
    pub full_with_hello_retry: u64,
    pub resumed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencySummary {
    pub min: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
    pub stddev: f64,
}

/// A ratio between two arms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    pub kind: ComparisonKind,
    /// Arm id of the denominator-side arm (`p50_ratio = p50(baseline) / p50(candidate)`
    /// for speedups, `p50(candidate) / p50(baseline)` for overheads; see [`ComparisonKind`]).
    pub baseline: String,
    pub candidate: String,
    pub p50_ratio: f64,
    /// 95% confidence interval of the ratio (see `settings.ci_method`); null when none
    /// can be given honestly, and then `ci_unavailable` says why.
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
    /// Why `ci95` is null; null otherwise.
    #[serde(default)]
    pub ci_unavailable: Option<String>,
    /// For rate comparisons: which rate the ratio is of (null for latency comparisons,
    /// where `p50_ratio` is a ratio of median latencies).
    #[serde(default)]
    pub basis: Option<RateBasis>,
}

/// The denominator of a connections-per-second rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RateBasis {
    /// Connections per second of wall-clock time.
    PerRealS,
    /// Connections per second of the client's user CPU time.
    PerUserS,
}

/// What a [`Comparison`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ComparisonKind {
    /// `p50(full) / p50(resumed)`: baseline is the full arm, candidate the resumed one.
    /// Above 1 means resumption is faster.
    ResumeSpeedup,
    /// `p50(TLS) / p50(TCP connect)`: baseline is TCP, candidate the TLS arm.
    TlsOverTcp,
    /// `rate(reuse) / rate(new)` for a rate-only tool, per [`RateBasis`], only where
    /// resumption was confirmed: baseline is the `-new` arm, candidate the `-reuse` arm.
    ResumeRateSpeedup,
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $s)] $var,)+
        }
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];
            /// The name used in evidence files and on the command line.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s,)+ }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($s => Ok($name::$var),)+
                    other => Err(format!(
                        "unknown {} `{}` (known: {})",
                        stringify!($name),
                        other,
                        [$($s),+].join(", ")
                    )),
                }
            }
        }
    };
}

string_enum!(
    /// Which implementation ran the connection.
    Stack {
        Rustls = "rustls",
        /// Plain TCP through the kernel: no TLS library involved.
        KernelTcp = "kernel-tcp",
        /// `openssl s_time` (client).
        OpensslSTime = "openssl-s_time",
        /// `openssl s_server` (server).
        OpensslSServer = "openssl-s_server",
        /// Python's `ssl` module (the original lab's Arm A).
        PythonSsl = "python-ssl",
    }
);

string_enum!(Protocol {
    Tcp = "tcp",
    Tls12 = "tls1.2",
    Tls13 = "tls1.3",
});

string_enum!(Mode {
    /// TCP connect only.
    Connect = "connect",
    /// A full handshake (no resumption offered).
    Full = "full",
    /// A resumed handshake; every timed connection must have resumed.
    Resumed = "resumed",
});

string_enum!(
    /// How a resumed arm resumes.
    Resumption {
        /// Server-side session state: TLS 1.2 session ID, TLS 1.3 stateful PSK.
        Stateful = "stateful",
        /// Encrypted tickets: RFC 5077 for TLS 1.2, stateless PSK tickets for TLS 1.3.
        Ticket = "ticket",
    }
);

string_enum!(
    /// The server certificate's key (the chain's leaf; the CA uses the same kind).
    CertKind {
        Rsa2048 = "rsa2048",
        Rsa3072 = "rsa3072",
        Rsa4096 = "rsa4096",
        EcdsaP256 = "ecdsa-p256",
        EcdsaP384 = "ecdsa-p384",
        Ed25519 = "ed25519",
    }
);

string_enum!(
    /// The key-exchange group, pinned on both ends.
    KxGroup {
        X25519 = "x25519",
        Secp256r1 = "secp256r1",
        Secp384r1 = "secp384r1",
        X25519Mlkem768 = "x25519mlkem768",
    }
);
