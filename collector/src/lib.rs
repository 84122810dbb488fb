//! # Handshake Lab collector
//!
//! Measures TCP connect and rustls TLS 1.3 / 1.2 handshakes (full and resumed) on
//! loopback, checks on both ends that every connection did what its arm claims, and
//! writes evidence JSON (the `shared` crate's schema).
//!
//! Layout: [`arms`] (one module per kind of arm, one folder per TLS stack, and what a peer
//! stack implements in [`arms::peer`]), [`measure`] (the timing loop and the other loops
//! above the arms), [`peers`] (the peer phase driver: the list of stacks, run with the
//! loop), [`stats`] (statistics over samples), [`evidence`] (building and writing
//! evidence), [`run`] (the `run` command). Bottom to top: `netem` → `arms` → `progress` →
//! `measure` → `peers`; `cargo xtask cycles` checks that no module reaches back up.

pub mod arms;
pub mod certs;
pub mod cli;
pub mod compare;
pub mod cpu;
pub mod evidence;
pub mod export;
pub mod floor;
pub mod human;
pub mod instructions;
pub mod limits;
pub mod measure;
pub mod netem;
pub mod peers;
pub mod probe;
pub mod progress;
pub mod reference;
pub mod remote;
pub mod report;
pub mod run;
pub mod spread;
pub mod stale;
pub mod stats;
