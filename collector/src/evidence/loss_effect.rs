//! The effect of loss on each lossy cell of a grid, against its control: the cell of the
//! same arm and RTT that loses nothing, interleaved in the same rounds. Two paired ratios
//! (cluster bootstrap over the rounds both hold): the whole cell's median over the
//! control's, and the median of its connections that lost nothing over the control's —
//! near 1 when loss reaches only the connections it drops from.

use shared::cluster;
use shared::loss::{rounds_where, LossEffect, PairedRatio};
use shared::Arm;

use crate::human::{pct, us};
use crate::measure::rtt;
use crate::netem::LinkSpec;

/// Writes `loss_effect` into every lossy arm with a control in `arms`.
pub fn apply(arms: &mut [Arm], resamples: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x1055);
    let effects: Vec<(usize, LossEffect)> = arms
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let control = arms.iter().find(|c| is_control_of(c, a))?;
            Some((i, effect(a, control, resamples, &mut rng)?))
        })
        .collect();
    for (i, e) in effects {
        arms[i].loss_effect = Some(e);
    }
}

/// The arm's id without its link suffix, and its link; None off a link.
fn base(a: &Arm) -> Option<(&str, LinkSpec)> {
    let link = LinkSpec::parse(&a.link.as_ref()?.asked).ok()?;
    let id = a.id.strip_suffix(&rtt::suffix(&link, true))?;
    Some((id, link))
}

/// `c` is `a`'s control: the same arm at the same RTT on the same link but for loss,
/// losing nothing, measured in the same rounds; `a` loses something.
pub fn is_control_of(c: &Arm, a: &Arm) -> bool {
    let (Some((a_id, a_link)), Some((c_id, c_link))) = (base(a), base(c)) else {
        return false;
    };
    a_link.loss > 0.0
        && c_link.loss == 0.0
        && (
            c_link.rtt,
            c_link.jitter,
            c_link.rate_bps,
            c_link.limit,
            c_link.mtu,
        ) == (
            a_link.rtt,
            a_link.jitter,
            a_link.rate_bps,
            a_link.limit,
            a_link.mtu,
        )
        && a_id == c_id
        && a.round_group.is_some()
        && a.round_group == c.round_group
        && a.error.is_none()
        && c.error.is_none()
}

fn effect(a: &Arm, control: &Arm, resamples: usize, rng: &mut fastrand::Rng) -> Option<LossEffect> {
    let (p50, control_p50) = (a.latency_us?.p50, control.latency_us?.p50);
    let control_rounds = cluster::split(&control.samples_us, &control.samples_per_round)?;
    let cell_rounds = cluster::split(&a.samples_us, &a.samples_per_round)?;
    let ratio = |n: &[&[f64]], p50: f64, rng: &mut fastrand::Rng| {
        let ci95 = cluster::ratio_ci95(n, &control_rounds, true, resamples, rng);
        PairedRatio {
            ratio: p50 / control_p50,
            ci95: ci95.map(|ci| cluster::containing(ci, p50 / control_p50)),
            ci_unavailable: ci95.is_none().then(|| {
                format!(
                    "fewer than {} rounds in which both hold samples",
                    cluster::MIN_ROUNDS
                )
            }),
        }
    };
    let cell = ratio(&cell_rounds, p50, rng);
    let nothing_dropped = (|| {
        let drops = a.link.as_ref()?.per_connection.as_ref()?;
        let clean_p50 = a.populations?.nothing_dropped.p50_us?;
        let keep: Vec<bool> = drops.totals().iter().map(|&d| d == 0).collect();
        let rounds = rounds_where(&a.samples_us, &a.samples_per_round, &keep)?;
        let refs: Vec<&[f64]> = rounds.iter().map(Vec::as_slice).collect();
        Some(ratio(&refs, clean_p50, rng))
    })();
    Some(LossEffect {
        control: control.id.clone(),
        cell,
        nothing_dropped,
    })
}

