//! What an arm over an emulated link records beside its samples: the link asked and
//! what each direction did with its packets (by kind), and per timed connection what
//! the link dropped of it, joined with the samples by client port, split into the
//! connections that lost nothing and the others.

use shared::link::{ByKind, ConnectionDrop, ConnectionDrops, Direction, KindCount, PacketKind};
use shared::Arm;

use crate::arms::ArmRun;
use crate::netem::conns::{self, ConnDrops};
use crate::netem::packet::Kind;
use crate::netem::{Counters, DelayPath, LinkSpec, METHOD};

/// One cell of a grid: an arm on one link, its server's port on the path.
pub struct Cell {
    pub link: LinkSpec,
    pub seed: u64,
    /// `-loss3pct-rtt20ms`: appended to the arm's id.
    pub suffix: String,
    pub port: Option<u16>,
}

/// `arm` (built from `run`) as measured over `cell` on `path`: its id on the link, the
/// link's record, its RTT and, where its connections match the relay's, its drops and
/// populations.
pub fn decorate(mut arm: Arm, run: &ArmRun, cell: &Cell, path: &DelayPath) -> Arm {
    let counts = cell
        .port
        .map_or([Counters::default(); 2], |p| path.counts(p));
    let mut link = record(&cell.link, cell.seed, counts);
    if let Some(port) = cell.port {
        link.per_connection = per_connection(&path.connections(port), run);
        if link.per_connection.is_none() && !run.samples_us.is_empty() {
            eprintln!(
                "collector: {}{}: its connections could not be matched with the link's records; no per-connection drops recorded",
                arm.id, cell.suffix
            );
        }
    }
    if let Some(d) = &link.per_connection {
        arm.populations = shared::loss::populations(&arm.samples_us, &d.totals());
    }
    arm.link = Some(link);
    arm.id = format!("{}{}", arm.id, cell.suffix);
    arm.rtt_ms = Some(cell.link.rtt.as_secs_f64() * 1000.0);
    arm.rtt_method = Some(METHOD.to_string());
    arm.rtt_multiple = rtt_multiple(&arm);
    arm
}

/// The arm's p50 in round trips of its own measured path (its median connect time), on
/// a link with a round trip asked; None at 0 ms, where connect() times the relay and the
/// kernel, not a path.
pub fn rtt_multiple(arm: &Arm) -> Option<f64> {
    let (asked, measured, p50) = (arm.rtt_ms?, arm.rtt_measured_ms?, arm.latency_us?.p50);
    let m = p50 / (measured * 1000.0);
    (asked > 0.0 && m.is_finite() && m > 0.0).then_some(m)
}

/// The drops of each timed connection of `run`, in the order of its samples: the
/// client's ports (read with its TCP counters) joined with `records`. None when a sample
/// has no client port or no record.
pub fn per_connection(records: &[ConnDrops], run: &ArmRun) -> Option<ConnectionDrops> {
    if run.tcp.len() != run.samples_us.len() {
        return None;
    }
    let ports: Option<Vec<u16>> = run.tcp.iter().map(|t| t.local_port).collect();
    let joined = conns::join(records, &ports?)?;
    Some(drops(&joined))
}

/// The relay's records, one per timed connection, as evidence.
pub fn drops(joined: &[ConnDrops]) -> ConnectionDrops {
    let mut dropped = Vec::new();
    for (i, c) in joined.iter().enumerate() {
        for (d, direction) in [Direction::ClientToServer, Direction::ServerToClient]
            .into_iter()
            .enumerate()
        {
            for kind in Kind::ALL {
                let packets = c.dropped[d][kind.index()];
                if packets > 0 {
                    dropped.push(ConnectionDrop {
                        connection: i as u32,
                        direction,
                        kind: packet_kind(kind),
                        packets,
                    });
                }
            }
        }
    }
    ConnectionDrops {
        connections: joined.len() as u64,
        dropped,
    }
}

