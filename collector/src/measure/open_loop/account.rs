//! One offered rate's accounting: the dispatcher's attempts become per-worker logs for
//! the capacity accounting (each connection paired with the server's report, checked,
//! placed in the window, its sample counted from its intended start), plus what only an
//! open loop has: offered against achieved, lateness, connections never started.

use std::time::Duration;

use shared::{Arrival, Capacity, Lateness, OpenLoop};

use super::engine::{Attempt, Fate};
use super::LATE_THRESHOLD;
use crate::arms::rustls::ClientSide;
use crate::arms::ArmRun;
use crate::arms::ArmSpec;
use crate::measure::capacity::account::{self as capacity, ClientLog, Conn};
use crate::stats::nearest_rank;

pub(super) use capacity::Report;

/// Everything one offered rate produced.
pub(super) struct Parts<'a> {
    pub(super) spec: &'a ArmSpec,
    pub(super) attempts: Vec<Attempt<ClientSide>>,
    /// Per worker: warm-up connections made, and failed.
    pub(super) warmup: Vec<(u64, u64)>,
    pub(super) reports: Vec<Report>,
    pub(super) scheduled: u64,
    pub(super) window: Duration,
    pub(super) offered_per_s: f64,
    pub(super) arrival: Arrival,
    pub(super) seed: u64,
    pub(super) give_up_after: Duration,
    /// Client workers, and as many server workers.
    pub(super) workers: u64,
}

/// The arm's run (samples from the intended starts, failures counted, both ends
/// checked) and its capacity record with the open-loop part.
pub(super) fn account(p: Parts) -> (ArmRun, Capacity) {
    let (late, lateness) = lateness(&p.attempts, LATE_THRESHOLD);
    let not_started = p
        .attempts
        .iter()
        .filter(|a| matches!(a.fate, Fate::NotStarted { .. }))
        .count() as u64;
    let logs = logs(p.attempts, &p.warmup);
    let (mut run, per_second, after_window) = capacity::account(p.spec, logs, p.reports, p.window);
    run.threads = (p.workers, p.workers);
    let in_window: f64 = per_second.iter().sum();
    let window_s = p.window.as_secs();
    let mut sorted = per_second.clone();
    sorted.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        if sorted.is_empty() {
            0.0
        } else {
            nearest_rank(&sorted, q)
        }
    };
    let capacity = Capacity {
        clients: p.workers,
        server_workers: p.workers,
        rate_median_per_s: pick(50.0),
        rate_iqr_per_s: [pick(25.0), pick(75.0)],
        per_second,
        after_window,
        cpu_sharing: None,
        open_loop: Some(OpenLoop {
            arrival: p.arrival,
            seed: (p.arrival == Arrival::Poisson).then_some(p.seed),
            offered_per_s: p.offered_per_s,
            window_s,
            scheduled: p.scheduled,
            achieved_per_s: if window_s == 0 {
                0.0
            } else {
                in_window / window_s as f64
            },
            late_threshold_us: micros(LATE_THRESHOLD),
            late,
            lateness_us: lateness,
            give_up_after_us: micros(p.give_up_after),
            not_started,
        }),
    };
    (run, capacity)
}

fn micros(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1000.0
}

/// Connections that began more than `threshold` after their intended start, and the
/// lateness of every connection that began (None if none did).
pub(super) fn lateness<T>(attempts: &[Attempt<T>], threshold: Duration) -> (u64, Option<Lateness>) {
    let mut all: Vec<Duration> = attempts.iter().filter_map(Attempt::lateness).collect();
    let late = all.iter().filter(|l| **l > threshold).count() as u64;
    all.sort();
    let us: Vec<f64> = all.into_iter().map(micros).collect();
    let summary = (!us.is_empty()).then(|| Lateness {
        p50_us: nearest_rank(&us, 50.0),
        p99_us: nearest_rank(&us, 99.0),
        max_us: us[us.len() - 1],
    });
    (late, summary)
}

/// One log per worker, as the capacity accounting reads them: its window opens at the
/// schedule's origin; a connection's `queued` is its lateness; a connection never
/// started is a failure.
fn logs(attempts: Vec<Attempt<ClientSide>>, warmup: &[(u64, u64)]) -> Vec<ClientLog> {
    let mut logs: Vec<ClientLog> = warmup
        .iter()
        .map(|&w| ClientLog {
            warmup: w,
            ..ClientLog::default()
        })
        .collect();
    for a in attempts {
        if a.worker >= logs.len() {
            logs.resize_with(a.worker + 1, ClientLog::default);
        }
        let log = &mut logs[a.worker];
        let (end, failure) = match a.fate {
            Fate::Done {
                began,
                window,
                done,
            } => {
                log.done.push(Conn {
                    started: began,
                    elapsed: window,
                    queued: began.saturating_sub(a.intended),
                    facts: done.facts,
                    local_port: done.local_port,
                });
                (began + window, None)
            }
            Fate::Failed { began, error } => (began, Some(error)),
            Fate::NotStarted { late } => (
                a.intended + late,
                Some(format!(
                    "not started: a client worker reached it {} ms after its intended start, past the give-up bound (every worker was busy)",
                    late.as_millis()
                )),
            ),
        };
        log.end = log.end.max(end);
        if let Some(e) = failure {
            log.failed += 1;
            log.first_failure.get_or_insert(e);
        }
    }
    logs
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Duration = Duration::from_micros(1);

    fn attempt(intended_us: u32, fate: Fate<()>) -> Attempt<()> {
        Attempt {
            index: 0,
            intended: intended_us * US,
            worker: 0,
            fate,
        }
    }

    fn began(intended_us: u32, began_us: u32) -> Attempt<()> {
        attempt(
            intended_us,
            Fate::Done {
                began: began_us * US,
                window: 300 * US,
                done: (),
            },
        )
    }

    #[test]
    fn lateness_counts_every_connection_that_began_and_late_ones_past_the_threshold() {
        let attempts = vec![
            began(0, 40),      // 40 µs late
            began(1000, 1000), // on time
            began(2000, 4500), // 2.5 ms late
            attempt(
                3000,
                Fate::Failed {
                    began: 4800 * US,
                    error: "reset".into(),
                },
            ), // 1.8 ms late, failed: still began late
            attempt(4000, Fate::NotStarted { late: 9000 * US }), // never began
            began(5000, 6000), // exactly 1 ms: not past the threshold
        ];
        let (late, l) = lateness(&attempts, 1000 * US);
        assert_eq!(late, 2, "2.5 ms and 1.8 ms");
        // Sorted: 0, 40, 1000, 1800, 2500 µs (five began).
        let l = l.unwrap();
        assert_eq!((l.p50_us, l.p99_us, l.max_us), (1000.0, 2500.0, 2500.0));
        assert_eq!(lateness::<()>(&[], US), (0, None));
        let never = [attempt(0, Fate::NotStarted { late: US })];
        assert_eq!(lateness(&never, US), (0, None));
    }
}
