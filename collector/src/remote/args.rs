//! `collector serve`'s arguments.

use std::path::PathBuf;

use clap::Args;

use crate::arms::set::ArmSet;
use crate::limits::MAX_IO_TIMEOUT_MS;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Control address; the arms' servers bind the same IP on free ports.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7443")]
    pub listen: std::net::SocketAddr,
    /// Allow a non-loopback --listen address (a real network between two hosts).
    #[arg(long)]
    pub allow_remote: bool,
    /// Where to write the CA certificates (PEM, no private key) the client must trust.
    #[arg(long, value_name = "FILE", default_value = "handshake-lab-ca.pem")]
    pub ca_out: PathBuf,
    #[command(flatten)]
    pub set: ArmSet,
    /// Serve in request/response mode (TTFB) and add the 0-RTT arms.
    #[arg(long)]
    pub request: bool,
    /// Give up on a connection that makes no progress for this long (1 to 600000: 0 is
    /// not a timeout the kernel accepts, and a connection stalled for more than ten
    /// minutes measures no handshake).
    #[arg(long, value_name = "MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=MAX_IO_TIMEOUT_MS))]
    pub io_timeout_ms: u64,
    /// Testing aid: the servers keep no session state and issue no tickets, so this end
    /// never resumes and a client's resumed arms must come out as errors (exit 3).
    #[arg(long)]
    pub break_resumption: bool,
}
