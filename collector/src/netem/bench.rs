//! `collector relay-bench`: the relay's own cost, measured rather than assumed (a
//! benchmark that prints, never a pass/fail test on a time).
//!
//! - **Added time per packet at 0 ms**: a 1-byte ping-pong over one TCP connection
//!   (`TCP_NODELAY`) on plain loopback, then through the emulated path with `rtt=0ms`.
//!   Each round trip is one data segment each way (each ACK rides on the next segment), so
//!   (p50 over the relay − p50 on loopback) / 2 is what one pass through the relay adds:
//!   two TUN devices, a wake-up of a relay thread and its copy.
//! - **Throughput of handshake-sized flights**: one connection carries bursts of B bytes
//!   (16, 32, 64 KB by default), each written at once and answered with one byte when the
//!   last byte arrived; Gbit/s = 8·B / (burst time). Through the relay at `rate=…` (the
//!   link's serialization, 1000mbit by default) and with no rate (the relay's own
//!   ceiling), beside loopback. The packets the relay saw per burst are its own count.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::{DelayPath, LinkSpec, SERVER_ADDR};

#[derive(Debug, clap::Args)]
pub struct RelayBenchArgs {
    /// Round trips of the 1-byte ping-pong, on loopback and over the relay.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(10..=1_000_000))]
    pub pings: u32,
    /// Burst sizes in KB (1,000 bytes), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16,32,64")]
    pub bursts_kb: Vec<u32>,
    /// Bursts per size and link.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(10..=100_000))]
    pub bursts: u32,
    /// The link's rate for the throughput part, in `--link` syntax (`1000mbit`).
    #[arg(long, default_value = "1000mbit")]
    pub rate: String,
}

/// A server on `listener` that answers each byte with one byte (`burst` 0), or reads
/// `burst` bytes and answers with one byte, until the client closes.
fn serve(listener: TcpListener, burst: usize) -> Result<()> {
    let (mut s, _) = listener.accept()?;
    s.set_nodelay(true)?;
    let mut buf = vec![0u8; burst.max(1)];
    loop {
        if s.read_exact(&mut buf).is_err() {
            return Ok(());
        }
        s.write_all(b"x")?;
    }
}

/// Median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// p50 round trip (µs) of `n` 1-byte ping-pongs to `addr`.
fn ping(addr: SocketAddr, n: u32) -> Result<f64> {
    let mut c = TcpStream::connect(addr).with_context(|| format!("connect {addr}"))?;
    c.set_nodelay(true)?;
    c.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut b = [0u8; 1];
    let mut rtts = Vec::with_capacity(n as usize);
    for i in 0..n + 100 {
        let t = Instant::now();
        c.write_all(b"p")?;
        c.read_exact(&mut b)?;
        if i >= 100 {
            rtts.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    Ok(median(&mut rtts))
}

/// p50 time (µs) of `n` bursts of `bytes` to `addr`, answered with one byte each.
fn bursts(addr: SocketAddr, bytes: usize, n: u32) -> Result<f64> {
    let mut c = TcpStream::connect(addr).with_context(|| format!("connect {addr}"))?;
    c.set_nodelay(true)?;
    c.set_read_timeout(Some(Duration::from_secs(5)))?;
    let data = vec![7u8; bytes];
    let mut b = [0u8; 1];
    let mut times = Vec::with_capacity(n as usize);
    // 20 untimed bursts first: the congestion window opens, as a warm connection's would.
    for i in 0..n + 20 {
        let t = Instant::now();
        c.write_all(&data)?;
        c.read_exact(&mut b)?;
        if i >= 20 {
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    Ok(median(&mut times))
}

/// Starts a server (in the server namespace when `path` is given) and runs `client`
/// against it from this thread (which must be in the client namespace for a path).
fn against<T>(
    path: Option<&DelayPath>,
    burst: usize,
    client: impl FnOnce(SocketAddr) -> Result<T>,
) -> Result<(T, u16)> {
    let listener = match path {
        Some(p) => p.placement().bind()?,
        None => TcpListener::bind("127.0.0.1:0")?,
    };
    let port = listener.local_addr()?.port();
    let ip = if path.is_some() {
        SERVER_ADDR
    } else {
        std::net::Ipv4Addr::LOCALHOST
    };
    let server = std::thread::spawn(move || serve(listener, burst));
    let out = client(SocketAddr::from((ip, port)))?;
    server.join().expect("the bench server does not panic")?;
    Ok((out, port))
}

pub fn command(args: &RelayBenchArgs) -> Result<()> {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "relay-bench: load average before {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let (loop_rtt, _) = against(None, 0, |a| ping(a, args.pings))?;
    let mut loop_bursts = Vec::new();
    for kb in &args.bursts_kb {
        let bytes = *kb as usize * 1000;
        loop_bursts.push(against(None, bytes, |a| bursts(a, bytes, args.bursts))?.0);
    }
    let stop = AtomicBool::new(false);
    let path = DelayPath::new(&stop)
        .context("the relay bench needs root, `ip` (iproute2) and /dev/net/tun")?;
    let zero = LinkSpec::parse("rtt=0ms").map_err(anyhow::Error::msg)?;
    let rated =
        LinkSpec::parse(&format!("rtt=0ms,rate={}", args.rate)).map_err(anyhow::Error::msg)?;
    let path = &path;
    let lines = std::thread::scope(|s| {
        s.spawn(move || -> Result<Vec<String>> {
            path.client.enter()?;
            path.set_link(&zero, 0)?;
            let (relay_rtt, _) = against(Some(path), 0, |a| ping(a, args.pings))?;
            let mut out = vec![format!(
                "1-byte ping-pong p50 ({} round trips): loopback {loop_rtt:.1} µs, through the relay at rtt=0ms {relay_rtt:.1} µs: {:.1} µs added per pass (two passes per round trip)",
                args.pings,
                (relay_rtt - loop_rtt) / 2.0
            )];
            for (kb, lo) in args.bursts_kb.iter().zip(&loop_bursts) {
                let bytes = *kb as usize * 1000;
                let gbit = |us: f64| bytes as f64 * 8.0 / (us * 1e3);
                let mut parts = vec![format!("loopback {lo:.0} µs ({:.2} Gbit/s)", gbit(*lo))];
                for (name, link) in [("no rate", &zero), (args.rate.as_str(), &rated)] {
                    path.set_link(link, 0)?;
                    let (us, port) = against(Some(path), bytes, |a| bursts(a, bytes, args.bursts))?;
                    let [to_server, _] = path.counts(port);
                    let per_burst = to_server.seen as f64 / f64::from(args.bursts + 20);
                    parts.push(format!(
                        "relay {name} {us:.0} µs ({:.2} Gbit/s; {per_burst:.1} packets to the server per burst, {:.2} µs per packet)",
                        gbit(us),
                        us / per_burst.max(1.0)
                    ));
                }
                out.push(format!(
                    "{kb} KB bursts, p50 of {}: {}",
                    args.bursts,
                    parts.join("; ")
                ));
            }
            Ok(out)
        })
        .join()
        .expect("the bench thread does not panic")
    })?;
    for l in lines {
        println!("relay-bench: {l}");
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "relay-bench: load average after {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(())
}
