//! The open-loop dispatcher, apart from TLS: a bounded pool of workers takes the
//! scheduled connections in order, each waits for its connection's intended start (on a
//! [`Clock`]), and every connection's latency is counted from that intended start, so
//! the time it waited for a free worker is part of it. Behind two small traits (the
//! clock, and what one connection is) so tests drive it with a fake clock and fake
//! connections.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

/// Time as the dispatcher sees it: an offset from the schedule's origin.
pub trait Clock: Sync {
    fn now(&self) -> Duration;
    /// Returns once `now() >= t` (at once if it already is).
    fn sleep_until(&self, t: Duration);
}

/// The machine's monotonic clock (`Instant`, CLOCK_MONOTONIC), from an origin.
pub struct RealClock {
    origin: Instant,
}

impl RealClock {
    /// A clock whose origin is now.
    pub fn start() -> Self {
        RealClock {
            origin: Instant::now(),
        }
    }
}

impl Clock for RealClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep_until(&self, t: Duration) {
        // `sleep` never returns early; the loop only guards against a clock that did.
        loop {
            let now = self.now();
            if now >= t {
                return;
            }
            std::thread::sleep(t - now);
        }
    }
}

/// What one connection is, for the dispatcher.
pub trait Connect: Sync {
    /// What a successful connection leaves behind (e.g. both ends' handshake facts).
    type Done: Send;
    /// Makes one connection on worker `worker`'s client: its timed window (from this
    /// call to where the arm's timer stops) and what it left, or why it failed.
    fn connect(&self, worker: usize) -> Result<(Duration, Self::Done), String>;
}

/// What became of one scheduled connection.
#[derive(Debug)]
pub enum Fate<T> {
    /// Completed: began `began` after the origin; its timed window took `window`.
    Done {
        began: Duration,
        window: Duration,
        done: T,
    },
    /// Began at `began`, then failed.
    Failed { began: Duration, error: String },
    /// Never made: a worker reached it `late` after its intended start, more than the
    /// dispatcher's give-up bound.
    NotStarted { late: Duration },
}

/// One scheduled connection taken by a worker.
#[derive(Debug)]
pub struct Attempt<T> {
    /// Its place in the schedule, and when it was meant to start.
    pub index: usize,
    pub intended: Duration,
    pub worker: usize,
    pub fate: Fate<T>,
}

impl<T> Attempt<T> {
    /// How long after its intended start it began (None if it never did).
    pub fn lateness(&self) -> Option<Duration> {
        match &self.fate {
            Fate::Done { began, .. } | Fate::Failed { began, .. } => {
                Some(began.saturating_sub(self.intended))
            }
            Fate::NotStarted { .. } => None,
        }
    }

    /// Latency from the intended start to the end of the timed window (successes only):
    /// lateness + the window.
    pub fn latency(&self) -> Option<Duration> {
        match &self.fate {
            Fate::Done { began, window, .. } => Some(began.saturating_sub(self.intended) + *window),
            _ => None,
        }
    }
}

/// How the dispatcher runs one schedule.
#[derive(Debug, Clone, Copy)]
pub struct Pool {
    /// Worker threads (each makes one connection at a time).
    pub workers: usize,
    /// A connection a worker would begin more than this after its intended start is not
    /// made ([`Fate::NotStarted`]): bounds the run's time when the server falls behind.
    pub give_up_after: Duration,
}

/// Runs `schedule` (intended starts, in order) on `pool.workers` workers. Each worker
/// takes the next connection not yet taken, waits for its intended start, and makes it;
/// when every worker is busy, the next connections wait, and that wait is in their
/// latency. Stops taking connections once `stop` is set. Returns every connection taken,
/// in schedule order (an error only if a worker thread could not be started).
pub fn run<C: Connect>(
    schedule: &[Duration],
    clock: &dyn Clock,
    connector: &C,
    pool: Pool,
    stop: &AtomicBool,
) -> Result<Vec<Attempt<C::Done>>> {
    let next = AtomicUsize::new(0);
    let worker = |w: usize| {
        let mut taken = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(&intended) = schedule.get(index) else {
                break;
            };
            clock.sleep_until(intended);
            let began = clock.now();
            let late = began.saturating_sub(intended);
            let fate = if late > pool.give_up_after {
                Fate::NotStarted { late }
            } else {
                match connector.connect(w) {
                    Ok((window, done)) => Fate::Done {
                        began,
                        window,
                        done,
                    },
                    Err(error) => Fate::Failed { began, error },
                }
            };
            taken.push(Attempt {
                index,
                intended,
                worker: w,
                fate,
            });
        }
        taken
    };
    let mut all: Vec<Attempt<C::Done>> = spawn_workers(pool.workers, &worker)?
        .into_iter()
        .flatten()
        .collect();
    all.sort_by_key(|a| a.index);
    Ok(all)
}

/// Runs `body(w)` on `n` client worker threads (w = 0..n) and returns their results in
/// worker order. The one place open-loop client threads are made: they inherit the
/// spawning thread's CPU mask, the client's CPUs of `--placement` (see [`crate::cpu`]).
pub fn spawn_workers<T: Send>(n: usize, body: &(dyn Fn(usize) -> T + Sync)) -> Result<Vec<T>> {
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for w in 0..n.max(1) {
            let handle = std::thread::Builder::new()
                .name(format!("open-loop client #{w}"))
                .spawn_scoped(scope, move || body(w))
                .with_context(|| format!("could not start open-loop client worker #{w}"))?;
            handles.push(handle);
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow!("an open-loop client worker panicked"))
            })
            .collect()
    })
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
