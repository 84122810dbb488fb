//! An arm's wire sizes for the evidence ([`shared::Wire`]), from the flights its
//! connections counted ([`crate::arms::wire`]).

use shared::wire::median_u64;
use shared::{FlightSizes, Wire};

use crate::arms::wire::Flight;
use crate::arms::ArmRun;

/// The arm's record: None where nothing was counted (plain TCP, other stacks).
pub fn record(run: &ArmRun) -> Option<Wire> {
    let w = Wire {
        chain_certificates: run.chains.iter().map(|c| u64::from(c.0)).max(),
        chain_bytes: run.chains.iter().map(|c| c.1).max(),
        server_first_flight: sizes(&run.server_flights),
        client_hello: sizes(&run.client_hellos),
    };
    let empty =
        w.chain_bytes.is_none() && w.server_first_flight.is_none() && w.client_hello.is_none();
    (!empty).then_some(w)
}

/// One flight over the connections that counted it.
pub fn sizes(flights: &[Flight]) -> Option<FlightSizes> {
    let bytes: Vec<u64> = flights.iter().map(|f| f.bytes).collect();
    let all = |f: fn(&Flight) -> Option<u32>| -> Vec<u64> {
        flights.iter().filter_map(f).map(u64::from).collect()
    };
    let segments = all(|f| f.segments);
    Some(FlightSizes {
        connections: flights.len() as u64,
        bytes_min: bytes.iter().copied().min()?,
        bytes_p50: median_u64(&bytes)?,
        bytes_max: bytes.iter().copied().max()?,
        segments_p50: median_u64(&segments),
        segments_max: segments.iter().copied().max(),
        initial_cwnd: median_u64(&all(|f| f.cwnd)),
        mss: median_u64(&all(|f| f.mss)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flight(bytes: u64, segments: Option<u32>) -> Flight {
        Flight {
            bytes,
            segments,
            cwnd: segments.map(|_| 10),
            mss: segments.map(|_| 1448),
        }
    }

    #[test]
    fn a_flight_is_summed_up_over_its_connections() {
        assert_eq!(sizes(&[]), None);
        let s = sizes(&[
            flight(5000, Some(4)),
            flight(5002, Some(4)),
            flight(4999, Some(5)),
        ])
        .unwrap();
        assert_eq!(
            (s.connections, s.bytes_min, s.bytes_p50, s.bytes_max),
            (3, 4999, 5000, 5002)
        );
        assert_eq!((s.segments_p50, s.segments_max), (Some(4), Some(5)));
        assert_eq!((s.initial_cwnd, s.mss), (Some(10), Some(1448)));
        // On loopback no TCP_INFO was read: bytes only.
        let plain = sizes(&[flight(300, None)]).unwrap();
        assert_eq!(
            (plain.segments_p50, plain.initial_cwnd, plain.mss),
            (None, None, None)
        );
    }
}
