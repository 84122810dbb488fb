//! What an emulated link did, in words, from the run's own counts: per arm on a lossy
//! link (or one where TCP retransmitted), the achieved loss beside the asked, how many
//! connections waited for a client retransmission, against the tail, and how many the
//! server retransmitted on. Written into
//! `settings.extra.link_findings` (the viewer shows them) and printed in the summary.

use shared::link::PacketKind;
use shared::link_check::{self, Scope, SynPhase, RUNS_Z99};
use shared::{Arm, LinkCounts};

use crate::human::us;
use crate::stats::median_in_place;

/// One line per arm whose link asked for loss, or whose client retransmitted.
pub fn findings(arms: &[Arm]) -> Vec<String> {
    let mut out = Vec::new();
    for a in arms {
        let (Some(link), Some(lat)) = (&a.link, &a.latency_us) else {
            continue;
        };
        let resent =
            |t: &Option<shared::TcpCounters>| t.as_ref().is_some_and(|t| t.with_retransmission > 0);
        let retransmitted = resent(&a.tcp) || resent(&a.server_tcp);
        if link.loss == 0.0 && !retransmitted {
            continue;
        }
        let mut parts = vec![format!("{} ({})", a.id, link.asked)];
        if link.loss > 0.0 {
            parts.push(format!(
                "achieved loss {} client to server, {} server to client",
                achieved(&link.client_to_server, link.loss, link.burst_packets),
                achieved(&link.server_to_client, link.loss, link.burst_packets),
            ));
        }
        if let Some(s) = link
            .per_connection
            .as_ref()
            .and_then(|d| link_check::syn_phase(d, link.loss, link.burst_packets))
        {
            parts.push(syn_phase(&s, link.loss));
        }
        if let Some(t) = &a.tcp {
            let mut line = format!(
                "p50 {}, p95 {}: {} of {} connections ({:.0}%) included a client retransmission",
                us(lat.p50),
                us(lat.p95),
                t.with_retransmission,
                t.connections,
                100.0 * t.with_retransmission as f64 / t.connections.max(1) as f64
            );
            if let Some(rto) = t.with_rto {
                line.push_str(&format!(", {rto} a retransmission timeout"));
            }
            // The samples and the counters are the same connections, in the same order.
            if t.retransmits.len() == a.samples_us.len() && t.with_retransmission > 0 {
                let (mut with, mut without): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
                for (s, r) in a.samples_us.iter().zip(&t.retransmits) {
                    if *r > 0 { &mut with } else { &mut without }.push(*s);
                }
                line.push_str(&format!(
                    " (their median {}",
                    us(median_in_place(&mut with))
                ));
                if !without.is_empty() {
                    line.push_str(&format!(
                        ", the others' {}",
                        us(median_in_place(&mut without))
                    ));
                }
                line.push(')');
            }
            parts.push(line);
        }
        if let Some(t) = &a.server_tcp {
            let mut line = format!(
                "{} of {} connections included a server retransmission (a lost SYN-ACK or server flight)",
                t.with_retransmission, t.connections
            );
            if let Some(rto) = t.with_rto {
                line.push_str(&format!(", {rto} a server retransmission timeout"));
            }
            parts.push(line);
        }
        out.push(parts.join(": "));
    }
    out
}

