//! What one end put on the wire in its first flight: the TLS bytes it wrote before it
//! read again (a client's ClientHello; a server's answer to the ClientHello: for TLS 1.3
//! ServerHello to Finished, certificates included), counted by wrapping the socket the
//! handshake runs on ([`Counted`]), and, where the socket's `TCP_INFO` is read (over an
//! emulated link), the data segments TCP sent for them and the window it started from.
//!
//! The segments are TCP's own count (`tcpi_data_segs_out`, less `tcpi_total_retrans`:
//! retransmissions are not the flight's size) from just before the flight's first write
//! to the first read after it that returns the peer's answer, which the peer sends only
//! once it has the whole flight, so every segment of the flight is out by then. A read
//! that returns only a ChangeCipherSpec record is not that answer: a TLS 1.3 client in
//! middlebox-compatibility mode (rustls) sends one as soon as the ServerHello arrives,
//! half a round trip before it has the rest of a flight larger than the initial window. Byte counting is a counter add per `write()`; the two `getsockopt` calls happen
//! only where `TCP_INFO` is read at all.

use std::io::{self, Read, Write};
use std::net::TcpStream;

use super::tcp_info::{self, TcpInfo};

/// One end's first flight, as counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flight {
    /// TLS bytes written (record headers included) before this end read again.
    pub bytes: u64,
    /// Data segments TCP sent for them (first transmissions); None where not read.
    pub segments: Option<u32>,
    /// The congestion window (segments) and the MSS (bytes) before the flight's first
    /// write: what the flight had to fit in; None where not read.
    pub cwnd: Option<u32>,
    pub mss: Option<u32>,
}

/// Where the count is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    /// Nothing written yet (a server reading the ClientHello).
    #[default]
    Before,
    /// Writing the first flight.
    Writing,
    /// The first read after the flight returned: the count is closed.
    Done,
}

/// The count of one connection's first flight (see [`Counted`]).
#[derive(Debug, Default)]
pub struct FlightLog {
    /// Read `TCP_INFO` before the flight and after it.
    tcp_info: bool,
    state: State,
    bytes: u64,
    before: Option<TcpInfo>,
    after: Option<TcpInfo>,
}

impl FlightLog {
    pub fn new(tcp_info: bool) -> Self {
        FlightLog {
            tcp_info,
            ..FlightLog::default()
        }
    }

    /// The flight, once this end has written it (None before).
    pub fn flight(&self) -> Option<Flight> {
        if self.state == State::Before {
            return None;
        }
        let (b, a) = (self.before, self.after);
        Some(Flight {
            bytes: self.bytes,
            segments: b.zip(a).and_then(|(b, a)| segments(&b, &a)),
            cwnd: b.map(|b| b.snd_cwnd),
            mss: b.map(|b| b.snd_mss),
        })
    }

    /// Before a write: the first one opens the count, with the socket's counters read
    /// before any byte of the flight is handed to TCP.
    fn writing(&mut self, tcp: &TcpStream) {
        if self.state == State::Before {
            self.state = State::Writing;
            if self.tcp_info {
                self.before = tcp_info::read(tcp);
            }
        }
    }

    fn wrote(&mut self, n: usize) {
        if self.state == State::Writing {
            self.bytes += n as u64;
        }
    }

    fn read_returned(&mut self, tcp: &TcpStream) {
        if self.state == State::Writing {
            self.state = State::Done;
            if self.tcp_info {
                self.after = tcp_info::read(tcp);
            }
        }
    }
}

/// Data segments sent first time between two readings of one socket; None when the
/// kernel does not count data segments, or the counters went backwards.
pub fn segments(before: &TcpInfo, after: &TcpInfo) -> Option<u32> {
    let sent = after.data_segs_out?.checked_sub(before.data_segs_out?)?;
    let resent = after.total_retrans.checked_sub(before.total_retrans)?;
    sent.checked_sub(resent)
}

/// A TLS record of type ChangeCipherSpec (20), legacy version 3.3, one byte long, 1.
const LONE_CCS: [u8; 6] = [0x14, 0x03, 0x03, 0x00, 0x01, 0x01];

