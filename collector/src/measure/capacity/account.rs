//! A capacity arm's accounting, apart from the threads that run it: every client
//! connection paired with the server's report for it, checked, and placed in the window.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use shared::Side;

use crate::arms::verify::check_side;
use crate::arms::ArmRun;
use crate::arms::{ArmSpec, Handshake};

/// One successful client connection of a capacity arm. Times are offsets from one origin
/// taken before the client threads start.
#[derive(Debug, Clone)]
pub(in crate::measure) struct Conn {
    /// When its timer started.
    pub(in crate::measure) started: Duration,
    /// Its timed window (connect + handshake).
    pub(in crate::measure) elapsed: Duration,
    /// How long before `started` it was meant to start (open-loop arms: its lateness;
    /// zero in a closed loop). Its sample is `queued + elapsed`.
    pub(in crate::measure) queued: Duration,
    pub(in crate::measure) facts: Option<Handshake>,
    pub(in crate::measure) local_port: u16,
}

/// One client thread's timed connections.
#[derive(Debug, Default)]
pub(in crate::measure) struct ClientLog {
    /// When this thread's window opened, and when its last connection ended.
    pub(in crate::measure) start: Duration,
    pub(in crate::measure) end: Duration,
    /// Untimed warm-up connections made, and how many of them failed.
    pub(in crate::measure) warmup: (u64, u64),
    pub(in crate::measure) done: Vec<Conn>,
    pub(in crate::measure) failed: u64,
    pub(in crate::measure) first_failure: Option<String>,
}

/// What the server reported for one connection, by the client's port.
pub(in crate::measure) type Report = (u16, std::result::Result<Option<Handshake>, String>);

/// Turns the clients' logs and the server's reports into the arm's run and its
/// per-second timeline, as the main loop would: a connection the server reported nothing
/// for, or reported a failure for, is a failed connection; an empty report or one that
/// breaks the arm's promise is a problem (the arm's error). Only handshakes completed
/// inside the window count in `per_second`; the others are `after_window`.
pub(in crate::measure) fn account(
    spec: &ArmSpec,
    logs: Vec<ClientLog>,
    reports: Vec<Report>,
    window: Duration,
) -> (ArmRun, Vec<f64>, u64) {
    // A port is reused only after its connection closed, so per port the reports come in
    // the order the connections were made.
    let mut by_port: HashMap<u16, VecDeque<_>> = HashMap::new();
    for (port, result) in reports {
        by_port.entry(port).or_default().push_back(result);
    }
    let mut run = ArmRun::new(*spec, 0);
    let mut per_second = vec![0.0; window.as_secs() as usize];
    let mut after_window = 0;
    let mut conns: Vec<(Duration, Conn)> = Vec::new();
    for log in logs {
        run.attempted += log.failed;
        run.failed += log.failed;
        if run.first_failure.is_none() {
            run.first_failure = log.first_failure;
        }
        run.timed_wall = run.timed_wall.max(log.end.saturating_sub(log.start));
        run.warmup_attempted += log.warmup.0;
        run.warmup_failed += log.warmup.1;
        conns.extend(log.done.into_iter().map(|c| (log.start, c)));
    }
    conns.sort_by_key(|(_, c)| c.started);
    for (start, c) in conns {
        run.attempted += 1;
        let server = match by_port.get_mut(&c.local_port).and_then(VecDeque::pop_front) {
            Some(Ok(server)) => server,
            failure => {
                run.failed += 1;
                run.first_failure.get_or_insert_with(|| match failure {
                    Some(Err(e)) => format!("server side: {e}"),
                    _ => "the server reported nothing for this connection".into(),
                });
                continue;
            }
        };
        run.record_sample(c.queued + c.elapsed);
        let mut problems = Vec::new();
        for (side, facts) in [(Side::Client, &c.facts), (Side::Server, &server)] {
            let name = if side == Side::Client {
                "client"
            } else {
                "server"
            };
            match facts {
                Some(h) => {
                    check_side(spec, name, h, &mut problems);
                    run.count(side, h);
                }
                None => problems.push(format!("{name} reported no handshake")),
            }
        }
        problems.into_iter().for_each(|p| run.problem(p));
        let completed = (c.started + c.elapsed).saturating_sub(start);
        match per_second.get_mut(completed.as_secs() as usize) {
            Some(slot) if completed < window => *slot += 1.0,
            _ => after_window += 1,
        }
    }
    (run, per_second, after_window)
}

#[cfg(test)]
mod tests {
    use rustls::HandshakeKind::Full;
    use shared::{CertKind, KxGroup};

    use super::*;
    use crate::measure::capacity::{base_spec, cpu_sharing};

    const MS: Duration = Duration::from_millis(1);

    fn spec() -> ArmSpec {
        base_spec(&[CertKind::EcdsaP256], &[KxGroup::X25519])
    }

    fn hs(kind: rustls::HandshakeKind) -> Option<Handshake> {
        Some(Handshake {
            kind,
            protocol: Some(rustls::ProtocolVersion::TLSv1_3),
            kx_group: Some(rustls::NamedGroup::X25519),
            cipher_suite: None,
            expected_cert: Some(true),
            early_data: None,
            trace: None,
            cpu: None,
            wire: None,
        })
    }

