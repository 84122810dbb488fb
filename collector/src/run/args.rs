//! `collector run`'s arguments, as clap parses them. [`super::options::RunOptions`] is
//! what the run uses: built once from these, every flag checked and turned into a type.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::arms::set::ArmSet;
use crate::limits::{
    MAX_BOOTSTRAP, MAX_CAPACITY_SECONDS, MAX_IO_TIMEOUT_MS, MAX_OPEN_LOOP_RATE, MAX_ROUNDS,
    MAX_SAMPLES,
};

#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 all arms sound; 3 an arm's evidence has an error (e.g. a \
resumed arm that did not resume; the evidence is still written); 130 interrupted by Ctrl-C \
(arms measured so far are saved with `complete: false`); 1 anything else (message on stderr)."
)]
pub struct RunArgs {
    /// Folder for the evidence; created if missing. Earlier runs in it are kept.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Timed connections per arm [default: 1000, or 100 with --quick]; at most 1000000
    /// (every sample is kept, in memory and in the evidence file).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SAMPLES))]
    pub samples: Option<u64>,

    /// Untimed warm-up connections per arm, spread over the rounds (at least one before
    /// each chunk, which also primes resumption) [default: 100, or 20 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(..=MAX_SAMPLES))]
    pub warmup: Option<u64>,

    /// Interleave arms: take each arm's samples in this many chunks, visiting every arm
    /// once per round in a shuffled order, so drift in machine load hits all arms alike.
    /// At most 10000 (each round keeps a median per arm; more rounds than samples are cut
    /// to the samples).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=MAX_ROUNDS))]
    pub rounds: u64,

    #[command(flatten)]
    pub set: ArmSet,

    /// The full cross: every TLS version × mode × every cert kind × every group
    /// (overrides --certs and --groups; TLS 1.2 skips what it cannot negotiate). Pair with
    /// e.g. `--samples 300`.
    #[arg(long)]
    pub matrix: bool,

    /// Capacity arms: for each N, N client threads against one server with N worker
    /// threads, full and resumed TLS 1.3 (first --certs kind, first --groups group), for
    /// --capacity-seconds each. Reports handshakes per second for every whole second, and
    /// latency under that load. E.g. `--concurrency 1,2,4`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: Vec<u64>,

    /// Seconds each capacity arm runs (at most 3600: every second keeps its own rate).
    #[arg(long, value_name = "S", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=MAX_CAPACITY_SECONDS))]
    pub capacity_seconds: u64,

    /// Open-loop capacity sweep, e.g. `--open-loop-rates 200,400,800,1600`: for each
    /// offered rate (new connections per second), connections START ON A SCHEDULE rather
    /// than when the previous one is done, and each latency is counted from its intended
    /// start, so time spent waiting for a busy server is in it (a closed loop such as
    /// --concurrency hides that wait: coordinated omission). Full and ticket-resumed TLS
    /// 1.3 (first --certs kind, first --groups group), --open-loop-seconds per rate and
    /// mode. Records offered vs achieved handshakes/s, p50/p99 from the intended start,
    /// connections that began late (more than 1 ms) and by how much, and failures; the
    /// summary names the knee (where p99 more than doubles, or achieved falls below 90%
    /// of offered). Each rate: at most 1000000 connections (rate × seconds).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=MAX_OPEN_LOOP_RATE))]
    pub open_loop_rates: Vec<u64>,

    /// How the open-loop start times are drawn: `constant` (evenly spaced, 1/rate apart)
    /// or `poisson` (exponential gaps with mean 1/rate, from --seed, as independent
    /// clients would arrive; recorded per arm).
    #[arg(long, value_name = "KIND", default_value = "constant")]
    pub arrival: shared::Arrival,

    /// Seconds each open-loop rate runs, per mode (1 to 3600). A connection that could
    /// only begin more than this late is not made and is counted as failed, so a rate
    /// ends at most about twice this after it starts.
    #[arg(long, value_name = "S", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=MAX_CAPACITY_SECONDS))]
    pub open_loop_seconds: u64,

