//! The evidence types, version 2 (version 1 had the per-connection arrays as plain
//! arrays of floats; version 2 packs them, see [`crate::packed`]; both read into the
//! same types).
//!
//! Field names are a contract: other tools and tests read them. New fields may be added
//! (as `Option` or with `#[serde(default)]` so older files still load); existing names
//! are never renamed without a new [`SCHEMA_VERSION`].

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The schema version this crate writes; it reads every version from 1 to this one.
pub const SCHEMA_VERSION: u32 = 2;

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
    /// which each arm's `crypto_floor_us` can be recomputed. (The viewer's wasm build does
    /// not read them: the arms carry their floors.)
    #[serde(default)]
    #[cfg(not(target_arch = "wasm32"))]
    pub primitives: Vec<Primitive>,
    /// One hop between two threads over loopback, measured in the same run: the unit
    /// of waiting in each arm's phase decomposition.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub hop: Option<Hop>,
    /// `collector probe HOST:PORT`: what the probe found out about a server it does not
    /// run (null for `collector run`). The viewer shows its findings through
    /// `settings.extra.probe_findings`; it does not read this object (the field does not
    /// exist in its wasm build: no code for it in the download).
    #[serde(default)]
    #[cfg(not(target_arch = "wasm32"))]
    pub probe: Option<crate::probe::ServerProbe>,
    /// True in a run's summary (a site's `results/summaries/<file>`, see
    /// [`Evidence::summary`]): the same evidence without its raw per-connection arrays
    /// (`samples_us`, the phases' rows), so it is validated without them. Absent (false)
    /// in the files the collector writes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summary: bool,
}

/// One one-way hop (see [`Decomposition`]), measured before and after the arms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hop {
    pub method: String,
    /// Timed round trips before the arms, and again after them.
    pub round_trips: u64,
    /// Half the median round trip before the arms, and after them, in µs.
    pub before_us: f64,
    pub after_us: f64,
    /// Half the median of both sets of round trips together: the hop of two threads
    /// that take turns, each waiting one round trip (the model's hop in older files).
    pub one_way_us: f64,
    /// How `curve` was measured (empty in older files).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub curve_method: String,
    /// One flight's one-way time against how long its receiver had been waiting for it
    /// (before and after the arms, pooled), in order of idle time: on a virtual machine a
    /// receiver that waited long enough for its vCPU to halt costs a wake-up more. The
    /// model takes each flight's hop from this curve at the flight's own idle time (see
    /// [`PathStep::idle_us`]). Empty in older files, and when too few samples were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<HopPoint>,
}