/// A socket whose first flight is counted into a [`FlightLog`]; reads and writes go
/// straight through.
pub struct Counted<'a> {
    pub tcp: &'a mut TcpStream,
    pub log: &'a mut FlightLog,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.tcp.read(buf)?;
        // A lone ChangeCipherSpec is the rustls client's middlebox-compatibility record,
        // sent as soon as the ServerHello arrives: the peer does not have the flight yet.
        if n > 0 && buf[..n] != LONE_CCS {
            self.log.read_returned(self.tcp);
        }
        Ok(n)
    }
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.log.writing(self.tcp);
        let n = self.tcp.write(buf)?;
        self.log.wrote(n);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.log.writing(self.tcp);
        let n = self.tcp.write_vectored(bufs)?;
        self.log.wrote(n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    fn info(data_segs_out: Option<u32>, total_retrans: u32) -> TcpInfo {
        TcpInfo {
            total_retrans,
            total_rto: None,
            segs_out: 0,
            snd_cwnd: 10,
            rtt_us: 0,
            data_segs_out,
            snd_mss: 1448,
            local_port: None,
            peer_port: None,
        }
    }

    #[test]
    fn retransmitted_segments_are_not_the_flights_size() {
        assert_eq!(segments(&info(Some(1), 0), &info(Some(12), 0)), Some(11));
        // 13 data segments went out, 2 of them again: the flight is 11.
        assert_eq!(segments(&info(Some(0), 1), &info(Some(13), 3)), Some(11));
        assert_eq!(segments(&info(None, 0), &info(Some(3), 0)), None);
        assert_eq!(segments(&info(Some(5), 0), &info(Some(3), 0)), None);
    }

    /// Over loopback: the bytes counted are the bytes of the first write run only (not
    /// what was read before it, nor what was written after the next read), and TCP's
    /// count of the run's segments is read where asked for.
    #[test]
    fn only_the_first_flight_is_counted() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        server.set_nodelay(true).unwrap();
        let mut log = FlightLog::new(true);
        assert_eq!(log.flight(), None, "nothing written yet");
        client.write_all(b"hello").unwrap();
        let mut got = [0u8; 5];
        let mut counted = Counted {
            tcp: &mut server,
            log: &mut log,
        };
        counted.read_exact(&mut got).unwrap();
        counted.write_all(&[7u8; 3000]).unwrap();
        counted.write_all(&[7u8; 1000]).unwrap();
        let mut flight = vec![0u8; 4000];
        client.read_exact(&mut flight).unwrap();
        // The client's middlebox-compatibility CCS, alone: the flight is not closed.
        client.write_all(&LONE_CCS).unwrap();
        let mut ccs = [0u8; LONE_CCS.len()];
        counted.read_exact(&mut ccs).unwrap();
        counted.write_all(&[7u8; 100]).unwrap();
        client.read_exact(&mut flight[..100]).unwrap();
        client.write_all(b"fin").unwrap();
        counted.read_exact(&mut got[..3]).unwrap();
        counted.write_all(b"after the flight").unwrap();
        let f = log.flight().expect("written");
        assert_eq!(f.bytes, 4100, "the flight, and what followed a lone CCS");
        // Two writes, each at least one segment (loopback's MSS is far above 3000 bytes),
        // counted from before the first: a count read after it would miss that one.
        assert!(f.segments.is_some_and(|s| s >= 2), "{f:?}");
        // A fresh connection's window: Linux's initial 10 segments (RFC 6928), which the
        // server's kernel here has already grown by the ACK of its SYN-ACK (11 measured).
        assert!(f.cwnd.is_some_and(|c| (10..=11).contains(&c)), "{f:?}");
        assert!(f.mss.is_some_and(|m| m > 1000), "{f:?}");
        // Without TCP_INFO: bytes only.
        let mut plain = FlightLog::new(false);
        Counted {
            tcp: &mut client,
            log: &mut plain,
        }
        .write_all(b"0123456789")
        .unwrap();
        assert_eq!(
            plain.flight(),
            Some(Flight {
                bytes: 10,
                segments: None,
                cwnd: None,
                mss: None
            })
        );
    }
}