/// `3.1% (31 of 1,000; within the binomial 99% interval of 3%, 20–42)`, then what of
/// the process fell outside: a kind of segment whose count did, losses that clumped.
fn achieved(c: &LinkCounts, asked: f64, burst: Option<f64>) -> String {
    let Some(rate) = c.achieved_loss() else {
        return "— (no packet seen)".into();
    };
    // A burst model's count is not binomial: no bound is claimed for it.
    let Some(check) = link_check::check(c, asked, burst) else {
        return format!("{}% ({} of {})", pct(rate), c.lost, c.seen);
    };
    let all = check.counts[0];
    let verdict = if all.within() { "within" } else { "OUTSIDE" };
    let mut text = format!(
        "{}% ({} of {}; {verdict} the binomial 99% interval of {}%, {}–{}",
        pct(rate),
        c.lost,
        c.seen,
        pct(asked),
        all.interval.0,
        all.interval.1
    );
    let kinds: Vec<String> = check
        .outside()
        .filter_map(|k| match k.scope {
            Scope::Kind(kind) => Some(format!(
                "{} {} of {} OUTSIDE {}–{}",
                kind_name(kind),
                k.lost,
                k.seen,
                k.interval.0,
                k.interval.1
            )),
            Scope::All => None,
        })
        .collect();
    if !kinds.is_empty() {
        text.push_str(&format!("; {}", kinds.join(", ")));
    }
    match (check.independent(), check.runs_z) {
        (Some(false), Some(z)) => text.push_str(&format!(
            "; NOT independent: runs test z = {z:.1} (|z| > {RUNS_Z99})"
        )),
        (Some(true), Some(z)) => text.push_str(&format!("; runs test z = {z:.1}")),
        _ => {}
    }
    let failed = check.outside().count() + usize::from(check.independent() == Some(false));
    if failed > 0 {
        // Several 99% checks: one outside now and then is chance, not a broken model.
        text.push_str(&format!(
            "; {failed} of {} checks at 99% outside",
            check.checks()
        ));
    }
    text.push(')');
    text
}

/// `SYN phase of the 200 timed connections: a SYN lost on 8, a SYN-ACK on 5, both on
/// 0; 187 lost neither (within the binomial 99% interval of (1 − 3%)², 180–195)`.
fn syn_phase(s: &SynPhase, p: f64) -> String {
    format!(
        "SYN phase of the {} timed connections: a SYN lost on {}, a SYN-ACK on {}, both on {}; {} lost neither ({} the binomial 99% interval of (1 − {}%)², {}–{})",
        s.connections,
        s.syn_only,
        s.syn_ack_only,
        s.both,
        s.neither(),
        if s.within() { "within" } else { "OUTSIDE" },
        pct(p),
        s.neither_interval.0,
        s.neither_interval.1
    )
}

fn kind_name(k: PacketKind) -> &'static str {
    match k {
        PacketKind::Syn => "SYN",
        PacketKind::SynAck => "SYN-ACK",
        PacketKind::FinRst => "FIN/RST",
        PacketKind::Data => "data",
        PacketKind::Ack => "pure ACK",
    }
}

