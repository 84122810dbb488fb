//! The counting phase's plan, decided before anything is measured: which arms are
//! counted, with what, how many handshakes, how many at a time; or why the phase is off
//! or skipped (said in one plain line; the run goes on without counts).

use clap::Args;

use super::valgrind::Valgrind;
use crate::arms::{ArmKind, ArmSpec, Fault};

/// Counted handshakes per arm and end unless `--instructions-handshakes` says otherwise.
pub const DEFAULT_HANDSHAKES: u64 = 10;
/// Uncounted handshakes each end makes first: they warm the code paths up and prime
/// resumption (a resumed arm's first is full).
pub const WARMUP: u64 = 3;
/// Most groups counted at once: each is two processes that take turns.
const MAX_PARALLEL: usize = 8;

/// `collector run`'s flags for the counting phase.
#[derive(Debug, Clone, Args)]
pub struct InstructionArgs {
    /// Do not count instructions per handshake. By default, where valgrind is on PATH,
    /// each rustls handshake arm's client and server are run again after the timed arms,
    /// each end in a process of its own under valgrind's callgrind, counting the
    /// user-space instructions of each end's handshake (see docs/src/cpu-cost.md); where
    /// valgrind is missing the run says so and goes on without counts. Also set by the
    /// environment (the end-to-end tests switch it off there: their debug builds would
    /// pay seconds per run for counts they do not look at).
    #[arg(
        long,
        env = "HLAB_NO_INSTRUCTIONS",
        hide_env_values = true,
        value_parser = clap::builder::FalseyValueParser::new()
    )]
    pub no_instructions: bool,

    /// Counted handshakes per arm and end in the counting phase (1 to 10000), after 3
    /// uncounted warm-up handshakes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_HANDSHAKES, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub instructions_handshakes: u64,
}

/// What the phase will do.
#[derive(Debug)]
pub enum Decision {
    Count(Plan),
    /// `--no-instructions`.
    Off,
    /// Not possible in this run; why, in words.
    Skipped(String),
}

/// A phase that will run.
#[derive(Debug)]
pub struct Plan {
    pub valgrind: Valgrind,
    /// The handshake arms to count, in the run's order.
    pub arms: Vec<ArmSpec>,
    pub handshakes: u64,
    pub warmup: u64,
    /// Groups of arms (one per certificate kind) counted at the same time.
    pub parallel: usize,
    /// `--break-resumption`: the counted servers keep no session state either.
    pub break_resumption: bool,
}

/// Where the run is, as far as the phase cares.
pub struct Context<'a> {
    /// The run's arms (after `--arms`).
    pub specs: &'a [ArmSpec],
    /// Plain loopback (no emulated link, no `--target`).
    pub on_loopback: bool,
    pub fault: Fault,
    /// Whether a peer server of the run is counted as a whole process (the peer phase
    /// does it, with this phase's plan).
    pub peer_servers: bool,
}

/// The arms the phase counts: every rustls handshake arm of the run (full and resumed;
/// not 0-RTT or keep-alive, whose window is a request's, and not a placement control
/// arm, a copy of an arm that is counted).
pub fn countable(specs: &[ArmSpec]) -> Vec<ArmSpec> {
    specs
        .iter()
        .filter(|s| matches!(s.kind, ArmKind::Handshake(_)) && s.cpu.is_none())
        .copied()
        .collect()
}

