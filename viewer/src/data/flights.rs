//! Flight sizes against round trips: per full-handshake arm over an emulated link, its
//! server's first flight in bytes against its time to first byte in round trips, with
//! the initial congestion window the run's own TCP_INFO read (`initial_cwnd × mss`);
//! the arm details' line of wire sizes; and the sentence for a flight that crossed the
//! window. Plain functions: the chart only draws what [`flight_chart`] gives it.

use shared::{Arm, Evidence, FlightSizes, Mode};

use super::filter::ArmFilter;
use super::outcome::no_result;

/// One arm's point.
#[derive(Debug, Clone, PartialEq)]
pub struct FlightPoint {
    /// The arm's id.
    pub label: String,
    /// The server's first flight, median bytes.
    pub bytes: f64,
    /// The arm's p50 in round trips of its own path (`rtt_multiple`).
    pub rtts: f64,
}

/// The chart: its points and the initial window they are held against.
#[derive(Debug, Clone, PartialEq)]
pub struct FlightChart {
    pub points: Vec<FlightPoint>,
    /// `(segments, mss)` of the servers' initial window, as their sockets reported it
    /// (the median over the points' arms); None where no arm read it.
    pub window: Option<(u64, u64)>,
    /// Whether the round trips are a time to first byte (false: connect + handshake,
    /// `--handshake-window`).
    pub ttfb: bool,
}

impl FlightChart {
    /// The window in bytes, where read.
    pub fn window_bytes(&self) -> Option<f64> {
        self.window.map(|(c, m)| c as f64 * m as f64)
    }
}

/// The server's first flight of a sound full-handshake arm over an emulated link that
/// has a round-trip count.
fn flight_of(a: &Arm) -> Option<(&FlightSizes, f64)> {
    // A lossy link's round trips are TCP's timers as much as the flight (the loss view
    // has them): only loss-free links say what a flight's size costs.
    let lossy = super::loss::loss_suffix(super::series::without_rtt_suffix(&a.id))
        .is_some_and(|(_, loss)| loss > 0.0);
    if a.mode != Mode::Full || no_result(a).is_some() || lossy {
        return None;
    }
    let f = a.wire.as_ref()?.server_first_flight.as_ref()?;
    Some((f, a.rtt_multiple?))
}

/// The points of `ev`'s arms that pass `filter`; None when there is none.
pub fn flight_chart(ev: &Evidence, filter: &ArmFilter) -> Option<FlightChart> {
    let mut points = Vec::new();
    let (mut cwnds, mut msss) = (Vec::new(), Vec::new());
    let mut ttfb = false;
    for a in ev.arms.iter().filter(|a| filter.matches(a)) {
        let Some((f, rtts)) = flight_of(a) else {
            continue;
        };
        ttfb |= a.ttfb;
        points.push(FlightPoint {
            label: a.id.clone(),
            bytes: f.bytes_p50 as f64,
            rtts,
        });
        cwnds.extend(f.initial_cwnd);
        msss.extend(f.mss);
    }
    if points.is_empty() {
        return None;
    }
    let median = |v: &[u64]| shared::wire::median_u64(v);
    Some(FlightChart {
        points,
        window: median(&cwnds).zip(median(&msss)),
        ttfb,
    })
}

/// `1,234 B`.
pub fn fmt_bytes(b: u64) -> String {
    super::pages::thousands(b) + " B"
}

fn flight_text(name: &str, f: &FlightSizes) -> String {
    let mut s = format!("{name} {}", fmt_bytes(f.bytes_p50));
    if let Some(seg) = f.segments_p50 {
        s += &format!(" in {seg} segment{}", if seg == 1 { "" } else { "s" });
    }
    s
}