    /// A connection on `port` whose timer started at `started_ms` (after the origin) and
    /// whose handshake took 1 ms.
    fn conn(port: u16, started_ms: u64) -> Conn {
        Conn {
            started: MS * started_ms as u32,
            elapsed: MS,
            queued: Duration::ZERO,
            facts: hs(Full),
            local_port: port,
        }
    }

    fn log(start_ms: u32, end_ms: u32, done: Vec<Conn>) -> ClientLog {
        ClientLog {
            start: MS * start_ms,
            end: MS * end_ms,
            done,
            ..ClientLog::default()
        }
    }

    #[test]
    fn missing_failed_and_empty_server_reports_are_never_ignored() {
        let logs = vec![log(
            0,
            500,
            vec![conn(1, 10), conn(2, 20), conn(3, 30), conn(4, 40)],
        )];
        let reports = vec![
            (1, Ok(hs(Full))),
            (2, Err("handshake: bad record".into())),
            (3, Ok(None)),
            // nothing for port 4
        ];
        let (run, per_second, after) = account(&spec(), logs, reports, Duration::from_secs(1));
        assert_eq!((run.attempted, run.failed), (4, 2), "2 and 4 failed");
        assert_eq!(run.samples_us.len(), 2, "1 and 3 succeeded on the client");
        assert_eq!(
            run.first_failure.as_deref(),
            Some("server side: handshake: bad record")
        );
        assert_eq!(
            run.problems.get("server reported no handshake"),
            Some(&1),
            "{:?}",
            run.problems
        );
        assert_eq!((per_second, after), (vec![2.0], 0));
    }

    #[test]
    fn only_handshakes_completed_inside_the_window_count_per_second() {
        // Window of 2 s from each thread's start; thread b starts 5 ms after a.
        let a = log(0, 2100, vec![conn(1, 100), conn(2, 1500), conn(3, 1999)]);
        let b = log(5, 2050, vec![conn(4, 1003), conn(5, 2003)]);
        let reports = (1..=5).map(|p| (p, Ok(hs(Full)))).collect();
        let (run, per_second, after) = account(&spec(), vec![a, b], reports, 2 * MS * 1000);
        // a: 101 ms, 1501 ms in; 2000 ms is the window's end. b: 999 ms in; 1999 ms in.
        assert_eq!(per_second, [2.0, 2.0]);
        assert_eq!(after, 1, "a's third handshake completed at 2.000 s");
        assert_eq!(run.samples_us.len(), 5, "it is still a measured connection");
        // The wall time of the timed connections: the longest thread.
        assert_eq!(run.timed_wall, MS * 2100);
    }

    #[test]
    fn a_queued_connection_counts_its_wait_in_its_sample_but_completes_when_it_did() {
        // Open loop: meant to start at 100 ms, began at 900 ms (800 ms queued), 1 ms
        // handshake: a sample of 801 ms, completed at 901 ms, in the first second.
        let mut late = conn(1, 900);
        late.queued = 800 * MS;
        let (run, per_second, after) = account(
            &spec(),
            vec![log(0, 901, vec![late])],
            vec![(1, Ok(hs(Full)))],
            2 * MS * 1000,
        );
        assert_eq!(run.samples_us, [801_000.0]);
        assert_eq!((per_second, after), (vec![1.0, 0.0], 0));
    }

    #[test]
    fn a_reused_port_pairs_reports_in_connection_order() {
        // Port 7 used by thread b first (a 1 ms handshake), then by thread a (2 ms): the
        // first report is b's, the second (a failure) a's.
        let mut later = conn(7, 300);
        later.elapsed = 2 * MS;
        let a = log(0, 900, vec![later]);
        let b = log(0, 900, vec![conn(7, 100)]);
        let reports = vec![(7, Ok(hs(Full))), (7, Err("reset".into()))];
        let (run, _, _) = account(&spec(), vec![a, b], reports, Duration::from_secs(1));
        assert_eq!(
            run.samples_us,
            [1000.0],
            "b's connection is the one that worked"
        );
        assert_eq!(run.failed, 1);
        assert!(run.problems.is_empty(), "{:?}", run.problems);
    }

    #[test]
    fn failures_and_warm_up_add_up_and_the_wall_time_is_the_longest_thread() {
        let mut a = log(0, 1200, vec![conn(1, 10)]);
        a.failed = 3;
        a.first_failure = Some("connect: refused".into());
        a.warmup = (5, 1);
        let mut b = log(2, 1000, Vec::new());
        b.warmup = (5, 0);
        let (run, _, _) = account(
            &spec(),
            vec![a, b],
            vec![(1, Ok(hs(Full)))],
            Duration::from_secs(1),
        );
        assert_eq!((run.attempted, run.failed), (4, 3));
        assert_eq!(run.first_failure.as_deref(), Some("connect: refused"));
        assert_eq!(run.timed_wall, MS * 1200);
        assert_eq!((run.warmup_attempted, run.warmup_failed), (10, 1));
    }

    #[test]
    fn the_cpu_sharing_note_names_both_ends_and_the_cpus() {
        let note = cpu_sharing(3);
        assert!(
            note.contains("3 client thread(s) and 3 server worker(s)"),
            "{note}"
        );
        assert!(note.contains("logical CPU"), "{note}");
    }
}