/// The phase for `args` in `cx`, with valgrind looked up by `find` (only when needed).
pub fn decide(
    args: &InstructionArgs,
    cx: &Context<'_>,
    find: impl FnOnce() -> Result<Valgrind, String>,
) -> Decision {
    if args.no_instructions {
        return Decision::Off;
    }
    if !cx.on_loopback {
        return Decision::Skipped(
            "instructions are counted in loopback runs only (they do not depend on the link or the host; run without --rtt/--link/--loss/--target to count them)".into(),
        );
    }
    let arms = countable(cx.specs);
    if arms.is_empty() && !cx.peer_servers {
        return Decision::Skipped(
            "no rustls handshake arm nor a counted peer server (OpenSSL s_server, nginx) in this run".into(),
        );
    }
    let valgrind = match find() {
        Ok(v) => v,
        Err(why) => return Decision::Skipped(why),
    };
    // Every CPU the run may use (the timed arms' placement pinned this thread to some).
    let cpus = crate::cpu::plan().available.len();
    Decision::Count(Plan {
        valgrind,
        parallel: cpus.clamp(1, MAX_PARALLEL),
        arms,
        handshakes: args.instructions_handshakes,
        warmup: WARMUP,
        break_resumption: cx.fault == Fault::NoSessionStore,
    })
}

impl Decision {
    /// The one line the run prints where the phase will not run (None where it will, or
    /// was switched off: no news).
    pub fn notice(&self) -> Option<String> {
        match self {
            Decision::Skipped(why) => Some(format!(
                "collector: instructions per handshake not counted: {why}"
            )),
            Decision::Count(_) | Decision::Off => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shared::{CertKind, KxGroup};

    use super::*;
    use crate::arms::default_set;

    fn args(off: bool) -> InstructionArgs {
        InstructionArgs {
            no_instructions: off,
            instructions_handshakes: 10,
        }
    }

    fn found() -> Result<Valgrind, String> {
        Ok(Valgrind {
            path: PathBuf::from("/usr/bin/valgrind"),
            version: "valgrind-3.19.0".into(),
        })
    }

    fn cx(specs: &[ArmSpec], on_loopback: bool) -> Context<'_> {
        Context {
            specs,
            on_loopback,
            fault: Fault::None,
            peer_servers: false,
        }
    }

    #[test]
    fn every_handshake_arm_is_counted_and_nothing_else() {
        let specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], true);
        let Decision::Count(plan) = decide(&args(false), &cx(&specs, true), found) else {
            panic!("counts")
        };
        let ids: Vec<String> = plan.arms.iter().map(ArmSpec::id).collect();
        assert_eq!(ids.len(), 6, "{ids:?}");
        assert!(ids.iter().all(|id| id.starts_with("tls1")), "{ids:?}");
        assert!(!ids.iter().any(|id| id.contains("0rtt")), "{ids:?}");
        assert_eq!((plan.handshakes, plan.warmup), (10, WARMUP));
    }

    #[test]
    fn a_missing_valgrind_skips_the_phase_with_its_reason() {
        let specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let d = decide(
            &args(false),
            &cx(&specs, true),
            || Err("not on PATH".into()),
        );
        assert!(
            matches!(&d, Decision::Skipped(why) if why == "not on PATH"),
            "{d:?}"
        );
        assert!(d.notice().unwrap().contains("not on PATH"));
    }

    #[test]
    fn off_emulated_or_tcp_only_runs_count_nothing_and_never_look_for_valgrind() {
        let specs = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false);
        let never = || -> Result<Valgrind, String> { panic!("looked up") };
        assert!(matches!(
            decide(&args(true), &cx(&specs, true), never),
            Decision::Off
        ));
        assert!(matches!(
            decide(&args(false), &cx(&specs, false), never),
            Decision::Skipped(_)
        ));
        let tcp = [ArmSpec::TCP_CONNECT];
        assert!(matches!(
            decide(&args(false), &cx(&tcp, true), never),
            Decision::Skipped(why) if why.contains("no rustls handshake arm")
        ));
    }

    #[test]
    fn a_run_of_counted_peer_servers_alone_counts_them_and_no_rustls_arm() {
        let tcp = [ArmSpec::TCP_CONNECT];
        let peers = Context {
            peer_servers: true,
            ..cx(&tcp, true)
        };
        let Decision::Count(plan) = decide(&args(false), &peers, found) else {
            panic!("the peer servers are counted")
        };
        assert!(plan.arms.is_empty());
        assert_eq!(plan.handshakes, 10);
    }
}
