//! The emulated link an arm ran over (`collector run --link / --rtt / --loss`), and
//! what the client's TCP said about each connection on it. Neither is in the viewer's
//! wasm build: the collector writes its findings into `settings.extra.link_findings`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The link as asked, the seed its loss was drawn with, and per direction what it did
/// with this arm's packets (by its server's port; warm-up connections included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Link {
    /// Every setting in `--link` syntax, e.g. `rtt=20ms,loss=3%,mtu=1500`: parsing it
    /// gives the same link.
    pub asked: String,
    pub rtt_ms: f64,
    /// Loss probability asked (0..1): per packet, or the long-run rate with `burst`.
    pub loss: f64,
    /// Mean run of consecutive losses, in packets (Gilbert–Elliott); null: independent.
    #[serde(default)]
    pub burst_packets: Option<f64>,
    /// Each packet's one-way delay is RTT/2 plus a uniform draw in ±jitter.
    #[serde(default)]
    pub jitter_ms: f64,
    /// Serialization rate in bit/s, and the queue's packet limit (null: no rate, no queue).
    #[serde(default)]
    pub rate_bit_s: Option<u64>,
    #[serde(default)]
    pub limit_packets: Option<u32>,
    pub mtu: u32,
    /// Seed of the client-to-server RNG; server to client uses seed + 1.
    pub seed: u64,
    pub client_to_server: LinkCounts,
    pub server_to_client: LinkCounts,
    /// Per timed connection (the order of `samples_us`), the packets of it the link
    /// dropped, by direction and kind: joined with the kernel's own counts (`tcp`,
    /// `server_tcp`) it tells a connection that lost nothing from one that paid for a
    /// drop. Null in older files, and when the connections could not be matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_connection: Option<ConnectionDrops>,
}

/// The kinds of TCP segment the relay tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PacketKind {
    /// SYN without ACK: the client opening.
    Syn,
    /// SYN with ACK: the server's answer.
    SynAck,
    /// FIN or RST set.
    FinRst,
    /// Carries payload.
    Data,
    /// An acknowledgement alone.
    Ack,
}

impl PacketKind {
    pub const ALL: [PacketKind; 5] = [
        PacketKind::Syn,
        PacketKind::SynAck,
        PacketKind::FinRst,
        PacketKind::Data,
        PacketKind::Ack,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    ClientToServer,
    ServerToClient,
}

/// The timed connections of an arm and every drop among them (connections with none
/// are not listed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConnectionDrops {
    /// Timed connections matched with the relay's records (= samples).
    pub connections: u64,
    pub dropped: Vec<ConnectionDrop>,
}

impl ConnectionDrops {
    /// Per connection, the packets dropped in all.
    pub fn totals(&self) -> Vec<u32> {
        let mut t = vec![0u32; self.connections as usize];
        for d in &self.dropped {
            if let Some(c) = t.get_mut(d.connection as usize) {
                *c += d.packets;
            }
        }
        t
    }

    /// Per connection, the packets of `kind` going `direction` dropped.
    pub fn of(&self, direction: Direction, kind: PacketKind) -> Vec<u32> {
        let mut t = vec![0u32; self.connections as usize];
        for d in self
            .dropped
            .iter()
            .filter(|d| d.direction == direction && d.kind == kind)
        {
            if let Some(c) = t.get_mut(d.connection as usize) {
                *c += d.packets;
            }
        }
        t
    }
}

/// Packets of one kind one direction of one connection lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConnectionDrop {
    /// Index into `samples_us`.
    pub connection: u32,
    pub direction: Direction,
    pub kind: PacketKind,
    pub packets: u32,
}

/// Of one kind of packet, how many the loss model drew for and took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KindCount {
    pub seen: u64,
    pub lost: u64,
}

/// [`KindCount`] per kind of TCP segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ByKind {
    pub syn: KindCount,
    pub syn_ack: KindCount,
    pub fin_rst: KindCount,
    pub data: KindCount,
    pub ack: KindCount,
}