    /// Client worker threads of the open loop (1 to 256), and as many server workers:
    /// a scheduled connection waits (its wait counted) when all of them are busy.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub open_loop_workers: u64,

    /// Skip timing the public-key primitives (no crypto floor in the evidence).
    #[arg(long)]
    pub no_floor: bool,

    /// Do not record phase timestamps. By default, interleaved with each rustls arm's
    /// connections in handshake mode, one connection in every --trace-every + 1 stamps
    /// its moments on both ends (connect, each flight built, written and read, done) so
    /// the evidence can take the arm's median handshake apart (connect, client work,
    /// server work, flights in transit) and predict it from its parts and one measured
    /// hop. The arm's percentiles, CIs and comparisons come from the untraced connections
    /// only; the difference between the two is each arm's measured cost of recording.
    #[arg(long)]
    pub no_phases: bool,

    /// One traced connection (phases recorded) after every Nth untraced one of each rustls
    /// arm, counted across its chunks (2 to 1000). The traced ones are extra: --samples
    /// counts the untraced ones the arm's numbers come from.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub trace_every: u64,

    /// Steal threshold, in per cent of one CPU's time (0 to 100; 100 switches it off).
    /// Around every chunk of every arm the collector reads the hypervisor's steal per CPU
    /// (/proc/stat); a chunk during which any CPU's steal exceeded this is set aside (its
    /// samples kept in the evidence, not used) and measured again at the end of its
    /// round, at most --rounds extra chunks per arm and half the loop's time.
    /// Past that budget the chunk is used and the arm is marked noisy. Steal is counted
    /// in 10 ms ticks, so a chunk shorter than 10 ms × 100 / PCT is set aside as soon as
    /// one tick of steal falls in it.
    #[arg(long, value_name = "PCT", default_value_t = 5.0, value_parser = parse_max_steal)]
    pub max_steal: f64,

    /// Where the client and the servers run. `split`: client threads on one half of the
    /// CPUs this process may use, every server (the in-process rustls servers and peer
    /// processes such as nginx) on the other half, as on two hosts. `same`: both on one
    /// CPU (the co-located case). `free`: no affinity, the scheduler decides per
    /// connection (the mixture earlier runs measured). Each connection's two CPUs are
    /// sampled and an arm whose placement did not hold is an error. With one CPU,
    /// `split` falls back to `free` and the evidence says why. Under `split` and `same`
    /// a control copy of the first TLS 1.3 full arm runs placed the other way
    /// (`…-cpu-same` / `…-cpu-split`), interleaved, to show what placement does.
    #[arg(long, value_name = "HOW", default_value = "split", value_parser = parse_placement)]
    pub placement: shared::CpuPlacement,

    /// Request/response mode: after the handshake the client sends a small request and
    /// the timed window ends at the first response byte (TTFB), for every arm; adds a
    /// TLS 1.3 0-RTT arm per cert and group whose request goes out as early data.
    #[arg(long)]
    pub request: bool,

    /// Requests each keep-alive arm's connection carries (request mode: `--request` or
    /// `--rtt`, which add a keep-alive arm per protocol × cert × group). A sample is the
    /// mean time per request after the first, on one connection.
    #[arg(long, value_name = "N", default_value_t = crate::arms::keepalive::DEFAULT_REQUESTS, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub keepalive_requests: u64,

    /// Emulated round-trip times, e.g. `0,1,10,50ms`: runs the selected arms (in
    /// request/response mode, unless --handshake-window) with that RTT between client
    /// and server instead of on loopback, every RTT (and loss) interleaved in the same
    /// shuffled rounds. The delay is applied to every packet, SYN and
    /// SYN-ACK included, by a user-space delay line between TUN devices in two network
    /// namespaces made for the run and removed after it. Needs root. Default samples
    /// with --rtt: 20 per arm and RTT.
    #[arg(long, value_name = "LIST", value_parser = RttList::parse)]
    pub rtt: Option<RttList>,

