//! The relay: one thread per direction reads each IP packet from one TUN device, asks
//! that direction's link model ([`super::model`]) when it leaves or why it is dropped,
//! and writes it to the other device at that time. What each direction saw is counted
//! per server port, so every arm (its own server, its own port) gets its own counts.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::link::LinkSpec;
use super::model::{Counters, Fate, Model};
use super::tun::Tun;

/// The two directions, as indexes into [`Shared::counts`].
pub const TO_SERVER: usize = 0;
pub const TO_CLIENT: usize = 1;

/// What the relay threads and the run share.
pub struct Shared {
    /// Bumped whenever `link` changes: each thread then starts a fresh model.
    generation: AtomicU64,
    /// The link asked, and each direction's seed.
    link: Mutex<(LinkSpec, [u64; 2])>,
    /// Per direction: server port → what that direction did with its packets (port 0:
    /// packets that are not TCP over IPv4).
    counts: [Mutex<HashMap<u16, Counters>>; 2],
    pub stop: AtomicBool,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            generation: AtomicU64::new(0),
            link: Mutex::new((LinkSpec::delay(Duration::ZERO), [0, 1])),
            counts: [Mutex::default(), Mutex::default()],
            stop: AtomicBool::new(false),
        }
    }

    /// Packets read from now on meet `link`, each direction with its seed; the counts
    /// start again from zero.
    pub fn set(&self, link: LinkSpec, seeds: [u64; 2]) {
        let mut l = self.link.lock().unwrap_or_else(|e| e.into_inner());
        *l = (link, seeds);
        for c in &self.counts {
            c.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// What each direction ([`TO_SERVER`], [`TO_CLIENT`]) did with the packets of the
    /// server at `port` since the link was last set.
    pub fn counts(&self, port: u16) -> [Counters; 2] {
        [TO_SERVER, TO_CLIENT].map(|d| {
            self.counts[d]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&port)
                .copied()
                .unwrap_or_default()
        })
    }
}

/// The server's TCP port of an IPv4 packet going `direction` (0: not TCP over IPv4).
pub fn server_port(packet: &[u8], direction: usize) -> u16 {
    if packet.len() < 20 || packet[0] >> 4 != 4 || packet[9] != libc::IPPROTO_TCP as u8 {
        return 0;
    }
    let header = usize::from(packet[0] & 0x0f) * 4;
    // Towards the server its port is the destination; back, the source.
    let at = if direction == TO_SERVER {
        header + 2
    } else {
        header
    };
    packet
        .get(at..at + 2)
        .map_or(0, |p| u16::from_be_bytes([p[0], p[1]]))
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
        .is_some_and(|flags| flags & 0x04 != 0)
}

/// Waits up to this long are spun, not slept. On this 2-vCPU VM a ppoll timeout ends
/// 22–36 µs late at p50 (30–52 µs at p90) however short the wait asked (20,000 ppolls
/// of 1, 5, 12 and 50 µs, 1 ns of timer slack): more than the 12 µs a 1,500-byte packet
/// takes at 1 Gbit/s, so sleeping between the packets of a rate queue made the link
/// slower than its rate. Longer waits (a propagation delay, a slower rate) still sleep,
/// spending no CPU, and may end that late, as before.
const SPIN: Duration = Duration::from_micros(50);

/// How long to sleep with nothing queued before looking at `stop` again.
const IDLE: Duration = Duration::from_millis(50);

/// One direction's state: its model and the packets waiting to leave.
struct Line<'a> {
    direction: usize,
    shared: &'a Shared,
    epoch: Instant,
    generation: u64,
    model: Model,
    /// Packets let through, with when each leaves, in that order.
    queue: VecDeque<(Instant, Vec<u8>)>,
    /// Buffers of packets already written, for the next ones (no allocation per packet).
    spare: Vec<Vec<u8>>,
}

impl Line<'_> {
    /// A packet was just read: its arrival time is now. Ask the model, count its fate
    /// and queue it if it leaves.
    fn admit(&mut self, packet: &[u8]) {
        // The link is looked at after the packet arrived: a packet read after a change
        // meets the new link.
        let g = self.shared.generation.load(Ordering::SeqCst);
        if g != self.generation {
            let (link, seeds) = *self.shared.link.lock().unwrap_or_else(|e| e.into_inner());
            self.model = Model::new(link, seeds[self.direction]);
            self.generation = g;
        }
        let arrived = Instant::now();
        let n = packet.len();
        let spared = is_rst(packet);
        let fate = if spared {
            self.model.offer_spared(arrived - self.epoch, n)
        } else {
            self.model.offer(arrived - self.epoch, n)
        };
        let mut counts = self.shared.counts[self.direction]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let c = counts
            .entry(server_port(packet, self.direction))
            .or_default();
        if spared {
            c.count_spared(fate);
        } else {
            c.count(fate);
        }
        drop(counts);
        if let Fate::Leave(at) = fate {
            // Never before a packet queued under an earlier link (no reordering).
            let at = self.epoch + at;
            let due = self.queue.back().map_or(at, |(last, _)| at.max(*last));
            let mut copy = self.spare.pop().unwrap_or_default();
            copy.clear();
            copy.extend_from_slice(packet);
            self.queue.push_back((due, copy));
        }
    }

    /// Writes every packet due by `now` to `to`.
    fn send_due(&mut self, to: &mut Tun, now: Instant) {
        while self.queue.front().is_some_and(|(due, _)| *due <= now) {
            let (_, packet) = self.queue.pop_front().expect("front exists");
            let _ = to.send(&packet);
            self.spare.push(packet);
        }
    }
}