/// One point of [`Hop::curve`]. The first point, at idle 0, is a receiver that had not
/// blocked (it polls the socket, as a thread still busy finds the flight already there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HopPoint {
    /// Median time the receiver had been blocked in read() when the flight was ready, µs.
    pub idle_us: f64,
    /// Median one-way time of those flights (ready → the receiver's read returned), µs.
    pub one_way_us: f64,
    /// Flights in this point.
    pub samples: u64,
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
    /// What kind of run this is (the default plan, a subset, RTT, two hosts, a probe).
    /// Absent in files written before it existed: [`Evidence::kind`] derives it then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<RunKind>,
    /// The setup fingerprint: every setting that moves numbers, by name
    /// ([`crate::setup::SETTINGS`]). Absent in older files: [`Evidence::setup`] derives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<BTreeMap<String, String>>,
    /// How noisy the run was, as the collector's rules judged it when it wrote the file
    /// ([`crate::conditions`]): quiet, noisy or unreliable, with every reason and its
    /// numbers. Absent in older files: [`crate::conditions::of_run`] judges them then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<crate::conditions::Conditions>,
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
    /// Untimed connections the plan makes per interleaved arm before timing (they also
    /// prime resumption): `warmup_per_chunk` (in `extra`) before each of its `rounds`
    /// chunks, so `--warmup` rounded up to whole chunks. What each arm really did is its
    /// `warmup_attempted`.
    pub warmup: u64,
    /// Arms are interleaved: each arm's samples are taken in this many chunks, visiting
    /// every arm once per round, so slow drift in machine load hits every arm alike.
    pub rounds: u64,
    /// `TCP_NODELAY` on both the client and the server socket, as read back (getsockopt)
    /// from a client socket and an accepted server socket readied by the collector's own
    /// setup code before measuring (`extra.socket_options` has both ends' values; peer
    /// tools set their own, see their settings).
    pub tcp_nodelay: bool,
    /// `SO_LINGER {on, 0}` on the client, read back the same way: close sends RST and
    /// leaves no TIME_WAIT.
    pub so_linger_zero: bool,
    /// Address the servers bind to (loopback).
    pub bind_address: String,
    /// Pause inserted between two connections, in microseconds (0: none).
    pub gap_between_connections_us: u64,
    /// Bytes of application data the server writes and the client reads per connection.
    pub app_data_bytes: u64,
    /// Server threads per arm and client threads per arm of the interleaved arms; each arm
    /// records its own (`Arm.server_threads` / `client_threads`: capacity arms run N).
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
    /// The steal threshold and the budget for measuring chunks again (`--max-steal`);
    /// null in older files (nothing was set aside then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<crate::noise::NoiseSettings>,
    /// Where the client and the servers ran (`--placement`): asked, applied, and the CPU
    /// sets. Null in files written before placement was controlled (their arms ran
    /// wherever the scheduler put them, as under `free`).
    /// (Not in the viewer's wasm build: it reads `extra.cpu_placement`.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg(not(target_arch = "wasm32"))]
    pub placement: Option<crate::placement::RunPlacement>,
    /// The phase that counted instructions per handshake (`arms[].instructions`): on,
    /// off or skipped and why. Null in files from before it, and in runs that have no
    /// such phase (`collector probe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<crate::instructions::InstructionCounting>,
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
    /// Per CPU (`cpu0`, …), the share of its time the hypervisor gave to something else
    /// (`steal` in /proc/stat) while the run ran, in per cent. Empty in older
    /// files and where the kernel reports none.
    /// (The viewer reads it too: the run's conditions verdict starts from it.)
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub steal_percent: BTreeMap<String, f64>,
    /// The guest's idle settings, which decide what waking a waiting thread costs (on a
    /// VM, a halted vCPU must be woken by the host): `cpuidle.driver`, `cpuidle.governor`,
    /// and `haltpoll.guest_halt_poll_ns` etc. where the module exists. Empty in older
    /// files.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cfg(not(target_arch = "wasm32"))]
    pub cpu_idle: BTreeMap<String, String>,
    /// Other programs' CPU time while the run's own arms were timed (rustls and TCP
    /// connect, whose clients and servers are threads of the collector): a neighbour
    /// inside the machine moves the numbers as steal does, and steal does not show it.
    /// None in older files, in a run against a remote target and in a run of peer arms
    /// alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_work: Option<OtherWork>,
}

/// The machine's busy time over a window (`/proc/stat`: user, nice, system, irq,
/// softirq), less the collector's own (`getrusage`, every thread): what other processes
/// — and kernel threads working for anyone — ran meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OtherWork {
    /// CPU seconds spent outside the collector's process in the window (never below 0:
    /// `/proc/stat` counts in ticks of 10 ms, the collector's own time in µs).
    pub cpu_s: f64,
    /// The window's CPU seconds in all: its wall time × the CPUs (every state's ticks).
    pub window_cpu_s: f64,
}

