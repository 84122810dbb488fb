//! What one flight costs against how long its receiver had been waiting for it.
//!
//! On a virtual machine a thread that blocks long enough lets its vCPU halt, and waking a
//! halted vCPU costs tens of µs more than handing a byte to a thread that has only just
//! started to wait (or has not yet). A handshake's flights meet receivers in both states:
//! the server has waited a few µs for a TLS 1.2 ClientHello built right after connect, the
//! client hundreds of µs for an RSA server's reply. One constant hop explains one of them
//! and misses the other, so the model takes each flight's hop from this curve, at the idle
//! time the phases measured for that flight (see [`super::decompose`]).
//!
//! Measured in the same run as the arms, between two threads placed as the run's clients
//! and servers, in both directions: the sender writes byte A (the receiver wakes, reads it
//! and blocks again), busy-waits a delay, stamps and writes byte B; the receiver stamps
//! when its read of A returned and when its read of B returned. Idle = B ready − A read;
//! one way = B read − B ready, both on one monotonic clock. Delays span 0–900 µs in an
//! interleaved order; samples are binned by the idle time they achieved.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::HopPoint;

use crate::arms::trace::Stamp;

use crate::stats::median_in_place;

/// How the curve is measured (recorded in the evidence).
pub const METHOD: &str = "one-way time of a 1-byte flight between two threads over loopback TCP (TCP_NODELAY; the threads placed as the run's clients and servers, both directions) against how long its receiver had been blocked in read(): the sender writes byte A, busy-waits a delay (0-900 µs, interleaved), stamps and writes byte B and stamps again, as a traced handshake stamps its flights (wall and thread CPU clocks); idle = B ready − the receiver's return from reading A, one way = the receiver's return from reading B − B ready (one monotonic clock); samples binned by idle, median idle and median one way per bin, bins with fewer than 20 samples dropped; first point (idle 0): a receiver that had not blocked (after reading A it tells the sender, which sends B 5 µs later, while it polls the socket without blocking)";

/// Busy-wait before byte B, in µs: one sample of each per round.
const DELAYS_US: [u64; 20] = [
    0, 5, 10, 15, 20, 30, 40, 50, 60, 75, 90, 110, 140, 180, 230, 300, 400, 520, 680, 900,
];

/// The awake receiver's flights: sent this long after it said it polls.
const AWAKE_DELAY_US: u64 = 5;

/// Rounds per direction (each round sends one sample of every delay).
pub const ROUNDS: usize = 40;

/// Upper edges of the idle bins, in µs.
const BIN_EDGES_US: [f64; 16] = [
    5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 65.0, 80.0, 100.0, 130.0, 170.0, 230.0, 320.0, 480.0,
    1000.0,
];

/// Fewest samples for a bin to become a point.
const MIN_BIN: usize = 20;

/// One sample: (receiver idle, one way), µs.
pub type Sample = (f64, f64);

/// A pass of the curve's measurements.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    /// Flights to a receiver blocked in read().
    pub blocked: Vec<Sample>,
    /// One-way times (µs) of flights to a receiver that had not blocked: it polls the
    /// socket without blocking, as a thread still busy finds its peer's flight already
    /// there on its first read.
    pub awake: Vec<f64>,
}

impl Samples {
    pub fn extend(&mut self, other: &Samples) {
        self.blocked.extend_from_slice(&other.blocked);
        self.awake.extend_from_slice(&other.awake);
    }
}

/// Samples in both directions: the calling thread (placed as the clients) sends first,
/// then receives from a thread placed as the servers. `variant` places that thread as a
/// control arm's servers would run.
pub fn samples(
    rounds: usize,
    io_timeout: Duration,
    variant: Option<shared::CpuPlacement>,
) -> Result<Samples> {
    let mut out = Samples::default();
    for client_sends in [true, false] {
        out.blocked
            .extend(direction(rounds, io_timeout, variant, client_sends, false)?);
        let awake = direction(rounds, io_timeout, variant, client_sends, true)?;
        out.awake.extend(awake.iter().map(|s| s.1));
    }
    Ok(out)
}

