//! What the kernel's TCP says about a client socket (`getsockopt(TCP_INFO)`), read after
//! the timed window and before close: how many segments it retransmitted, how many
//! retransmission timeouts fired, what it sent, and its congestion window then.
//!
//! Read as bytes at the offsets of Linux's `struct tcp_info` (include/uapi/linux/tcp.h),
//! not through a Rust copy of the struct: the kernel returns as many bytes as it knows,
//! and `tcpi_total_rto` exists only since Linux 6.7 (it is None before).

use std::os::fd::AsRawFd;

/// One connection's client-side TCP counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpInfo {
    /// `tcpi_total_retrans`: segments this end retransmitted (SYN included).
    pub total_retrans: u32,
    /// `tcpi_total_rto`: retransmission timeouts, SYN's included (Linux ≥ 6.7).
    pub total_rto: Option<u16>,
    /// `tcpi_segs_out`: segments sent, retransmissions included.
    pub segs_out: u32,
    /// `tcpi_snd_cwnd`: the congestion window, in segments.
    pub snd_cwnd: u32,
    /// `tcpi_rtt`: the smoothed round trip, in µs.
    pub rtt_us: u32,
    /// `tcpi_data_segs_out`: segments with data sent, retransmissions included (None on
    /// a kernel too old to count them).
    pub data_segs_out: Option<u32>,
    /// `tcpi_snd_mss`: the largest segment this end sends, in bytes.
    pub snd_mss: u32,
    /// The socket's own and its peer's TCP port (IPv4), by `getsockname` and
    /// `getpeername`: what joins the connection with the relay's records of it.
    pub local_port: Option<u16>,
    pub peer_port: Option<u16>,
}

/// The port of an IPv4 socket address `get` fills (getsockname or getpeername).
fn port_of(
    socket: &impl AsRawFd,
    get: unsafe extern "C" fn(
        libc::c_int,
        *mut libc::sockaddr,
        *mut libc::socklen_t,
    ) -> libc::c_int,
) -> Option<u16> {
    // SAFETY: an all-zero sockaddr_in is valid; the kernel writes at most `len` bytes.
    let mut addr: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: `addr` is a sockaddr_in of `len` bytes, owned here.
    let r = unsafe { get(socket.as_raw_fd(), (&raw mut addr).cast(), &mut len) };
    (r == 0 && addr.sin_family == libc::AF_INET as libc::sa_family_t)
        .then(|| u16::from_be(addr.sin_port))
}

const SND_MSS: usize = 16;
const RTT: usize = 68;
const SND_CWND: usize = 80;
const TOTAL_RETRANS: usize = 100;
const SEGS_OUT: usize = 136;
const DATA_SEGS_OUT: usize = 156;
const TOTAL_RTO: usize = 240;

/// The socket's counters now; None when the call fails (not a TCP socket).
pub fn read(socket: &impl AsRawFd) -> Option<TcpInfo> {
    let mut buf = [0u8; 320];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `buf` and stores how many in `len`.
    let r = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if r != 0 {
        return None;
    }
    parse(&buf[..(len as usize).min(buf.len())]).map(|info| TcpInfo {
        local_port: port_of(socket, libc::getsockname),
        peer_port: port_of(socket, libc::getpeername),
        ..info
    })
}

