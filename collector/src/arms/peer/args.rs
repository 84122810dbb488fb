//! The peer arms' flags ([`PeerArgs`], flattened into `collector run`): read by the
//! driver (`crate::peers`) to plan and look up tools, and by the stacks for their own
//! settings.

/// The peer arms' flags (flattened into `collector run`).
#[derive(Debug, Clone, clap::Args)]
pub struct PeerArgs {
    /// Run no peer arms (openssl s_time / s_server, Python ssl, nginx, Caddy, GnuTLS,
    /// HAProxy, Botan);
    /// the evidence then has only rustls and TCP arms. By default they run when their
    /// tool is on PATH.
    #[arg(long, conflicts_with = "require_peers")]
    pub no_peers: bool,

    /// Fail before measuring if a peer tool (`openssl`, `python3`, `nginx`, `caddy`,
    /// `gnutls-serv`, `gnutls-cli`, `haproxy`, `botan`) is not on PATH, instead of recording its arms as
    /// skipped with the reason.
    #[arg(long)]
    pub require_peers: bool,

    /// Wall-clock seconds of `openssl s_time` connections per s_time arm, split evenly
    /// into --peer-slices separate s_time runs (each cut off by the collector, since
    /// s_time itself only stops on whole seconds).
    #[arg(long, value_name = "S", default_value_t = 1.2, value_parser = parse_seconds)]
    pub peer_seconds: f64,

    /// s_time runs per s_time arm, interleaved across arms; the spread between them
    /// gives the 95% CI of the resume rate speedups (bootstrap over runs).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub peer_slices: u64,

    /// Test only: nginx keeps no sessions and issues no tickets (`ssl_session_cache off;
    /// ssl_session_tickets off;`), so its resumed arms must come out as errors.
    #[arg(long, hide = true)]
    pub nginx_resumption_off: bool,

    /// Timed connections per latency peer arm (Python ssl; rustls client against
    /// openssl s_server, nginx, Caddy, gnutls-serv, HAProxy, botan) [default: 300, or 100 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub peer_samples: Option<u64>,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.05..=600.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds between 0.05 and 600"
        )),
    }
}