impl ByKind {
    pub fn get(&self, kind: PacketKind) -> KindCount {
        match kind {
            PacketKind::Syn => self.syn,
            PacketKind::SynAck => self.syn_ack,
            PacketKind::FinRst => self.fin_rst,
            PacketKind::Data => self.data,
            PacketKind::Ack => self.ack,
        }
    }
}

/// What one direction did with the packets it saw (`seen`: those the loss model drew for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LinkCounts {
    pub seen: u64,
    /// Dropped by the loss model.
    pub lost: u64,
    /// Dropped at the full rate queue (tail drop).
    #[serde(default)]
    pub queue_full: u64,
    /// Dropped for being larger than the MTU.
    #[serde(default)]
    pub too_big: u64,
    /// TCP RST segments, spared from the loss model (not in `seen`): the lab closes each
    /// client socket with RST, which TCP never retransmits, and a lost one would leave the
    /// server waiting out its I/O timeout after the timed window.
    #[serde(default)]
    pub spared_rst: u64,
    /// The same draws per kind of TCP segment (null in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_kind: Option<ByKind>,
    /// Runs of equal outcomes (lost or not) among the packets drawn for, in their order:
    /// the Wald–Wolfowitz runs test's statistic (null in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<u64>,
}

impl LinkCounts {
    /// `lost / seen`: the achieved loss, to hold against the asked one (null: nothing seen).
    pub fn achieved_loss(&self) -> Option<f64> {
        (self.seen > 0).then(|| self.lost as f64 / self.seen as f64)
    }
}

/// What `getsockopt(TCP_INFO)` on one end's socket said after each timed connection, one
/// entry per successful sample in the order of `samples_us`: the client's (`Arm.tcp`,
/// after the window, before close) or the server's (`Arm.server_tcp`, after the client's
/// close). One end's view only: a segment the other end retransmitted shows in it as
/// time, not as a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TcpCounters {
    /// Connections read.
    pub connections: u64,
    /// Connections whose end (client or server) retransmitted at least one segment.
    pub with_retransmission: u64,
    /// Connections with at least one retransmission timeout on this end (null: the
    /// kernel has no `tcpi_total_rto`, before Linux 6.7).
    #[serde(default)]
    pub with_rto: Option<u64>,
    /// Per connection: `tcpi_total_retrans`.
    pub retransmits: Vec<u32>,
    /// Per connection: `tcpi_total_rto` (empty before Linux 6.7).
    #[serde(default)]
    pub rtos: Vec<u16>,
    /// Per connection: `tcpi_segs_out`, segments sent (retransmissions included).
    pub segments_out: Vec<u32>,
    /// Per connection: `tcpi_snd_cwnd`, the congestion window in segments.
    pub cwnd: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_drops_sum_per_connection_and_per_kind() {
        let d = ConnectionDrops {
            connections: 3,
            dropped: vec![
                ConnectionDrop {
                    connection: 0,
                    direction: Direction::ClientToServer,
                    kind: PacketKind::Syn,
                    packets: 2,
                },
                ConnectionDrop {
                    connection: 2,
                    direction: Direction::ServerToClient,
                    kind: PacketKind::Data,
                    packets: 1,
                },
                ConnectionDrop {
                    connection: 0,
                    direction: Direction::ServerToClient,
                    kind: PacketKind::SynAck,
                    packets: 1,
                },
            ],
        };
        assert_eq!(d.totals(), [3, 0, 1]);
        assert_eq!(d.of(Direction::ClientToServer, PacketKind::Syn), [2, 0, 0]);
        assert_eq!(d.of(Direction::ServerToClient, PacketKind::Data), [0, 0, 1]);
    }

    #[test]
    fn achieved_loss_is_lost_over_seen() {
        let c = LinkCounts {
            seen: 10_000,
            lost: 330,
            ..LinkCounts::default()
        };
        assert_eq!(c.achieved_loss(), Some(0.033));
        assert_eq!(LinkCounts::default().achieved_loss(), None);
    }
}
