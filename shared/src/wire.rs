//! What an arm's handshakes put on the wire: the certificate chain the server sent, the
//! server's first flight and the client's ClientHello, in bytes and (over an emulated
//! link) in TCP segments, with the window the server's flight started from. These are
//! what decide whether a handshake fits TCP's initial window or waits a round trip more.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An arm's wire sizes, counted on the sockets of its timed connections (rustls ends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Wire {
    /// Certificates the server sent (the leaf and the intermediates; never the root), as
    /// the client received them in its full handshakes; null where none was full.
    #[serde(default)]
    pub chain_certificates: Option<u64>,
    /// Their DER bytes, summed (the largest seen; every full handshake of an arm sends
    /// the same chain).
    #[serde(default)]
    pub chain_bytes: Option<u64>,
    /// The TLS bytes the server wrote in answer to the ClientHello before it read again
    /// (TLS 1.3: ServerHello to Finished; TLS 1.2: ServerHello to ServerHelloDone).
    #[serde(default)]
    pub server_first_flight: Option<FlightSizes>,
    /// The client's first flight: its ClientHello (with 0-RTT early data, where sent).
    #[serde(default)]
    pub client_hello: Option<FlightSizes>,
}

/// One flight over an arm's counted connections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlightSizes {
    /// Connections counted.
    pub connections: u64,
    /// Bytes written (TLS records, headers included): smallest, median (nearest rank),
    /// largest.
    pub bytes_min: u64,
    pub bytes_p50: u64,
    pub bytes_max: u64,
    /// TCP data segments sent for the flight, first transmissions only
    /// (`tcpi_data_segs_out` less `tcpi_total_retrans` between its first write and the
    /// next read): median and largest. Null where `TCP_INFO` was not read (loopback).
    #[serde(default)]
    pub segments_p50: Option<u64>,
    #[serde(default)]
    pub segments_max: Option<u64>,
    /// The sender's congestion window (segments) and MSS (bytes) before the flight's
    /// first write, medians: on a fresh connection its initial window, so
    /// `initial_cwnd × mss` is how much the flight could send before waiting for an ACK.
    #[serde(default)]
    pub initial_cwnd: Option<u64>,
    #[serde(default)]
    pub mss: Option<u64>,
}

impl FlightSizes {
    /// The bytes the sender's window let out before the first ACK (`initial_cwnd × mss`),
    /// where both were read.
    pub fn window_bytes(&self) -> Option<u64> {
        self.initial_cwnd?.checked_mul(self.mss?)
    }

    /// Whether the median flight is larger than that window: it waits one round trip more
    /// for an ACK. None where the window was not read.
    pub fn exceeds_window(&self) -> Option<bool> {
        Some(self.bytes_p50 > self.window_bytes()?)
    }
}

/// Nearest-rank median of whole numbers (the lower middle of an even count), as the
/// flights record it; None for none.
pub fn median_u64(values: &[u64]) -> Option<u64> {
    let mut v = values.to_vec();
    v.sort_unstable();
    let n = v.len();
    (n > 0).then(|| v[(n - 1) / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_and_whether_a_flight_crosses_it() {
        let mut f = FlightSizes {
            connections: 3,
            bytes_min: 14_000,
            bytes_p50: 14_480,
            bytes_max: 14_500,
            segments_p50: Some(10),
            segments_max: Some(11),
            initial_cwnd: Some(10),
            mss: Some(1448),
        };
        assert_eq!(f.window_bytes(), Some(14_480));
        assert_eq!(f.exceeds_window(), Some(false), "exactly the window fits");
        f.bytes_p50 = 14_481;
        assert_eq!(f.exceeds_window(), Some(true));
        f.mss = None;
        assert_eq!(f.exceeds_window(), None, "no window read, no verdict");
        f.initial_cwnd = Some(u64::MAX);
        f.mss = Some(2);
        assert_eq!(f.window_bytes(), None, "overflow is no window");
    }

    #[test]
    fn medians_of_whole_numbers_take_the_lower_middle() {
        assert_eq!(median_u64(&[]), None);
        assert_eq!(median_u64(&[5]), Some(5));
        assert_eq!(median_u64(&[9, 1, 5]), Some(5));
        assert_eq!(median_u64(&[4, 1, 3, 2]), Some(2));
    }
}
