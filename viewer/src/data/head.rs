//! A run's head: the part of its summary the headline reads (the cards and the two charts
//! at the top of the page), so a site can serve it as a file of a few KB
//! (`results/heads/<file>`, written by `cargo xtask site`) and the page draws the headline
//! before the run's whole summary (hundreds of KB) has arrived and been read.
//!
//! The head is the summary with only the arms the headline reads, without the records no
//! card or headline chart reads (phases, tracing, placement, rounds), and the comparisons
//! between them; everything else of the run (environment, settings) is kept, so the head
//! is valid evidence of its own and the headline drawn from it is the headline of
//! the summary (a test holds every card, bar and speedup of the two equal). Of the
//! settings, only the instruction-counting phase's number of arms changes: it names
//! the counted arms the head holds.

use shared::{ComparisonKind, Evidence};

use super::headline::{headline_arms, hybrid_arms};

/// The head of `ev`: its summary, restricted to the headline's arms, the baselines of
/// their TCP and resumption comparisons, and the post-quantum card's arms.
pub fn head_of(ev: &Evidence) -> Evidence {
    let mut keep: Vec<&str> = headline_arms(ev).iter().map(|a| a.id.as_str()).collect();
    keep.extend(hybrid_arms(ev).iter().map(|a| a.id.as_str()));
    let read = |c: &&shared::Comparison| {
        matches!(
            c.kind,
            ComparisonKind::TlsOverTcp | ComparisonKind::ResumeSpeedup
        )
    };
    let baselines: Vec<&str> = ev
        .comparisons
        .iter()
        .filter(read)
        .filter(|c| keep.contains(&c.candidate.as_str()))
        .map(|c| c.baseline.as_str())
        .collect();
    keep.extend(baselines);
    let keep: Vec<String> = keep.into_iter().map(str::to_string).collect();
    let mut head = ev.summary();
    head.arms.retain(|a| keep.contains(&a.id));
    // What no card or headline chart reads, and most of an arm's bytes: its phases,
    // tracing and placement records, its rounds and the floor's parts.
    // (The page's own build reads none of the last three at all.)
    for a in &mut head.arms {
        a.phases = None;
        a.handshake_kinds = None;
        a.crypto_floor_parts = Vec::new();
        a.samples_per_round = Vec::new();
        a.round_medians_us = Vec::new();
        #[cfg(not(target_arch = "wasm32"))]
        {
            a.tracing = None;
            a.placement = None;
            a.round_steal_percent = Vec::new();
        }
    }
    head.comparisons
        .retain(|c| keep.contains(&c.baseline) && keep.contains(&c.candidate));
    // The counting phase names as many arms as carry a handshake count: those the head
    // kept (else a run whose counted arms are not all on the headline has no valid head).
    if let Some(shared::InstructionCounting::On(p)) = &mut head.run.settings.instructions {
        p.arms = head
            .arms
            .iter()
            .filter_map(|a| a.instructions.as_ref())
            .filter(|i| i.scope == shared::CountScope::Handshake)
            .count() as u64;
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::headline::{headline_bars, headline_cards, headline_speedups};
    use crate::data::testdata::{sample, with_peers, with_tls12};

    /// A real `collector run --quick` file (ECDSA, X25519 and the hybrid, an untraced
    /// control): the fuzzer's seed.
    fn quick_run() -> Evidence {
        Evidence::from_json(include_str!(
            "../../../fuzz/corpus/seeds/quick-ecdsa-x25519-mlkem.json"
        ))
        .expect("the seed is valid evidence")
    }

    fn ids(ev: &Evidence) -> Vec<&str> {
        ev.arms.iter().map(|a| a.id.as_str()).collect()
    }

    /// Peers, with the TLS-over-TCP comparison made against a TCP connect that is not a
    /// headline arm (Python's): the card reads it all the same.
    fn against_another_connect() -> Evidence {
        let mut ev = with_peers();
        ev.comparisons.push(shared::Comparison {
            kind: ComparisonKind::TlsOverTcp,
            baseline: "python-tcp-connect".into(),
            candidate: ev.arms[1].id.clone(),
            p50_ratio: 4.5,
            ci95: Some([4.0, 5.0]),
            ci_unavailable: None,
            basis: None,
        });
        ev
    }

    #[test]
    fn the_headline_of_the_head_is_the_headline_of_the_run() {
        let runs = [
            sample(),
            with_tls12(),
            with_peers(),
            against_another_connect(),
            quick_run(),
        ];
        for ev in runs {
            let head = head_of(&ev);
            // Valid evidence of its own, as the page reads it.
            let again = Evidence::from_json(&head.to_json()).expect("the head validates");
            assert!(again.summary);
            assert_eq!(headline_cards(&again), headline_cards(&ev));
            assert_eq!(headline_bars(&again), headline_bars(&ev));
            assert_eq!(headline_speedups(&again), headline_speedups(&ev));
            assert!(!headline_cards(&ev).is_empty(), "{:?}", ids(&ev));
        }
    }

    /// `ev` with instructions counted for `arms` (10 handshakes each, both ends), by a
    /// counting phase that names them.
    fn counted(mut ev: Evidence, arms: &[&str]) -> Evidence {
        use shared::{
            BuildProfile, CountOutcome, CountScope, Counted, CountingPhase, EndCount,
            InstructionCounting, Instructions, KindCounts, Mode,
        };
        let tool = "valgrind-3.19.0 --tool=callgrind";
        for a in ev.arms.iter_mut().filter(|a| arms.contains(&a.id.as_str())) {
            let kinds = match a.mode {
                Mode::Resumed => KindCounts {
                    resumed: 10,
                    ..KindCounts::default()
                },
                _ => KindCounts {
                    full: 10,
                    ..KindCounts::default()
                },
            };
            let end = EndCount {
                total: 1_000_000,
                per_handshake: 100_000.0,
                kinds: Some(kinds),
            };
            a.instructions = Some(Instructions {
                tool: tool.into(),
                build_profile: BuildProfile::Release,
                scope: CountScope::Handshake,
                window: "client: ClientConnection::new to the first byte read".into(),
                warmup_handshakes: 3,
                outcome: CountOutcome::Counted(Counted {
                    handshakes: 10,
                    client: Some(end),
                    server: end,
                }),
            });
        }
        ev.run.settings.instructions = Some(InstructionCounting::On(CountingPhase {
            tool: tool.into(),
            build_profile: BuildProfile::Release,
            handshakes_per_arm: 10,
            warmup_per_arm: 3,
            parallel_groups: 1,
            arms: arms.len() as u64,
            wall_s: 12.5,
        }));
        Evidence::from_json(&ev.to_json()).expect("the counted run validates")
    }

    /// A run whose counted arms are not all on the headline (a default run counts the
    /// hybrid's resumed arms, which the head leaves out) still has a valid head, which
    /// names only the counted arms it holds: before, such a head failed validation and
    /// the site was built without the landing run's cards written in.
    #[test]
    fn a_head_of_a_run_with_instruction_counts_validates() {
        let ev = counted(
            quick_run(),
            &[
                "tls13-full-ecdsa-p256-x25519",
                "tls13-resumed-ticket-ecdsa-p256-x25519mlkem768",
            ],
        );
        let head = Evidence::from_json(&head_of(&ev).to_json()).expect("the head validates");
        let kept: Vec<&str> = head
            .arms
            .iter()
            .filter(|a| a.instructions.is_some())
            .map(|a| a.id.as_str())
            .collect();
        assert_eq!(kept, ["tls13-full-ecdsa-p256-x25519"]);
        let phase = head
            .run
            .settings
            .instructions
            .as_ref()
            .and_then(|i| i.phase());
        assert_eq!(phase.map(|p| p.arms), Some(1));
    }

    #[test]
    fn the_head_keeps_only_what_the_headline_reads() {
        let ev = quick_run();
        let head = head_of(&ev);
        // Every arm but the untraced control (the headline reads the traced arms and the
        // hybrid's full handshake; the hybrid's resumed arms are not on the headline).
        assert_eq!(
            ids(&head),
            [
                "tcp-connect",
                "tls13-full-ecdsa-p256-x25519",
                "tls13-resumed-stateful-ecdsa-p256-x25519",
                "tls13-resumed-ticket-ecdsa-p256-x25519",
                "tls12-full-ecdsa-p256-x25519",
                "tls12-resumed-stateful-ecdsa-p256-x25519",
                "tls12-resumed-ticket-ecdsa-p256-x25519",
                "tls13-full-ecdsa-p256-x25519mlkem768",
            ]
        );
        // The comparisons between kept arms, nothing else: the control's is gone.
        assert_eq!(head.comparisons.len(), 7, "{:?}", head.comparisons);
        assert!(head
            .comparisons
            .iter()
            .all(|c| c.kind != ComparisonKind::PhaseRecordingCost));
        // Peers are not headline arms.
        let peers = head_of(&with_peers());
        assert!(
            ids(&peers)
                .iter()
                .all(|id| !id.contains("python") && !id.contains("s_")),
            "{:?}",
            ids(&peers)
        );
    }
}
