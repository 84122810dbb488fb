//! Politeness towards a server the lab does not run: a pause after every connection and
//! a cap on connections per second, shared by every arm of a probe. The wait happens
//! before a connection's timer starts, so it is never in a sample.

use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Pacer {
    /// At least this long from one connection's end to the next one's start.
    pub pause: Duration,
    /// At least this long from one connection's start to the next one's (1 / `--rate`).
    pub interval: Duration,
    last: Mutex<Last>,
}

#[derive(Debug, Default)]
struct Last {
    start: Option<Instant>,
    end: Option<Instant>,
    connections: u64,
}

impl Pacer {
    pub fn new(pause: Duration, rate_per_s: f64) -> Self {
        Pacer {
            pause,
            interval: Duration::from_secs_f64(1.0 / rate_per_s),
            last: Mutex::new(Last::default()),
        }
    }

    /// Sleeps until the next connection may start, and marks its start.
    pub fn wait(&self) {
        let mut last = self.last.lock().expect("not poisoned");
        let mut not_before = Instant::now();
        if let Some(end) = last.end {
            not_before = not_before.max(end + self.pause);
        }
        if let Some(start) = last.start {
            not_before = not_before.max(start + self.interval);
        }
        let now = Instant::now();
        if not_before > now {
            std::thread::sleep(not_before - now);
        }
        last.start = Some(Instant::now());
        last.connections += 1;
    }

    /// Marks the end of the connection that [`Pacer::wait`] let start.
    pub fn done(&self) {
        self.last.lock().expect("not poisoned").end = Some(Instant::now());
    }

    /// Runs `f` as one paced connection: [`Pacer::wait`] before, [`Pacer::done`] after.
    pub fn paced<T>(&self, f: impl FnOnce() -> T) -> T {
        self.wait();
        let out = f();
        self.done();
        out
    }

    /// Connections made through this pacer so far.
    pub fn connections(&self) -> u64 {
        self.last.lock().expect("not poisoned").connections
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_cap_spaces_connection_starts() {
        // 50 per second: 5 starts take at least 4 intervals of 20 ms.
        let p = Pacer::new(Duration::ZERO, 50.0);
        let t = Instant::now();
        for _ in 0..5 {
            p.wait();
            p.done();
        }
        assert!(
            t.elapsed() >= Duration::from_millis(80),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(p.connections(), 5);
    }

    #[test]
    fn the_pause_follows_each_connections_end() {
        let p = Pacer::new(Duration::from_millis(30), 1e6);
        p.wait();
        std::thread::sleep(Duration::from_millis(10));
        p.done();
        let end = Instant::now();
        p.wait();
        assert!(
            end.elapsed() >= Duration::from_millis(29),
            "{:?}",
            end.elapsed()
        );
    }
}