fn pct(v: f64) -> String {
    let s = format!("{:.2}", v * 100.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy_arm() -> Arm {
        let mut a = shared::sample::arm(
            "tls13-full-ecdsa-p256-x25519-loss30pct-rtt20ms",
            shared::Protocol::Tls13,
            shared::Mode::Full,
            None,
            vec![60_000.0, 61_000.0, 1_060_000.0, 62_000.0],
        );
        a.link = Some(shared::Link {
            asked: "rtt=20ms,loss=30%,mtu=1500".into(),
            rtt_ms: 20.0,
            loss: 0.3,
            burst_packets: None,
            jitter_ms: 0.0,
            rate_bit_s: None,
            limit_packets: None,
            mtu: 1500,
            seed: 1,
            client_to_server: LinkCounts {
                seen: 100,
                lost: 31,
                ..LinkCounts::default()
            },
            // Binomial(100, 0.3): P(X ≤ 18) = 0.0045, P(X ≤ 19) = 0.0089, P(X ≤ 41) = 0.9928,
            // P(X ≤ 42) = 0.9960: the 99% interval is 19–42, and 60 is far outside.
            server_to_client: LinkCounts {
                seen: 100,
                lost: 60,
                ..LinkCounts::default()
            },
            per_connection: None,
        });
        a.tcp = Some(shared::TcpCounters {
            connections: 4,
            with_retransmission: 1,
            with_rto: Some(1),
            retransmits: vec![0, 0, 1, 0],
            rtos: vec![0, 0, 1, 0],
            segments_out: vec![5, 5, 6, 5],
            cwnd: vec![10, 10, 10, 10],
        });
        a
    }

    #[test]
    fn a_lossy_arm_says_its_achieved_loss_and_who_waited_for_a_retransmission() {
        let lines = findings(&[lossy_arm()]);
        assert_eq!(lines.len(), 1);
        let l = &lines[0];
        assert!(
            l.contains(
                "31% (31 of 100; within the binomial 99% interval of 30%, 19–42) client to server"
            ),
            "{l}"
        );
        assert!(
            l.contains("60% (60 of 100; OUTSIDE the binomial 99% interval of 30%, 19–42; 1 of 1 checks at 99% outside) server to client"),
            "{l}"
        );
        assert!(l.contains("1 of 4 connections (25%) included a client retransmission, 1 a retransmission timeout"), "{l}");
        // Median of the one with (1.06 s) and of the three without (61 ms).
        assert!(
            l.contains("(their median 1060.00 ms, the others' 61.00 ms)"),
            "{l}"
        );
    }

    #[test]
    fn a_kind_outside_its_interval_and_clumped_losses_are_named() {
        let mut a = lossy_arm();
        let link = a.link.as_mut().unwrap();
        // 30 of 100 overall, as asked; but SYN-ACKs 9 of 10 (Binomial(10, 0.3):
        // P(X ≤ 6) = 0.9894, P(X ≤ 7) = 0.9984, so the interval is 0–7) and one clump:
        // 30 lost, 70 kept, mean runs = 2·30·70/100 + 1 = 43, var = 42·41/99 = 17.39;
        // 2 runs: z = (2 − 43)/4.17 = −9.8.
        link.server_to_client = LinkCounts {
            seen: 100,
            lost: 30,
            by_kind: Some(shared::link::ByKind {
                syn_ack: shared::link::KindCount { seen: 10, lost: 9 },
                data: shared::link::KindCount { seen: 90, lost: 21 },
                ..Default::default()
            }),
            runs: Some(2),
            ..LinkCounts::default()
        };
        // Client to server: 31 lost, 69 kept, mean runs = 2·31·69/100 + 1 = 43.78,
        // var = 42.78·41.78/99 = 18.05; 44 runs: z = 0.22/4.25 = 0.05, independent.
        link.client_to_server.runs = Some(44);
        let l = &findings(&[a])[0];
        assert!(
            l.contains("30% (30 of 100; within the binomial 99% interval of 30%, 19–42; SYN-ACK 9 of 10 OUTSIDE 0–7; NOT independent: runs test z = -9.8 (|z| > 2.576); 2 of 4 checks at 99% outside) server to client"),
            "{l}"
        );
        assert!(
            l.contains("31% (31 of 100; within the binomial 99% interval of 30%, 19–42; runs test z = 0.1) client to server"),
            "{l}"
        );
    }

    #[test]
    fn the_syn_phase_is_told_from_the_per_connection_drops() {
        use shared::link::{ConnectionDrop, ConnectionDrops, Direction};
        let mut a = lossy_arm();
        // Four connections at 30%: the first lost its SYN, the third its SYN-ACK.
        let drop = |connection, direction, kind| ConnectionDrop {
            connection,
            direction,
            kind,
            packets: 1,
        };
        a.link.as_mut().unwrap().per_connection = Some(ConnectionDrops {
            connections: 4,
            dropped: vec![
                drop(0, Direction::ClientToServer, PacketKind::Syn),
                drop(2, Direction::ServerToClient, PacketKind::SynAck),
            ],
        });
        let l = &findings(&[a])[0];
        // Binomial(4, 0.49): P(X = 0) = 0.51⁴ = 0.068 ≥ 0.005; P(X ≤ 3) = 1 − 0.49⁴ =
        // 0.942 < 0.995: the interval is 0–4, and 2 lost neither.
        assert!(
            l.contains("SYN phase of the 4 timed connections: a SYN lost on 1, a SYN-ACK on 1, both on 0; 2 lost neither (within the binomial 99% interval of (1 − 30%)², 0–4)"),
            "{l}"
        );
    }

    #[test]
    fn a_lossless_arm_without_retransmissions_says_nothing() {
        let mut a = lossy_arm();
        a.link.as_mut().unwrap().loss = 0.0;
        a.tcp.as_mut().unwrap().with_retransmission = 0;
        assert!(findings(&[a.clone()]).is_empty());
        // A retransmission by the server alone is worth a line.
        let mut server = a.tcp.clone().unwrap();
        server.with_retransmission = 1;
        server.with_rto = Some(0);
        a.server_tcp = Some(server);
        let lines = findings(&[a]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].contains("1 of 4 connections included a server retransmission (a lost SYN-ACK or server flight), 0 a server retransmission timeout"),
            "{}",
            lines[0]
        );
    }
}
