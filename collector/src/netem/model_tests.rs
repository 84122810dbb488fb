//! The link model on a virtual clock, with seeded RNGs: every bound below is derived
//! here from the asked settings, never read off a run of the code.

use std::time::Duration;

use super::link::LinkSpec;
use super::model::{serialization, Cause, Counters, Fate, Model};

fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

fn link(text: &str) -> LinkSpec {
    LinkSpec::parse(text).unwrap()
}

/// Offers `n` packets of 100 bytes, 1 ms apart; true where a packet was lost.
fn losses(spec: LinkSpec, seed: u64, n: usize) -> Vec<bool> {
    let mut m = Model::new(spec, seed);
    (0..n)
        .map(|i| m.offer(us(1000 * i as u64), 100) == Fate::Dropped(Cause::Lost))
        .collect()
}

#[test]
fn independent_loss_is_within_binomial_bounds_of_the_asked_rate() {
    let n = 100_000usize;
    for (p, seed) in [(0.01, 1), (0.03, 2), (0.1, 3), (0.3, 4)] {
        let spec = link(&format!("loss={}%", p * 100.0));
        let lost = losses(spec, seed, n).iter().filter(|&&l| l).count() as f64;
        // Binomial(n, p): mean n·p, standard deviation √(n·p·(1−p)); 4.5 σ is broken by
        // chance about once in 150,000 seeds.
        let (mean, sigma) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
        assert!(
            (lost - mean).abs() <= 4.5 * sigma,
            "p {p}: lost {lost} of {n}, expected {mean} ± {}",
            4.5 * sigma
        );
    }
}

#[test]
fn no_loss_asked_loses_nothing() {
    assert!(!losses(link("rtt=10ms"), 9, 10_000).contains(&true));
}

#[test]
fn gilbert_elliott_gives_the_asked_mean_burst_and_loss_rate() {
    let (p, b, n) = (0.1, 3.0, 300_000usize);
    let lost = losses(link("loss=10%,burst=3"), 5, n);
    let mut runs: Vec<usize> = Vec::new();
    let mut current = 0;
    for &l in &lost {
        if l {
            current += 1;
        } else if current > 0 {
            runs.push(current);
            current = 0;
        }
    }
    // A run of losses is geometric with leave probability r = 1/b: mean b, variance
    // (1 − r)/r² = b(b − 1); the mean of k runs has standard error √(b(b − 1)/k).
    let k = runs.len() as f64;
    let mean = runs.iter().sum::<usize>() as f64 / k;
    let se = (b * (b - 1.0) / k).sqrt();
    assert!(
        (mean - b).abs() <= 4.5 * se,
        "mean burst {mean} over {k} runs, expected {b} ± {}",
        4.5 * se
    );
    // The loss rate of a two-state chain: its variance over n packets is n·p(1−p)·(1+λ)/(1−λ),
    // λ = 1 − q − r the chain's second eigenvalue (q = p·r/(1 − p) to enter the bad state).
    let r = 1.0 / b;
    let q = p * r / (1.0 - p);
    let lambda = 1.0 - q - r;
    let total = lost.iter().filter(|&&l| l).count() as f64;
    let sigma = (n as f64 * p * (1.0 - p) * (1.0 + lambda) / (1.0 - lambda)).sqrt();
    assert!(
        (total - n as f64 * p).abs() <= 4.5 * sigma,
        "lost {total} of {n}, expected {} ± {}",
        n as f64 * p,
        4.5 * sigma
    );
    // Independent loss at the same rate has bursts of mean 1/(1 − p) ≈ 1.11: the chain
    // must be far from that.
    assert!(mean > 2.0, "{mean}");
}

#[test]
fn serialization_takes_the_packets_bits_over_the_rate() {
    // 1,500 bytes = 12,000 bits: 12 µs at 1 Gbit/s, 12 ms at 1 Mbit/s.
    assert_eq!(serialization(1500, 1_000_000_000), us(12));
    assert_eq!(serialization(1500, 1_000_000), us(12_000));
    assert_eq!(serialization(1, 8_000), us(1000));
    // Ten packets at once on a 1 Gbit/s link with 10 ms RTT: one after the other, the
    // i-th (from 1) done after i × 12 µs, then 5 ms on the way.
    let mut m = Model::new(link("rtt=10ms,rate=1gbit"), 1);
    for i in 1..=10u64 {
        assert_eq!(
            m.offer(us(0), 1500),
            Fate::Leave(us(5000 + 12 * i)),
            "packet {i}"
        );
    }
    // A packet after the queue emptied goes at once.
    assert_eq!(m.offer(us(1000), 1500), Fate::Leave(us(1000 + 12 + 5000)));
}

#[test]
fn a_full_queue_drops_the_newcomer() {
    // 1 Mbit/s: a 1,500-byte packet takes 12 ms. Limit 5: five at t = 0 are queued (the
    // first in serialization), the next three dropped.
    let mut m = Model::new(link("rate=1mbit,limit=5"), 1);
    let fates: Vec<Fate> = (0..8).map(|_| m.offer(us(0), 1500)).collect();
    for (i, f) in fates.iter().enumerate().take(5) {
        assert_eq!(*f, Fate::Leave(us(12_000 * (i as u64 + 1))), "packet {i}");
    }
    assert!(fates[5..]
        .iter()
        .all(|f| *f == Fate::Dropped(Cause::QueueFull)));
    // At 12 ms the first is done: one place is free, for one packet, after the fifth.
    assert_eq!(m.offer(us(12_000), 1500), Fate::Leave(us(72_000)));
    assert_eq!(m.offer(us(12_000), 1500), Fate::Dropped(Cause::QueueFull));
    assert_eq!(
        (m.counters.seen, m.counters.queue_full, m.counters.lost),
        (10, 4, 0)
    );
}

