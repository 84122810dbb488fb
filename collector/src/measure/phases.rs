//! From the moments each end stamped on each connection ([`crate::arms::trace`]) to the
//! evidence's [`Phases`]: per-connection arrays on one time base, and each side's phase
//! medians. [`super::decompose`] takes the result apart along the critical path.

use std::time::Instant;

use shared::{PhaseStat, Phases};

use crate::arms::trace::{ConnTrace, Trace};
use crate::stats::median_in_place;

/// Microseconds from `base` to `t` (negative if `t` is earlier), to 0.1 µs.
fn us_after(base: Instant, t: Instant) -> f64 {
    let us = match t.checked_duration_since(base) {
        Some(d) => d.as_nanos() as f64 / 1000.0,
        None => -((base - t).as_nanos() as f64) / 1000.0,
    };
    (us * 10.0).round() / 10.0
}

fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// One side's moments as (wall µs after `base`, CPU µs after the side's first moment).
fn rows(trace: &Trace, base: Instant) -> (Vec<f64>, Vec<f64>) {
    let cpu0 = trace.events.first().map_or(0, |e| e.1.cpu_ns);
    trace
        .events
        .iter()
        .map(|(_, s)| {
            (
                us_after(base, s.wall),
                tenth(s.cpu_ns.saturating_sub(cpu0) as f64 / 1000.0),
            )
        })
        .unzip()
}

fn names(trace: &Trace) -> Vec<&'static str> {
    trace.events.iter().map(|e| e.0).collect()
}

/// The sequence most connections followed (ties: the first seen).
fn usual<'a>(seqs: impl Iterator<Item = Vec<&'a str>>) -> Vec<&'a str> {
    let mut counts: Vec<(Vec<&str>, usize)> = Vec::new();
    for s in seqs {
        match counts.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    let best = counts.iter().map(|c| c.1).max().unwrap_or(0);
    counts
        .into_iter()
        .find(|c| c.1 == best)
        .map(|c| c.0)
        .unwrap_or_default()
}

/// The arm's phases from every timed connection's traces (one per sample, in order);
/// None unless every connection has the client's moments.
pub fn from_traces(traces: &[ConnTrace]) -> Option<Phases> {
    if traces.is_empty() || traces.iter().any(|t| t.client.is_none()) {
        return None;
    }
    let has_server = traces.iter().all(|t| t.server.is_some());
    let client_events = usual(traces.iter().filter_map(|t| t.client.as_ref()).map(names));
    let server_events = if has_server {
        usual(traces.iter().filter_map(|t| t.server.as_ref()).map(names))
    } else {
        Vec::new()
    };
    let mut p = Phases {
        client_events: client_events.iter().map(|s| s.to_string()).collect(),
        server_events: server_events.iter().map(|s| s.to_string()).collect(),
        client: Vec::new(),
        server: Vec::new(),
        decomposition: None,
        irregular: 0,
        client_wall_us: Vec::with_capacity(traces.len()),
        client_cpu_us: Vec::with_capacity(traces.len()),
        server_wall_us: Vec::new(),
        server_cpu_us: Vec::new(),
    };
    for t in traces {
        let client = t.client.as_ref().expect("checked above");
        let base = client.events.first().map(|e| e.1.wall)?;
        let (wall, cpu) = rows(client, base);
        p.client_wall_us.push(wall);
        p.client_cpu_us.push(cpu);
        let mut regular = names(client) == client_events;
        if let Some(server) = t.server.as_ref().filter(|_| has_server) {
            let (wall, cpu) = rows(server, base);
            p.server_wall_us.push(wall);
            p.server_cpu_us.push(cpu);
            regular &= names(server) == server_events;
        }
        p.irregular += u64::from(!regular);
    }
    p.client = side_stats(&p.client_events, &p.client_wall_us, &p.client_cpu_us);
    p.server = side_stats(&p.server_events, &p.server_wall_us, &p.server_cpu_us);
    Some(p)
}

/// Rows that follow `events` (as many moments as there are names).
pub fn regular<'a>(events: &[String], rows: &'a [Vec<f64>]) -> impl Iterator<Item = &'a [f64]> {
    let n = events.len();
    rows.iter().filter(move |r| r.len() == n).map(Vec::as_slice)
}