    /// The emulated link's settings, e.g. `rtt=5.6ms,loss=3%,rate=1000mbit,limit=1000`;
    /// also `jitter=1ms` (uniform ±, never reordering), `burst=3` (Gilbert-Elliott mean
    /// loss burst, packets), `mtu=1500`. Every packet meets them, SYN included; the loss
    /// RNG is seeded from --seed and recorded. Implies an emulated run as --rtt does
    /// (root); --rtt and --loss vary the RTT and the loss over the other settings.
    #[arg(long, value_name = "SETTINGS", value_parser = super::link_args::LinkArg::parse)]
    pub link: Option<super::link_args::LinkArg>,

    /// Loss rates, e.g. `0%,1%,3%`: with --rtt, every RTT × loss combination is a cell
    /// of the grid (ids `…-loss3pct-rtt20ms`), all cells interleaved in the same shuffled
    /// rounds on one path, each cell's servers on a link of their own. A 0% cell of each
    /// RTT is always measured (added if not asked): each lossy cell's effect is its
    /// median over that control's, paired round by round (`loss_effect`), whole and for
    /// its connections the link dropped nothing of (`populations`). Samples: a p95 needs --samples 72 or more per arm to have
    /// a distribution-free 95% interval inside the sample (order statistics of a binomial
    /// at 0.95: with 100 it is the 90th to the 100th sample); the 20 of --rtt's default
    /// put p95 on the 19th of 20, with no interval. See docs/src/links.md.
    #[arg(long, value_name = "LIST", value_parser = super::link_args::LossList::parse)]
    pub loss: Option<super::link_args::LossList>,

    /// On an emulated link (--rtt, --link, --loss), time TCP connect + the handshake
    /// alone, as on loopback: the window ends when the client's handshake completes,
    /// not at the answer to a request (one round trip later), and phases are recorded.
    /// No keep-alive or 0-RTT arms then (they need a request). For a table of "connect +
    /// TLS handshake" against loss or RTT.
    #[arg(long, conflicts_with = "request")]
    pub handshake_window: bool,

    /// Emulated links (RTT × loss combinations of --rtt/--loss) measured at the same
    /// time, each on a path of its own: its own pair of network namespaces, TUN devices
    /// and relay threads (1 to 64; 1, the default: every cell interleaved on one path,
    /// one connection at a time). A lossy link's connections mostly wait on TCP's
    /// timers, so a grid of them is bound by waiting, not by CPU; the links with the
    /// longest RTT and loss start first. What it costs: connections of different links
    /// overlap in time (within a link they never do), the cells are no longer measured
    /// in the same rounds, so no cell pairs with its 0% control (no `loss_effect`), and
    /// the evidence says so (settings.extra.link). On two CPUs, 20 links at once made a
    /// 0%-loss cell at 5.6 ms up to 2.6 ms slower at p95
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub parallel_links: u16,

    /// Run the client side against `collector serve` at ADDR (its control address)
    /// instead of starting local servers. Needs --ca and --token.
    #[arg(long, value_name = "ADDR", requires = "ca", requires = "token")]
    pub target: Option<std::net::SocketAddr>,

    /// The token `collector serve` printed when it started (with --target).
    #[arg(long, value_name = "TOKEN", requires = "target")]
    pub token: Option<String>,

    /// The CA bundle `collector serve` wrote: the only certificates the client trusts.
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,

    /// Allow a non-loopback --target (a real network between two hosts).
    #[arg(long)]
    pub allow_remote: bool,

    /// Run only arms whose id matches one of these comma-separated patterns (a pattern
    /// matches anywhere in the id; `*` matches any run of characters), e.g.
    /// `tcp,tls13-full` or `tls12-*-ticket-*`.
    #[arg(long, value_name = "FILTER")]
    pub arms: Option<String>,

    /// A quick run for smoke tests: fewer samples and warm-ups (unless given), 5 rounds.
    #[arg(long)]
    pub quick: bool,

    /// Print the ids of the arms that would run, and exit.
    #[arg(long)]
    pub list_arms: bool,