/// The fields from the kernel's bytes; None when too short to hold `tcpi_segs_out`.
pub fn parse(b: &[u8]) -> Option<TcpInfo> {
    let u32_at = |at: usize| {
        b.get(at..at + 4)
            .map(|s| u32::from_ne_bytes(s.try_into().expect("4 bytes")))
    };
    Some(TcpInfo {
        total_retrans: u32_at(TOTAL_RETRANS)?,
        total_rto: b
            .get(TOTAL_RTO..TOTAL_RTO + 2)
            .map(|s| u16::from_ne_bytes(s.try_into().expect("2 bytes"))),
        segs_out: u32_at(SEGS_OUT)?,
        snd_cwnd: u32_at(SND_CWND)?,
        rtt_us: u32_at(RTT)?,
        data_segs_out: u32_at(DATA_SEGS_OUT),
        snd_mss: u32_at(SND_MSS)?,
        local_port: None,
        peer_port: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn fields_come_from_their_offsets_and_a_short_struct_has_no_rto_count() {
        let mut b = vec![0u8; 248];
        b[RTT..RTT + 4].copy_from_slice(&1234u32.to_ne_bytes());
        b[SND_CWND..SND_CWND + 4].copy_from_slice(&10u32.to_ne_bytes());
        b[TOTAL_RETRANS..TOTAL_RETRANS + 4].copy_from_slice(&3u32.to_ne_bytes());
        b[SEGS_OUT..SEGS_OUT + 4].copy_from_slice(&17u32.to_ne_bytes());
        b[DATA_SEGS_OUT..DATA_SEGS_OUT + 4].copy_from_slice(&15u32.to_ne_bytes());
        b[SND_MSS..SND_MSS + 4].copy_from_slice(&1448u32.to_ne_bytes());
        b[TOTAL_RTO..TOTAL_RTO + 2].copy_from_slice(&2u16.to_ne_bytes());
        let want = TcpInfo {
            total_retrans: 3,
            total_rto: Some(2),
            segs_out: 17,
            snd_cwnd: 10,
            rtt_us: 1234,
            data_segs_out: Some(15),
            snd_mss: 1448,
            local_port: None,
            peer_port: None,
        };
        assert_eq!(parse(&b), Some(want));
        // A kernel before 6.7 returns 232 bytes: no tcpi_total_rto.
        assert_eq!(
            parse(&b[..232]),
            Some(TcpInfo {
                total_rto: None,
                ..want
            })
        );
        assert_eq!(parse(&b[..100]), None);
        // Before Linux 4.6 the struct ended before tcpi_data_segs_out.
        assert_eq!(parse(&b[..152]).unwrap().data_segs_out, None);
    }

    #[test]
    fn a_fresh_loopback_connection_reads_as_the_kernel_starts_one() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        // Connected, nothing sent: Linux's initial window of 10 segments (RFC 6928); SYN
        // and ACK out; nothing lost on loopback; an RTT sample from the SYN exchange.
        let fresh = read(&client).expect("a TCP socket has TCP_INFO");
        assert_eq!(fresh.snd_cwnd, 10, "{fresh:?}");
        assert_eq!(fresh.segs_out, 2, "{fresh:?}");
        assert_eq!(
            fresh.data_segs_out,
            Some(0),
            "SYN and ACK carry no data: {fresh:?}"
        );
        assert_eq!(fresh.total_retrans, 0);
        assert!(fresh.rtt_us > 0, "{fresh:?}");
        assert_eq!(fresh.total_rto.unwrap_or(0), 0);
        // Each end's ports, as the sockets' addresses say.
        let (c, s) = (
            client.local_addr().unwrap().port(),
            listener.local_addr().unwrap().port(),
        );
        assert_eq!((fresh.local_port, fresh.peer_port), (Some(c), Some(s)));
        let from_server = read(&server).unwrap();
        assert_eq!(
            (from_server.local_port, from_server.peer_port),
            (Some(s), Some(c))
        );
        client.write_all(b"ping").unwrap();
        let mut got = [0u8; 4];
        server.read_exact(&mut got).unwrap();
        server.write_all(b"pong").unwrap();
        client.read_exact(&mut got).unwrap();
        // One data segment more out (an ACK of the pong may follow later).
        let after = read(&client).unwrap();
        assert!(after.segs_out >= 3, "{after:?}");
        assert_eq!(
            after.data_segs_out,
            Some(1),
            "one write, one segment: {after:?}"
        );
        assert_eq!(after.total_retrans, 0);
        assert_eq!(read(&std::fs::File::open("/dev/null").unwrap()), None);
    }
}