impl OtherWork {
    /// Other programs' share of the machine's time in the window, per cent.
    pub fn percent(&self) -> Option<f64> {
        (self.window_cpu_s > 0.0).then(|| self.cpu_s * 100.0 / self.window_cpu_s)
    }
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
    /// The timed window ends at the first response byte (request/response mode, 0-RTT
    /// and emulated-RTT arms): a time to first byte, not a handshake. False in older files.
    #[serde(default)]
    pub ttfb: bool,
    /// Timed connections tried, that worked, that failed. `succeeded + failed = attempted`.
    pub attempted: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Timed connections whose handshake was a resumption, as each end reported it.
    pub resumed: ResumedCounts,
    /// Handshake kinds as each end reported them (null for plain TCP).
    #[serde(default)]
    pub handshake_kinds: Option<HandshakeKinds>,
    /// What each end was checked for (null in older files and on arms never run; see
    /// [`Arm::verified_ends`] for how those read).
    #[serde(default)]
    pub verified: Option<Verified>,
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
    /// Successful timed connections per second of the wall time the arm's timed
    /// connections took (`succeeded / wall`), one definition for every arm: an interleaved
    /// arm's wall is the sum of its chunks, each from its first timed connection's start
    /// to its last one's end (failed connections and the wait for the server's report
    /// included, warm-up excluded); a capacity arm's is from its window's start until its
    /// last client finished (all clients together, so it can exceed `1 / p50`). Null when
    /// nothing succeeded or the wall time was not measured (older Python arm scripts).
    pub throughput_per_s: Option<f64>,
    /// Every timed sample in microseconds, in the order taken. Written packed (a string of
    /// whole ns, see [`crate::packed`]); a plain array in version 1.
    #[serde(with = "crate::packed::samples")]
    #[schemars(with = "crate::packed::PackedSamples")]
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
    /// The machine's steal time (`/proc/stat`: the host ran something else while a vCPU
    /// wanted to run), in per cent of all CPU time, during this arm's chunk of each round,
    /// in round order (null where no tick passed): beside `round_medians_us`, it shows
    /// which rounds the hypervisor slowed. Empty in older files and outside rounds. (Not
    /// in the viewer's wasm build.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg(not(target_arch = "wasm32"))]
    pub round_steal_percent: Vec<Option<f64>>,
    /// Every chunk of this arm as the timing loop measured it (`--max-steal`): its
    /// round, the highest steal of any CPU during it, the speed probe timed before it,
    /// and whether its samples are the arm's or were set aside and measured again (their
    /// samples kept in `set_aside_us`). `samples_us`, the percentiles and the CI come
    /// from the chunks used. Null outside the interleaved loop and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<crate::noise::ArmChunks>,
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
    /// Untimed warm-up connections this arm really made, failed ones included (null in
    /// older files). For `openssl s_time` arms: the first connection of every slice,
    /// which is not counted.
    #[serde(default)]
    pub warmup_attempted: Option<u64>,
    /// Threads serving this arm's connections and threads making them (null in older
    /// files; the run's settings then apply).
    #[serde(default)]
    pub server_threads: Option<u64>,
    #[serde(default)]
    pub client_threads: Option<u64>,
    /// What the client negotiated ("protocol / cipher suite / group") → timed connections.
    /// (The viewer's wasm build does not read it.)
    #[serde(default)]
    #[cfg(not(target_arch = "wasm32"))]
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
    /// unavoidable public-key work. Only for handshake windows: null for TTFB arms (`ttfb`),
    /// arms over an emulated RTT, open-loop arms (timed from the intended start, queueing
    /// included), and arms whose floor is 0 (resumed TLS 1.2), where such a share would
    /// say nothing about the handshake.
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
    /// Arms over an emulated link: the timed window's p50 in round trips of the arm's own
    /// path, `latency_us.p50 / (rtt_measured_ms × 1000)`. The window there is a time to
    /// first byte (connect, handshake, request and response), so a TLS 1.3 full handshake
    /// that fits TCP's initial window comes out near 3 and one whose server flight does
    /// not near 4. Null elsewhere and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_multiple: Option<f64>,
    /// What this arm's handshakes put on the wire: the chain the server sent, its first
    /// flight and the ClientHello, in bytes (and TCP segments over an emulated link), as
    /// far as the lab's rustls ends counted them (a rustls client against a peer server
    /// records the ClientHello and the chain, not the server's flight). Null for plain
    /// TCP, arms with no rustls end, and older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<crate::wire::Wire>,
    /// 0-RTT arms: timed connections whose client offered early data, and whose server
    /// accepted it (both ends must agree for a connection to count as accepted).
    #[serde(default)]
    pub early_data: Option<EarlyData>,
    /// Whether this arm recorded phase timestamps: true when some of its connections
    /// did (since `tracing` exists: only the traced ones, never those of `samples_us`),
    /// false when recording was off (`--no-phases`), null where they are not recorded
    /// (stacks other than a rustls client, request/response mode).
    #[serde(default)]
    pub phase_recording: Option<bool>,
    /// Set on a control arm: the id of the arm it copies, measured in the same rounds
    /// with one setting changed, so that setting's effect is measured: its CPU placement
    /// (`placement.asked` differs; a `cpu_placement_effect` comparison) or, in older
    /// files, phase recording off (a `phase_recording_cost` comparison). A control arm
    /// enters no other comparison.
    #[serde(default)]
    pub control_of: Option<String>,
    /// Where the time of this arm's handshake goes, phase by phase, measured on every
    /// traced connection (`tracing`; in older files every connection) of rustls client
    /// arms in handshake mode with phase recording on.
    #[serde(default)]
    pub phases: Option<Phases>,
    /// Where this arm's two ends ran, connection by connection: the placement asked and
    /// how many connections ran as asked (see [`crate::placement::ArmPlacement`]). Null
    /// in older files and where nothing was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg(not(target_arch = "wasm32"))]
    pub placement: Option<crate::placement::ArmPlacement>,
    /// The traced connections of an arm that records phases: interleaved with the
    /// untraced ones that give `samples_us` and every percentile above, and the measured
    /// cost of recording (see [`crate::placement::Tracing`]). Null where no phase was
    /// recorded, and in files from before (whose samples were all traced). (Neither
    /// this nor `placement` is in the viewer's wasm build.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg(not(target_arch = "wasm32"))]
    pub tracing: Option<crate::placement::Tracing>,
    /// Keep-alive arms (`mode: keepalive`): one connection carrying several requests.
    /// Their `samples_us` are each connection's mean time per request after the first.
    /// (Not in the viewer's wasm build, which does not read it.)
    #[serde(default)]
    #[cfg(not(target_arch = "wasm32"))]
    pub keepalive: Option<KeepAlive>,
    /// Arms over an emulated link: the link asked (every setting and the loss RNG's
    /// seed) and per direction the packets of this arm it saw and dropped, so the
    /// achieved loss can be held against the asked one. Null elsewhere and in older
    /// files. (Not in the viewer's wasm build.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg(not(target_arch = "wasm32"))]
    pub link: Option<crate::link::Link>,
    /// Arms over an emulated link whose connections the relay could match: the timed
    /// connections split into those of which the link dropped nothing and the others,
    /// each with its share, median and p95. Null elsewhere and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub populations: Option<crate::loss::Populations>,
    /// Lossy cells of a grid: the effect of loss against the control cell (the same arm
    /// and RTT, no loss, interleaved in the same rounds), for the whole cell and for its
    /// connections that lost nothing. Null elsewhere and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_effect: Option<crate::loss::LossEffect>,
    /// Arms over an emulated link: the client socket's TCP counters per connection
    /// (retransmissions, timeouts, segments, congestion window). Null elsewhere and in
    /// older files. (Not in the viewer's wasm build.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg(not(target_arch = "wasm32"))]
    pub tcp: Option<crate::link::TcpCounters>,
    /// The same counters from the server's socket, read after the client's close, where
    /// the lab runs the server (rustls): the server's retransmissions (a lost SYN-ACK or
    /// server flight), which the client sees only as time. Null elsewhere and in older
    /// files. (Not in the viewer's wasm build.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg(not(target_arch = "wasm32"))]
    pub server_tcp: Option<crate::link::TcpCounters>,
    /// User-space instructions per handshake each end executed, counted under callgrind
    /// in a phase of its own (see [`crate::instructions`]), or why the arm has no count.
    /// Null for arms not counted (plain TCP, 0-RTT, keep-alive, peer clients), when the
    /// phase was off or skipped (`settings.instructions` says which), and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<crate::instructions::Instructions>,
}

