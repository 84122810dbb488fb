//! The dispatcher on real sockets and the real clock, against a server that stalls its
//! first connection: the connections scheduled behind it wait for the one worker, and
//! that wait is in their latency. Only lower bounds that the stall guarantees are
//! checked (a sleep never ends early); nothing about how fast anything is.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::account::lateness;
use super::engine::{run, Connect, Fate, Pool, RealClock};

const MS: Duration = Duration::from_millis(1);
/// How long the server holds its first connection before answering.
const STALL: Duration = Duration::from_millis(200);

/// Accepts `n` connections one at a time and writes one byte on each, the first only
/// after [`STALL`].
fn stalling_server(n: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for i in 0..n {
            let Ok((mut s, _)) = listener.accept() else {
                return;
            };
            if i == 0 {
                std::thread::sleep(STALL);
            }
            let _ = s.write_all(b"x");
        }
    });
    addr
}

/// A plain TCP connection whose window ends when the server's byte arrives.
struct TcpByte(SocketAddr);

impl Connect for TcpByte {
    type Done = ();

    fn connect(&self, _worker: usize) -> Result<(Duration, ()), String> {
        let start = Instant::now();
        let mut s = TcpStream::connect(self.0).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let mut byte = [0u8; 1];
        s.read_exact(&mut byte).map_err(|e| e.to_string())?;
        Ok((start.elapsed(), ()))
    }
}

#[test]
fn connections_behind_a_stalled_one_count_their_wait_from_the_intended_start() {
    // 1,000 connections/s for 20 ms on one worker.
    let schedule: Vec<Duration> = (0..20).map(|i| i * MS).collect();
    let server = TcpByte(stalling_server(schedule.len()));
    let pool = Pool {
        workers: 1,
        give_up_after: Duration::from_secs(60),
    };
    let stop = AtomicBool::new(false);
    let got = run(&schedule, &RealClock::start(), &server, pool, &stop).unwrap();
    assert_eq!(got.len(), 20);
    for a in &got {
        let Fate::Done { began, window, .. } = a.fate else {
            panic!("connection {} did not complete: {:?}", a.index, a.fate);
        };
        let latency = a.latency().unwrap();
        assert_eq!(latency, began - a.intended + window);
        if a.index == 0 {
            assert!(
                window >= STALL,
                "the stalled connection's own window: {window:?}"
            );
        } else {
            // The one worker was busy with connection 0 until at least STALL after the
            // origin, so connection k began no sooner, and waited STALL - k ms or more.
            assert!(began >= STALL, "connection {} began at {began:?}", a.index);
            let waited = a.lateness().unwrap();
            assert!(waited >= STALL - a.intended, "{}: {waited:?}", a.index);
            assert!(latency >= STALL - a.intended, "{}: {latency:?}", a.index);
        }
    }
    // Every connection after the first started late (by more than 1 ms); the first too
    // when the machine was too busy to run the worker within 1 ms of the origin.
    let (late, summary) = lateness(&got, MS);
    assert!((19..=20).contains(&late), "{late} late");
    assert!(summary.unwrap().max_us >= (STALL - 19 * MS).as_micros() as f64);
}