    /// Seed for the arm order and the bootstrap [default: random; recorded in the evidence].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Bootstrap resamples for the confidence intervals of ratios (100 to 100000: each
    /// resample redraws every sample of an arm, so the cost grows with both).
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(100..=MAX_BOOTSTRAP))]
    pub bootstrap: u64,

    /// Give up on a connection that makes no progress for this long (1 to 600000: 0 is
    /// not a timeout the kernel accepts, and a connection stalled for more than ten
    /// minutes measures no handshake).
    #[arg(long, value_name = "MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=MAX_IO_TIMEOUT_MS))]
    pub io_timeout_ms: u64,

    /// Testing aid: servers keep no session state and issue no tickets, so every resumed
    /// arm must come out as an error. Shows that the resumption check works.
    #[arg(long)]
    pub break_resumption: bool,

    /// Testing aid: servers refuse early data, so every 0-RTT arm (`--request`) must come
    /// out as an error. Shows that the early-data check works.
    #[arg(long, conflicts_with = "break_resumption")]
    pub refuse_early_data: bool,

    /// Testing aid (hidden): the capacity arms' servers (closed and open loop) close every
    /// Nth connection they accept, unserved, so the failures must be counted (N = 1: every connection fails and
    /// each capacity arm must come out as an error).
    #[arg(long, value_name = "N", hide = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub inject_capacity_drops: Option<u32>,

    #[command(flatten)]
    pub peers: crate::arms::peer::PeerArgs,

    #[command(flatten)]
    pub instructions: crate::instructions::InstructionArgs,
}

/// `--placement split|same|free`.
fn parse_placement(s: &str) -> Result<shared::CpuPlacement, String> {
    s.parse()
}

/// `--rtt 0,1,10,50ms` (or `20`, `20ms`): round-trip times, parsed when the command line
/// is; `text` is the list as given, which the evidence records.
#[derive(Debug, Clone, PartialEq)]
pub struct RttList {
    pub text: String,
    pub rtts: Vec<Duration>,
}

impl RttList {
    /// Milliseconds, comma-separated, each 0 to 10000 with or without `ms`.
    pub fn parse(text: &str) -> Result<RttList, String> {
        let rtts = text
            .split(',')
            .map(|v| {
                let v = v.trim();
                let ms: f64 = v
                    .strip_suffix("ms")
                    .unwrap_or(v)
                    .trim()
                    .parse()
                    .map_err(|_| {
                        format!("`{v}` is not a number of milliseconds (e.g. `0,1,10,50ms`)")
                    })?;
                if !(0.0..=10_000.0).contains(&ms) {
                    return Err(format!("{ms} ms is outside 0..=10000 ms"));
                }
                Ok(Duration::from_secs_f64(ms / 1000.0))
            })
            .collect::<Result<_, String>>()?;
        Ok(RttList {
            text: text.to_string(),
            rtts,
        })
    }
}

/// `--max-steal`: a percentage from 0 to 100 (`5` or `5%`).
fn parse_max_steal(s: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.strip_suffix('%').unwrap_or(t).trim().parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a percentage from 0 to 100")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    #[test]
    fn rtt_lists_parse_with_or_without_unit() {
        let rtts = |t: &str| RttList::parse(t).map(|l| l.rtts);
        assert_eq!(rtts("0,1,10,50ms").unwrap(), ms(&[0, 1, 10, 50]));
        assert_eq!(rtts("20").unwrap(), ms(&[20]));
        assert_eq!(rtts(" 5ms, 7 ").unwrap(), ms(&[5, 7]));
        assert_eq!(rtts("0.5").unwrap(), vec![Duration::from_micros(500)]);
        assert!(rtts("fast").unwrap_err().contains("not a number"));
        assert!(rtts("-1").unwrap_err().contains("outside"));
        assert!(rtts("10001").is_err());
    }

    #[test]
    fn the_list_keeps_its_text_for_the_evidence() {
        let l = RttList::parse("0,10ms").unwrap();
        assert_eq!(l.text, "0,10ms");
        assert_eq!(l.rtts, ms(&[0, 10]));
    }
}