/// What a keep-alive arm's connections carried, and what its first request cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KeepAlive {
    /// Requests sent one after the other on each connection, each waiting for its
    /// response (`--keepalive-requests`, at least 2).
    pub requests_per_connection: u64,
    /// Median over connections of the first request's time to first response byte: from
    /// before the socket is created, through connect and a full handshake (the same window
    /// as the full arm's TTFB), in µs.
    pub first_request_p50_us: f64,
    /// Median over connections of the time per request after the first: from writing a
    /// request until the first byte of its response, averaged over requests 2..N of the
    /// connection, in µs (the arm's `latency_us.p50`).
    pub per_request_p50_us: f64,
    /// Median over connections of (first request + the other N-1) / N: the cost per
    /// request of the whole connection, handshake included, in µs.
    pub amortized_p50_us: f64,
}

/// An arm's handshakes, phase by phase. (The viewer's wasm build reads only the
/// decomposition and `irregular`: the per-connection arrays and phase medians are skipped
/// there, which keeps its download small; native readers get every field.) Both ends stamp the moments of each connection
/// on one clock shared by every thread (`CLOCK_MONOTONIC`), with their own thread CPU
/// time (`CLOCK_THREAD_CPUTIME_ID`). Flights are named `c1` (ClientHello), `s1` (the
/// server's first flight), `c2` (the client's second flight), `s2` (TLS 1.2 full: the
/// server's ChangeCipherSpec and Finished); `<f>_ready` is when a flight was built
/// (before its write), `<f>_written` when the write returned, `<f>_read` when the peer's
/// blocking read returned its first bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Phases {
    /// The client's moments, in order (`start`, `connected`, `c1_ready`, …, `done`).
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub client_events: Vec<String>,
    /// The server's moments, in order (`accepted`, `c1_read`, …, `done`); empty when the
    /// server does not report them.
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub server_events: Vec<String>,
    /// Each side's phases (from one moment to the next): median wall and CPU time.
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub client: Vec<PhaseStat>,
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub server: Vec<PhaseStat>,
    /// The median handshake taken apart along its critical path, and the model's
    /// prediction beside the measured p50; null when the arm has no server timestamps.
    pub decomposition: Option<Decomposition>,
    /// Timed connections whose moments did not follow the arm's sequence (e.g. a
    /// HelloRetryRequest); left out of the medians, kept in the per-connection arrays.
    pub irregular: u64,
    /// Per timed connection (the order of `samples_us`): the client's moments as µs
    /// after its `start` (0.1 µs resolution); `client_cpu_us` the client thread's CPU
    /// time at each moment, in µs after its CPU time at `start`. Each of the four is
    /// written packed (a string of whole tenths of µs, see [`crate::packed`]); rows of
    /// floats in version 1.
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    #[serde(with = "crate::packed::rows")]
    #[schemars(with = "crate::packed::PackedRows")]
    pub client_wall_us: Vec<Vec<f64>>,
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    #[serde(with = "crate::packed::rows")]
    #[schemars(with = "crate::packed::PackedRows")]
    pub client_cpu_us: Vec<Vec<f64>>,
    /// The server's moments as µs after the *client's* `start` (the same clock), and
    /// the server thread's CPU time in µs after its CPU time at `accepted`.
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    #[serde(with = "crate::packed::rows")]
    #[schemars(with = "crate::packed::PackedRows")]
    pub server_wall_us: Vec<Vec<f64>>,
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    #[serde(with = "crate::packed::rows")]
    #[schemars(with = "crate::packed::PackedRows")]
    pub server_cpu_us: Vec<Vec<f64>>,
}