fn direction(
    rounds: usize,
    io_timeout: Duration,
    variant: Option<shared::CpuPlacement>,
    client_sends: bool,
    awake: bool,
) -> Result<Vec<Sample>> {
    let listener = TcpListener::bind("127.0.0.1:0").context("hop curve: binding on loopback")?;
    let addr = listener.local_addr()?;
    let base = Instant::now();
    // An awake receiver: one flight per delay slot, each sent 5 µs after the receiver
    // said it polls.
    let delays: Vec<u64> = if awake {
        vec![AWAKE_DELAY_US; rounds * DELAYS_US.len() / 4]
    } else {
        (0..rounds).flat_map(|_| DELAYS_US).collect()
    };
    let n = delays.len();
    let theirs_delays = delays.clone();
    let other = std::thread::Builder::new()
        .name("hop curve".into())
        .spawn(move || -> std::io::Result<Vec<(f64, f64)>> {
            crate::cpu::pin_server_thread(variant)?;
            let (s, _) = listener.accept()?;
            let s = prepare(s, io_timeout)?;
            if client_sends {
                receive(s, n, base, awake)
            } else {
                send(s, &theirs_delays, base, awake)
            }
        })
        .context("hop curve: starting the server-side thread")?;
    let s = prepare(
        TcpStream::connect(addr).context("hop curve: connect")?,
        io_timeout,
    )?;
    let mine = if client_sends {
        send(s, &delays, base, awake)
    } else {
        receive(s, n, base, awake)
    };
    let theirs = other
        .join()
        .map_err(|_| anyhow::anyhow!("hop curve: the server-side thread panicked"))?
        .context("hop curve: server side")?;
    let mine = mine.context("hop curve: client side")?;
    // The sender's rows are (B ready, 0); the receiver's (A read, B read).
    let (sent, got) = if client_sends {
        (mine, theirs)
    } else {
        (theirs, mine)
    };
    Ok(sent
        .iter()
        .zip(&got)
        .map(|(&(ready, _), &(a_read, b_read))| (ready - a_read, b_read - ready))
        .collect())
}

fn prepare(s: TcpStream, io_timeout: Duration) -> std::io::Result<TcpStream> {
    s.set_nodelay(true)?;
    // Close with RST, as every other socket of a run: no TIME_WAIT left behind.
    socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO))?;
    s.set_read_timeout(Some(io_timeout))?;
    Ok(s)
}

/// A moment stamped as a traced handshake stamps its own (wall and thread CPU time, so
/// a flight here carries the same clock reads as a traced flight), in µs since `base`.
fn stamp(base: Instant) -> f64 {
    Stamp::now().wall.duration_since(base).as_nanos() as f64 / 1000.0
}

/// Per delay: write A (with an awake receiver, then wait until it polls), busy-wait,
/// stamp, write B, stamp, wait for the receiver's go.
fn send(
    mut s: TcpStream,
    delays: &[u64],
    base: Instant,
    awake: bool,
) -> std::io::Result<Vec<(f64, f64)>> {
    let mut out = Vec::with_capacity(delays.len());
    let mut go = [0u8; 1];
    for &d in delays {
        s.write_all(b"A")?;
        if awake {
            s.read_exact(&mut go)?;
        }
        let until = Instant::now() + Duration::from_micros(d);
        while Instant::now() < until {
            std::hint::spin_loop();
        }
        let ready = stamp(base);
        s.write_all(b"B")?;
        let _written = stamp(base);
        out.push((ready, 0.0));
        s.read_exact(&mut go)?;
    }
    Ok(out)
}

/// Per sample: read A, stamp, read B (blocking, or polling without blocking after
/// telling the sender so), stamp, send the go.
fn receive(
    mut s: TcpStream,
    n: usize,
    base: Instant,
    awake: bool,
) -> std::io::Result<Vec<(f64, f64)>> {
    let mut out = Vec::with_capacity(n);
    let mut b = [0u8; 1];
    for _ in 0..n {
        s.read_exact(&mut b)?;
        let a_read = stamp(base);
        if awake {
            s.write_all(b"p")?;
            poll_one(&mut s, &mut b)?;
        } else {
            s.read_exact(&mut b)?;
        }
        let b_read = stamp(base);
        out.push((a_read, b_read));
        s.write_all(b"g")?;
    }
    Ok(out)
}

/// Reads one byte without blocking, retrying until it is there.
fn poll_one(s: &mut TcpStream, b: &mut [u8; 1]) -> std::io::Result<()> {
    s.set_nonblocking(true)?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let got = loop {
        match s.read(b) {
            Ok(1) => break Ok(()),
            Ok(_) => break Err(std::io::ErrorKind::UnexpectedEof.into()),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    break Err(std::io::ErrorKind::TimedOut.into());
                }
                std::hint::spin_loop();
            }
            Err(e) => break Err(e),
        }
    };
    s.set_nonblocking(false)?;
    got
}