/// `at 3%: 62% (124 of 200) lost nothing, p50 18.10 ms, the others 230.40 ms; p50
/// ×1.015 [0.998, 1.026] of the control's, where nothing was lost ×1.005 [0.987, 1.019]`: the cell's populations and its paired ratios (empty parts left out).
pub fn describe(a: &Arm) -> Option<String> {
    let loss = a.link.as_ref()?.loss;
    if loss == 0.0 {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(p) = &a.populations {
        let clean = &p.nothing_dropped;
        let mut s = format!(
            "{:.0}% ({} of {}) lost nothing",
            clean.share * 100.0,
            clean.connections,
            clean.connections + p.something_dropped.connections
        );
        if let Some(p50) = clean.p50_us {
            s.push_str(&format!(", p50 {}", us(p50)));
        }
        if let Some(p50) = p.something_dropped.p50_us {
            s.push_str(&format!(", the others {}", us(p50)));
        }
        parts.push(s);
    }
    if let Some(e) = &a.loss_effect {
        let mut s = format!("p50 {} of the control's", ratio(&e.cell));
        if let Some(clean) = &e.nothing_dropped {
            s.push_str(&format!(", where nothing was lost {}", ratio(clean)));
        }
        parts.push(s);
    }
    (!parts.is_empty()).then(|| format!("at {}: {}", pct(loss), parts.join("; ")))
}

/// `×1.015 [0.998, 1.026]`, or `×1.015 (no CI: …)`.
fn ratio(r: &PairedRatio) -> String {
    match (r.ci95, &r.ci_unavailable) {
        (Some([lo, hi]), _) => format!("×{:.3} [{lo:.3}, {hi:.3}]", r.ratio),
        (None, Some(why)) => format!("×{:.3} (no CI: {why})", r.ratio),
        (None, None) => format!("×{:.3}", r.ratio),
    }
}

#[cfg(test)]
mod tests {
    use shared::link::{ConnectionDrop, ConnectionDrops, Direction, PacketKind};

    use super::*;
    use crate::measure::link_record::record;
    use crate::netem::Counters;

    /// An arm of the grid at `loss` (5 ms RTT) with `samples`, 3 in each of 6 rounds.
    fn cell_of(loss: &str, samples: Vec<f64>) -> Arm {
        let link = LinkSpec::parse(&format!("rtt=5ms,loss={loss}")).unwrap();
        let mut a = shared::sample::arm(
            &format!("tls13-full-x{}", rtt::suffix(&link, true)),
            shared::Protocol::Tls13,
            shared::Mode::Full,
            None,
            samples,
        );
        a.samples_per_round = vec![3; 6];
        a.round_group = Some(rtt::GRID_GROUP.into());
        a.link = Some(record(&link, 1, [Counters::default(); 2]));
        a
    }

    /// Round r's three samples are 1,000 + r µs.
    fn cell(loss: &str) -> Arm {
        cell_of(loss, (0..6).flat_map(|r| [1000.0 + r as f64; 3]).collect())
    }

    #[test]
    fn a_lossy_cell_is_measured_against_its_control_whole_and_where_nothing_was_dropped() {
        let control = cell("0%");
        // The lossy cell: in each round two connections that lost nothing (1,000 + r µs,
        // as the control) and one that lost its SYN and waited a second.
        let samples: Vec<f64> = (0..6)
            .flat_map(|r| [1000.0 + r as f64, 1000.0 + r as f64, 1_001_000.0])
            .collect();
        let mut lossy = cell_of("20%", samples);
        let drops = ConnectionDrops {
            connections: 18,
            dropped: (0..6)
                .map(|r| ConnectionDrop {
                    connection: r * 3 + 2,
                    direction: Direction::ClientToServer,
                    kind: PacketKind::Syn,
                    packets: 1,
                })
                .collect(),
        };
        lossy.populations = shared::loss::populations(&lossy.samples_us, &drops.totals());
        lossy.link.as_mut().unwrap().per_connection = Some(drops);
        let mut arms = vec![control.clone(), lossy];
        apply(&mut arms, 200, 7);
        assert_eq!(arms[0].loss_effect, None, "the control has no control");
        let e = arms[1]
            .loss_effect
            .as_ref()
            .expect("the lossy cell's effect");
        assert_eq!(e.control, control.id);
        // Nearest-rank p50 of 18 samples is the 9th: the control's sorted samples are
        // 1,000–1,005 three times each (9th: 1,002); the cell's twelve clean ones are
        // 1,000–1,005 twice each, then six of 1,001,000 (9th: 1,004).
        assert_eq!(e.cell.ratio, 1004.0 / 1002.0);
        // Its clean connections' median is the 6th of 12: 1,002, the control's.
        let clean = e.nothing_dropped.as_ref().unwrap();
        assert_eq!(clean.ratio, 1.0);
        let [lo, hi] = clean.ci95.unwrap();
        assert!(lo <= 1.0 && hi >= 1.0, "{lo} {hi}");
        assert_eq!(clean.ci_unavailable, None);
    }

    #[test]
    fn a_cell_is_described_by_its_populations_and_its_ratios() {
        let mut a = cell("3%");
        a.populations =
            shared::loss::populations(&[18_000.0, 19_000.0, 230_000.0, 18_500.0], &[0, 0, 2, 0]);
        a.loss_effect = Some(LossEffect {
            control: "c".into(),
            cell: PairedRatio {
                ratio: 1.015,
                ci95: Some([0.998, 1.026]),
                ci_unavailable: None,
            },
            nothing_dropped: Some(PairedRatio {
                ratio: 1.005,
                ci95: None,
                ci_unavailable: Some("fewer than 5 rounds".into()),
            }),
        });
        // Three of four lost nothing; their nearest-rank median is the 2nd of 18, 18.5,
        // 19 ms.
        assert_eq!(
            describe(&a).unwrap(),
            "at 3%: 75% (3 of 4) lost nothing, p50 18.50 ms, the others 230.00 ms; \
             p50 ×1.015 [0.998, 1.026] of the control's, where nothing was lost ×1.005 \
             (no CI: fewer than 5 rounds)"
        );
        // A rate whose per cent is not exact in binary (0.07 × 100 = 7.000000000000001)
        // reads as asked.
        let mut seven = a.clone();
        seven.link = cell("7%").link;
        assert!(describe(&seven).unwrap().starts_with("at 7%: "));
        let mut control = cell("0%");
        control.populations = shared::loss::populations(&control.samples_us.clone(), &[0; 18]);
        assert_eq!(describe(&control), None, "nothing to say of a control");
    }

    #[test]
    fn no_control_in_other_rounds_at_another_rtt_or_of_another_arm() {
        let lossy = cell("3%");
        let mut apart = cell("0%");
        apart.round_group = Some("loss0pct-rtt5ms".into());
        assert!(!is_control_of(&apart, &lossy));
        let mut other = cell("0%");
        other.id = other.id.replace("tls13-full-x", "tls13-full-y");
        assert!(!is_control_of(&other, &lossy));
        let far = LinkSpec::parse("rtt=50ms,loss=0%").unwrap();
        let mut at_50 = cell("0%");
        at_50.link = Some(record(&far, 1, [Counters::default(); 2]));
        at_50.id = format!("tls13-full-x{}", rtt::suffix(&far, true));
        assert!(!is_control_of(&at_50, &lossy));
        assert!(is_control_of(&cell("0%"), &lossy));
        assert!(
            !is_control_of(&lossy, &cell("0%")),
            "the control is the lossless one"
        );
    }
}
