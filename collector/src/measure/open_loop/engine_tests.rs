//! The dispatcher on a fake clock with fake connections: every expected time below is
//! worked out by hand from the schedule and the connections' service times.

use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

use super::*;

const US: Duration = Duration::from_micros(1);
const MS: Duration = Duration::from_millis(1);

/// A clock that moves only when told: sleeping jumps to the wake-up time, and a fake
/// connection moves it by its service time. With one worker everything is deterministic.
#[derive(Default)]
pub(super) struct FakeClock {
    now: Mutex<Duration>,
}

impl FakeClock {
    fn advance(&self, by: Duration) {
        *self.now.lock().unwrap() += by;
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        *self.now.lock().unwrap()
    }

    fn sleep_until(&self, t: Duration) {
        let mut now = self.now.lock().unwrap();
        *now = (*now).max(t);
    }
}

/// Connection k (in the order they are made) takes `service[k]` on the fake clock;
/// those listed in `fail` fail after their service time.
struct FakeServer<'a> {
    clock: &'a FakeClock,
    service: Vec<Duration>,
    fail: Vec<usize>,
    made: AtomicUsize,
}

impl<'a> FakeServer<'a> {
    fn new(clock: &'a FakeClock, service: Vec<Duration>) -> Self {
        FakeServer {
            clock,
            service,
            fail: Vec::new(),
            made: AtomicUsize::new(0),
        }
    }
}

impl Connect for FakeServer<'_> {
    type Done = usize;

    fn connect(&self, _worker: usize) -> Result<(Duration, usize), String> {
        let k = self.made.fetch_add(1, Ordering::SeqCst);
        let took = self.service[k];
        self.clock.advance(took);
        if self.fail.contains(&k) {
            return Err(format!("connection {k} failed"));
        }
        Ok((took, k))
    }
}

/// One worker, a give-up bound of `give_up`.
fn one_worker(give_up: Duration) -> Pool {
    Pool {
        workers: 1,
        give_up_after: give_up,
    }
}

/// 1,000 connections/s for 10 ms: intended starts at 0, 1, …, 9 ms.
fn every_ms() -> Vec<Duration> {
    (0..10).map(|i| i * MS).collect()
}

fn latencies_us(attempts: &[Attempt<usize>]) -> Vec<Option<u128>> {
    attempts
        .iter()
        .map(|a| a.latency().map(|l| l.as_micros()))
        .collect()
}

#[test]
fn a_server_that_keeps_up_gives_latencies_from_the_intended_starts() {
    let clock = FakeClock::default();
    let server = FakeServer::new(&clock, vec![300 * US; 10]);
    let stop = AtomicBool::new(false);
    let got = run(&every_ms(), &clock, &server, one_worker(MS * 1000), &stop).unwrap();
    assert_eq!(got.len(), 10);
    for (i, a) in got.iter().enumerate() {
        assert_eq!((a.index, a.intended), (i, i as u32 * MS));
        assert_eq!(a.lateness(), Some(Duration::ZERO), "on time: {i}");
        assert_eq!(a.latency(), Some(300 * US));
    }
    // The clock ends at the last connection's end: 9 ms + 300 µs.
    assert_eq!(clock.now(), 9 * MS + 300 * US);
}

#[test]
fn a_stalled_connection_makes_the_later_ones_wait_and_their_latency_includes_it() {
    // Connection 2 (meant for 2 ms) takes 4.5 ms: the worker is free again at 6.5 ms.
    // Connection 3 (meant for 3 ms) begins at 6.5: 3.5 ms late, latency 3.5 + 0.3 ms;
    // then 4 at 6.8 (2.8 late), 5 at 7.1, 6 at 7.4, 7 at 7.7 (0.7 late), and 8 at 8.0,
    // on time again.
    let clock = FakeClock::default();
    let mut service = vec![300 * US; 10];
    service[2] = 4500 * US;
    let server = FakeServer::new(&clock, service);
    let stop = AtomicBool::new(false);
    let got = run(&every_ms(), &clock, &server, one_worker(MS * 1000), &stop).unwrap();
    assert_eq!(
        latencies_us(&got),
        [300, 300, 4500, 3800, 3100, 2400, 1700, 1000, 300, 300].map(Some)
    );
    let late: Vec<u128> = got
        .iter()
        .map(|a| a.lateness().unwrap().as_micros())
        .collect();
    assert_eq!(late, [0, 0, 0, 3500, 2800, 2100, 1400, 700, 0, 0]);
    // What a closed-loop client would have recorded: only the windows.
    let windows: Vec<u128> = got
        .iter()
        .map(|a| match &a.fate {
            Fate::Done { window, .. } => window.as_micros(),
            _ => unreachable!("all succeeded"),
        })
        .collect();
    assert_eq!(windows, [300, 300, 4500, 300, 300, 300, 300, 300, 300, 300]);
}

#[test]
fn connections_later_than_the_give_up_bound_are_not_made_and_failures_are_kept() {
    // As above, with a 2 ms bound: 3 (3.5 ms late) and 4 (2.5 ms late: the worker
    // reaches it at once, still at 6.5 ms) are given up; 5 begins at 6.5 (1.5 late) and
    // ends at 6.8, 6 at 6.8 (0.8 late), 7 at 7.1 (0.1 late), 8 and 9 on time. And the
    // sixth connection made (schedule index 7) fails.
    let clock = FakeClock::default();
    let mut service = vec![300 * US; 10];
    service[2] = 4500 * US;
    let mut server = FakeServer::new(&clock, service);
    server.fail = vec![5];
    let stop = AtomicBool::new(false);
    let got = run(&every_ms(), &clock, &server, one_worker(2 * MS), &stop).unwrap();
    assert_eq!(got.len(), 10, "every scheduled connection is accounted for");
    let fates: Vec<String> = got
        .iter()
        .map(|a| match &a.fate {
            Fate::Done { .. } => format!("done {}", a.latency().unwrap().as_micros()),
            Fate::Failed { began, error } => format!("failed at {} ({error})", began.as_micros()),
            Fate::NotStarted { late } => format!("not started ({} late)", late.as_micros()),
        })
        .collect();
    assert_eq!(
        fates,
        [
            "done 300",
            "done 300",
            "done 4500",
            "not started (3500 late)",
            "not started (2500 late)",
            "done 1800",
            "done 1100",
            "failed at 7100 (connection 5 failed)",
            "done 300",
            "done 300",
        ]
    );
}

#[test]
fn a_stop_ends_the_run_without_taking_more_connections() {
    let clock = FakeClock::default();
    let server = FakeServer::new(&clock, vec![300 * US; 10]);
    let stop = AtomicBool::new(true);
    let got = run(&every_ms(), &clock, &server, one_worker(MS), &stop).unwrap();
    assert!(got.is_empty());
}

#[test]
fn every_worker_takes_connections_and_each_is_taken_once() {
    // Several real threads on the fake clock: which worker takes which connection is up
    // to the scheduler, but every scheduled connection is taken exactly once.
    let clock = FakeClock::default();
    let server = FakeServer::new(&clock, vec![US; 200]);
    let schedule: Vec<Duration> = (0..200).map(|i| i * US).collect();
    let stop = AtomicBool::new(false);
    let pool = Pool {
        workers: 4,
        give_up_after: Duration::from_secs(3600),
    };
    let got = run(&schedule, &clock, &server, pool, &stop).unwrap();
    let indices: Vec<usize> = got.iter().map(|a| a.index).collect();
    assert_eq!(indices, (0..200).collect::<Vec<_>>());
    assert!(got.iter().all(|a| a.worker < 4 && a.latency().is_some()));
}
