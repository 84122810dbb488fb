//! CPU work per handshake, in instructions, per end: a phase of `collector run` after
//! the timed arms. Each rustls handshake arm's client and server run again, each in a
//! process of its own (`collector count-side`) under valgrind's callgrind, with
//! collection on only inside the end's handshake window ([`window`]); the instructions
//! counted there over the counted handshakes, divided by them, are the arm's
//! instructions per handshake per end (`arms[].instructions`, see `shared::instructions`).
//!
//! Command line ([`InstructionArgs`]) → plan ([`plan::decide`]: which arms, or why none)
//! → measure ([`phase::run`] → [`group`] per certificate kind → [`process`] per end,
//! [`valgrind`] for the command and the counts) → record (each arm's `instructions`, the run's
//! `settings.instructions`) → the summary's block ([`report`]).
//!
//! The peer servers OpenSSL `s_server` and nginx are counted in the peer phase, as whole
//! processes, server side only ([`whole`], lent to `crate::arms::peer::counted`).

pub mod calibrate;
pub mod group;
pub mod handoff;
pub mod phase;
pub mod plan;
pub mod process;
pub mod report;
pub mod side;
pub mod valgrind;
pub mod whole;
pub mod window;

pub use plan::{decide, Context, Decision, InstructionArgs};
pub use report::summary;
