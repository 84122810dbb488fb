//! The median handshake taken apart along its critical path, and the model that predicts
//! it from its parts and one measured hop (see [`shared::Decomposition`]). Everything
//! here reads only the evidence, so anyone can recompute it from the file.

use shared::{Decomposition, FloorPart, HopPoint, PathStep, Phases, Side, StepKind};

use super::hop_curve;
use super::phases::median_or_zero;

/// How the decomposition and the model are defined (recorded in the evidence).
pub const MODEL: &str = "critical path of the client's timed window, cut at the moments both ends stamp on one clock: connect (start → connected), then alternately one side working (from the moment it read the peer's flight, or connected, until its next flight is ready) and that flight in transit (sender's <f>_ready → receiver's <f>_read: write, wire, wake-up, read), ending with the client's last work (its last flight's write) until done; each connection's steps add up to its window. Model: predicted = median connect + median client work + median server work + each flight's hop, read off the run's hop curve (hop.curve: one-way time of a 1-byte flight between two threads over loopback TCP against how long its receiver had been blocked, measured in the same run, linear between points) at the flight's own median idle time (the sender's <f>_ready − the receiver's moment before <f>_read: on a VM a receiver that waited long enough for its vCPU to halt costs a wake-up more; a receiver that had not blocked yet, idle ≤ 0, takes the curve's first point, measured with a receiver that polls), or hops × the ping-pong hop (hop.one_way_us) when no curve was measured; client and server work are wall time of a busy thread (its thread CPU time is given beside it: on loopback the kernel's receive work is charged to the sending thread, so CPU time would count part of each hop twice); the public-key floor is the part of each side's work from crypto_floor_parts. A prediction more than 10% off the measured p50 is flagged";

/// Largest miss of the prediction that is not flagged.
pub const TOLERANCE: f64 = 0.10;

/// One step of the path: (kind, from side, from moment, to side, to moment).
type Step = (StepKind, char, String, char, String);

/// The critical path of `p`'s usual sequence, or None without the server's moments.
fn path(p: &Phases) -> Option<Vec<Step>> {
    if p.server_events.is_empty() {
        return None;
    }
    let events = |side: char| {
        if side == 'c' {
            &p.client_events
        } else {
            &p.server_events
        }
    };
    let has = |side: char, e: &str| events(side).iter().any(|x| x == e);
    let mut steps: Vec<Step> = vec![(
        StepKind::Connect,
        'c',
        "start".into(),
        'c',
        "connected".into(),
    )];
    let (mut side, mut at) = ('c', "connected".to_string());
    loop {
        let peer = if side == 'c' { 's' } else { 'c' };
        let work = if side == 'c' {
            StepKind::Client
        } else {
            StepKind::Server
        };
        let from = events(side).iter().position(|e| *e == at)?;
        // This side's next flight that the peer reads, if this side then waits for the
        // peer (the client's last flight ends its window; it waits for nothing after it).
        let rest = &events(side)[from + 1..];
        let next = rest.iter().enumerate().find(|(_, e)| {
            e.strip_suffix("_ready")
                .is_some_and(|f| has(peer, &format!("{f}_read")))
        });
        let waits_after = |i: usize| rest[i + 1..].iter().any(|e| e.ends_with("_read"));
        match next {
            Some((i, ready)) if side == 's' || waits_after(i) => {
                let read = format!("{}_read", ready.strip_suffix("_ready")?);
                steps.push((work, side, at.clone(), side, ready.clone()));
                steps.push((StepKind::Wire, side, ready.clone(), peer, read.clone()));
                (side, at) = (peer, read);
            }
            // The client's last work ends the window; a server never has the last word.
            _ if side == 'c' && has('c', "done") => {
                steps.push((work, side, at, side, "done".into()));
                return Some(steps);
            }
            _ => return None,
        }
    }
}

