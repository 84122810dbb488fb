//! # Handshake Lab collector
//!
//! Measures TCP connect and rustls TLS 1.3 / 1.2 handshakes (full and resumed) on
//! loopback, checks on both ends that every connection did what its arm claims, and
//! writes evidence JSON (the `shared` crate's schema).
//!
//! Layout: [`arms`] (one module per kind of arm), [`measure`] (the timing loop, checks and
//! statistics), [`evidence`] (building and writing evidence), [`run`] (the `run` command).

pub mod arms;
pub mod certs;
pub mod cli;
pub mod compare;
pub mod cpu;
pub mod evidence;
pub mod export;
pub mod floor;
pub mod human;
pub mod limits;
pub mod measure;
pub mod netem;
pub mod peers;
pub mod probe;
pub mod progress;
pub mod remote;
pub mod report;
pub mod run;
pub mod spread;
pub mod stale;
pub mod stats;