/// One phase of one side: from one moment to the next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseStat {
    pub from: String,
    pub to: String,
    /// Median over regular connections of the phase's wall time, in µs.
    pub wall_p50_us: f64,
    /// Median over regular connections of the thread CPU time it took, in µs.
    pub cpu_p50_us: f64,
}

/// What one step on the critical path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Socket creation and `connect()` (the kernel's SYN, SYN-ACK, ACK).
    Connect,
    /// The client thread working (building or processing flights, its last write).
    Client,
    /// The server thread working.
    Server,
    /// A flight in transit: from the sender's `<f>_ready` to the receiver's `<f>_read`
    /// (the write, the wire, the wake-up, the read).
    Wire,
}

/// One step of the critical path, with its median.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PathStep {
    pub kind: StepKind,
    /// E.g. `connected → c1_ready` (the client builds its ClientHello).
    pub label: String,
    /// Median over regular connections, in µs.
    pub p50_us: f64,
    /// A `wire` step: the median time its receiver had been waiting when the flight was
    /// ready (the sender's `<f>_ready` − the receiver's moment before `<f>_read`, floored
    /// at 0: a receiver still busy had not started to wait), µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_us: Option<f64>,
    /// A `wire` step: the hop the model gives it ([`Hop::curve`] at `idle_us`), µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modelled_us: Option<f64>,
}

