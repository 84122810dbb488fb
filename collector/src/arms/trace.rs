//! Phase timestamps of one connection, as one thread saw it.
//!
//! Each side of a traced connection marks the moments of its handshake on one clock that
//! every thread shares (`CLOCK_MONOTONIC`, what [`Instant`] reads on Linux), together with
//! its own thread CPU time (`CLOCK_THREAD_CPUTIME_ID`). The names follow the flights:
//! `c1` is the ClientHello, `s1` the server's first flight, `c2` the client's second
//! flight (TLS 1.3: Finished; TLS 1.2 full: ClientKeyExchange, ChangeCipherSpec,
//! Finished), `s2` the TLS 1.2 full server's ChangeCipherSpec and Finished. A side marks
//! `<flight>_ready` when its flight is built (before the write), `<flight>_written` when
//! the write returned, and `<peer flight>_read` when a blocking read returned the first
//! bytes of the peer's flight. The timing loop's `measure::phases` turns these into the evidence.

use std::time::Instant;

/// One moment of a connection on one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub wall: Instant,
    /// This thread's CPU time (user + system) so far, in nanoseconds.
    pub cpu_ns: u64,
}

impl Stamp {
    pub fn now() -> Stamp {
        Stamp {
            wall: Instant::now(),
            cpu_ns: thread_cpu_ns(),
        }
    }
}

/// The calling thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The named moments of one side of one connection, in the order they happened. A
/// disabled trace records nothing and costs one branch per mark.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    enabled: bool,
    pub events: Vec<(&'static str, Stamp)>,
}

impl Trace {
    pub fn new(enabled: bool) -> Trace {
        Trace {
            enabled,
            events: if enabled {
                Vec::with_capacity(12)
            } else {
                Vec::new()
            },
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Records `name` now (when enabled).
    pub fn mark(&mut self, name: &'static str) {
        if self.enabled {
            self.events.push((name, Stamp::now()));
        }
    }

    /// Records `name` at a moment already taken (e.g. the timer's start).
    pub fn mark_at(&mut self, name: &'static str, stamp: Stamp) {
        if self.enabled {
            self.events.push((name, stamp));
        }
    }

    /// The recorded trace, or None when disabled.
    pub fn into_events(self) -> Option<Trace> {
        self.enabled.then_some(self)
    }
}

/// Names for a side's flights by number (1-based): the flight a side sends or reads.
pub fn flight(prefix: char, n: usize, what: Event) -> &'static str {
    const C: [[&str; 3]; 3] = [
        ["c1_ready", "c1_written", "c1_read"],
        ["c2_ready", "c2_written", "c2_read"],
        ["c3_ready", "c3_written", "c3_read"],
    ];
    const S: [[&str; 3]; 3] = [
        ["s1_ready", "s1_written", "s1_read"],
        ["s2_ready", "s2_written", "s2_read"],
        ["s3_ready", "s3_written", "s3_read"],
    ];
    let table = if prefix == 'c' { &C } else { &S };
    table[n.clamp(1, 3) - 1][what as usize]
}

/// What happened to a flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Built, about to be written.
    Ready = 0,
    /// The write returned.
    Written = 1,
    /// A blocking read returned its first bytes.
    Read = 2,
}

/// Both ends' moments of one timed connection.
#[derive(Debug, Clone, Default)]
pub struct ConnTrace {
    pub client: Option<Trace>,
    pub server: Option<Trace>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_cpu_time_advances_with_work_and_not_with_sleep() {
        let before = thread_cpu_ns();
        // Busy work the optimiser cannot drop.
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let worked = thread_cpu_ns() - before;
        assert!(worked > 0, "CPU time advanced ({x})");
        let before = thread_cpu_ns();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let slept = thread_cpu_ns() - before;
        assert!(slept < 30_000_000, "sleeping is not CPU time: {slept} ns");
    }

    #[test]
    fn a_disabled_trace_records_nothing() {
        let mut t = Trace::new(false);
        t.mark("start");
        assert!(t.events.is_empty());
        assert!(t.into_events().is_none());
        let mut t = Trace::new(true);
        t.mark("start");
        t.mark("connected");
        let names: Vec<_> = t.events.iter().map(|e| e.0).collect();
        assert_eq!(names, ["start", "connected"]);
        assert!(t.events[0].1.wall <= t.events[1].1.wall);
    }

    #[test]
    fn flight_names() {
        assert_eq!(flight('c', 1, Event::Ready), "c1_ready");
        assert_eq!(flight('s', 2, Event::Read), "s2_read");
        assert_eq!(flight('c', 2, Event::Written), "c2_written");
    }
}
