//! One hop: a small write on one thread until the reading thread has it, over loopback
//! TCP. Measured as half the median round trip of a 1-byte ping-pong between two threads
//! (both directions), in the same run as the arms, before and after them.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::stats::median_in_place;

/// How a hop is measured (recorded in the evidence).
pub const METHOD: &str = "half the median round trip of a 1-byte ping-pong between two threads of the collector over one loopback TCP connection, the echo thread placed as the servers and the other as the clients (settings.placement) (TCP_NODELAY on both ends; each thread blocks in read() until the other's byte arrives, then writes one back): one write, the wire, one wake-up and one read, each way";

/// Untimed round trips before timing.
const WARMUP: usize = 200;

/// Times `round_trips` ping-pongs; returns every round trip in µs. The echo thread runs
/// where the run's servers run (or where `variant`'s would), the calling thread where its
/// clients do: the hop is the one the arms' flights take.
pub fn round_trips_us(
    round_trips: usize,
    io_timeout: Duration,
    variant: Option<shared::CpuPlacement>,
) -> Result<Vec<f64>> {
    let listener = TcpListener::bind("127.0.0.1:0").context("hop: binding on loopback")?;
    let addr = listener.local_addr()?;
    let total = WARMUP + round_trips;
    let echo = std::thread::Builder::new()
        .name("hop echo".into())
        .spawn(move || -> std::io::Result<()> {
            crate::cpu::pin_server_thread(variant)?;
            let (mut s, _) = listener.accept()?;
            s.set_nodelay(true)?;
            // Close with RST, as every other socket of a run: no TIME_WAIT left behind.
            socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO))?;
            s.set_read_timeout(Some(io_timeout))?;
            let mut b = [0u8; 1];
            for _ in 0..total {
                s.read_exact(&mut b)?;
                s.write_all(&b)?;
            }
            Ok(())
        })
        .context("hop: starting the echo thread")?;
    let mut s = TcpStream::connect(addr).context("hop: connect")?;
    s.set_nodelay(true)?;
    socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO))?;
    s.set_read_timeout(Some(io_timeout))?;
    let mut out = Vec::with_capacity(round_trips);
    let mut b = [7u8; 1];
    for i in 0..total {
        let t = Instant::now();
        s.write_all(&b).context("hop: write")?;
        s.read_exact(&mut b).context("hop: read")?;
        if i >= WARMUP {
            out.push(t.elapsed().as_nanos() as f64 / 1000.0);
        }
    }
    echo.join()
        .map_err(|_| anyhow::anyhow!("hop: the echo thread panicked"))?
        .context("hop: echo")?;
    Ok(out)
}

/// One hop in µs from round trips: half their median.
pub fn one_way_us(round_trips: &[f64]) -> f64 {
    median_in_place(&mut round_trips.to_vec()) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_way_is_half_the_median_round_trip() {
        assert_eq!(one_way_us(&[50.0, 60.0, 1000.0]), 30.0);
        assert_eq!(one_way_us(&[10.0]), 5.0);
    }

    #[test]
    fn ping_pong_times_every_round_trip() {
        let rt = round_trips_us(300, Duration::from_secs(5), None).unwrap();
        assert_eq!(rt.len(), 300);
        assert!(rt.iter().all(|x| x.is_finite() && *x > 0.0), "{rt:?}");
    }
}
