use super::*;
use crate::data::findings::{findings, Topic};
use shared::{sample, Arm, Mode, Protocol};

/// An arm of a loss grid: `id`'s suffixes as the collector writes them (the view reads
/// the loss there) and its RTT; 20 samples of which the last `slow` take 1.05 s and the
/// rest `fast` µs.
fn cell(id: &str, rtt: f64, fast: f64, slow: usize) -> Arm {
    let n = 20;
    let mut samples = vec![fast; n - slow];
    samples.extend(vec![1_050_000.0; slow]);
    let mut a = sample::arm(id, Protocol::Tls13, Mode::Full, None, samples);
    a.rtt_ms = Some(rtt);
    a.p50_ci95_us = None;
    a
}

const X: &str = "tls13-full-ecdsa-p256-x25519";
const P: &str = "tls13-full-ecdsa-p256-secp256r1";

/// Two groups at 5.6 and 31.2 ms, 0% and 10% loss, given out of order (the 10% cells
/// first) so the points must be sorted by loss.
fn grid() -> Evidence {
    let mut ev = sample::evidence();
    ev.arms = vec![
        cell(&format!("{X}-loss10pct-rtt5.6ms"), 5.6, 10_000.0, 2),
        cell(&format!("{X}-loss0pct-rtt5.6ms"), 5.6, 9_000.0, 0),
        cell(&format!("{P}-loss10pct-rtt5.6ms"), 5.6, 11_000.0, 0),
        cell(&format!("{P}-loss0pct-rtt5.6ms"), 5.6, 9_500.0, 0),
        cell(&format!("{X}-loss10pct-rtt31.2ms"), 31.2, 70_000.0, 1),
        cell(&format!("{X}-loss0pct-rtt31.2ms"), 31.2, 65_000.0, 0),
    ];
    ev.comparisons.clear();
    ev
}

fn xy(l: &Line) -> Vec<(f64, f64)> {
    l.points.iter().map(|p| (p.x, p.y)).collect()
}

#[test]
fn the_loss_comes_off_the_id_as_the_collector_writes_it() {
    assert_eq!(loss_suffix(&format!("{X}-loss3pct")), Some((X, 3.0)));
    assert_eq!(loss_suffix(&format!("{X}-loss0.5pct")), Some((X, 0.5)));
    assert_eq!(loss_suffix(&format!("{X}-loss0.3pct")), Some((X, 0.3)));
    assert_eq!(
        loss_suffix(&format!("{X}-loss12.125pct")),
        Some((X, 12.125))
    );
    assert_eq!(
        loss_suffix(without_rtt_suffix(&format!("{X}-loss20pct-rtt195.7ms"))),
        Some((X, 20.0))
    );
    // Not a loss suffix.
    for id in [
        "tcp-connect",
        "a-losspct",
        "a-lossxpct",
        "a-loss.pct",
        "a-loss1.2.3pct",
        "a-loss-3pct",
    ] {
        assert_eq!(loss_suffix(id), None, "{id}");
    }
}

#[test]
fn curves_are_named_by_what_tells_them_apart() {
    assert_eq!(short_names(&[X, P]), ["x25519", "secp256r1"]);
    assert_eq!(short_names(&[X]), [X]);
    // A name that is all of the others' head keeps its last segment.
    assert_eq!(short_names(&["a-b", "a-b-c"]), ["b", "b-c"]);
    assert_eq!(short_names(&["tcp-connect", X]), ["tcp-connect", X]);
    assert!(short_names(&[]).is_empty());
}