/// The curve from samples: first the awake receiver's median one way at idle 0, then
/// per idle bin of the blocked receiver's (samples whose receiver had started to wait,
/// idle ≥ 0) the median idle and the median one way, in order of idle.
pub fn curve(samples: &Samples) -> Vec<HopPoint> {
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let mut awake: Vec<f64> = samples
        .awake
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    let mut out: Vec<HopPoint> = Vec::new();
    if awake.len() >= MIN_BIN {
        out.push(HopPoint {
            samples: awake.len() as u64,
            idle_us: 0.0,
            one_way_us: round(median_in_place(&mut awake)),
        });
    }
    let mut bins: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); BIN_EDGES_US.len()];
    for &(idle, one_way) in &samples.blocked {
        if !(idle >= 0.0 && one_way.is_finite()) {
            continue;
        }
        if let Some(i) = BIN_EDGES_US.iter().position(|&edge| idle < edge) {
            bins[i].0.push(idle);
            bins[i].1.push(one_way);
        }
    }
    out.extend(
        bins.into_iter()
            .filter(|(idle, _)| idle.len() >= MIN_BIN)
            .map(|(mut idle, mut one_way)| HopPoint {
                samples: idle.len() as u64,
                idle_us: round(median_in_place(&mut idle)),
                one_way_us: round(median_in_place(&mut one_way)),
            }),
    );
    out
}

/// The curve's one way at `idle_us`: linear between its points, its first point's below
/// them (a receiver that had not started to wait) and its last one's above them. None for
/// an empty curve.
pub fn at(curve: &[HopPoint], idle_us: f64) -> Option<f64> {
    let first = curve.first()?;
    let last = curve.last()?;
    if idle_us <= first.idle_us {
        return Some(first.one_way_us);
    }
    if idle_us >= last.idle_us {
        return Some(last.one_way_us);
    }
    let w = curve.windows(2).find(|w| idle_us <= w[1].idle_us)?;
    let (a, b) = (&w[0], &w[1]);
    let t = (idle_us - a.idle_us) / (b.idle_us - a.idle_us);
    Some(a.one_way_us + t * (b.one_way_us - a.one_way_us))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(idle_us: f64, one_way_us: f64) -> HopPoint {
        HopPoint {
            idle_us,
            one_way_us,
            samples: 20,
        }
    }

    #[test]
    fn the_curve_is_read_between_and_beyond_its_points() {
        let c = [point(10.0, 20.0), point(50.0, 60.0), point(150.0, 70.0)];
        assert_eq!(at(&c, 0.0), Some(20.0));
        assert_eq!(at(&c, 10.0), Some(20.0));
        assert_eq!(at(&c, 30.0), Some(40.0));
        assert_eq!(at(&c, 100.0), Some(65.0));
        assert_eq!(at(&c, 150.0), Some(70.0));
        assert_eq!(at(&c, 5000.0), Some(70.0));
        assert_eq!(at(&[], 30.0), None);
    }

    #[test]
    fn samples_are_binned_by_idle_and_thin_bins_dropped() {
        // 20 samples idle 2 µs (one way 10); 21 idle 60, 61 or 62 µs (7 each: median by
        // nearest rank, the 11th, 61) with one way 40 (10) or 50 (11: median 50); 19 idle
        // 600 µs (too few); and a receiver that never waited (idle < 0).
        let mut s: Vec<Sample> = vec![(2.0, 10.0); 20];
        s.extend((0..21).map(|i| (60.0 + f64::from(i % 3), if i < 10 { 40.0 } else { 50.0 })));
        s.extend(vec![(600.0, 90.0); 19]);
        s.extend(vec![(-3.0, 5.0); 40]);
        // Too few awake samples for a point.
        let few = Samples {
            blocked: s.clone(),
            awake: vec![4.0; 19],
        };
        assert_eq!(curve(&few).len(), 2);
        // 20 awake flights (one way 3, 4 or 5: 7, 7, 6 of them; the 10th is 4) come first, at idle 0.
        let awake: Vec<f64> = (0..20).map(|i| [3.0, 4.0, 5.0][i % 3]).collect();
        let c = curve(&Samples { blocked: s, awake });
        assert_eq!(
            c[0],
            HopPoint {
                idle_us: 0.0,
                one_way_us: 4.0,
                samples: 20
            }
        );
        assert_eq!(
            c[1..],
            [
                HopPoint {
                    idle_us: 2.0,
                    one_way_us: 10.0,
                    samples: 20
                },
                HopPoint {
                    idle_us: 61.0,
                    one_way_us: 50.0,
                    samples: 21
                },
            ]
        );
    }

    #[test]
    fn both_directions_give_a_sample_per_delay() {
        let s = samples(4, Duration::from_secs(5), None).unwrap();
        let b = &s.blocked;
        assert_eq!(b.len(), 2 * 4 * DELAYS_US.len());
        assert!(b.iter().all(|(i, o)| i.is_finite() && *o > 0.0), "{b:?}");
        // The longest busy-wait leaves the receiver waiting at least most of it.
        let longest = b.iter().map(|x| x.0).fold(f64::MIN, f64::max);
        assert!(
            longest > 0.5 * DELAYS_US[DELAYS_US.len() - 1] as f64,
            "{longest}"
        );
        // A quarter as many awake flights per direction.
        assert_eq!(s.awake.len(), 2 * DELAYS_US.len());
        assert!(s.awake.iter().all(|o| *o > 0.0), "{:?}", s.awake);
    }
}
