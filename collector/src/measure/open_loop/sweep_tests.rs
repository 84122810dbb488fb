//! A small real sweep: rustls server and clients on loopback, full and resumed at two
//! offered rates. Structure and honesty only (counts that add up, latencies from the
//! intended start that are never negative, the evidence's own invariants), no timing.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use shared::{CertKind, KxGroup, Mode};

use super::*;
use crate::arms::Fault;
use crate::measure::capacity::base_spec;

fn options(rates: &[u64], workers: u64) -> Options {
    Options {
        rates: rates.to_vec(),
        window: Duration::from_secs(1),
        arrival: Arrival::Poisson,
        seed: 11,
        workers,
        io_timeout: Duration::from_secs(5),
    }
}

fn sweep(fault: Fault, rates: &[u64], workers: u64) -> Vec<shared::Arm> {
    let spec = ArmSpec {
        fault,
        ..base_spec(&[CertKind::EcdsaP256], &[KxGroup::X25519])
    };
    let certs = CertStore::generate(spec.cert()).unwrap();
    arms(
        &spec,
        &options(rates, workers),
        &certs,
        &AtomicBool::new(false),
    )
    .unwrap()
}

/// The arms as evidence, checked by the shared validation.
fn violations(mut arms: Vec<shared::Arm>) -> Vec<shared::Violation> {
    crate::evidence::apply_cis(&mut arms, 100, 1);
    let mut e = shared::sample::evidence();
    e.arms = arms;
    e.comparisons = Vec::new();
    e.violations()
}

#[test]
fn a_small_sweep_records_offered_achieved_lateness_and_latency_from_the_intended_start() {
    let arms = sweep(Fault::None, &[40, 80], 2);
    let ids: Vec<&str> = arms.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "tls13-full-ecdsa-p256-x25519-rate40",
            "tls13-resumed-ticket-ecdsa-p256-x25519-rate40",
            "tls13-full-ecdsa-p256-x25519-rate80",
            "tls13-resumed-ticket-ecdsa-p256-x25519-rate80",
        ]
    );
    for (a, (rate, seed)) in arms.iter().zip([(40, 11), (40, 12), (80, 13), (80, 14)]) {
        assert_eq!(a.error, None, "{}: {:?}", a.id, a.first_failure);
        assert_eq!(a.timed_window, TIMED_WINDOW);
        let c = a.capacity.as_ref().unwrap();
        let o = c.open_loop.as_ref().unwrap();
        assert_eq!(
            (o.offered_per_s, o.seed, o.arrival),
            (rate as f64, Some(seed), Arrival::Poisson)
        );
        assert_eq!((c.clients, c.server_workers), (2, 2));
        assert_eq!((a.client_threads, a.server_threads), (Some(2), Some(2)));
        assert_eq!(a.warmup_attempted, Some(2 * WARMUP_PER_WORKER));
        // The schedule is the seeded one; every scheduled connection was taken.
        let schedule = schedule::intended_starts(
            Arrival::Poisson,
            rate as f64,
            Duration::from_secs(1),
            seed,
            u64::MAX,
        );
        assert_eq!(o.scheduled, schedule.len() as u64);
        assert_eq!(a.attempted, o.scheduled);
        assert_eq!(a.succeeded + a.failed, a.attempted, "failures counted");
        assert_eq!(a.samples_us.len() as u64, a.succeeded);
        assert_eq!(o.window_s, 1);
        assert_eq!(c.per_second.len(), 1);
        assert_eq!(o.achieved_per_s, c.per_second[0]);
        // Achieved counts only handshakes completed in the window of scheduled ones.
        assert!(o.achieved_per_s <= o.scheduled as f64, "{}", a.id);
        assert!(a.samples_us.iter().all(|s| *s >= 0.0));
        let l = a.latency_us.unwrap();
        assert!(l.min >= 0.0 && l.p50 <= l.p99 && l.p99 <= l.max, "{l:?}");
        let late = o.lateness_us.unwrap();
        assert!(0.0 <= late.p50_us && late.p50_us <= late.p99_us && late.p99_us <= late.max_us);
        assert!(o.late + o.not_started <= a.attempted);
        assert_eq!(o.late_threshold_us, 1000.0);
        assert_eq!(o.give_up_after_us, 1e6);
        if a.mode == Mode::Resumed {
            assert_eq!(
                (a.resumed.client, a.resumed.server),
                (a.succeeded, a.succeeded)
            );
        }
    }
    assert_eq!(violations(arms), []);
}

#[test]
fn dropped_connections_are_failures_never_dropped_from_the_count() {
    // The server closes every 3rd connection it accepts unserved.
    let arms = sweep(Fault::DropEvery(3), &[60], 1);
    assert_eq!(arms.len(), 2);
    for a in &arms {
        let o = a.capacity.as_ref().unwrap().open_loop.as_ref().unwrap();
        assert_eq!(a.attempted, o.scheduled, "{}", a.id);
        // 2 warm-up connections, then the timed ones: of the first 2 + attempted
        // accepted, every third was dropped (the 2nd warm-up is not a multiple of 3).
        let accepted = WARMUP_PER_WORKER + a.attempted;
        let dropped = accepted / 3;
        assert!(
            a.failed >= dropped,
            "{}: {} failed, {dropped} dropped",
            a.id,
            a.failed
        );
        assert_eq!(a.succeeded + a.failed, a.attempted);
        assert!(a.first_failure.is_some());
    }
    assert_eq!(violations(arms), []);
}
