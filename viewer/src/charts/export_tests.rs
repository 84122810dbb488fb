//! An export is its chart under a header: everything the chart draws — bars, labels,
//! notes, ticks — moves down by the header's height together, so a label stays on its
//! bar. Drawn once on its own and once under a header, each chart's texts and rectangles
//! must be the same, shifted by exactly the header.

use super::*;
use crate::charts::recorder::{Recorded, Recorder};
use crate::charts::waterfall::tests::row as waterfall_row;
use crate::charts::Scale;
use crate::data::filter::ArmFilter;
use crate::data::flights::{FlightChart, FlightPoint};
use crate::data::headline::{headline_bars, headline_speedups};
use crate::data::loss::LossView;
use crate::data::stacks::{stack_latencies, stack_speedups};
use crate::data::testdata::{line, with_peers, with_tls12};

const W: u32 = 900;

/// One chart of each kind the page can export, from the test evidence.
fn specs() -> Vec<(&'static str, ChartSpec)> {
    let all = ArmFilter::default();
    let peers = with_peers();
    let loss = vec![LossPanel {
        rtt_ms: 5.6,
        lines: vec![
            line("x p50", &[(0.0, 9_000.0), (10.0, 10_000.0)], false),
            line("x p95", &[(0.0, 9_500.0), (10.0, 1_050_000.0)], false),
        ],
    }];
    let flights = FlightChart {
        points: vec![
            FlightPoint {
                label: "tls13-full-rsa2048".into(),
                bytes: 4_000.0,
                rtts: 3.1,
            },
            FlightPoint {
                label: "tls13-full-ecdsa-p256".into(),
                bytes: 900.0,
                rtts: 2.9,
            },
        ],
        window: Some((10, 1448)),
        ttfb: true,
    };
    let specs = vec![
        (
            "percentiles",
            ChartSpec::Percentiles(headline_bars(&with_tls12()), Scale::Linear, None),
        ),
        (
            "speedups",
            ChartSpec::Speedups(headline_speedups(&with_tls12())),
        ),
        (
            "stacks",
            ChartSpec::StackLatency(stack_latencies(&peers, &all), Scale::Linear),
        ),
        (
            "stack speedups",
            ChartSpec::StackSpeedups(stack_speedups(&peers, &all)),
        ),
        (
            "phases",
            ChartSpec::Waterfall(vec![waterfall_row(false), waterfall_row(true)]),
        ),
        ("flights", ChartSpec::Flights(flights)),
        ("loss", ChartSpec::Loss(loss, LossView::Percentiles)),
        (
            "ttfb",
            ChartSpec::Ttfb(vec![line("a", &[(1.0, 3_000.0), (10.0, 21_000.0)], true)]),
        ),
    ];
    for (name, spec) in &specs {
        assert!(spec.items() > 0, "{name}: the test data draws nothing");
    }
    specs
}

fn drawn(spec: &ChartSpec, head: bool) -> Recorded {
    let h = spec.height();
    let lines = ["TITLE".to_string(), "RUN".to_string(), "ARMS".to_string()];
    if head {
        Recorder::draw(W, export_height(spec), |a| {
            paint_with_head(a, spec, &lines, 1.0)
        })
    } else {
        Recorder::draw(W, h, |a| paint(a, spec, 1.0))
    }
}

#[test]
fn every_exported_chart_moves_its_labels_with_its_bars() {
    for (name, spec) in specs() {
        let (alone, under) = (drawn(&spec, false), drawn(&spec, true));
        let head = HEAD_PX as i32;
        let moved: Vec<(String, (i32, i32))> = alone
            .texts
            .iter()
            .map(|(t, (x, y))| (t.clone(), (*x, y + head)))
            .collect();
        let chart_texts: Vec<(String, (i32, i32))> = under
            .texts
            .iter()
            .filter(|(t, _)| !["TITLE", "RUN", "ARMS"].contains(&t.as_str()))
            .cloned()
            .collect();
        assert!(!moved.is_empty(), "{name}: no text drawn");
        assert_eq!(chart_texts, moved, "{name}: texts");
        let corners = |r: &Recorded, dy: i32| -> Vec<(i32, i32)> {
            r.rects
                .iter()
                .filter(|(c, fill, _)| !(*fill && c.rgb == (255, 255, 255)))
                .map(|(_, _, (x, y))| (*x, y + dy))
                .collect()
        };
        assert_eq!(
            corners(&under, 0),
            corners(&alone, head),
            "{name}: rectangles"
        );
        for t in ["TITLE", "RUN", "ARMS"] {
            assert!(under.has_text(t), "{name}: the header's {t}");
        }
    }
}

#[test]
fn a_narrow_exports_header_lines_are_cut_to_its_width() {
    let spec = ChartSpec::Ttfb(vec![line("a", &[(1.0, 3_000.0), (10.0, 21_000.0)], true)]);
    let arms = format!("arms: {}", ["tls13-full-ecdsa-p256-x25519"; 5].join(", "));
    let lines = [
        "Handshake Lab — TTFB".to_string(),
        "run r".to_string(),
        arms.clone(),
    ];
    // 420 px wide: 11 px characters of at most 6.6 px each, 6 px margins: 61 fit.
    assert_eq!(head_chars(420.0, 11.0), 61);
    let rec = Recorder::draw(420, export_height(&spec), |a| {
        paint_with_head(a, &spec, &lines, 1.0)
    });
    let drawn = rec
        .texts
        .iter()
        .find(|(t, _)| t.starts_with("arms: "))
        .expect("the arms line");
    assert_eq!(drawn.0.chars().count(), 61, "{}", drawn.0);
    assert!(drawn.0.ends_with('…') && arms.starts_with(drawn.0.trim_end_matches('…')));
    // Wide enough, a line is drawn whole.
    let wide = Recorder::draw(1400, export_height(&spec), |a| {
        paint_with_head(a, &spec, &lines, 1.0)
    });
    assert!(wide.has_text(&arms));
}