/// Median wall and CPU time of each phase (one moment to the next) of one side.
fn side_stats(events: &[String], wall: &[Vec<f64>], cpu: &[Vec<f64>]) -> Vec<PhaseStat> {
    (1..events.len())
        .map(|i| {
            let mut w: Vec<f64> = regular(events, wall).map(|r| r[i] - r[i - 1]).collect();
            let mut c: Vec<f64> = regular(events, cpu).map(|r| r[i] - r[i - 1]).collect();
            PhaseStat {
                from: events[i - 1].clone(),
                to: events[i].clone(),
                wall_p50_us: median_or_zero(&mut w),
                cpu_p50_us: median_or_zero(&mut c),
            }
        })
        .collect()
}

pub fn median_or_zero(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        tenth(median_in_place(v))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::arms::trace::Stamp;

    /// A trace with moments at the given µs after `base` and the given CPU µs.
    fn trace(base: Instant, events: &[(&'static str, u64, u64)]) -> Trace {
        let mut t = Trace::new(true);
        for &(name, at_us, cpu_us) in events {
            t.mark_at(
                name,
                Stamp {
                    wall: base + Duration::from_micros(at_us),
                    cpu_ns: 5_000_000 + cpu_us * 1000,
                },
            );
        }
        t
    }

    fn conn(base: Instant, shift: u64) -> ConnTrace {
        ConnTrace {
            client: Some(trace(
                base,
                &[
                    ("start", 0, 0),
                    ("connected", 20, 10),
                    ("c1_ready", 60, 50),
                    ("c1_written", 65, 55),
                    ("s1_read", 200 + shift, 56),
                    ("c2_ready", 300 + shift, 150),
                    ("c2_written", 305 + shift, 155),
                    ("done", 306 + shift, 156),
                ],
            )),
            server: Some(trace(
                base,
                &[
                    ("accepted", 30, 0),
                    ("c1_read", 90, 2),
                    ("s1_ready", 170, 80),
                    ("s1_written", 175, 85),
                    ("c2_read", 330 + shift, 86),
                    ("done", 340 + shift, 96),
                ],
            )),
        }
    }

    #[test]
    fn moments_share_the_clients_time_base_and_phases_take_medians() {
        let base = Instant::now();
        let traces = [conn(base, 0), conn(base, 10), conn(base, 20)];
        let p = from_traces(&traces).unwrap();
        assert_eq!(p.client_events.len(), 8);
        assert_eq!(p.server_events[1], "c1_read");
        assert_eq!(p.irregular, 0);
        // The server's moments are on the client's time base: accepted 30 µs after start.
        assert_eq!(p.server_wall_us[0][0], 30.0);
        assert_eq!(p.server_wall_us[2][4], 350.0);
        // Server CPU from its own first moment.
        assert_eq!(p.server_cpu_us[0], [0.0, 2.0, 80.0, 85.0, 86.0, 96.0]);
        // c1_written → s1_read waits 135, 145, 155 µs: median 145.
        let wait = &p.client[3];
        assert_eq!(
            (wait.from.as_str(), wait.to.as_str()),
            ("c1_written", "s1_read")
        );
        assert_eq!(wait.wall_p50_us, 145.0);
        assert_eq!(wait.cpu_p50_us, 1.0);
        assert_eq!(p.server[1].wall_p50_us, 80.0);
        assert_eq!(p.server[1].cpu_p50_us, 78.0);
    }

    #[test]
    fn a_connection_off_the_usual_sequence_is_irregular_and_left_out() {
        let base = Instant::now();
        let mut odd = conn(base, 0);
        odd.client.as_mut().unwrap().events.pop();
        let traces = [conn(base, 0), conn(base, 0), odd];
        let p = from_traces(&traces).unwrap();
        assert_eq!(p.irregular, 1);
        assert_eq!(p.client_wall_us.len(), 3, "kept in the arrays");
        assert_eq!(p.client.len(), 7);
    }

    #[test]
    fn no_phases_without_every_clients_moments() {
        let base = Instant::now();
        let mut missing = conn(base, 0);
        missing.client = None;
        assert!(from_traces(&[conn(base, 0), missing]).is_none());
        assert!(from_traces(&[]).is_none());
        // Without the server's moments: client phases only.
        let mut no_server = conn(base, 0);
        no_server.server = None;
        let p = from_traces(&[no_server]).unwrap();
        assert!(p.server_events.is_empty() && p.server_wall_us.is_empty());
        assert_eq!(p.client.len(), 7);
    }
}
