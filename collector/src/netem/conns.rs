//! Per connection, what the link dropped: the relay opens a record at each client SYN
//! (a SYN sent again joins the record it repeats) and counts into it every drop of that
//! connection's packets, by direction and kind. An arm's records come back in the order
//! the connections opened, so they can be joined with its samples by client port
//! ([`join`]).

use std::collections::HashMap;

use super::model::Fate;
use super::packet::TO_SERVER;
use super::packet::{Kind, Segment};

/// One connection: its client port and the packets dropped, `[direction][kind]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnDrops {
    pub client_port: u16,
    pub dropped: [[u32; 5]; 2],
    /// Only SYNs seen so far: a SYN now is the same connection trying again.
    opening: bool,
}

impl ConnDrops {
    pub fn total(&self) -> u32 {
        self.dropped.iter().flatten().sum()
    }
}

/// Every connection seen, per server port, in the order they opened.
#[derive(Default)]
pub struct Connections {
    by_server: HashMap<u16, Vec<ConnDrops>>,
    /// (server port, client port) → the index of its latest record.
    latest: HashMap<(u16, u16), usize>,
}

impl Connections {
    /// A segment going `direction` met `fate`.
    pub fn note(&mut self, s: Segment, direction: usize, fate: Fate) {
        let key = (s.server_port, s.client_port);
        let list = self.by_server.entry(s.server_port).or_default();
        let open_new = direction == TO_SERVER
            && s.kind == Kind::Syn
            && self.latest.get(&key).is_none_or(|&i| !list[i].opening);
        let index = match (open_new, self.latest.get(&key)) {
            (false, Some(&i)) => i,
            // A segment of a connection whose SYN was not seen (opened before the
            // records started) gets a record of its own too.
            _ => {
                list.push(ConnDrops {
                    client_port: s.client_port,
                    opening: true,
                    ..ConnDrops::default()
                });
                self.latest.insert(key, list.len() - 1);
                list.len() - 1
            }
        };
        let c = &mut list[index];
        if s.kind != Kind::Syn {
            c.opening = false;
        }
        // Every cause counts: a packet that did not arrive, whatever took it.
        if let Fate::Dropped(_) = fate {
            c.dropped[direction][s.kind.index()] += 1;
        }
    }

    /// The records of the server at `port`, in the order the connections opened.
    pub fn of(&self, port: u16) -> Vec<ConnDrops> {
        self.by_server.get(&port).cloned().unwrap_or_default()
    }

    pub fn clear(&mut self) {
        self.by_server.clear();
        self.latest.clear();
    }
}

/// The record of each of an arm's connections, given their client ports in the order
/// they were made: each is the next record with that port, so the records of connections
/// that gave no sample (warm-up, traced, failed) are passed over. None when a port has
/// no record left: the samples and the records do not match.
pub fn join(records: &[ConnDrops], client_ports: &[u16]) -> Option<Vec<ConnDrops>> {
    let mut at = 0;
    let mut out = Vec::with_capacity(client_ports.len());
    for &port in client_ports {
        let found = records[at..].iter().position(|r| r.client_port == port)?;
        out.push(records[at + found]);
        at += found + 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::netem::model::Cause;
    use crate::netem::packet::TO_CLIENT;

    fn seg(client_port: u16, kind: Kind) -> Segment {
        Segment {
            server_port: 443,
            client_port,
            kind,
        }
    }
    const LEFT: Fate = Fate::Leave(Duration::ZERO);
    const LOST: Fate = Fate::Dropped(Cause::Lost);

    #[test]
    fn a_repeated_syn_is_the_same_connection_and_a_new_syn_after_data_is_another() {
        let mut c = Connections::default();
        c.note(seg(5000, Kind::Syn), TO_SERVER, LOST);
        c.note(seg(5000, Kind::Syn), TO_SERVER, LEFT);
        c.note(seg(5000, Kind::SynAck), TO_CLIENT, LOST);
        c.note(seg(5000, Kind::SynAck), TO_CLIENT, LEFT);
        c.note(seg(5000, Kind::Ack), TO_SERVER, LEFT);
        c.note(
            seg(5000, Kind::Data),
            TO_CLIENT,
            Fate::Dropped(Cause::QueueFull),
        );
        // The same client port again, later: a connection of its own.
        c.note(seg(5000, Kind::Syn), TO_SERVER, LEFT);
        c.note(seg(5000, Kind::FinRst), TO_SERVER, LOST);
        // Another server's connection is not this server's.
        c.note(
            Segment {
                server_port: 8443,
                ..seg(5000, Kind::Syn)
            },
            TO_SERVER,
            LOST,
        );
        let r = c.of(443);
        assert_eq!(r.len(), 2);
        let mut first = [[0u32; 5]; 2];
        first[TO_SERVER][Kind::Syn.index()] = 1;
        first[TO_CLIENT][Kind::SynAck.index()] = 1;
        first[TO_CLIENT][Kind::Data.index()] = 1;
        assert_eq!(r[0].dropped, first);
        assert_eq!(r[0].total(), 3);
        let mut second = [[0u32; 5]; 2];
        second[TO_SERVER][Kind::FinRst.index()] = 1;
        assert_eq!(r[1].dropped, second);
        assert_eq!(c.of(8443).len(), 1);
        c.clear();
        assert!(c.of(443).is_empty());
    }

    #[test]
    fn samples_join_the_next_record_of_their_port_skipping_the_others() {
        let rec = |port, lost| ConnDrops {
            client_port: port,
            dropped: [[lost, 0, 0, 0, 0], [0; 5]],
            opening: false,
        };
        // Warm-up 1, sample 2, failed 3, sample 4, sample 2 again (a reused port).
        let records = [rec(1, 0), rec(2, 1), rec(3, 0), rec(4, 0), rec(2, 2)];
        let joined = join(&records, &[2, 4, 2]).unwrap();
        assert_eq!(
            joined
                .iter()
                .map(|r| (r.client_port, r.total()))
                .collect::<Vec<_>>(),
            [(2, 1), (4, 0), (2, 2)]
        );
        // A port with no record left: no join.
        assert_eq!(join(&records, &[4, 1]), None);
        assert_eq!(join(&records, &[]), Some(vec![]));
    }
}
