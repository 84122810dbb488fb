//! The relay: one thread per direction reads each IP packet from one TUN device, asks
//! the link model of the packet's server port ([`super::model`]) when it leaves or why it
//! is dropped, and writes it to the other device at that time. A port can be given a
//! link of its own ([`Shared::assign`]: the cells of a loss grid, interleaved on one
//! path); the others share the path's link ([`Shared::set`]). What each direction saw is
//! counted per server port and kind of packet, and every drop per connection
//! ([`super::conns`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::conns::{ConnDrops, Connections};
use super::link::LinkSpec;
use super::model::{Counters, Fate, Model};
use super::packet::{is_rst, segment};
use super::tun::Tun;

pub use super::packet::{TO_CLIENT, TO_SERVER};

/// A link and each direction's seed.
type Seeded = (LinkSpec, [u64; 2]);

/// What the relay threads and the run share.
pub struct Shared {
    /// Bumped whenever a link changes: each thread then starts fresh models.
    generation: AtomicU64,
    /// The path's link, for every port without one of its own.
    link: Mutex<Seeded>,
    /// Server ports with a link of their own.
    ports: Mutex<HashMap<u16, Seeded>>,
    /// Per direction: server port → what that direction did with its packets (port 0:
    /// packets that are not TCP over IPv4).
    counts: [Mutex<HashMap<u16, Counters>>; 2],
    connections: Mutex<Connections>,
    pub stop: AtomicBool,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            generation: AtomicU64::new(0),
            link: Mutex::new((LinkSpec::delay(Duration::ZERO), [0, 1])),
            ports: Mutex::default(),
            counts: [Mutex::default(), Mutex::default()],
            connections: Mutex::default(),
            stop: AtomicBool::new(false),
        }
    }

    /// Packets read from now on meet `link`, each direction with its seed, at every port
    /// (links of their own are forgotten); the counts start again from zero.
    pub fn set(&self, link: LinkSpec, seeds: [u64; 2]) {
        *lock(&self.link) = (link, seeds);
        lock(&self.ports).clear();
        for c in &self.counts {
            lock(c).clear();
        }
        lock(&self.connections).clear();
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// Packets of the server at `port` read from now on meet `link`, a model of their own
    /// (their own loss draws, queue and delay); that port's counts start from zero.
    /// Every model starts again (set links before the packets flow).
    pub fn assign(&self, port: u16, link: LinkSpec, seeds: [u64; 2]) {
        lock(&self.ports).insert(port, (link, seeds));
        for c in &self.counts {
            lock(c).remove(&port);
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// What each direction ([`TO_SERVER`], [`TO_CLIENT`]) did with the packets of the
    /// server at `port` since its link was last set.
    pub fn counts(&self, port: u16) -> [Counters; 2] {
        [TO_SERVER, TO_CLIENT].map(|d| {
            lock(&self.counts[d])
                .get(&port)
                .copied()
                .unwrap_or_default()
        })
    }

    /// The connections to the server at `port`, in the order they opened, with what the
    /// link dropped of each.
    pub fn connections(&self, port: u16) -> Vec<ConnDrops> {
        lock(&self.connections).of(port)
    }

    /// The link packets of `port` meet.
    fn link_of(&self, port: u16) -> (Option<u16>, Seeded) {
        match lock(&self.ports).get(&port) {
            Some(l) => (Some(port), *l),
            None => (None, *lock(&self.link)),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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

/// One direction's state: its models and the packets waiting to leave.
struct Line<'a> {
    direction: usize,
    shared: &'a Shared,
    epoch: Instant,
    generation: u64,
    /// Per port with a link of its own, its model; under None, the path's.
    models: HashMap<Option<u16>, Model>,
    /// Per model, when its last packet leaves: a later packet of the same model never
    /// leaves before it (no reordering, across a change of link too).
    last_due: HashMap<Option<u16>, Instant>,
    /// Packets let through: (when each leaves, the order they came, the bytes), soonest
    /// first.
    queue: BinaryHeap<Reverse<(Instant, u64, Vec<u8>)>>,
    arrivals: u64,
    /// Buffers of packets already written, for the next ones (no allocation per packet).
    spare: Vec<Vec<u8>>,
}

impl<'a> Line<'a> {
    fn new(shared: &'a Shared, direction: usize) -> Line<'a> {
        Line {
            direction,
            shared,
            epoch: Instant::now(),
            generation: u64::MAX,
            models: HashMap::new(),
            last_due: HashMap::new(),
            queue: BinaryHeap::new(),
            arrivals: 0,
            spare: Vec::new(),
        }
    }

    /// A packet was just read: its arrival time is now. Ask its port's model, count its
    /// fate and queue it if it leaves.
    fn admit(&mut self, packet: &[u8]) {
        // The links are looked at after the packet arrived: a packet read after a change
        // meets the new link.
        let g = self.shared.generation.load(Ordering::SeqCst);
        if g != self.generation {
            self.models.clear();
            self.generation = g;
        }
        let arrived = Instant::now();
        let n = packet.len();
        let spared = is_rst(packet);
        let seg = segment(packet, self.direction);
        let port = seg.map_or(0, |s| s.server_port);
        let (key, (link, seeds)) = self.shared.link_of(port);
        let direction = self.direction;
        let model = self
            .models
            .entry(key)
            .or_insert_with(|| Model::new(link, seeds[direction]));
        let fate = if spared {
            model.offer_spared(arrived - self.epoch, n)
        } else {
            model.offer(arrived - self.epoch, n)
        };
        let mut counts = lock(&self.shared.counts[self.direction]);
        let c = counts.entry(port).or_default();
        if spared {
            c.count_spared(fate);
        } else {
            c.count(fate);
            if let Some(s) = seg {
                c.count_kind(s.kind, fate);
            }
        }
        drop(counts);
        if let Some(s) = seg {
            lock(&self.shared.connections).note(s, self.direction, fate);
        }
        if let Fate::Leave(at) = fate {
            let at = self.epoch + at;
            let due = self.last_due.get(&key).map_or(at, |last| at.max(*last));
            self.last_due.insert(key, due);
            let mut copy = self.spare.pop().unwrap_or_default();
            copy.clear();
            copy.extend_from_slice(packet);
            self.arrivals += 1;
            self.queue.push(Reverse((due, self.arrivals, copy)));
        }
    }

    /// When the next packet leaves, if one waits.
    fn next_due(&self) -> Option<Instant> {
        self.queue.peek().map(|Reverse((due, _, _))| *due)
    }

    /// Writes every packet due by `now` to `to`.
    fn send_due(&mut self, to: &mut Tun, now: Instant) {
        while self.next_due().is_some_and(|due| due <= now) {
            let Reverse((_, _, packet)) = self.queue.pop().expect("one is due");
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
    let mut line = Line::new(shared, direction);
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
        let wait = line
            .next_due()
            .map_or(IDLE, |due| due.saturating_duration_since(Instant::now()));
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
    use crate::netem::packet::tests::tcp_packet;
    use crate::netem::packet::Kind;

    fn line(shared: &Shared, direction: usize) -> Line<'_> {
        Line {
            spare: vec![Vec::with_capacity(2000)],
            ..Line::new(shared, direction)
        }
    }

    fn dues(line: &Line<'_>) -> Vec<Instant> {
        let mut d: Vec<Instant> = line.queue.iter().map(|Reverse((d, _, _))| *d).collect();
        d.sort();
        d
    }

    #[test]
    fn counts_start_again_when_the_link_changes() {
        let shared = Shared::new();
        lock(&shared.counts[TO_CLIENT]).entry(443).or_default().seen = 5;
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
        let mut line = line(&shared, TO_SERVER);
        let p = tcp_packet(40000, 443, 0x10, 1460, 0);
        for _ in 0..5 {
            line.admit(&p);
        }
        // The first reused the spare buffer; each is a copy of the packet.
        assert!(line.spare.is_empty());
        assert!(line.queue.iter().all(|Reverse((_, _, q))| *q == p));
        let dues = dues(&line);
        let twelve = crate::netem::model::serialization(1500, 1_000_000_000);
        assert_eq!(twelve, Duration::from_micros(12));
        for w in dues.windows(2) {
            assert!(w[1] - w[0] >= twelve, "{:?}", w[1] - w[0]);
        }
        assert_eq!(shared.counts(443)[TO_SERVER].seen, 5);
        assert_eq!(
            shared.counts(443)[TO_SERVER].kinds[Kind::Data.index()].seen,
            5
        );
        // A link with no rate and no delay: the next packet would leave at once, but
        // not before those already queued.
        shared.set(LinkSpec::delay(Duration::ZERO), [3, 4]);
        line.admit(&p);
        assert!(super::tests::dues(&line).last().unwrap() >= &dues[4]);
        assert_eq!(shared.counts(443)[TO_SERVER].seen, 1);
    }

    #[test]
    fn a_port_with_a_link_of_its_own_meets_only_that_link_and_never_waits_behind_another() {
        let shared = Shared::new();
        shared.set(LinkSpec::delay(Duration::from_millis(2)), [1, 2]);
        shared.assign(8001, LinkSpec::delay(Duration::from_millis(100)), [3, 4]);
        let mut line = line(&shared, TO_SERVER);
        let before = Instant::now();
        line.admit(&tcp_packet(5000, 8001, 0x02, 0, 0)); // leaves after 50 ms
        line.admit(&tcp_packet(5001, 9000, 0x02, 0, 0)); // the path's link: 1 ms
        let d = dues(&line);
        assert_eq!(d.len(), 2);
        // The path's packet, read second, leaves first: each link queues apart.
        assert!(
            d[0] - before < Duration::from_millis(40),
            "{:?}",
            d[0] - before
        );
        assert!(d[1] - before >= Duration::from_millis(50));
        assert_eq!(shared.counts(8001)[TO_SERVER].seen, 1);
        assert_eq!(shared.counts(9000)[TO_SERVER].seen, 1);
        assert_eq!(shared.counts(8001)[TO_SERVER].lost, 0);
    }

    #[test]
    fn every_drop_is_counted_by_kind_and_in_its_connection() {
        let shared = Shared::new();
        // Loses every packet the loss model draws for: each drop is known in advance.
        let all = LinkSpec {
            loss: 1.0,
            ..LinkSpec::delay(Duration::ZERO)
        };
        shared.assign(443, all, [1, 2]);
        let mut to_server = line(&shared, TO_SERVER);
        let mut to_client = line(&shared, TO_CLIENT);
        to_server.admit(&tcp_packet(5000, 443, 0x02, 0, 0)); // SYN
        to_server.admit(&tcp_packet(5000, 443, 0x02, 0, 0)); // SYN again
        to_client.admit(&tcp_packet(443, 5000, 0x12, 0, 0)); // SYN-ACK
        to_server.admit(&tcp_packet(5000, 443, 0x10, 300, 0)); // data
        to_server.admit(&tcp_packet(5000, 443, 0x14, 0, 0)); // RST: spared
        to_server.admit(&tcp_packet(5001, 443, 0x02, 0, 0)); // the next connection
        let c = shared.counts(443);
        assert_eq!(
            (c[TO_SERVER].seen, c[TO_SERVER].lost, c[TO_SERVER].spared),
            (4, 4, 1)
        );
        assert_eq!(c[TO_SERVER].kinds[Kind::Syn.index()].lost, 3);
        assert_eq!(c[TO_SERVER].kinds[Kind::Data.index()].lost, 1);
        assert_eq!(
            c[TO_SERVER].kinds[Kind::FinRst.index()].seen,
            0,
            "the RST is spared"
        );
        assert_eq!(c[TO_CLIENT].kinds[Kind::SynAck.index()].lost, 1);
        // Every draw lost: one run.
        assert_eq!(c[TO_SERVER].runs, 1);
        let conns = shared.connections(443);
        assert_eq!(
            conns
                .iter()
                .map(|c| (c.client_port, c.total()))
                .collect::<Vec<_>>(),
            [(5000, 4), (5001, 1)]
        );
        assert_eq!(conns[0].dropped[TO_SERVER][Kind::Syn.index()], 2);
        assert_eq!(conns[0].dropped[TO_CLIENT][Kind::SynAck.index()], 1);
        assert!(to_server.queue.len() == 1, "only the RST leaves");
    }
}
