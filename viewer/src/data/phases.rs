//! Where each arm's time goes: the waterfall rows and the table, from the evidence's
//! phase decomposition (plain data; `charts::waterfall` draws it).

use shared::{Decomposition, Evidence, StepKind};

use super::filter::ArmFilter;

/// One decomposed arm.
#[derive(Debug, Clone, PartialEq)]
pub struct Waterfall {
    pub arm: String,
    /// The critical path in order: (what, label, median µs).
    pub path: Vec<(StepKind, String, f64)>,
    /// The model's parts in order, with the public-key floor split out of each side's
    /// work: connect, client floor, client rest, server floor, server rest, hops × hop.
    pub model: Vec<(Part, f64)>,
    pub measured_p50: f64,
    pub predicted: f64,
    pub ratio: f64,
    pub hops: u64,
    pub hop_us: f64,
    pub waiting_measured: f64,
    /// Set when the prediction misses by more than the tolerance.
    pub miss: Option<String>,
}

/// A part of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Connect,
    ClientFloor,
    ClientRest,
    ServerFloor,
    ServerRest,
    Waiting,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::Connect => "connect",
            Part::ClientFloor => "client public-key floor",
            Part::ClientRest => "client other work",
            Part::ServerFloor => "server public-key floor",
            Part::ServerRest => "server other work",
            Part::Waiting => "hops (modelled)",
        }
    }
}

fn model(d: &Decomposition) -> Vec<(Part, f64)> {
    // The floor is at most the work it is part of (a busy thread cannot do less).
    let split = |work: f64, floor: f64| (floor.min(work), (work - floor).max(0.0));
    let (cf, cr) = split(d.client_cpu_us, d.client_floor_us);
    let (sf, sr) = split(d.server_cpu_us, d.server_floor_us);
    vec![
        (Part::Connect, d.tcp_connect_us),
        (Part::ClientFloor, cf),
        (Part::ClientRest, cr),
        (Part::ServerFloor, sf),
        (Part::ServerRest, sr),
        (Part::Waiting, d.waiting_us),
    ]
}

/// Every arm shown by `filter` whose evidence has a decomposition, in file order.
pub fn waterfalls(ev: &Evidence, filter: &ArmFilter) -> Vec<Waterfall> {
    ev.arms
        .iter()
        .filter(|a| filter.matches(a) && a.error.is_none())
        .filter_map(|a| {
            let d = a.phases.as_ref()?.decomposition.as_ref()?;
            Some(Waterfall {
                arm: a.id.clone(),
                path: d
                    .path
                    .iter()
                    .map(|s| (s.kind, s.label.clone(), s.p50_us))
                    .collect(),
                model: model(d),
                measured_p50: d.measured_p50_us,
                predicted: d.predicted_us,
                ratio: d.prediction_ratio,
                hops: d.hops,
                hop_us: d.hop_us,
                waiting_measured: d.waiting_measured_us,
                miss: d.miss.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use shared::{sample, Decomposition, PathStep};

    use super::*;

    fn decomposed() -> Evidence {
        let mut ev = sample::evidence();
        let d = Decomposition {
            path: vec![
                PathStep {
                    kind: StepKind::Connect,
                    label: "client start → connected".into(),
                    p50_us: 20.0,
                    idle_us: None,
                    modelled_us: None,
                },
                PathStep {
                    kind: StepKind::Client,
                    label: "client connected → c1_ready".into(),
                    p50_us: 40.0,
                    idle_us: None,
                    modelled_us: None,
                },
                PathStep {
                    kind: StepKind::Wire,
                    label: "c1_ready → c1_read".into(),
                    p50_us: 30.0,
                    idle_us: None,
                    modelled_us: None,
                },
                PathStep {
                    kind: StepKind::Server,
                    label: "server c1_read → s1_ready".into(),
                    p50_us: 200.0,
                    idle_us: None,
                    modelled_us: None,
                },
                PathStep {
                    kind: StepKind::Wire,
                    label: "s1_ready → s1_read".into(),
                    p50_us: 30.0,
                    idle_us: None,
                    modelled_us: None,
                },
                PathStep {
                    kind: StepKind::Client,
                    label: "client s1_read → done".into(),
                    p50_us: 80.0,
                    idle_us: None,
                    modelled_us: None,
                },
            ],
            tcp_connect_us: 20.0,
            client_cpu_us: 120.0,
            client_floor_us: 70.0,
            client_thread_cpu_us: 118.0,
            server_cpu_us: 200.0,
            // A floor above the work it is part of is drawn as the whole work.
            server_floor_us: 250.0,
            server_thread_cpu_us: 199.0,
            hops: 2,
            hop_us: 25.0,
            waiting_us: 50.0,
            waiting_measured_us: 60.0,
            predicted_us: 390.0,
            measured_p50_us: 400.0,
            prediction_ratio: 0.975,
            miss: None,
        };
        let arm = &mut ev.arms[1];
        arm.phases = Some(crate::data::testdata::phases_of(d));
        ev
    }

    #[test]
    fn a_decomposed_arm_gives_its_path_and_the_model_split_by_floor() {
        let ev = decomposed();
        let w = waterfalls(&ev, &ArmFilter::default());
        assert_eq!(w.len(), 1, "only the arm with a decomposition");
        let w = &w[0];
        assert_eq!(w.arm, ev.arms[1].id);
        assert_eq!(w.path.len(), 6);
        assert_eq!(
            w.path[3],
            (StepKind::Server, "server c1_read → s1_ready".into(), 200.0)
        );
        assert_eq!(
            w.model,
            [
                (Part::Connect, 20.0),
                (Part::ClientFloor, 70.0),
                (Part::ClientRest, 50.0),
                (Part::ServerFloor, 200.0),
                (Part::ServerRest, 0.0),
                (Part::Waiting, 50.0),
            ]
        );
        assert_eq!((w.measured_p50, w.predicted, w.hops), (400.0, 390.0, 2));
    }

    #[test]
    fn filtered_out_and_errored_arms_have_no_waterfall() {
        let mut ev = decomposed();
        let mut f = ArmFilter::default();
        f.toggle(crate::data::filter::Facet::Protocol(ev.arms[1].protocol));
        assert!(waterfalls(&ev, &f).is_empty());
        ev.arms[1].error = Some("did not resume".into());
        assert!(waterfalls(&ev, &ArmFilter::default()).is_empty());
    }
}