#[test]
fn one_panel_per_rtt_with_p50_and_p95_per_curve_against_loss_in_percent() {
    let panels = loss_panels(&grid(), &ArmFilter::default());
    let rtts: Vec<f64> = panels.iter().map(|p| p.rtt_ms).collect();
    assert_eq!(rtts, [5.6, 31.2]);
    let labels: Vec<&str> = panels[0].lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        ["x25519 p50", "x25519 p95", "secp256r1 p50", "secp256r1 p95"]
    );
    // 20 samples, nearest rank: p50 the 10th, p95 the 19th; two slow ones make p95 1.05 s.
    assert_eq!(xy(&panels[0].lines[0]), [(0.0, 9_000.0), (10.0, 10_000.0)]);
    assert_eq!(
        xy(&panels[0].lines[1]),
        [(0.0, 9_000.0), (10.0, 1_050_000.0)]
    );
    assert_eq!(xy(&panels[0].lines[3]), [(0.0, 9_500.0), (10.0, 11_000.0)]);
    // One slow connection of 20 stays beyond p95. A curve the RTT lacks keeps its place
    // (and colour), empty.
    let labels: Vec<&str> = panels[1].lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        ["x25519 p50", "x25519 p95", "secp256r1 p50", "secp256r1 p95"]
    );
    assert_eq!(xy(&panels[1].lines[1]), [(0.0, 65_000.0), (10.0, 70_000.0)]);
    assert!(panels[1].lines[2].points.is_empty() && panels[1].lines[3].points.is_empty());
}

#[test]
fn no_view_without_loss_and_no_point_from_an_arm_without_a_result() {
    let mut ev = grid();
    for a in &mut ev.arms {
        a.id = a.id.replace("loss10pct", "loss0pct");
    }
    assert!(loss_panels(&ev, &ArmFilter::default()).is_empty());
    let mut ev = grid();
    ev.arms[0].error = Some("did not resume".into());
    // A loss no probability can be (a hostile file) is left out, not drawn.
    ev.arms[2].id = format!("{P}-loss700pct-rtt5.6ms");
    let panels = loss_panels(&ev, &ArmFilter::default());
    assert_eq!(xy(&panels[0].lines[1]), [(0.0, 9_000.0)]);
    assert_eq!(xy(&panels[0].lines[3]), [(0.0, 9_500.0)]);
}

#[test]
fn the_collectors_loss_sentences_are_findings_under_the_loss_chart() {
    let mut ev = grid();
    ev.run.settings.extra.insert(
        "loss_findings".into(),
        "a at 5.6 ms RTT: p95 9.0 ms at 0% loss, 1.05 s at 10% · b at 5.6 ms RTT: p95 9.5 ms at 0% loss, 11.0 ms at 10%".into(),
    );
    let loss: Vec<String> = findings(&ev)
        .into_iter()
        .filter(|f| f.topic == Topic::Loss)
        .map(|f| f.text)
        .collect();
    assert_eq!(
        loss,
        [
            "a at 5.6 ms RTT: p95 9.0 ms at 0% loss, 1.05 s at 10%.",
            "b at 5.6 ms RTT: p95 9.5 ms at 0% loss, 11.0 ms at 10%."
        ]
    );
    assert_eq!(Topic::Loss.target(true, 4).0, "#chart-loss-4");
}

#[test]
fn the_populations_view_draws_each_populations_median_where_the_collector_split_the_cell() {
    let mut ev = grid();
    let all = ArmFilter::default();
    assert!(
        panels(&ev, &all, LossView::Populations).is_empty(),
        "no cell split: no view"
    );
    // x25519 at 5.6 ms: the 0% cell lost nothing (20 × 9 ms); at 10%, the 18 fast
    // connections lost nothing and the 2 that took 1.05 s lost a packet or more.
    let clean = ev.arms[1].samples_us.clone();
    ev.arms[1].populations = shared::loss::populations(&clean, &[0; 20]);
    let mut dropped = [0u32; 20];
    (dropped[18], dropped[19]) = (1, 3);
    let mixed = ev.arms[0].samples_us.clone();
    ev.arms[0].populations = shared::loss::populations(&mixed, &dropped);
    let p = panels(&ev, &all, LossView::Populations);
    let labels: Vec<&str> = p[0].lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "x25519 lost nothing, p50",
            "x25519 lost something, p50",
            "secp256r1 lost nothing, p50",
            "secp256r1 lost something, p50"
        ]
    );
    assert_eq!(xy(&p[0].lines[0]), [(0.0, 9_000.0), (10.0, 10_000.0)]);
    assert_eq!(xy(&p[0].lines[1]), [(10.0, 1_050_000.0)]);
    // secp256r1's cells were not split: no points, not its cells' p50s.
    assert!(p[0].lines[2].points.is_empty() && p[0].lines[3].points.is_empty());
    // The percentiles view is unchanged by the split.
    assert_eq!(
        panels(&ev, &all, LossView::Percentiles),
        loss_panels(&grid(), &all)
    );
}