/// Takes `p` apart and predicts `measured_p50_us` from its parts and the hop: each
/// flight's from `curve` at its receiver's idle time, or `hop_us` for every flight when
/// the curve is empty.
pub fn decompose(
    p: &Phases,
    floor: &[FloorPart],
    measured_p50_us: f64,
    hop_us: f64,
    curve: &[HopPoint],
) -> Option<Decomposition> {
    let steps = path(p)?;
    let index = |side: char, e: &str| {
        let events = if side == 'c' {
            &p.client_events
        } else {
            &p.server_events
        };
        events.iter().position(|x| x == e)
    };
    // Regular connections: both rows follow the usual sequences.
    let conns: Vec<Conn> = p
        .client_wall_us
        .iter()
        .zip(&p.client_cpu_us)
        .zip(p.server_wall_us.iter().zip(&p.server_cpu_us))
        .filter(|((cw, _), (sw, _))| {
            cw.len() == p.client_events.len() && sw.len() == p.server_events.len()
        })
        .map(|((cw, cc), (sw, sc))| Conn {
            wall: [cw, sw],
            cpu: [cc, sc],
        })
        .collect();
    if conns.is_empty() {
        return None;
    }
    let mut resolved = Vec::new();
    for (kind, fs, fe, ts, te) in &steps {
        resolved.push((*kind, *fs, index(*fs, fe)?, *ts, index(*ts, te)?));
    }
    let wall = |c: &Conn, side: char, i: usize| c.wall[usize::from(side == 's')][i];
    let cpu = |c: &Conn, side: char, i: usize| c.cpu[usize::from(side == 's')][i];
    // Per connection: each step's wall time, and per kind the sums (wall, thread CPU).
    let per_step: Vec<Vec<f64>> = resolved
        .iter()
        .map(|&(_, fs, fi, ts, ti)| {
            conns
                .iter()
                .map(|c| wall(c, ts, ti) - wall(c, fs, fi))
                .collect()
        })
        .collect();
    let sum_of = |kind: StepKind, f: &dyn Fn(usize, usize) -> f64| -> f64 {
        let mut sums: Vec<f64> = (0..conns.len())
            .map(|k| {
                resolved
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.0 == kind)
                    .map(|(j, _)| f(j, k))
                    .sum()
            })
            .collect();
        median_or_zero(&mut sums)
    };
    let wall_of = |j: usize, k: usize| per_step[j][k];
    let cpu_of = |j: usize, k: usize| {
        let (_, fs, fi, ts, ti) = resolved[j];
        cpu(&conns[k], ts, ti) - cpu(&conns[k], fs, fi)
    };
    // A flight's receiver had been waiting since its moment before `<f>_read` (the
    // client: its last write; the server: accept or its last write).
    let idle_of = |&(_, fs, fi, ts, ti): &(StepKind, char, usize, char, usize)| {
        let before = ti.checked_sub(1)?;
        let mut v: Vec<f64> = conns
            .iter()
            .map(|c| wall(c, fs, fi) - wall(c, ts, before))
            .collect();
        Some(round(median_or_zero(&mut v).max(0.0)))
    };
    let path: Vec<PathStep> = steps
        .iter()
        .zip(&per_step)
        .zip(&resolved)
        .map(|(((kind, fs, fe, ts, te), v), r)| {
            let idle_us = (*kind == StepKind::Wire).then(|| idle_of(r)).flatten();
            PathStep {
                kind: *kind,
                label: if fs == ts {
                    format!("{} {fe} → {te}", side_name(*fs))
                } else {
                    format!("{fe} → {te}")
                },
                p50_us: median_or_zero(&mut v.clone()),
                idle_us,
                modelled_us: idle_us.and_then(|i| hop_curve::at(curve, i)).map(round),
            }
        })
        .collect();
    let floor_of = |side: Side| {
        floor
            .iter()
            .filter(|f| f.side == side)
            .fold(0.0, |s, f| s + f.us)
    };
    let hops = steps.iter().filter(|s| s.0 == StepKind::Wire).count() as u64;
    let tcp_connect_us = sum_of(StepKind::Connect, &wall_of);
    let client_cpu_us = sum_of(StepKind::Client, &wall_of);
    let server_cpu_us = sum_of(StepKind::Server, &wall_of);
    let wires = path.iter().filter(|s| s.kind == StepKind::Wire);
    let (waiting_us, hop_us) = match wires.map(|s| s.modelled_us).sum::<Option<f64>>() {
        Some(sum) if !curve.is_empty() && hops > 0 => (round(sum), sum / hops as f64),
        _ => (round(hops as f64 * hop_us), hop_us),
    };
    let predicted_us = round(tcp_connect_us + client_cpu_us + server_cpu_us + waiting_us);
    let ratio = predicted_us / measured_p50_us;
    Some(Decomposition {
        path,
        tcp_connect_us,
        client_cpu_us,
        client_floor_us: round(floor_of(Side::Client)),
        client_thread_cpu_us: sum_of(StepKind::Client, &cpu_of),
        server_cpu_us,
        server_floor_us: round(floor_of(Side::Server)),
        server_thread_cpu_us: sum_of(StepKind::Server, &cpu_of),
        hops,
        hop_us: round(hop_us),
        waiting_us,
        waiting_measured_us: sum_of(StepKind::Wire, &wall_of),
        predicted_us,
        measured_p50_us,
        prediction_ratio: ratio,
        miss: ((ratio - 1.0).abs() > TOLERANCE).then(|| {
            format!(
                "the model predicts {predicted_us:.1} µs, {:.0}% {} the measured p50 of {measured_p50_us:.1} µs: part of the time is not explained by connect, work and {hops} hops of {:.1} µs on average (measured waiting {:.1} µs)",
                (ratio - 1.0).abs() * 100.0,
                if ratio > 1.0 { "above" } else { "below" },
                hop_us,
                sum_of(StepKind::Wire, &wall_of),
            )
        }),
    })
}