fn packet_kind(k: Kind) -> PacketKind {
    match k {
        Kind::Syn => PacketKind::Syn,
        Kind::SynAck => PacketKind::SynAck,
        Kind::FinRst => PacketKind::FinRst,
        Kind::Data => PacketKind::Data,
        Kind::Ack => PacketKind::Ack,
    }
}

/// The evidence's account of `link`: what was asked and what each direction did.
pub fn record(link: &LinkSpec, seed: u64, [to_server, to_client]: [Counters; 2]) -> shared::Link {
    let counts = |c: Counters| {
        let k = |kind: Kind| KindCount {
            seen: c.kinds[kind.index()].seen,
            lost: c.kinds[kind.index()].lost,
        };
        shared::LinkCounts {
            seen: c.seen,
            lost: c.lost,
            queue_full: c.queue_full,
            too_big: c.too_big,
            spared_rst: c.spared,
            by_kind: Some(ByKind {
                syn: k(Kind::Syn),
                syn_ack: k(Kind::SynAck),
                fin_rst: k(Kind::FinRst),
                data: k(Kind::Data),
                ack: k(Kind::Ack),
            }),
            runs: Some(c.runs),
        }
    };
    shared::Link {
        asked: link.to_string(),
        rtt_ms: link.rtt.as_secs_f64() * 1000.0,
        loss: link.loss,
        burst_packets: link.burst,
        jitter_ms: link.jitter.as_secs_f64() * 1000.0,
        rate_bit_s: link.rate_bps,
        limit_packets: link.rate_bps.map(|_| link.limit),
        mtu: link.mtu,
        seed,
        client_to_server: counts(to_server),
        server_to_client: counts(to_client),
        per_connection: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rtt_multiple_is_the_p50_over_the_arms_own_round_trip() {
        let mut a = shared::sample::arm(
            "tls13-full-x-rtt50ms",
            shared::Protocol::Tls13,
            shared::Mode::Full,
            None,
            vec![200_000.0],
        );
        assert_eq!(rtt_multiple(&a), None, "no link");
        a.rtt_ms = Some(50.0);
        a.rtt_measured_ms = Some(50.0);
        assert_eq!(rtt_multiple(&a), Some(4.0));
        a.rtt_ms = Some(0.0);
        assert_eq!(rtt_multiple(&a), None, "no round trip asked");
    }

    #[test]
    fn drops_are_listed_per_connection_direction_and_kind_and_clean_ones_not_at_all() {
        let mut a = ConnDrops::default();
        a.dropped[0][Kind::Syn.index()] = 2;
        a.dropped[1][Kind::Data.index()] = 1;
        let clean = ConnDrops::default();
        let d = drops(&[clean, a, clean]);
        assert_eq!(d.connections, 3);
        assert_eq!(
            d.dropped,
            [
                ConnectionDrop {
                    connection: 1,
                    direction: Direction::ClientToServer,
                    kind: PacketKind::Syn,
                    packets: 2
                },
                ConnectionDrop {
                    connection: 1,
                    direction: Direction::ServerToClient,
                    kind: PacketKind::Data,
                    packets: 1
                },
            ]
        );
        assert_eq!(d.totals(), [0, 3, 0]);
    }

    #[test]
    fn the_link_record_carries_each_kinds_draws_and_the_runs() {
        let mut c = Counters::default();
        c.seen = 10;
        c.lost = 2;
        c.runs = 3;
        c.kinds[Kind::Ack.index()] = crate::netem::model::KindCount { seen: 4, lost: 1 };
        let link = LinkSpec::parse("rtt=5ms,loss=3%").unwrap();
        let r = record(&link, 9, [c, Counters::default()]);
        let k = r.client_to_server.by_kind.unwrap();
        assert_eq!(k.ack, KindCount { seen: 4, lost: 1 });
        assert_eq!(k.syn, KindCount::default());
        assert_eq!(r.client_to_server.runs, Some(3));
        assert_eq!((r.seed, r.loss), (9, 0.03));
    }
}
