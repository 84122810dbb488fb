use super::*;
use crate::sample;
use crate::schema::{Capacity, Protocol, Resumption};

fn point(offered: f64, achieved: f64, p99: Option<f64>) -> Point {
    Point {
        offered_per_s: offered,
        achieved_per_s: achieved,
        p99_us: p99,
    }
}

#[test]
fn the_knee_is_the_first_rate_whose_p99_more_than_doubles() {
    // 200 → 400 µs (1.9×), 400 → 500 (2.5× of the 200/s baseline): the knee is above 400.
    let points = [
        point(800.0, 790.0, Some(500.0)),
        point(200.0, 199.0, Some(200.0)),
        point(400.0, 398.0, Some(380.0)),
        point(1600.0, 1000.0, Some(9000.0)),
    ];
    assert_eq!(
        knee_sentence(&points),
        "p99 more than doubles above 400 new connections/s: 500 µs at 800/s against 200 µs at 200/s; \
         achieved falls below 90% of offered above 800 new connections/s: 1,000/s achieved of 1,600/s offered"
    );
}

#[test]
fn exactly_double_is_not_past_the_knee() {
    let points = [
        point(100.0, 100.0, Some(300.0)),
        point(200.0, 200.0, Some(600.0)),
    ];
    assert!(knee_sentence(&points).starts_with("no knee up to 200 new connections/s"));
}

#[test]
fn a_server_that_falls_behind_is_a_knee_even_with_a_flat_p99() {
    // 1,700 of 2,000 is 85%: short of 90%.
    let points = [
        point(1000.0, 995.0, Some(300.0)),
        point(2000.0, 1700.0, Some(310.0)),
    ];
    assert_eq!(
        knee_sentence(&points),
        "p99 stays within 2× of 300 µs (at 1,000/s) up to 2,000 new connections/s; \
         achieved falls below 90% of offered above 1,000 new connections/s: 1,700/s achieved of 2,000/s offered"
    );
    let both = [
        point(1000.0, 995.0, Some(300.0)),
        point(2000.0, 1700.0, Some(1300.0)),
    ];
    assert_eq!(
        knee_sentence(&both),
        "p99 more than doubles above 1,000 new connections/s: 1.30 ms at 2,000/s against 300 µs at 1,000/s; \
         achieved falls below 90% of offered above 1,000 new connections/s: 1,700/s achieved of 2,000/s offered"
    );
}

#[test]
fn a_rate_without_a_result_is_past_the_knee() {
    let points = [point(100.0, 100.0, Some(300.0)), point(200.0, 0.0, None)];
    assert_eq!(
        knee_sentence(&points),
        "no connection succeeded above 100 new connections/s (none of them at 200/s); \
         achieved falls below 90% of offered above 100 new connections/s: 0/s achieved of 200/s offered"
    );
}

#[test]
fn no_knee_too_little_and_no_baseline_are_said() {
    let flat = [
        point(100.0, 100.0, Some(300.0)),
        point(200.0, 199.0, Some(400.0)),
        point(400.0, 390.0, Some(599.0)),
    ];
    assert_eq!(
        knee_sentence(&flat),
        "no knee up to 400 new connections/s: p99 stays within 2× of 300 µs (at 100/s) and achieved within 10% of offered; offer higher rates to find it"
    );
    assert_eq!(knee_sentence(&[]), "no open-loop rate was measured");
    assert!(knee_sentence(&flat[..1]).starts_with("one offered rate (100/s)"));
    let no_base = [point(100.0, 0.0, None), point(200.0, 200.0, Some(1.0))];
    assert!(knee_sentence(&no_base).starts_with("no result at the lowest offered rate (100/s)"));
    let saturated = [
        point(100.0, 50.0, Some(300.0)),
        point(200.0, 50.0, Some(900.0)),
    ];
    assert!(knee_sentence(&saturated).ends_with(
        "; achieved is below 90% of offered already at the lowest rate (50/s of 100/s): offer lower rates"
    ));
}

#[test]
fn rates_and_latencies_read_as_people_write_them() {
    assert_eq!(rate(1800.0), "1,800");
    assert_eq!(rate(999.6), "1,000");
    assert_eq!(rate(1_234_567.0), "1,234,567");
    assert_eq!(rate(12.0), "12");
    assert_eq!(rate(f64::NAN), "–");
    assert_eq!(us(87.54), "87.5 µs");
    assert_eq!(us(412.4), "412 µs");
    assert_eq!(us(1234.0), "1.23 ms");
    assert_eq!(us(2.5e6), "2.50 s");
}

fn open_arm(id: &str, mode: Mode, offered: f64, p99: f64) -> Arm {
    let resumption = (mode == Mode::Resumed).then_some(Resumption::Ticket);
    let mut a = sample::arm(id, Protocol::Tls13, mode, resumption, vec![p99 / 2.0, p99]);
    a.capacity = Some(Capacity {
        clients: 4,
        server_workers: 4,
        per_second: vec![offered],
        rate_median_per_s: offered,
        rate_iqr_per_s: [offered, offered],
        after_window: 0,
        cpu_sharing: None,
        open_loop: Some(OpenLoop {
            arrival: Arrival::Constant,
            seed: None,
            offered_per_s: offered,
            window_s: 1,
            scheduled: offered as u64,
            achieved_per_s: offered,
            late_threshold_us: 1000.0,
            late: 0,
            lateness_us: None,
            give_up_after_us: 1e6,
            not_started: 0,
        }),
    });
    a
}

#[test]
fn sweeps_group_arms_by_kind_in_order_of_offered_rate() {
    let mut arms = vec![
        open_arm("full-400", Mode::Full, 400.0, 900.0),
        open_arm("resumed-100", Mode::Resumed, 100.0, 100.0),
        open_arm("full-100", Mode::Full, 100.0, 400.0),
        sample::arm("tcp", Protocol::Tcp, Mode::Connect, None, vec![1.0]),
    ];
    // A closed-loop capacity arm is not part of any sweep.
    let mut closed = open_arm("closed", Mode::Full, 100.0, 1.0);
    closed.capacity.as_mut().unwrap().open_loop = None;
    arms.push(closed);
    let s = sweeps(&arms);
    assert_eq!(s.len(), 2, "full and resumed");
    fn ids<'a>(s: &Sweep<'a>) -> Vec<&'a str> {
        s.arms.iter().map(|a| a.id.as_str()).collect()
    }
    assert_eq!(ids(&s[0]), ["full-100", "full-400"]);
    assert_eq!(ids(&s[1]), ["resumed-100"]);
    assert_eq!(
        s[0].label,
        "rustls tls1.3 full ecdsa-p256 x25519 · constant arrivals · 4 client workers"
    );
    assert_eq!(
        s[1].label,
        "rustls tls1.3 resumed (ticket) ecdsa-p256 x25519 · constant arrivals · 4 client workers"
    );
    assert!(s[0]
        .knee()
        .starts_with("p99 more than doubles above 100 new connections/s"));
    // An arm with an error has no result: it is past the knee, never a number.
    arms[0].error = Some("broken".into());
    let s = sweeps(&arms);
    assert_eq!(s[0].points()[1].p99_us, None);
    assert!(s[0].knee().starts_with("no connection succeeded above 100"));
}
