//! Command-line interface: the commands, each with the arguments its own module owns
//! (`run::RunArgs`, `floor::FloorArgs`, `remote::serve::ServeArgs`, …). Nothing here is
//! imported back by a command, so the parser depends on the commands and never the
//! other way round.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "collector",
    version,
    about = "Measure what a TLS handshake really costs, on loopback, with evidence.",
    long_about = "Measure what a TLS handshake really costs, on loopback, with evidence.\n\n\
An ARM is one kind of connection, measured many times: plain TCP connect (the floor), or a \
rustls TLS 1.3 / TLS 1.2 handshake, full or resumed (stateful: server-side session state, \
i.e. TLS 1.2 session IDs or TLS 1.3 stateful PSKs; ticket: encrypted tickets), for one \
certificate kind and one pinned key-exchange group. Arm ids read like \
`tls13-resumed-ticket-ecdsa-p256-x25519`.\n\n\
Every timed connection is checked on both ends: a resumed arm where any handshake was full, \
or a full arm that resumed, is recorded as an error in that arm's evidence and the run \
exits non-zero. Results go to an evidence JSON file (see `collector schema`)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size difference between the variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the arms and write evidence (DIR/<run-id>.json and DIR/index.json).
    Run(crate::run::RunArgs),
    /// Print the JSON Schema of the evidence files, generated from the types.
    Schema,
    /// Time the public-key primitives a handshake uses (like `openssl speed`, but only
    /// what the handshakes here need), with the crypto provider rustls uses.
    Floor(crate::floor::FloorArgs),
    /// Compare two evidence files arm by arm: p50(NEW)/p50(OLD) with a 95% CI, and a
    /// verdict (slower / faster / no evidence of a difference). Exit 4 on a regression.
    #[command(
        long_about = "Compare two evidence files arm by arm (arms with the same id).\n\n\
For every arm in both runs: the ratio p50(NEW) / p50(OLD), a 95% confidence interval of that \
ratio, and a verdict. The interval is a cluster bootstrap over each run's interleaved rounds \
(independently: the runs share no rounds), so drift within either run widens it. The verdict \
is `slower` or `faster` only where the interval excludes 1, and otherwise `no evidence of a \
difference` (as criterion's change detection does). With fewer than 5 rounds \
with samples in either run (e.g. files written before rounds were recorded) there is no \
interval and no claim. An arm with an error, skipped, rate-only (openssl s_time) or with a \
different timed window in the two runs is listed as not comparable; arms in one run only are \
listed too. Settings that move numbers and differ between the runs (host, CPU, samples, \
rounds, ...) are named above the table.\n\n\
A regression is an arm that is `slower` AND whose ratio is above 1 + --threshold: a \
significant but small slowdown is reported without failing, a large ratio whose interval \
includes 1 is noise. (criterion is stricter: it asks the whole interval to clear its noise \
threshold.)"
    )]
    Compare(crate::compare::CompareArgs),
    /// Run the server side of every arm for a client on another host
    /// (`collector run --target ADDR --ca FILE`). Binds loopback unless --allow-remote.
    Serve(crate::remote::serve::ServeArgs),
    /// Probe a TLS server the lab does not run: what it offers (versions, groups,
    /// resumption, 0-RTT, cipher suite, signature scheme, chain) and latency per arm in
    /// RTT multiples, politely paced. See docs/src/probe.md for exactly what it sends.
    Probe(crate::probe::args::ProbeArgs),
    /// How much each arm's p50 moves between runs of one setup: per arm the runs' p50s
    /// and the spread, (max − min) / median. E.g. five back-to-back default runs.
    Spread(crate::spread::SpreadArgs),
    /// One run's medians for the dashboards people already run: Bencher Metric Format
    /// (`--format bmf`: per arm the `latency` measure in ns, p50 with its 95% CI) or
    /// github-action-benchmark (`--format github-action-benchmark`: customSmallerIsBetter
    /// entries in µs). Arms with an error or without a latency are left out and named on
    /// stderr.
    Export(crate::export::ExportArgs),
    /// Benchmark the emulated link's relay (root): the time it adds per packet at 0 ms
    /// (a 1-byte ping-pong against loopback) and the rate it holds for handshake-sized
    /// flights (16-64 KB bursts) with and without a link rate. Prints; never fails on a
    /// time.
    RelayBench(crate::netem::bench::RelayBenchArgs),
    /// Print one of the book's generated reference pages (Markdown), as `cargo xtask docs`
    /// writes them to docs/src/reference/.
    #[command(hide = true)]
    Reference {
        /// Which page.
        page: Page,
    },
    /// One end of an arm's counted handshakes, run by `collector run` under callgrind.
    #[command(hide = true)]
    CountSide(crate::instructions::side::CountSideArgs),
    /// The counted window on a loop of known length, under callgrind: prints the count.
    #[command(hide = true)]
    CountCalibrate(crate::instructions::calibrate::CalibrateArgs),
}

/// A generated page of the book (`collector reference PAGE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Page {
    /// Every visible command's `--help`.
    Cli,
    /// The evidence file's types, from the JSON Schema.
    Evidence,
}