/// The arm's wire sizes in words, for its details: chain, server flight (with the window
/// it started from), ClientHello, and the round-trip count. None when it has none.
pub fn wire_text(a: &Arm) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(w) = &a.wire {
        if let (Some(n), Some(b)) = (w.chain_certificates, w.chain_bytes) {
            parts.push(format!(
                "chain {n} certificate{} {}",
                if n == 1 { "" } else { "s" },
                fmt_bytes(b)
            ));
        }
        if let Some(f) = &w.server_first_flight {
            let mut s = flight_text("server flight", f);
            if let (Some(c), Some(m), Some(bytes)) = (f.initial_cwnd, f.mss, f.window_bytes()) {
                s += &format!(" (initial window {c} × {m} B = {})", fmt_bytes(bytes));
            }
            parts.push(s);
        }
        if let Some(f) = &w.client_hello {
            parts.push(flight_text("ClientHello", f));
        }
    }
    if let Some(m) = a.rtt_multiple {
        parts.push(format!("p50 {m:.2} RTT"));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// One sentence per sound full-handshake arm whose median server flight was larger than
/// the initial window its socket reported, with the round trips it took beside those of
/// the run's smallest flight that fitted; the arm's id and its numbers.
pub fn crossings(ev: &Evidence) -> Vec<(String, &Arm, f64)> {
    let fits = ev
        .arms
        .iter()
        .filter_map(|a| Some((a, flight_of(a)?)))
        .filter(|(_, (f, _))| f.exceeds_window() == Some(false))
        .min_by_key(|(_, (f, _))| f.bytes_p50);
    let mut out = Vec::new();
    for a in &ev.arms {
        let Some((f, rtts)) = flight_of(a) else {
            continue;
        };
        let (Some(true), Some(window), Some(cwnd), Some(mss)) =
            (f.exceeds_window(), f.window_bytes(), f.initial_cwnd, f.mss)
        else {
            continue;
        };
        let chain = a
            .wire
            .as_ref()
            .and_then(|w| w.chain_bytes)
            .map_or(String::new(), |b| format!(", chain {}", fmt_bytes(b)));
        let at = a
            .rtt_ms
            .map_or(String::new(), |r| format!(" at {r} ms RTT"));
        // A --handshake-window run times connect + handshake: no first byte.
        let took = if a.ttfb {
            "its first byte came after"
        } else {
            "connect and handshake took"
        };
        let mut s = format!(
            "The server's first flight of {} ({}{chain}) is larger than TCP's initial window ({cwnd} × {mss} B = {}): {took} {rtts:.2} round trips{at}",
            a.id,
            fmt_bytes(f.bytes_p50),
            fmt_bytes(window),
        );
        if let Some((small, (sf, srtts))) = fits {
            s += &format!(
                ", against {srtts:.2} for {} ({}, within the window)",
                small.id,
                fmt_bytes(sf.bytes_p50)
            );
        }
        s.push('.');
        out.push((s, a, rtts));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;
    use shared::{sample::arm, Protocol, Wire};

    fn flight(bytes: u64) -> FlightSizes {
        FlightSizes {
            connections: 1,
            bytes_min: bytes,
            bytes_p50: bytes,
            bytes_max: bytes,
            segments_p50: Some(bytes.div_ceil(1448)),
            segments_max: Some(bytes.div_ceil(1448)),
            initial_cwnd: Some(10),
            mss: Some(1448),
        }
    }

    fn pq_run() -> Evidence {
        let mut ev = sample();
        ev.arms.clear();
        ev.comparisons.clear();
        for (cert, bytes, rtts) in [("ecdsa", 1_900, 3.01), ("mldsa87", 24_000, 4.02)] {
            let mut a = arm(
                &format!("tls13-full-{cert}-x25519-rtt50ms"),
                Protocol::Tls13,
                Mode::Full,
                None,
                vec![rtts * 50_000.0],
            );
            a.rtt_ms = Some(50.0);
            a.rtt_multiple = Some(rtts);
            a.wire = Some(Wire {
                chain_certificates: Some(3),
                chain_bytes: Some(bytes - 1000),
                server_first_flight: Some(flight(bytes)),
                client_hello: None,
            });
            ev.arms.push(a);
        }
        ev
    }

    #[test]
    fn one_point_per_full_arm_and_the_window_from_the_sockets() {
        let mut ev = pq_run();
        let mut resumed = ev.arms[0].clone();
        resumed.mode = Mode::Resumed;
        ev.arms.push(resumed);
        let c = flight_chart(&ev, &ArmFilter::default()).unwrap();
        assert_eq!(c.points.len(), 2, "resumed arms are not cert cells");
        assert_eq!(c.points[1].bytes, 24_000.0);
        assert_eq!(c.points[1].rtts, 4.02);
        assert_eq!(c.window, Some((10, 1448)));
        assert_eq!(c.window_bytes(), Some(14_480.0));
        // No window read: the points, and no line.
        for a in &mut ev.arms {
            if let Some(f) = a.wire.as_mut().and_then(|w| w.server_first_flight.as_mut()) {
                f.mss = None;
            }
        }
        assert_eq!(
            flight_chart(&ev, &ArmFilter::default()).unwrap().window,
            None
        );
        ev.arms.iter_mut().for_each(|a| a.rtt_multiple = None);
        assert_eq!(flight_chart(&ev, &ArmFilter::default()), None);
    }

    #[test]
    fn a_flight_past_the_window_gets_a_sentence_with_its_numbers() {
        // An emulated run times a first byte unless it asked for the handshake alone.
        let mut ev = pq_run();
        ev.arms.iter_mut().for_each(|a| a.ttfb = true);
        let c = crossings(&ev);
        assert_eq!(c.len(), 1, "only the flight past the window: {c:?}");
        let (text, a, rtts) = &c[0];
        assert_eq!(a.id, "tls13-full-mldsa87-x25519-rtt50ms");
        assert_eq!(*rtts, 4.02);
        assert!(text.contains("24,000 B"), "{text}");
        assert!(text.contains("10 × 1448 B = 14,480 B"), "{text}");
        assert!(
            text.contains("its first byte came after 4.02 round trips at 50 ms RTT"),
            "{text}"
        );
        assert!(text.contains("against 3.01 for tls13-full-ecdsa"), "{text}");
        // A --handshake-window run times connect + handshake: no first byte.
        let mut handshakes = pq_run();
        handshakes.arms.iter_mut().for_each(|a| a.ttfb = false);
        let (text, ..) = &crossings(&handshakes)[0];
        assert!(
            text.contains("connect and handshake took 4.02 round trips"),
            "{text}"
        );
        assert!(flight_chart(&handshakes, &ArmFilter::default()).is_some_and(|c| !c.ttfb));
        assert!(flight_chart(&ev, &ArmFilter::default()).is_some_and(|c| c.ttfb));
        // A lossy link's arm is no point and no sentence; a 0% cell of a grid is.
        let mut lossy = ev.clone();
        lossy.arms[1].id = "tls13-full-mldsa87-x25519-loss3pct-rtt50ms".into();
        assert!(crossings(&lossy).is_empty());
        assert_eq!(
            flight_chart(&lossy, &ArmFilter::default())
                .unwrap()
                .points
                .len(),
            1
        );
        lossy.arms[1].id = "tls13-full-mldsa87-x25519-loss0pct-rtt50ms".into();
        assert_eq!(crossings(&lossy).len(), 1);
        // An arm with an error is no result: no sentence.
        let mut broken = pq_run();
        broken.arms[1].error = Some("broken".into());
        assert!(crossings(&broken).is_empty());
    }

    #[test]
    fn the_details_line_says_every_size() {
        let ev = pq_run();
        let t = wire_text(&ev.arms[1]).unwrap();
        assert_eq!(
            t,
            "chain 3 certificates 23,000 B · server flight 24,000 B in 17 segments (initial window 10 × 1448 B = 14,480 B) · p50 4.02 RTT"
        );
        assert_eq!(wire_text(&sample().arms[0]), None);
        assert_eq!(fmt_bytes(0), "0 B");
        assert_eq!(fmt_bytes(999), "999 B");
        assert_eq!(fmt_bytes(1_000), "1,000 B");
        assert_eq!(fmt_bytes(u64::MAX), "18,446,744,073,709,551,615 B");
    }
}
