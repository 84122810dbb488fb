//! The rules of instructions per handshake (`arms[].instructions`,
//! `settings.instructions`), each with an example that breaks it and the path named. The
//! sample evidence: arms[0] TCP connect, arms[1] TLS 1.3 full, arms[2] TLS 1.3 resumed by
//! ticket; here arms[1] and arms[2] counted, 10 handshakes each.

use shared::{
    sample, BuildProfile, CountOutcome, CountScope, Counted, CountingPhase, EndCount, Evidence,
    InstructionCounting, Instructions, KindCounts,
};

const TOOL: &str = "valgrind-3.19.0 --tool=callgrind";

fn end(total: u64, resumed: bool) -> EndCount {
    EndCount {
        total,
        per_handshake: total as f64 / 10.0,
        kinds: Some(if resumed {
            KindCounts {
                resumed: 10,
                ..KindCounts::default()
            }
        } else {
            KindCounts {
                full: 10,
                ..KindCounts::default()
            }
        }),
    }
}

fn counted(resumed: bool) -> Instructions {
    Instructions {
        tool: TOOL.into(),
        build_profile: BuildProfile::Release,
        scope: CountScope::Handshake,
        window: "client: ClientConnection::new to the first byte read".into(),
        warmup_handshakes: 3,
        outcome: CountOutcome::Counted(Counted {
            handshakes: 10,
            client: Some(end(16_415_710, resumed)),
            server: end(72_436_040, resumed),
        }),
    }
}

/// The sample with arms[1] and arms[2] counted by a phase that ran.
fn with_counts() -> Evidence {
    let mut e = sample::evidence();
    e.arms[1].instructions = Some(counted(false));
    e.arms[2].instructions = Some(counted(true));
    e.run.settings.instructions = Some(InstructionCounting::On(CountingPhase {
        tool: TOOL.into(),
        build_profile: BuildProfile::Release,
        handshakes_per_arm: 10,
        warmup_per_arm: 3,
        parallel_groups: 1,
        arms: 2,
        wall_s: 12.5,
    }));
    e
}

mod common;

fn breaks(path: &str, change: impl FnOnce(&mut Evidence)) {
    common::breaks(with_counts(), path, change);
}

fn outcome(e: &mut Evidence, arm: usize) -> &mut Counted {
    match &mut e.arms[arm].instructions.as_mut().unwrap().outcome {
        CountOutcome::Counted(c) => c,
        CountOutcome::Failed { .. } => unreachable!(),
    }
}

#[test]
fn counted_evidence_round_trips_through_json_and_validates() {
    let e = with_counts();
    let back = Evidence::from_json(&e.to_json()).unwrap();
    assert_eq!(back, e);
}

#[test]
fn older_files_without_counts_still_read() {
    let e = sample::evidence();
    let text = e.to_json();
    assert!(!text.contains("instructions"));
    assert_eq!(Evidence::from_json(&text).unwrap(), e);
}

#[test]
fn a_count_covers_at_least_one_handshake_and_per_handshake_is_total_over_them() {
    breaks("arms[1].instructions.outcome.handshakes", |e| {
        outcome(e, 1).handshakes = 0;
    });
    breaks("arms[1].instructions.outcome.server.per_handshake", |e| {
        outcome(e, 1).server.per_handshake *= 2.0;
    });
    breaks("arms[1].instructions.outcome.client.per_handshake", |e| {
        let c = outcome(e, 1).client.as_mut().unwrap();
        c.total = 0;
        c.per_handshake = 0.0;
    });
    breaks("arms[1].instructions.outcome.server.per_handshake", |e| {
        outcome(e, 1).server.per_handshake = f64::NAN;
    });
}

#[test]
fn kinds_add_up_and_are_all_of_the_arms_kind() {
    breaks("arms[1].instructions.outcome.server.kinds", |e| {
        outcome(e, 1).server.kinds.as_mut().unwrap().full = 9;
    });
    // A resumed arm whose server did a full handshake: never a count.
    breaks("arms[2].instructions.outcome.server.kinds.resumed", |e| {
        let k = outcome(e, 2).server.kinds.as_mut().unwrap();
        k.resumed = 9;
        k.full = 1;
    });
    breaks("arms[1].instructions.outcome.client.kinds.resumed", |e| {
        let k = outcome(e, 1)
            .client
            .as_mut()
            .unwrap()
            .kinds
            .as_mut()
            .unwrap();
        k.resumed = 10;
        k.full = 0;
    });
}

#[test]
fn a_handshake_count_has_both_ends_and_a_whole_process_one_the_server_alone() {
    breaks("arms[1].instructions.outcome.client", |e| {
        outcome(e, 1).client = None;
    });
    breaks("arms[1].instructions.outcome.client", |e| {
        e.arms[1].instructions.as_mut().unwrap().scope = CountScope::WholeProcess;
    });
}

#[test]
fn only_tls_arms_are_counted_and_a_failure_says_why() {
    breaks("arms[0].instructions", |e| {
        e.arms[0].instructions = Some(counted(false));
    });
    breaks("arms[1].instructions.outcome.error", |e| {
        e.arms[1].instructions.as_mut().unwrap().outcome =
            CountOutcome::Failed { error: " ".into() };
    });
    breaks("arms[1].instructions.tool", |e| {
        e.arms[1].instructions.as_mut().unwrap().tool = String::new();
    });
}

#[test]
fn every_count_belongs_to_the_phase_that_ran_as_it_says() {
    breaks("run.settings.instructions.arms", |e| {
        e.arms[2].instructions = None;
    });
    breaks("arms[2].instructions", |e| {
        e.arms[2].instructions.as_mut().unwrap().build_profile = BuildProfile::Debug;
    });
    breaks("arms[1].instructions", |e| {
        e.run.settings.instructions = Some(InstructionCounting::Off);
    });
    breaks("arms[1].instructions", |e| {
        e.run.settings.instructions = None;
    });
    breaks("run.settings.instructions", |e| {
        e.arms[1].instructions = None;
        e.arms[2].instructions = None;
        e.run.settings.instructions = Some(InstructionCounting::Skipped {
            reason: String::new(),
        });
    });
    breaks("run.settings.instructions.wall_s", |e| {
        if let Some(InstructionCounting::On(p)) = &mut e.run.settings.instructions {
            p.wall_s = -1.0;
        }
    });
}
