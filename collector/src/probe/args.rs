//! `collector probe` arguments.

use std::path::PathBuf;

use clap::Args;

use crate::limits::{MAX_BOOTSTRAP, MAX_IO_TIMEOUT_MS, MAX_ROUNDS, MAX_SAMPLES};

#[derive(Debug, Args)]
#[command(
    after_help = "What a probe sends: see docs/src/probe.md (the book's \"Probing a server you do \
not run\"). Exit status: 0; 3 an arm's \
evidence carries an error (e.g. a resumption the server offered stopped working); 1 the server \
could not be reached, or another error; 2 bad arguments. An untrusted server is a finding, not \
an error: its trust is reported, and its TLS arms are timed only with --insecure."
)]
pub struct ProbeArgs {
    /// The server: `HOST:PORT` (a name, an IPv4 address, or `[IPv6]:PORT`).
    #[arg(value_name = "HOST:PORT")]
    pub target: String,

    /// Trust only the CA certificates in this PEM file.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "system_roots",
        required_unless_present = "system_roots"
    )]
    pub ca: Option<PathBuf>,

    /// Trust the operating system's root certificates (read with rustls-native-certs).
    #[arg(long)]
    pub system_roots: bool,

    /// INSECURE: time the TLS arms without verifying the server's certificate (any
    /// certificate is accepted, as `curl -k` does; the handshake signature is still
    /// checked), so the latencies leave out a verifying client's cost. Recorded in the
    /// evidence. Without it, the TLS arms of a server the roots do not trust are skipped.
    /// Discovery never needs it: it accepts any certificate and reports trust (with
    /// --ca or --system-roots, still required) as a finding of its own.
    #[arg(long)]
    pub insecure: bool,

    /// The server name to send (SNI) and to verify the certificate against [default:
    /// HOST].
    #[arg(long, value_name = "NAME")]
    pub sni: Option<String>,

    /// Timed connections per arm (the probe is polite by default: 50).
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=MAX_SAMPLES))]
    pub samples: u64,

    /// Interleaved rounds (5 or more give a confidence interval).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=MAX_ROUNDS))]
    pub rounds: u64,

    /// Untimed connections per arm before each round's chunk (they prime resumption).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub warmup_per_chunk: u64,

    /// Pause after every connection before the next one starts, in ms.
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(..=60_000))]
    pub pause_ms: u64,

    /// At most this many connections per second (all arms together).
    #[arg(long, value_name = "PER_S", default_value_t = 10.0, value_parser = parse_rate)]
    pub rate: f64,

    /// Where to write the evidence (DIR/<run-id>.json and DIR/index.json).
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Give up on a connection that makes no progress for this long.
    #[arg(long, value_name = "MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=MAX_IO_TIMEOUT_MS))]
    pub io_timeout_ms: u64,

    /// Seed for the arm order and the bootstrap [default: random; recorded].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Bootstrap resamples for the confidence intervals.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(100..=MAX_BOOTSTRAP))]
    pub bootstrap: u64,
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of connections per second"))?;
    if !(0.01..=10_000.0).contains(&v) {
        return Err(format!(
            "{v} is outside 0.01..=10000 connections per second"
        ));
    }
    Ok(v)
}

/// `host:port`, `[v6]:port` → (host, port).
pub fn split_target(text: &str) -> Result<(String, u16), String> {
    let (host, port) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("`{text}` is not HOST:PORT"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(format!("`{text}` has no host"));
    }
    let port: u16 = port
        .parse()
        .ok()
        .filter(|&p| p != 0)
        .ok_or_else(|| format!("`{port}` in `{text}` is not a port (1-65535)"))?;
    Ok((host.to_string(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_into_host_and_port() {
        assert_eq!(
            split_target("example.com:443"),
            Ok(("example.com".into(), 443))
        );
        assert_eq!(split_target("[::1]:8443"), Ok(("::1".into(), 8443)));
        assert!(split_target("example.com").is_err());
        assert!(split_target("example.com:0").is_err());
        assert!(split_target(":443").is_err());
        assert!(split_target("h:https").is_err());
        assert!(parse_rate("0").is_err());
        assert_eq!(parse_rate("2.5"), Ok(2.5));
    }
}