/// The median handshake taken apart, and a model that predicts it.
///
/// Measured: every regular connection's window is cut along its critical path into
/// `connect`, client work, server work and flights in transit (exactly: the parts of one
/// connection add up to its window). Model: `predicted_us = tcp_connect_us +
/// client_cpu_us + server_cpu_us + waiting_us`, where the first three are the medians
/// of those parts and `waiting_us` adds each flight's hop, read off the run's
/// [`Hop::curve`] at how long that flight's receiver had been waiting (older files: hops
/// × one hop from a ping-pong). A miss of more than 10% says the waiting is not explained
/// by the hops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decomposition {
    /// The critical path, step by step, in order.
    pub path: Vec<PathStep>,
    /// Median over connections of each kind of step's per-connection sum, in µs.
    pub tcp_connect_us: f64,
    /// Wall time of the client's working steps (its thread is busy, not waiting).
    pub client_cpu_us: f64,
    /// Of that, the client's public-key operations (from `crypto_floor_parts`).
    pub client_floor_us: f64,
    /// Thread CPU time the client spent in its working steps (for comparison: it also
    /// counts kernel work charged to the thread).
    pub client_thread_cpu_us: f64,
    pub server_cpu_us: f64,
    pub server_floor_us: f64,
    pub server_thread_cpu_us: f64,
    /// Flights the client waits for on the critical path, and the hop they cost: the
    /// mean of the path's `modelled_us` when the run measured a hop curve, otherwise
    /// [`Hop::one_way_us`].
    pub hops: u64,
    pub hop_us: f64,
    /// The sum of the path's `modelled_us` (with a hop curve), otherwise `hops × hop_us`.
    pub waiting_us: f64,
    /// The same, measured: median per-connection sum of the `wire` steps.
    pub waiting_measured_us: f64,
    pub predicted_us: f64,
    pub measured_p50_us: f64,
    /// `predicted_us / measured_p50_us`.
    pub prediction_ratio: f64,
    /// Set when the prediction misses the measured p50 by more than 10%: by how much,
    /// in words. Never a silent gap.
    pub miss: Option<String>,
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
    /// Connections per user-CPU second of the rate tool's client process (for
    /// `openssl s_time`: the s_time process's own user time, from wait4).
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
    /// E.g. `rsa2048-sign-rsa_pss_sha512`, `ecdsa-p256-verify-ecdsa_nistp256_sha256`,
    /// `x25519-keygen`, `mlkem768-encapsulate`: a signature names the TLS signature scheme,
    /// the one rustls's server signs the handshake with (or the CA's, for the chain).
    pub name: String,
    /// Operations timed (both passes together when there are two).
    pub ops: u64,
    /// Median of every operation timed; with two passes, of both pooled.
    pub median_us: f64,
    /// The run times its primitives twice, before the arms and after them: each pass's
    /// own median (null for a pass that did not time this primitive, and in older files).
    #[serde(default)]
    pub median_before_us: Option<f64>,
    #[serde(default)]
    pub median_after_us: Option<f64>,
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
    /// Handshakes completed in each whole second of the window (a connection begun
    /// inside the window whose handshake completed after it is in `after_window`).
    pub per_second: Vec<f64>,
    pub rate_median_per_s: f64,
    /// 25th and 75th percentile of `per_second`.
    pub rate_iqr_per_s: [f64; 2],
    /// Successful connections whose handshake completed after the window closed: in
    /// `succeeded` and the latency samples, not in `per_second`.
    #[serde(default)]
    pub after_window: u64,
    /// How client and server share the machine's CPUs, in words (they run on one host,
    /// in one process: the rate is what the box sustains as both ends at once).
    #[serde(default)]
    pub cpu_sharing: Option<String>,
    /// Open-loop arms (`--open-loop-rates`): connections started on a schedule at an
    /// offered rate, timed from their intended start, by `clients` worker threads;
    /// absent for closed-loop arms (`--concurrency`), where each client waits for its
    /// previous connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<crate::open_loop::OpenLoop>,
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
    /// Connections per user-CPU second of the rate tool's client process (the `openssl
    /// s_time` process), not of the machine or the server.
    PerUserS,
}

