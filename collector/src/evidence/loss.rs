//! What loss did to the tail, in words, from a `--rtt … --loss …` grid: per arm kind (the
//! id without its loss and RTT suffixes) and RTT, p95 and p50 at the lowest and the
//! highest loss, and at the loss where p95 first reaches a second (else the highest),
//! who the slow connections were: how many took a second or more, and of the connections
//! at or past p95 how many had a client retransmission timeout or retransmission
//! (`TCP_INFO`, joined with each connection's own time). Written here, where every
//! connection's counters are at hand (a summary keeps only the totals), into
//! `settings.extra.loss_findings`; the viewer shows each line under its loss chart.

use shared::Arm;

use crate::human::pct;

/// Linux waits 1 s (RFC 6298's initial retransmission timeout) before it sends a lost SYN
/// again: a connection that took this long or more waited for a timer, not for the link.
pub const SECOND_US: f64 = 1_000_000.0;

/// `1.05 s`, `12.3 ms`, `850 µs`.
fn time(us: f64) -> String {
    if us >= SECOND_US {
        format!("{:.2} s", us / SECOND_US)
    } else if us >= 1000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

/// `5.6`: an RTT in ms to a tenth.
fn rtt(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}

/// `12 of 200 (6%)`.
fn of(k: usize, n: usize) -> String {
    format!("{k} of {n} ({})", pct(k as f64 / n.max(1) as f64))
}

/// The arm's id without `-loss<N>pct-rtt<N>ms` (None: not an arm of a loss grid).
fn curve(id: &str) -> Option<&str> {
    let i = id.rfind("-loss")?;
    let rest = &id[i + 5..];
    let (loss, rtt) = rest.split_once("pct-rtt")?;
    let number = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.');
    (number(loss) && rtt.strip_suffix("ms").is_some_and(number)).then_some(&id[..i])
}

/// One line per arm kind and RTT whose grid has more than one loss rate.
pub fn findings(arms: &[Arm]) -> Vec<String> {
    // (curve, RTT, loss, arm) of every sound arm of a loss grid.
    let mut cells: Vec<(&str, f64, f64, &Arm)> = arms
        .iter()
        .filter(|a| a.error.is_none() && a.latency_us.is_some())
        .filter_map(|a| {
            Some((
                curve(&a.id)?,
                a.link.as_ref()?.rtt_ms,
                a.link.as_ref()?.loss,
                a,
            ))
        })
        .collect();
    // Curves in the order first met; RTTs and losses ascending.
    let mut order: Vec<&str> = Vec::new();
    for c in &cells {
        if !order.contains(&c.0) {
            order.push(c.0);
        }
    }
    cells.sort_by(|a, b| {
        let rank = |c: &str| order.iter().position(|o| *o == c);
        (rank(a.0), a.1, a.2)
            .partial_cmp(&(rank(b.0), b.1, b.2))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut out = Vec::new();
    for group in cells.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
        let (Some(low), Some(high)) = (group.first(), group.last()) else {
            continue;
        };
        if high.2 <= low.2 {
            continue;
        }
        let lat = |c: &(&str, f64, f64, &Arm)| c.3.latency_us.expect("filtered on latencies");
        let (lo, hi) = (lat(low), lat(high));
        let mut line = format!(
            "{} at {} ms RTT: p95 {} at {} loss, {} at {} (p50 {} → {})",
            low.0,
            rtt(low.1),
            time(lo.p95),
            pct(low.2),
            time(hi.p95),
            pct(high.2),
            time(lo.p50),
            time(hi.p50),
        );
        let slow = group.iter().find(|c| lat(c).p95 >= SECOND_US);
        let told = slow.unwrap_or(high);
        line.push_str(&match slow {
            Some(c) => format!("; p95 first reaches a second at {} loss", pct(c.2)),
            None => format!("; at {} loss", pct(told.2)),
        });
        line.push_str(&tail(told.3, lat(told).p95, slow.is_some()));
        out.push(line);
    }
    out
}

/// One line per lossy cell of a grid: its two populations and its effect against the
/// control (`settings.extra.loss_populations`; one line per cell keeps each short enough
/// for the viewer's findings).
pub fn populations(arms: &[Arm]) -> Vec<String> {
    arms.iter()
        .filter_map(|a| {
            let text = super::loss_effect::describe(a)?;
            let name = curve(&a.id).unwrap_or(&a.id);
            Some(format!(
                "{name}, {} ms RTT, {text}",
                rtt(a.link.as_ref()?.rtt_ms)
            ))
        })
        .collect()
}

/// `: 14 of 200 (7%) took 1 s or more; of the 10 at or past p95, 9 had a client
/// retransmission timeout and 10 a client retransmission`, from the arm's own connections
/// (empty when its TCP counters do not line up with its samples); `slow`: p95 is a second
/// or more, and the line says what TCP does then.
fn tail(a: &Arm, p95: f64, slow: bool) -> String {
    let Some(t) = &a.tcp else {
        return String::new();
    };
    let n = a.samples_us.len();
    if n == 0 || t.retransmits.len() != n {
        return String::new();
    }
    let second = a.samples_us.iter().filter(|s| **s >= SECOND_US).count();
    let past: Vec<usize> = (0..n).filter(|&i| a.samples_us[i] >= p95).collect();
    let rtx = past.iter().filter(|&&i| t.retransmits[i] > 0).count();
    let mut s = format!(
        ": {} connections took 1 s or more; of the {} at or past p95",
        of(second, n),
        past.len()
    );
    if t.rtos.len() == n {
        let rto = past.iter().filter(|&&i| t.rtos[i] > 0).count();
        s.push_str(&format!(", {rto} had a client retransmission timeout and"));
    }
    s.push_str(&format!(" {rtx} a client retransmission"));
    if slow {
        s.push_str(" (a lost SYN waits TCP's 1 s initial retransmission timeout)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::{Mode, Protocol};

    const X: &str = "tls13-full-ecdsa-p256-x25519";

    /// 20 connections: the last `slow` take 1.05 s and have an RTO (the last `rto_of_slow`
    /// of those) and a retransmission; one more fast connection retransmitted.
    fn cell(rtt: f64, loss: f64, fast: f64, slow: usize, rto_of_slow: usize) -> Arm {
        let n = 20;
        let mut samples = vec![fast; n - slow];
        samples.extend(vec![1_050_000.0; slow]);
        let id = format!("{X}-loss{}pct-rtt{rtt}ms", loss * 100.0);
        let mut a = shared::sample::arm(&id, Protocol::Tls13, Mode::Full, None, samples);
        let mut retransmits = vec![0; n];
        let mut rtos = vec![0; n];
        for r in &mut retransmits[n - slow..] {
            *r = 1;
        }
        for r in &mut rtos[n - rto_of_slow..] {
            *r = 1;
        }
        if slow > 0 {
            retransmits[0] = 1;
        }
        a.link = Some(shared::Link {
            asked: String::new(),
            rtt_ms: rtt,
            loss,
            burst_packets: None,
            jitter_ms: 0.0,
            rate_bit_s: None,
            limit_packets: None,
            mtu: 1500,
            seed: 1,
            client_to_server: shared::LinkCounts::default(),
            server_to_client: shared::LinkCounts::default(),
            per_connection: None,
        });
        a.tcp = Some(shared::TcpCounters {
            connections: n as u64,
            with_retransmission: retransmits.iter().filter(|r| **r > 0).count() as u64,
            with_rto: Some(rto_of_slow as u64),
            retransmits,
            rtos,
            segments_out: vec![5; n],
            cwnd: vec![10; n],
        });
        a
    }

    #[test]
    fn ids_of_a_loss_grid_give_their_curve() {
        assert_eq!(curve(&format!("{X}-loss3pct-rtt5.6ms")), Some(X));
        assert_eq!(curve(&format!("{X}-loss0.5pct-rtt195.7ms")), Some(X));
        assert_eq!(curve(&format!("{X}-rtt5.6ms")), None);
        assert_eq!(curve("tcp-connect"), None);
        assert_eq!(curve("a-lossxpct-rtt5ms"), None);
    }

    #[test]
    fn the_tail_is_told_from_each_connections_own_counters() {
        // Out of order: 10% first, then 0%, then 3% (below a second).
        let arms = [
            cell(5.6, 0.1, 10_000.0, 3, 2),
            cell(5.6, 0.0, 9_000.0, 0, 0),
            cell(5.6, 0.03, 9_500.0, 0, 0),
            cell(31.2, 0.0, 65_000.0, 0, 0),
            cell(31.2, 0.03, 66_000.0, 0, 0),
        ];
        let lines = findings(&arms);
        assert_eq!(
            lines,
            [
                // 20 samples, nearest rank: p95 the 19th (the 2nd of 3 slow), p50 the 10th.
                "tls13-full-ecdsa-p256-x25519 at 5.6 ms RTT: p95 9.0 ms at 0% loss, 1.05 s at 10% (p50 9.0 ms → 10.0 ms); p95 first reaches a second at 10% loss: 3 of 20 (15%) connections took 1 s or more; of the 3 at or past p95, 2 had a client retransmission timeout and 3 a client retransmission (a lost SYN waits TCP's 1 s initial retransmission timeout)",
                // Samples all equal: every connection is at p95; none retransmitted.
                "tls13-full-ecdsa-p256-x25519 at 31.2 ms RTT: p95 65.0 ms at 0% loss, 66.0 ms at 3% (p50 65.0 ms → 66.0 ms); at 3% loss: 0 of 20 (0%) connections took 1 s or more; of the 20 at or past p95, 0 had a client retransmission timeout and 0 a client retransmission",
            ]
        );
    }

    #[test]
    fn one_loss_rate_says_nothing_and_counters_that_do_not_line_up_are_not_joined() {
        assert!(findings(&[cell(5.6, 0.1, 10_000.0, 3, 2)]).is_empty());
        let mut arms = [
            cell(5.6, 0.0, 9_000.0, 0, 0),
            cell(5.6, 0.1, 10_000.0, 3, 2),
        ];
        arms[1].tcp.as_mut().unwrap().retransmits.pop();
        assert_eq!(
            findings(&arms),
            ["tls13-full-ecdsa-p256-x25519 at 5.6 ms RTT: p95 9.0 ms at 0% loss, 1.05 s at 10% (p50 9.0 ms → 10.0 ms); p95 first reaches a second at 10% loss"]
        );
    }
}