/// Moves packets from `from` to `to` through `direction`'s link model until `stop`.
///
/// Each turn writes what is due, then reads one packet if one waits (so a backlog is
/// read packet by packet between writes, each stamped when read). With nothing to read,
/// it spins (reading as it goes) if the next packet is due within [`SPIN`], and else
/// sleeps until a packet arrives or the next one is due.
pub fn forward(mut from: Tun, mut to: Tun, direction: usize, shared: &Shared) {
    // The kernel lets a sleeping thread wake up to 50 µs late (timer slack) so it can
    // batch wake-ups; that slack would be the link's, not the model's.
    // SAFETY: PR_SET_TIMERSLACK takes one integer and changes only this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
    let mut line = Line {
        direction,
        shared,
        epoch: Instant::now(),
        generation: u64::MAX,
        model: Model::new(LinkSpec::delay(Duration::ZERO), 0),
        queue: VecDeque::new(),
        spare: Vec::new(),
    };
    let mut buf = vec![0u8; 65536];
    while !shared.stop.load(Ordering::Relaxed) {
        line.send_due(&mut to, Instant::now());
        match from.try_recv(&mut buf) {
            Ok(Some(n)) => {
                line.admit(&buf[..n]);
                continue;
            }
            Ok(None) => {}
            Err(_) => {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
        }
        let wait = line.queue.front().map_or(IDLE, |(due, _)| {
            due.saturating_duration_since(Instant::now())
        });
        if wait > SPIN {
            let _ = from.wait(wait);
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_port_is_the_destination_going_there_and_the_source_coming_back() {
        // IPv4, header 20 bytes, protocol TCP; TCP source port 40000, destination 443.
        let mut p = vec![0u8; 40];
        p[0] = 0x45;
        p[9] = 6;
        p[20..22].copy_from_slice(&40000u16.to_be_bytes());
        p[22..24].copy_from_slice(&443u16.to_be_bytes());
        assert_eq!(server_port(&p, TO_SERVER), 443);
        assert_eq!(server_port(&p, TO_CLIENT), 40000);
        // A 24-byte header (options) moves the ports.
        let mut q = vec![0u8; 44];
        q[0] = 0x46;
        q[9] = 6;
        q[26..28].copy_from_slice(&8443u16.to_be_bytes());
        assert_eq!(server_port(&q, TO_SERVER), 8443);
        // Flags: ACK alone is not RST; RST (alone or with ACK) is.
        p[33] = 0x10;
        assert!(!is_rst(&p));
        p[33] = 0x14;
        assert!(is_rst(&p));
        // UDP, IPv6 and runts count under port 0, and are never a RST.
        p[9] = 17;
        assert!(!is_rst(&p));
        assert_eq!(server_port(&p, TO_SERVER), 0);
        assert_eq!(server_port(&[0x60; 40], TO_SERVER), 0);
        assert_eq!(server_port(&[0x45; 10], TO_SERVER), 0);
    }

    #[test]
    fn counts_start_again_when_the_link_changes() {
        let shared = Shared::new();
        shared.counts[TO_CLIENT]
            .lock()
            .unwrap()
            .entry(443)
            .or_default()
            .seen = 5;
        assert_eq!(shared.counts(443)[TO_CLIENT].seen, 5);
        assert_eq!(shared.counts(443)[TO_SERVER].seen, 0);
        shared.set(LinkSpec::delay(Duration::from_millis(5)), [7, 8]);
        assert_eq!(shared.counts(443), [Counters::default(); 2]);
        assert_eq!(shared.generation.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_rate_queue_spaces_packets_by_their_serialization_and_a_new_link_never_reorders() {
        let shared = Shared::new();
        let rated = LinkSpec::parse("rtt=0ms,rate=1000mbit").unwrap();
        shared.set(rated, [3, 4]);
        let mut line = Line {
            direction: TO_SERVER,
            shared: &shared,
            epoch: Instant::now(),
            generation: u64::MAX,
            model: Model::new(LinkSpec::delay(Duration::ZERO), 0),
            queue: VecDeque::new(),
            spare: vec![Vec::with_capacity(2000)],
        };
        let mut p = vec![0u8; 1500];
        p[0] = 0x45;
        p[9] = 6;
        p[22..24].copy_from_slice(&443u16.to_be_bytes());
        for _ in 0..5 {
            line.admit(&p);
        }
        // The first reused the spare buffer; each is a copy of the packet.
        assert!(line.spare.is_empty());
        assert!(line.queue.iter().all(|(_, q)| *q == p));
        let dues: Vec<Instant> = line.queue.iter().map(|(d, _)| *d).collect();
        let twelve = crate::netem::model::serialization(1500, 1_000_000_000);
        assert_eq!(twelve, Duration::from_micros(12));
        for w in dues.windows(2) {
            assert!(w[1] - w[0] >= twelve, "{:?}", w[1] - w[0]);
        }
        assert_eq!(shared.counts(443)[TO_SERVER].seen, 5);
        // A link with no rate and no delay: the next packet would leave at once, but
        // not before those already queued.
        shared.set(LinkSpec::delay(Duration::ZERO), [3, 4]);
        line.admit(&p);
        assert!(line.queue.back().unwrap().0 >= dues[4]);
        assert_eq!(shared.counts(443)[TO_SERVER].seen, 1);
    }
}