/// One regular connection's rows: [client, server] moments and CPU times.
struct Conn<'a> {
    wall: [&'a [f64]; 2],
    cpu: [&'a [f64]; 2],
}

fn side_name(side: char) -> &'static str {
    if side == 'c' {
        "client"
    } else {
        "server"
    }
}

fn round(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// One TLS 1.3-shaped connection, times written out by hand.
    fn tls13() -> Phases {
        Phases {
            client_events: s(&[
                "start",
                "connected",
                "c1_ready",
                "c1_written",
                "s1_read",
                "c2_ready",
                "c2_written",
                "done",
            ]),
            server_events: s(&[
                "accepted",
                "c1_read",
                "s1_ready",
                "s1_written",
                "c2_read",
                "done",
            ]),
            client: Vec::new(),
            server: Vec::new(),
            decomposition: None,
            irregular: 0,
            client_wall_us: vec![vec![0.0, 20.0, 60.0, 65.0, 200.0, 300.0, 305.0, 306.0]],
            client_cpu_us: vec![vec![0.0, 10.0, 50.0, 55.0, 56.0, 150.0, 155.0, 156.0]],
            server_wall_us: vec![vec![30.0, 90.0, 170.0, 175.0, 330.0, 340.0]],
            server_cpu_us: vec![vec![0.0, 2.0, 80.0, 85.0, 86.0, 96.0]],
        }
    }

    #[test]
    fn tls13_path_alternates_and_adds_up_to_the_window() {
        let floor = [
            FloorPart {
                primitive: "sign".into(),
                side: Side::Server,
                count: 1,
                us: 40.0,
            },
            FloorPart {
                primitive: "verify".into(),
                side: Side::Client,
                count: 2,
                us: 30.0,
            },
        ];
        let d = decompose(&tls13(), &floor, 300.0, 25.0, &[]).unwrap();
        let labels: Vec<(StepKind, &str, f64)> = d
            .path
            .iter()
            .map(|p| (p.kind, p.label.as_str(), p.p50_us))
            .collect();
        assert_eq!(
            labels,
            [
                (StepKind::Connect, "client start → connected", 20.0),
                (StepKind::Client, "client connected → c1_ready", 40.0),
                (StepKind::Wire, "c1_ready → c1_read", 30.0),
                (StepKind::Server, "server c1_read → s1_ready", 80.0),
                (StepKind::Wire, "s1_ready → s1_read", 30.0),
                (StepKind::Client, "client s1_read → done", 106.0),
            ]
        );
        // The parts add up to the window: 20 + 40 + 30 + 80 + 30 + 106 = 306.
        let total: f64 = d.path.iter().map(|p| p.p50_us).sum();
        assert_eq!(total, 306.0);
        assert_eq!(
            (d.tcp_connect_us, d.client_cpu_us, d.server_cpu_us),
            (20.0, 146.0, 80.0)
        );
        assert_eq!(
            (d.hops, d.waiting_us, d.waiting_measured_us),
            (2, 50.0, 60.0)
        );
        // Thread CPU of the working steps: client 40 + 100, server 78.
        assert_eq!(
            (d.client_thread_cpu_us, d.server_thread_cpu_us),
            (140.0, 78.0)
        );
        assert_eq!((d.client_floor_us, d.server_floor_us), (30.0, 40.0));
        // predicted = 20 + 146 + 80 + 2 × 25 = 296, within 10% of 300.
        assert_eq!(d.predicted_us, 296.0);
        assert!(d.miss.is_none());
        // The same parts against a p50 of 400 µs: a miss, said in words.
        let d = decompose(&tls13(), &floor, 400.0, 25.0, &[]).unwrap();
        assert!(d.miss.unwrap().contains("26% below"));
    }

    #[test]
    fn each_flight_takes_its_hop_from_the_curve_at_its_receivers_idle_time() {
        let curve = [(10.0, 20.0), (50.0, 60.0), (150.0, 70.0)].map(|(i, o)| HopPoint {
            idle_us: i,
            one_way_us: o,
            samples: 20,
        });
        let d = decompose(&tls13(), &[], 400.0, 25.0, &curve).unwrap();
        let wires: Vec<(Option<f64>, Option<f64>)> =
            d.path.iter().map(|s| (s.idle_us, s.modelled_us)).collect();
        // ClientHello: ready at 60, the server waiting since it accepted at 30 → idle 30,
        // hop 20 + 20/40 × 40 = 40. Server flight: ready at 170, the client waiting since
        // its write at 65 → idle 105, hop 60 + 55/100 × 10 = 65.5. Other steps: none.
        assert_eq!(
            wires,
            [
                (None, None),
                (None, None),
                (Some(30.0), Some(40.0)),
                (None, None),
                (Some(105.0), Some(65.5)),
                (None, None),
            ]
        );
        assert_eq!((d.waiting_us, d.hop_us), (105.5, 52.8));
        // 20 + 146 + 80 + 105.5.
        assert_eq!(d.predicted_us, 351.5);
        // An empty curve: every flight one hop of 25.
        let d = decompose(&tls13(), &[], 400.0, 25.0, &[]).unwrap();
        assert_eq!((d.waiting_us, d.hop_us), (50.0, 25.0));
        assert!(d.path.iter().all(|s| s.modelled_us.is_none()));
    }

    #[test]
    fn tls12_full_has_four_hops() {
        let p = Phases {
            client_events: s(&[
                "start",
                "connected",
                "c1_ready",
                "c1_written",
                "s1_read",
                "c2_ready",
                "c2_written",
                "s2_read",
                "done",
            ]),
            server_events: s(&[
                "accepted",
                "c1_read",
                "s1_ready",
                "s1_written",
                "c2_read",
                "s2_ready",
                "s2_written",
                "done",
            ]),
            client_wall_us: vec![vec![
                0.0, 20.0, 50.0, 55.0, 150.0, 250.0, 255.0, 330.0, 340.0,
            ]],
            client_cpu_us: vec![vec![0.0; 9]],
            server_wall_us: vec![vec![25.0, 70.0, 120.0, 125.0, 270.0, 300.0, 305.0, 306.0]],
            server_cpu_us: vec![vec![0.0; 8]],
            ..tls13()
        };
        let d = decompose(&p, &[], 340.0, 20.0, &[]).unwrap();
        assert_eq!(d.hops, 4);
        let kinds: Vec<StepKind> = d.path.iter().map(|p| p.kind).collect();
        use StepKind::*;
        assert_eq!(
            kinds,
            [Connect, Client, Wire, Server, Wire, Client, Wire, Server, Wire, Client]
        );
        let total: f64 = d.path.iter().map(|p| p.p50_us).sum();
        assert_eq!(total, 340.0);
    }

    #[test]
    fn no_decomposition_without_the_servers_moments() {
        let p = Phases {
            server_events: Vec::new(),
            server_wall_us: Vec::new(),
            server_cpu_us: Vec::new(),
            ..tls13()
        };
        assert!(decompose(&p, &[], 300.0, 25.0, &[]).is_none());
    }
}
