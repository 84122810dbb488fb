//! Line series against a measured setting: capacity against the number of clients, and
//! time to first byte against the emulated round-trip time.

use shared::{Arm, Evidence, FirstIndex, Mode};

use super::filter::ArmFilter;
use super::outcome::no_result;

/// One point of a line; `spread` is a range drawn as a whisker (e.g. the IQR).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub spread: Option<[f64; 2]>,
}

/// One line, its points sorted by `x`.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<Point>,
}

/// Orders `points` by `x`, points of equal `x` in the order given: O(n log n) however
/// many (inserting each in place was quadratic). The x values are sorted with the same
/// sort the CDF uses (one sort in the wasm, not one more per element type), then each
/// point goes to the next free slot of its x.
fn by_x(points: &mut [Point]) {
    let mut xs: Vec<f64> = points.iter().map(|p| p.x).collect();
    shared::order::sort_f64(&mut xs);
    let mut taken = vec![0usize; xs.len()];
    // A copy to read from while `points` is written (clippy's `iter()` would borrow it).
    #[allow(clippy::unnecessary_to_owned)]
    for p in points.to_vec() {
        let first = xs.partition_point(|x| x.total_cmp(&p.x).is_lt());
        points[first + taken[first]] = p;
        taken[first] += 1;
    }
}

/// Adds `point` to the line called `label`, making the line when it is new (a line per
/// kind of arm: a handful). Call [`by_x`] on each line's points when all are in.
fn push(lines: &mut Vec<Line>, label: String, point: Point) {
    match lines.iter_mut().find(|l| l.label == label) {
        Some(l) => l.points.push(point),
        None => lines.push(Line {
            label,
            points: vec![point],
        }),
    }
}

/// Every line's points ordered by `x`.
pub fn sorted(mut lines: Vec<Line>) -> Vec<Line> {
    for l in &mut lines {
        by_x(&mut l.points);
    }
    lines
}

/// What a capacity chart shows on its y axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapacityMetric {
    /// Median handshakes per second, IQR as whiskers.
    Rate,
    /// p99 latency under that load (µs).
    P99,
}

/// `full` or `resumed (ticket)`, with protocol, cert and group: one line per such arm kind.
fn capacity_label(arm: &Arm) -> String {
    let mode = match (arm.mode, arm.resumption) {
        (Mode::Resumed, Some(r)) => format!("resumed ({r})"),
        (m, _) => m.to_string(),
    };
    let name = |v: Option<String>| v.unwrap_or_default();
    format!(
        "{mode} · {} {} {}",
        arm.protocol,
        name(arm.cert.map(|c| c.to_string())),
        name(arm.kx_group.map(|g| g.to_string()))
    )
}

/// Closed-loop capacity arms as lines against `clients` (full and resumed apart); arms
/// with an error or no successful connection are left out, and so are open-loop arms
/// (their x is an offered rate: `data::open_loop`).
pub fn capacity_lines(ev: &Evidence, filter: &ArmFilter, metric: CapacityMetric) -> Vec<Line> {
    let mut lines = Vec::new();
    for a in ev.arms.iter().filter(|a| filter.matches(a)) {
        let Some(cap) = &a.capacity else { continue };
        if no_result(a).is_some() || cap.open_loop.is_some() {
            continue;
        }
        let x = cap.clients as f64;
        let point = match metric {
            CapacityMetric::Rate => Point {
                x,
                y: cap.rate_median_per_s,
                spread: Some(cap.rate_iqr_per_s),
            },
            CapacityMetric::P99 => match a.latency_us {
                Some(l) => Point {
                    x,
                    y: l.p99,
                    spread: None,
                },
                None => continue,
            },
        };
        push(&mut lines, capacity_label(a), point);
    }
    sorted(lines)
}

/// The arm id without its `-rtt<N>ms` suffix: the same arm at every RTT.
pub fn without_rtt_suffix(id: &str) -> &str {
    // Digits and dots checked by hand: parsing a float would add float parsing to the wasm.
    let number = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.');
    match (shared::search::rfind(id, "-rtt"), id.strip_suffix("ms")) {
        (Some(i), Some(head)) if head.len() >= i + 4 && number(&head[i + 4..]) => &id[..i],
        _ => id,
    }
}