/// What a [`Comparison`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ComparisonKind {
    /// `p50(full) / p50(resumed)`: baseline is the full arm, candidate the resumed one
    /// (never a 0-RTT arm: that is [`ComparisonKind::ZeroRttSpeedup`]). Above 1 means
    /// resumption is faster.
    ResumeSpeedup,
    /// `p50(TLS) / p50(TCP connect)`: baseline is TCP, candidate the TLS arm, both measured
    /// under the same conditions (emulated RTT, link model, concurrent clients).
    TlsOverTcp,
    /// `p50(full) / p50(0-RTT)` of the time to the first response byte: baseline is the
    /// full arm of the same protocol, cert and group (request mode), candidate the 0-RTT
    /// arm (an arm with `early_data` counts). Above 1 means 0-RTT answers sooner.
    ZeroRttSpeedup,
    /// `rate(reuse) / rate(new)` for a rate-only tool, per [`RateBasis`], only where
    /// resumption was confirmed: baseline is the `-new` arm, candidate the `-reuse` arm.
    ResumeRateSpeedup,
    /// `p50(traced) / p50(untraced)`: what recording phase timestamps costs. Baseline is
    /// the control arm (recording off), candidate the arm it copies. (Files from before
    /// each arm measured its own cost in `tracing`.)
    PhaseRecordingCost,
    /// `p50(control) / p50(arm)`: what the CPU placement does to one arm. Baseline is the
    /// arm as the run placed it, candidate its control copy placed the other way (e.g.
    /// both ends on one CPU against a split run), measured in the same rounds.
    CpuPlacementEffect,
}

/// An enum written as strings. With `unknown => Variant`, a name this build does not know
/// reads as that variant (so a file from a newer collector still loads); without it, an
/// unknown name is refused with the known ones.
macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        string_enum!(@enum $(#[$m])* $name { $($(#[$vm])* $var = $s),+ } unknown => |s: &str| {
            Err(serde::de::Error::unknown_variant(s, &[$($s),+]))
        });
    };
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? } unknown => $fallback:ident) => {
        string_enum!(@enum $(#[$m])* $name { $($(#[$vm])* $var = $s),+ } unknown => |_: &str| {
            Ok($name::$fallback)
        });
    };
    (@enum $(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ } unknown => $unknown:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $s)] $var,)+
        }
        // By hand rather than derived: a lookup in `ALL` by name, the same names and the
        // same error as the derive, and far less code in the viewer's wasm (six enums).
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == s)
                    .map_or_else(|| ($unknown)(&*s), Ok)
            }
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
        /// nginx (server; OpenSSL inside), run by the collector on loopback.
        Nginx = "nginx",
        /// Caddy (server; Go's crypto/tls), run by the collector on loopback.
        Caddy = "caddy",
        /// GnuTLS's `gnutls-serv` (server).
        GnutlsServ = "gnutls-serv",
        /// GnuTLS's `gnutls-cli` (client).
        GnutlsCli = "gnutls-cli",
        /// A server the lab does not run (`collector probe HOST:PORT`): only the
        /// client's end of each connection is seen.
        Remote = "remote",
        /// HAProxy (server; OpenSSL inside), run by the collector on loopback.
        Haproxy = "haproxy",
        /// Botan's `botan tls_server` (server; Botan's own TLS), run by the collector.
        BotanServer = "botan-tls_server",
        /// A stack this build does not know (a newer collector's): every unknown name in
        /// a file reads as this, so an older viewer still shows the arm. Never written.
        Other = "other",
    }
    unknown => Other
);

string_enum!(
    /// What one end of an arm's connections was checked for, connection by connection.
    Verification {
        /// This end reported every connection (its handshake kind, version, group) and
        /// each report was checked against what the arm measures.
        PerConnection = "per-connection",
        /// This end's connections were not checked one by one (it gives no report of
        /// each, e.g. `openssl s_server`, Caddy, a probed server): what it did is not
        /// known, and its `resumed` count is 0 because nothing was counted. (A rate tool's
        /// server may still give totals in `handshake_kinds`, checked only in sum.)
        Unverified = "unverified",
        /// Nothing to verify on this end: no TLS handshake (plain TCP).
        NotApplicable = "not-applicable",
    }
);

