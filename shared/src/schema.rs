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

/// One collector run: what was measured, where, how, and what came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// Always [`SCHEMA_VERSION`] for files this crate writes.
    pub schema_version: u32,
    pub run: Run,
    pub environment: Environment,
    pub arms: Vec<Arm>,
    pub comparisons: Vec<Comparison>,
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
    pub stack: Stack,
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
    /// 95% confidence interval of the median, in microseconds.
    pub p50_ci95_us: Option<[f64; 2]>,
    /// Connections completed per second of the arm's wall time (whole connection cycle).
    pub throughput_per_s: Option<f64>,
    /// Every timed sample in microseconds, in the order taken.
    pub samples_us: Vec<f64>,
    /// Why this arm's numbers must not be trusted (e.g. a resumed arm that did not
    /// resume); null when the arm is sound.
    pub error: Option<String>,
    /// The first connection failure's message, if any connection failed.
    #[serde(default)]
    pub first_failure: Option<String>,
    /// What the client negotiated ("protocol / cipher suite / group") → timed connections.
    #[serde(default)]
    pub negotiated: BTreeMap<String, u64>,
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
    pub ci95: [f64; 2],
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
