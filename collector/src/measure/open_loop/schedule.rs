//! When each connection of an open-loop arm is meant to start: evenly spaced, or a
//! Poisson process from a seeded generator. Bounded in count.

use std::time::Duration;

use shared::Arrival;

/// The intended start times (offsets from the schedule's origin) of the connections of
/// one offered rate: the first at 0, then gaps of `1 / rate` (constant) or exponential
/// gaps with that mean (Poisson, from `seed`), every one before `window`. At most
/// `max_connections` (a Poisson schedule that would draw more is cut there).
pub fn intended_starts(
    arrival: Arrival,
    rate_per_s: f64,
    window: Duration,
    seed: u64,
    max_connections: u64,
) -> Vec<Duration> {
    // In nanoseconds: whole milliseconds stay exact (1 / 1000 s is not a binary fraction).
    let window_ns = window.as_nanos() as f64;
    if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut t = 0.0_f64;
    let mut i = 0_u64;
    while t < window_ns && i < max_connections {
        out.push(Duration::from_nanos(t as u64));
        i += 1;
        t = match arrival {
            // From the index, not by adding gaps: no rounding drift over a long window.
            Arrival::Constant => i as f64 * 1e9 / rate_per_s,
            // Inverse transform: 1 - u is in (0, 1], so the logarithm is finite.
            Arrival::Poisson => t - (1.0 - rng.f64()).ln() * 1e9 / rate_per_s,
        };
    }
    out
}

/// How many connections a schedule may hold: the expected count with room for a
/// Poisson schedule's spread (its standard deviation is the square root of the mean).
pub fn max_connections(rate_per_s: u64, window: Duration) -> u64 {
    let mean = rate_per_s as f64 * window.as_secs_f64();
    (mean + 10.0 * mean.sqrt() + 10.0).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn constant_arrivals_are_evenly_spaced_inside_the_window() {
        let s = intended_starts(Arrival::Constant, 1000.0, 10 * MS, 0, 1000);
        let want: Vec<Duration> = (0..10).map(|i| i * MS).collect();
        assert_eq!(s, want);
        // 4 per second over 1 s: 0, 250, 500, 750 ms.
        let s = intended_starts(Arrival::Constant, 4.0, 1000 * MS, 0, 1000);
        assert_eq!(s, [Duration::ZERO, 250 * MS, 500 * MS, 750 * MS]);
    }

    #[test]
    fn a_schedule_is_bounded_in_count() {
        let s = intended_starts(Arrival::Constant, 1000.0, 10 * MS, 0, 3);
        assert_eq!(s.len(), 3);
        assert!(intended_starts(Arrival::Poisson, 1e6, 1000 * MS, 1, 50).len() == 50);
        assert!(intended_starts(Arrival::Constant, 0.0, 10 * MS, 0, 10).is_empty());
        assert!(intended_starts(Arrival::Poisson, f64::NAN, 10 * MS, 0, 10).is_empty());
        // 1,000/s for 2 s: 2,000 expected, room for 10 standard deviations (≈ 447).
        assert_eq!(max_connections(1000, 2000 * MS), 2458);
    }

    #[test]
    fn poisson_arrivals_are_reproducible_from_the_seed_and_increasing() {
        let a = intended_starts(Arrival::Poisson, 2000.0, 1000 * MS, 42, 10_000);
        let b = intended_starts(Arrival::Poisson, 2000.0, 1000 * MS, 42, 10_000);
        let c = intended_starts(Arrival::Poisson, 2000.0, 1000 * MS, 43, 10_000);
        assert_eq!(a, b, "same seed, same schedule");
        assert_ne!(a, c, "another seed, another schedule");
        assert_eq!(a[0], Duration::ZERO);
        assert!(a.windows(2).all(|w| w[0] <= w[1]), "in time order");
        assert!(a.iter().all(|t| *t < 1000 * MS), "inside the window");
        // A Poisson count with mean 2,000 has a standard deviation of about 45; this
        // seed's draw is fixed, so the bound is a check of the gaps' mean, not of luck.
        assert!(a.len().abs_diff(2000) < 5 * 45, "{} arrivals", a.len());
        // The gaps are not all equal (that would be a constant schedule).
        let gaps: Vec<Duration> = a.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().any(|g| *g != gaps[0]));
    }
}