/// What each end of an arm's connections was checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Verified {
    pub client: Verification,
    pub server: Verification,
}

impl Verified {
    pub const BOTH: Verified = Verified {
        client: Verification::PerConnection,
        server: Verification::PerConnection,
    };
    pub const CLIENT_ONLY: Verified = Verified {
        client: Verification::PerConnection,
        server: Verification::Unverified,
    };
    pub const NOT_APPLICABLE: Verified = Verified {
        client: Verification::NotApplicable,
        server: Verification::NotApplicable,
    };
}

impl Arm {
    /// What each end was checked for: `verified` where the file has it; for older files
    /// and arms never run, what the collector did before it recorded this: plain TCP has
    /// nothing to verify; rate tools, `openssl s_server`, Caddy and probed servers gave no
    /// server report; every other end reported each connection.
    pub fn verified_ends(&self) -> Verified {
        if let Some(v) = self.verified {
            return v;
        }
        if self.protocol == Protocol::Tcp {
            return Verified::NOT_APPLICABLE;
        }
        let silent_server = self.rate.is_some()
            || matches!(
                self.server_stack,
                Stack::OpensslSServer | Stack::Caddy | Stack::Remote
            );
        if silent_server {
            Verified::CLIENT_ONLY
        } else {
            Verified::BOTH
        }
    }

    /// Resumed connections by each end's own count, None for an end whose count means
    /// nothing (unverified, or not applicable).
    pub fn resumed_by_end(&self) -> (Option<u64>, Option<u64>) {
        let v = self.verified_ends();
        let count = |end: Verification, n: u64| (end == Verification::PerConnection).then_some(n);
        (
            count(v.client, self.resumed.client),
            count(v.server, self.resumed.server),
        )
    }
}

string_enum!(
    /// Where the client and the server run (`--placement`).
    CpuPlacement {
        /// Client threads on one set of CPUs, every server on another: as on two hosts.
        Split = "split",
        /// Client and server on one CPU: the co-located case.
        Same = "same",
        /// No affinity: wherever the scheduler puts them, connection by connection.
        Free = "free",
    }
);

string_enum!(
    /// How the intended start times of an open-loop arm were drawn.
    Arrival {
        /// Evenly spaced: connection `i` is meant to start at `i / offered_per_s`.
        Constant = "constant",
        /// A Poisson process: exponential gaps with mean `1 / offered_per_s`, drawn from
        /// a seeded generator (`seed`), so the same seed gives the same schedule.
        Poisson = "poisson",
    }
);

string_enum!(
    /// What kind of run a file holds, i.e. how `collector` was asked to run.
    RunKind {
        /// `collector run` with its default plan (peers, default certs and groups).
        Default = "default",
        /// `collector run --quick`: the default plan with fewer samples (a smoke run).
        Quick = "quick",
        /// `collector run` with its plan changed by flags (`--arms`, `--no-peers`,
        /// `--certs`, `--groups`, `--matrix`, `--concurrency`, `--request`, …).
        Subset = "subset",
        /// `collector run --rtt`: emulated round trips.
        Rtt = "rtt",
        /// `collector run --target`: client and server on two hosts.
        TwoHosts = "two-hosts",
        /// `collector probe`: a server the lab does not run.
        Probe = "probe",
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
    /// One connection (a full handshake) carrying several requests: the time per request
    /// after the first (see `Arm.keepalive`).
    KeepAlive = "keepalive",
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
    /// The server certificate's key (the chain's leaf; the root CA and every intermediate
    /// use the same kind).
    CertKind {
        Rsa2048 = "rsa2048",
        Rsa3072 = "rsa3072",
        Rsa4096 = "rsa4096",
        EcdsaP256 = "ecdsa-p256",
        EcdsaP384 = "ecdsa-p384",
        Ed25519 = "ed25519",
        /// ML-DSA (FIPS 204), the post-quantum signature, at its three parameter sets.
        MlDsa44 = "ml-dsa-44",
        MlDsa65 = "ml-dsa-65",
        MlDsa87 = "ml-dsa-87",
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
