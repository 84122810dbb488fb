//! What the relay reads from an IP packet's headers: the connection it belongs to (the
//! server's and the client's TCP port) and its kind, so drops are counted per connection
//! and per kind of packet.

/// The two directions, as indexes into the relay's per-direction counts.
pub const TO_SERVER: usize = 0;
pub const TO_CLIENT: usize = 1;

/// The kinds of TCP segment the relay tells apart, in the order of [`Kind::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// SYN without ACK: the client opening.
    Syn,
    /// SYN with ACK: the server's answer.
    SynAck,
    /// FIN or RST set (with or without data).
    FinRst,
    /// Carries payload (neither SYN, FIN nor RST).
    Data,
    /// No payload, only an acknowledgement.
    Ack,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::Syn, Kind::SynAck, Kind::FinRst, Kind::Data, Kind::Ack];

    /// Index into per-kind arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One TCP-over-IPv4 segment as the relay sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub server_port: u16,
    pub client_port: u16,
    pub kind: Kind,
}

const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const FIN: u8 = 0x01;
const ACK: u8 = 0x10;

/// The segment in `packet` going `direction`; None for anything but TCP over IPv4 (or a
/// packet too short to hold the TCP header it announces).
pub fn segment(packet: &[u8], direction: usize) -> Option<Segment> {
    if packet.len() < 20 || packet[0] >> 4 != 4 || packet[9] != libc::IPPROTO_TCP as u8 {
        return None;
    }
    let ip_header = usize::from(packet[0] & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([packet[2], packet[3]])).min(packet.len());
    let tcp = packet.get(ip_header..total)?;
    if tcp.len() < 20 {
        return None;
    }
    let source = u16::from_be_bytes([tcp[0], tcp[1]]);
    let destination = u16::from_be_bytes([tcp[2], tcp[3]]);
    let tcp_header = usize::from(tcp[12] >> 4) * 4;
    let payload = tcp.len().saturating_sub(tcp_header);
    let flags = tcp[13];
    let kind = if flags & SYN != 0 {
        if flags & ACK != 0 {
            Kind::SynAck
        } else {
            Kind::Syn
        }
    } else if flags & (FIN | RST) != 0 {
        Kind::FinRst
    } else if payload > 0 {
        Kind::Data
    } else {
        Kind::Ack
    };
    // Towards the server its port is the destination; back, the source.
    let (server_port, client_port) = if direction == TO_SERVER {
        (destination, source)
    } else {
        (source, destination)
    };
    Some(Segment {
        server_port,
        client_port,
        kind,
    })
}

/// Whether an IPv4 packet is a TCP segment with RST set. The lab closes every client
/// socket with RST (SO_LINGER {on, 0}), which TCP never retransmits: were it lost, the
/// server would wait out its I/O timeout for a close that happened, after the timed
/// window (a wait of the lab, not of the link). The relay spares these from loss.
pub fn is_rst(packet: &[u8]) -> bool {
    if packet.len() < 20 || packet[0] >> 4 != 4 || packet[9] != libc::IPPROTO_TCP as u8 {
        return false;
    }
    let header = usize::from(packet[0] & 0x0f) * 4;
    packet
        .get(header + 13)
        .is_some_and(|flags| flags & RST != 0)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// An IPv4 packet of a TCP segment from port `from` to port `to` with `flags` and
    /// `payload` bytes of data (a 20-byte IP header, `options` bytes of IP options, a
    /// 20-byte TCP header).
    pub fn tcp_packet(from: u16, to: u16, flags: u8, payload: usize, options: usize) -> Vec<u8> {
        let ip = 20 + options;
        let mut p = vec![0u8; ip + 20 + payload];
        p[0] = 0x40 | (ip / 4) as u8;
        let len = p.len() as u16;
        p[2..4].copy_from_slice(&len.to_be_bytes());
        p[9] = 6;
        p[ip..ip + 2].copy_from_slice(&from.to_be_bytes());
        p[ip + 2..ip + 4].copy_from_slice(&to.to_be_bytes());
        p[ip + 12] = 5 << 4;
        p[ip + 13] = flags;
        p
    }

    #[test]
    fn ports_are_read_by_direction_even_behind_ip_options() {
        let p = tcp_packet(40000, 443, SYN, 0, 0);
        let s = segment(&p, TO_SERVER).unwrap();
        assert_eq!(
            (s.server_port, s.client_port, s.kind),
            (443, 40000, Kind::Syn)
        );
        let back = tcp_packet(443, 40000, SYN | ACK, 0, 4);
        let s = segment(&back, TO_CLIENT).unwrap();
        assert_eq!(
            (s.server_port, s.client_port, s.kind),
            (443, 40000, Kind::SynAck)
        );
    }

    #[test]
    fn each_kind_is_told_by_its_flags_and_payload() {
        let kind = |flags, payload| {
            segment(&tcp_packet(1, 2, flags, payload, 0), TO_SERVER)
                .unwrap()
                .kind
        };
        assert_eq!(kind(SYN, 0), Kind::Syn);
        assert_eq!(kind(SYN | ACK, 0), Kind::SynAck);
        assert_eq!(kind(ACK, 0), Kind::Ack);
        assert_eq!(kind(ACK, 517), Kind::Data);
        assert_eq!(kind(FIN | ACK, 0), Kind::FinRst);
        assert_eq!(kind(FIN | ACK, 31), Kind::FinRst);
        assert_eq!(kind(RST | ACK, 0), Kind::FinRst);
        assert_eq!(kind(RST, 0), Kind::FinRst);
    }

    #[test]
    fn padding_past_the_ip_length_is_not_payload_and_non_tcp_is_none() {
        // A pure ACK padded to 60 bytes on the wire: the IP length says 40.
        let mut p = tcp_packet(1, 2, ACK, 0, 0);
        p.resize(60, 0);
        assert_eq!(segment(&p, TO_SERVER).unwrap().kind, Kind::Ack);
        let mut udp = tcp_packet(1, 2, ACK, 10, 0);
        udp[9] = 17;
        assert_eq!(segment(&udp, TO_SERVER), None);
        assert!(!is_rst(&udp));
        assert_eq!(segment(&[0x60; 60], TO_SERVER), None);
        assert_eq!(segment(&[0x45; 10], TO_SERVER), None);
        assert!(is_rst(&tcp_packet(1, 2, RST | ACK, 0, 0)));
        assert!(!is_rst(&tcp_packet(1, 2, FIN | ACK, 0, 0)));
    }
}