#[test]
fn jitter_spreads_delays_but_never_reorders() {
    // Packets 100 µs apart (a dense flight, where a late draw holds back the packets
    // behind it) and 20 ms apart (wider than the jitter window: every draw shows).
    for spacing in [100u64, 20_000] {
        let mut m = Model::new(link("rtt=20ms,jitter=5ms"), 11);
        let mut last = Duration::ZERO;
        let (mut lowest, mut highest) = (Duration::MAX, Duration::ZERO);
        for i in 0..20_000u64 {
            let now = us(spacing * i);
            let Fate::Leave(at) = m.offer(now, 100) else {
                panic!("no loss asked")
            };
            assert!(at >= last, "packet {i} left at {at:?}, before {last:?}");
            last = at;
            // Uniform in 10 ± 5 ms; the no-reordering floor only ever holds a packet
            // until its predecessor leaves, itself at most 15 ms after an earlier arrival.
            let delay = at - now;
            assert!((us(5000)..=us(15_000)).contains(&delay), "{delay:?}");
            lowest = lowest.min(delay);
            highest = highest.max(delay);
        }
        if spacing == 20_000 {
            // Each draw has a 1-in-20 chance to land in each end's 0.5 ms: spread over
            // the window (a constant delay would pass every check above).
            assert!(
                lowest < us(5500) && highest > us(14_500),
                "{lowest:?}..{highest:?}"
            );
        }
    }
}

#[test]
fn without_jitter_every_packet_waits_half_the_rtt() {
    let mut m = Model::new(link("rtt=5.6ms"), 3);
    for i in 0..100u64 {
        assert_eq!(m.offer(us(i * 7), 60), Fate::Leave(us(i * 7 + 2800)));
    }
}

#[test]
fn packets_over_the_mtu_are_dropped_and_counted_apart() {
    let mut m = Model::new(link("mtu=1280,loss=0%"), 1);
    assert_eq!(m.offer(us(0), 1281), Fate::Dropped(Cause::TooBig));
    assert_eq!(m.offer(us(0), 1280), Fate::Leave(us(0)));
    assert_eq!((m.counters.seen, m.counters.too_big), (2, 1));
}

#[test]
fn the_same_seed_gives_the_same_fates_and_another_seed_others() {
    let spec = link("loss=20%,burst=2");
    assert_eq!(losses(spec, 42, 5000), losses(spec, 42, 5000));
    assert_ne!(losses(spec, 42, 5000), losses(spec, 43, 5000));
}

#[test]
fn a_spared_packet_is_never_lost_and_draws_no_random_number() {
    let spec = link("rtt=10ms,loss=50%");
    let mut a = Model::new(spec, 8);
    let mut b = Model::new(spec, 8);
    for i in 0..1000u64 {
        // `b` also gets a spared packet before each one: the same fates for the others.
        assert_eq!(
            b.offer_spared(us(10 * i), 40),
            Fate::Leave(us(10 * i + 5000))
        );
        assert_eq!(
            a.offer(us(10 * i), 100),
            b.offer(us(10 * i), 100),
            "packet {i}"
        );
    }
    assert_eq!((b.counters.spared, b.counters.seen), (1000, 1000));
    assert_eq!(a.counters.lost, b.counters.lost);
    assert!(a.counters.lost > 0);
}

/// `n` packets of 100 bytes, 1 ms apart, counted as the relay counts them, as evidence.
fn counted(spec: LinkSpec, seed: u64, n: u64) -> shared::LinkCounts {
    let mut m = Model::new(spec, seed);
    let mut c = Counters::default();
    for i in 0..n {
        c.count(m.offer(us(1000 * i), 100));
    }
    shared::LinkCounts {
        seen: c.seen,
        lost: c.lost,
        runs: Some(c.runs),
        ..shared::LinkCounts::default()
    }
}

#[test]
fn a_seeded_independent_loss_process_passes_the_evidence_checks_and_a_bursty_one_does_not() {
    use shared::link_check::check;
    for (p, seed) in [(0.03, 21), (0.2, 22)] {
        let c = counted(link(&format!("loss={}%", p * 100.0)), seed, 20_000);
        let d = check(&c, p, None).unwrap();
        assert_eq!(d.outside().count(), 0, "p {p}: {d:?}");
        assert_eq!(d.independent(), Some(true), "p {p}: {d:?}");
    }
    // Gilbert–Elliott at 10% with bursts of 3, held against independent 10% draws: the
    // losses come in clumps, so there are far fewer runs than chance gives.
    let c = counted(link("loss=10%,burst=3"), 23, 20_000);
    let d = check(&c, 0.1, None).unwrap();
    assert_eq!(d.independent(), Some(false), "{d:?}");
    assert!(d.runs_z.unwrap() < -10.0, "{d:?}");
}