/// p50 time to first byte (µs, p50 CI as whisker) against the asked RTT (ms), one line
/// per arm (its id without the RTT suffix); a 0-RTT arm's label says how often early data
/// was accepted, over all its RTTs. Arms with an error are left out.
pub fn ttfb_lines(ev: &Evidence, filter: &ArmFilter) -> Vec<Line> {
    // Per line: its key (the id without the RTT) and the early-data counts summed over
    // its arms; lines found by key in a map (one line per arm id: any number).
    let mut keys: Vec<(&str, Option<Option<[u64; 2]>>)> = Vec::new();
    let mut line_of = FirstIndex::default();
    let mut lines: Vec<Line> = Vec::new();
    for a in ev.arms.iter().filter(|a| filter.matches(a)) {
        let (Some(rtt), Some(l)) = (a.rtt_ms, a.latency_us) else {
            continue;
        };
        if no_result(a).is_some() {
            continue;
        }
        let key = without_rtt_suffix(&a.id);
        let point = Point {
            x: rtt,
            y: l.p50,
            spread: a.p50_ci95_us,
        };
        let i = match line_of.insert_first(key, lines.len()) {
            Some(i) => i,
            None => {
                keys.push((key, None));
                lines.push(Line {
                    label: key.to_string(),
                    points: Vec::new(),
                });
                lines.len() - 1
            }
        };
        lines[i].points.push(point);
        if let Some(e) = a.early_data {
            // Checked: counts near u64::MAX in a file must not overflow (None: they did).
            let sum = keys[i].1.unwrap_or(Some([0, 0])).and_then(|[acc, off]| {
                Some([acc.checked_add(e.accepted)?, off.checked_add(e.offered)?])
            });
            keys[i].1 = Some(sum);
        }
    }
    let mut lines = sorted(lines);
    for (line, (_, early)) in lines.iter_mut().zip(&keys) {
        match early {
            Some(Some([accepted, offered])) => {
                line.label = format!(
                    "{} (0-RTT: early data accepted {accepted}/{offered})",
                    line.label
                )
            }
            Some(None) => line.label += " (0-RTT: early data counts too large to add up)",
            None => {}
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;
    use shared::{sample::arm, Capacity, EarlyData, Protocol, Resumption};

    fn rtt_run() -> Evidence {
        let mut ev = sample();
        ev.arms.clear();
        ev.comparisons.clear();
        for rtt in [50.0, 0.0, 10.0] {
            for (id, mode, us) in [
                ("tcp-connect", Mode::Connect, 1.0),
                ("tls13-resumed-ticket", Mode::Resumed, 2.0),
                ("tls13-0rtt", Mode::Resumed, 1.0),
            ] {
                let y = 100.0 + us * rtt * 1000.0;
                let mut a = arm(
                    &format!("{id}-rtt{rtt}ms"),
                    Protocol::Tls13,
                    mode,
                    None,
                    vec![y],
                );
                a.rtt_ms = Some(rtt);
                if id == "tls13-0rtt" {
                    a.early_data = Some(EarlyData {
                        offered: 1,
                        accepted: 1,
                    });
                }
                ev.arms.push(a);
            }
        }
        ev
    }

    #[test]
    fn rtt_suffixes_are_cut_only_when_they_are_one() {
        assert_eq!(without_rtt_suffix("tcp-connect-rtt10ms"), "tcp-connect");
        assert_eq!(without_rtt_suffix("tls13-full-x-rtt0.5ms"), "tls13-full-x");
        assert_eq!(without_rtt_suffix("tls13-full"), "tls13-full");
        assert_eq!(without_rtt_suffix("a-rttxms"), "a-rttxms");
        assert_eq!(without_rtt_suffix("-rttms"), "-rttms");
    }

    #[test]
    fn ttfb_lines_group_an_arm_across_rtts_sorted() {
        let ev = rtt_run();
        let lines = ttfb_lines(&ev, &ArmFilter::default());
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].label, "tcp-connect");
        let xs: Vec<f64> = lines[1].points.iter().map(|p| p.x).collect();
        assert_eq!(xs, [0.0, 10.0, 50.0]);
        assert_eq!(lines[1].points[2].y, 100_100.0);
        assert_eq!(
            lines[2].label,
            "tls13-0rtt (0-RTT: early data accepted 3/3)"
        );
        assert_eq!(lines[2].points.len(), 3);
        assert!(ttfb_lines(&sample(), &ArmFilter::default()).is_empty());
    }

    #[test]
    fn error_arms_are_not_points() {
        let mut ev = rtt_run();
        ev.arms[0].error = Some("x".into());
        let lines = ttfb_lines(&ev, &ArmFilter::default());
        let tcp = lines.iter().find(|l| l.label == "tcp-connect").unwrap();
        assert_eq!(tcp.points.len(), 2);
    }

    #[test]
    fn capacity_lines_split_full_and_resumed_against_clients() {
        let mut ev = sample();
        for (clients, mode, rate) in [
            (2, Mode::Full, 900.0),
            (1, Mode::Full, 500.0),
            (1, Mode::Resumed, 800.0),
        ] {
            let resumption = (mode == Mode::Resumed).then_some(Resumption::Ticket);
            let mut a = arm(
                &format!("cap-{clients}-{mode}"),
                Protocol::Tls13,
                mode,
                resumption,
                vec![10.0, 30.0],
            );
            a.capacity = Some(Capacity {
                clients,
                server_workers: clients,
                per_second: vec![rate],
                rate_median_per_s: rate,
                rate_iqr_per_s: [rate - 10.0, rate + 10.0],
                after_window: 0,
                cpu_sharing: None,
                open_loop: None,
            });
            ev.arms.push(a);
        }
        // An open-loop arm (its load is an offered rate, not a number of clients) is not
        // a point on these lines.
        let mut open = ev.arms[ev.arms.len() - 1].clone();
        open.id = "open-loop".into();
        open.capacity.as_mut().unwrap().open_loop = Some(shared::OpenLoop {
            arrival: shared::Arrival::Constant,
            seed: None,
            offered_per_s: 100.0,
            window_s: 1,
            scheduled: 2,
            achieved_per_s: 2.0,
            late_threshold_us: 1000.0,
            late: 0,
            lateness_us: None,
            give_up_after_us: 1e6,
            not_started: 0,
        });
        ev.arms.push(open);
        let rate = capacity_lines(&ev, &ArmFilter::default(), CapacityMetric::Rate);
        assert_eq!(rate.len(), 2);
        assert_eq!(rate[0].label, "full · tls1.3 ecdsa-p256 x25519");
        assert_eq!(rate[1].label, "resumed (ticket) · tls1.3 ecdsa-p256 x25519");
        let pts: Vec<(f64, f64)> = rate[0].points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(pts, [(1.0, 500.0), (2.0, 900.0)]);
        assert_eq!(rate[0].points[0].spread, Some([490.0, 510.0]));
        assert_eq!(rate[1].points.len(), 1, "the closed-loop resumed arm alone");
        let p99 = capacity_lines(&ev, &ArmFilter::default(), CapacityMetric::P99);
        assert_eq!(p99[0].points[0].y, 30.0);
        ev.arms[3].error = Some("failed".into());
        let rate = capacity_lines(&ev, &ArmFilter::default(), CapacityMetric::Rate);
        assert_eq!(rate[0].points.len(), 1);
        assert!(capacity_lines(&sample(), &ArmFilter::default(), CapacityMetric::Rate).is_empty());
    }

    #[test]
    fn early_data_counts_that_overflow_are_said_not_wrapped() {
        let mut ev = rtt_run();
        for a in ev.arms.iter_mut().filter(|a| a.early_data.is_some()) {
            a.early_data = Some(EarlyData {
                offered: u64::MAX,
                accepted: u64::MAX,
            });
        }
        let lines = ttfb_lines(&ev, &ArmFilter::default());
        let labels: Vec<&str> = lines.iter().map(|l| l.label.as_str()).collect();
        assert!(
            labels.contains(&"tls13-0rtt (0-RTT: early data counts too large to add up)"),
            "{labels:?}"
        );
    }

    #[test]
    fn points_are_ordered_by_x_and_equal_xs_keep_their_order() {
        let mut points: Vec<Point> = [(5.0, 1.0), (1.0, 2.0), (3.0, 3.0), (1.0, 4.0), (0.5, 5.0)]
            .map(|(x, y)| Point { x, y, spread: None })
            .to_vec();
        by_x(&mut points);
        let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(
            xy,
            [(0.5, 5.0), (1.0, 2.0), (1.0, 4.0), (3.0, 3.0), (5.0, 1.0)]
        );
    }
}
