//! The summary's open-loop section.

use shared::Mode;

use super::*;
use crate::measure::open_loop::test_arm;

#[test]
fn the_open_loop_section_shows_each_rate_and_names_the_knee() {
    let mut e = shared::sample::evidence();
    let mut slow = test_arm(
        "full-400",
        Mode::Full,
        400.0,
        390.0,
        vec![900.0, 1000.0, 2000.0, 2500.0],
    );
    slow.failed = 1;
    slow.attempted = 5;
    e.arms = vec![
        slow,
        test_arm(
            "full-200",
            Mode::Full,
            200.0,
            199.0,
            vec![300.0, 310.0, 320.0, 330.0],
        ),
    ];
    let out = open_loop(&e);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1],
        "Open-loop capacity (latency from each connection's intended start; late: began more than 1.00 ms after it):"
    );
    assert_eq!(
        lines[2].trim(),
        "rustls tls1.3 full ecdsa-p256 x25519 · constant arrivals · 4 client workers"
    );
    // In order of offered rate, whatever the order of the arms.
    let row = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        row(lines[4]),
        [
            "200", "199.0", "310.0", "µs", "330.0", "µs", "0", "of", "4", "20.0", "µs", "50.0",
            "µs", "0", "0", "of", "4"
        ]
    );
    assert_eq!(row(lines[5])[..5], ["400", "390.0", "1.00", "ms", "2.50"]);
    assert_eq!(row(lines[5])[row(lines[5]).len() - 3..], ["1", "of", "5"]);
    assert_eq!(
        lines[6],
        "  knee: p99 more than doubles above 200 new connections/s: 2.50 ms at 400/s against 330 µs at 200/s; \
         achieved stays within 10% of offered up to 400 new connections/s"
    );
    // A run without open-loop arms has no such section.
    assert_eq!(open_loop(&shared::sample::evidence()), "");
}

#[test]
fn the_hypervisor_line_names_steal_per_cpu_the_idle_settings_and_the_worst_round() {
    let mut e = shared::sample::evidence();
    assert_eq!(hypervisor(&e), "", "nothing recorded, nothing said");
    e.environment.steal_percent = [("cpu0".to_string(), 23.5), ("cpu1".to_string(), 4.0)]
        .into_iter()
        .collect();
    e.environment.cpu_idle = [
        ("cpuidle.driver", "haltpoll"),
        ("cpuidle.governor", "haltpoll"),
        ("haltpoll.guest_halt_poll_ns", "0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    e.arms[1].round_steal_percent = vec![Some(2.0), None, Some(41.2)];
    assert_eq!(
        hypervisor(&e),
        "Hypervisor: steal time during the run cpu0 23.5%, cpu1 4.0%; idle: cpuidle.driver haltpoll, haltpoll.guest_halt_poll_ns 0; at most 41% in one arm's chunk of a round (arms' round_steal_percent)\n\n"
    );
    // Other programs' share, where recorded: 3 of 40 CPU seconds.
    e.environment.other_work = Some(shared::OtherWork {
        cpu_s: 3.0,
        window_cpu_s: 40.0,
    });
    assert!(
        hypervisor(&e).contains(
            "; other programs 7.5% of the machine's CPU time while the run's own arms were timed;"
        ),
        "{}",
        hypervisor(&e)
    );
}

/// The summary row of `arm`, split on whitespace.
fn summary_row(arm: shared::Arm) -> Vec<String> {
    let mut e = shared::sample::evidence();
    let id = arm.id.clone();
    e.arms = vec![arm];
    let out = summary(&e);
    let line = out
        .lines()
        .find(|l| l.starts_with(&id))
        .unwrap_or_else(|| panic!("no row for {id} in {out}"));
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_resumed_column_shows_only_the_ends_that_counted() {
    use shared::{HandshakeKinds, KindCounts, Stack, Verified};
    let mut caddy = shared::sample::evidence().arms[0].clone();
    caddy.id = "rustls-vs-caddy-tls13-resumed-ticket-rsa2048-x25519".into();
    caddy.server_stack = Stack::Caddy;
    caddy.protocol = shared::Protocol::Tls13;
    caddy.mode = Mode::Resumed;
    caddy.resumed.client = 300;
    caddy.resumed.server = 0;
    caddy.handshake_kinds = Some(HandshakeKinds {
        client: KindCounts {
            resumed: 300,
            ..KindCounts::default()
        },
        server: KindCounts::default(),
    });
    // The server said nothing: its end is "-", not a 0 that reads like "did not resume".
    caddy.verified = Some(Verified::CLIENT_ONLY);
    let row = summary_row(caddy.clone());
    assert!(row.contains(&"300/-".to_string()), "{row:?}");
    // A file from before `verified`: Caddy is known to say nothing.
    caddy.verified = None;
    assert!(summary_row(caddy.clone()).contains(&"300/-".to_string()));
    // A server that reports every connection: both counts.
    caddy.verified = Some(Verified::BOTH);
    caddy.resumed.server = 300;
    assert!(summary_row(caddy.clone()).contains(&"300/300".to_string()));
    // Nothing to verify on either end (plain TCP): "-", no counts.
    caddy.verified = Some(Verified::NOT_APPLICABLE);
    let row = summary_row(caddy);
    assert!(
        row.contains(&"-".to_string()) && !row.iter().any(|c| c.contains("300")),
        "{row:?}"
    );
}

#[test]
fn a_speedup_whose_arms_ran_in_other_speed_modes_is_flagged_under_its_line() {
    let mut e = shared::sample::evidence();
    let c = e.comparisons[0].clone();
    let chunks = |probe: f64| shared::sample::used_chunks(10, probe);
    let flagged = |e: &shared::Evidence| {
        summary(e)
            .lines()
            .filter(|l| l.contains("^ not a fair ratio"))
            .count()
    };
    for a in &mut e.arms {
        a.chunks = Some(chunks(30.0));
    }
    assert_eq!(flagged(&e), 0, "{}", summary(&e));
    let slow = e.arms.iter_mut().find(|a| a.id == c.candidate).unwrap();
    slow.chunks = Some(chunks(45.0));
    assert_eq!(flagged(&e), 1, "{}", summary(&e));
}

#[test]
fn a_lossy_cell_gets_its_populations_line_under_its_heading_and_none_without_one() {
    use crate::measure::link_record::record;
    use crate::netem::{Counters, LinkSpec};
    let mut e = shared::sample::evidence();
    let heading = "Each lossy cell split by what the link dropped";
    assert!(!summary(&e).contains(heading), "no lossy cell, no section");
    let mut a = shared::sample::arm(
        "tls13-full-x-loss3pct-rtt5ms",
        shared::Protocol::Tls13,
        Mode::Full,
        None,
        vec![18_000.0, 19_000.0, 230_000.0, 18_500.0],
    );
    let link = LinkSpec::parse("rtt=5ms,loss=3%").unwrap();
    a.link = Some(record(&link, 1, [Counters::default(); 2]));
    a.populations = shared::loss::populations(&a.samples_us, &[0, 0, 2, 0]);
    e.arms.push(a);
    let out = summary(&e);
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(heading))
        .unwrap_or_else(|| panic!("{out}"));
    // Three of four lost nothing (nearest-rank median of 18, 18.5, 19 ms: 18.5 ms).
    assert_eq!(
        lines[at + 1],
        "  tls13-full-x, 5 ms RTT, at 3%: 75% (3 of 4) lost nothing, p50 18.50 ms, the others 230.00 ms"
    );
    assert_eq!(lines[at - 1], "", "a blank line before the heading");
}
