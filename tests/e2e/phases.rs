//! Phase timing end to end: traced connections are interleaved with untraced ones, the
//! arm's numbers come from the untraced ones alone, every traced handshake is explained
//! phase by phase on the client's time base, each arm states what recording cost it, a
//! hop is measured in every run, and `--no-phases` turns all of it off.

use std::collections::HashMap;

use e2e::{run_ok, scratch};
use shared::{ComparisonKind, Mode, Protocol, StepKind};

#[test]
fn every_traced_handshake_is_explained_on_one_time_base() {
    let dir = scratch("phases");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--samples",
            "40",
            "--groups",
            "x25519",
        ],
        &dir,
    );
    let hop = e
        .hop
        .as_ref()
        .expect("a hop is measured in every run with phases");
    assert_eq!(hop.round_trips, 2000);
    assert!(hop.one_way_us > 0.0 && hop.before_us > 0.0 && hop.after_us > 0.0);
    // The hop curve: the awake receiver at idle 0 first, then blocked receivers in order
    // of idle, each point made of at least 20 flights.
    assert!(hop.curve.len() >= 3, "{:?}", hop.curve);
    assert_eq!(hop.curve[0].idle_us, 0.0);
    assert!(
        hop.curve.windows(2).all(|w| w[0].idle_us < w[1].idle_us),
        "{:?}",
        hop.curve
    );
    assert!(hop
        .curve
        .iter()
        .all(|p| p.samples >= 20 && p.one_way_us > 0.0));
    assert!(!hop.curve_method.is_empty());
    let by_id: HashMap<&str, &shared::Arm> = e.arms.iter().map(|a| (a.id.as_str(), a)).collect();
    assert!(
        !by_id.keys().any(|id| id.ends_with("-untraced")),
        "no control arm for tracing: each arm measures its own cost"
    );
    let mut decomposed = 0;
    // The control arm placed the other way (`…-cpu-same`) traces too, but gets no model:
    // the hop was measured under the run's placement.
    for a in e
        .arms
        .iter()
        .filter(|a| a.protocol != Protocol::Tcp && a.control_of.is_none())
    {
        let p = a
            .phases
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no phases", a.id));
        assert_eq!(a.phase_recording, Some(true), "{}", a.id);
        // --samples counts the untraced connections; one traced after every 4th (the
        // default) of the arm: 40 samples over 5 rounds of 8 → 10 traced, 2 per round.
        assert_eq!(a.succeeded, 40, "{}", a.id);
        let t = a.tracing.as_ref().expect("a traced arm says how it traced");
        assert_eq!(t.untraced_per_traced, 4);
        assert_eq!(
            (t.attempted, t.succeeded, t.failed),
            (10, 10, 0),
            "{}",
            a.id
        );
        assert_eq!(t.samples_per_round, vec![2; 5], "{}", a.id);
        assert_eq!(t.samples_us.len(), 10);
        // The cost is the difference of the two medians, written out.
        let med = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[(v.len() as f64 * 0.5).ceil() as usize - 1]
        };
        let cost = med(&t.samples_us) - med(&a.samples_us);
        assert!(
            (t.cost_us.unwrap() - cost).abs() <= 0.051,
            "{}: cost {:?} vs {cost}",
            a.id,
            t.cost_us
        );
        assert_eq!(p.client_wall_us.len() as u64, t.succeeded, "{}", a.id);
        assert_eq!(p.server_wall_us.len() as u64, t.succeeded, "{}", a.id);
        assert_eq!(
            p.irregular, 0,
            "{}: every connection followed its sequence",
            a.id
        );
        let (ce, se) = (&p.client_events, &p.server_events);
        assert_eq!(
            (ce[0].as_str(), ce.last().unwrap().as_str()),
            ("start", "done")
        );
        assert_eq!(
            (se[0].as_str(), se.last().unwrap().as_str()),
            ("accepted", "done")
        );
        let done = ce.len() - 1;
        let connected = ce.iter().position(|e| e == "connected").unwrap();
        for (j, (row, server)) in p.client_wall_us.iter().zip(&p.server_wall_us).enumerate() {
            // The window is read right after `done` is stamped, and starts at `start`.
            assert!(
                row[done] <= t.samples_us[j],
                "{} #{j}: done after the window",
                a.id
            );
            // The server accepts after the client's timer started and sees the
            // ClientHello only after the client built it.
            let c1_ready = row[ce.iter().position(|e| e == "c1_ready").unwrap()];
            let c1_read = server[se.iter().position(|e| e == "c1_read").unwrap()];
            assert!(server[0] > 0.0 && c1_read >= c1_ready, "{} #{j}", a.id);
            assert!(row[connected] > 0.0);
        }
        let d = p
            .decomposition
            .as_ref()
            .expect("loopback arms are decomposed");
        // Flights the client waits for, written out per protocol and mode.
        let hops = match (a.protocol, a.mode) {
            (Protocol::Tls12, Mode::Full) => 4,
            _ => 2,
        };
        assert_eq!(d.hops, hops, "{}", a.id);
        assert_eq!(
            d.path.iter().filter(|s| s.kind == StepKind::Wire).count() as u64,
            hops
        );
        assert_eq!(d.path[0].kind, StepKind::Connect);
        assert_eq!(
            d.path.last().unwrap().kind,
            StepKind::Client,
            "the client ends"
        );
        // Each flight's hop is the run's hop curve at the flight's idle time: linear
        // between points, the end points' values beyond them (read here independently).
        let curve: Vec<(f64, f64)> = hop
            .curve
            .iter()
            .map(|p| (p.idle_us, p.one_way_us))
            .collect();
        let read_off = |x: f64| -> f64 {
            let (first, last) = (curve[0], curve[curve.len() - 1]);
            if x <= first.0 {
                return first.1;
            }
            if x >= last.0 {
                return last.1;
            }
            let k = curve.iter().position(|p| p.0 >= x).unwrap();
            let ((x0, y0), (x1, y1)) = (curve[k - 1], curve[k]);
            y0 + (x - x0) / (x1 - x0) * (y1 - y0)
        };
        let mut waiting = 0.0;
        for s in d.path.iter().filter(|s| s.kind == StepKind::Wire) {
            let idle = s
                .idle_us
                .expect("a flight says how long its receiver had waited");
            let hop = s.modelled_us.expect("a flight has its modelled hop");
            assert!(idle >= 0.0, "{}", a.id);
            assert!(
                (hop - read_off(idle)).abs() <= 0.051,
                "{}: {hop} at {idle}",
                a.id
            );
            waiting += hop;
        }
        assert!(
            (d.waiting_us - waiting).abs() <= 0.051 * hops as f64,
            "{}",
            a.id
        );
        assert!(
            (d.hop_us - d.waiting_us / hops as f64).abs() <= 0.051,
            "{}",
            a.id
        );
        assert!(d
            .path
            .iter()
            .filter(|s| s.kind != StepKind::Wire)
            .all(|s| s.modelled_us.is_none() && s.idle_us.is_none()));
        // The model explains the traced connections it is made of.
        assert_eq!(d.measured_p50_us, t.latency_us.unwrap().p50);
        // The floor inside each side's work is the arm's own floor parts.
        let floor = |side| {
            a.crypto_floor_parts
                .iter()
                .filter(|f| f.side == side)
                .map(|f| f.us)
                .sum::<f64>()
        };
        assert!((d.client_floor_us - floor(shared::Side::Client)).abs() < 0.06);
        assert!((d.server_floor_us - floor(shared::Side::Server)).abs() < 0.06);
        if a.protocol == Protocol::Tls12 && a.mode == Mode::Resumed {
            assert_eq!((d.client_floor_us, d.server_floor_us), (0.0, 0.0));
        }
        decomposed += 1;
    }
    // 3 modes × 2 protocols × 2 certs.
    assert_eq!(decomposed, 12);
    assert!(
        e.comparisons
            .iter()
            .all(|c| c.kind != ComparisonKind::PhaseRecordingCost),
        "no phase_recording_cost comparison: the cost is per arm"
    );
}

#[test]
fn no_phases_records_none_and_says_so() {
    let dir = scratch("no-phases");
    let e = run_ok(
        &[
            "run",
            "--no-peers",
            "--quick",
            "--samples",
            "10",
            "--no-phases",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
        ],
        &dir,
    );
    assert!(e.hop.is_none());
    assert!(e
        .arms
        .iter()
        .all(|a| a.phases.is_none() && a.tracing.is_none()));
    for a in e.arms.iter().filter(|a| a.protocol != Protocol::Tcp) {
        assert_eq!(a.phase_recording, Some(false), "{}", a.id);
    }
    assert!(e.run.settings.extra["phase_recording"].starts_with("off"));
}
